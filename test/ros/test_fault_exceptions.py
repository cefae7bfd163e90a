# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A node that raises fails alone: the tree and the executive keep going, the log says why once.

The guard (``bt_executive.core.builder.FaultGuard``) is core code, tested first without ROS;
then in an in-process executive (status, snapshot) and in the real executive process,
whose stderr is read to count the log lines.
"""

from collections.abc import Callable
import pathlib
import signal
from typing import Any
import uuid

from bt_executive.core.builder import BuildContext, Builder
from bt_executive.core.faults import MAX_LOGGED_FAULTS
from bt_executive.core.loader import Loader
from bt_executive.observe.snapshot import failure_reason
from executive_host import write_tree
from fault_nodes import core_registry, fault_registry
from helpers import collect_json, SpawnedProcess, wait_for
import py_trees
from py_trees.common import Status
import pytest

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
FAULT_EXECUTIVE = PEERS / 'fault_executive.py'
TIMEOUT = 20.0


def build(text: str) -> tuple[py_trees.behaviour.Behaviour, list[str]]:
    """Build a tree with the fault types; return its root and the list the log goes to."""
    py_trees.blackboard.Blackboard.clear()
    registry = core_registry()
    document = Loader(registry).load_text(text, name='t.yaml')
    logged: list[str] = []
    context = BuildContext(registry=registry, document=document, log_error=logged.append)
    built = Builder(context).build()
    _BUILT[built.root.id] = built
    return built.root, logged


#: root id -> the BuiltTree (node table) of the trees built by build()
_BUILT: dict = {}


def node(root: py_trees.behaviour.Behaviour, path: str) -> py_trees.behaviour.Behaviour:
    return _BUILT[root.id].by_path(path)


def guard_of(root: py_trees.behaviour.Behaviour, path: str):
    """Return the fault guard the node table holds for the node at ``path``."""
    return _BUILT[root.id].nodes.guard(node(root, path))


# ---- the guard, without ROS ---------------------------------------------------------------


def test_an_update_that_raises_fails_that_node_only_and_is_logged_once():
    root, logged = build("""
trees:
  Main:
    Selector root:
      - Raise boom: {message: division went wrong}
      - Running fallback
""")
    for _ in range(10):
        root.tick_once()
        assert root.status is Status.RUNNING  # the selector went on to its fallback
    boom = node(root, 'Main/root/boom')
    assert boom.status is Status.FAILURE
    assert boom.feedback_message == 'update() raised RuntimeError: division went wrong'
    assert guard_of(root, 'Main/root/boom').faults == 10
    assert len(logged) == 1, logged
    first_line, traceback = logged[0].split('\n', 1)
    assert first_line == ('Main/root/boom: update() raised RuntimeError: division went wrong'
                          ' (the node fails; logged once)')
    assert traceback.startswith('Traceback (most recent call last):')
    assert 'raise RuntimeError(self.message.format(n=self.calls))' in traceback
    assert node(root, 'Main/root/fallback').status is Status.RUNNING


def test_the_failure_reason_names_the_node_and_the_exception():
    root, logged = build("""
trees:
  Main:
    Sequence checks:
      - Success first
      - Raise broken: {message: 'no such key: x', where: initialise}
""")
    root.tick_once()
    assert root.status is Status.FAILURE
    assert failure_reason(root, ident=_BUILT[root.id].nodes.path) == \
        'Main/checks/broken: initialise() raised RuntimeError: no such key: x'
    assert node(root, 'Main/checks/broken').terminated == [Status.FAILURE]
    assert len(logged) == 1


def test_each_distinct_error_is_logged_once_up_to_a_limit():
    root, logged = build("""
trees:
  Main:
    Selector:
      - Raise counting: 'call {n}'
      - Running
""")
    for _ in range(3 * MAX_LOGGED_FAULTS):
        root.tick_once()
    assert len(logged) == MAX_LOGGED_FAULTS
    assert [line.split('\n')[0].split(': ', 1)[1].split(' (')[0] for line in logged] == \
        [f'update() raised RuntimeError: call {n}' for n in range(1, MAX_LOGGED_FAULTS + 1)]
    assert 'further distinct errors of this node are not logged' in logged[-1]
    assert guard_of(root, 'Main/Selector/counting').faults == 3 * MAX_LOGGED_FAULTS


def test_a_terminate_that_raises_still_stops_the_node():
    root, logged = build("""
blackboard: {go: false}
trees:
  Main:
    Selector:
      - Condition stop: go
      - Raise stubborn: {where: terminate}
""")
    root.tick_once()
    stubborn = node(root, 'Main/Selector/stubborn')
    assert stubborn.status is Status.RUNNING
    py_trees.blackboard.Blackboard.set('/go', True)  # the higher priority preempts it
    root.tick_once()
    assert root.status is Status.SUCCESS
    assert stubborn.status is Status.INVALID
    assert stubborn.terminated == [Status.INVALID]
    assert stubborn.feedback_message == 'terminate() raised RuntimeError: boom'
    assert len(logged) == 1 and 'Main/Selector/stubborn: terminate() raised' in logged[0]


def test_a_composite_that_raises_fails_and_halts_its_running_children():
    root, logged = build("""
trees:
  Main:
    Selector:
      - RaisingSequence broken:
          after: 2
          children: [Success, Raise still running: {where: terminate, message: halted}]
      - Running fallback
""")
    root.tick_once()
    broken = node(root, 'Main/Selector/broken')
    running = node(root, 'Main/Selector/broken/still running')
    assert broken.status is Status.RUNNING and running.status is Status.RUNNING
    root.tick_once()
    assert broken.status is Status.FAILURE
    assert broken.feedback_message == 'tick() raised RuntimeError: composite broke'
    assert running.status is Status.INVALID  # halted: a goal it ran would be cancelled
    assert running.terminated == [Status.INVALID]
    assert root.status is Status.RUNNING
    assert [line.split(':')[0] for line in logged] == [
        'Main/Selector/broken', 'Main/Selector/broken/still running']


def test_the_default_log_goes_to_the_bt_executive_logger(caplog):
    registry = core_registry()
    document = Loader(registry).load_text('trees:\n  Main:\n    Raise: quiet\n', name='t.yaml')
    root = Builder(BuildContext(registry=registry, document=document)).build().root
    with caplog.at_level('ERROR', logger='bt_executive'):
        root.tick_once()
        root.tick_once()
    assert root.status is Status.FAILURE
    assert [record.name for record in caplog.records] == ['bt_executive']
    assert 'Main/Raise: update() raised RuntimeError: quiet' in caplog.records[0].message


# ---- in the executive ---------------------------------------------------------------------


@pytest.mark.ros
def test_the_executive_keeps_ticking_and_reports_the_exception(host, tmp_path):
    tree = write_tree(tmp_path, 't.yaml', """
        trees:
          Main:
            Sequence mission:
              - Success ready
              - Raise broken: {message: 'bad value {n}'}
        """)
    ex = host(tree, tick_rate=100.0, registry=fault_registry())
    ex.spin_until(lambda: ex.executive.tick_count >= 20, '20 ticks')
    assert ex.executive.last_status is Status.FAILURE
    assert ex.executive.last_failure == \
        'Main/mission/broken: update() raised RuntimeError: bad value 1'
    snapshot = ex.executive.snapshots.full()
    assert snapshot['why'][-1] == {
        'id': 'Main/mission/broken',
        'reason': f'update() raised RuntimeError: bad value {ex.executive.tick_count}'}
    assert snapshot['state']['Main/mission/broken']['status'] == 'FAILURE'


@pytest.mark.ros
@pytest.mark.slow
def test_the_executive_process_logs_the_traceback_once_and_keeps_running(
        spawn: Callable[..., SpawnedProcess], tmp_path, ros_node: Any):
    tree = write_tree(tmp_path, 't.yaml', """
        trees:
          Main:
            Selector root:
              - Raise broken: {message: 'sensor driver crashed'}
              - Sequence fallback:
                  - Raise also broken: {where: initialise, message: 'second fault'}
              - Running keep going
        """)
    namespace = f'/fault_{uuid.uuid4().hex[:8]}'
    statuses = collect_json(ros_node, f'{namespace}/bt_executive/status')
    executive = spawn(FAULT_EXECUTIVE, '--ros-args', '-r', f'__ns:={namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'tick_rate:=50.0',
                      '-p', 'status_period:=0.1')
    wait_for(lambda: statuses and statuses[-1]['tick_count'] >= 100, TIMEOUT,
             '100 ticks of the executive')
    assert statuses[-1]['root_status'] == 'RUNNING'
    assert statuses[-1]['active'] == ['Main/root', 'Main/root/keep going']
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 0
    stderr = executive.stderr_text()
    assert stderr.count('Traceback (most recent call last)') == 2, stderr
    assert stderr.count('Main/root/broken: update() raised RuntimeError: '
                        'sensor driver crashed (the node fails; logged once)') == 1, stderr
    assert stderr.count('Main/root/fallback/also broken: initialise() raised RuntimeError: '
                        'second fault (the node fails; logged once)') == 1, stderr
    assert stderr.count('[ERROR]') == 2, stderr
