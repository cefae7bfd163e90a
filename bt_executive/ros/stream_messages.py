# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The tree, its timing and its blackboard as py_trees_ros_interfaces messages.

:mod:`bt_executive.ros.streams` serves py_trees_ros' snapshot streams; this module makes
their contents. It imports no message package: the caller hands it an
:class:`Interfaces` (the real packages, or a test's stand-in of the same shapes).

What a ``py_trees_ros_interfaces/msg/BehaviourTree`` carries and where it comes from here:

- ``behaviours``: one ``Behaviour`` per node, in depth-first order, root first (the order
  the tick record's tracker keeps, so the tree is not walked again). The parts that never
  change (ids, names, types, children, blackboard access) are made once per tree
  structure; status, feedback message, tip, current child and ``is_active`` (ticked in
  the last tick) are filled per snapshot.
- ``statistics``: the tick count, the clock time of the tick, its duration and the
  interval since the previous tick, with mean and variance over the last 10 ticks.
- ``blackboard_on_visited_path``: the root blackboard keys the ticked nodes read (node
  table and py_trees blackboard clients) plus the keys the tick wrote, with their values.
- ``blackboard_activity``: the tick's writes (``WRITE``, ``INITIALISED`` for a key that
  did not exist before the tick, ``UNSET`` for a removed one) with old and new values.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
from typing import Any, Iterable, Mapping, Optional, Sequence

from bt_executive.observe.record import StatusTracker, TickRecord
from bt_executive.ros.interfaces import to_dict
import py_trees
from py_trees.common import Status

#: Ticks over which the statistics' means and variances are taken (as py_trees_ros does).
WINDOW = 10

#: The value shown for a key that has no value (not set yet, removed, or stale).
NO_VALUE = '-'

#: Rendered values are cut at this many characters (a costmap would flood the viewer).
MAX_VALUE_LENGTH = 1000


@dataclasses.dataclass(frozen=True)
class Interfaces:
    """The message and service classes the streams use.

    Attributes:
        msg: the ``py_trees_ros_interfaces.msg`` module (or a stand-in of the same shapes)
        srv: the ``py_trees_ros_interfaces.srv`` module (or a stand-in)
        uuid: ``unique_identifier_msgs/msg/UUID``
        key_value: ``diagnostic_msgs/msg/KeyValue`` (blackboard on the visited path)
        time: ``builtin_interfaces/msg/Time``
    """

    msg: Any
    srv: Any
    uuid: Any
    key_value: Any
    time: Any

    def message_types(self) -> list[Any]:
        """Return every message and service class used (to load their type support)."""
        msg, srv = self.msg, self.srv
        return [msg.BehaviourTree, msg.Behaviour, msg.Statistics, msg.ActivityItem,
                msg.KeyValue, msg.SnapshotStreamParameters, self.uuid, self.key_value,
                self.time, srv.OpenSnapshotStream, srv.CloseSnapshotStream,
                srv.ReconfigureSnapshotStream]


class TickStatistics:
    """Tick timing over the last :data:`WINDOW` ticks, as a ``Statistics`` message."""

    def __init__(self, interfaces: Interfaces) -> None:
        self._interfaces = interfaces
        self.durations: collections.deque[float] = collections.deque(maxlen=WINDOW)
        self.intervals: collections.deque[float] = collections.deque(maxlen=WINDOW)
        self.count = 0
        self.time = 0.0

    def add(self, record: TickRecord) -> None:
        """Take the timing of a tick (a stop's record changes nothing)."""
        if record.stopped:
            return
        self.count = record.tick
        self.time = record.time
        self.durations.append(record.duration)
        self.intervals.append(0.0 if record.interval is None else record.interval)

    def message(self) -> Any:
        """Return the ``Statistics`` message of the last tick (zeros before the first)."""
        message = self._interfaces.msg.Statistics()
        message.count = self.count
        message.stamp = stamp(self._interfaces.time, self.time)
        if self.durations:
            message.tick_duration, message.tick_duration_average, \
                message.tick_duration_variance = _last_mean_variance(self.durations)
            message.tick_interval, message.tick_interval_average, \
                message.tick_interval_variance = _last_mean_variance(self.intervals)
        return message


def _last_mean_variance(values: Sequence[float]) -> tuple[float, float, float]:
    """Return the last value, the mean and the sample variance (0 for one value)."""
    mean = math.fsum(values) / len(values)
    variance = 0.0
    if len(values) > 1:
        variance = math.fsum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return float(values[-1]), mean, variance


def stamp(time_type: Any, seconds: float) -> Any:
    """Return ``seconds`` as a ``builtin_interfaces/msg/Time``."""
    nanoseconds = max(0, int(round(seconds * 1e9)))
    return time_type(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def render(value: Any) -> str:
    """Render a blackboard value as text: strings as they are, messages as JSON."""
    if isinstance(value, str):
        text = value
    else:
        if hasattr(value, 'get_fields_and_field_types'):
            value = to_dict(value)
        try:
            text = json.dumps(value, default=str, sort_keys=True)
        except (TypeError, ValueError):  # e.g. keys that are not strings
            text = str(value)
    if len(text) > MAX_VALUE_LENGTH:
        text = text[:MAX_VALUE_LENGTH - 1] + '…'
    return text


@dataclasses.dataclass
class _Fixed:
    """The parts of one behaviour's message that do not change while the tree stands."""

    behaviour: py_trees.behaviour.Behaviour
    own_id: Any
    parent_id: Any
    child_ids: list[Any]
    kind: int
    class_name: str
    detail: str
    blackbox_level: int
    access: list[Any]
    composite: bool


class TreeMessages:
    """Make the messages of a stream from the tree host's tree and its tick records.

    Args:
        interfaces: the message classes
    """

    def __init__(self, interfaces: Interfaces) -> None:
        self.interfaces = interfaces
        msg = interfaces.msg.Behaviour
        self._status = {Status.INVALID: msg.INVALID, Status.RUNNING: msg.RUNNING,
                        Status.SUCCESS: msg.SUCCESS, Status.FAILURE: msg.FAILURE}
        self._blackbox = {py_trees.common.BlackBoxLevel.DETAIL: msg.BLACKBOX_LEVEL_DETAIL,
                          py_trees.common.BlackBoxLevel.COMPONENT:
                              msg.BLACKBOX_LEVEL_COMPONENT,
                          py_trees.common.BlackBoxLevel.BIG_PICTURE:
                              msg.BLACKBOX_LEVEL_BIG_PICTURE}
        self._zero = interfaces.uuid()
        self._fixed: list[_Fixed] = []
        self._messages: list[Any] = []
        self._ids: dict[Any, Any] = {}
        self._key: Optional[tuple[int, int]] = None

    # ---- the tree ------------------------------------------------------------------

    def behaviours(self, tracker: StatusTracker, active: Iterable[Any]) -> list[Any]:
        """Return a ``Behaviour`` message per node, root first (``active``: just ticked).

        The messages are made once per tree structure and updated here: publishing
        serialises them at once, so the same objects serve every snapshot.
        """
        self._describe(tracker)
        ids = self._ids
        zero = self._zero
        status_of = self._status
        active_ids = {behaviour.id for behaviour in active}
        tips: dict[Any, Any] = {}
        for fixed, message in zip(reversed(self._fixed), reversed(self._messages)):
            behaviour = fixed.behaviour  # children before parents: tips from below
            current = _current_child(behaviour)
            if current is not None:
                tip = tips.get(current.id)
            else:
                tip = behaviour if behaviour.status is not Status.INVALID else None
            tips[behaviour.id] = tip
            message.status = status_of.get(behaviour.status, 0)
            message.message = _text(behaviour.feedback_message)
            message.is_active = behaviour.id in active_ids
            message.tip_id = ids[tip.id] if tip is not None and tip is not behaviour else zero
            child = behaviour.current_child if fixed.composite else None
            message.current_child_id = zero if child is None else ids.get(child.id, zero)
        return self._messages

    def _describe(self, tracker: StatusTracker) -> None:
        """Make the fixed parts once per tree structure (a swap or a change rebuilds)."""
        key = (id(tracker), tracker.structure_version)
        if key == self._key:
            return
        self._key = key
        make_uuid = self.interfaces.uuid
        self._ids = {node.id: make_uuid(uuid=list(node.id.bytes)) for node, *_ in
                     tracker.order}
        self._fixed = []
        for node, _, _, _ in tracker.order:
            parent = node.parent
            self._fixed.append(_Fixed(
                behaviour=node, own_id=self._ids[node.id],
                parent_id=self._ids.get(parent.id, self._zero) if parent is not None
                else self._zero,
                child_ids=[self._ids[child.id] for child in node.children
                           if child.id in self._ids],
                kind=self._kind(node),
                class_name=f'{type(node).__module__}.{type(node).__name__}',
                detail=_detail(node, tracker.nodes.type_name(node)),
                blackbox_level=self._blackbox.get(
                    node.blackbox_level, self.interfaces.msg.Behaviour.
                    BLACKBOX_LEVEL_NOT_A_BLACKBOX),
                access=self._access(node, tracker.nodes.reads(node)),
                composite=isinstance(node, py_trees.composites.Composite)))
        make = self.interfaces.msg.Behaviour
        self._messages = [make(name=fixed.behaviour.name, class_name=fixed.class_name,
                               own_id=fixed.own_id, parent_id=fixed.parent_id,
                               child_ids=fixed.child_ids, type=fixed.kind,
                               additional_detail=fixed.detail,
                               blackbox_level=fixed.blackbox_level,
                               blackboard_access=fixed.access) for fixed in self._fixed]

    def _kind(self, node: py_trees.behaviour.Behaviour) -> int:
        """Return the message's type constant (py_trees_ros' viewers rebuild by it)."""
        msg = self.interfaces.msg.Behaviour
        if isinstance(node, py_trees.composites.Sequence):
            return int(msg.SEQUENCE)
        if isinstance(node, py_trees.composites.Selector):
            return int(msg.SELECTOR)
        if isinstance(node, py_trees.composites.Parallel):
            return int(msg.PARALLEL)
        if isinstance(node, py_trees.decorators.Decorator):
            return int(msg.DECORATOR)
        # another composite (Race, IfThenElse, ...): a plain behaviour with children;
        # additional_detail names its node type
        return int(msg.BEHAVIOUR)

    def _access(self, node: py_trees.behaviour.Behaviour, reads: frozenset[str]
                ) -> list[Any]:
        """Return the node's blackboard keys with their access ('r', 'w', 'x')."""
        msg = self.interfaces.msg
        found: dict[str, str] = {key: msg.Behaviour.BLACKBOARD_ACCESS_READ for key in reads}
        for client in node.blackboards:
            for keys, access in ((client.read, msg.Behaviour.BLACKBOARD_ACCESS_READ),
                                 (client.write, msg.Behaviour.BLACKBOARD_ACCESS_WRITE),
                                 (client.exclusive,
                                  msg.Behaviour.BLACKBOARD_ACCESS_EXCLUSIVE_WRITE)):
                for key in keys:
                    found[key.lstrip('/')] = access
        return [msg.KeyValue(key=key, value=access) for key, access in sorted(found.items())]

    # ---- the blackboard ------------------------------------------------------------

    def visited_keys(self, tracker: StatusTracker, record: TickRecord) -> set[str]:
        """Return the root keys the nodes of ``record``'s tick read, and those it wrote."""
        keys = set(record.writes)
        reads = tracker.nodes.reads
        for behaviour in record.ticked:
            keys |= reads(behaviour)
            for client in behaviour.blackboards:
                keys |= {key.lstrip('/') for key in client.read}
                keys |= {key.lstrip('/') for key in client.write}
        return keys

    def blackboard(self, keys: Iterable[str], storage: Mapping[str, Any]) -> list[Any]:
        """Return ``KeyValue`` messages of ``keys`` with their current values."""
        make = self.interfaces.key_value
        result = []
        for key in sorted(keys):
            value = storage.get('/' + key, _MISSING)
            result.append(make(key=key, value=NO_VALUE if value is _MISSING else
                               render(value)))
        return result

    def activity(self, record: TickRecord, storage: Mapping[str, Any], client: str
                 ) -> list[Any]:
        """Return ``ActivityItem`` messages of the writes of ``record``'s tick."""
        item = self.interfaces.msg.ActivityItem
        before = record.before or {}
        result = []
        for key in sorted(record.writes):
            old = before.get('/' + key, _MISSING)
            new = storage.get('/' + key, _MISSING)
            if new is _MISSING:
                kind = item.UNSET
            elif old is _MISSING:
                kind = item.INITIALISED
            else:
                kind = item.WRITE
            result.append(item(key=key, client_name=client, activity_type=kind,
                               previous_value=NO_VALUE if old is _MISSING else render(old),
                               current_value=NO_VALUE if new is _MISSING else render(new)))
        return result


_MISSING = object()


def _current_child(behaviour: py_trees.behaviour.Behaviour) -> Any:
    """Return the child py_trees' ``tip()`` follows, or None (then the tip is the node)."""
    if isinstance(behaviour, py_trees.composites.Composite):
        return behaviour.current_child
    if isinstance(behaviour, py_trees.decorators.Decorator) and \
            behaviour.decorated.status is not Status.INVALID:
        return behaviour.decorated
    return None


def _detail(node: py_trees.behaviour.Behaviour, node_type: str) -> str:
    """Return the additional detail: memory, a parallel's policy, else the node type."""
    if isinstance(node, (py_trees.composites.Sequence, py_trees.composites.Selector)):
        return 'WithMemory' if node.memory else ''
    if isinstance(node, py_trees.composites.Parallel):
        policy = type(node.policy).__name__.replace('Success', '')
        children = getattr(node.policy, 'children', None)
        if children:
            indices = sorted(str(node.children.index(child)) for child in children)
            policy += f"({', '.join(indices)})"
        return policy
    if isinstance(node, py_trees.composites.Composite):
        return node_type
    return ''


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


__all__ = ['Interfaces', 'NO_VALUE', 'TickStatistics', 'TreeMessages', 'WINDOW', 'render',
           'stamp']
