# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fault containment (bt_executive.core.faults): a node that raises fails alone, without ROS.

Nodes of plugin types (outside bt_executive and py_trees) get a :class:`FaultGuard` when
built; trusted ones run unguarded until they first raise, when :func:`contain_fault`
guards them and the tick is run again. The guard lives in the node table, not on the
behaviour.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any, Iterator

from bt_executive.core.builder import apply_blackboard_defaults, BuildContext, Builder
from bt_executive.core.faults import contain_fault, FaultGuard, MAX_LOGGED_FAULTS
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.core.table import BuiltTree
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
import py_trees
from py_trees.common import Status
import pytest


class Raise(py_trees.behaviour.Behaviour):
    """Raises ``RuntimeError(message)`` from ``where``; else runs for ever.

    ``message`` may contain ``{n}``: the number of calls that raised so far.
    """

    def __init__(self, name: str, message: str, where: str) -> None:
        super().__init__(name=name)
        self.message = message
        self.where = where
        self.calls = 0
        self.updates = 0
        self.terminated: list[Status] = []

    def _maybe_raise(self, method: str) -> None:
        if self.where == method:
            self.calls += 1
            raise RuntimeError(self.message.format(n=self.calls))

    def initialise(self) -> None:
        """Raise if asked to."""
        self._maybe_raise('initialise')

    def update(self) -> Status:
        """Raise if asked to, else keep running."""
        self.updates += 1
        self._maybe_raise('update')
        self.feedback_message = 'running'
        return Status.RUNNING

    def terminate(self, new_status: Status) -> None:
        """Note the stop, then raise if asked to."""
        self.terminated.append(new_status)
        self._maybe_raise('terminate')


class RaisingSequence(py_trees.composites.Sequence):
    """A Sequence (with memory) whose own logic raises from its ``after``-th tick on."""

    def __init__(self, name: str, children: list, after: int) -> None:
        super().__init__(name=name, memory=True, children=children)
        self.after = after
        self.ticks = 0

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick like a Sequence, then break before reporting its own status."""
        self.ticks += 1
        for node in super().tick():
            if node is self and self.ticks >= self.after:
                raise RuntimeError('composite broke')
            yield node


def _raise(ctx: Any, name: str, params: Any, children: list) -> Raise:
    return Raise(name, params['message'], params['where'])


def _raising_sequence(ctx: Any, name: str, params: Any, children: list) -> RaisingSequence:
    return RaisingSequence(name, children, params['after'])


PLUGIN_TYPES = (
    NodeType('Raise', Category.LEAF, 'raises from initialise, update or terminate',
             params=(Param('message', ParamType.STRING, 'the error message', default='boom'),
                     Param('where', ParamType.ENUM, 'the method that raises',
                           default='update', choices=('initialise', 'update', 'terminate'))),
             factory=_raise, primary='message', source='test_faults.Raise'),
    NodeType('RaisingSequence', Category.COMPOSITE, 'a Sequence that breaks',
             params=(Param('after', ParamType.INT, 'tick from which it raises', default=2,
                           minimum=1),),
             factory=_raising_sequence, min_children=1, max_children=None,
             source='test_faults.RaisingSequence'),
)


def registry_with(*, trusted: bool) -> Registry:
    """Return the catalogue plus the raising types: plugins, or as if they were ours."""
    base = default_registry()
    registry = Registry(base.types(), sections=base.sections)
    for node_type in PLUGIN_TYPES:
        if trusted:
            node_type = dataclasses.replace(node_type, source='bt_executive.test')
        registry.register(node_type)
    return registry


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


def build(text: str, *, trusted: bool = False) -> tuple[BuiltTree, list[str]]:
    """Build a tree using the raising types; return it and the list its log goes to."""
    registry = registry_with(trusted=trusted)
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    apply_blackboard_defaults(document)
    logged: list[str] = []
    context = BuildContext(registry=registry, document=document, log_error=logged.append)
    return Builder(context).build(), logged


def first_lines(logged: list[str]) -> list[str]:
    return [entry.split('\n', 1)[0] for entry in logged]


# ---- plugin nodes: guarded from the start ---------------------------------------------------

def test_plugin_nodes_are_guarded_when_built_and_trusted_ones_are_not():
    built, _ = build("""
        trees:
          Main:
            Selector root:
              - Raise boom
              - Running fallback
        """)
    boom = built.by_path('Main/root/boom')
    guard = built.nodes.guard(boom)
    assert isinstance(guard, FaultGuard)
    assert guard.behaviour is boom and guard.path == 'Main/root/boom' and guard.faults == 0
    assert built.nodes.info(boom).guard is guard
    assert vars(boom)['tick'] == guard.tick and vars(boom)['terminate'] == guard.terminate
    for behaviour in built.iterate():
        if behaviour is not boom:
            assert built.nodes.guard(behaviour) is None
            assert 'tick' not in vars(behaviour)
    trusted, _ = build('trees:\n  Main:\n    Raise boom\n', trusted=True)
    assert built.nodes.info(trusted.root) is None  # another tree's table
    assert trusted.nodes.guard(trusted.root) is None and 'tick' not in vars(trusted.root)


@pytest.mark.parametrize('where', ['initialise', 'update'])
def test_a_plugin_node_that_raises_in_its_tick_fails_alone(where):
    built, logged = build(f"""
        trees:
          Main:
            Selector root:
              - Raise boom: {{message: 'went wrong', where: {where}}}
              - Running fallback
        """)
    boom = built.by_path('Main/root/boom')
    fallback = built.by_path('Main/root/fallback')
    for tick in range(1, 6):
        built.root.tick_once()
        assert built.root.status is Status.RUNNING  # the selector went on to its fallback
        assert boom.status is Status.FAILURE
        assert boom.feedback_message == f'{where}() raised RuntimeError: went wrong'
        assert fallback.status is Status.RUNNING
        assert built.nodes.guard(boom).faults == tick
    assert boom.terminated == [Status.FAILURE] * 5  # stopped with FAILURE each time
    assert len(logged) == 1, logged
    first, trace = logged[0].split('\n', 1)
    assert first == ('Main/root/boom: ' + where + '() raised RuntimeError: went wrong'
                     ' (the node fails; logged once)')
    assert trace.startswith('Traceback (most recent call last):')
    assert 'RuntimeError: went wrong' in trace


def test_a_plugin_node_that_raises_in_terminate_still_stops():
    built, logged = build("""
        blackboard: {go: false}
        trees:
          Main:
            Selector root:
              - Condition stop: go
              - Raise stubborn: {where: terminate}
        """)
    stubborn = built.by_path('Main/root/stubborn')
    built.root.tick_once()
    assert stubborn.status is Status.RUNNING and logged == []
    py_trees.blackboard.Blackboard.set('/go', True)  # the higher priority preempts it
    built.root.tick_once()
    assert built.root.status is Status.SUCCESS
    assert stubborn.status is Status.INVALID
    assert stubborn.terminated == [Status.INVALID]
    assert stubborn.feedback_message == 'terminate() raised RuntimeError: boom'
    assert first_lines(logged) == [
        'Main/root/stubborn: terminate() raised RuntimeError: boom (the node fails; '
        'logged once)']
    assert built.nodes.guard(stubborn).faults == 1


def test_each_distinct_error_is_logged_once_up_to_the_limit():
    built, logged = build("""
        trees:
          Main:
            Selector root:
              - Raise counting: 'call {n}'
              - Raise same: 'always the same'
              - Running
        """)
    for _ in range(3 * MAX_LOGGED_FAULTS):
        built.root.tick_once()
    counting = [line for line in first_lines(logged) if 'counting' in line]
    same = [line for line in first_lines(logged) if '/same:' in line]
    assert len(counting) == MAX_LOGGED_FAULTS
    assert [line.split(': ', 1)[1].split(' (')[0] for line in counting] == \
        [f'update() raised RuntimeError: call {n}' for n in range(1, MAX_LOGGED_FAULTS + 1)]
    assert counting[-1].endswith('further distinct errors of this node are not logged)')
    assert all('further' not in line for line in counting[:-1])
    assert same == ['Main/root/same: update() raised RuntimeError: always the same '
                    '(the node fails; logged once)']
    assert built.nodes.guard(built.by_path('Main/root/counting')).faults == \
        3 * MAX_LOGGED_FAULTS
    assert built.nodes.guard(built.by_path('Main/root/same')).faults == 3 * MAX_LOGGED_FAULTS
    assert len(built.nodes.guard(built.by_path('Main/root/counting')).logged) == \
        MAX_LOGGED_FAULTS


def test_a_composite_that_raises_fails_and_halts_its_running_children():
    built, logged = build("""
        trees:
          Main:
            Selector root:
              - RaisingSequence broken:
                  after: 2
                  children: [Success, Raise still running: {where: terminate, message: halted}]
              - Running fallback
        """)
    broken = built.by_path('Main/root/broken')
    running = built.by_path('Main/root/broken/still running')
    built.root.tick_once()
    assert broken.status is Status.RUNNING and running.status is Status.RUNNING
    built.root.tick_once()
    assert broken.status is Status.FAILURE
    assert broken.feedback_message == 'tick() raised RuntimeError: composite broke'
    assert running.status is Status.INVALID  # halted: a goal it ran would be cancelled
    assert running.terminated == [Status.INVALID]
    assert built.root.status is Status.RUNNING
    assert built.by_path('Main/root/fallback').status is Status.RUNNING
    assert [line.split(':')[0] for line in logged] == [
        'Main/root/broken', 'Main/root/broken/still running']


def test_a_broken_log_sink_does_not_break_the_tick():
    behaviour = Raise('boom', 'bad', 'update')

    def sink(text: str) -> None:
        raise OSError('log full')

    guard = FaultGuard(behaviour, 'T/boom', sink)
    behaviour.tick_once()
    assert behaviour.status is Status.FAILURE
    assert behaviour.feedback_message == 'update() raised RuntimeError: bad'
    assert guard.faults == 1


def test_a_guard_on_a_plain_behaviour_reports_through_its_path():
    logged: list[str] = []
    behaviour = Raise('boom', 'no value', 'initialise')
    guard = FaultGuard(behaviour, 'Some/path', logged.append)
    assert list(behaviour.tick()) == [behaviour]
    assert behaviour.status is Status.FAILURE
    assert guard.report(ValueError('')) == 'tick() raised ValueError'  # no ': ' left over
    assert first_lines(logged) == [
        'Some/path: initialise() raised RuntimeError: no value (the node fails; logged once)',
        'Some/path: tick() raised ValueError (the node fails; logged once)']
    assert guard.faults == 2


# ---- trusted nodes: guarded when they first raise -------------------------------------------

TRUSTED_TREE = """
    blackboard: {count: 0}
    trees:
      Main:
        Selector root:
          - Sequence mission:
              - SetBlackboard count: {key: count, value: '${count + 1}'}
              - Raise broken: {message: 'bad value'}
          - Running fallback
    """


def test_a_trusted_node_raising_the_first_time_is_guarded_and_the_rerun_fails_it():
    built, logged = build(TRUSTED_TREE, trusted=True)
    root = built.root
    broken = built.by_path('Main/root/mission/broken')
    assert all(built.nodes.guard(behaviour) is None for behaviour in built.iterate())
    with pytest.raises(RuntimeError, match='bad value') as raised:
        root.tick_once()
    assert contain_fault(raised.value, built)
    guard = built.nodes.guard(broken)
    assert isinstance(guard, FaultGuard) and guard.faults == 1 and guard.pending is not None
    assert guard.path == 'Main/root/mission/broken'
    assert first_lines(logged) == [
        'Main/root/mission/broken: update() raised RuntimeError: bad value (the node fails; '
        'logged once)']
    assert not contain_fault(raised.value, built)  # guarded already: the caller re-raises
    updates = broken.updates
    root.tick_once()  # the tick run again: the node fails at once, without running
    assert broken.updates == updates and guard.pending is None
    assert broken.status is Status.FAILURE
    assert broken.feedback_message == 'update() raised RuntimeError: bad value'
    assert root.status is Status.RUNNING  # the selector went on to its fallback
    for _ in range(3):
        root.tick_once()  # contained in place from now on
        assert broken.status is Status.FAILURE and root.status is Status.RUNNING
    assert guard.faults == 4 and len(logged) == 1
    # the first tick ran twice up to the node, once: the counter shows it
    assert py_trees.blackboard.Blackboard.get('/count') == 5
    assert all(built.nodes.guard(b) is None for b in built.iterate() if b is not broken)


def test_the_runner_contains_a_trusted_node_within_the_tick():
    built, logged = build(TRUSTED_TREE, trusted=True)
    broken = built.by_path('Main/root/mission/broken')
    runner = TreeRunner(built)
    record = runner.tick_once()  # raised, guarded, the tick run again: no exception here
    assert record.tick == 1 and record.root_status is Status.RUNNING
    moved = {change.id: (change.old, change.new, change.reason)
             for change in record.transitions}
    assert moved['Main/root/mission/broken'] == (
        Status.INVALID, Status.FAILURE, 'update() raised RuntimeError: bad value')
    assert moved['Main/root/fallback'][1] is Status.RUNNING
    assert built.nodes.guard(broken).faults == 1 and len(logged) == 1
    runner.tick_once()
    assert built.nodes.guard(broken).faults == 2 and len(logged) == 1


def test_a_trusted_terminate_that_raises_is_guarded_and_the_stop_completes():
    built, logged = build("""
        trees:
          Main:
            Sequence root:
              - Success first
              - Raise stubborn: {where: terminate, message: 'cannot cancel'}
        """, trusted=True)
    stubborn = built.by_path('Main/root/stubborn')
    runner = TreeRunner(built)
    runner.tick_once()
    assert stubborn.status is Status.RUNNING
    record = runner.stop()  # terminate() raises: guarded (not pending), stopped again
    assert record.stopped
    assert {behaviour.status for behaviour in built.iterate()} == {Status.INVALID}
    guard = built.nodes.guard(stubborn)
    assert isinstance(guard, FaultGuard) and guard.pending is None
    assert stubborn.feedback_message == 'terminate() raised RuntimeError: cannot cancel'
    assert first_lines(logged) == [
        'Main/root/stubborn: terminate() raised RuntimeError: cannot cancel (the node fails; '
        'logged once)']
    assert {change.id for change in record.transitions} == {
        'Main/root', 'Main/root/first', 'Main/root/stubborn'}


def test_contain_fault_guards_a_behaviour_the_builder_did_not_make():
    built, logged = build("""
        trees:
          Main:
            Sequence root:
              - Success first
        """)
    added = Raise('added', 'late', 'update')
    built.root.add_child(added)
    assert built.nodes.info(added) is None
    with pytest.raises(RuntimeError) as raised:
        built.root.tick_once()
    assert contain_fault(raised.value, built)
    info = built.nodes.info(added)
    assert info is not None and info.path == 'added' and info.type == 'Raise'
    assert isinstance(info.guard, FaultGuard)
    built.root.tick_once()
    assert added.status is Status.FAILURE and built.root.status is Status.FAILURE
    assert logged == []  # its reports go to the default log, not the tree's


def test_contain_fault_refuses_errors_the_tree_did_not_raise():
    built, logged = build(TRUSTED_TREE, trusted=True)
    assert not contain_fault(RuntimeError('elsewhere'), built)  # never raised
    try:
        raise ValueError('raised outside the tree')
    except ValueError as error:
        assert not contain_fault(error, built)
    other, _ = build(TRUSTED_TREE, trusted=True)
    with pytest.raises(RuntimeError) as raised:
        other.root.tick_once()
    assert not contain_fault(raised.value, built)  # another tree's node raised it
    assert not contain_fault(KeyboardInterrupt(), built)  # not an Exception
    assert all(built.nodes.guard(b) is None for b in built.iterate())
    assert logged == []
