# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The blackboard feed: subscriptions declared in YAML that store into the blackboard.

```yaml
subscriptions:
  - topic: battery_state
    type: sensor_msgs/msg/BatteryState
    key: battery                 # the whole message
    qos: sensor_data             # reliable (default) | sensor_data | latched
    max_age: 5.0                 # seconds; older data is stale (0: never)
  - {topic: emergency_stop, type: std_msgs/msg/Bool, field: data, key: estop}
  - topic: odom
    type: nav_msgs/msg/Odometry
    fields: {x: pose.pose.position.x, y: pose.pose.position.y}   # several keys
```

Callbacks only store the latest value and its receive time; :meth:`BlackboardFeed.apply`
copies new values to the blackboard at the start of a tick, so the tree always reads
one consistent state. A key whose data is older than ``max_age`` is removed from the
blackboard and reads as stale, with the age, in every expression that uses it.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Callable, Mapping, Optional

from bt_executive.core.errors import Diagnostic, quoted, SourceLocation
from bt_executive.core.expressions import EvaluationError
from bt_executive.core.registry import hint
from bt_executive.core.yaml_source import YMap, YNode, YScalar, YSeq
from bt_executive.nodes.sections import (
    FIELD_PATH_PATTERN, KEY_PATTERN, MSG_TYPE_PATTERN, QOS_PROFILES, SUBSCRIPTION_KEYS,
    TOPIC_PATTERN)
from bt_executive.ros.names import name_problem
import py_trees

# the names and patterns are the catalogue's, which also gives the section's JSON Schema
_KEYS = SUBSCRIPTION_KEYS
_IDENTIFIER = re.compile(KEY_PATTERN + r'\Z')
_FIELD_PATH = re.compile(FIELD_PATH_PATTERN + r'\Z')
_MSG_TYPE = re.compile(MSG_TYPE_PATTERN + r'\Z')
_TOPIC = re.compile(TOPIC_PATTERN + r'\Z')


@dataclasses.dataclass(frozen=True)
class SubscriptionSpec:
    """One declared subscription.

    Attributes:
        topic: topic name (relative names resolve in the executive's namespace)
        type: message type string, e.g. ``sensor_msgs/msg/BatteryState``
        targets: (blackboard key, field path or None for the whole message) pairs
        qos: QoS profile name
        max_age: seconds after which the data is stale; 0 means never
        loc: where the entry is written
    """

    topic: str
    type: str  # noqa: A003 - the YAML key
    targets: tuple[tuple[str, Optional[str]], ...]
    qos: str = 'reliable'
    max_age: float = 0.0
    loc: SourceLocation = SourceLocation('<unknown>')


def parse_subscriptions(
        sections: list[YNode]) -> tuple[list[SubscriptionSpec], list[Diagnostic]]:
    """Parse every ``subscriptions:`` section; return specs and all problems found."""
    specs: list[SubscriptionSpec] = []
    errors: list[Diagnostic] = []
    keys_seen: dict[str, SourceLocation] = {}
    for section in sections:
        if not isinstance(section, YSeq):
            errors.append(Diagnostic(section.loc, "'subscriptions' must be a list of "
                                     '{topic, type, key} entries'))
            continue
        for entry in section:
            spec = _parse_entry(entry, errors)
            if spec is None:
                continue
            for key, _ in spec.targets:
                if key in keys_seen:
                    errors.append(Diagnostic(spec.loc, f"blackboard key '{key}' is already "
                                             f'fed by the subscription at {keys_seen[key]}'))
                keys_seen[key] = spec.loc
            specs.append(spec)
    return specs, errors


def _parse_entry(entry: YNode, errors: list[Diagnostic]) -> Optional[SubscriptionSpec]:
    def error(node: YNode, message: str) -> None:
        errors.append(Diagnostic(node.loc, message, 'subscriptions'))

    if not isinstance(entry, YMap):
        error(entry, f'expected a mapping with topic, type and key, got {entry.kind}')
        return None
    before = len(errors)
    for key, _ in entry.entries:
        if key.value not in _KEYS:
            errors.append(Diagnostic(key.loc, f"unknown key '{key.value}'"
                                     f'{hint(key.value, _KEYS)} (expected: '
                                     f"{', '.join(_KEYS)})", 'subscriptions'))

    def string(name: str, pattern: Optional[re.Pattern] = None,
               expected: str = 'a string') -> Optional[str]:
        node = entry.get(name)
        if node is None:
            return None
        if not isinstance(node, YScalar) or not isinstance(node.value, str) \
                or (pattern is not None and not pattern.match(node.value)):
            got = repr(node.value) if isinstance(node, YScalar) else node.kind
            error(node, f"'{name}' must be {expected}, got {got}")
            return None
        return node.value

    topic = string('topic', _TOPIC, 'a topic name')
    problem = name_problem(topic, service=False) if topic is not None else ''
    if problem:
        error(entry.get('topic'), f"'topic' {quoted(topic)}: {problem}")
        topic = None
    msg_type = string('type', _MSG_TYPE, "a message type like 'std_msgs/msg/Bool'")
    if entry.get('topic') is None:
        error(entry, "subscription needs 'topic'")
    if entry.get('type') is None:
        error(entry, "subscription needs 'type' (e.g. sensor_msgs/msg/BatteryState)")
    key = string('key', _IDENTIFIER, 'a blackboard key (identifier)')
    field = string('field', _FIELD_PATH, "a field path like 'data' or 'pose.position.x'")
    targets: list[tuple[str, Optional[str]]] = []
    fields = entry.get('fields')
    if fields is not None:
        if key is not None or field is not None:
            error(fields, "use either 'key' (with optional 'field') or 'fields', not both")
        if not isinstance(fields, YMap) or not len(fields):
            error(fields, "'fields' must map blackboard keys to field paths")
        else:
            for k, v in fields.entries:
                if not _IDENTIFIER.match(k.value):
                    error(k, f"blackboard key '{k.value}' must be an identifier")
                elif not isinstance(v, YScalar) or not isinstance(v.value, str) \
                        or not _FIELD_PATH.match(v.value):
                    error(v, f"field path for '{k.value}' must look like 'pose.position.x'")
                else:
                    targets.append((k.value, v.value))
    elif key is not None:
        targets.append((key, field))
    elif entry.get('key') is None:
        error(entry, "subscription needs 'key' (or 'fields') to say where to store data")
    qos = string('qos')
    if qos is not None and qos not in QOS_PROFILES:
        error(entry.get('qos'), f"'qos' must be one of {', '.join(QOS_PROFILES)}, got "
              f"'{qos}'{hint(qos, QOS_PROFILES)}")
    max_age = 0.0
    age_node = entry.get('max_age')
    if age_node is not None:
        value = age_node.value if isinstance(age_node, YScalar) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < 0:
            error(age_node, "'max_age' must be a number of seconds >= 0")
        else:
            max_age = float(value)
    if len(errors) > before or topic is None or msg_type is None:
        return None
    return SubscriptionSpec(topic=topic, type=msg_type, targets=tuple(targets),
                            qos=qos or 'reliable', max_age=max_age, loc=entry.loc)


def check_fields(spec: SubscriptionSpec) -> list[Diagnostic]:
    """Check the type and field paths against the message definition, if installed."""
    from bt_executive.ros import interfaces
    if not interfaces.is_available(spec.type):
        try:
            interfaces.resolve(spec.type, kind='msg')
        except interfaces.InterfaceError as error:
            if 'is not installed' in error.message:
                return []  # e.g. a robot-only package: checked where it is installed
            return [Diagnostic(spec.loc, error.message, 'subscriptions')]
    msg_class = interfaces.resolve(spec.type, kind='msg')
    problems = []
    for key, path in spec.targets:
        if path is None:
            continue
        current = msg_class
        for part in path.split('.'):
            fields = interfaces.fields_of(current) if current is not None else {}
            if part not in fields:
                problems.append(Diagnostic(
                    spec.loc, f"'{path}' is not a field path of {spec.type}: no field "
                    f"'{part}'{hint(part, list(fields))}", 'subscriptions'))
                break
            current = nested_class(current, part)
    return problems


def nested_class(msg_class: Any, field: str) -> Any:
    """Return the message class of a message field, or None if it is not a message."""
    value = getattr(msg_class(), field, None)
    return type(value) if hasattr(value, 'get_fields_and_field_types') else None


def _extract(message: Any, path: Optional[str]) -> Any:
    if path is None:
        return message
    value = message
    for part in path.split('.'):
        value = getattr(value, part)
    return value


_MISSING = object()

#: Seconds after ``max_age`` is reached at which event-driven ticking looks again.
STALE_MARGIN = 1e-3


def _outcome(probe: Callable[[Any], Any], lookup: Callable[[str], Any]) -> Any:
    """Return a probe's truth, or the type of error it raised."""
    try:
        return bool(probe(lookup))
    except Exception as error:  # noqa: B902 - e.g. a key not set yet
        return type(error)


def _differs(value: Any, previous: Any) -> bool:
    """Tell whether a new value differs from the stored one (errors count as different)."""
    if value is previous:
        return False
    try:
        return bool(value != previous)
    except Exception:  # noqa: B902 - e.g. arrays without a truth value
        return True


class BlackboardFeed:
    """Subscriptions that keep the latest values; the tick applies them to the blackboard.

    Args:
        node: the executive node (subscriptions are created on it)
        specs: the declared subscriptions
        now: returns the node's current time in seconds (ROS time with use_sim_time)
        own: makes a subscription's callback the executive's (its blackboard, its faults;
            ``LeafHost.own``)
    """

    def __init__(self, node: Any, specs: list[SubscriptionSpec], now: Callable[[], float],
                 *, own: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda f: f):
        from bt_executive.ros import entities, interfaces
        self._now = now
        self._node = node
        self.specs = specs
        self.received: dict[str, float] = {}
        self.stale: dict[str, str] = {}
        self._pending: dict[str, Any] = {}
        self._max_age: dict[str, float] = {}
        self._readers: dict[str, list[Optional[Callable[[Any], Any]]]] = {}
        self._wake: Optional[Callable[[Any], None]] = None
        self._wanted: Callable[[], bool] = lambda: True
        self._subscriptions = []
        for spec in specs:
            msg_class = interfaces.resolve(spec.type, kind='msg')
            for key, _ in spec.targets:
                if spec.max_age > 0:
                    self._max_age[key] = spec.max_age
            self._subscriptions.append(entities.subscription(
                node, msg_class, spec.topic, own(self._callback(spec)), qos_profile(spec.qos)))

    def _callback(self, spec: SubscriptionSpec) -> Callable[[Any], None]:
        targets = spec.targets

        def store(message: Any) -> None:
            stamp = self._now()
            pending = self._pending
            readers = self._readers
            changed = []
            for key, path in targets:
                value = _extract(message, path)
                if key in readers:
                    previous = pending.get(key, _MISSING)
                    if previous is _MISSING:
                        previous = py_trees.blackboard.Blackboard.storage.get(
                            '/' + key, _MISSING)
                    if previous is _MISSING or _differs(value, previous):
                        changed.append(key)
                pending[key] = value
                self.received[key] = stamp
            if changed and self.waking and self._matters(changed):
                self._wake(spec)
        return store

    def watch(self, readers: Mapping[str, list[Optional[Callable[[Any], Any]]]],
              wake: Callable[[Any], None], *,
              wanted: Callable[[], bool] = lambda: True) -> None:
        """Call ``wake(spec)`` when a message changes what a reader of a key would see.

        Args:
            readers: per key, the probes of the behaviours reading it (None: a reader
                without a probe, for which any new value matters)
            wake: asks for a tick (event-driven ticking)
            wanted: whether a wake is wanted now; when it returns False the probes are
                not run at all (periodic ticking ignores wakes; running the probes for
                every message was 3-4 % of a periodic patrol executive's main thread)
        """
        self._readers = dict(readers)
        self._wake = wake
        self._wanted = wanted

    @property
    def waking(self) -> bool:
        """Whether a message may wake the tree now (watched, and a wake is wanted)."""
        return self._wake is not None and self._wanted()

    def _matters(self, keys: list[str]) -> bool:
        """Tell whether new values of ``keys`` change the outcome of a reader.

        A probe is evaluated against what the tree saw at its last tick (the blackboard)
        and against what it will see at its next (the blackboard with the new values).
        """
        storage = py_trees.blackboard.Blackboard.storage
        pending = self._pending

        def seen(name: str) -> Any:
            return storage['/' + name]

        def next_seen(name: str) -> Any:
            value = pending.get(name, _MISSING)
            return storage['/' + name] if value is _MISSING else value

        probes = {probe for key in keys for probe in self._readers[key]}
        if None in probes:
            return True
        return any(_outcome(probe, seen) != _outcome(probe, next_seen) for probe in probes)

    def wake_at(self) -> Optional[float]:
        """Return when the next watched key becomes stale (``max_age``), if any."""
        earliest = None
        for key, max_age in self._max_age.items():
            stamp = self.received.get(key)
            if stamp is None or key in self.stale or key not in self._readers:
                continue
            if earliest is None or stamp + max_age < earliest:
                earliest = stamp + max_age
        # stale means older than max_age: look just after the moment it is reached
        return None if earliest is None else earliest + STALE_MARGIN

    def apply(self) -> None:
        """Copy new values to the blackboard and mark data older than max_age as stale."""
        if self._pending:
            pending, self._pending = self._pending, {}
            # what Blackboard.set does for a plain key, without its name parsing and a
            # KeyMetaData made per call: this runs first in the tick of every reaction
            storage = py_trees.blackboard.Blackboard.storage
            metadata = py_trees.blackboard.Blackboard.metadata
            for key, value in pending.items():
                name = '/' + key
                storage[name] = value
                if name not in metadata:
                    metadata[name] = py_trees.blackboard.KeyMetaData()
                self.stale.pop(key, None)
        if self._max_age:
            now = self._now()
            for key, max_age in self._max_age.items():
                stamp = self.received.get(key)
                if stamp is None or key in self.stale:
                    continue
                age = now - stamp
                if age > max_age:
                    self.stale[key] = (f"blackboard key '{key}' is stale: last update "
                                       f'{age:.1f} s ago (max_age {max_age:g} s)')
                    py_trees.blackboard.Blackboard.unset('/' + key)

    def pending(self, key: str, default: Any = None) -> Any:
        """Return the value received for ``key`` that the next tick will apply, if any.

        Read-only: the value stays pending. ``default`` when nothing arrived for ``key``
        since the last :meth:`apply`.
        """
        return self._pending.get(key, default)

    def lookup(self, name: str) -> Any:
        """Read a blackboard key; stale keys raise an error that says how old they are."""
        try:
            return py_trees.blackboard.Blackboard.storage['/' + name]
        except KeyError:
            reason = self.stale.get(name)
            if reason is not None:
                raise EvaluationError(reason) from None
            raise

    def destroy(self) -> None:
        """Destroy the subscriptions (idempotent)."""
        from bt_executive.ros import entities
        for subscription in self._subscriptions:
            entities.destroy(self._node, subscription)
        self._subscriptions = []


def qos_profile(name: str) -> Any:
    """Return the rclpy QoS profile for a profile name used in tree files."""
    from rclpy.qos import (DurabilityPolicy, qos_profile_sensor_data, QoSProfile,
                           ReliabilityPolicy)
    if name == 'sensor_data':
        return qos_profile_sensor_data
    if name == 'latched':
        return QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.TRANSIENT_LOCAL)
    return QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
