# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the peer scripts share: start-up, event reporting, signal handling, the serve loop.

The peers run as scripts (``python peers/<name>.py``), so this folder is on their
``sys.path`` and they import this module directly.
"""

import json
import signal
import threading
import time
from typing import Any


def events_qos() -> Any:
    """Return the QoS of a peer's ``<source>/events``: reliable, latched, the last 100."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


class EventReporter:
    """Print events as JSON lines and publish them on a latched topic."""

    def __init__(self, node: Any, source: str) -> None:
        """Create the events publisher ``<source>/events`` on ``node``."""
        from std_msgs.msg import String

        self._string = String
        self._source = source
        self._lock = threading.Lock()
        self._seq = 0
        self._publisher = node.create_publisher(String, f'{source}/events', events_qos())

    def emit(self, event: str, **fields: Any) -> None:
        """Report one event."""
        with self._lock:
            self._seq += 1
            record = {'event': event, 'seq': self._seq, 'time': time.time(),
                      'source': self._source, **fields}
            line = json.dumps(record, sort_keys=True)
            print(line, flush=True)
            self._publisher.publish(self._string(data=line))


def stop_on_signals() -> threading.Event:
    """Return an event that SIGINT and SIGTERM set (rclpy's own handlers stay off)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    return stop


def start_node(prefix: str, name: str) -> tuple[Any, threading.Event]:
    """Install the stop signals, initialise rclpy without its own handlers, create the node.

    Args:
        prefix: the node name's prefix (the peer's kind, e.g. ``fibonacci_server``)
        name: what the peer serves (action, service or topic name); a number derived from
            it ends the node name, so that peers serving different names do not clash

    Returns:
        The node and the event that SIGINT and SIGTERM set (see :func:`stop_on_signals`).
    """
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    stop = stop_on_signals()
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    return rclpy.create_node(f'{prefix}_{abs(hash(name)) % 10 ** 6}'), stop


def await_reply_reader(node: Any, service: str, stop: threading.Event,
                       timeout: float = 5.0) -> bool:
    """Wait (bounded) until a client's reply reader of ``service`` is in the ROS graph.

    A request can arrive before this process has discovered the client's reply reader;
    rmw_fastrtps then waits only 100 ms for the match and drops the response ("client
    will not receive response"). A server callback calls this before it answers, so a
    loaded machine cannot turn a discovery race into a lost reply.

    Returns:
        Whether the reader was seen before ``timeout`` seconds (or ``stop``).
    """
    topic = f'rr{node.resolve_service_name(service)}Reply'
    deadline = time.monotonic() + timeout
    while not node.get_subscriptions_info_by_topic(topic, no_mangle=True):
        if time.monotonic() >= deadline or stop.wait(0.01):
            return False
    return True


def serve(node: Any, events: EventReporter, mode: str, stop: threading.Event) -> None:
    """Spin ``node`` on a multi-threaded executor until ``stop``; report ready and shutdown.

    Prints ``READY`` once serving. Returns after the executor and rclpy are shut down;
    the caller destroys its entities and the node.
    """
    import rclpy
    from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor

    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(node)

    def spin() -> None:
        try:
            executor.spin()
        except ExternalShutdownException:
            pass

    spinner = threading.Thread(target=spin, name='executor', daemon=True)
    spinner.start()
    events.emit('ready', mode=mode)
    print('READY', flush=True)
    while not stop.wait(1.0):
        pass  # Event.wait with a timeout keeps the main thread responsive to signals.
    events.emit('shutdown')
    executor.shutdown(timeout_sec=2.0)
    rclpy.try_shutdown()
    spinner.join(2.0)
