# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Say so when simulated time is on and no /clock arrives, instead of stalling in silence.

With ``use_sim_time`` true the node clock is whatever /clock last said, and 0 until a
message arrives. Without a clock publisher (the simulator not started, /clock remapped
elsewhere, a typo in a launch file) every time-based node, leaf timeout, periodic tick
and deadline waits for ever, and the tree only moves on event-mode heartbeats.
:class:`SimClockCheck` warns once, :data:`CLOCK_WAIT` seconds (steady time) after the
executive starts or ``use_sim_time`` is turned on, naming the cause and the fixes, and
says when the clock starts after that.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from bt_executive.ros.spin import timer_callback
from rclpy.clock import Clock, ClockType

#: Seconds of steady time the executive waits for a first /clock before it warns.
CLOCK_WAIT = 5.0


class SimClockCheck:
    """Watch for a first /clock message while ``use_sim_time`` is true (module docstring).

    Args:
        node: the executive (any rclpy node: ``use_sim_time`` is declared by rclpy)
        debug: a debug log, ``debug(topic, text)``
        wait: seconds before the warning (:data:`CLOCK_WAIT`)
    """

    def __init__(self, node: Any, debug: Callable[[str, str], Any],
                 wait: float = CLOCK_WAIT) -> None:
        self._node = node
        self._debug = debug
        self._wait = wait
        self._timer: Any = None
        self._since = 0.0
        self.warned = False
        add_callback = getattr(node, 'add_post_set_parameters_callback', None)
        if add_callback is not None:  # use_sim_time turned on at runtime: check again
            add_callback(self._on_parameters)
        self._arm()

    def _sim_time(self) -> bool:
        return bool(self._node.get_parameter('use_sim_time').value)

    def _clock_started(self) -> Optional[float]:
        """Return the node clock in seconds once a /clock message set it, else None."""
        nanoseconds = self._node.get_clock().now().nanoseconds
        return nanoseconds * 1e-9 if nanoseconds > 0 else None

    def _arm(self) -> None:
        if not self._sim_time() or self._clock_started() is not None:
            return
        self._since = time.monotonic()
        self.warned = False
        if self._timer is None:
            self._timer = self._node.create_timer(
                self._wait, timer_callback(self._check),
                clock=Clock(clock_type=ClockType.STEADY_TIME))
        else:
            self._timer.reset()

    def _on_parameters(self, parameters: list[Any]) -> None:
        if any(p.name == 'use_sim_time' and p.value for p in parameters):
            self._arm()

    def _check(self) -> None:
        """Warn once when no /clock came; keep checking until it does, then stop."""
        waited = time.monotonic() - self._since
        started = self._clock_started()
        if not self._sim_time() or started is not None:
            self._timer.cancel()
            if started is not None and self.warned:
                self._node.get_logger().info(
                    f'/clock arrived after {waited:.1f} s: simulated time moves (node clock '
                    f'{started:.3f} s)')
            elif started is not None:
                self._debug('clock', f'use_sim_time: /clock is running ({started:.3f} s)')
            return
        if self.warned:
            return
        self.warned = True
        topic = self._node.resolve_topic_name('/clock')
        self._node.get_logger().warning(
            f'use_sim_time is true but no message on {topic} (or only time 0) in '
            f'{waited:.1f} s: the node clock stands at 0, so Wait, Timeout and other '
            'time-based nodes, leaf timeouts and periodic ticks do not move. Start the '
            'simulator or the node that publishes /clock (the built-in sim: '
            'publish_clock:=true), check the remapping of /clock, or set '
            'use_sim_time:=false on a real robot')

    def destroy(self) -> None:
        """Release the timer (idempotent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._node.destroy_timer(self._timer)
            self._timer = None


class NodeSeconds:
    """The node clock in seconds, read without rclpy's ``Time`` while it is the system clock.

    A node's clock is ROS time: the system clock (``CLOCK_REALTIME``, as ``time.time()``)
    unless ``use_sim_time`` makes it the last /clock message. ``get_clock().now()`` builds
    an rclpy ``Time`` through four calls into rclpy's C++ layer, a cost on the reaction path
    (the blackboard feed stamps every message before it asks for a tick; BENCHMARKS.md,
    "Why the tricks are there"). ``time.time()`` reads the same clock in one call. Under
    ``use_sim_time`` the node clock is asked as before. The setting is followed at
    runtime, as rclpy's time source follows it: a post-set parameter callback.

    Args:
        node: the rclpy node whose clock this reads (``use_sim_time`` is declared by rclpy)
    """

    def __init__(self, node: Any) -> None:
        self._clock = node.get_clock()
        self.simulated = bool(node.get_parameter('use_sim_time').value)
        add_callback = getattr(node, 'add_post_set_parameters_callback', None)
        if add_callback is None:  # cannot follow the setting: always ask the node clock
            self.simulated = True
        else:
            add_callback(self._on_parameters)

    def _on_parameters(self, parameters: list[Any]) -> None:
        for parameter in parameters:
            if parameter.name == 'use_sim_time':
                self.simulated = bool(parameter.value)

    def __call__(self) -> float:
        """Return the node clock's time in seconds."""
        if self.simulated:
            return self._clock.now().nanoseconds * 1e-9
        return time.time()


__all__ = ['CLOCK_WAIT', 'NodeSeconds', 'SimClockCheck']
