# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Parallel's success and failure policies, as docs/nodes.md states them, and their export.

``failure: one`` (the default) is py_trees' Parallel: the first failure fails and halts
the others. ``failure: all`` lets the others go on. The BT.CPP mapping is checked here for
the exported form; test_btcpp_peer.py ticks the mapped form against BT.CPP itself.
"""

from __future__ import annotations

import textwrap
from typing import Iterator

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.formats import btcpp
from bt_executive.nodes.catalogue import default_registry
from bt_executive.nodes.composites import ParallelFailureOnAll
from bt_executive.observe.runner import TreeRunner
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status
import pytest

I, R, S, F = Status.INVALID, Status.RUNNING, Status.SUCCESS, Status.FAILURE


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


class Scripted(Behaviour):
    """Returns the statuses of ``script`` in turn (the last one repeats); counts updates."""

    def __init__(self, name: str, *script: Status) -> None:
        super().__init__(name)
        self.script = list(script)
        self.updates = 0
        self.halts = 0

    def update(self) -> Status:
        status = self.script[min(self.updates, len(self.script) - 1)]
        self.updates += 1
        self.feedback_message = f'{self.name} {status.name.lower()}'
        return status

    def terminate(self, new_status: Status) -> None:
        if new_status is I and self.status is R:
            self.halts += 1


def parallel_of(text: str) -> tuple[TreeRunner, dict[str, Behaviour]]:
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    apply_blackboard_defaults(document)
    runner = TreeRunner(build(document, registry=registry))
    return runner, {b.name: b for b in runner.root.iterate()}


def ticks(node: Behaviour, count: int) -> list[Status]:
    result = []
    for _ in range(count):
        node.tick_once()
        result.append(node.status)
    return result


def test_failure_one_fails_at_the_first_failure_and_halts_the_others():
    runner, nodes = parallel_of("""
        trees:
          Main:
            Parallel it: [Running busy, Failure bad, Success good]
        """)
    assert runner.tick_once().root_status is F
    assert nodes['busy'].status is I  # halted
    assert runner.root.feedback_message == "'bad' failed: failure"


def test_failure_one_fails_even_when_another_child_succeeded_in_that_tick():
    runner, _ = parallel_of("""
        trees:
          Main:
            Parallel it: {success: one, children: [Success good, Failure bad]}
        """)
    assert runner.tick_once().root_status is F


def test_failure_all_with_success_all_waits_for_the_others_then_fails():
    bad, slow = Scripted('bad', F), Scripted('slow', R, R, S)
    node = ParallelFailureOnAll('p', children=[bad, slow])
    assert ticks(node, 2) == [R, R]
    assert node.feedback_message == '1 of 2 running, 1 failed'
    assert ticks(node, 1) == [F]
    assert bad.updates == 1  # a failed child is out of the run
    assert node.feedback_message == "1 of 2 children failed; 'bad' failed: bad failure"


def test_failure_all_with_success_all_succeeds_when_all_succeed():
    first, second = Scripted('first', S), Scripted('second', R, S)
    node = ParallelFailureOnAll('p', children=[first, second])
    assert ticks(node, 2) == [R, S]
    assert first.updates == 1  # synchronised: a success is not ticked again
    assert node.feedback_message == 'all 2 children succeeded'


def test_failure_all_without_synchronise_ticks_successes_again():
    flaky, slow = Scripted('flaky', S, F), Scripted('slow', R, R, S)
    node = ParallelFailureOnAll('p', children=[flaky, slow], synchronise=False)
    assert ticks(node, 3) == [R, R, F]
    assert flaky.updates == 2 and node.feedback_message.startswith('1 of 2 children failed')


def test_failure_all_fails_when_every_child_failed():
    node = ParallelFailureOnAll('p', children=[Scripted('a', F), Scripted('b', R, F)])
    assert ticks(node, 2) == [R, F]
    assert node.feedback_message == 'all 2 children failed'


def test_failure_all_with_success_one_lets_the_first_success_win_at_once():
    bad, winner, after = Scripted('bad', F), Scripted('winner', R, S), Scripted('after', R)
    node = ParallelFailureOnAll('p', children=[bad, winner, after], success='one')
    assert ticks(node, 2) == [R, S]
    assert after.updates == 1 and after.halts == 1  # not ticked in the deciding tick
    assert node.feedback_message == "'winner' succeeded"


def test_a_new_run_resets_the_failed_children():
    bad, good = Scripted('bad', F), Scripted('good', S)
    node = ParallelFailureOnAll('p', children=[bad, good])
    assert ticks(node, 2) == [F, F]
    assert bad.updates == 2 and good.updates == 2


def test_the_failure_parameter_is_checked_and_documented():
    registry = default_registry()
    param = registry.get('Parallel').param('failure')
    assert param.default == 'one' and param.choices == ('one', 'all')
    with pytest.raises(Exception, match='failure'):
        Loader(registry).load_text('trees:\n  Main:\n    Parallel: {failure: some, '
                                   'children: [Success]}\n', name='t.yaml')
    with pytest.raises(ValueError):
        ParallelFailureOnAll('p', success='most')


def test_only_matching_policies_become_bt_cpp_parallels():
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent("""
        trees:
          Main:
            Sequence:
              - Parallel default: [Success, Success]
              - Parallel race: {success: one, failure: all, children: [Success, Success]}
              - Parallel patient: {failure: all, children: [Success, Success]}
              - Parallel eager: {success: one, children: [Success, Success]}
        """), name='t.yaml')
    xml = btcpp.export_xml(document)
    lines = [line.strip() for line in xml.splitlines()]
    assert '<Parallel name="default" success_count="-1" failure_count="1">' in lines
    assert '<Parallel name="race" success_count="1" failure_count="-1">' in lines
    assert '<bte_Parallel name="patient" failure="all">' in lines
    assert '<bte_Parallel name="eager" success="one">' in lines
    back = Loader(registry).load_text(btcpp.import_xml(xml, name='t.xml'), name='b.yaml')
    params = {node.name: {key: value.data for key, value in node.params.items()}
              for node in back.trees['Main'].root.walk() if node.type == 'Parallel'}
    assert params == {'default': {}, 'race': {'success': 'one', 'failure': 'all'},
                      'patient': {'failure': 'all'}, 'eager': {'success': 'one'}}


def test_a_bt_cpp_parallel_that_needs_one_success_imports_as_failure_all():
    xml = ('<root BTCPP_format="4"><BehaviorTree ID="Main">'
           '<Parallel success_count="1" failure_count="-1">'
           '<AlwaysFailure/><AlwaysSuccess/></Parallel></BehaviorTree></root>')
    text = btcpp.import_xml(xml, name='t.xml')
    assert 'success: one' in text and 'failure: all' in text
    registry = default_registry()
    document = Loader(registry).load_text(text, name='t.yaml')
    root = build(document, registry=registry).root
    root.tick_once()
    assert root.status is S  # the failure did not end it; the success won
