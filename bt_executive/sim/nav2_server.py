# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Serve Nav2's actions from ``sim_robot`` when ``nav2_msgs`` is installed.

:func:`load_actions` imports ``nav2_msgs.action`` and checks the type support of
``NavigateToPose``, ``DockRobot`` and ``UndockRobot``; any failure (not installed, a
``nav2_msgs`` built for another ROS distribution, a broken type support library) means
the actions are not served. :class:`Nav2Server` puts a :class:`~bt_executive.sim.nav2.Nav2Sim`
behind rclpy action servers named ``navigate_to_pose``, ``dock_robot`` and
``undock_robot`` (relative: the node's namespace prefixes them, as with Nav2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
import importlib
from typing import Any, Optional, Union

from bt_executive.sim.model import NavEvent, RobotModel
from bt_executive.sim.nav2 import (ACTIONS, CANCEL, Nav2Sim, NAVIGATE, Outcome, SUCCEED)
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.node import Node
from rclpy.task import Future
from rclpy.type_support import check_for_type_support

MODES = ('auto', 'true', 'false')
"""Values of the sim's ``nav2`` parameter: serve when importable, must serve, never."""
MODULE = 'nav2_msgs.action'


class Nav2Unavailable(RuntimeError):
    """``nav2:=true`` was asked for, but the Nav2 action types cannot be used."""


def parse_mode(value: Union[str, bool]) -> str:
    """Return the ``nav2`` parameter as one of :data:`MODES` (booleans are accepted).

    Raises:
        ValueError: For any other value.
    """
    if isinstance(value, bool):
        return 'true' if value else 'false'
    text = str(value).strip().lower()
    if text not in MODES:
        raise ValueError(f"nav2 must be 'auto', 'true' or 'false', got {value!r}")
    return text


def load_actions(module_name: str = MODULE) -> tuple[dict[str, type], str]:
    """Import the Nav2 action types with working type support.

    Args:
        module_name: The module to import them from.

    Returns:
        (action name -> class, '') when at least ``NavigateToPose`` works, else
        ({}, why not). Types missing from an older ``nav2_msgs`` (no ``DockRobot`` before
        Jazzy) are left out.
    """
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: B902 - ImportError, or whatever its import raises
        return {}, f'cannot import {module_name}: {type(error).__name__}: {error}'
    found: dict[str, type] = {}
    for action, type_name in ACTIONS.items():
        cls = getattr(module, type_name, None)
        if cls is None:
            if action == NAVIGATE:
                return {}, f'{module_name} has no {type_name}'
            continue
        try:
            check_for_type_support(cls)
        except Exception as error:  # noqa: B902 - type support libraries fail in many ways
            return {}, (f'{module_name}.{type_name} has no usable type support '
                        f'({type(error).__name__}: {error})')
        found[action] = cls
    return found, ''


class Nav2Server:
    """The rclpy side of :class:`Nav2Sim`: one action server per served action.

    Goal handles are kept by goal key; each execute callback awaits a future that is
    completed when the sim ends the goal. Cancel requests are accepted and carried out at
    the next :meth:`step`. All callbacks run in the node's (single-threaded) executor.
    """

    def __init__(self, node: Node, model: RobotModel, actions: dict[str, type], *,
                 dock_id: str, report: Callable[[list[NavEvent]], None],
                 stamp: Callable[[], Any]) -> None:
        """Create the action servers on ``node``.

        Args:
            node: The sim node.
            model: Its robot model.
            actions: From :func:`load_actions`.
            dock_id: The sim dock's id in DockRobot goals.
            report: Called with the model events a Nav2 goal caused, so the node also
                reports those of its other protocol (and hands ours back through
                :meth:`on_events`).
            stamp: Returns the stamp for feedback poses.
        """
        self.node = node
        self.sim = Nav2Sim(model, actions, dock_id=dock_id)
        self._report = report
        self._stamp = stamp
        self._handles: dict[tuple[str, bytes], tuple[Any, Future]] = {}
        self._servers = [
            ActionServer(node, cls, action, execute_callback=self._executor_for(action),
                         goal_callback=lambda goal: GoalResponse.ACCEPT,
                         cancel_callback=lambda request: CancelResponse.ACCEPT)
            for action, cls in actions.items()]

    @property
    def names(self) -> list[str]:
        """Return the relative names of the served actions."""
        return list(self.sim.actions)

    def on_events(self, events: Iterable[NavEvent]) -> None:
        """Take model events (of every protocol); finish the goals they ended."""
        self.sim.on_events(events)
        self._finish()

    def step(self) -> None:
        """After a model step: carry out cancel requests and deadlines."""
        events: list[NavEvent] = []
        for key, (handle, _) in list(self._handles.items()):
            if handle.is_cancel_requested and key in self.sim.active:
                events += self.sim.cancel(key)
        events += self.sim.check()
        if events:
            self._report(events)
        self._finish()

    def publish_feedback(self) -> None:
        """Publish feedback for every active goal."""
        for key, message in self.sim.feedback():
            entry = self._handles.get(key)
            if entry is None:
                continue
            if hasattr(message, 'current_pose'):
                message.current_pose.header.stamp = self._stamp()
            entry[0].publish_feedback(message)

    def destroy(self) -> None:
        """Destroy the action servers."""
        for server in self._servers:
            server.destroy()
        self._servers = []

    def _executor_for(self, action: str) -> Callable[[Any], Any]:
        async def execute(handle: Any) -> Any:
            key = (action, bytes(handle.goal_id.uuid))
            done = Future()
            self._handles[key] = (handle, done)
            self._report(self.sim.start(action, key[1], handle.request))
            self._finish()
            outcome: Outcome = await done
            if outcome.status == SUCCEED:
                handle.succeed()
            elif outcome.status == CANCEL and handle.is_cancel_requested:
                handle.canceled()
            else:
                handle.abort()
            text = f'{self.sim.key_text(key)} {outcome.status}: {outcome.reason}'
            if outcome.status == SUCCEED:
                self.node.get_logger().info(text)
            else:
                self.node.get_logger().warning(text)
            return outcome.result
        return execute

    def _finish(self) -> None:
        """Complete the futures of the goals the sim ended."""
        for outcome in self.sim.outcomes():
            entry = self._handles.pop(outcome.key, None)
            if entry is not None and not entry[1].done():
                entry[1].set_result(outcome)


def serve(node: Node, model: RobotModel, mode: str, *, dock_id: str,
          report: Callable[[list[NavEvent]], None],
          stamp: Callable[[], Any]) -> Optional[Nav2Server]:
    """Serve the Nav2 actions as ``mode`` asks; log one line saying whether they are served.

    Raises:
        Nav2Unavailable: ``mode`` is ``'true'`` and the types cannot be used.
    """
    if mode == 'false':
        node.get_logger().info('Nav2 actions not served (nav2:=false)')
        return None
    actions, why = load_actions()
    if not actions:
        if mode == 'true':
            raise Nav2Unavailable(f'nav2:=true but the Nav2 action types cannot be used: {why}')
        node.get_logger().info(f'Nav2 actions not served: {why} (topic protocol only)')
        return None
    server = Nav2Server(node, model, actions, dock_id=dock_id, report=report, stamp=stamp)
    node.get_logger().info(f"Nav2 actions served: {', '.join(server.names)}")
    return server
