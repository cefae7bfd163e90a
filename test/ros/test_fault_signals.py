# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""SIGINT, SIGTERM and SIGHUP at the worst moments: mid-navigation, right after a swap, in setup.

The executive runs as a real process (``bt_executive/ros/executive.py``, or
``peers/fault_executive.py`` when the tree needs a test node type); servers are real
peers. After every signal: the exit status is 0 (a clean stop), every goal the server
accepted has ended, and the simulated robot (where there is one) stands still with no
navigation goal. (SIGTERM mid-navigation on the patrol and SIGTERM with an active action
goal are in test_patrol.py and test_executive.py.)
"""

from collections.abc import Callable
import json
import pathlib
import signal
import time
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import PeerEvents, set_tree_file, SpawnedProcess, wait_for
import pytest
from test_patrol import CONFIG, PatrolRun, TIMEOUT as PATROL_TIMEOUT

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
FAULT_EXECUTIVE = PEERS / 'fault_executive.py'
TIMEOUT = 20.0
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def fibonacci(spawn: Callable[..., SpawnedProcess], node: Any,
              *options: str) -> tuple[str, PeerEvents]:
    name = unique('fib')
    spawn(PEERS / 'fibonacci_server.py', name, 'slow', *options).wait_for_line(
        'READY', timeout=TIMEOUT)
    events = PeerEvents(node, f'/{name}/events')
    events.wait_for_name('ready', timeout=TIMEOUT)
    return '/' + name, events


def action_tree(server: str, order: int) -> str:
    return f"""
        trees:
          Main:
            Action move: {{type: test_msgs/action/Fibonacci, server: {server},
                          goal: {{order: {order}}}, server_timeout: 10.0}}
        """


def assert_every_goal_ended(events: PeerEvents) -> None:
    """Wait until each goal the server accepted has finished; none may stay active."""
    for accepted in events.all('goal_accepted'):
        finished = events.wait_for_name('finished', goal_id=accepted['goal_id'],
                                        timeout=TIMEOUT)
        assert finished['status'] == 'canceled', finished


@pytest.mark.parametrize('signum', SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_during_setup_ends_the_start_at_once_without_a_goal(
        signum, spawn, tmp_path, ros_node):
    server, events = fibonacci(spawn, ros_node)
    tree = write_tree(tmp_path, 'slow.yaml', f"""
        trees:
          Main:
            Sequence:
              - SlowSetup waits for its server: 60.0
              - Action move: {{type: test_msgs/action/Fibonacci, server: {server},
                              goal: {{order: 5}}}}
        """)
    executive = spawn(FAULT_EXECUTIVE, '--ros-args', '-p', f'tree_file:={tree}',
                      '-p', 'setup_timeout:=120.0', '-r', f'__ns:=/{unique("ex")}')
    executive.wait_for_line('SETUP_STARTED', timeout=TIMEOUT)
    executive.popen.send_signal(signum)
    # well before the 60 s setup would have ended
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    assert 'running tree' not in executive.stderr_text()  # it never ticked
    assert events.all('goal_received') == []


@pytest.mark.parametrize('signum', SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_right_after_a_swap_leaves_no_goal_active(signum, spawn, tmp_path, ros_node):
    # the old goal's cancel stays unacknowledged for 1 s: the signal comes before it
    server, events = fibonacci(spawn, ros_node, '--period', '0.2', '--cancel-delay', '1.0')
    first = write_tree(tmp_path, 'a.yaml', action_tree(server, 5))
    second = write_tree(tmp_path, 'b.yaml', action_tree(server, 7))
    namespace = f'/{unique("ex")}'
    executive = spawn(EXECUTIVE, '--ros-args', '-p', f'tree_file:={first}',
                      '-r', f'__ns:={namespace}')
    accepted = events.wait_for_name('goal_accepted', order=5, timeout=TIMEOUT)
    result = set_tree_file(ros_node, namespace, second,
                           lambda done, message: wait_for(done, TIMEOUT, message))
    executive.popen.send_signal(signum)
    assert result.successful
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    exited_at = time.time()
    cancelled = events.wait_for_name('cancel_accepted', goal_id=accepted['goal_id'],
                                     timeout=TIMEOUT)
    assert cancelled['time'] <= exited_at, 'the executive exited before the cancel was done'
    assert_every_goal_ended(events)
    assert 'not acknowledged' not in executive.stderr_text()


@pytest.fixture
def patrol(spawn: Callable[..., SpawnedProcess], ros_node: Any) -> Callable[..., PatrolRun]:
    def start(**kwargs: Any) -> PatrolRun:
        return PatrolRun(spawn, ros_node, **kwargs)
    return start


def stationary(run: PatrolRun) -> None:
    """Wait until the sim reports zero speed and no navigation goal."""
    run.wait(lambda: run.state.get('speed') == 0.0
             and (run.state.get('nav') or {}).get('target') is None,
             'the robot to stop with no goal left', timeout=TIMEOUT)


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGHUP],
                         ids=lambda s: signal.Signals(s).name)
def test_a_signal_mid_navigation_leaves_the_robot_stationary(signum, patrol):
    run = patrol()
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'the robot to drive')
    run.executive.popen.send_signal(signum)
    assert run.executive.popen.wait(PATROL_TIMEOUT) == 0
    stationary(run)
    assert any(status == 5 for _, status in run.goals), 'the goal was cancelled'


def test_sigterm_right_after_a_patrol_swap_leaves_the_robot_stationary(patrol):
    run = patrol()
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'a navigation')
    result = run.set_tree_file(CONFIG / 'patrol_reverse.yaml')
    run.executive.popen.send_signal(signal.SIGTERM)
    assert result.successful
    assert run.executive.popen.wait(PATROL_TIMEOUT) == 0
    stationary(run)
    statuses = [json.dumps(status) for status in run.statuses[-1:]]
    assert run.goals and run.goals[-1][1] in (4, 5, 6), statuses  # the last goal ended
