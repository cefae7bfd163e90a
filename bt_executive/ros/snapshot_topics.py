# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's JSON topics: ``~/snapshot``, ``~/snapshot_delta``, ``~/events``, ``~/status``.

:class:`SnapshotTopics` publishes what the snapshot model (``SnapshotBuilder``) and the
delta observer (:class:`~bt_executive.observe.delta.DeltaTracker`) say after each tick:

- ``~/snapshot`` (latched): the full snapshot, a *keyframe*: when the structure changed
  (a new tree, a tree described again), every ``snapshot_heartbeat`` seconds, and after
  :data:`KEYFRAME_DELTAS` messages on ``~/snapshot_delta`` since the last one (so the
  latched snapshot and the deltas the topic keeps always form a chain a late joiner can
  follow); with ``snapshot_on_change``, also on every change as before deltas existed;
- ``~/snapshot_delta`` (reliable, transient local, the last 100): a delta on every change
  (docs/snapshots.md), and a heartbeat delta (a few hundred bytes: seq, stamp, tick) when
  nothing was published for ``snapshot_keepalive`` seconds, so viewers tell a quiet tree
  from a dead executive without full snapshots;
- ``~/events`` (reliable, transient local, the last 20): the status transitions;
- ``~/status`` (latched): what the executive says (:meth:`SnapshotTopics.publish_status`).

What is published goes to the *outputs* too, each a separate observer of the same
messages with ``put(topic, text)`` and ``close()``, each made from the executive's
parameter table (:func:`~bt_executive.ros.parameters.parameter_values`) by
:func:`open_outputs`: :class:`Recording` writes them, as published, to ``record_file``
(MCAP, :class:`~bt_executive.observe.bag.BagWriter`; rotated at ``record_max_size``; with
``record_foxglove``, the default, its Foxglove companion ``run.foxglove.mcap`` too) and
:class:`FoxgloveOutput` feeds a Foxglove WebSocket server on ``foxglove_port``
(:class:`~bt_executive.observe.foxglove_server.FoxgloveServer`: the channels of
``bt-executive foxglove``, served from inside the executive). The core closes them when
the executive stops (a recording is finalised there).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from bt_executive.observe.delta import DeltaTracker, heartbeat_delta, same_structure
from bt_executive.observe.snapshot import SnapshotBuilder, to_json

#: Deltas kept on ``~/snapshot_delta`` for late joiners (the chain from the latched
#: keyframe, :data:`KEYFRAME_DELTAS`). Fast DDS keeps, for each message of a topic's
#: history, a buffer as large as the largest message it ever held there (rmw_fastrtps'
#: PREALLOCATED_WITH_REALLOC memory policy): over a long run a history costs its depth
#: times the topic's largest messages, most of the executive's slow rise in memory
#: (RELIABILITY.md, Soak). Fewer deltas would mean more keyframes on the wire.
HISTORY = 100
#: Batches kept on ``~/events``: the recent past a late joiner shows (a small history,
#: for the memory reason above: a batch is the executive's largest message).
EVENTS_HISTORY = 20
#: Messages on ``~/snapshot_delta`` after which a full snapshot is due: half the history,
#: so a late joiner that gets the latched snapshot a little before the kept deltas (two
#: topics) still finds every delta since that snapshot among them.
KEYFRAME_DELTAS = HISTORY // 2


def history_qos(depth: int = HISTORY) -> Any:
    """Return the QoS of ``~/snapshot_delta`` and ``~/events``: reliable, the last ``depth``."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    return QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


class Recording:
    """An output: write every message, as published, to an MCAP file (``record_file``).

    Args:
        path: the file (``run.mcap``; split files get a number)
        prefix: the executive's node name (the topics are ``<prefix>/snapshot`` ...)
        max_size: bytes per split (0 = one file)
        foxglove: also write the Foxglove companion ``run.foxglove.mcap``
        logger: the node's logger
        node: when given, a steady timer on it writes the chunk in progress every
            ``flush_period`` seconds even when nothing is published, so a kill loses at
            most that much (docs/recording.md, crash guarantees)
    """

    def __init__(self, path: str, prefix: str, *, max_size: int, foxglove: bool,
                 logger: Any, node: Any = None) -> None:
        from bt_executive.observe.bag import BagWriter, KEPT, TOPICS
        self._logger = logger
        self.bag: Optional[Any] = BagWriter(
            path, {f'{prefix}/{name}': latched for name, latched in TOPICS.items()},
            kept={f'{prefix}/{name}': n for name, n in KEPT.items()}, max_size=max_size,
            foxglove=foxglove, metadata={'node': prefix, 'recorded_by': 'the executive'})
        logger.info(f'recording {", ".join(f"{prefix}/{name}" for name in TOPICS)} to {path}')
        for name, moved in self.bag.set_aside:
            logger.warning(f'{name} was not finalised (its executive was killed?): kept as '
                           f'{moved} (bt-executive record --recover {moved} finalises it)')
        self._node = node
        self._timer: Any = None
        if node is not None:
            from rclpy.clock import Clock, ClockType
            self._timer = node.create_timer(self.bag.flush_period, self.flush_due,
                                            clock=Clock(clock_type=ClockType.STEADY_TIME))

    def flush_due(self) -> None:
        """Write the chunk in progress if ``flush_period`` passed since the last write."""
        if self.bag is None:
            return
        try:
            self.bag.flush_due()
        except OSError as error:
            self._logger.error(f'recording stopped: {error}')
            self.bag = None

    def put(self, topic: str, text: str) -> None:
        """Write one message (a full disk stops the recording; the executive runs on)."""
        if self.bag is None:
            return
        try:
            self.bag.write_text(topic, text)
        except OSError as error:
            self._logger.error(f'recording stopped: {error}')
            self.bag = None

    def close(self) -> None:
        """Finalise the recording (idempotent)."""
        if self._timer is not None:
            timer, self._timer = self._timer, None
            self._node.destroy_timer(timer)
        if self.bag is None:
            return
        bag, self.bag = self.bag, None
        try:
            bag.close()
            self._logger.info(f'recorded {bag.messages} messages to '
                              f'{", ".join(bag.files + bag.foxglove_files)}')
        except OSError as error:
            self._logger.error(f'cannot finalise {bag.files[-1]}: {error}')


class FoxgloveOutput:
    """An output: serve every message to the Foxglove app over WebSocket (``foxglove_port``).

    Args:
        server: the running :class:`~bt_executive.observe.foxglove_server.FoxgloveServer`
    """

    def __init__(self, server: Any) -> None:
        self.server: Optional[Any] = server

    @classmethod
    def start(cls, prefix: str, *, address: str, port: int,
              logger: Any) -> Optional['FoxgloveOutput']:
        """Start the server; None (logged as an error) if the SDK or the port is missing.

        The executive runs on without it; the SDK is imported only here.
        """
        address = address or '127.0.0.1'
        try:
            from bt_executive.observe.foxglove_server import FoxgloveServer
            server = FoxgloveServer(prefix, host=address, port=port)
        except ImportError:
            logger.error('Foxglove is off: the foxglove-sdk package is not installed '
                         '(pip install foxglove-sdk)')
            return None
        except RuntimeError as error:
            logger.error(f'Foxglove is off: cannot listen on {address}:{port}: {error}')
            return None
        if address not in ('127.0.0.1', '::1', 'localhost'):
            logger.warning(f'Foxglove server on {address}, not loopback: anyone who can '
                           'reach it sees the tree and its blackboard')
        logger.info(f'Foxglove on {server.url} (Open connection > Foxglove WebSocket)')
        return cls(server)

    def put(self, topic: str, text: str) -> None:
        """Serve one message on its channel."""
        if self.server is not None:
            self.server.put(topic, text)

    def close(self) -> None:
        """Stop the server (idempotent)."""
        if self.server is not None:
            server, self.server = self.server, None
            server.close()


def open_outputs(node: Any, values: dict[str, Any]) -> list[Any]:
    """Make the outputs the parameter ``values`` ask for: a recording, a Foxglove server.

    Args:
        node: the executive's node (its name prefixes the topics; its logger)
        values: the executive's parameter values (``record_*``, ``foxglove_*``)
    """
    prefix = node.get_fully_qualified_name().rstrip('/')
    logger = node.get_logger()
    outputs: list[Any] = []
    if values.get('record_file'):
        outputs.append(Recording(values['record_file'], prefix,
                                 max_size=int(values.get('record_max_size', 0)),
                                 foxglove=bool(values.get('record_foxglove', True)),
                                 logger=logger, node=node))
    if values.get('foxglove_port'):
        foxglove = FoxgloveOutput.start(prefix, address=values.get('foxglove_address', ''),
                                        port=int(values['foxglove_port']), logger=logger)
        if foxglove is not None:
            outputs.append(foxglove)
    return outputs


def start_groot2(values: dict[str, Any], *, logger: Any, render_value: Callable[[Any], Any],
                 storage: Callable[[], dict[str, Any]],
                 hooks: Optional[Callable[[str, Optional[bytes]], Optional[bytes]]] = None
                 ) -> Any:
    """Start the Groot2 server if ``groot2_port`` is set (docs/groot2.md), else None.

    A port in use or pyzmq/msgpack missing is logged as an error and the executive runs
    on without it; pyzmq and msgpack are imported only here.

    Args:
        values: the executive's parameter values (``groot2_port``, ``groot2_address``)
        logger: the node's logger
        render_value: renders a blackboard value as JSON data
        storage: returns the executive's blackboard storage
        hooks: answers Groot2's hook requests (None: the server is read-only)
    """
    port, address = values.get('groot2_port'), values.get('groot2_address', '127.0.0.1')
    if not port:
        return None
    try:
        from bt_executive.observe.groot2 import Groot2Server
        server = Groot2Server(port, address, logger=logger, render_value=render_value,
                              storage=storage, hooks=hooks)
    except Exception as error:  # noqa: B902 - ImportError, Groot2Error: run on without
        logger.error(f'Groot2 monitoring is off: {error}')
        return None
    logger.info(f'Groot2 monitoring on {server.endpoint}')
    return server


class SnapshotTopics:
    """Publish one executive's snapshots, deltas, events and status, and hand them on.

    Decides what goes out after each tick (keyframes, deltas, heartbeats, events);
    publishes it on the ROS topics and gives every message to the ``outputs`` as well.

    Args:
        node: the executive node (its publishers live under ``~/``)
        outputs: where every message goes besides the topics (:func:`open_outputs`)
    """

    def __init__(self, node: Any, *, outputs: Optional[list[Any]] = None) -> None:
        from std_msgs.msg import String

        from bt_executive.ros import entities
        from bt_executive.ros.subscriptions import qos_profile
        self._string = String
        self.snapshot = entities.publisher(node, String, '~/snapshot', qos_profile('latched'))
        self.delta = entities.publisher(node, String, '~/snapshot_delta', history_qos())
        self.events = entities.publisher(node, String, '~/events',
                                         history_qos(EVENTS_HISTORY))
        self.status = entities.publisher(node, String, '~/status', qos_profile('latched'))
        self.outputs = outputs if outputs is not None else []
        prefix = node.get_fully_qualified_name().rstrip('/')
        self._names = {'snapshot': f'{prefix}/snapshot', 'delta': f'{prefix}/snapshot_delta',
                       'events': f'{prefix}/events', 'status': f'{prefix}/status'}
        self.tracker = DeltaTracker()
        #: the last snapshot built (what the next delta starts from)
        self.previous: Optional[dict[str, Any]] = None
        #: bytes published on each topic (``snapshot``, ``delta``, ``events``)
        self.bytes = {'snapshot': 0, 'delta': 0, 'events': 0}
        #: messages published on each topic
        self.counts = {'snapshot': 0, 'delta': 0, 'events': 0}
        self._last_full = self._last_sent = -1.0
        #: messages on ``~/snapshot_delta`` since the last full snapshot
        self.since_full = 0

    def install(self, runner: Any) -> None:
        """Observe a new tree's runner (call with the new snapshot builder)."""
        self.tracker = DeltaTracker()
        self.previous = None
        runner.add_observer(self.tracker)

    def publish(self, builder: SnapshotBuilder, *, heartbeat: float,
                on_change: bool = False, keepalive: float = 0.0) -> None:
        """Publish what changed since the last call; the full snapshot when due.

        Args:
            builder: the tree's snapshot model
            heartbeat: seconds between full snapshots (keyframes); 0: only on a structure
                change and every :data:`KEYFRAME_DELTAS` deltas
            on_change: also the full snapshot on every change
            keepalive: seconds without a message after which a heartbeat delta goes out
                (0: none)
        """
        snapshot = builder.update()
        events = builder.events()
        if events:
            self._send(self.events, 'events', to_json(builder.event_batch(events)))
        now = time.monotonic()
        keyframe_due = heartbeat > 0.0 and now - self._last_full >= heartbeat
        if snapshot is not None:
            previous, self.previous = self.previous, snapshot
            if same_structure(previous, snapshot):
                assert previous is not None
                self._send(self.delta, 'delta', to_json(self.tracker.delta(previous, snapshot)))
                if not (on_change or keyframe_due or self.since_full >= KEYFRAME_DELTAS):
                    return
            else:
                self.tracker.reset()
        elif keyframe_due or self.since_full >= KEYFRAME_DELTAS:
            snapshot = builder.full()
        elif keepalive > 0.0 and self.previous is not None \
                and now - self._last_sent >= keepalive:
            self._send(self.delta, 'delta', to_json(heartbeat_delta(builder.full())))
            return
        else:
            return
        self._last_full = now
        self.since_full = 0
        self._send(self.snapshot, 'snapshot', builder.encode(snapshot))

    def publish_status(self, text: str) -> None:
        """Publish ``~/status``."""
        self._send(self.status, 'status', text)

    def _send(self, publisher: Any, topic: str, text: str) -> None:
        if topic in ('snapshot', 'delta'):
            self._last_sent = time.monotonic()
            if topic == 'delta':
                self.since_full += 1
        self.bytes[topic] = self.bytes.get(topic, 0) + len(text)
        self.counts[topic] = self.counts.get(topic, 0) + 1
        publisher.publish(self._string(data=text))
        if self.outputs:
            name = self._names[topic]
            for output in self.outputs:
                output.put(name, text)

    def close(self) -> None:
        """Close the outputs (a recording is finalised; idempotent)."""
        for output in self.outputs:
            output.close()


__all__ = ['EVENTS_HISTORY', 'FoxgloveOutput', 'HISTORY', 'KEYFRAME_DELTAS', 'open_outputs',
           'Recording', 'SnapshotTopics', 'history_qos', 'start_groot2']
