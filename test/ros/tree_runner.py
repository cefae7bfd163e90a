# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run trees with the real ROS leaves in a test, the way the executive does.

The tree is ticked in the test thread, interleaved with ``spin_once`` of a
single-threaded executor, so leaf callbacks and ticks never run concurrently (as in the
executive). Each test gets its own rclpy Context, node and executor::

    with RosEnv('test_name') as env:
        runner = env.run(YAML_TEXT)
        runner.tick_until(lambda: runner.status == Status.SUCCESS, 10.0, 'success')
        runner.stop()

:meth:`RosEnv.close` stops and shuts down every runner, destroys the node and shuts
the context down; it also clears the py_trees blackboard on entry and exit. Also here:
what the leaf tests share to write one-leaf trees and to read the blackboard.
"""

from __future__ import annotations

from collections.abc import Callable
import re
import time
from typing import Any, Optional, TypeVar
import uuid

from bt_executive.core.builder import apply_blackboard_defaults, BuildContext, Builder
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from helpers import PeerEvents, spinning, wait_for
import py_trees
from py_trees.common import Status

T = TypeVar('T')

SPIN_STEP = 0.005
"""Seconds each ``spin_once`` waits at most for work between two ticks."""

DISCOVERY_TIMEOUT = 15.0
"""Seconds a peer server gets to come up and be discovered (also the leaves' server_timeout)."""

StartPeer = Callable[..., tuple[str, PeerEvents]]
"""The peer fixtures (``fibonacci``, ``trigger``): start one in a mode, give (name, events)."""


def unique_name(prefix: str) -> str:
    """Return a ROS name no other test (or leftover peer) uses."""
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def one_leaf_tree(leaf: str, params: dict[str, Any]) -> str:
    """Return a tree file whose main tree is ``leaf`` (type and name) with ``params``."""
    text = ', '.join(f'{key}: {value}' for key, value in params.items())
    return f'trees:\n  Main:\n    {leaf}: {{{text}}}\n'


def blackboard(key: str) -> Any:
    """Return a root blackboard value (KeyError if it is not set)."""
    return py_trees.blackboard.Blackboard.get('/' + key)


def set_blackboard(key: str, value: Any) -> None:
    """Write a root blackboard value."""
    py_trees.blackboard.Blackboard.set('/' + key, value)


class TreeRunner:
    """A built tree whose leaves are set up on ``node``, ticked in the calling thread.

    Args:
        env: the environment holding the node and the executor
        text: the tree file as YAML text
        tree: the tree to build (None: the main tree)
    """

    def __init__(self, env: 'RosEnv', text: str, tree: Optional[str] = None) -> None:
        from bt_executive.ros.leaves import FACTORIES  # needs rclpy: imported late
        from bt_executive.ros.leaves.common import NodeHost

        self.env = env
        self.node = env.node
        registry = default_registry().with_factories(FACTORIES)
        self.document = Loader(registry).load_text(text)
        apply_blackboard_defaults(self.document)
        clock = self.node.get_clock()
        self.context = BuildContext(registry=registry, document=self.document,
                                    clock=lambda: clock.now().nanoseconds * 1e-9)
        self.built = Builder(self.context).build(tree)
        self.root = self.built.root
        self.ticks = 0
        self.is_shut_down = False
        #: the leaves' one host, as an executive is (a leaf set up alone makes its own)
        self.host = NodeHost(self.node)
        for behaviour in self.root.iterate():
            behaviour.setup(node=self.node, host=self.host)

    @property
    def status(self) -> Status:
        """Return the root's status after the last tick."""
        return self.root.status

    def leaf(self, name: str) -> py_trees.behaviour.Behaviour:
        """Return the behaviour called ``name`` (exactly one must exist)."""
        found = [b for b in self.root.iterate() if b.name == name]
        assert len(found) == 1, f'{len(found)} behaviours named {name!r}'
        return found[0]

    def tick(self) -> Status:
        """Tick the tree once and return the root status."""
        self.root.tick_once()
        self.ticks += 1
        return self.root.status

    def spin_once(self, timeout: float = SPIN_STEP) -> None:
        """Let the executor run at most one piece of ready work (waiting up to ``timeout``)."""
        self.env.executor.spin_once(timeout_sec=timeout)

    def tick_until(self, predicate: Callable[[], T], timeout: float, message: str) -> T:
        """Spin and tick alternately until ``predicate()`` is truthy (checked after ticks).

        Raises:
            AssertionError: ``'timed out after {timeout}s waiting for {message}'`` with the
                root status and the feedback of the leaves.
        """
        def ticked() -> T:
            self.spin_once()
            self.tick()
            return predicate()

        return wait_for(ticked, timeout, message, interval=0.0, pause=lambda _: None,
                        describe=self.describe)

    def tick_until_status(self, status: Status, timeout: float) -> str:
        """Tick until the root has ``status``; return the root's feedback message.

        Raises:
            AssertionError: on timeout, or if the root finished with another status first.
        """
        def reached() -> bool:
            current = self.root.status
            if current != status and current in (Status.SUCCESS, Status.FAILURE):
                raise AssertionError(f'expected {status.name}, got {current.name}; '
                                     f'{self.describe()}')
            return current == status

        self.tick_until(reached, timeout, f'root status {status.name}')
        return self.root.feedback_message

    def timed_until_status(self, status: Status, timeout: float) -> tuple[str, float]:
        """Tick until the root has ``status`` (see :meth:`tick_until_status`).

        Returns:
            The root's feedback message and the seconds it took.
        """
        started = time.monotonic()
        reason = self.tick_until_status(status, timeout)
        return reason, time.monotonic() - started

    def spin_until(self, predicate: Callable[[], T], timeout: float, message: str) -> T:
        """Spin without ticking until ``predicate()`` is truthy (see :meth:`RosEnv.spin_until`)."""
        return self.env.spin_until(predicate, timeout, message)

    def await_event(self, events: Any, name: str, *, timeout: float,
                    **fields: Any) -> dict[str, Any]:
        """Spin until ``events`` (a PeerEvents on this node) holds a matching event.

        Returns:
            The first event called ``name`` whose fields match ``fields``.
        """
        def find() -> Optional[dict[str, Any]]:
            for event in events.events():
                if event.get('event') == name and all(
                        event.get(key) == value for key, value in fields.items()):
                    return event
            return None

        return self.spin_until(find, timeout, f'event {name!r} {fields} on {events.topic}; '
                               f'got {events.names()}')

    def outstanding(self) -> list[Any]:
        """Return the futures the leaves still wait for (cancels in flight)."""
        futures = []
        for behaviour in self.root.iterate():
            method = getattr(behaviour, 'outstanding', None)
            if method is not None:
                futures.extend(method())
        return futures

    def stop(self, timeout: float = 5.0) -> None:
        """Halt the tree (INVALID) and spin until every outstanding future is done.

        Raises:
            AssertionError: if futures are still pending after ``timeout`` seconds.
        """
        self.root.stop(Status.INVALID)
        self.spin_until(lambda: not self.outstanding(), timeout,
                        'the outstanding futures of the halted tree')

    def shutdown(self) -> None:
        """Shut every behaviour down (destroys the leaves' ROS entities); idempotent."""
        if self.is_shut_down:
            return
        self.is_shut_down = True
        for behaviour in self.root.iterate():
            behaviour.shutdown()

    def describe(self) -> str:
        """Summarise the root status and every leaf's feedback, for failure messages."""
        leaves = [f'{b.name}={b.status.name}({b.feedback_message!r})'
                  for b in self.root.iterate() if not b.children]
        return f"root {self.root.status.name}; leaves: {', '.join(leaves)}"


class RosEnv:
    """A private rclpy Context with one node and a SingleThreadedExecutor (not spinning).

    Args:
        test_name: used to name the node
    """

    def __init__(self, test_name: str) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        py_trees.blackboard.Blackboard.clear()
        self.context = Context()
        rclpy.init(context=self.context)
        name = 'test_' + re.sub(r'\W', '_', test_name)[:40] + '_' + uuid.uuid4().hex[:6]
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.runners: list[TreeRunner] = []

    def run(self, text: str, tree: Optional[str] = None) -> TreeRunner:
        """Load, build and set up a tree from YAML text."""
        runner = TreeRunner(self, text, tree)
        self.runners.append(runner)
        return runner

    def spin_until(self, predicate: Callable[[], T], timeout: float, message: str) -> T:
        """Spin the executor until ``predicate()`` is truthy (bounded).

        Raises:
            AssertionError: ``'timed out after {timeout}s waiting for {message}'``.
        """
        return wait_for(predicate, timeout, message, interval=0.05,
                        pause=spinning(self.executor))

    def close(self) -> None:
        """Halt and shut down the runners, destroy the node, shut the context down."""
        try:
            for runner in self.runners:
                if not runner.is_shut_down:
                    try:
                        runner.stop(timeout=2.0)
                    finally:
                        runner.shutdown()
        finally:
            self.executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
            self.context.try_shutdown()
            py_trees.blackboard.Blackboard.clear()

    def __enter__(self) -> 'RosEnv':
        """Return the environment."""
        return self

    def __exit__(self, *exc_info: Any) -> None:
        """Close the environment."""
        self.close()
