"""An Executive hosted in the test process: its own context and executor, spun by the test.

Shared by the executive, snapshot-topic and other in-process tests; the executor is spun
from the test thread exactly as ``executive.main()`` spins it.
"""

from __future__ import annotations

from collections.abc import Callable
import pathlib
import textwrap
import time
from typing import Any, Optional
import uuid

TIMEOUT = 15.0


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
        manual: stop the ticker's timers, so the test ticks with ``executive._tick()``
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
        if manual:  # no timer ticks: the test calls executive._tick() itself
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
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f'timed out after {timeout}s waiting for {message}; '
                                     f'status: {self.executive.status()}')
            self.executor.spin_once(timeout_sec=0.02)

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
