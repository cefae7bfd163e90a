# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Several executives in one process on one executor (bt_executive/ros/fleet.py).

In-process: two executives with different trees writing the same blackboard keys (from
ticks, a subscription of the blackboard feed, an action leaf's feedback callback, a
service) keep two blackboards, and the blackboard outside them refuses use. As a real
process: ``fleet_executive`` with three executives against ``sim_robot --robots 3``,
each with its own ~/status and parameters, and SIGINT halts every tree, cancels the
goals and exits 0.
"""

import cmath
from collections.abc import Callable
import pathlib
import signal
import sys
from typing import Any
import uuid

from executive_host import write_tree
from helpers import collect_json, SpawnedProcess, spinning, wait_for
import pytest

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / 'config'
PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
TIMEOUT = 30.0
KEYS = ['who', 'count', 'level', 'progress']


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


@pytest.fixture
def fleet_context() -> Any:
    """Give a context, an EventsExecutor (as fleet_executive spins) and the blackboard guard."""
    import rclpy
    from rclpy.context import Context
    from rclpy.experimental import EventsExecutor

    from bt_executive.ros.blackboards import guard

    context = Context()
    rclpy.init(context=context)
    executor = EventsExecutor(context=context)
    undo = guard()
    made: list[Any] = []
    try:
        yield context, executor, made
    finally:
        for executive in made:
            executor.remove_node(executive)
            executive.destroy_node()
        undo()
        executor.shutdown()
        rclpy.try_shutdown(context=context)


def test_two_trees_in_one_process_keep_their_own_blackboards(
        fleet_context, tmp_path, spawn, ros_node):
    import py_trees
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import BatteryState
    from std_srvs.srv import Trigger

    from bt_executive.ros.blackboards import BlackboardOutsideExecutive, BlackboardSpace
    from bt_executive.ros.fleet import FleetExecutive

    context, executor, made = fleet_context
    server = unique('fib')
    peer = spawn(PEERS / 'fibonacci_server.py', server, 'slow')
    peer.wait_for_line('READY', timeout=TIMEOUT)
    topics = {name: '/' + unique(f'level_{name}') for name in 'ab'}
    trees = {
        'a': f"""
            blackboard: {{count: 0}}
            subscriptions:
              - {{topic: {topics['a']}, type: sensor_msgs/msg/BatteryState,
                 field: percentage, key: level}}
            trees:
              Main:
                Sequence:
                  - SetBlackboard: {{key: who, value: A}}
                  - SetBlackboard: {{key: count, value: '${{count + 1}}'}}
                  - Action fib:
                      type: test_msgs/action/Fibonacci
                      server: /{server}
                      goal: {{order: 50}}
                      feedback_key: progress
                      server_timeout: 20.0
            """,
        'b': f"""
            blackboard: {{count: 1000, progress: none}}
            subscriptions:
              - {{topic: {topics['b']}, type: sensor_msgs/msg/BatteryState,
                 field: percentage, key: level}}
            trees:
              Other:
                Sequence:
                  - SetBlackboard: {{key: who, value: B}}
                  - SetBlackboard: {{key: count, value: '${{count - 1}}'}}
                  - Running
            """}
    spaces = {}
    for name, text in trees.items():
        spaces[name] = BlackboardSpace(name)
        made.append(FleetExecutive(
            space=spaces[name], phase=0.5 * len(made), namespace='/' + unique(name),
            context=context, parameter_overrides=[
                Parameter('tree_file', value=write_tree(tmp_path, f'{name}.yaml', text)),
                Parameter('tick_mode', value='periodic'), Parameter('tick_rate', value=50.0),
                Parameter('status_keys', value=KEYS)]))
        executor.add_node(made[-1])
    a, b = made
    storage = {name: space.storage for name, space in spaces.items()}

    def spin_until(predicate: Callable[[], Any], message: str) -> Any:
        return wait_for(predicate, TIMEOUT, message,
                        pause=spinning(executor))

    for name, level in (('a', 0.25), ('b', 0.75)):
        publisher = ros_node.create_publisher(BatteryState, topics[name], 10)
        spin_until(lambda: publisher.get_subscription_count() >= 1, f'{name} to subscribe')
        publisher.publish(BatteryState(percentage=level))
    spin_until(lambda: storage['a'].get('/progress') is not None
               and storage['a'].get('/level') and storage['b'].get('/level')
               and b.tick_count >= 10,
               'action feedback in a, the levels in both and ten ticks of b')
    assert storage['a']['/who'] == 'A' and storage['b']['/who'] == 'B'
    assert storage['a']['/level'] == pytest.approx(0.25)
    assert storage['b']['/level'] == pytest.approx(0.75)
    assert (storage['a']['/count'], storage['b']['/count']) == (1, 999)  # 0 + 1, 1000 - 1
    assert hasattr(storage['a']['/progress'], 'sequence')  # Fibonacci feedback
    assert storage['b']['/progress'] == 'none'
    # ~/status reads each executive's own keys; no callback raised (the guard would)
    status_a, status_b = a.status(), b.status()
    assert status_a['blackboard']['who'] == 'A' and status_b['blackboard']['who'] == 'B'
    assert status_a['callback_errors'] == 0 and status_b['callback_errors'] == 0
    assert (status_a['tree'], status_b['tree']) == ('Main', 'Other')
    # a service of one executive (reset restores its initial blackboard) leaves the other
    client = ros_node.create_client(Trigger, f'{b.get_fully_qualified_name()}/reset')
    spin_until(client.service_is_ready, "b's ~/reset")
    before = storage['a']['/count']
    future = client.call_async(Trigger.Request())
    spin_until(future.done, 'the reset answer')
    assert future.result().success
    assert storage['a']['/count'] >= before and storage['a']['/who'] == 'A'
    # outside every executive the blackboard refuses use
    with pytest.raises(BlackboardOutsideExecutive):
        py_trees.blackboard.Blackboard.storage.get('/who')
    with pytest.raises(BlackboardOutsideExecutive):
        py_trees.blackboard.Blackboard.set('/who', 'nobody')


def test_ticks_are_spread_over_the_period(fleet_context, tmp_path):
    from rclpy.parameter import Parameter

    from bt_executive.ros.blackboards import BlackboardSpace
    from bt_executive.ros.fleet import FleetExecutive

    context, executor, made = fleet_context
    tree = write_tree(tmp_path, 't.yaml', 'trees: {Main: {Running: }}\n')
    starts: dict[int, list[float]] = {0: [], 1: [], 2: [], 3: []}
    for index in starts:
        made.append(FleetExecutive(
            space=BlackboardSpace(str(index)), phase=index / 4, context=context,
            namespace='/' + unique('phase'), parameter_overrides=[
                Parameter('tree_file', value=tree), Parameter('tick_mode', value='periodic'),
                Parameter('tick_rate', value=10.0)]))
        made[-1].tree.runner.add_observer(
            type('Starts', (), {'on_tick': lambda self, record, i=index: starts[i].append(
                record.time)})())
        executor.add_node(made[-1])
    wait_for(lambda: all(len(times) >= 5 for times in starts.values()), TIMEOUT,
             'five ticks of every executive',
             pause=spinning(executor))
    # each executive's ticks keep their place in the 100 ms period: a quarter apart
    phases = [cmath.phase(sum(cmath.exp(2j * cmath.pi * t / 0.1) for t in times[1:]))
              * 0.1 / (2 * cmath.pi) for times in starts.values()]
    distances = [abs((phases[i] - phases[j] + 0.05) % 0.1 - 0.05)
                 for i in range(4) for j in range(i + 1, 4)]
    assert min(distances) > 0.010, f'the executives tick {phases} s into the period'


def test_a_shared_process_does_not_pause_after_sends(fleet_context, tmp_path):
    # the pause of ros/spin.py would hold every executive of the process, not one
    from rclpy.parameter import Parameter

    from bt_executive.ros.blackboards import BlackboardSpace
    from bt_executive.ros.fleet import FleetExecutive
    from bt_executive.ros.spin import GiveWayAfterSend

    context, executor, made = fleet_context
    tree = write_tree(tmp_path, 't.yaml', 'trees: {Main: {Running: }}\n')
    made.append(FleetExecutive(space=BlackboardSpace('0'), context=context,
                               namespace='/' + unique('shared'),
                               parameter_overrides=[Parameter('tree_file', value=tree)]))
    observers = made[-1].tree.runner.observers
    assert observers and not any(isinstance(o, GiveWayAfterSend) for o in observers)


@pytest.fixture
def fleet_processes(spawn: Callable[..., SpawnedProcess], ros_node: Any):
    """``sim_robot --namespaces`` and ``fleet_executive --namespaces``: three robots."""
    namespaces = [unique(f'robot{index}') for index in (1, 2, 3)]
    sims = spawn(ROOT / 'bt_executive' / 'sim' / 'robot.py', '--namespaces', *namespaces,
                 '--ros-args', '--params-file', str(CONFIG / 'sim_robot.yaml'),
                 '-p', 'publish_clock:=false', '-p', 'rate:=20.0')
    statuses = {ns: collect_json(ros_node, f'/{ns}/bt_executive/status', depth=100)
                for ns in namespaces}
    fleet = spawn(ROOT / 'bt_executive' / 'ros' / 'fleet.py', '--namespaces', *namespaces,
                  '--ros-args', '--params-file', str(CONFIG / 'executive.yaml'),
                  '-p', f"tree_file:={CONFIG / 'patrol.yaml'}", '-p', 'status_period:=0.2',
                  grace=20.0)
    return namespaces, sims, fleet, statuses


def test_fleet_executive_process_three_robots(fleet_processes, ros_node):
    from action_msgs.msg import GoalStatus
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    namespaces, sims, fleet, statuses = fleet_processes
    goals: dict[str, list[int]] = {ns: [] for ns in namespaces}
    latched = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    for ns in namespaces:
        ros_node.create_subscription(GoalStatus, f'/{ns}/navigate/status',
                                     lambda m, ns=ns: goals[ns].append(m.status), latched)

    def latest(ns: str) -> dict[str, Any]:
        return statuses[ns][-1] if statuses[ns] else {}

    # every robot drives: each executive has sent a goal to its own sim
    wait_for(lambda: all(latest(ns).get('active') and GoalStatus.STATUS_EXECUTING in goals[ns]
                         for ns in namespaces), 60.0,
             f'a navigation goal executing on every robot; statuses: '
             f'{[latest(ns).get("active") for ns in namespaces]}')
    for ns in namespaces:
        status = latest(ns)
        assert status['tree'] == 'Patrol' and status['callback_errors'] == 0, status
        assert status['tick_mode'] == 'event'
    # the parameters of one executive: robot2 ticks periodically, the others stay
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    client = ros_node.create_client(SetParameters, f'/{namespaces[1]}/bt_executive/'
                                    'set_parameters')
    wait_for(client.service_is_ready, TIMEOUT, 'the parameter service of robot2')
    future = client.call_async(SetParameters.Request(parameters=[
        Parameter('tick_mode', value='periodic').to_parameter_msg()]))
    wait_for(future.done, TIMEOUT, 'the parameter change')
    assert future.result().results[0].successful
    wait_for(lambda: latest(namespaces[1]).get('tick_mode') == 'periodic', TIMEOUT,
             'robot2 to tick periodically')
    assert [latest(ns)['tick_mode'] for ns in namespaces] == ['event', 'periodic', 'event']
    # SIGINT: every tree halted, every robot's goal cancelled, exit status 0
    counts = {ns: len(goals[ns]) for ns in namespaces}
    fleet.popen.send_signal(signal.SIGINT)
    assert fleet.popen.wait(timeout=60.0) == 0, fleet.stderr_text()[-3000:]
    for ns in namespaces:  # a goal executing at the signal was cancelled
        wait_for(lambda: GoalStatus.STATUS_CANCELED in goals[ns][counts[ns] - 1:]
                 or goals[ns][-1] in (GoalStatus.STATUS_SUCCEEDED, GoalStatus.STATUS_ABORTED),
                 TIMEOUT, f'the goal of {ns} to end; statuses {goals[ns]}')
        wait_for(lambda: latest(ns).get('running') is False, TIMEOUT,
                 f'the final status of {ns}')
    assert 'not acknowledged' not in fleet.stderr_text()
    assert sims.returncode is None  # the sims outlive the executives


def _free_ports(first_step: int, count: int) -> int:
    """Return a port P with P, P + step, ... (count ports) free on 127.0.0.1."""
    import socket

    from helpers import free_port
    for _ in range(50):
        start = free_port()
        ports = [start + index * first_step for index in range(count)]
        try:
            for port in ports[1:]:
                with socket.socket() as probe:
                    probe.bind(('127.0.0.1', port))
        except OSError:
            continue
        return start
    raise AssertionError('no free ports found')


def test_a_split_fleets_process_serves_its_robots_ports_and_ticks_between(fleet_context):
    from bt_executive.ros.fleet import start_fleet

    context, executor, made = fleet_context
    port = _free_ports(3, 2)
    # the second of three processes of a 6-robot fleet hosts robots 2 and 5: the fleet's
    # ports P + 1 and P + 4, ticking a third of a slot after the first process's
    start_fleet(made, ['/' + unique('split_a'), '/' + unique('split_b')],
                groot2_port=port - 1, split=(2, 3), context=context)
    assert [executive.get_parameter('groot2_port').value for executive in made] == \
        [port, port + 3]
    assert all(executive.groot2 is not None for executive in made)
    assert [executive.tick_phase for executive in made] == \
        pytest.approx([1 / 6, 1 / 2 + 1 / 6])


def test_fleet_executive_help_and_bad_arguments():
    import subprocess
    fleet = str(ROOT / 'bt_executive' / 'ros' / 'fleet.py')
    shown = subprocess.run([sys.executable, fleet, '--help'], capture_output=True, text=True,
                           timeout=60)
    assert shown.returncode == 0 and '--robots N' in shown.stdout
    assert 'tick_rate' in shown.stdout  # the executive's parameters
    bad = subprocess.run([sys.executable, fleet, '--namespaces', 'a', 'a'],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and 'namespace /a given twice' in bad.stderr
    remapped = subprocess.run([sys.executable, fleet, '--robots', '2', '--ros-args', '-r',
                               '__ns:=/x'], capture_output=True, text=True, timeout=60)
    assert remapped.returncode == 2 and 'give --namespaces instead' in remapped.stderr
    for split, why in (('3/2', 'expected 1 <= I <= K'), ('2', 'expected I/K')):
        bad = subprocess.run([sys.executable, fleet, '--robots', '2', '--split', split],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and why in bad.stderr, bad.stderr
    assert '--split I/K' in shown.stdout
