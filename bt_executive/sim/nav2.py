# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Nav2's navigation and docking actions on the simulated robot, without the ROS transport.

:class:`Nav2Sim` turns ``NavigateToPose``, ``DockRobot`` and ``UndockRobot`` goals into
commands of a :class:`~bt_executive.sim.model.RobotModel` and model events into action
outcomes (status, result message with Nav2's error codes) and feedback messages. It
imports nothing from ROS: the action classes come in as arguments (``nav2_msgs.action``
on a ROS install, a stand-in in the offline tests), and only their Goal, Result and
Feedback fields are used. :mod:`bt_executive.sim.nav2_server` serves it over rclpy.

Every goal is accepted; a goal that cannot be carried out ends ABORTED with
``error_code`` and ``error_msg`` saying why, as Nav2's servers do. Result fields are set
only when the message has them, so older and newer ``nav2_msgs`` versions both work.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
import dataclasses
import math
from typing import Any, Optional

from bt_executive.sim.model import CANCELED, GOAL_FRAMES, NavEvent, RobotModel, SUCCEEDED

NAVIGATE = 'navigate_to_pose'
"""Action name of ``nav2_msgs/action/NavigateToPose`` (relative, as Nav2 serves it)."""
DOCK = 'dock_robot'
"""Action name of ``nav2_msgs/action/DockRobot``."""
UNDOCK = 'undock_robot'
"""Action name of ``nav2_msgs/action/UndockRobot``."""
ACTIONS = {NAVIGATE: 'NavigateToPose', DOCK: 'DockRobot', UNDOCK: 'UndockRobot'}
"""Action name -> type name in ``nav2_msgs.action``."""

SUCCEED = 'succeeded'
ABORT = 'aborted'
CANCEL = 'canceled'

_UNKNOWN = {NAVIGATE: 9000, DOCK: 999, UNDOCK: 999}
"""Fallback ``UNKNOWN`` error codes, for a Result class without the constant."""
_FEEDBACK_NAV_TO_STAGING_POSE = 1
"""``DockRobot`` feedback state while driving to the dock."""


def is_nav2_key(key: Hashable) -> bool:
    """Return whether a model goal key belongs to a Nav2 action goal."""
    return isinstance(key, tuple) and len(key) == 2 and key[0] in ACTIONS


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How an action goal ended.

    Attributes:
        key: The goal's key, ``(action name, goal id bytes)``.
        status: :data:`SUCCEED`, :data:`ABORT` or :data:`CANCEL`.
        result: The Result message to return.
        reason: Why, in words (also in ``error_msg`` where the result has it).
    """

    key: tuple[str, bytes]
    status: str
    result: Any
    reason: str


@dataclasses.dataclass
class _Job:
    """An active action goal."""

    action: str
    key: tuple[str, bytes]
    goal: Any
    started: float
    frame: str = 'odom'
    deadline: float = math.inf
    cancel_requested: bool = False


def _seconds_to(duration: Any, seconds: float) -> None:
    """Write non-negative ``seconds`` into a ``builtin_interfaces/Duration`` message."""
    seconds = max(0.0, seconds)
    whole = int(seconds)
    duration.sec = whole
    duration.nanosec = min(999_999_999, int(round((seconds - whole) * 1e9)))


def _preempted(event: NavEvent) -> str:
    """Say why a goal was stopped by something other than its own cancel request."""
    if event.reason == 'replaced by a new goal':
        return 'preempted by a newer goal'
    return f'stopped by another request ({event.reason})'  # e.g. navigate/cancel


def _set(message: Any, field: str, value: Any) -> None:
    """Set ``field`` when the message has it (result shapes differ between Nav2 versions)."""
    if hasattr(message, field):
        setattr(message, field, value)


class Nav2Sim:
    """Nav2's NavigateToPose, DockRobot and UndockRobot semantics on a robot model.

    Feed it goals (:meth:`start`), cancel requests (:meth:`cancel`), every model event
    (:meth:`on_events`, whichever protocol caused it) and the time (:meth:`check`); take
    the ended goals from :meth:`outcomes` and the feedback from :meth:`feedback`.

    Attributes:
        model: The simulated robot.
        actions: Action name (:data:`NAVIGATE`, ...) -> action class; absent names are
            not served.
        dock_id: The id of the sim's one dock in ``DockRobot`` goals.
    """

    def __init__(self, model: RobotModel, actions: Mapping[str, type], *,
                 dock_id: str = 'home_dock') -> None:
        """Serve the given actions on ``model``; the dock is the model's dock."""
        unknown = sorted(set(actions) - set(ACTIONS))
        if unknown:
            raise ValueError(f'unknown Nav2 actions {unknown}; expected {sorted(ACTIONS)}')
        self.model = model
        self.actions = dict(actions)
        self.dock_id = dock_id
        self._jobs: dict[tuple[str, bytes], _Job] = {}
        self._ended: list[Outcome] = []

    # --- queries -----------------------------------------------------------------------

    @property
    def active(self) -> list[tuple[str, bytes]]:
        """Return the keys of the goals not ended yet."""
        return list(self._jobs)

    def outcomes(self) -> list[Outcome]:
        """Return the goals ended since the last call, oldest first."""
        ended, self._ended = self._ended, []
        return ended

    def feedback(self) -> list[tuple[tuple[str, bytes], Any]]:
        """Return a Feedback message for every active goal (stamps left to the caller)."""
        messages = []
        for job in self._jobs.values():
            cls = self.actions[job.action].Feedback
            if job.action == NAVIGATE:
                messages.append((job.key, self._navigate_feedback(job, cls())))
            elif job.action == DOCK:
                message = cls()
                _set(message, 'state', _FEEDBACK_NAV_TO_STAGING_POSE)
                if hasattr(message, 'docking_time'):
                    _seconds_to(message.docking_time, self.model.time - job.started)
                messages.append((job.key, message))
        return messages

    # --- goals -------------------------------------------------------------------------

    def start(self, action: str, goal_id: bytes, goal: Any) -> list[NavEvent]:
        """Start a goal of ``action``; return the model events it caused (for every protocol).

        A goal the sim cannot carry out ends at once (see :meth:`outcomes`).
        """
        if action not in self.actions:
            raise ValueError(f'action {action!r} is not served')
        key = (action, bytes(goal_id))
        job = _Job(action, key, goal, started=self.model.time)
        self._jobs[key] = job
        if action == NAVIGATE:
            return self._start_navigate(job)
        if action == DOCK:
            return self._start_dock(job)
        return self._start_undock(job)

    def cancel(self, key: tuple[str, bytes]) -> list[NavEvent]:
        """Cancel an active goal (the robot stops); return the model events it caused."""
        job = self._jobs.get(key)
        if job is None:
            return []
        job.cancel_requested = True
        events = self.model.cancel(key)
        if not events:  # not driving (cannot happen for now): end it here
            self._end(job, CANCEL, 'canceled', code_name='NONE')
        return events

    def on_events(self, events: Iterable[NavEvent]) -> None:
        """Take model events; those of our goals end them."""
        for event in events:
            job = self._jobs.get(event.goal) if is_nav2_key(event.goal) else None
            if job is None or not event.terminal:
                continue
            if job.action == NAVIGATE:
                self._navigate_ended(job, event)
            else:
                self._staging_ended(job, event)

    def check(self) -> list[NavEvent]:
        """End goals past their deadline; return the model events it caused."""
        events: list[NavEvent] = []
        for job in list(self._jobs.values()):
            if job.action == DOCK and self.model.time >= job.deadline:
                limit = job.deadline - job.started
                self._end(job, ABORT, f'did not reach the dock within max_staging_time '
                                      f'({limit:g} s)', code_name='TIMEOUT')
                events += self.model.cancel(job.key)
        return events

    # --- NavigateToPose ----------------------------------------------------------------

    def _start_navigate(self, job: _Job) -> list[NavEvent]:
        pose = job.goal.pose
        frame = pose.header.frame_id
        if frame not in GOAL_FRAMES:
            self._end(job, ABORT, f'unsupported goal frame {frame!r} (the sim knows '
                                  f'{", ".join(repr(f) for f in GOAL_FRAMES[1:])})',
                      code_name='TF_ERROR')
            return []
        job.frame = frame or 'odom'
        return self.model.navigate(pose.pose.position.x, pose.pose.position.y, job.key,
                                   frame)

    def _navigate_ended(self, job: _Job, event: NavEvent) -> None:
        if event.status == SUCCEEDED:
            self._end(job, SUCCEED, event.reason, code_name='NONE')
        elif event.status == CANCELED and job.cancel_requested:
            self._end(job, CANCEL, 'canceled', code_name='NONE')
        elif event.status == CANCELED:
            self._end(job, ABORT, _preempted(event), code_name='UNKNOWN')
        elif event.reason.startswith('navigation timeout'):
            self._end(job, ABORT, event.reason, code_name='TIMEOUT')
        else:
            self._end(job, ABORT, event.reason, code_name='UNKNOWN')

    def _navigate_feedback(self, job: _Job, message: Any) -> Any:
        model = self.model
        goal = job.goal.pose.pose.position
        remaining = math.hypot(goal.x - model.x, goal.y - model.y)
        pose = message.current_pose
        pose.header.frame_id = job.frame
        pose.pose.position.x = model.x
        pose.pose.position.y = model.y
        pose.pose.orientation.z = math.sin(model.yaw / 2.0)
        pose.pose.orientation.w = math.cos(model.yaw / 2.0)
        _seconds_to(message.navigation_time, model.time - job.started)
        _seconds_to(message.estimated_time_remaining,
                    remaining / model.params.max_linear_speed)
        message.number_of_recoveries = 0
        message.distance_remaining = remaining
        return message

    # --- DockRobot ---------------------------------------------------------------------

    def _start_dock(self, job: _Job) -> list[NavEvent]:
        goal, model, params = job.goal, self.model, self.model.params
        if goal.use_dock_id and goal.dock_id != self.dock_id:
            self._end(job, ABORT, f"dock {goal.dock_id!r} is not in the sim's dock database "
                                  f'(it has {self.dock_id!r})', code_name='DOCK_NOT_IN_DB')
            return []
        if not goal.use_dock_id:
            pose = goal.dock_pose
            x, y = pose.pose.position.x, pose.pose.position.y
            frame = pose.header.frame_id
            off = math.hypot(x - params.dock_x, y - params.dock_y)
            if frame not in GOAL_FRAMES or not off <= params.dock_tolerance:
                self._end(job, ABORT, f'no dock at ({x:.2f}, {y:.2f}) in frame {frame!r}: the '
                                      f"sim's dock is at ({params.dock_x:g}, "
                                      f'{params.dock_y:g}) in odom',
                          code_name='DOCK_NOT_VALID')
                return []
        if model.docked:
            self._end(job, SUCCEED, 'already docked', code_name='NONE')
            return []
        if model.distance_to_dock() <= params.dock_tolerance:
            events = model.cancel() if model.navigating else []
            self._dock_now(job)
            return events
        if not goal.navigate_to_staging_pose:
            self._end(job, ABORT, f'not at the dock ({model.distance_to_dock():.2f} m away) and '
                                  'navigate_to_staging_pose is false',
                      code_name='FAILED_TO_STAGE')
            return []
        limit = float(getattr(goal, 'max_staging_time', math.inf))
        if math.isfinite(limit) and limit > 0:
            job.deadline = job.started + limit
        return model.navigate(params.dock_x, params.dock_y, job.key, 'odom')

    def _staging_ended(self, job: _Job, event: NavEvent) -> None:
        if event.status == SUCCEEDED:
            self._dock_now(job)
        elif event.status == CANCELED and job.cancel_requested:
            self._end(job, CANCEL, 'canceled', code_name='NONE')
        elif event.status == CANCELED:
            self._end(job, ABORT, f'driving to the dock was {_preempted(event)}',
                      code_name='FAILED_TO_STAGE')
        else:
            self._end(job, ABORT, f'cannot reach the dock: {event.reason}',
                      code_name='FAILED_TO_STAGE')

    def _dock_now(self, job: _Job) -> None:
        docked, message = self.model.dock()
        if docked:
            self._end(job, SUCCEED, message, code_name='NONE')
        else:
            self._end(job, ABORT, message, code_name='FAILED_TO_CONTROL')

    # --- UndockRobot -------------------------------------------------------------------

    def _start_undock(self, job: _Job) -> list[NavEvent]:
        # As Nav2's docking server: undocking a robot that is not docked succeeds.
        _, message = self.model.undock()
        self._end(job, SUCCEED, message, code_name='NONE')
        return []

    # --- results -----------------------------------------------------------------------

    def _end(self, job: _Job, status: str, reason: str, *, code_name: str) -> None:
        """End ``job``: build its Result (error code by name, with fallbacks)."""
        self._jobs.pop(job.key, None)
        result_cls = self.actions[job.action].Result
        result = result_cls()
        code = getattr(result_cls, code_name, None)
        if code is None:
            code = 0 if code_name == 'NONE' else getattr(result_cls, 'UNKNOWN',
                                                         _UNKNOWN[job.action])
        _set(result, 'error_code', code)
        _set(result, 'error_msg', '' if status == SUCCEED else reason)
        _set(result, 'success', status == SUCCEED)
        _set(result, 'num_retries', 0)
        self._ended.append(Outcome(job.key, status, result, reason))

    @staticmethod
    def key_text(key: Optional[Hashable]) -> str:
        """Return a short text for a Nav2 goal key: ``'dock_robot 1a2b3c4d'``."""
        if not is_nav2_key(key):
            return str(key)
        action, goal_id = key  # type: ignore[misc]
        return f'{action} {bytes(goal_id).hex()[:8]}'
