# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Integration tests of the simulated robot (``bt_executive/sim/robot.py``) as a real process.

Each test starts the sim with the ``spawn`` fixture in a namespace of its own, owning
time (``publish_clock:=true``, ``time_scale:=20.0``: one 0.4 s step every 20 ms), and
talks to it from the ``ros_node`` fixture. Waits are event-based (a condition variable
notified by the subscription callbacks, publisher "matched" events, service futures)
and bounded. Time inside the sim is compared through message stamps: ``sim_state``
carries the simulated time of each change, ``odom`` is stamped with the step's time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import json
import math
import pathlib
import re
import threading
import time
from typing import Any, Optional
import uuid

from helpers import SpawnedProcess, wait_event, wait_future, wait_on
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIM_SCRIPT = ROOT / 'bt_executive' / 'sim' / 'robot.py'
CONFIG = ROOT / 'config' / 'sim_robot.yaml'
DISCOVERY_TIMEOUT = 15.0
TIMEOUT = 10.0
TIME_SCALE = 20.0
STEP = 1.0 / 50.0 * TIME_SCALE
"""Simulated seconds per step at the default rate (50 Hz) and TIME_SCALE."""

STATUS_EXECUTING, STATUS_SUCCEEDED, STATUS_CANCELED, STATUS_ABORTED = 2, 4, 5, 6


def stamp_seconds(stamp: Any) -> float:
    """Return a builtin_interfaces/Time as float seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def odom_yaw(msg: Any) -> float:
    """Return the heading encoded in an Odometry message's quaternion (rotation about z)."""
    orientation = msg.pose.pose.orientation
    return 2.0 * math.atan2(orientation.z, orientation.w)


def is_still(msg: Any) -> bool:
    """Return whether an Odometry message reports zero velocity."""
    return msg.twist.twist.linear.x == 0.0 and msg.twist.twist.angular.z == 0.0


class Inbox:
    """The messages received on one topic, with bounded event-based waits."""

    def __init__(self, node: Any, msg_type: type, topic: str, qos: Any = 10, *,
                 parse: Optional[Callable[[Any], Any]] = None) -> None:
        """Subscribe on ``node`` (spinning elsewhere); ``parse`` converts each message."""
        self.topic = topic
        self._parse = parse or (lambda msg: msg)
        self._items: list[Any] = []
        self._received: list[float] = []
        self._changed = threading.Condition()
        self.subscription = node.create_subscription(msg_type, topic, self._on_message, qos)

    def _on_message(self, msg: Any) -> None:
        """Store the message with its arrival time (monotonic) and wake waiters."""
        with self._changed:
            self._items.append(self._parse(msg))
            self._received.append(time.monotonic())
            self._changed.notify_all()

    def items(self) -> list[Any]:
        """Return the messages so far."""
        with self._changed:
            return list(self._items)

    def arrival(self, index: int) -> float:
        """Return when message ``index`` arrived (``time.monotonic()``)."""
        with self._changed:
            return self._received[index]

    def wait_for(self, predicate: Callable[[Any], bool], message: str, *,
                 timeout: float = TIMEOUT, count: int = 1) -> list[tuple[int, Any]]:
        """Wait until ``count`` messages satisfy ``predicate``; return them with their indices.

        Raises:
            AssertionError: On timeout, with what was received.
        """
        def find() -> Optional[list[tuple[int, Any]]]:
            found = [(index, item) for index, item in enumerate(self._items)
                     if predicate(item)]
            return found[:count] if len(found) >= count else None

        return wait_on(self._changed, find, timeout,
                       lambda: f'timed out after {timeout}s waiting for {message} on '
                               f'{self.topic}; last messages: {self._items[-3:]}')

    def first(self, predicate: Callable[[Any], bool], message: str, *,
              timeout: float = TIMEOUT) -> Any:
        """Wait for the first message satisfying ``predicate`` and return it."""
        return self.wait_for(predicate, message, timeout=timeout)[0][1]


class Sim:
    """A sim_robot process in its own namespace, with inboxes and publishers for it."""

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any, *parameters: str,
                 options: tuple[str, ...] = ()) -> None:
        """Start the sim with ``-p`` ``parameters``; wait until it is up and connected."""
        from action_msgs.msg import GoalStatus
        from geometry_msgs.msg import PoseStamped, Twist
        from nav_msgs.msg import Odometry
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from sensor_msgs.msg import BatteryState
        from action_msgs.msg import GoalInfo
        from std_msgs.msg import Bool, String

        self.ns = f'/sim_{uuid.uuid4().hex[:8]}'
        self.node = node
        arguments = ['--ros-args', *options, '-p', 'publish_clock:=true',
                     '-p', f'time_scale:={TIME_SCALE}']
        for parameter in parameters:
            arguments += ['-p', parameter]
        self.process = spawn(SIM_SCRIPT, *arguments, '-r', f'__ns:={self.ns}')
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        status_qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                                durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.odom = Inbox(node, Odometry, f'{self.ns}/odom', 50)
        self.battery = Inbox(node, BatteryState, f'{self.ns}/battery_state', 50)
        self.status = Inbox(node, GoalStatus, f'{self.ns}/navigate/status', status_qos)
        self.feedback = Inbox(node, PoseStamped, f'{self.ns}/navigate/feedback')
        self.estop_state = Inbox(node, Bool, f'{self.ns}/emergency_stop_state', latched,
                                 parse=lambda msg: msg.data)
        self.state = Inbox(node, String, f'{self.ns}/sim_state', latched,
                           parse=lambda msg: json.loads(msg.data))
        self._pose_type, self._twist_type = PoseStamped, Twist
        self._bool_type, self._cancel_type = Bool, GoalInfo
        matched: list[tuple[str, threading.Event]] = []
        self.goal_pub = self._publisher(PoseStamped, 'navigate/goal', matched)
        self.cancel_pub = self._publisher(GoalInfo, 'navigate/cancel', matched)
        self.estop_pub = self._publisher(Bool, 'emergency_stop', matched)
        self.cmd_pub = self._publisher(Twist, 'cmd_vel', matched)
        self.state.first(lambda state: True, 'the first sim_state', timeout=DISCOVERY_TIMEOUT)
        for topic, event in matched:
            wait_event(event, DISCOVERY_TIMEOUT, f'the sim to subscribe to {topic}')

    def _publisher(self, msg_type: type, name: str,
                   matched: list[tuple[str, threading.Event]]) -> Any:
        """Create a publisher whose "matched" event is set once the sim subscribes."""
        from rclpy.event_handler import PublisherEventCallbacks

        event = threading.Event()

        def on_matched(info: Any) -> None:
            if info.current_count > 0:
                event.set()

        topic = f'{self.ns}/{name}'
        matched.append((topic, event))
        return self.node.create_publisher(
            msg_type, topic, 10, event_callbacks=PublisherEventCallbacks(matched=on_matched))

    def send_goal(self, x: float, y: float, sec: int, frame: str = 'odom') -> None:
        """Publish a navigation goal whose header stamp (its id) is ``sec`` seconds."""
        msg = self._pose_type()
        msg.header.stamp.sec = sec
        msg.header.frame_id = frame
        msg.pose.position.x, msg.pose.position.y = x, y
        msg.pose.orientation.w = 1.0
        self.goal_pub.publish(msg)

    def wait_status(self, sec: int, status: int, *, timeout: float = TIMEOUT) -> Any:
        """Wait for ``navigate/status`` ``status`` of the goal stamped ``sec``."""
        return self.status.first(
            lambda msg: msg.goal_info.stamp.sec == sec and msg.status == status,
            f'status {status} of goal {sec}', timeout=timeout)

    def cmd_vel(self, linear: float, angular: float = 0.0) -> None:
        """Publish one velocity command."""
        msg = self._twist_type()
        msg.linear.x, msg.angular.z = linear, angular
        self.cmd_pub.publish(msg)

    def estop(self, engaged: bool) -> None:
        """Publish the emergency stop state."""
        self.estop_pub.publish(self._bool_type(data=engaged))

    def cancel(self) -> None:
        """Cancel the active goal."""
        self.cancel_pub.publish(self._cancel_type())

    def call(self, service: str) -> Any:
        """Call a Trigger service of the sim; return the response."""
        from std_srvs.srv import Trigger

        client = self.node.create_client(Trigger, f'{self.ns}/{service}')
        try:
            assert client.wait_for_service(timeout_sec=DISCOVERY_TIMEOUT), \
                f'service {self.ns}/{service} not discovered within {DISCOVERY_TIMEOUT}s'
            return wait_future(client.call_async(Trigger.Request()), TIMEOUT,
                               f'a response from {service}')
        finally:
            self.node.destroy_client(client)

    def odom_after(self, sim_time: float, message: str, *, count: int = 1) -> list[Any]:
        """Wait for ``count`` odom messages stamped after ``sim_time``; return them."""
        found = self.odom.wait_for(
            lambda msg: stamp_seconds(msg.header.stamp) > sim_time + STEP / 2, message,
            count=count)
        return [msg for _index, msg in found]


@pytest.fixture
def sim(spawn: Callable[..., SpawnedProcess], ros_node: Any) -> Iterator[Callable[..., Sim]]:
    """Return a function starting connected :class:`Sim` s with ``-p`` parameters."""
    def start(*parameters: str, options: tuple[str, ...] = ()) -> Sim:
        return Sim(spawn, ros_node, *parameters, options=options)

    yield start


# --- the tests -----------------------------------------------------------------------------

@pytest.mark.ros
def test_params_file_clock_and_cmd_vel(sim: Callable[..., Sim], ros_node: Any) -> None:
    from rcl_interfaces.srv import GetParameters
    from rosgraph_msgs.msg import Clock

    clock = Inbox(ros_node, Clock, '/clock', parse=lambda msg: stamp_seconds(msg.clock))
    robot = sim(options=('--params-file', str(CONFIG)))

    # The params file applies under a namespace; -p after it takes precedence.
    client = ros_node.create_client(GetParameters, f'{robot.ns}/sim_robot/get_parameters')
    assert client.wait_for_service(timeout_sec=DISCOVERY_TIMEOUT)
    names = ['initial_battery', 'world_max_x', 'time_scale', 'publish_clock']
    response = wait_future(client.call_async(GetParameters.Request(names=names)), TIMEOUT,
                           'the parameters')
    values = [value.double_value for value in response.values[:3]]
    assert values == [0.5, 5.0, TIME_SCALE] and response.values[3].bool_value
    assert robot.estop_state.first(lambda state: True, 'the latched estop state') is False

    # /clock advances time_scale times faster than real time (well over 4x even on a busy
    # machine), in steps of STEP, and odom is stamped with that time.
    [(start_index, start)] = clock.wait_for(lambda now: True, 'a first /clock message')
    [(end_index, end)] = clock.wait_for(lambda now: now >= start + 10.0, '10 s of sim time')
    ratio = (end - start) / (clock.arrival(end_index) - clock.arrival(start_index))
    assert ratio > 4.0, f'sim time ran only {ratio:.1f}x real time'
    ticks = clock.items()
    assert all(later > earlier for earlier, later in zip(ticks, ticks[1:]))
    assert all(abs(tick / STEP - round(tick / STEP)) < 1e-6 for tick in ticks)
    assert all(tick > 0 for tick in ticks[1:])
    odom_stamp = stamp_seconds(robot.odom.items()[-1].header.stamp)
    assert odom_stamp in ticks or odom_stamp > ticks[-1] - 1e-9

    # One cmd_vel moves the robot for cmd_vel_timeout (0.5 s): two 0.4 s steps.
    assert robot.odom.items()[-1].pose.pose.position.x == 0.0
    robot.cmd_vel(0.3)
    moving = robot.odom.first(lambda msg: msg.twist.twist.linear.x > 0.0, 'motion')
    assert moving.twist.twist.linear.x == pytest.approx(0.3)
    stopped = robot.odom_after(stamp_seconds(moving.header.stamp) + STEP, 'the stop')[0]
    assert is_still(stopped)
    assert stopped.pose.pose.position.x == pytest.approx(0.3 * 2 * STEP)


@pytest.mark.ros
def test_navigation_succeeds_deterministically_and_drains_battery(
        sim: Callable[..., Sim]) -> None:
    from bt_executive.sim.model import ModelParams, RobotModel
    from sensor_msgs.msg import BatteryState

    robot = sim('idle_drain:=0.0')  # only motion drains the battery
    first = robot.battery.first(lambda msg: True, 'a battery_state')
    assert first.percentage == 1.0 and first.present
    assert first.power_supply_status == BatteryState.POWER_SUPPLY_STATUS_DISCHARGING

    robot.send_goal(2.0, 0.0, sec=1)
    robot.wait_status(1, STATUS_EXECUTING)
    robot.wait_status(1, STATUS_SUCCEEDED)
    state = robot.state.first(lambda state: state['nav']['status'] == 'succeeded',
                              'the succeeded state')
    assert state['nav']['stamp'] == [1, 0]
    final = robot.odom_after(state['time'], 'odom after arrival', count=2)
    for msg in final:
        assert is_still(msg)
        position = msg.pose.pose.position
        assert math.hypot(position.x - 2.0, position.y) <= 0.1
    assert robot.feedback.items(), 'no navigate/feedback while driving'

    # Deterministic: the pure model with the same parameters and step ends at the same pose.
    model = RobotModel(ModelParams(idle_drain=0.0))
    model.navigate(2.0, 0.0, 'same goal')
    while model.navigating:
        model.step(STEP)
    position = final[0].pose.pose.position
    assert abs(position.x - model.x) <= 1e-6 and abs(position.y - model.y) <= 1e-6
    assert abs(odom_yaw(final[0]) - model.yaw) <= 1e-6

    # The battery drained by motion_drain (0.01) per metre driven.
    assert state['distance'] == pytest.approx(model.distance, abs=1e-9)
    assert 1.0 - state['battery'] == pytest.approx(0.01 * state['distance'], abs=1e-9)
    drained = robot.battery.first(lambda msg: msg.percentage < 0.99, 'a drained battery_state')
    assert drained.power_supply_status == BatteryState.POWER_SUPPLY_STATUS_DISCHARGING
    assert drained.voltage < first.voltage


@pytest.mark.ros
def test_estop_aborts_navigation_and_stops_at_the_next_step(sim: Callable[..., Sim]) -> None:
    robot = sim()
    robot.send_goal(9.0, 0.0, sec=7)
    robot.odom.first(lambda msg: msg.twist.twist.linear.x > 0.0, 'the robot driving')
    robot.estop(True)
    robot.estop_state.first(lambda engaged: engaged, 'the estop echo')
    robot.wait_status(7, STATUS_ABORTED)
    engaged = robot.state.first(lambda state: state['estop'], 'the estop state')
    assert engaged['nav']['status'] == 'aborted'
    assert engaged['nav']['reason'] == 'emergency stop engaged'
    after = robot.odom_after(engaged['time'], 'odom after the estop', count=3)
    assert stamp_seconds(after[0].header.stamp) == pytest.approx(engaged['time'] + STEP)
    assert all(is_still(msg) for msg in after)
    assert len({(msg.pose.pose.position.x, msg.pose.pose.position.y) for msg in after}) == 1

    robot.send_goal(1.0, 1.0, sec=8)  # refused while the estop is engaged
    robot.wait_status(8, STATUS_ABORTED)
    robot.estop(False)
    robot.estop_state.first(lambda engaged: not engaged, 'the release echo')
    released = robot.state.first(lambda state: state['time'] > engaged['time'] and
                                 not state['estop'], 'the released state')
    assert released['speed'] == 0.0  # releasing restarts nothing


@pytest.mark.ros
def test_cancel_replace_and_out_of_bounds_goals(sim: Callable[..., Sim]) -> None:
    robot = sim()
    robot.send_goal(9.0, 0.0, sec=3)
    robot.odom.first(lambda msg: msg.twist.twist.linear.x > 0.0, 'the robot driving')
    robot.cancel()
    robot.wait_status(3, STATUS_CANCELED)
    canceled = robot.state.first(lambda state: state['nav']['status'] == 'canceled',
                                 'the canceled state')
    after = robot.odom_after(canceled['time'], 'odom after the cancel', count=3)
    assert all(is_still(msg) for msg in after)
    assert after[0].pose.pose.position.x > 0.0
    assert len({msg.pose.pose.position.x for msg in after}) == 1

    robot.send_goal(20.0, 0.0, sec=4)
    robot.wait_status(4, STATUS_ABORTED)
    refused = robot.state.first(lambda state: state['nav']['goal'] == 2, 'the refusal')
    assert re.search(r'goal \(20\.00, 0\.00\) outside the world', refused['nav']['reason'])

    robot.send_goal(5.0, 5.0, sec=5)
    robot.wait_status(5, STATUS_EXECUTING)
    robot.send_goal(-5.0, 5.0, sec=6)  # replaces goal 5
    robot.wait_status(5, STATUS_CANCELED)
    robot.wait_status(6, STATUS_EXECUTING)
    robot.cancel()
    robot.wait_status(6, STATUS_CANCELED)
    last = robot.state.first(lambda state: state['nav']['goal'] == 4
                             and state['nav']['status'] == 'canceled', 'goal 6 canceled')
    assert last['results'] == {'aborted': 1, 'canceled': 3, 'succeeded': 0}

    # goal 6 sent again (a sender that heard nothing of it): the same goal, its status again
    robot.send_goal(-5.0, 5.0, sec=6)
    robot.status.wait_for(lambda msg: msg.goal_info.stamp.sec == 6
                          and msg.status == STATUS_CANCELED, 'goal 6 canceled, again', count=2)
    robot.send_goal(-5.0, 5.0, sec=7)  # a new stamp: a new goal, number 5
    robot.wait_status(7, STATUS_EXECUTING)
    assert robot.state.first(lambda state: state['nav']['goal'] == 5 and state['goals'] == 5,
                             'goal 7 numbered 5')['results']['canceled'] == 3


@pytest.mark.ros
def test_dock_charge_and_undock(sim: Callable[..., Sim]) -> None:
    from sensor_msgs.msg import BatteryState

    robot = sim('initial_battery:=0.5')
    response = robot.call('dock')
    assert not response.success
    assert response.message.startswith('not at the dock: 1.00 m away')
    response = robot.call('undock')
    assert (response.success, response.message) == (False, 'not docked')

    robot.send_goal(0.0, -1.0, sec=1)
    robot.wait_status(1, STATUS_SUCCEEDED)
    response = robot.call('dock')
    assert response.success, response.message
    docked = robot.state.first(lambda state: state['docked'], 'the docked state')
    assert docked['dock_count'] == 1
    charging = robot.battery.first(
        lambda msg: msg.power_supply_status == BatteryState.POWER_SUPPLY_STATUS_CHARGING,
        'a charging battery_state')
    robot.battery.first(lambda msg: msg.percentage > charging.percentage + 0.02,
                        'the charge to rise')
    robot.send_goal(2.0, 0.0, sec=2)  # refused while docked
    robot.wait_status(2, STATUS_ABORTED)
    full = robot.battery.first(
        lambda msg: msg.power_supply_status == BatteryState.POWER_SUPPLY_STATUS_FULL,
        'a full battery (about 10 s of sim time)')
    assert full.percentage == 1.0 and full.voltage == pytest.approx(12.6)

    response = robot.call('undock')
    assert (response.success, response.message) == (True, 'undocked')
    undocked = robot.state.first(lambda state: state['dock_count'] == 1
                                 and not state['docked'], 'the undocked state')
    assert math.hypot(undocked['x'], undocked['y'] + 1.0) <= 0.1  # it stays put
    assert robot.process.stop() == 0  # SIGINT: clean exit


@pytest.mark.ros
def test_without_publish_clock_it_follows_a_clock_published_elsewhere(
        sim: Callable[..., Sim], ros_node: Any) -> None:
    # a fleet's sims after the first: the clock jumps 0.25 s per message, 12x its step
    from builtin_interfaces.msg import Time
    from rosgraph_msgs.msg import Clock

    topic = f'/clock_{uuid.uuid4().hex[:8]}'
    robot = sim('publish_clock:=false', 'use_sim_time:=true', options=('-r', f'/clock:={topic}'))
    publisher = ros_node.create_publisher(Clock, topic, 10)
    now = [100.0]

    def tick() -> None:
        now[0] += 0.25
        publisher.publish(Clock(clock=Time(sec=int(now[0]), nanosec=int(now[0] % 1 * 1e9))))

    ros_node.create_timer(0.05, tick)
    # before the first /clock the node clock stands at 0: an odom published then (at
    # start-up) reaches us when discovery is quick; wait for one on the followed clock
    start = stamp_seconds(robot.odom.first(lambda msg: stamp_seconds(msg.header.stamp) > 0.0,
                                           'odom on the followed clock',
                                           timeout=DISCOVERY_TIMEOUT).header.stamp)
    assert start > 100.0
    robot.send_goal(4.0, 0.0, 7)
    robot.wait_status(7, STATUS_SUCCEEDED, timeout=60.0)
    arrived = robot.odom.first(lambda msg: msg.pose.pose.position.x >= 3.85, 'the arrival')
    # 3.85 m at 0.5 m/s take 7.7 s of the followed clock: not one 0.02 s step per message
    # (~150 s), not less; the goal's way to the sim may cost a few clock messages
    assert 7.7 - 0.3 <= stamp_seconds(arrived.header.stamp) - start <= 7.7 + 5.0


@pytest.mark.ros
def test_invalid_parameters_exit_with_status_1(spawn: Callable[..., SpawnedProcess]) -> None:
    process = spawn(SIM_SCRIPT, '--ros-args', '-p', 'world_min_x:=5.0', '-p', 'rate:=50')
    assert process.popen.wait(TIMEOUT) == 1
    assert 'invalid parameters' in process.stderr_text()


@pytest.mark.ros
@pytest.mark.parametrize('config', [CONFIG, CONFIG.with_name('sim_fast_drain.yaml')],
                         ids=lambda path: path.name)
def test_config_file_matches_the_declared_parameters(config: pathlib.Path) -> None:
    from bt_executive.sim.model import ModelParams
    from bt_executive.sim.robot import PARAMETERS
    import yaml

    document = yaml.safe_load(config.read_text(encoding='utf-8'))
    assert list(document) == ['/**/sim_robot']
    values = document['/**/sim_robot']['ros__parameters']
    assert set(values) == set(PARAMETERS)
    for name, value in values.items():
        assert type(value) is type(PARAMETERS[name][0]), name  # 50.0, not 50
    model_defaults = ModelParams()
    for name, (default, description, _limits) in PARAMETERS.items():
        assert description
        if hasattr(model_defaults, name):
            assert getattr(model_defaults, name) == default, name
