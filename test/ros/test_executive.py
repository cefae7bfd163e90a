# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive node: ticking, status, runtime control, tree swaps and safe stop.

The executive runs in-process on its own context and executor, spun from the test
thread exactly as ``main()`` spins it; peers (Fibonacci action server) are real
subprocesses; the SIGTERM test runs the executive itself as a subprocess.
"""

from collections.abc import Callable
import pathlib
import signal
import time
from typing import Any
import uuid

from executive_host import Host, write_tree
from helpers import collect_json, PeerEvents, SpawnedProcess
import pytest

pytestmark = pytest.mark.ros

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
FIBONACCI_SERVER = PEERS / 'fibonacci_server.py'
TIMEOUT = 15.0


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


@pytest.fixture
def slow_fibonacci(spawn: Callable[..., SpawnedProcess],
                   ros_node: Any) -> tuple[str, PeerEvents, SpawnedProcess]:
    name = unique('fib')
    process = spawn(FIBONACCI_SERVER, name, 'slow')
    process.wait_for_line('READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{name}/events')
    events.wait_for_name('ready', timeout=TIMEOUT)
    return '/' + name, events, process


ACTION_TREE = """
    trees:
      Main:
        Action move:
          type: test_msgs/action/Fibonacci
          server: {server}
          goal: {{order: 5}}
          server_timeout: 10.0
    """


def test_ticks_and_publishes_latched_status(host, tmp_path, ros_node):
    tree = write_tree(tmp_path, 't.yaml', """
        blackboard: {done: false}
        trees:
          Main:
            Sequence:
              - TickCounter: 3
              - SetBlackboard: {key: done, value: true}
        """)
    ex = host(tree, tick_rate=100.0)
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'the tree to succeed')
    assert ex.executive.tick_count >= 4
    # a late subscriber still gets the current status at once (latched QoS)
    received = collect_json(ros_node, f'{ex.namespace}/bt_executive/status', depth=1)
    ex.spin_until(lambda: received, 'a latched status message')
    assert received[-1]['tree'] == 'Main'
    assert received[-1]['file'] == tree
    assert received[-1]['root_status'] in ('SUCCESS', 'RUNNING')


def test_status_reports_the_last_failure(host, tmp_path):
    tree = write_tree(tmp_path, 't.yaml', """
        blackboard: {x: 0}
        trees:
          Main:
            Sequence checks:
              - Condition too small: x > 1
        """)
    ex = host(tree, tick_rate=100.0)
    ex.spin_until(lambda: ex.executive.last_failure, 'a failure reason')
    assert ex.executive.last_failure == 'Main/checks/too small: x > 1 is false'


def test_invalid_swap_is_rejected_and_old_tree_keeps_ticking(host, tmp_path):
    good = write_tree(tmp_path, 'good.yaml', 'trees:\n  Good:\n    Running:\n')
    bad = write_tree(tmp_path, 'bad.yaml', 'trees:\n  Bad:\n    Sequense: [Success]\n')
    ex = host(good, tick_rate=100.0)
    ex.spin_until(lambda: ex.executive.tick_count > 2, 'the first ticks')
    result = ex.set_tree(tree_file=bad)
    assert not result.successful
    assert "bad.yaml:3:5: Bad/Sequense: unknown node type 'Sequense'" in result.reason
    assert ex.executive.get_parameter('tree_file').value == good
    ticks = ex.executive.tick_count
    ex.spin_until(lambda: ex.executive.tick_count > ticks + 3, 'the old tree to keep ticking')
    assert ex.executive.tree.name == 'Good'


@pytest.mark.parametrize('mode', ['periodic', 'event'])
def test_setting_the_tick_rate_in_use_restarts_the_timing_and_keeps_the_ticker(
        host, tmp_path, mode):
    ex = host(write_tree(tmp_path, 't.yaml', 'trees:\n  Main:\n    Running:\n'),
              tick_mode=mode, tick_rate=100.0, max_tick_rate=100.0, heartbeat_period=0.01)
    executive = ex.executive
    ex.spin_until(lambda: executive.timing.summary()['window'] >= 5, 'five timed ticks')
    ticker = executive.ticker
    ticks = executive.tick_count
    assert ex.set_tree(tick_rate=100.0, tick_mode=mode).successful
    # the statistics start afresh (this mode's period kept); the ticker and timer stay
    assert executive.ticker is ticker
    assert executive.timing.summary()['window'] == 0
    assert executive.timing.period == (0.01 if mode == 'periodic' else None)
    ex.spin_until(lambda: executive.timing.summary()['window'] >= 3,
                  'timed ticks after the restart')
    assert executive.tick_count > ticks
    # a value that changes does make a new ticker
    assert ex.set_tree(tick_rate=50.0, max_tick_rate=50.0).successful
    assert executive.ticker is not ticker
    assert executive.timing.summary()['window'] == 0
    assert executive.tick_interval() == pytest.approx(0.02)


def test_valid_swap_cancels_the_old_goal_and_starts_the_new_tree(host, tmp_path,
                                                                 slow_fibonacci):
    server, events, _ = slow_fibonacci
    first = write_tree(tmp_path, 'a.yaml', ACTION_TREE.format(server=server))
    second = write_tree(tmp_path, 'b.yaml', """
        trees:
          Second:
            Running still:
        """)
    ex = host(first, tick_rate=50.0)
    accepted = ex.spin_until(lambda: events.find('goal_accepted'), 'the goal to be accepted')
    result = ex.set_tree(tree_file=second)
    assert result.successful, result.reason
    assert ex.executive.tree.name == 'Second'
    ex.spin_until(lambda: events.find('cancel_requested', goal_id=accepted['goal_id']),
                  'the old goal to be cancelled at the server')
    ex.spin_until(lambda: not ex.executive.retiring, 'the old tree to be released')
    ex.spin_until(lambda: ex.executive.last_status.name == 'RUNNING', 'the new tree to run')


def test_pause_cancels_the_goal_and_resume_sends_a_new_one(host, tmp_path, slow_fibonacci,
                                                           ros_node):
    from std_srvs.srv import Trigger

    server, events, _ = slow_fibonacci
    ex = host(write_tree(tmp_path, 'a.yaml', ACTION_TREE.format(server=server)),
              tick_rate=50.0)
    first = ex.spin_until(lambda: events.find('goal_accepted'), 'the first goal')
    pause = ros_node.create_client(Trigger, f'{ex.namespace}/bt_executive/pause')
    resume = ros_node.create_client(Trigger, f'{ex.namespace}/bt_executive/resume')
    ex.spin_until(lambda: pause.service_is_ready() and resume.service_is_ready(),
                  'the control services')
    assert ex.executive.status()['state'] == 'running'
    future = pause.call_async(Trigger.Request())
    ex.spin_until(future.done, 'the pause response')
    assert future.result().success
    ex.spin_until(lambda: events.find('cancel_requested', goal_id=first['goal_id']),
                  'the cancel at the server')
    # the root's status of the last tick stays; the state says what the operator sees
    status = ex.executive.status()
    assert (status['state'], status['paused'], status['root_status']) == \
        ('paused', True, 'RUNNING')
    ticks = ex.executive.tick_count
    future = resume.call_async(Trigger.Request())
    ex.spin_until(future.done, 'the resume response')
    second = ex.spin_until(
        lambda: [e for e in events.all('goal_accepted') if e['goal_id'] != first['goal_id']],
        'a new goal after resume')
    assert second and ex.executive.tick_count > ticks
    assert ex.executive.status()['state'] == 'running'


def test_subscription_feed_and_stale_data(host, tmp_path, ros_node):
    from sensor_msgs.msg import BatteryState

    topic = '/' + unique('battery')
    tree = write_tree(tmp_path, 't.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: sensor_msgs/msg/BatteryState, key: battery,
             max_age: 0.5}}
          - {{topic: {topic}, type: sensor_msgs/msg/BatteryState, field: percentage,
             key: level}}
        trees:
          Main:
            Sequence:
              - Condition charged: battery.percentage > 0.5
              - Condition level: level > 0.5
        """)
    ex = host(tree, tick_rate=100.0)
    publisher = ex.publisher(ros_node, BatteryState, topic)
    publisher.publish(BatteryState(percentage=0.8))
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'fresh data to pass')
    ex.spin_until(lambda: 'stale' in ex.executive.last_failure, 'the data to go stale',
                  timeout=5.0)
    assert "blackboard key 'battery' is stale" in ex.executive.last_failure
    publisher.publish(BatteryState(percentage=0.9))
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'fresh data again')


def test_bad_subscription_is_a_load_error(host, tmp_path):
    from bt_executive.core.errors import TreeError

    tree = write_tree(tmp_path, 't.yaml', """
        subscriptions:
          - {topic: b, type: sensor_msgs/msg/BatteryState, field: percentag, key: level}
        trees:
          Main: {Success: }
        """)
    with pytest.raises(TreeError, match="no field 'percentag' .did you mean 'percentage'"):
        host(tree)


def test_sigterm_with_an_active_goal_cancels_it_before_exit(spawn, tmp_path, slow_fibonacci):
    server, events, _ = slow_fibonacci
    tree = write_tree(tmp_path, 'a.yaml', ACTION_TREE.format(server=server))
    executive = spawn(_executive_script(), '--ros-args', '-p', f'tree_file:={tree}',
                      '-r', f'__ns:=/{unique("ex")}')
    accepted = events.wait_for(lambda e: e['event'] == 'goal_accepted', timeout=TIMEOUT)
    executive.popen.send_signal(signal.SIGTERM)
    returncode = executive.popen.wait(TIMEOUT)
    exited_at = time.time()
    assert returncode == 0, executive.stderr_text()  # a clean stop, as ROS nodes do
    cancel = events.wait_for(lambda e: e['event'] == 'cancel_accepted'
                             and e['goal_id'] == accepted['goal_id'], timeout=TIMEOUT)
    assert cancel['time'] <= exited_at


def _executive_script() -> pathlib.Path:
    import bt_executive.ros.executive as module
    return pathlib.Path(module.__file__)


def test_reset_restores_the_initial_blackboard_and_reload_rejects_a_broken_file(host, tmp_path):
    import py_trees

    tree = write_tree(tmp_path, 't.yaml', """
        blackboard: {count: 0}
        trees:
          Main:
            Sequence:
              - SetBlackboard: {key: count, value: '${count + 1}'}
              - Running
        """)
    ex = host(tree, tick_rate=100.0)
    ex.spin_until(lambda: ex.executive.tick_count > 3, 'some ticks')
    py_trees.blackboard.Blackboard.set('/count', 41)
    assert ex.executive.reset() == 'reset'
    assert py_trees.blackboard.Blackboard.get('/count') == 0
    ex.spin_until(lambda: py_trees.blackboard.Blackboard.get('/count') == 1,
                  'the tree to run again from the initial blackboard')
    pathlib.Path(tree).write_text('trees:\n  Main:\n    Sequense: [Success]\n')
    from bt_executive.core.errors import TreeError
    with pytest.raises(TreeError, match="unknown node type 'Sequense'"):
        ex.executive.reload()
    ticks = ex.executive.tick_count
    ex.spin_until(lambda: ex.executive.tick_count > ticks + 2, 'the old tree to keep ticking')
    pathlib.Path(tree).write_text('trees:\n  Other:\n    Running:\n')
    assert ex.executive.reload().startswith('reloaded')
    assert ex.executive.tree.name == 'Other'


def test_destroying_the_node_cancels_the_active_goal(tmp_path, slow_fibonacci):
    server, events, _ = slow_fibonacci
    ex = Host(write_tree(tmp_path, 'a.yaml', ACTION_TREE.format(server=server)),
              tick_rate=50.0)
    try:
        accepted = ex.spin_until(lambda: events.find('goal_accepted'), 'the goal')
        ex.executive.destroy_node()
        events.wait_for(lambda e: e['event'] == 'cancel_requested'
                        and e['goal_id'] == accepted['goal_id'], timeout=TIMEOUT)
    finally:
        ex.executor.shutdown()
        ex.context.try_shutdown()
