# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The pure simulation behind ``sim_robot``: a unicycle robot with battery, dock and navigation.

No ROS import: the ROS node (:mod:`bt_executive.sim.robot`) feeds commands in and steps the
model with a fixed time step; tests drive it directly. Everything is deterministic: the
same parameters and the same sequence of calls give bit-for-bit the same states.

Units: metres, radians, seconds (simulated time), battery as a fraction 0..1.

Navigation statuses use the numbers of ``action_msgs/msg/GoalStatus`` (without importing
it): :data:`EXECUTING`, :data:`SUCCEEDED`, :data:`CANCELED`, :data:`ABORTED`.
"""

from __future__ import annotations

import collections
from collections.abc import Hashable
import dataclasses
import math
from typing import Any, Optional

EXECUTING = 2
"""Goal status: accepted and being driven to (``GoalStatus.STATUS_EXECUTING``)."""
SUCCEEDED = 4
"""Goal status: arrived within ``goal_tolerance`` (``GoalStatus.STATUS_SUCCEEDED``)."""
CANCELED = 5
"""Goal status: cancelled or replaced by a newer goal (``GoalStatus.STATUS_CANCELED``)."""
ABORTED = 6
"""Goal status: refused or given up, with a reason (``GoalStatus.STATUS_ABORTED``)."""

STATUS_NAMES = {EXECUTING: 'executing', SUCCEEDED: 'succeeded', CANCELED: 'canceled',
                ABORTED: 'aborted'}
"""Lower-case names of the statuses, as used in :meth:`RobotModel.state`."""

GOAL_FRAMES = ('', 'odom', 'map')
"""Goal frames accepted by :meth:`RobotModel.navigate` (all mean the odom frame)."""

REMEMBERED_GOALS = 16
"""Goals whose latest event the model keeps: one of them sent again is not a new goal."""

HEADING_THRESHOLD = 0.5
"""Heading error (rad) above which the navigation controller turns in place."""
HEADING_GAIN = 2.0
"""Proportional gain (1/s) from heading error to angular velocity."""
DISTANCE_GAIN = 1.0
"""Proportional gain (1/s) from distance to the goal to linear velocity (slows near it)."""


@dataclasses.dataclass(frozen=True)
class ModelParams:
    """Parameters of :class:`RobotModel`; the defaults are those of the ROS node.

    Attributes:
        start_x: Initial x (m).
        start_y: Initial y (m).
        start_yaw: Initial heading (rad).
        dock_x: Dock x (m).
        dock_y: Dock y (m).
        dock_tolerance: Distance to the dock within which docking succeeds (m).
        max_linear_speed: Linear speed limit (m/s); navigation drives at this speed.
        max_angular_speed: Angular speed limit (rad/s).
        goal_tolerance: Distance to the goal at which navigation succeeds (m).
        navigation_timeout: Simulated seconds after which a goal is aborted.
        world_min_x: World bound (m); goals outside are aborted, motion stops at it.
        world_max_x: World bound (m).
        world_min_y: World bound (m).
        world_max_y: World bound (m).
        initial_battery: Battery charge at start (0..1).
        idle_drain: Battery fraction used per second when not moving.
        motion_drain: Extra battery fraction used per second per m/s of speed.
        charge_rate: Battery fraction gained per second while docked.
        empty_voltage: Voltage at 0 % (V).
        full_voltage: Voltage at 100 % (V).
        cmd_vel_timeout: Simulated seconds a velocity command stays in force.
    """

    start_x: float = 0.0
    start_y: float = 0.0
    start_yaw: float = 0.0
    dock_x: float = 0.0
    dock_y: float = -1.0
    dock_tolerance: float = 0.3
    max_linear_speed: float = 0.5
    max_angular_speed: float = 1.5
    goal_tolerance: float = 0.1
    navigation_timeout: float = 120.0
    world_min_x: float = -10.0
    world_max_x: float = 10.0
    world_min_y: float = -10.0
    world_max_y: float = 10.0
    initial_battery: float = 1.0
    idle_drain: float = 0.002
    motion_drain: float = 0.01
    charge_rate: float = 0.05
    empty_voltage: float = 11.0
    full_voltage: float = 12.6
    cmd_vel_timeout: float = 0.5

    def __post_init__(self) -> None:
        """Check the parameters together.

        Raises:
            ValueError: With every problem found, one per line.
        """
        problems = [f'{field.name} must be a finite number, got {getattr(self, field.name)!r}'
                    for field in dataclasses.fields(self)
                    if not isinstance(getattr(self, field.name), (int, float))
                    or not math.isfinite(getattr(self, field.name))]
        if problems:
            raise ValueError('\n'.join(problems))
        positive = ('dock_tolerance', 'max_linear_speed', 'max_angular_speed',
                    'goal_tolerance', 'navigation_timeout', 'cmd_vel_timeout')
        non_negative = ('idle_drain', 'motion_drain', 'charge_rate', 'empty_voltage')
        problems += [f'{name} must be > 0, got {getattr(self, name)}'
                     for name in positive if getattr(self, name) <= 0]
        problems += [f'{name} must be >= 0, got {getattr(self, name)}'
                     for name in non_negative if getattr(self, name) < 0]
        if not 0.0 <= self.initial_battery <= 1.0:
            problems.append(f'initial_battery must be in [0, 1], got {self.initial_battery}')
        if self.full_voltage < self.empty_voltage:
            problems.append(f'full_voltage ({self.full_voltage}) must be >= empty_voltage '
                            f'({self.empty_voltage})')
        for axis in ('x', 'y'):
            low, high = getattr(self, f'world_min_{axis}'), getattr(self, f'world_max_{axis}')
            if low >= high:
                problems.append(f'world_min_{axis} ({low}) must be < world_max_{axis} ({high})')
        if not problems and not self.inside(self.start_x, self.start_y):
            problems.append(f'the start ({self.start_x}, {self.start_y}) is outside the world '
                            f'{self.bounds_text()}')
        if problems:
            raise ValueError('\n'.join(problems))

    def inside(self, x: float, y: float) -> bool:
        """Return whether the point is inside the world bounds (bounds included)."""
        return (self.world_min_x <= x <= self.world_max_x
                and self.world_min_y <= y <= self.world_max_y)

    def bounds_text(self) -> str:
        """Return the world bounds as text, e.g. ``'x in [-10, 10], y in [-10, 10]'``."""
        return (f'x in [{self.world_min_x:g}, {self.world_max_x:g}], '
                f'y in [{self.world_min_y:g}, {self.world_max_y:g}]')


@dataclasses.dataclass(frozen=True)
class NavEvent:
    """A navigation status change to report.

    Attributes:
        goal: The goal's key as given to :meth:`RobotModel.navigate` (the ROS node uses
            the goal's header stamp).
        number: The goal's sequence number in this model (1 for the first goal).
        status: :data:`EXECUTING`, :data:`SUCCEEDED`, :data:`CANCELED` or :data:`ABORTED`.
        reason: Why, in words (e.g. ``'emergency stop engaged'``).
    """

    goal: Hashable
    number: int
    status: int
    reason: str

    @property
    def terminal(self) -> bool:
        """Return whether the status is final for the goal."""
        return self.status != EXECUTING


@dataclasses.dataclass
class _Goal:
    """The active navigation goal."""

    x: float
    y: float
    key: Hashable
    number: int
    started: float


def wrap_angle(angle: float) -> float:
    """Return ``angle`` wrapped to [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def _clamp(value: float, limit: float) -> float:
    """Return ``value`` limited to [-limit, limit]."""
    return max(-limit, min(limit, value))


class RobotModel:
    """A unicycle robot with battery, dock, emergency stop and a go-to-point navigator.

    Commands (:meth:`command_velocity`, :meth:`navigate`, :meth:`cancel`,
    :meth:`set_emergency_stop`, :meth:`dock`, :meth:`undock`) take effect at the next
    :meth:`step`; navigation status changes are returned as :class:`NavEvent` lists.

    Attributes:
        params: The parameters.
        time: Simulated seconds since the start (sum of the steps).
        x: Position x (m).
        y: Position y (m).
        yaw: Heading (rad, in [-pi, pi)).
        linear: Linear velocity applied during the last step (m/s).
        angular: Angular velocity applied during the last step (rad/s).
        battery: Charge, 0..1.
        docked: Whether the robot is docked (and charging).
        estop: Whether the emergency stop is engaged.
        distance: Total path length driven (m).
        dock_count: Successful dockings so far.
        goal_count: Navigation goals received so far.
        last_event: The latest navigation event, or None before the first goal.
        status_counts: Terminal navigation events so far, by status name.
    """

    def __init__(self, params: Optional[ModelParams] = None) -> None:
        """Create the robot at the start pose, stopped, undocked, estop released."""
        self.params = params or ModelParams()
        self.time = 0.0
        self.x = float(self.params.start_x)
        self.y = float(self.params.start_y)
        self.yaw = wrap_angle(float(self.params.start_yaw))
        self.linear = 0.0
        self.angular = 0.0
        self.battery = float(self.params.initial_battery)
        self.docked = False
        self.estop = False
        self.distance = 0.0
        self.dock_count = 0
        self.goal_count = 0
        self.last_event: Optional[NavEvent] = None
        self.status_counts = {name: 0 for status, name in STATUS_NAMES.items()
                              if status != EXECUTING}
        self._goal: Optional[_Goal] = None
        #: the last goals by key: their (x, y, frame) and latest event (a goal sent again)
        self._latest: collections.OrderedDict[
            Hashable, tuple[tuple[float, float, str], NavEvent]] = collections.OrderedDict()
        self._command = (0.0, 0.0)
        self._command_expires = -math.inf

    # --- queries -------------------------------------------------------------------

    @property
    def navigating(self) -> bool:
        """Return whether a navigation goal is active."""
        return self._goal is not None

    @property
    def goal(self) -> Optional[tuple[Hashable, int, float, float]]:
        """Return the active goal as (key, number, x, y), or None."""
        goal = self._goal
        return None if goal is None else (goal.key, goal.number, goal.x, goal.y)

    @property
    def voltage(self) -> float:
        """Return the battery voltage, linear between the empty and full voltages."""
        params = self.params
        return params.empty_voltage + (params.full_voltage - params.empty_voltage) * self.battery

    @property
    def power_supply(self) -> str:
        """Return ``'full'`` (docked at 100 %), ``'charging'`` (docked) or ``'discharging'``."""
        if self.docked:
            return 'full' if self.battery >= 1.0 else 'charging'
        return 'discharging'

    def distance_to_dock(self) -> float:
        """Return the distance from the robot to the dock (m)."""
        return math.hypot(self.params.dock_x - self.x, self.params.dock_y - self.y)

    def state(self) -> dict[str, Any]:
        """Return the state as a JSON-ready dictionary (the ``sim_state`` topic's content)."""
        event = self.last_event
        nav: dict[str, Any] = {'status': 'none', 'reason': '', 'goal': 0, 'target': None}
        if event is not None:
            nav.update(status=STATUS_NAMES[event.status], reason=event.reason,
                       goal=event.number)
        if self._goal is not None:
            nav['target'] = [self._goal.x, self._goal.y]
        return {
            'time': self.time, 'x': self.x, 'y': self.y, 'yaw': self.yaw,
            'speed': self.linear, 'angular_speed': self.angular,
            'battery': self.battery, 'voltage': self.voltage,
            'power_supply': self.power_supply, 'docked': self.docked, 'estop': self.estop,
            'nav': nav, 'goals': self.goal_count, 'results': dict(self.status_counts),
            'distance': self.distance, 'dock_count': self.dock_count,
        }

    # --- commands ------------------------------------------------------------------

    def command_velocity(self, linear: float, angular: float) -> bool:
        """Set the velocity command for the next ``cmd_vel_timeout`` simulated seconds.

        Values are clamped to the speed limits. The command is ignored (returns False)
        while the emergency stop is engaged, while docked, while navigating (the
        navigator drives) and when a value is not finite.

        Returns:
            Whether the command was taken.
        """
        if (self.estop or self.docked or self._goal is not None
                or not (math.isfinite(linear) and math.isfinite(angular))):
            return False
        self._command = (_clamp(linear, self.params.max_linear_speed),
                         _clamp(angular, self.params.max_angular_speed))
        self._command_expires = self.time + self.params.cmd_vel_timeout
        return True

    def set_emergency_stop(self, engaged: bool) -> list[NavEvent]:
        """Engage or release the emergency stop.

        Engaging drops the velocity command and aborts the active goal; the velocity is
        zero from the next step on. Releasing does not restart anything.

        Returns:
            The ABORTED event of the goal, if one was active.
        """
        engaged = bool(engaged)
        if engaged == self.estop:
            return []
        self.estop = engaged
        if not engaged:
            return []
        self._stop_command()
        return self._finish(ABORTED, 'emergency stop engaged')

    def navigate(self, x: float, y: float, key: Hashable, frame: str = '',
                 repeatable: bool = True) -> list[NavEvent]:
        """Start driving to (x, y); the goal replaces the active one, which is CANCELED.

        The goal is ABORTED at once if its frame is not one of :data:`GOAL_FRAMES`, a
        coordinate is not finite, the emergency stop is engaged, the robot is docked,
        the battery is empty or the point is outside the world bounds.

        Args:
            x: Goal x (m).
            y: Goal y (m).
            key: Identifies the goal in the returned events (the ROS node uses the goal
                message's header stamp).
            frame: The goal's frame id.
            repeatable: Whether the goal may be an earlier one sent again (the ROS node
                says no for a zero stamp: no stamp set).

        Returns:
            The events: the old goal's CANCELED (if any), then the new goal's EXECUTING
            or ABORTED. A goal with the key, point and frame of one of the last
            :data:`REMEMBERED_GOALS` goals is that goal sent again (by a sender that heard
            no status about it): nothing changes, and the one event returned is that
            goal's latest.
        """
        target = (x, y, frame)
        known = self._latest.get(key) if repeatable else None
        if known is not None and known[0] == target:
            return [known[1]]
        events = self._finish(CANCELED, 'replaced by a new goal')
        self.goal_count += 1
        goal = _Goal(x=x, y=y, key=key, number=self.goal_count, started=self.time)
        reason = self._refusal(x, y, frame)
        if reason:
            event = NavEvent(key, goal.number, ABORTED, reason)
            self.status_counts[STATUS_NAMES[ABORTED]] += 1
        else:
            self._goal = goal
            self._stop_command()
            event = NavEvent(key, goal.number, EXECUTING,
                             f'driving to ({x:.2f}, {y:.2f})')
        self._latest.pop(key, None)
        self._latest[key] = (target, event)
        while len(self._latest) > REMEMBERED_GOALS:
            self._latest.popitem(last=False)
        self.last_event = event
        return events + [event]

    def cancel(self, key: Optional[Hashable] = None) -> list[NavEvent]:
        """Cancel the active goal (the robot stops at the next step).

        Args:
            key: cancel only if the active goal has this key (None: whichever is active);
                a cancel meant for a goal that was already replaced must not stop the
                goal that replaced it

        Returns:
            The CANCELED event, or nothing when no (matching) goal is active.
        """
        if key is not None and (self._goal is None or self._goal.key != key):
            return []
        return self._finish(CANCELED, 'canceled')

    def dock(self) -> tuple[bool, str]:
        """Dock (and start charging) if the robot is within ``dock_tolerance`` of the dock.

        Returns:
            (success, message); the message says why docking failed.
        """
        if self.docked:
            return True, 'already docked'
        if self._goal is not None:
            return False, 'navigating: wait for the goal to finish or cancel it'
        distance = self.distance_to_dock()
        if distance > self.params.dock_tolerance:
            return False, (f'not at the dock: {distance:.2f} m away '
                           f'(tolerance {self.params.dock_tolerance:g} m)')
        self.docked = True
        self.dock_count += 1
        self._stop_command()
        return True, f'docked {distance:.2f} m from the dock'

    def undock(self) -> tuple[bool, str]:
        """Undock; the robot stays where it is.

        Returns:
            (success, message): ``(False, 'not docked')`` when not docked.
        """
        if not self.docked:
            return False, 'not docked'
        self.docked = False
        return True, 'undocked'

    # --- simulation ----------------------------------------------------------------

    def step(self, dt: float) -> list[NavEvent]:
        """Advance the simulation by ``dt`` simulated seconds.

        Order: choose the velocity (navigator, else the unexpired command, zeroed by the
        emergency stop, docking or an empty battery), integrate the unicycle exactly for
        constant velocities (linear motion that would leave the world is dropped), update
        the battery, then end the goal on arrival, empty battery or timeout.

        Args:
            dt: The time step (s), > 0.

        Returns:
            Navigation events of this step (SUCCEEDED or ABORTED).

        Raises:
            ValueError: If ``dt`` is not a positive finite number.
        """
        if not (math.isfinite(dt) and dt > 0.0):
            raise ValueError(f'dt must be a positive finite number, got {dt!r}')
        params = self.params
        if self._goal is not None:
            linear, angular = self._drive(self._goal, dt)
        elif self.time < self._command_expires:
            linear, angular = self._command
        else:
            linear, angular = 0.0, 0.0
        if self.estop or self.docked or self.battery <= 0.0:
            linear, angular = 0.0, 0.0
        x, y, yaw = self._integrate(linear, angular, dt)
        if not params.inside(x, y):
            linear = 0.0
            x, y, yaw = self._integrate(0.0, angular, dt)
        self.x, self.y, self.yaw = x, y, yaw
        self.linear, self.angular = linear, angular
        self.distance += abs(linear) * dt
        self.time += dt
        if self.docked:
            self.battery = min(1.0, self.battery + params.charge_rate * dt)
        else:
            drain = params.idle_drain + params.motion_drain * abs(linear)
            self.battery = max(0.0, self.battery - drain * dt)
        goal = self._goal
        if goal is None:
            return []
        if math.hypot(goal.x - self.x, goal.y - self.y) <= params.goal_tolerance:
            return self._finish(SUCCEEDED, 'arrived')
        if self.battery <= 0.0:
            return self._finish(ABORTED, 'battery empty')
        if self.time - goal.started >= params.navigation_timeout:
            return self._finish(ABORTED, f'navigation timeout ({params.navigation_timeout:g} s)')
        return []

    # --- internals -----------------------------------------------------------------

    def _refusal(self, x: float, y: float, frame: str) -> str:
        """Return why a goal to (x, y) in ``frame`` is refused, or '' if it is accepted."""
        if frame not in GOAL_FRAMES:
            return f'unsupported goal frame {frame!r} (use odom)'
        if not (math.isfinite(x) and math.isfinite(y)):
            return f'invalid goal ({x}, {y})'
        if self.estop:
            return 'emergency stop engaged'
        if self.docked:
            return 'docked: undock first'
        if self.battery <= 0.0:
            return 'battery empty'
        if not self.params.inside(x, y):
            return f'goal ({x:.2f}, {y:.2f}) outside the world ({self.params.bounds_text()})'
        return ''

    def _finish(self, status: int, reason: str) -> list[NavEvent]:
        """End the active goal with ``status``; return its event (nothing if none)."""
        goal = self._goal
        if goal is None:
            return []
        self._goal = None
        event = NavEvent(goal.key, goal.number, status, reason)
        self.last_event = event
        known = self._latest.get(goal.key)
        if known is not None:
            self._latest[goal.key] = (known[0], event)
        self.status_counts[STATUS_NAMES[status]] += 1
        return [event]

    def _stop_command(self) -> None:
        """Drop the velocity command."""
        self._command = (0.0, 0.0)
        self._command_expires = -math.inf

    def _drive(self, goal: _Goal, dt: float) -> tuple[float, float]:
        """Return the navigator's (linear, angular) velocity towards ``goal`` for one step.

        Turn in place while the heading error exceeds :data:`HEADING_THRESHOLD`; otherwise
        drive at up to ``max_linear_speed`` (proportional to the distance near the goal,
        never past it in one step) with proportional heading correction (never past the
        heading in one step).
        """
        params = self.params
        dx, dy = goal.x - self.x, goal.y - self.y
        distance = math.hypot(dx, dy)
        if distance <= params.goal_tolerance:
            return 0.0, 0.0
        error = wrap_angle(math.atan2(dy, dx) - self.yaw)
        angular = _clamp(HEADING_GAIN * error, params.max_angular_speed)
        if abs(angular) * dt > abs(error):
            angular = error / dt
        if abs(error) > HEADING_THRESHOLD:
            return 0.0, angular
        linear = min(params.max_linear_speed, DISTANCE_GAIN * distance, distance / dt)
        return linear * math.cos(error), angular

    def _integrate(self, linear: float, angular: float, dt: float) -> tuple[float, float, float]:
        """Return the pose after ``dt`` at constant velocities (exact unicycle solution)."""
        yaw = self.yaw + angular * dt
        if abs(angular) < 1e-9:
            x = self.x + linear * math.cos(self.yaw) * dt
            y = self.y + linear * math.sin(self.yaw) * dt
        else:
            radius = linear / angular
            x = self.x + radius * (math.sin(yaw) - math.sin(self.yaw))
            y = self.y - radius * (math.cos(yaw) - math.cos(self.yaw))
        return x, y, wrap_angle(yaw)
