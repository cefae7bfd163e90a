#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A viewer that comes and goes, again and again: a peer process of the churn tests.

Usage::

    viewer_churn.py EXECUTIVE MODE [--cycles N] [--tree FILE ...] [--timeout SECONDS]

``EXECUTIVE`` is the executive's full node name (``/ns/bt_executive``). Modes:

    topics    each cycle subscribes to every topic the executive publishes (~/status,
              ~/snapshot, ~/snapshot_delta, ~/events, and ~/snapshots when
              py_trees_ros_interfaces is importable), waits for a message on each, then
              destroys the subscriptions
    streams   each cycle opens a py_trees_ros snapshot stream, subscribes, waits for a
              snapshot, then leaves: odd cycles unsubscribe first and then close, even
              cycles close first and then unsubscribe
    leave     each cycle is a new DDS participant (an rclpy Context) that opens a stream,
              subscribes, waits for a snapshot and shuts down without closing it
    hold      opens ``--cycles`` streams, subscribes to each and waits for its snapshot,
              prints HELD and waits to be killed (the test sends SIGKILL: viewers killed
              without closing their streams)
    swaps     each cycle sets the executive's ``tree_file`` to the next of the ``--tree``
              files (a swap while the tree runs) and waits for the answer; with
              ``--goals EVENTS`` (the events topic of a fibonacci_server.py peer) it then
              waits until the server accepted a goal sent after the swap, so every swap
              comes while a goal runs however slow discovery is on a busy machine

Every subscription must match the executive's publisher (bounded by ``--timeout``); its
first message is then awaited for at most ``--delivery-wait`` seconds and counted as
``received`` or ``stalled`` (see :meth:`Churn.wait_delivery`); with ``--strict`` it must
come within ``--timeout``, but for the ``--optional`` topics (``stream``: the streams
opened), awaited ``--delivery-wait`` seconds and reported as ``missing`` in the ``done``
event.

Prints one JSON line per event: ``{"event": "progress", "mode": ..., "cycles": n}`` every
10 cycles and ``{"event": "done", "mode": ..., "cycles": N, "received": n, "stalled": m}``
at the end. A wait that runs out prints ``{"event": "failed", ...}`` with what it waited
for and exits with status 1. SIGINT or SIGTERM end it early (status 0).
"""

import argparse
import json
import sys
import threading
import time
from typing import Any, Callable, Optional

from peer_common import events_qos, stop_on_signals


#: Seconds a service answer may take before the request is sent again.
ANSWER_TIMEOUT = 3.0

#: Seconds a matched subscription waits for its first message before the cycle goes on
#: (``--delivery-wait``); ``--strict`` makes a message that does not come a failure.
DELIVERY_WAIT = 3.0

#: Cycles whose first message came (``received``) or not within DELIVERY_WAIT (``stalled``).
TALLY: dict[str, Any] = {'received': 0, 'stalled': 0}


def emit(event: str, **fields: Any) -> None:
    """Print one event as a JSON line."""
    print(json.dumps({'event': event, **fields}, sort_keys=True), flush=True)


class Failed(Exception):
    """A wait ran out; the message says for what."""


class Churn:
    """One rclpy context and node; waits spin it, bounded.

    Everything happens on one thread: entities are made and destroyed between two
    ``spin_once`` calls, never while another thread waits in the executor (rclpy's
    executor then raises InvalidHandle, or worse).
    """

    def __init__(self, executive: str, timeout: float, stop: threading.Event, *,
                 delivery_wait: float = DELIVERY_WAIT, strict: bool = False,
                 optional: tuple[str, ...] = ()) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        self.executive = executive
        self.timeout = timeout
        self.stop = stop
        self.delivery_wait = delivery_wait
        self.strict = strict
        #: topics whose first message is awaited for ``delivery_wait`` s even when strict,
        #: and reported as ``missing`` when it does not come
        self.optional = optional
        #: how many times the last :meth:`call` sent its request
        self.sent = 0
        self.context = Context()
        rclpy.init(context=self.context, signal_handler_options=_no_signals())
        self.node = rclpy.create_node('viewer_churn', context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def wait(self, predicate: Callable[[], Any], what: str) -> Any:
        """Spin until ``predicate()`` is true, at most ``timeout`` seconds."""
        deadline = time.monotonic() + self.timeout
        while True:
            value = predicate()
            if value:
                return value
            if self.stop.is_set():
                raise KeyboardInterrupt
            if time.monotonic() >= deadline:
                raise Failed(f'{what} within {self.timeout:g} s')
            self.executor.spin_once(timeout_sec=0.01)

    def wait_delivery(self, predicate: Callable[[], Any], *, optional: bool = False) -> bool:
        """Spin until ``predicate()`` (a message arrived), at most ``delivery_wait`` s.

        Returns False when it did not come (with ``strict``, unless ``optional``: raises
        :class:`Failed` after ``timeout`` s). Under heavy churn Fast DDS was seen not to
        deliver a latched sample to a matched reader for 30 s although the executive
        published it again and again (traced with prints in the executive): that is
        the middleware's, and the churn goes on; the counts are reported.
        """
        strict = self.strict and not optional
        deadline = time.monotonic() + (self.timeout if strict else self.delivery_wait)
        while not predicate():
            if self.stop.is_set():
                raise KeyboardInterrupt
            if time.monotonic() >= deadline:
                if strict:
                    raise Failed(f'a first message within {self.timeout:g} s after matching')
                return False
            self.executor.spin_once(timeout_sec=0.01)
        return True

    def call(self, client: Any, request: Any, what: str) -> Any:
        """Call a service and return its response (bounded; asked again if lost).

        Fast DDS drops a response to a client whose reply reader the server has not
        matched yet (``failed to send response (timeout)`` in the server's log: on a
        loaded machine, a fresh client's first call): the request is sent again after
        :data:`ANSWER_TIMEOUT` seconds, as a viewer would. :attr:`sent` says how many
        times the last call sent its request: a service that is not idempotent (closing
        a stream) may have done its work on a request whose answer was the one lost.
        """
        self.wait(client.service_is_ready, f'{what}: the service')
        deadline = time.monotonic() + self.timeout
        self.sent = 0
        while True:
            self.sent += 1
            future = client.call_async(request)
            answered = time.monotonic() + min(ANSWER_TIMEOUT, deadline - time.monotonic())
            while not future.done() and time.monotonic() < answered:
                if self.stop.is_set():
                    raise KeyboardInterrupt
                self.executor.spin_once(timeout_sec=0.01)
            if future.done():
                return future.result()
            client.remove_pending_request(future)
            if time.monotonic() >= deadline:
                raise Failed(f'{what}: the answer within {self.timeout:g} s')

    def close(self) -> None:
        """Shut the executor and the context down (no stream is closed)."""
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.context.try_shutdown()


def _no_signals() -> Any:
    from rclpy.signals import SignalHandlerOptions
    return SignalHandlerOptions.NO


def latched() -> Any:
    """Return the latched QoS of the executive's topics (reliable, transient local)."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    return QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


def streams_interfaces() -> Optional[Any]:
    """Return py_trees_ros_interfaces' msg and srv modules, or None if not importable."""
    try:
        import py_trees_ros_interfaces.msg as msg
        import py_trees_ros_interfaces.srv as srv
    except ImportError:
        return None
    return msg, srv


def run_topics(churn: Churn, cycles: int) -> None:
    """Subscribe to every executive topic, wait for a message on each, unsubscribe."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    history = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    topics = [(String, 'status', latched()), (String, 'snapshot', latched()),
              (String, 'snapshot_delta', history), (String, 'events', history)]
    interfaces = streams_interfaces()
    if interfaces is not None:
        topics.append((interfaces[0].BehaviourTree, 'snapshots', latched()))
    for cycle in range(1, cycles + 1):
        got: dict[str, int] = {}
        subscriptions = [churn.node.create_subscription(
            kind, f'{churn.executive}/{name}',
            lambda message, name=name: got.__setitem__(name, got.get(name, 0) + 1), qos)
            for kind, name, qos in topics]
        # every subscription matched (the executive's publishers see a subscriber come)
        churn.wait(lambda: all(subscription.get_publisher_count() > 0
                               for subscription in subscriptions),
                   f'cycle {cycle}: every subscription matched')
        # ~/events has a history only once something happened: not waited for
        wanted = [name for _, name, _ in topics
                  if name != 'events' and name not in churn.optional]
        try:
            arrived = churn.wait_delivery(lambda: all(got.get(name) for name in wanted))
        except Failed as error:
            raise Failed(f'cycle {cycle}: {error} on {[n for n in wanted if not got.get(n)]}')
        TALLY['received' if arrived else 'stalled'] += 1
        if churn.optional:
            deadline = time.monotonic() + churn.delivery_wait
            while time.monotonic() < deadline \
                    and not all(got.get(name) for name in churn.optional):
                churn.executor.spin_once(timeout_sec=0.01)
            TALLY.setdefault('missing', []).extend(
                name for name in churn.optional if not got.get(name))
        for subscription in subscriptions:
            churn.node.destroy_subscription(subscription)
        progress('topics', cycle, cycles)


def open_stream(churn: Churn, interfaces: Any, cycle: int) -> tuple[str, Any, list[Any]]:
    """Open a stream, subscribe and wait for its first snapshot."""
    msg, srv = interfaces
    opener = churn.node.create_client(srv.OpenSnapshotStream,
                                      f'{churn.executive}/snapshot_streams/open')
    request = srv.OpenSnapshotStream.Request()
    request.parameters.blackboard_data = True
    request.parameters.snapshot_period = 0.5
    topic = churn.call(opener, request, f'cycle {cycle}: open').topic_name
    churn.node.destroy_client(opener)
    if not topic:
        raise Failed(f'cycle {cycle}: the stream was not opened (empty topic name)')
    received: list[Any] = []
    subscription = churn.node.create_subscription(msg.BehaviourTree, topic,
                                                  received.append, latched())
    churn.wait(lambda: subscription.get_publisher_count() > 0,
               f'cycle {cycle}: the subscription to {topic} matched')
    optional = 'stream' in churn.optional
    if churn.wait_delivery(lambda: received, optional=optional):
        TALLY['received'] += 1
    else:
        TALLY['stalled'] += 1
        if optional:
            TALLY.setdefault('missing', []).append('stream')
    return topic, subscription, received


def close_stream(churn: Churn, interfaces: Any, topic: str, cycle: int) -> None:
    """Close a stream through the executive's service; it must know it.

    Unless the request went twice: the first may have closed the stream and lost its
    answer (a fresh client, see :meth:`Churn.call`), and the second then finds it gone.
    """
    _, srv = interfaces
    closer = churn.node.create_client(srv.CloseSnapshotStream,
                                      f'{churn.executive}/snapshot_streams/close')
    result = churn.call(closer, srv.CloseSnapshotStream.Request(topic_name=topic),
                        f'cycle {cycle}: close').result
    churn.node.destroy_client(closer)
    if not result and churn.sent == 1:
        raise Failed(f'cycle {cycle}: the executive did not know the stream {topic}')


def run_streams(churn: Churn, cycles: int) -> None:
    """Open, read and close streams, unsubscribing before or after the close."""
    interfaces = streams_interfaces()
    if interfaces is None:
        raise Failed('py_trees_ros_interfaces is not importable')
    for cycle in range(1, cycles + 1):
        topic, subscription, _ = open_stream(churn, interfaces, cycle)
        if cycle % 2:
            churn.node.destroy_subscription(subscription)
            close_stream(churn, interfaces, topic, cycle)
        else:
            close_stream(churn, interfaces, topic, cycle)
            churn.node.destroy_subscription(subscription)
        progress('streams', cycle, cycles)


def run_leave(executive: str, timeout: float, stop: threading.Event, cycles: int,
              **options: Any) -> None:
    """Each cycle a new participant opens a stream and leaves without closing it."""
    interfaces = streams_interfaces()
    if interfaces is None:
        raise Failed('py_trees_ros_interfaces is not importable')
    for cycle in range(1, cycles + 1):
        churn = Churn(executive, timeout, stop, **options)
        try:
            open_stream(churn, interfaces, cycle)
        finally:
            churn.close()
        progress('leave', cycle, cycles)


def run_hold(churn: Churn, streams: int) -> None:
    """Open ``streams`` streams, read each, say HELD and wait to be killed."""
    interfaces = streams_interfaces()
    if interfaces is None:
        raise Failed('py_trees_ros_interfaces is not importable')
    topics = [open_stream(churn, interfaces, cycle)[0] for cycle in range(1, streams + 1)]
    emit('held', topics=topics)
    print('HELD', flush=True)
    churn.stop.wait()


def run_swaps(churn: Churn, cycles: int, trees: list[str], goals: str = '') -> None:
    """Set tree_file to each tree in turn (a swap while the tree runs).

    With ``goals`` (a fibonacci_server.py events topic), each swap is followed by a wait
    for a goal the server accepted after it.
    """
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters
    from std_msgs.msg import String

    if len(trees) < 2:
        raise Failed('swaps needs two --tree files or more')
    accepted: list[str] = []
    if goals:
        def on_event(message: Any) -> None:
            event = json.loads(message.data)
            if event.get('event') == 'goal_accepted':
                accepted.append(event['goal_id'])

        churn.node.create_subscription(String, goals, on_event, events_qos())
        churn.wait(lambda: accepted, f'a goal accepted by the server ({goals})')
    client = churn.node.create_client(SetParameters, f'{churn.executive}/set_parameters')
    for cycle in range(1, cycles + 1):
        value = ParameterValue(type=ParameterType.PARAMETER_STRING,
                               string_value=trees[cycle % len(trees)])
        request = SetParameters.Request(parameters=[Parameter(name='tree_file', value=value)])
        before = len(accepted)
        result = churn.call(client, request, f'swap {cycle}').results[0]
        if not result.successful:
            raise Failed(f'swap {cycle} was rejected: {result.reason}')
        if goals:
            churn.wait(lambda: len(accepted) > before,
                       f'the goal of the tree swapped in (swap {cycle}) to be accepted')
        progress('swaps', cycle, cycles)


def progress(mode: str, cycle: int, cycles: int) -> None:
    """Report every tenth cycle and the last."""
    if cycle % 10 == 0 or cycle == cycles:
        emit('progress', mode=mode, cycles=cycle)


def main(argv: Optional[list[str]] = None) -> int:
    """Churn as the mode says; 0 when every cycle was done (or a signal ended it)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('executive')
    parser.add_argument('mode', choices=('topics', 'streams', 'leave', 'hold', 'swaps'))
    parser.add_argument('--cycles', type=int, default=100)
    parser.add_argument('--tree', action='append', default=[])
    parser.add_argument('--goals', default='',
                        help='swaps: the events topic of the action server to await a goal on')
    parser.add_argument('--timeout', type=float, default=20.0)
    parser.add_argument('--delivery-wait', type=float, default=DELIVERY_WAIT)
    parser.add_argument('--strict', action='store_true',
                        help='a first message that does not come within --timeout fails')
    parser.add_argument('--optional', action='append', default=[],
                        help='a topic (stream: the streams opened) awaited for '
                        '--delivery-wait only, reported as missing')
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    stop = stop_on_signals()
    try:
        options = {'delivery_wait': args.delivery_wait, 'strict': args.strict,
                   'optional': tuple(args.optional)}
        if args.mode == 'leave':
            run_leave(args.executive, args.timeout, stop, args.cycles, **options)
        else:
            churn = Churn(args.executive, args.timeout, stop, **options)
            try:
                if args.mode == 'topics':
                    run_topics(churn, args.cycles)
                elif args.mode == 'streams':
                    run_streams(churn, args.cycles)
                elif args.mode == 'hold':
                    run_hold(churn, args.cycles)
                else:
                    run_swaps(churn, args.cycles, args.tree, args.goals)
            finally:
                churn.close()
    except Failed as error:
        emit('failed', mode=args.mode, reason=str(error))
        return 1
    except KeyboardInterrupt:
        return 0
    emit('done', mode=args.mode, cycles=args.cycles, **TALLY)
    return 0


if __name__ == '__main__':
    sys.exit(main())
