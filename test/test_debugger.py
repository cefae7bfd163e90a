# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The debug controller (bt_executive.observe.debugger), without ROS.

Tiny trees whose "work" is visible: a SetBlackboard counts its runs in ``n``, a probe
counts its ``initialise()`` calls (an Action's goal would be sent there).
"""

from __future__ import annotations

from typing import Any, Iterator

from bt_executive.observe.debugger import DebugController, DebugNote, DebugRefused
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder
import py_trees
from py_trees.common import Status
import pytest
from test_runner import runner_for

I, R, S, F = Status.INVALID, Status.RUNNING, Status.SUCCESS, Status.FAILURE

TREE = """
    blackboard: {n: 0, armed: false, speed: 0.5, label: a}
    trees:
      Main:
        ReactiveSequence root:
          - SetBlackboard count: {key: n, value: '${n + 1}'}
          - Running busy
    """
COUNT, BUSY, ROOT = 'Main/root/count', 'Main/root/busy', 'Main/root'


class Probe:
    """Count a behaviour's initialise() and terminate() calls (its own work)."""

    def __init__(self, behaviour: py_trees.behaviour.Behaviour) -> None:
        self.started = 0
        self.stopped: list[Status] = []
        initialise, terminate = behaviour.initialise, behaviour.terminate

        def counted_initialise() -> None:
            self.started += 1
            initialise()

        def counted_terminate(status: Status) -> None:
            self.stopped.append(status)
            terminate(status)
        behaviour.initialise = counted_initialise  # type: ignore[method-assign]
        behaviour.terminate = counted_terminate  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


def debugger(text: str = TREE) -> tuple[TreeRunner, DebugController]:
    runner = runner_for(text)
    storage = py_trees.blackboard.Blackboard.storage

    def lookup(key: str) -> Any:
        return storage['/' + key]
    return runner, DebugController(runner.tree, runner, lookup=lookup,
                                   storage=lambda: storage)


def n() -> Any:
    return py_trees.blackboard.Blackboard.storage['/n']


def tick(runner: TreeRunner, controller: DebugController) -> Any:
    """Tick as the executive does: only when the debugger allows it."""
    return runner.tick_once() if controller.may_tick() else None


def test_breakpoint_before_a_node_pauses_before_its_work() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    controller.add_breakpoint(BUSY)
    record = tick(runner, controller)
    assert controller.paused and controller.paused_at is not None
    assert probe.started == 0, 'the node did not start'
    assert n() == 1, 'what ran before it in the tick ran'
    assert [note.kind for note in record.debug] == ['hit']
    assert record.debug[0].origin == 'breakpoint'
    assert "paused at breakpoint before 'Main/root/busy'" in record.debug[0].text
    assert runner.root.status is I, 'halt policy: the tree was halted'
    assert tick(runner, controller) is None, 'paused: no tick'
    assert n() == 1


def test_step_ticks_exactly_once_passing_the_breakpoint() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    controller.add_breakpoint(BUSY)
    tick(runner, controller)
    controller.step()
    assert tick(runner, controller) is not None
    assert probe.started == 1, 'the step passed the breakpoint once'
    assert n() == 2
    assert tick(runner, controller) is None, 'one step, one tick'
    controller.step()
    tick(runner, controller)  # busy runs on: a running node is not stopped at each tick
    assert controller.paused and controller.paused_at is None
    assert probe.started == 1 and n() == 3
    assert tick(runner, controller) is None


def test_a_breakpoint_before_applies_each_time_the_node_starts() -> None:
    runner, controller = debugger()
    controller.add_breakpoint(COUNT)  # count finishes in one tick: it starts every tick
    for expected in (0, 1, 2):
        tick(runner, controller)
        assert controller.paused_at is not None and n() == expected
        controller.step()
        tick(runner, controller)
        assert n() == expected + 1
        controller.resume()


def test_continue_runs_to_the_next_breakpoint() -> None:
    runner, controller = debugger()
    controller.add_breakpoint(COUNT)
    tick(runner, controller)
    assert n() == 0
    controller.resume()
    tick(runner, controller)  # passes count once, then busy runs
    assert n() == 1 and runner.root.status is R
    tick(runner, controller)  # count again: paused
    assert controller.paused and n() == 1


def test_a_step_that_does_not_reach_the_breakpoint_keeps_its_pass() -> None:
    runner, controller = debugger("""
        blackboard: {n: 0, ready: false}
        trees:
          Main:
            Sequence root:
              - SetBlackboard count: {key: n, value: '${n + 1}'}
              - WaitUntil ready: ready
              - Running busy
        """)
    busy = 'Main/root/busy'
    controller.add_breakpoint(busy)
    py_trees.blackboard.Blackboard.storage['/ready'] = True
    tick(runner, controller)
    assert controller.paused_at is not None  # halted: the sequence starts again
    py_trees.blackboard.Blackboard.storage['/ready'] = False
    controller.step()
    tick(runner, controller)  # waits at ready: busy not reached
    controller.resume()
    py_trees.blackboard.Blackboard.storage['/ready'] = True
    tick(runner, controller)
    assert not controller.paused, 'the pass of the step was kept by continue'
    assert runner.tree.by_path(busy).status is R


def test_run_policy_leaves_the_running_node_alone() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    tick(runner, controller)
    assert probe.started == 1
    controller.add_breakpoint(COUNT, policy='run')
    tick(runner, controller)
    assert controller.paused and probe.stopped == [], 'not halted'
    assert runner.tree.by_path(BUSY).status is R
    controller.remove_breakpoint(COUNT)
    controller.resume()
    tick(runner, controller)
    assert probe.started == 1, 'still the same run'


def test_halt_policy_stops_running_work() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    tick(runner, controller)
    controller.add_breakpoint(COUNT)
    tick(runner, controller)
    assert probe.stopped == [I], 'halted as ~/pause halts'


def test_status_breakpoint_and_condition() -> None:
    runner, controller = debugger()
    controller.add_breakpoint(COUNT, when='success', condition='n >= 2')
    tick(runner, controller)
    assert not controller.paused, 'the condition did not hold (n was 1)'
    tick(runner, controller)
    assert controller.paused and n() == 2
    assert 'after SUCCESS' in runner.last.debug[-1].text


def test_substituted_node_does_no_work() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(COUNT))
    text = controller.substitute(COUNT, 'success', ticks=2)
    assert 'substituted by operator: SUCCESS for 2 ticks' in text
    record = tick(runner, controller)
    assert probe.started == 0 and n() == 0
    count = runner.tree.by_path(COUNT)
    assert count.status is S and count.feedback_message == 'substituted by operator: SUCCESS'
    assert any(change.id == COUNT and change.reason.startswith('substituted')
               for change in record.transitions)
    record = tick(runner, controller)
    assert [note.kind for note in record.debug] == ['substitution_ended']
    tick(runner, controller)
    assert probe.started == 1 and n() == 1, 'after two ticks it works again'


def test_substituting_a_running_node_halts_it_first() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    tick(runner, controller)
    controller.substitute(BUSY, 'running')
    tick(runner, controller)
    assert probe.stopped == [I], 'its own work was halted'
    tick(runner, controller)
    assert probe.started == 1 and probe.stopped == [I]
    controller.remove_substitution(BUSY)
    tick(runner, controller)
    assert probe.started == 2, 'it starts afresh (initialise runs)'


def test_failure_substitution_fails_the_parent() -> None:
    runner, controller = debugger()
    controller.substitute(COUNT, 'FAILURE')
    tick(runner, controller)
    assert runner.root.status is F


def test_set_key_is_typed_like_set() -> None:
    runner, controller = debugger()
    storage = py_trees.blackboard.Blackboard.storage
    controller.set_key('armed', 'true')
    assert storage['/armed'] is True
    controller.set_key('speed', '2')
    assert storage['/speed'] == 2.0 and isinstance(storage['/speed'], float)
    controller.set_key('fresh', '{x: 1}')
    assert storage['/fresh'] == {'x': 1}
    for key, text, message in [('armed', '3', 'armed holds a boolean'),
                               ('n', 'abc', 'n holds a whole number'),
                               ('label', '[1', 'value of label'),
                               ('a.b', '1', 'root blackboard key')]:
        with pytest.raises(DebugRefused, match=message):
            controller.set_key(key, text)
    assert storage['/armed'] is True
    assert runner.last is not None and runner.last.debug[-1].kind == 'set'


def test_refusals_say_why() -> None:
    runner, controller = debugger()
    for request, message in [
            (lambda: controller.add_breakpoint('Main/nope'), "no node 'Main/nope'"),
            (lambda: controller.add_breakpoint(COUNT, when='later'), 'when must be one of'),
            (lambda: controller.add_breakpoint(COUNT, policy='x'), 'policy must be one of'),
            (lambda: controller.add_breakpoint(COUNT, condition='n >'), 'condition'),
            (lambda: controller.substitute(COUNT, 'maybe'), 'status must be one of'),
            (lambda: controller.substitute(COUNT, 'success', ticks=0), 'ticks must be'),
            (lambda: controller.step(), 'not paused'),
            (lambda: controller.resume(), 'not paused'),
            (lambda: controller.remove_breakpoint(COUNT), 'no breakpoint'),
            (lambda: controller.remove_substitution(COUNT), 'no substitution')]:
        with pytest.raises(DebugRefused, match=message):
            request()


def test_operator_pause_and_clear() -> None:
    runner, controller = debugger()
    probe = Probe(runner.tree.by_path(BUSY))
    tick(runner, controller)
    controller.pause()
    assert probe.stopped == [I] and tick(runner, controller) is None
    controller.add_breakpoint(BUSY)
    controller.substitute(COUNT, 'success')
    assert controller.rules() == 2
    assert 'removed' in controller.clear()
    assert controller.rules() == 0
    assert runner.tree.by_path(BUSY).tick.__self__ is runner.tree.by_path(BUSY), 'unhooked'
    controller.resume()
    tick(runner, controller)
    assert probe.started == 2


def test_notes_become_events_with_their_origin() -> None:
    runner, controller = debugger()
    builder = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                              revision=1)
    runner.add_observer(builder)
    controller.add_breakpoint(BUSY, origin='web')
    tick(runner, controller)
    controller.substitute(COUNT, 'failure', origin='rqt')
    events = [event for event in builder.events() if 'debug' in event]
    assert [(e['debug'], e['origin'], e['id']) for e in events] == [
        ('breakpoint', 'web', BUSY), ('hit', 'breakpoint', BUSY),
        ('substitute', 'rqt', COUNT)]
    assert events[1]['reason'] == "paused at breakpoint before 'Main/root/busy' (policy halt)"
    assert controller.state()['paused_at']['node'] == BUSY
    assert controller.state()['substitutions'][0]['status'] == 'FAILURE'


def test_close_removes_every_hook() -> None:
    runner, controller = debugger()
    controller.add_breakpoint(BUSY)
    controller.substitute(COUNT, 'success')
    controller.close()
    tick(runner, controller)
    assert n() == 1 and not controller.paused


def test_a_note_is_a_named_tuple() -> None:
    note = DebugNote('hit', 'a', 'breakpoint', 'text')
    assert note.kind == 'hit' and note._asdict()['origin'] == 'breakpoint'
