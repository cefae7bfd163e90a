# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""No goal storms: leaves that keep failing back off, counted at the robot's interfaces.

The executive once re-sent "go to dock" at its highest tick rate while the sim's battery
was empty (963 aborted goals in 10 s, ``last_failure: ''``). Here every goal is counted
where the robot receives it: the peer servers' event logs (a Nav2-like ``DockRobot``
that always rejects, a failing ``Trigger`` service) and the built-in sim's
``navigate/goal`` topic. The bounds follow from the back-off's definition (consecutive
goals of a leaf at least the back-off apart), so a loaded machine can only make them
easier to meet.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import pathlib
import re
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import PeerEvents, SpawnedProcess, wait_for
import pytest

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / 'config'
TIMEOUT = 60.0
EPSILON = 0.005  # seconds: two processes reading the same system clock


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def start_peer(spawn: Callable[..., SpawnedProcess], script: str, name: str,
               *options: str) -> SpawnedProcess:
    process = spawn(PEERS / f'{script}.py', name, *options)
    process.wait_for_line('READY', timeout=TIMEOUT)
    return process


def intervals(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in zip(times, times[1:])]


def expected_waits(count: int, initial: float, limit: float) -> list[float]:
    from bt_executive.ros.leaves.backoff import delay_after
    return [delay_after(failures, initial, limit) for failures in range(1, count + 1)]


class Transitions:
    """Every status transition an executive publishes on ~/events."""

    def __init__(self, node: Any, namespace: str) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.items: list[dict[str, Any]] = []
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{namespace}/bt_executive/events',
                                 lambda msg: self.items.extend(json.loads(msg.data)['events']),
                                 qos)

    def of(self, ident: str) -> list[tuple[str, str]]:
        """Return (new status, reason) of each transition of ``ident``, in order."""
        return [(item['to'], item['reason']) for item in list(self.items)
                if item['id'] == ident]


def test_a_dock_server_that_always_rejects_gets_goals_no_faster_than_the_backoff(
        spawn, host, tmp_path, ros_node):
    # the Nav2 patrol's recharge branch, against a DockRobot-like server that rejects
    name = unique('dock_robot')
    start_peer(spawn, 'fibonacci_server', name, 'reject')
    server = PeerEvents(ros_node, f'/{name}/events')
    tree = write_tree(tmp_path, 'dock.yaml', f"""
        trees:
          Main:
            Selector root:
              - Sequence recharge:
                  - Condition battery low: 'true'
                  - Action dock robot: {{type: test_msgs/action/Fibonacci, server: /{name},
                                        goal: {{order: 1}}, server_timeout: {TIMEOUT}}}
              - Success patrol
        """)
    # event ticking with a heartbeat far away: only the back-off's end can wake the tree
    ex = host(tree, tick_mode='event', max_tick_rate=100.0, heartbeat_period=3600.0,
              backoff_max=0.5)
    transitions = Transitions(ros_node, ex.namespace)
    goals = 7
    ex.spin_until(lambda: len(server.all('goal_received')) >= goals, f'{goals} goals',
                  timeout=TIMEOUT)
    times = [event['time'] for event in server.all('goal_received')]
    waits = expected_waits(len(times) - 1, 0.2, 0.5)
    assert waits[:4] == [0.2, 0.4, 0.5, 0.5]
    for gap, wait in zip(intervals(times), waits):
        assert gap >= wait - EPSILON, (intervals(times), waits)
    # at steady failure: one goal per backoff_max, at most 2 per second
    steady = times[3:]
    assert (len(steady) - 1) / (steady[-1] - steady[0]) <= 2.0 + 1e-6, times
    # the tree sleeps while the leaf waits: a few ticks per goal, not max_tick_rate
    assert ex.executive.tick_count <= 8 * len(server.all('goal_received')) + 8, \
        ex.executive.tick_count

    leaf = 'Main/root/recharge/dock robot'
    status = ex.spin_until(lambda: (lambda s: s if s['backing_off'] else None)(
        ex.executive.status()), 'the leaf to back off')
    assert status['last_failure'] == f'{leaf}: goal rejected by /{name}'
    assert list(status['backing_off']) == [leaf]
    assert re.fullmatch(rf'backing off 0\.5 s after \d+ failures: goal rejected by /{name}',
                        status['backing_off'][leaf]), status['backing_off']
    assert status['root_status'] == 'RUNNING'
    # viewers get the reason with the leaf's transition to RUNNING
    ex.spin_until(lambda: any(reason.startswith('backing off 0.2 s after 1 failure: goal '
                                                'rejected by') for _, reason
                              in transitions.of(leaf)), 'the back-off on ~/events')


def test_a_failing_service_is_called_no_faster_than_its_own_backoff(
        spawn, host, tmp_path, ros_node):
    name = unique('dock')
    start_peer(spawn, 'trigger_server', name, 'fail')
    server = PeerEvents(ros_node, f'/{name}/events')
    tree = write_tree(tmp_path, 'dock.yaml', f"""
        blackboard: {{tries: 0}}
        trees:
          Main:
            Selector root:
              - Service dock: {{type: std_srvs/srv/Trigger, service: /{name},
                               success: response.success, server_timeout: {TIMEOUT},
                               backoff: 0.1, backoff_max: 0.4}}
              - SetBlackboard tries: {{key: tries, value: '${{tries + 1}}'}}
        """)
    # periodic ticking at 50 Hz, and the executive's own setting is overridden by the leaf
    ex = host(tree, tick_mode='periodic', tick_rate=50.0, backoff=5.0, backoff_max=30.0)
    ex.spin_until(lambda: len(server.all('request')) >= 6, 'six requests', timeout=TIMEOUT)
    times = [event['time'] for event in server.all('request')]
    waits = expected_waits(len(times) - 1, 0.1, 0.4)
    assert waits[:4] == [0.1, 0.2, 0.4, 0.4]
    for gap, wait in zip(intervals(times), waits):
        assert gap >= wait - EPSILON, (intervals(times), waits)
    assert ex.executive.status()['last_failure'] == \
        'Main/root/dock: response failed success test: response.success'


def test_a_succeeding_leaf_is_never_held_and_a_success_ends_the_back_off(
        spawn, host, tmp_path, ros_node):
    name = unique('fib')
    tree = write_tree(tmp_path, 'fib.yaml', f"""
        blackboard: {{succeeded: 0}}
        trees:
          Main:
            Sequence:
              - Action fib: {{type: test_msgs/action/Fibonacci, server: /{name},
                             goal: {{order: 1}}, server_timeout: 0.3}}
              - SetBlackboard count: {{key: succeeded, value: '${{succeeded + 1}}'}}
        """)
    ex = host(tree, tick_mode='event', backoff=0.05)
    transitions = Transitions(ros_node, ex.namespace)
    leaf = 'Main/Sequence/fib'

    def holds() -> list[str]:
        return [reason for status, reason in transitions.of(leaf)
                if reason.startswith('backing off')]

    # no server yet: the leaf fails and backs off
    ex.spin_until(lambda: len(holds()) >= 2, 'two back-offs', timeout=TIMEOUT)
    start_peer(spawn, 'fibonacci_server', name, 'succeed', '--period', '0.01')
    server = PeerEvents(ros_node, f'/{name}/events')
    ex.spin_until(lambda: len(server.all('finished', status='succeeded')) >= 5,
                  'five successes', timeout=TIMEOUT)
    held = len(holds())
    first = next(index for index, (status, _) in enumerate(transitions.of(leaf))
                 if status == 'SUCCESS')
    ex.spin_until(lambda: len(server.all('finished', status='succeeded')) >= 10,
                  'ten successes', timeout=TIMEOUT)
    after = transitions.of(leaf)[first:]
    assert not [reason for _, reason in after if reason.startswith('backing off')], after
    assert len(holds()) == held
    assert ex.executive.status()['backing_off'] == {}


# ---- the built-in sim: real sim and executive processes -------------------------------

SIM = ROOT / 'bt_executive' / 'sim' / 'robot.py'
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
DOCK = (0.0, -1.0)


class SimRun:
    """The sim (fast-draining battery, 10x time) and an executive, watched from the test.

    Every goal the sim receives on ``navigate/goal`` is recorded with its target and its
    stamp (the executive's clock: simulated time).
    """

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any, tree: str) -> None:
        from geometry_msgs.msg import PoseStamped
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.namespace = f'/storm_{uuid.uuid4().hex[:8]}'
        self.statuses: list[dict[str, Any]] = []
        self.robot: list[dict[str, Any]] = []
        self.goals: list[tuple[float, tuple[float, float]]] = []
        self.events = Transitions(node, self.namespace)
        latched = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{self.namespace}/bt_executive/status',
                                 lambda m: self.statuses.append(json.loads(m.data)), latched)
        state = node.create_subscription(String, f'{self.namespace}/sim_state',
                                         lambda m: self.robot.append(json.loads(m.data)),
                                         latched)
        goals = node.create_subscription(
            PoseStamped, f'{self.namespace}/navigate/goal', self._on_goal,
            QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
        self.sim = spawn(SIM, '--ros-args', '--params-file',
                         str(CONFIG / 'sim_fast_drain.yaml'), '-r', f'__ns:={self.namespace}')
        self.wait(lambda: state.get_publisher_count() > 0 and self.robot, 'the sim state')
        self.executive = spawn(
            EXECUTIVE, '--ros-args', '--params-file', str(CONFIG / 'executive.yaml'),
            '-r', f'__ns:={self.namespace}', '-p', f'tree_file:={tree}',
            '-p', 'use_sim_time:=true', '-p', 'status_period:=0.1')
        # the sim counts every goal (sim_state 'goals'); this subscription, the late ones
        self.wait(lambda: goals.get_publisher_count() > 0, "the executive's goal publisher")

    def _on_goal(self, msg: Any) -> None:
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        self.goals.append((stamp, (round(msg.pose.position.x, 2),
                                   round(msg.pose.position.y, 2))))

    @property
    def status(self) -> dict[str, Any]:
        return self.statuses[-1] if self.statuses else {}

    @property
    def state(self) -> dict[str, Any]:
        return self.robot[-1] if self.robot else {}

    def wait(self, predicate: Callable[[], Any], message: str,
             timeout: float = TIMEOUT) -> Any:
        return wait_for(predicate, timeout, message,
                        describe=lambda: f'\nexecutive status: {self.status}\n'
                                         f'robot: {self.state}\ngoals: {self.goals}')

    def wait_sim_time(self, seconds: float) -> float:
        """Wait until the simulation has advanced ``seconds``; return its time then."""
        until = self.state['time'] + seconds
        self.wait(lambda: self.state['time'] >= until, f'{seconds} s of simulated time')
        return self.state['time']

    def goals_to(self, target: tuple[float, float],
                 since: float = 0.0) -> list[float]:
        return [stamp for stamp, where in list(self.goals) if where == target and stamp >= since]


@pytest.fixture
def sim_run(spawn: Callable[..., SpawnedProcess], ros_node: Any) -> Callable[[str], SimRun]:
    return lambda tree: SimRun(spawn, ros_node, tree)


@pytest.mark.slow
def test_the_patrol_stranded_with_an_empty_battery_waits_for_help_and_sends_no_goals(
        sim_run):
    run = sim_run(str(CONFIG / 'patrol.yaml'))
    run.wait(lambda: run.status.get('blackboard', {}).get('stranded'), 'the robot stranded')
    assert run.state['battery'] == 0.0
    assert run.status['active'][-1].endswith('/stranded/waiting for help'), run.status
    assert run.status['root_status'] == 'RUNNING'
    assert run.status['last_failure'], 'the failed goal is reported'
    sent = run.state['goals']
    # a goal or two per leaf while the battery ran out (docking, then the patrol while
    # the dock leaf backed off), then none at all
    assert sent <= 6, run.goals
    run.wait_sim_time(30.0)
    assert run.state['goals'] == sent, run.goals
    assert run.status.get('blackboard', {}).get('stranded') is True


STORM_TREE = """\
# the patrol's recharge and patrol branches without the stranded branch: both keep failing
main: Storm
include: [{robot}]
blackboard: {{dock: {{x: 0.0, y: -1.0}}, waypoint: {{x: 3.0, y: 0.0}}, skipped: 0}}
trees:
  Storm:
    Selector root:
      - Sequence recharge:
          - Condition battery low: battery.percentage < 0.25
          - Subtree go to dock: {{tree: Navigate, x: $dock.x, y: $dock.y}}
      - Selector patrol:
          - Retry:
              attempts: 2
              Subtree navigate: {{tree: Navigate, x: $waypoint.x, y: $waypoint.y}}
          - SetBlackboard skip: {{key: skipped, value: '${{skipped + 1}}'}}
"""


@pytest.mark.slow
def test_a_tree_that_keeps_failing_on_the_sim_sends_at_most_two_goals_per_second_per_leaf(
        sim_run, tmp_path):
    tree = tmp_path / 'storm.yaml'
    tree.write_text(STORM_TREE.format(robot=CONFIG / 'robot_sim.yaml'))
    run = sim_run(str(tree))
    run.wait(lambda: run.state.get('battery', 1.0) == 0.0, 'an empty battery')
    start = run.wait_sim_time(15.0)  # the back-off reaches its cap (10 s) within 12.6 s
    end = run.wait_sim_time(60.0)
    for target in (DOCK, (3.0, 0.0)):
        stamps = run.goals_to(target, since=start)
        assert len(stamps) <= 2.0 * (end - start), (target, stamps)
        # at steady failure a leaf waits backoff_max (10 s) between goals
        assert len(stamps) <= (end - start) / 10.0 + 2, (target, stamps)
    failure = run.status['last_failure']
    assert 'goal failed' in failure and '/drive: ' in failure, run.status
    backing = [reason for _, reason in run.events.of(
        'Storm/root/recharge/go to dock/Navigate/drive') if reason.startswith('backing off')]
    assert backing and backing[-1].startswith('backing off 10.0 s after '), \
        (backing, run.status, run.goals)
