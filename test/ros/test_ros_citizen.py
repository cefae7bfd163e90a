# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive and the sim behave like ROS 2 nodes: exit statuses, logging, sim time.

Every test runs real processes (the executive, the sim robot, peers) and reads what a
user sees: exit statuses, the console output (stderr), /rosout.

* A signal (SIGINT, SIGTERM, SIGHUP) is a clean stop: exit status 0, so ``ros2 launch``
  does not report ``process has died``. Real failures keep status 1: a first tree that
  does not load, goal cancels not acknowledged within ``shutdown_timeout``.
* ``Log`` nodes write through the node's ROS logger: the console and /rosout.
* ``use_sim_time`` without a /clock publisher is warned about once, naming the fix.
* ``--log-level <ns>.bt_executive:=debug`` shows what the executive decides (why each
  tick, goals sent and cancels), rate-limited.
"""

from collections.abc import Callable
import json
import pathlib
import re
import signal
import time
from typing import Any
import uuid

from bt_executive.ros.debuglog import BURST, RATE
from bt_executive.ros.simclock import CLOCK_WAIT, NodeSeconds, SimClockCheck
from conftest import PEERS
from executive_host import write_tree
from helpers import PeerEvents, SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
SIM_ROBOT = ROOT / 'bt_executive' / 'sim' / 'robot.py'
TIMEOUT = 30.0
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]

IDLE_TREE = """
    trees:
      Main:
        Sequence:
          - Log: skipping unreachable waypoint 1
          - Log: {message: '${"battery at " + str(level)}', level: warning}
          - Running: {}
    blackboard: {level: 0.2}
    """


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def collect_json(node: Any, topic: str) -> list[dict[str, Any]]:
    """Collect the JSON messages of a latched std_msgs/String topic."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    items: list[dict[str, Any]] = []
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(String, topic, lambda msg: items.append(json.loads(msg.data)),
                             qos)
    return items


def start_executive(spawn: Callable[..., SpawnedProcess], tree: pathlib.Path,
                    namespace: str, *arguments: str) -> SpawnedProcess:
    return spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:={namespace}',
                 '-p', f'tree_file:={tree}', *arguments)


def wait_for_stderr(process: SpawnedProcess, text: str, what: str,
                    timeout: float = TIMEOUT) -> str:
    """Wait until ``text`` is in the process's stderr (the console); return the stderr."""
    def found() -> str:
        output = process.stderr_text()
        if text in output:
            return output
        assert process.returncode is None, \
            f'{process.name} exited ({process.returncode}) before {what}:\n{output}'
        return ''
    return wait_for(found, timeout, what)


# ---- exit statuses -------------------------------------------------------------------

@pytest.mark.parametrize('signum', SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_stops_the_executive_and_the_sim_with_status_0(signum, spawn, tmp_path):
    namespace = f'/{unique("ex")}'
    tree = write_tree(tmp_path, 'idle.yaml', IDLE_TREE)
    executive = start_executive(spawn, tree, namespace)
    robot = spawn(SIM_ROBOT, '--ros-args', '-r', f'__ns:={namespace}')
    wait_for_stderr(executive, 'skipping unreachable waypoint 1', 'the first tick')
    wait_for_stderr(robot, 'sim_robot ready', 'the sim to start')
    for process in (executive, robot):
        process.popen.send_signal(signum)
    for process in (executive, robot):
        assert process.popen.wait(TIMEOUT) == 0, process.stderr_text()
        assert 'Traceback' not in process.stderr_text()


def test_a_tree_that_does_not_load_at_start_exits_with_status_1(spawn, tmp_path):
    tree = write_tree(tmp_path, 'bad.yaml', """
        trees:
          Main:
            Sequense: []
        """)
    executive = start_executive(spawn, tree, f'/{unique("ex")}')
    assert executive.popen.wait(TIMEOUT) == 1
    assert "unknown node type 'Sequense'" in executive.stderr_text()


def test_goal_cancels_not_acknowledged_in_time_exit_with_status_1(spawn, tmp_path, ros_node):
    name = unique('fib')
    spawn(PEERS / 'fibonacci_server.py', name, 'slow', '--cancel-delay', '60').wait_for_line(
        'READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{name}/events')
    tree = write_tree(tmp_path, 'goal.yaml', f"""
        trees:
          Main:
            Action move: {{type: test_msgs/action/Fibonacci, server: /{name},
                          goal: {{order: 5}}, server_timeout: 10.0}}
        """)
    executive = start_executive(spawn, tree, f'/{unique("ex")}',
                                '-p', 'shutdown_timeout:=0.5')
    events.wait_for_name('goal_accepted', timeout=TIMEOUT)
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 1, executive.stderr_text()
    assert 'some goal cancels were not acknowledged within 0.5 s' in executive.stderr_text()


# ---- Log nodes -----------------------------------------------------------------------

def test_log_nodes_write_to_the_console_and_to_rosout(spawn, tmp_path, ros_node):
    from rcl_interfaces.msg import Log
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    namespace = unique('ex')
    logger = f'{namespace}.bt_executive'
    lines: list[Any] = []
    qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
    ros_node.create_subscription(Log, '/rosout', lambda msg: lines.append(msg)
                                 if msg.name == logger else None, qos)
    tree = write_tree(tmp_path, 'log.yaml', IDLE_TREE)
    executive = start_executive(spawn, tree, '/' + namespace)
    info = wait_for(lambda: [m for m in lines if m.msg == 'skipping unreachable waypoint 1'],
                    TIMEOUT, 'the Log line on /rosout')[0]
    warning = wait_for(lambda: [m for m in lines if m.msg == 'battery at 0.2'], TIMEOUT,
                       'the warning Log line on /rosout')[0]
    assert (info.level, warning.level) == (Log.INFO, Log.WARN)
    stderr = executive.stderr_text()
    assert re.search(rf'\[INFO\] \[[\d.]+\] \[{logger}\]: skipping unreachable waypoint 1\n',
                     stderr), stderr
    assert re.search(rf'\[WARN\] \[[\d.]+\] \[{logger}\]: battery at 0.2\n', stderr), stderr
    assert '[DEBUG]' not in stderr  # the default level: no debug lines


# ---- simulated time without /clock ---------------------------------------------------

def publish_clock(node: Any, topic: str) -> Any:
    """Publish rosgraph_msgs/Clock on ``topic`` at 20 Hz from the test node (from 100 s)."""
    from rosgraph_msgs.msg import Clock

    publisher = node.create_publisher(Clock, topic, 10)
    start = time.monotonic()

    def tick() -> None:
        message = Clock()
        message.clock.sec = 100 + int(time.monotonic() - start)
        publisher.publish(message)
    return node.create_timer(0.05, tick)


def test_sim_time_without_clock_is_warned_about_once_with_the_fix(spawn, tmp_path, ros_node):
    namespace = unique('ex')
    clock_topic = f'/{namespace}/clock'  # a /clock of its own: other sims cannot feed it
    tree = write_tree(tmp_path, 'wait.yaml', """
        trees:
          Main:
            Wait: 1.0
        """)
    started = time.monotonic()
    executive = start_executive(spawn, tree, '/' + namespace, '-p', 'use_sim_time:=true',
                                '-p', 'tick_mode:=event', '-r', f'/clock:={clock_topic}')
    stderr = wait_for_stderr(executive, f'no message on {clock_topic}', 'the warning',
                             timeout=TIMEOUT + CLOCK_WAIT)
    assert time.monotonic() - started >= CLOCK_WAIT
    warning = [line for line in stderr.splitlines() if f'no message on {clock_topic}' in line]
    assert len(warning) == 1 and warning[0].startswith('[WARN]'), stderr
    assert 'use_sim_time is true' in warning[0] and 'use_sim_time:=false' in warning[0]
    assert 'publish_clock:=true' in warning[0]
    # the clock starts: the executive says so on its next check (CLOCK_WAIT later), once
    publish_clock(ros_node, clock_topic)
    stderr = wait_for_stderr(executive, '/clock arrived after', 'the clock noticed',
                             timeout=TIMEOUT + CLOCK_WAIT)
    assert stderr.count(f'no message on {clock_topic}') == 1, stderr


def test_sim_time_with_a_clock_is_not_warned_about(spawn, tmp_path, ros_node):
    namespace = unique('ex')
    clock_topic = f'/{namespace}/clock'
    publish_clock(ros_node, clock_topic)
    tree = write_tree(tmp_path, 'wait.yaml', """
        trees:
          Main:
            Wait: 1.0
        """)
    executive = start_executive(spawn, tree, '/' + namespace, '-p', 'use_sim_time:=true',
                                '-r', f'/clock:={clock_topic}',
                                '--log-level', f'{namespace}.bt_executive:=debug')
    # the check that would have warned reports the running clock instead (debug)
    stderr = wait_for_stderr(executive, 'clock: use_sim_time: /clock is running',
                             'the clock check', timeout=TIMEOUT + CLOCK_WAIT)
    assert 'no message on' not in stderr


# ---- debug logging -------------------------------------------------------------------

def debug_lines(process: SpawnedProcess, logger: str, topic: str) -> list[str]:
    """Return the debug lines of ``topic`` the executive's logger wrote to the console."""
    return [line for line in process.stderr_text().splitlines()
            if line.startswith('[DEBUG]') and f'[{logger}]: {topic}: ' in line]


def test_debug_lines_say_why_each_tick_and_which_goals_were_sent_and_cancelled(
        spawn, tmp_path, ros_node):
    servers = {}
    for mode in ('succeed', 'slow'):
        name = unique('fib')
        spawn(PEERS / 'fibonacci_server.py', name, mode).wait_for_line('READY', timeout=TIMEOUT)
        servers[mode] = (name, PeerEvents(ros_node, f'/{name}/events'))
    (done, _), (slow, slow_events) = servers['succeed'], servers['slow']
    namespace = unique('ex')
    logger = f'{namespace}.bt_executive'
    # the Wait lets the action clients discover their servers first: polling for a server
    # ticks ten times a second, which would spend the tick lines' burst
    tree = write_tree(tmp_path, 'goals.yaml', f"""
        trees:
          Main:
            Sequence root:
              - Wait: 3.0
              - Action first: {{type: test_msgs/action/Fibonacci, server: /{done},
                               goal: {{order: 2}}}}
              - Action hold: {{type: test_msgs/action/Fibonacci, server: /{slow},
                              goal: {{order: 2}}}}
        """)
    executive = start_executive(spawn, tree, '/' + namespace, '-p', 'tick_mode:=event',
                                '--log-level', f'{logger}:=debug')
    slow_events.wait_for_name('goal_accepted', timeout=TIMEOUT)
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    goals = [line.split(f'[{logger}]: goal: ')[1]
             for line in debug_lines(executive, logger, 'goal')]
    assert goals[:2] == [f'Main/root/first: goal sent to /{done}',
                         f'Main/root/hold: goal sent to /{slow}'], goals
    # the signal may come before the executive has the goal response (the server's event
    # can reach the test first): then the goal is cancelled by its id at once, and again
    # once answered if that cancel was not acknowledged first
    cancel = f'Main/root/hold: cancel requested from /{slow}'
    early = ('Main/root/hold: halted before the goal response: cancel requested by goal '
             'id, and again once answered unless acknowledged')
    assert goals[2:] in ([cancel], [early], [early, cancel]), goals
    ticks = [line.split(f'[{logger}]: tick: ')[1]
             for line in debug_lines(executive, logger, 'tick')]
    assert ticks[0].startswith('#1 requested by tick_mode event'), ticks
    # the first goal's result asks for the tick that starts the second goal
    assert any(re.match(r'#\d+ requested by Main/root/first: root RUNNING, 2 transitions',
                        tick) for tick in ticks), ticks
    assert any(re.search(r'settled: next tick at a deadline in [0-3]\.\d{3} s$', tick)
               for tick in ticks), ticks  # the Wait's end
    # while the slow goal is in flight the leaf watches its server (a deadline every
    # 0.5 s at most), so the settled tree sleeps until that deadline, not the heartbeat
    assert any(re.search(r'settled: next tick at a deadline in 0\.[0-5]\d{2} s$', tick)
               for tick in ticks[-3:]), ticks
    stopping = debug_lines(executive, logger, 'tree')
    assert len(stopping) == 1 and 'waiting up to 3 s for 1 goal cancels' in stopping[0]


def test_debug_lines_stay_bounded_when_the_executive_ticks_fast(spawn, tmp_path, ros_node):
    namespace = unique('ex')
    logger = f'{namespace}.bt_executive'
    # the counter is written on every tick, so the tree never settles: event ticking runs
    # at max_tick_rate
    tree = write_tree(tmp_path, 'busy.yaml', """
        blackboard: {n: 0}
        trees:
          Main:
            ReactiveSequence root:
              - SetBlackboard count: {key: n, value: '${n + 1}'}
              - Running: {}
        """)
    statuses = collect_json(ros_node, f'/{namespace}/bt_executive/status')
    started = time.monotonic()
    executive = start_executive(spawn, tree, '/' + namespace, '-p', 'tick_mode:=event',
                                '-p', 'max_tick_rate:=200.0', '-p', 'status_period:=0.1',
                                '--log-level', f'{logger}:=debug')
    wait_for(lambda: statuses and statuses[-1]['tick_count'] >= 600, TIMEOUT * 2,
             '600 ticks')
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    elapsed = time.monotonic() - started  # longer than the executive lived
    ticks = debug_lines(executive, logger, 'tick')
    assert any('the last tick had not settled' in line for line in ticks), ticks[:5]
    # a burst, then RATE lines a second; the rest is counted, not written
    assert len(ticks) <= BURST + RATE * elapsed + 1, (len(ticks), elapsed)
    assert len(ticks) < statuses[-1]['tick_count'] / 4, (len(ticks), statuses[-1])
    assert any(re.search(r'\(\d+ tick lines left out by the rate limit\)$', line)
               for line in ticks), ticks
    # nothing else writes debug lines: rcl and rmw keep their level
    stderr = executive.stderr_text()
    assert all(f'[{logger}]' in line for line in stderr.splitlines()
               if line.startswith('[DEBUG]')), stderr[-3000:]


def test_use_sim_time_turned_on_at_runtime_is_checked_too():
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    context = Context()  # a /clock of its own: no simulator of another test can feed it
    rclpy.init(context=context, args=['--ros-args', '-r', f'/clock:=/{unique("c")}/clock'])
    node = rclpy.create_node(unique('clock_check'), context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        check = SimClockCheck(node, lambda topic, text: None, wait=0.2)
        executor.spin_once(timeout_sec=0.5)
        assert not check.warned  # use_sim_time is false: nothing to check
        node.set_parameters([Parameter('use_sim_time', value=True)])
        wait_for(lambda: check.warned, TIMEOUT, 'the warning',
                 pause=lambda seconds: executor.spin_once(timeout_sec=seconds))
        check.destroy()
    finally:
        executor.shutdown()
        node.destroy_node()
        context.try_shutdown()


def test_node_seconds_reads_the_system_clock_and_follows_use_sim_time_at_runtime():
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter
    from rclpy.time import Time

    context = Context()  # a /clock of its own: no simulator of another test can feed it
    rclpy.init(context=context, args=['--ros-args', '-r', f'/clock:=/{unique("c")}/clock'])
    node = rclpy.create_node(unique('node_seconds'), context=context)
    try:
        seconds = NodeSeconds(node)
        before = node.get_clock().now().nanoseconds * 1e-9
        read = seconds()
        after = node.get_clock().now().nanoseconds * 1e-9
        assert not seconds.simulated and before <= read <= after, (before, read, after)
        node.set_parameters([Parameter('use_sim_time', value=True)])
        assert seconds.simulated
        node.get_clock().set_ros_time_override(Time(seconds=42, nanoseconds=5000))
        assert seconds() == pytest.approx(42.000005, abs=1e-9)  # /clock's time, not the wall's
        node.set_parameters([Parameter('use_sim_time', value=False)])
        assert not seconds.simulated and abs(seconds() - time.time()) < 1.0
        # started with simulated time on: the node clock from the first read
        node.set_parameters([Parameter('use_sim_time', value=True)])
        node.get_clock().set_ros_time_override(Time(seconds=7))
        assert NodeSeconds(node)() == pytest.approx(7.0)
    finally:
        node.destroy_node()
        context.try_shutdown()
