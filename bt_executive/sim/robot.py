# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The built-in simulated robot as a ROS 2 node: ``sim_robot`` (see docs/sim_robot.md).

``sim_robot --ros-args --params-file config/sim_robot.yaml -r __ns:=/robot1``

A :class:`~bt_executive.sim.model.RobotModel` stepped at ``rate`` Hz, exposed on standard
interfaces only: ``cmd_vel``, ``odom``, ``battery_state``,
``emergency_stop``, the ``dock``/``undock`` Trigger services, a topic-based navigation
protocol (``navigate/goal``, ``navigate/cancel``, ``navigate/status``,
``navigate/feedback``) and a JSON summary on ``sim_state``. With ``publish_clock`` the
node owns time: it publishes ``/clock``, advancing ``time_scale / rate`` simulated
seconds per step, and stamps everything with that time; without it the node follows its
clock (a ``/clock`` published elsewhere with ``use_sim_time``) by the elapsed time.
When ``nav2_msgs`` works (the ``nav2`` parameter), it also serves Nav2's
``navigate_to_pose``, ``dock_robot`` and ``undock_robot`` actions
(:mod:`bt_executive.sim.nav2_server`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import signal
import sys
from typing import Any, cast, Optional

from action_msgs.msg import GoalInfo, GoalStatus
from bt_executive.ros.spin import make_executor, timer_callback
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT, ExitWatchdog
from bt_executive.sim.follow import ClockFollower
from bt_executive.sim.model import (ABORTED, CANCELED, ModelParams, NavEvent, RobotModel,
                                    STATUS_NAMES)
from bt_executive.sim.nav2 import is_nav2_key, Nav2Sim
from bt_executive.sim.nav2_server import Nav2Unavailable, parse_mode, serve
from builtin_interfaces.msg import Time as TimeMsg
from geometry_msgs.msg import PoseStamped, Twist
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
import rclpy
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import BatteryState
from std_msgs.msg import Bool, String
from std_srvs.srv import Trigger

NODE_NAME = 'sim_robot'
STATUS_RATE = 5.0
"""Hz (simulated time): EXECUTING status and feedback while a goal is active."""
SIM_STATE_RATE = 2.0
"""Hz (simulated time): the ``sim_state`` summary."""

#: name -> (default, description, (min, max) or None) of every ROS parameter.
PARAMETERS: dict[str, tuple[Any, str, Optional[tuple[float, float]]]] = {
    'start_x': (0.0, 'initial x position in the odom frame (m)', None),
    'start_y': (0.0, 'initial y position in the odom frame (m)', None),
    'start_yaw': (0.0, 'initial heading (rad)', (-2 * math.pi, 2 * math.pi)),
    'dock_x': (0.0, 'x of the dock (m)', None),
    'dock_y': (-1.0, 'y of the dock (m)', None),
    'dock_tolerance': (0.3, 'the dock service succeeds within this distance of the dock (m)',
                       (0.01, 100.0)),
    'max_linear_speed': (0.5, 'linear speed limit; navigation drives at this speed (m/s)',
                         (0.01, 100.0)),
    'max_angular_speed': (1.5, 'angular speed limit (rad/s)', (0.01, 100.0)),
    'goal_tolerance': (0.1, 'navigation succeeds within this distance of the goal (m)',
                       (0.001, 100.0)),
    'navigation_timeout': (120.0, 'a goal is aborted after this long (s, simulated time)',
                           (0.1, 1e6)),
    'world_min_x': (-10.0, 'world bound: goals outside the world are aborted (m)', None),
    'world_max_x': (10.0, 'world bound (m)', None),
    'world_min_y': (-10.0, 'world bound (m)', None),
    'world_max_y': (10.0, 'world bound (m)', None),
    'initial_battery': (1.0, 'battery charge at start (0..1)', (0.0, 1.0)),
    'idle_drain': (0.002, 'battery fraction used per second while undocked', (0.0, 1.0)),
    'motion_drain': (0.01, 'extra battery fraction used per second per m/s', (0.0, 1.0)),
    'charge_rate': (0.05, 'battery fraction gained per second while docked', (0.0, 1.0)),
    'empty_voltage': (11.0, 'battery voltage at 0 % (V)', (0.0, 1000.0)),
    'full_voltage': (12.6, 'battery voltage at 100 % (V)', (0.0, 1000.0)),
    'rate': (50.0, 'physics steps per second (Hz; steady clock with publish_clock, '
             'else the node clock)', (1.0, 1000.0)),
    'battery_rate': (5.0, 'battery_state publication rate (Hz, simulated time)',
                     (0.01, 1000.0)),
    'publish_clock': (False, 'own the time: publish /clock and stamp with simulated time',
                      None),
    'time_scale': (1.0, 'simulated seconds per wall second when publish_clock is true',
                   (0.01, 1000.0)),
    'cmd_vel_timeout': (0.5, 'a cmd_vel command stops after this long (s, simulated time)',
                        (0.01, 60.0)),
    'nav2': ('auto', "serve Nav2's navigate_to_pose, dock_robot and undock_robot actions: "
             "'auto' when nav2_msgs works, 'true' (exit 2 if it does not), 'false'", None),
    'dock_id': ('home_dock', 'the id of the dock in DockRobot goals', None),
}

_MODEL_FIELDS = frozenset(field.name for field in dataclasses.fields(ModelParams))

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
"""Reliable + transient local, depth 1: late subscribers get the latest message."""
STATUS_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
"""``navigate/status``: reliable, transient local, depth 10 (the last ten statuses)."""


def _descriptor(name: str, description: str,
                limits: Optional[tuple[float, float]]) -> ParameterDescriptor:
    """Return a read-only descriptor with the description and the range, if any."""
    descriptor = ParameterDescriptor(name=name, description=description, read_only=True,
                                     dynamic_typing=name == 'nav2')  # 'auto' or a bool
    if limits is not None:
        descriptor.floating_point_range = [
            FloatingPointRange(from_value=float(limits[0]), to_value=float(limits[1]),
                               step=0.0)]
    return descriptor


def _quaternion_from_yaw(yaw: float) -> tuple[float, float]:
    """Return (z, w) of the quaternion for a rotation of ``yaw`` about z."""
    return math.sin(yaw / 2.0), math.cos(yaw / 2.0)


def _periods_passed(now_ns: int, period: float) -> int:
    """Return how many whole ``period`` seconds fit in ``now_ns`` nanoseconds."""
    return now_ns // max(1, round(period * 1e9))


class SimRobot(Node):
    """The simulated robot node: steps a :class:`RobotModel` and serves its interfaces.

    All topic and service names are relative, so the node's namespace prefixes them;
    ``/clock`` is absolute. Parameters are read once at start-up (read-only).

    Attributes:
        model: The simulation.
        publish_clock: Whether this node owns time and publishes ``/clock``.
        step_ns: Simulated nanoseconds per step.
    """

    def __init__(self, **kwargs: Any) -> None:
        """Declare the parameters, create the model and the interfaces, start stepping.

        Args:
            **kwargs: Passed to :class:`rclpy.node.Node` (e.g. ``namespace``,
                ``parameter_overrides``, ``context``).

        Raises:
            ValueError: If the parameters are inconsistent (e.g. world_min_x >= world_max_x).
            rclpy.exceptions.ParameterException: If a parameter has the wrong type or is
                out of its range.
        """
        super().__init__(NODE_NAME, **kwargs)
        values = {name: self.declare_parameter(
            name, default, _descriptor(name, description, limits)).value
            for name, (default, description, limits) in PARAMETERS.items()}
        self.model = RobotModel(ModelParams(**{name: value for name, value in values.items()
                                               if name in _MODEL_FIELDS}))
        self.publish_clock = bool(values['publish_clock'])
        rate = float(values['rate'])
        scale = float(values['time_scale']) if self.publish_clock else 1.0
        following = self.get_parameter('use_sim_time').value
        if not self.publish_clock and not following and values['time_scale'] != 1.0:
            self.get_logger().warning('time_scale only applies with publish_clock:=true; '
                                      'ignored')
        self.step_ns = max(1, round(1e9 * scale / rate))
        self._sim_ns = 0
        # not owning time: advance by the node clock's elapsed time (a followed /clock)
        self._follower = None if self.publish_clock else ClockFollower(1.0 / rate)
        self._battery_period = 1.0 / float(values['battery_rate'])
        self._ticks = {'battery': -1, 'status': -1, 'state': -1}

        self._odom_pub = self.create_publisher(Odometry, 'odom', 10)
        self._battery_pub = self.create_publisher(BatteryState, 'battery_state', 10)
        self._estop_pub = self.create_publisher(Bool, 'emergency_stop_state', LATCHED)
        self._status_pub = self.create_publisher(GoalStatus, 'navigate/status', STATUS_QOS)
        self._feedback_pub = self.create_publisher(PoseStamped, 'navigate/feedback', 10)
        self._state_pub = self.create_publisher(String, 'sim_state', LATCHED)
        self._clock_pub = (self.create_publisher(ClockMsg, '/clock', 10)
                           if self.publish_clock else None)
        self.create_subscription(Twist, 'cmd_vel', self._on_cmd_vel, 10)
        self.create_subscription(Bool, 'emergency_stop', self._on_emergency_stop, 10)
        self.create_subscription(PoseStamped, 'navigate/goal', self._on_goal, 10)
        self.create_subscription(GoalInfo, 'navigate/cancel', self._on_cancel, 10)
        self.create_service(Trigger, 'dock', self._on_dock)
        self.create_service(Trigger, 'undock', self._on_undock)
        # Owning time: step on the steady clock, so the node's own clock (possibly
        # use_sim_time, fed by our /clock) never drives the steps. Otherwise the node clock
        # paces the steps (so an external /clock also paces them).
        timer_clock = Clock(clock_type=ClockType.STEADY_TIME) if self.publish_clock else None
        self._timer = self.create_timer(1.0 / rate, timer_callback(self._step),
                                        clock=timer_clock)
        self.nav2 = serve(self, self.model, parse_mode(values['nav2']),
                          dock_id=str(values['dock_id']), report=self._publish_events,
                          stamp=self._stamp)

        if self._clock_pub is not None:
            self._clock_pub.publish(ClockMsg(clock=self._stamp()))
        self._estop_pub.publish(Bool(data=False))
        self._publish_odom()
        self._publish_battery()
        self._publish_state()
        self.get_logger().info(
            f'sim_robot ready at ({self.model.x:g}, {self.model.y:g}); '
            + (f'step {self.step_ns / 1e9:g} s every {1.0 / rate:g} s (publishing /clock, '
               f'x{scale:g})' if self.publish_clock else
               f"following the {'/clock' if following else 'system'} clock in steps of at "
               f'most {1.0 / rate:g} s'))

    # --- time ------------------------------------------------------------------------

    def _stamp(self) -> TimeMsg:
        """Return the stamp for messages: simulated time if owned, else the node clock."""
        if self.publish_clock:
            return TimeMsg(sec=self._sim_ns // 10 ** 9, nanosec=self._sim_ns % 10 ** 9)
        return self.get_clock().now().to_msg()

    def _due(self, name: str, period: float) -> bool:
        """Return whether a periodic publication is due this step (at most once a step)."""
        tick = _periods_passed(self._sim_ns, period)
        if tick == self._ticks[name]:
            return False
        self._ticks[name] = tick
        return True

    # --- the step --------------------------------------------------------------------

    def _step(self) -> None:
        """Advance the model (a fixed step, or the node clock's elapsed time); publish."""
        if self._follower is None:
            steps = [self.step_ns / 1e9]
            self._sim_ns += self.step_ns
        else:
            steps = self._follower.advance(self.get_clock().now().nanoseconds)
            if not steps:
                return
            self._sim_ns = cast(int, self._follower.last_ns)
        events = [event for dt in steps for event in self.model.step(dt)]
        if self._clock_pub is not None:
            self._clock_pub.publish(ClockMsg(clock=self._stamp()))
        self._publish_odom()
        self._publish_events(events)
        if self.nav2 is not None:
            self.nav2.step()
        if self._due('battery', self._battery_period):
            self._publish_battery()
        if self._due('status', 1.0 / STATUS_RATE):
            self._publish_progress()
        if self._due('state', 1.0 / SIM_STATE_RATE) or events:
            self._publish_state()

    # --- publications ----------------------------------------------------------------

    def _publish_odom(self) -> None:
        """Publish the pose and the velocities of the last step on ``odom``."""
        model = self.model
        msg = Odometry()
        msg.header.stamp = self._stamp()
        msg.header.frame_id = 'odom'
        msg.child_frame_id = 'base_link'
        msg.pose.pose.position.x = model.x
        msg.pose.pose.position.y = model.y
        msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = \
            _quaternion_from_yaw(model.yaw)
        msg.twist.twist.linear.x = model.linear
        msg.twist.twist.angular.z = model.angular
        self._odom_pub.publish(msg)

    def _publish_battery(self) -> None:
        """Publish ``battery_state`` (unmeasured fields are NaN, as the message asks)."""
        model = self.model
        status = {'full': BatteryState.POWER_SUPPLY_STATUS_FULL,
                  'charging': BatteryState.POWER_SUPPLY_STATUS_CHARGING,
                  'discharging': BatteryState.POWER_SUPPLY_STATUS_DISCHARGING}
        nan = math.nan
        msg = BatteryState(
            voltage=model.voltage, temperature=nan, current=nan, charge=nan, capacity=nan,
            design_capacity=nan, percentage=model.battery,
            power_supply_status=status[model.power_supply],
            power_supply_health=(BatteryState.POWER_SUPPLY_HEALTH_DEAD if model.battery <= 0.0
                                 else BatteryState.POWER_SUPPLY_HEALTH_GOOD),
            power_supply_technology=BatteryState.POWER_SUPPLY_TECHNOLOGY_LION,
            present=True, location='base_link', serial_number='sim')
        msg.header.stamp = self._stamp()
        msg.header.frame_id = 'base_link'
        self._battery_pub.publish(msg)

    def _publish_status(self, key: tuple[int, int], number: int, status: int) -> None:
        """Publish one ``navigate/status`` message for the goal stamped ``key``."""
        msg = GoalStatus(status=status)
        msg.goal_info.stamp = TimeMsg(sec=key[0], nanosec=key[1])
        msg.goal_info.goal_id.uuid = list(number.to_bytes(16, 'big'))
        self._status_pub.publish(msg)

    def _publish_events(self, events: list[NavEvent]) -> None:
        """Publish navigation events as statuses (Nav2 goals: as results) and log them."""
        for event in events:
            if is_nav2_key(event.goal):
                name = Nav2Sim.key_text(event.goal)
            else:
                key = cast(tuple[int, int], event.goal)
                self._publish_status(key, event.number, event.status)
                name = f'stamp {key[0]}.{key[1]:09d}'
            text = (f'goal {event.number} ({name}) '
                    f'{STATUS_NAMES[event.status]}: {event.reason}')
            # rclpy fixes a logging call site's severity: one call per severity.
            if event.status in (ABORTED, CANCELED):
                self.get_logger().warning(text)
            else:
                self.get_logger().info(text)
        if self.nav2 is not None and events:
            self.nav2.on_events(events)

    def _publish_progress(self) -> None:
        """While a goal is active: repeat its EXECUTING status and publish the pose."""
        if self.nav2 is not None:
            self.nav2.publish_feedback()
        goal = self.model.goal
        if goal is None or is_nav2_key(goal[0]):
            return
        key, number, _x, _y = goal
        self._publish_status(cast(tuple[int, int], key), number, GoalStatus.STATUS_EXECUTING)
        msg = PoseStamped()
        msg.header.stamp = self._stamp()
        msg.header.frame_id = 'odom'
        msg.pose.position.x = self.model.x
        msg.pose.position.y = self.model.y
        msg.pose.orientation.z, msg.pose.orientation.w = _quaternion_from_yaw(self.model.yaw)
        self._feedback_pub.publish(msg)

    def _publish_state(self) -> None:
        """Publish the JSON summary on ``sim_state``."""
        state = self.model.state()
        event = self.model.last_event
        state['nav']['stamp'] = (None if event is None or is_nav2_key(event.goal)
                                 else list(cast(tuple, event.goal)))
        self._state_pub.publish(String(data=json.dumps(state, sort_keys=True)))

    # --- callbacks -------------------------------------------------------------------

    def _on_cmd_vel(self, msg: Twist) -> None:
        """Take a velocity command (ignored while estopped, docked or navigating)."""
        self.model.command_velocity(msg.linear.x, msg.angular.z)

    def _on_emergency_stop(self, msg: Bool) -> None:
        """Engage or release the emergency stop; echo it; abort navigation on engaging."""
        changed = bool(msg.data) != self.model.estop
        events = self.model.set_emergency_stop(msg.data)
        if changed:
            self._estop_pub.publish(Bool(data=self.model.estop))
            if self.model.estop:
                self.get_logger().warning('emergency stop ENGAGED')
            else:
                self.get_logger().info('emergency stop released')
            self._publish_events(events)
            self._publish_state()

    def _on_goal(self, msg: PoseStamped) -> None:
        """Start a navigation goal identified by its header stamp."""
        key = (msg.header.stamp.sec, msg.header.stamp.nanosec)
        count = self.model.goal_count
        events = self.model.navigate(msg.pose.position.x, msg.pose.position.y, key,
                                     msg.header.frame_id, repeatable=key != (0, 0))
        if self.model.goal_count == count:  # the same goal sent again: say where it stands
            for event in events:
                self._publish_status(key, event.number, event.status)
                self.get_logger().info(f'goal {event.number} (stamp {key[0]}.{key[1]:09d}) '
                                       f'sent again: {STATUS_NAMES[event.status]}')
            return
        self._publish_events(events)
        self._publish_state()

    def _on_cancel(self, msg: GoalInfo) -> None:
        """Cancel the goal whose stamp is ``msg.stamp`` (a zero stamp: the active goal)."""
        stamp = (msg.stamp.sec, msg.stamp.nanosec)
        events = self.model.cancel(None if stamp == (0, 0) else stamp)
        if not events:
            self.get_logger().info(f'cancel for stamp {stamp[0]}.{stamp[1]:09d}: '
                                   'no such active goal')
        self._publish_events(events)
        self._publish_state()

    def _on_dock(self, request: Trigger.Request,
                 response: Trigger.Response) -> Trigger.Response:
        """Dock if close enough to the dock."""
        response.success, response.message = self.model.dock()
        self.get_logger().info(f'dock: {response.message}')
        self._publish_battery()
        self._publish_state()
        return response

    def _on_undock(self, request: Trigger.Request,
                   response: Trigger.Response) -> Trigger.Response:
        """Undock if docked."""
        response.success, response.message = self.model.undock()
        self.get_logger().info(f'undock: {response.message}')
        self._publish_battery()
        self._publish_state()
        return response


def main(args: Optional[list[str]] = None) -> int:
    """Run the simulated robot until SIGINT, SIGTERM or SIGHUP.

    ``sim_robot --robots N`` (or ``--namespaces a b``) runs N robots, robot1 .. robotN,
    in this one process on one executor (a fleet on a small machine; the ROS arguments
    apply to each, and only the first may publish ``/clock``).

    Args:
        args: Command line (ROS arguments); None uses ``sys.argv``.

    Returns:
        0 on a normal end (including SIGINT/SIGTERM/SIGHUP, as ROS nodes do); 1 if the
        parameters are invalid, or if releasing ROS entities hangs (the exit watchdog);
        2 for bad arguments.
    """
    parser = argparse.ArgumentParser(
        prog='sim_robot', description='The simulated robot (docs/sim_robot.md); ROS '
        'parameters go after --ros-args.')
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--robots', type=int, help='run robot1 .. robotN in this process')
    group.add_argument('--namespaces', nargs='+', help='run one robot per namespace')
    options = parser.parse_args(remove_ros_args(sys.argv if args is None else args)[1:])
    if options.robots is not None and options.robots < 1:
        parser.error(f'--robots {options.robots}: expected at least 1')
    namespaces: list[Optional[str]] = [None]
    if options.namespaces:
        namespaces = ['/' + name.strip('/') for name in options.namespaces]
    elif options.robots:
        namespaces = [f'/robot{index}' for index in range(1, options.robots + 1)]
    return run_robots(args, namespaces)


def run_robots(args: Optional[list[str]], namespaces: list[Optional[str]]) -> int:
    """Run one simulated robot per namespace (None: the command line's) on one executor.

    Only the first may publish ``/clock`` (``publish_clock``): the others follow it.
    Returns the exit status described in :func:`main`.
    """
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    received: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        received.append(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    nodes: list[SimRobot] = []
    # the executive's executor (bt_executive/ros/spin.py): the EventsExecutor's cheaper
    # wake-ups took one robot's steady CPU from 10.4 % of a core to 4.5 % (demo config:
    # 50 steps a second, each publishing /clock, odom and battery_state)
    executor = make_executor()
    try:
        try:
            for index, namespace in enumerate(namespaces):
                kwargs: dict[str, Any] = {} if namespace is None else {'namespace': namespace}
                if index:  # exactly one clock source
                    kwargs['parameter_overrides'] = [Parameter('publish_clock', value=False)]
                nodes.append(SimRobot(**kwargs))
                executor.add_node(nodes[-1])
        except Nav2Unavailable as exc:
            print(f'{NODE_NAME}: {exc}', file=sys.stderr)
            return 2
        except (ValueError, ParameterException) as exc:
            print(f'{NODE_NAME}: invalid parameters: {exc}', file=sys.stderr)
            return 1
        while rclpy.ok() and not received:
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    finally:
        # the robot stops with this process; releasing ROS entities can block under load
        watchdog = ExitWatchdog(CLEANUP_TIMEOUT)
        for node in nodes:
            if node.nav2 is not None:
                node.nav2.destroy()
            executor.remove_node(node)
            node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
        watchdog.cancel()
    return 0


if __name__ == '__main__':
    sys.exit(main())
