# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Terminate ends the tree at once: nothing after it runs, the tree takes its status.

Offline: the tree runner (the one place a tree is ticked), the snapshot model and
``bt-executive tick``. The executive with a real subscriber process is in
test/ros/test_terminate_executive.py.
"""

from __future__ import annotations

import textwrap
from typing import Any, Iterator

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.core.table import BuiltTree, table_for
from bt_executive.nodes.catalogue import default_registry
from bt_executive.nodes.terminate import (
    STOP_AT_TERMINATE,
    Terminate,
    termination_requested,
    TreeTerminated,
)
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder
from cli_process import run_cli
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


class Probe(Behaviour):
    """A leaf returning ``result`` that counts its updates and records its stops."""

    def __init__(self, name: str, result: Status = R) -> None:
        super().__init__(name)
        self.result = result
        self.updates = 0
        self.terminated: list[Status] = []

    def update(self) -> Status:
        self.updates += 1
        return self.result

    def terminate(self, new_status: Status) -> None:
        self.terminated.append(new_status)


def runner_for(text: str) -> TreeRunner:
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    apply_blackboard_defaults(document)
    return TreeRunner(build(document, registry=registry))


def bare_runner(root: Behaviour) -> TreeRunner:
    return TreeRunner(BuiltTree(root, table_for(root), 'Main'))


def written(key: str) -> bool:
    return ('/' + key) in py_trees.blackboard.Blackboard.storage


#: Trees in which something after a Terminate would run in the same tick (and write
#: ``after``), with the status the tree must end with.
AFTER_TERMINATE = {
    'sequence': ("""
        Main:
          Sequence root:
            - SetBlackboard before: {key: before, value: 1}
            - Terminate stop: {status: failure, reason: enough}
            - SetBlackboard after: {key: after, value: 1}
        """, F),
    'selector goes on after a failure': ("""
        Main:
          Selector root:
            - Terminate stop: {status: failure, reason: enough}
            - SetBlackboard after: {key: after, value: 1}
        """, F),
    'parallel sibling': ("""
        Main:
          Parallel root:
            - Terminate stop: {status: success}
            - SetBlackboard after: {key: after, value: 1}
        """, S),
    'inverted: the tree takes the leaf status': ("""
        Main:
          Sequence root:
            - Inverter:
                Terminate stop: {status: failure, reason: enough}
            - SetBlackboard after: {key: after, value: 1}
        """, F),
    'forced failure above a success': ("""
        Main:
          Selector root:
            - ForceFailure:
                Terminate stop: {status: success, reason: done}
            - SetBlackboard after: {key: after, value: 1}
        """, S),
    'a success in a selector': ("""
        Main:
          Sequence root:
            - Selector:
                - Terminate stop: {status: success, reason: done}
            - SetBlackboard after: {key: after, value: 1}
        """, S),
    'deep in a subtree, race and marathon': ("""
        Main:
          Sequence root:
            - Race:
                - Marathon:
                    - Subtree: Stop
                    - SetBlackboard after: {key: after, value: 1}
                - SetBlackboard after2: {key: after, value: 2}
            - SetBlackboard after3: {key: after, value: 3}
        Stop:
          Sequence:
            - Terminate stop: {status: failure, reason: enough}
            - SetBlackboard after: {key: after, value: 4}
        """, F),
    'while body, condition still true': ("""
        Main:
          While root:
            - Condition: 'true'
            - Sequence:
                - Terminate stop: {status: failure}
                - SetBlackboard after: {key: after, value: 1}
        """, F),
}


@pytest.mark.parametrize('name', sorted(AFTER_TERMINATE))
def test_nothing_after_terminate_runs_and_the_tree_takes_its_status(name: str) -> None:
    body, status = AFTER_TERMINATE[name]
    indented = textwrap.indent(textwrap.dedent(body), '  ')
    runner = runner_for('main: Main\ntrees:\n' + indented)
    record = runner.tick_once()
    assert not written('after'), 'a node after Terminate ran in the same tick'
    assert record.terminated is not None and record.terminated.status is status
    assert record.root_status is status and runner.root.status is status
    leaf = record.terminated.node
    assert leaf is not None and leaf.status is status
    assert termination_requested(runner.root) is None  # the runner cleared it
    # the leaf and each of its ancestors has the leaf's status; nothing else is left set
    path = []
    node: Any = leaf
    while node is not None:
        path.append(node)
        node = node.parent
    # they ran in this tick (their tick ended with the leaf's request, unyielded)
    assert list(record.ticked[-len(path):]) == path
    assert all(node.status is status for node in path)
    assert all(node.status is I for node in runner.root.iterate() if node not in path)
    assert runner.root.feedback_message.startswith(
        f"terminated by '{runner.tree.nodes.path(leaf)}'")


def test_the_record_reports_the_root_change_and_the_halt():
    runner = runner_for("""
        trees:
          Main:
            Sequence root:
              - Success a
              - Terminate stop: {status: failure, reason: low battery}
        """)
    record = runner.tick_once()
    moves = {change.id: (change.old, change.new, change.reason)
             for change in record.transitions}
    assert moves['Main/root'] == (I, F, "terminated by 'Main/root/stop': low battery")
    assert moves['Main/root/stop'] == (I, F, 'terminating tree: low battery')
    assert 'Main/root/a' not in moves  # SUCCESS, then halted: it ends where it started
    assert record.terminated.reason == 'low battery'
    assert record.terminated.node_name == 'stop'


def test_a_running_leaf_before_terminate_is_halted_in_the_first_tick():
    # in the first tick the parallel has no status yet when Terminate runs: the halt
    # must still reach the running probe (a goal would be cancelled)
    busy, after = Probe('busy'), Probe('after', S)
    parallel = py_trees.composites.Parallel(
        'both', policy=py_trees.common.ParallelPolicy.SuccessOnAll(),
        children=[busy, Terminate('stop', reason='enough'), after])
    root = py_trees.composites.Sequence('root', memory=True, children=[parallel])
    runner = bare_runner(root)
    record = runner.tick_once()
    assert busy.updates == 1 and busy.terminated == [I] and busy.status is I
    assert after.updates == 0
    assert record.root_status is F and parallel.status is F


def test_terminate_success_in_a_later_tick_halts_what_runs():
    busy = Probe('busy')
    gate = Probe('gate', R)
    stop = Terminate('stop', status='success', reason='done')
    then = py_trees.composites.Sequence('then', memory=True, children=[gate, stop])
    root = py_trees.composites.Parallel(
        'root', policy=py_trees.common.ParallelPolicy.SuccessOnAll(), children=[busy, then])
    runner = bare_runner(root)
    assert runner.tick_once().terminated is None
    gate.result = S
    record = runner.tick_once()
    assert record.terminated is not None and record.root_status is S
    assert busy.terminated == [I] and busy.status is I


def test_the_tree_starts_afresh_on_the_next_tick():
    first, later = Probe('first', S), Probe('later', S)
    stop = Terminate('stop')
    root = py_trees.composites.Sequence('root', memory=True, children=[first, stop, later])
    runner = bare_runner(root)
    assert runner.tick_once().root_status is F
    record = runner.tick_once()  # a caller that ticks on starts the tree again
    assert record.terminated is not None and first.updates == 2 and later.updates == 0


def test_a_plain_py_trees_tick_records_the_request_and_runs_on():
    """Only a runner stops the tick; plain py_trees code ticks on, as before."""
    later = Probe('later', S)
    selector = py_trees.composites.Selector('sel', memory=False,
                                            children=[Terminate('stop'), later])
    selector.tick_once()
    assert selector.status is S and later.updates == 1
    assert termination_requested(selector) is not None
    assert STOP_AT_TERMINATE.get() is False


def test_under_a_runner_flag_terminate_raises_through_every_parent():
    later = Probe('later', S)
    stop = Terminate('stop', status='success')
    root = py_trees.composites.Sequence('root', memory=True, children=[
        py_trees.decorators.Inverter('not', stop), later])
    token = STOP_AT_TERMINATE.set(True)
    try:
        with pytest.raises(TreeTerminated):
            list(root.tick())
    finally:
        STOP_AT_TERMINATE.reset(token)
    assert stop.status is S and later.updates == 0
    assert issubclass(TreeTerminated, BaseException)
    assert not issubclass(TreeTerminated, Exception)  # no `except Exception` takes it


def test_a_guarded_plugin_composite_does_not_swallow_the_termination():
    from bt_executive.core.faults import FaultGuard

    later = Probe('later', S)
    inner = py_trees.composites.Selector('inner', memory=False,
                                         children=[Terminate('stop'), Probe('x', S)])
    FaultGuard(inner, 'Main/root/inner', lambda text: None)
    root = py_trees.composites.Sequence('root', memory=True, children=[inner, later])
    runner = bare_runner(root)
    record = runner.tick_once()
    assert record.terminated is not None and record.root_status is F
    assert later.updates == 0 and inner.status is F


def test_the_snapshot_shows_the_terminate_status_and_why():
    runner = runner_for("""
        trees:
          Main:
            Sequence root:
              - Inverter:
                  Terminate stop: {status: failure, reason: estop held}
              - Success after
        """)
    snapshots = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                                revision=1)
    runner.add_observer(snapshots)
    runner.tick_once()
    snapshot = snapshots.full()
    assert snapshot['root_status'] == 'FAILURE'
    assert [step['id'] for step in snapshot['why']] == [
        'Main/root', 'Main/root/Inverter', 'Main/root/Inverter/stop']
    assert snapshot['why'][-1]['reason'] == 'terminating tree: estop held'
    assert snapshot['last_failure']['reason'] == \
        'Main/root/Inverter/stop: terminating tree: estop held'
    assert snapshot['state']['Main/root/after']['status'] == 'INVALID'


def test_cli_tick_prints_the_terminate_status_and_stops(tmp_path):
    tree = tmp_path / 't.yaml'
    tree.write_text(textwrap.dedent("""\
        trees:
          Main:
            Sequence root:
              - Inverter:
                  Terminate stop: {status: failure, reason: estop held}
              - Publish after: {topic: cmd_vel, type: geometry_msgs/msg/Twist}
        """))
    result = run_cli('tick', str(tree), '--ticks', '5', timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count('--- tick') == 1
    assert '--- tick 1  t=0.00s  root: FAILURE' in out
    assert "\u2718 Sequence \"root\" \u2014 terminated by 'Main/root/Inverter/stop': " \
        'estop held' in out
    assert '\u00b7 Publish "after" (stub)' in out
    assert out.rstrip().endswith(
        'terminated by Main/root/Inverter/stop: failure estop held')


@pytest.mark.parametrize('executive, shown', [
    ({'running': True, 'paused': False, 'terminated': None}, None),
    ({'running': False, 'paused': True, 'terminated': None}, '[paused]'),
    ({'running': False, 'paused': False, 'terminated': 'Main/root/stop: failure enough'},
     '[terminated: Main/root/stop: failure enough]'),
    ({'running': False, 'paused': False, 'terminated': None}, '[stopped]'),
    ({'running': False, 'terminated': None}, '[paused]'),  # an executive without `paused`
])
def test_watch_says_paused_terminated_or_stopped(executive, shown):
    from bt_executive.viewers.watch import render_frame

    runner = runner_for('trees:\n  Main:\n    Running hold\n')
    snapshots = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                                revision=1)
    runner.add_observer(snapshots)
    runner.tick_once()
    snapshots.set_executive({'node': '/bt_executive', 'last_failure': '', 'heartbeat': 1.0,
                             **executive})
    top = render_frame(snapshots.full(), color=False, width=200, height=None).splitlines()[0]
    states = ('[paused]', '[stopped]', '[terminated')
    if shown is None:
        assert not any(state in top for state in states), top
    else:
        assert shown in top, top
