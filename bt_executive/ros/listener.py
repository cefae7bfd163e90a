# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Listen to a running executive from another process (``watch``, ``view``, ``demo``).

:class:`SnapshotListener` owns everything a viewer needs on the ROS side: a private rclpy
context (no signal handlers: the viewer handles its signals), one node in the
executive's namespace, a single-threaded executor, and subscriptions to the executive's
``~/snapshot`` (latched: depth 1, reliable, transient local), optionally ``~/events``
(reliable, transient local, the last 20 batches) and ``~/status`` (latched), plus any
other topic (:meth:`SnapshotListener.subscribe`). The caller either steps it
(:meth:`~SnapshotListener.spin_once`, from its own loop) or lets it spin on a background
thread (:meth:`~SnapshotListener.start`).

:meth:`~SnapshotListener.close` stops the executor and joins its thread *before* it
destroys the node and shuts the context down: a context shut down under a spinning
executor fails in the middle of a wait (``RCLError: failed to initialize wait set: the
given context is not valid``).

rclpy is imported only when a listener is created: :func:`topic_name` needs no ROS.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import threading
from typing import Any, Optional, Union
import uuid

DEFAULT_NODE = 'bt_executive'
#: Depth of the ``~/events`` subscription (the executive keeps the last 20 batches).
EVENTS_DEPTH = 100
#: Longest wait of one step of the background thread (it is woken at once on close).
_SPIN_STEP = 1.0


def _check_name(name: str, namespace: str, node: str) -> None:
    if not name or not (name[0].isalpha() or name[0] == '_') \
            or not all(char.isalnum() or char == '_' for char in name):
        raise ValueError(f'not a valid ROS name: {name!r} (namespace {namespace!r}, '
                         f'node {node!r})')


def split_node_name(namespace: str = '', node: str = DEFAULT_NODE) -> tuple[str, str]:
    """Return the absolute namespace and the base name of an executive node.

    Args:
        namespace: the executive's namespace (``''``, ``/``, ``robot1``, ``/a/b/``)
        node: the node name, or its fully qualified name (``/robot1/bt_executive``: then
            ``namespace`` is ignored)

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.
    """
    given = node.strip()
    if given.startswith('/'):
        parts = [part for part in given.split('/') if part]
        parts, base = parts[:-1], (parts[-1] if parts else '')
    else:
        parts, base = [part for part in namespace.strip().split('/') if part], given
    for name in [*parts, base]:
        _check_name(name, namespace, node)
    return '/' + '/'.join(parts), base


def topic_name(namespace: str = '', node: str = DEFAULT_NODE, topic: str = 'snapshot') -> str:
    """Return the absolute name of the executive's private topic ``~/<topic>``.

    ``topic_name('robot1')`` is ``/robot1/bt_executive/snapshot``; the arguments are those
    of :func:`split_node_name`.

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.
    """
    space, base = split_node_name(namespace, node)
    return f'{space.rstrip("/")}/{base}/{topic}'


TextCallback = Callable[[str], Any]


class SnapshotListener:
    """A node on its own rclpy context that listens to one executive.

    Args:
        namespace: the executive's namespace
        node: the executive's node name (or its fully qualified name)
        on_snapshot: called with the text of each ``~/snapshot`` message
        on_events: called with the text of each ``~/events`` batch
        on_status: called with the text of each ``~/status`` message
        on_delta: called with the text of each ``~/snapshot_delta`` message (reliable,
            transient local, the last 100: feed them with the snapshots to a
            :class:`~bt_executive.observe.delta.SnapshotState`)
        name: the listener node's name; a random suffix keeps it unique
        args: ROS command-line arguments for the context (e.g. ``--ros-args ...``)

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.

    Callbacks run in the thread that spins: the caller's (:meth:`spin_once`) or the
    listener's own (:meth:`start`). The listener node lives in the executive's namespace,
    so :meth:`subscribe` resolves relative topic names (``sim_state``) next to it.
    """

    def __init__(self, namespace: str = '', node: str = DEFAULT_NODE, *,
                 on_snapshot: Optional[TextCallback] = None,
                 on_events: Optional[TextCallback] = None,
                 on_status: Optional[TextCallback] = None,
                 on_delta: Optional[TextCallback] = None, name: str = 'bt_listener',
                 args: Optional[Sequence[str]] = None) -> None:
        self.namespace, self.executive = split_node_name(namespace, node)
        self.snapshot_topic = topic_name(namespace, node, 'snapshot')
        self.events_topic = topic_name(namespace, node, 'events')
        self.status_topic = topic_name(namespace, node, 'status')
        self.delta_topic = topic_name(namespace, node, 'snapshot_delta')
        #: exceptions that ended the background thread (callbacks, rclpy)
        self.errors: list[BaseException] = []
        #: True once :meth:`close` has stopped spinning (and joined the thread, if any)
        self.stopped = False
        self._closed = False
        self._stopping = threading.Event()
        self._thread: Optional[threading.Thread] = None

        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.signals import SignalHandlerOptions

        self.context = Context()
        rclpy.init(args=list(args or []), context=self.context,
                   signal_handler_options=SignalHandlerOptions.NO)
        self.node: Any = None
        self.executor: Any = None
        #: the ``~/snapshot_delta`` subscription (with ``on_delta``)
        self.delta_subscription: Any = None
        try:
            self.node = rclpy.create_node(f'{name}_{uuid.uuid4().hex[:8]}',
                                          namespace=self.namespace, context=self.context,
                                          start_parameter_services=False)
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
            if on_snapshot is not None:
                self.subscribe(self.snapshot_topic, lambda msg: on_snapshot(msg.data))
            if on_events is not None:
                self.subscribe(self.events_topic, lambda msg: on_events(msg.data),
                               depth=EVENTS_DEPTH)
            if on_status is not None:
                self.subscribe(self.status_topic, lambda msg: on_status(msg.data))
            if on_delta is not None:
                self.delta_subscription = self.subscribe(
                    self.delta_topic, lambda msg: on_delta(msg.data), depth=EVENTS_DEPTH)
        except BaseException:
            self._release()
            raise

    def subscribe(self, topic: str, callback: Callable[[Any], Any], *,
                  msg_type: Union[str, type] = 'std_msgs/msg/String', depth: int = 1,
                  latched: bool = True) -> Any:
        """Subscribe to another topic; ``callback`` gets the message.

        Args:
            topic: absolute, or relative to the executive's namespace
            callback: called with each message
            msg_type: the message class or its type string
            depth: history depth
            latched: reliable and transient local (the executive's latched topics);
                False: reliable and volatile

        Returns:
            the rclpy subscription.
        """
        from bt_executive.ros.interfaces import resolve
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

        if isinstance(msg_type, str):
            msg_type = resolve(msg_type, kind='msg')
        durability = DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE
        qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                         durability=durability)
        return self.node.create_subscription(msg_type, topic, callback, qos)

    # ---- spinning --------------------------------------------------------------------

    def spin_once(self, timeout_sec: Optional[float] = None) -> None:
        """Run at most one ready callback, waiting up to ``timeout_sec`` (caller's thread)."""
        if self._thread is not None:
            raise RuntimeError('the listener spins on its own thread (start() was called)')
        if not self._closed:
            self.executor.spin_once(timeout_sec=timeout_sec)

    def start(self) -> 'SnapshotListener':
        """Spin on a background (daemon) thread until :meth:`close`; return self."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._spin, name='bt-executive-listener',
                                            daemon=True)
            self._thread.start()
        return self

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException
        try:
            while not self._stopping.is_set():
                self.executor.spin_once(timeout_sec=_SPIN_STEP)
        except ExternalShutdownException:  # someone else shut the context down
            pass
        except BaseException as error:  # noqa: B902 - kept for the owner (see errors)
            self.errors.append(error)

    # ---- teardown --------------------------------------------------------------------

    def close(self, timeout: float = 5.0) -> None:
        """Stop spinning, join the thread, then destroy the node and shut the context down.

        Safe to call twice. If a callback still runs after ``timeout`` seconds, the node
        and the context are left alone (the thread is a daemon) and :attr:`stopped`
        stays False.
        """
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        if self.executor is not None:
            # wakes a waiting spin_once at once; it returns without running anything
            self.executor.shutdown(timeout_sec=0)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                return
        self.stopped = True
        self._release()

    def _release(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(timeout_sec=0)
        if self.node is not None:
            self.node.destroy_node()
        self.context.try_shutdown()

    def __enter__(self) -> 'SnapshotListener':
        """Return the listener (use ``with`` to close it)."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Close the listener (see :meth:`close`)."""
        self.close()


__all__ = ['DEFAULT_NODE', 'EVENTS_DEPTH', 'SnapshotListener', 'split_node_name',
           'topic_name']
