# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""End-to-end patrol: the built-in sim and the executive as real processes, sim time x10.

Each test starts ``sim_robot`` and ``executive`` with the package's parameter files (as
``patrol.launch.py`` and ``bt-executive demo`` do) in a namespace of their own, and
watches them through the executive's ~/status, the sim's ``sim_state`` and
``navigate/status``.
"""

from collections.abc import Callable
import json
import pathlib
import signal
from typing import Any, Optional
import uuid

from helpers import set_tree_file, SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / 'config'
SIM = ROOT / 'bt_executive' / 'sim' / 'robot.py'
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
STATUS_KEYS = '[waypoint_index, laps, reached, skipped, dockings, battery_low, estop]'
TIMEOUT = 90.0


class PatrolRun:
    """A sim and an executive in one namespace, observed from the test node."""

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any, *,
                 tree: pathlib.Path = CONFIG / 'patrol.yaml', sim_time: bool = True,
                 sim_params: tuple[str, ...] = (),
                 executive_params: tuple[str, ...] = ()) -> None:
        from action_msgs.msg import GoalStatus
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from nav_msgs.msg import Odometry
        from std_msgs.msg import Bool, String

        self.spawn = spawn
        self.node = node
        self.namespace = f'/patrol_{uuid.uuid4().hex[:8]}'
        self.sim_time = sim_time
        # 10x real time in steps of 0.1 s of sim time (one executive tick)
        self.sim_params = ('-p', f'publish_clock:={str(sim_time).lower()}',
                           '-p', 'time_scale:=10.0', '-p', 'rate:=100.0', *sim_params)
        self.statuses: list[dict[str, Any]] = []
        self.robot: list[dict[str, Any]] = []
        self.goals: list[tuple[int, int]] = []
        # a deep history: the tests read every state, not just the latest
        latched = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{self.namespace}/bt_executive/status',
                                 lambda m: self.statuses.append(json.loads(m.data)), latched)
        self.state_subscription = node.create_subscription(
            String, f'{self.namespace}/sim_state',
            lambda m: self.robot.append(json.loads(m.data)), latched)
        self.odom: list[tuple[float, float]] = []
        node.create_subscription(
            Odometry, f'{self.namespace}/odom',
            lambda m: self.odom.append((m.header.stamp.sec + m.header.stamp.nanosec * 1e-9,
                                        m.twist.twist.linear.x)),
            QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
        node.create_subscription(
            GoalStatus, f'{self.namespace}/navigate/status',
            lambda m: self.goals.append((m.goal_info.stamp.sec * 10**9
                                         + m.goal_info.stamp.nanosec, m.status)), latched)
        self.estop_publisher = node.create_publisher(Bool, f'{self.namespace}/emergency_stop',
                                                     10)
        self.sim = self.start_sim()
        # observe the robot from its first move: match before the executive drives it
        self.wait(lambda: self.state_subscription.get_publisher_count() > 0 and self.robot,
                  'the sim state')
        self.executive = spawn(
            EXECUTIVE, '--ros-args', '--params-file', str(CONFIG / 'executive.yaml'),
            '-r', f'__ns:={self.namespace}', '-p', f'tree_file:={tree}',
            '-p', f'use_sim_time:={str(sim_time).lower()}', '-p', 'status_period:=0.1',
            '-p', f'status_keys:={STATUS_KEYS}', *executive_params)

    def start_sim(self) -> SpawnedProcess:
        return self.spawn(SIM, '--ros-args', '--params-file', str(CONFIG / 'sim_robot.yaml'),
                          '-r', f'__ns:={self.namespace}', *self.sim_params)

    @property
    def status(self) -> dict[str, Any]:
        return self.statuses[-1] if self.statuses else {}

    @property
    def board(self) -> dict[str, Any]:
        return self.status.get('blackboard', {})

    @property
    def state(self) -> dict[str, Any]:
        return self.robot[-1] if self.robot else {}

    def wait(self, predicate: Callable[[], Any], message: str,
             timeout: float = TIMEOUT) -> Any:
        return wait_for(predicate, timeout, message,
                        describe=lambda: f'\nexecutive status: {self.status}\n'
                                         f'robot: {self.state}')

    def targets(self) -> list[Optional[tuple[float, float]]]:
        """Return the distinct navigation targets the sim drove to, in order."""
        seen: list[Optional[tuple[float, float]]] = []
        for state in self.robot:
            target = (state.get('nav') or {}).get('target')
            target = tuple(round(v, 2) for v in target) if target else None
            if target is not None and (not seen or seen[-1] != target):
                seen.append(target)
        return seen

    def set_tree_file(self, tree_file: pathlib.Path) -> Any:
        """Swap the executive's tree through its parameter service; return the result."""
        return set_tree_file(self.node, self.namespace, str(tree_file), self.wait)

    def set_estop(self, engaged: bool) -> None:
        from std_msgs.msg import Bool
        self.wait(lambda: self.estop_publisher.get_subscription_count() >= 2,
                  'the sim and the executive to subscribe to emergency_stop')
        self.estop_publisher.publish(Bool(data=engaged))


@pytest.fixture
def patrol(spawn: Callable[..., SpawnedProcess], ros_node: Any) -> Callable[..., PatrolRun]:
    def start(**kwargs: Any) -> PatrolRun:
        return PatrolRun(spawn, ros_node, **kwargs)
    return start


def test_two_laps_dock_and_resume_at_the_interrupted_waypoint(patrol):
    # no idle drain: however long the executive takes to start, the battery runs low while
    # driving, so a navigation is preempted mid-patrol
    run = patrol(sim_params=('-p', 'initial_battery:=0.35', '-p', 'idle_drain:=0.0'))
    run.wait(lambda: run.board.get('laps', 0) >= 2, 'two laps')
    assert run.board['dockings'] >= 1
    assert run.board['reached'] >= 8 and run.board['skipped'] == 0
    dock = (0.0, -1.0)
    targets = run.targets()
    assert dock in targets, targets
    at = targets.index(dock)
    # the navigation that the low battery preempted is resumed after the docking
    assert 0 < at < len(targets) - 1 and targets[at + 1] == targets[at - 1], targets
    stamps_cancelled = {stamp for stamp, status in run.goals if status == 5}
    assert stamps_cancelled, 'the preempted navigation goal was cancelled'


def test_emergency_stop_halts_at_once_and_patrol_resumes(patrol):
    run = patrol()
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'the robot to drive')
    run.set_estop(True)
    run.wait(lambda: run.state.get('estop') and run.state.get('speed') == 0.0,
             'the robot to stop on the emergency stop', timeout=10.0)
    stopped = run.state
    run.wait(lambda: any('hold while pressed' in path for path in run.status.get('active', [])),
             'the tree to hold in the emergency branch', timeout=10.0)
    # zero speed within one executive tick (0.1 s of sim time) of the estop
    engaged = next(s for s in run.robot if s.get('estop'))['time']
    halted = next(stamp for stamp, speed in run.odom if stamp >= engaged and speed == 0.0)
    assert halted - engaged <= 0.1 + 1e-6, (engaged, halted)
    reached = run.board.get('reached', 0)
    run.set_estop(False)
    run.wait(lambda: run.board.get('reached', 0) > reached, 'the patrol to resume')
    assert stopped['time'] <= run.state['time']


def test_swapping_the_tree_mid_run_cancels_the_goal_and_the_new_tree_drives(patrol):
    run = patrol()
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'a navigation')
    cancelled = run.state['results'].get('canceled', 0)
    seen = len(run.targets())
    result = run.set_tree_file(CONFIG / 'patrol_reverse.yaml')
    assert result.successful, result.reason
    run.wait(lambda: run.status.get('file', '').endswith('patrol_reverse.yaml'),
             'the new tree to run')
    # the old goal ends (cancelled, or replaced by the new tree's first goal) ...
    run.wait(lambda: run.state['results'].get('canceled', 0) > cancelled,
             'the old goal to be cancelled')
    # ... and the new tree drives to its own first waypoint, then its second. (3, 2) is
    # also on the old tree's round, and the sim's state can show the old goal's target
    # after the swap, so the new tree's order itself is awaited, not (3, 2) alone

    def drove_new_order() -> bool:
        after = [t for t in run.targets()[seen:] if t != (0.0, -1.0)]  # docking may come first
        return any(pair == ((0.0, 2.0), (3.0, 2.0)) for pair in zip(after, after[1:]))

    run.wait(drove_new_order, "the new tree's first two waypoints, in its order")


def test_sim_killed_and_restarted_patrol_recovers(patrol):
    run = patrol(sim_time=False, sim_params=('-p', 'max_linear_speed:=1.5'))
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'the robot to drive')
    run.sim.popen.send_signal(signal.SIGKILL)
    run.sim.popen.wait(10.0)
    ticks = run.status.get('tick_count', 0)
    run.wait(lambda: run.board.get('skipped', 0) >= 1, 'the executive to skip the waypoint')
    assert run.status['tick_count'] > ticks, 'the executive keeps ticking'
    reached = run.board.get('reached', 0)
    run.robot.clear()
    run.sim = run.start_sim()
    run.wait(lambda: run.board.get('reached', 0) > reached, 'the patrol to recover')


def test_sigterm_mid_navigation_leaves_the_robot_stationary(patrol):
    run = patrol()
    run.wait(lambda: run.state.get('speed', 0) > 0.2, 'the robot to drive')
    run.executive.popen.send_signal(signal.SIGTERM)
    assert run.executive.popen.wait(TIMEOUT) == 0
    run.wait(lambda: run.state.get('speed') == 0.0
             and (run.state.get('nav') or {}).get('target') is None,
             'the robot to stop with no goal left', timeout=10.0)
    assert any(status == 5 for _, status in run.goals), 'the goal was cancelled'
