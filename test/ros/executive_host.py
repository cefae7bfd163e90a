# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""An Executive hosted in the test process: its own context and executor, spun by the test.

Shared by the executive, snapshot-topic and other in-process tests; the executor is spun
from the test thread exactly as ``executive.main()`` spins it.
"""

from __future__ import annotations

from collections.abc import Callable
import pathlib
import textwrap
import types
from typing import Any, Optional
import uuid

from helpers import spinning, wait_for

TIMEOUT = 15.0

SETTLE_WINDOW = 0.05
"""Seconds of each of the two timer windows of :meth:`Host.settle` (at the least)."""


def write_tree(directory: pathlib.Path, name: str, text: str) -> str:
    """Write a (dedented) tree file and return its path."""
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


class Host:
    """An Executive on its own context, spun (or ticked by hand) from the test thread.

    Args:
        tree_file: the executive's tree_file parameter
        namespace: the node namespace (default: a unique one)
        manual: stop the ticker's timers, so the test ticks with ``executive.tick_once()``
        registry: the node catalogue (default: the executive's, with the real ROS leaves)
        **parameters: further parameter overrides
    """

    def __init__(self, tree_file: str, *, namespace: Optional[str] = None,
                 manual: bool = False, registry: Any = None, **parameters: Any) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.parameter import Parameter

        from bt_executive.ros.executive import Executive

        self.context = Context()
        rclpy.init(context=self.context)
        overrides = [Parameter('tree_file', value=tree_file)]
        overrides += [Parameter(k, value=v) for k, v in parameters.items()]
        self.namespace = namespace or f'/ex_{uuid.uuid4().hex[:8]}'
        self.executive = Executive(namespace=self.namespace, parameter_overrides=overrides,
                                   context=self.context, registry=registry)
        if manual:  # no timer ticks: the test calls executive.tick_once() itself
            self.executive.ticker.destroy()
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.executive)
        self.topic = f'{self.namespace}/bt_executive'

    def spin_until(self, predicate: Callable[[], Any], message: str,
                   timeout: float = TIMEOUT) -> Any:
        """Spin until ``predicate()`` is truthy and return its value.

        Raises:
            AssertionError: on timeout, with the executive's status.
        """
        return wait_for(predicate, timeout, message, pause=spinning(self.executor),
                        describe=self.describe)

    def describe(self) -> str:
        """Return the executive's status, and when it plans to tick and why, for a timeout."""
        import time

        text = f'status: {self.executive.status()}'
        ticker = self.executive.ticker
        if hasattr(ticker, 'planned'):
            clock = self.executive.get_clock().now().nanoseconds * 1e-9
            text += (f'; ticker timers {ticker.planned()} at steady {time.monotonic():.3f}, '
                     f'node clock {clock:.3f}')
        tree = self.executive.host.tree if self.executive.host is not None else None
        if tree is not None:
            text += '; running nodes wake at ' + str({
                behaviour.name: behaviour.wake_at() for behaviour in tree.root.iterate()
                if behaviour.status.name == 'RUNNING' and hasattr(behaviour, 'wake_at')})
        return text

    def settle(self, window: float = SETTLE_WINDOW) -> int:
        """Spin until what the executive scheduled so far has run; return its tick count.

        The end is an awaited event, not the end of a sleep: a one-shot steady-clock timer
        created now on the executive's node fires, and then a second one. Whatever asked
        for a tick before the call has ticked by then: executor tasks (``request()``)
        run before each wait of the executor; due timers of one node run in creation
        order, so the event ticker's pace timer (due within ``1 / max_tick_rate``, which
        the window exceeds) fires before the first timer; a pace timer armed only by a
        task run in the first window fires before the second. Hence::

            ticks = ex.settle()
            ...  # something that must not make the tree tick
            assert ex.settle() == ticks

        cannot pass by luck of timing (a heartbeat or a ``wake_at`` deadline further away
        than the windows aside: the tests make those far away).

        Args:
            window: seconds of each timer (at least twice the ticker's pace interval)
        """
        window = max(window, 2.0 * getattr(self.executive.ticker, 'min_interval', 0.0))
        self._await_timer(window, 'the first settle timer')
        self._await_timer(window, 'the second settle timer')
        return self.executive.tick_count

    def _await_timer(self, seconds: float, message: str) -> None:
        """Create a steady-clock timer on the executive node; spin until it fires once."""
        from rclpy.clock import Clock, ClockType

        fired: list[bool] = []
        timer = self.executive.create_timer(seconds, lambda: fired.append(True),
                                            clock=Clock(clock_type=ClockType.STEADY_TIME))
        try:
            self.spin_until(lambda: fired, f'{message} ({seconds} s)')
        finally:
            self.executive.destroy_timer(timer)

    def tick_starts(self) -> list[float]:
        """Return a list that gets the start of every later tick of the current tree.

        A start is the event ticker's ``last_tick``: ``time.monotonic()`` read as the tick
        began, the clock on which ``max_tick_rate`` is enforced.
        """
        starts: list[float] = []
        executive = self.executive

        def on_tick(record: Any) -> None:
            if not record.stopped:
                starts.append(executive.ticker.last_tick)

        executive.tree.runner.add_observer(types.SimpleNamespace(on_tick=on_tick))
        return starts

    def publisher(self, node: Any, msg_type: Any, topic: str, depth: int = 10) -> Any:
        """Create a publisher on ``node`` and spin until the executive subscribes to it."""
        publisher = node.create_publisher(msg_type, topic, depth)
        self.spin_until(lambda: publisher.get_subscription_count() > 0, 'the feed subscription')
        return publisher

    def set_tree(self, **changes: Any) -> Any:
        """Set parameters through the node (the same path as a ROS parameter request)."""
        from rclpy.parameter import Parameter
        return self.executive.set_parameters(
            [Parameter(k, value=v) for k, v in changes.items()])[0]

    def close(self) -> None:
        """Stop the tree (waiting for goal cancels) and shut everything down."""
        self.executive.stop_tree(self.executor, timeout=5.0)
        self.executor.remove_node(self.executive)
        self.executive.destroy_node()
        self.executor.shutdown()
        self.context.try_shutdown()
