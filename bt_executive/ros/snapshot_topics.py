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

With the parameter ``record_file`` set, every message of these topics is also written,
as published, to that MCAP file (:class:`~bt_executive.observe.bag.BagWriter`; rotated
at ``record_max_size``; with ``record_foxglove``, the default, its Foxglove companion
``run.foxglove.mcap`` too), finalised by :meth:`SnapshotTopics.close`. With
``foxglove_port`` set, the same messages feed a Foxglove WebSocket server
(:class:`~bt_executive.observe.foxglove_server.FoxgloveServer`: the channels of
``bt-executive foxglove``, served from inside the executive), stopped by ``close``.
"""

from __future__ import annotations

import time
from typing import Any, Optional

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


class SnapshotTopics:
    """Publish one executive's snapshots, deltas and events.

    Args:
        node: the executive node (its publishers live under ``~/``)
    """

    def __init__(self, node: Any) -> None:
        from std_msgs.msg import String

        from bt_executive.ros import entities
        from bt_executive.ros.subscriptions import qos_profile
        self._string = String
        self.snapshot = entities.publisher(node, String, '~/snapshot', qos_profile('latched'))
        self.delta = entities.publisher(node, String, '~/snapshot_delta', history_qos())
        self.events = entities.publisher(node, String, '~/events',
                                         history_qos(EVENTS_HISTORY))
        self.status = entities.publisher(node, String, '~/status', qos_profile('latched'))
        self._logger = node.get_logger()
        self.bag: Optional[Any] = None  # a BagWriter; mcap loads only when recording
        prefix = node.get_fully_qualified_name().rstrip('/')
        self._names = {'snapshot': f'{prefix}/snapshot', 'delta': f'{prefix}/snapshot_delta',
                       'events': f'{prefix}/events', 'status': f'{prefix}/status'}
        record = node.get_parameter('record_file').value \
            if node.has_parameter('record_file') else ''
        if record:
            from bt_executive.observe.bag import BagWriter, KEPT, TOPICS
            self.bag = BagWriter(record, {f'{prefix}/{name}': latched
                                          for name, latched in TOPICS.items()},
                                 kept={f'{prefix}/{name}': n for name, n in KEPT.items()},
                                 max_size=int(node.get_parameter('record_max_size').value),
                                 foxglove=bool(node.get_parameter('record_foxglove').value),
                                 metadata={'node': prefix, 'recorded_by': 'the executive'})
            self._logger.info(f'recording {", ".join(self._names.values())} to {record}')
        self.foxglove: Optional[Any] = self._start_foxglove(node, prefix)
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

    def _start_foxglove(self, node: Any, prefix: str) -> Optional[Any]:
        """Start the Foxglove server if ``foxglove_port`` is set, else None.

        A port in use or foxglove-sdk missing is logged as an error and the executive runs
        on without it; the SDK is imported only here.
        """
        port = node.get_parameter('foxglove_port').value \
            if node.has_parameter('foxglove_port') else 0
        if not port:
            return None
        address = node.get_parameter('foxglove_address').value or '127.0.0.1'
        try:
            from bt_executive.observe.foxglove_server import FoxgloveServer
            server = FoxgloveServer(prefix, host=address, port=port)
        except ImportError:
            self._logger.error('Foxglove is off: the foxglove-sdk package is not installed '
                               '(pip install foxglove-sdk)')
            return None
        except RuntimeError as error:
            self._logger.error(f'Foxglove is off: cannot listen on {address}:{port}: {error}')
            return None
        if address not in ('127.0.0.1', '::1', 'localhost'):
            self._logger.warning(f'Foxglove server on {address}, not loopback: anyone who '
                                 'can reach it sees the tree and its blackboard')
        self._logger.info(f'Foxglove on {server.url} (Open connection > Foxglove WebSocket)')
        return server

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
        if self.foxglove is not None:
            self.foxglove.put(self._names[topic], text)
        if self.bag is not None:
            try:
                self.bag.write_text(self._names[topic], text)
            except OSError as error:  # a full disk: the executive runs on, unrecorded
                self._logger.error(f'recording stopped: {error}')
                self.bag = None

    def close(self) -> None:
        """Finalise the recording and stop the Foxglove server, if any (idempotent)."""
        if self.foxglove is not None:
            server, self.foxglove = self.foxglove, None
            server.close()
        if self.bag is not None:
            bag, self.bag = self.bag, None
            try:
                bag.close()
                self._logger.info(f'recorded {bag.messages} messages to '
                                  f'{", ".join(bag.files + bag.foxglove_files)}')
            except OSError as error:
                self._logger.error(f'cannot finalise {bag.files[-1]}: {error}')


__all__ = ['EVENTS_HISTORY', 'HISTORY', 'KEYFRAME_DELTAS', 'SnapshotTopics', 'history_qos']
