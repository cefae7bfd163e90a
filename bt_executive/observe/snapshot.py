# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Snapshots of a running tree: one JSON-safe model for every viewer (no ROS in here).

:class:`SnapshotBuilder` is an observer of the tree host's tick records
(:mod:`bt_executive.observe.record`): it never ticks the tree and never walks it; it
applies the changes each record lists. :meth:`SnapshotBuilder.update` returns a full
snapshot only when something a viewer shows changed (a status, a feedback message, a
selected blackboard value, the caller's ``executive`` info), else None, without
serialising anything. :meth:`SnapshotBuilder.events` returns the status transitions seen
since its last call; :meth:`SnapshotBuilder.full` always returns the current snapshot
(heartbeats).

The format (``"schema": "bt_executive/snapshot/1"``) is described in docs/snapshots.md
and by ``bt_executive/schema/snapshot.schema.json``.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
import math
import pathlib
import time
from typing import Any, Callable, Iterable, Mapping, Optional
import uuid

from bt_executive.core.builder import blackboard_lookup
from bt_executive.observe.record import StatusTracker, TickRecord
import py_trees
from py_trees.common import Status

#: The value of the ``schema`` field of every snapshot this module builds.
SCHEMA = 'bt_executive/snapshot/1'
#: The value of the ``schema`` field of event batches (``~/events``).
EVENTS_SCHEMA = 'bt_executive/events/1'
#: The JSON schema (draft 2020-12) describing snapshots and event batches.
SCHEMA_FILE = pathlib.Path(__file__).resolve().parent.parent / 'schema' / 'snapshot.schema.json'
#: ``blackboard_keys`` entry that selects every key on the blackboard.
ALL_KEYS = '*'

_IMMUTABLE = (type(None), bool, int, float, str, bytes)


def new_session() -> str:
    """Return a fresh random session id (one per publishing process)."""
    return uuid.uuid4().hex[:12]


def node_name(behaviour: py_trees.behaviour.Behaviour) -> str:
    """Return a behaviour's name (the id of a node the node table does not know)."""
    return behaviour.name


def active_path(root: py_trees.behaviour.Behaviour, *,
                ident: Callable[[Any], str] = node_name) -> list[str]:
    """Return the ids of the RUNNING branch, root first (the first RUNNING child each level)."""
    path = []
    node: Optional[py_trees.behaviour.Behaviour] = root
    while node is not None and node.status is Status.RUNNING:
        path.append(ident(node))
        node = next((c for c in node.children if c.status is Status.RUNNING), None)
    return path


def failure_chain(root: py_trees.behaviour.Behaviour, *,
                  ident: Callable[[Any], str] = node_name) -> list[tuple[str, str]]:
    """Return the (node id, reason) chain that led to a FAILURE, root first.

    Each step follows the last child that failed; the reason is the node's feedback message.
    """
    chain = []
    node: Optional[py_trees.behaviour.Behaviour] = root
    while node is not None and node.status is Status.FAILURE:
        chain.append((ident(node), node.feedback_message))
        failed = [child for child in node.children if child.status is Status.FAILURE]
        node = failed[-1] if failed else None
    return chain


def reason_of(chain: Iterable[tuple[str, str]]) -> str:
    """Summarise a failure chain: the deepest node with a reason, as ``id: reason``."""
    chain = list(chain)
    for path, reason in reversed(chain):
        if reason:
            return f'{path}: {reason}'
    return chain[-1][0] if chain else ''


def failure_reason(root: py_trees.behaviour.Behaviour, *,
                   ident: Callable[[Any], str] = node_name) -> str:
    """Summarise why the tree failed: the deepest failing node and its reason."""
    return reason_of(failure_chain(root, ident=ident))


#: The values of :func:`executive_state` (``~/status`` ``state``).
EXECUTIVE_STATES = ('running', 'paused', 'terminated', 'stopped', 'idle')


def executive_state(info: Mapping[str, Any]) -> str:
    """Return what the executive is doing, in the word an operator reads.

    ``info`` holds ``running``, ``paused`` and ``terminated`` (and ``tree``, when known)
    as ``~/status`` and the snapshot's ``executive`` block say them. ``root_status`` is
    the root's status *of the last tick* and stays RUNNING while a halted tree waits; this
    says why nothing ticks: ``idle`` (no tree: an idle executive), ``terminated`` (a
    ``Terminate`` node ended the tree), ``paused`` (``~/pause``), ``running`` (being
    ticked), else ``stopped`` (halted: an inactive lifecycle node, an ended goal).
    """
    if 'tree' in info and info['tree'] is None:
        return 'idle'
    if info.get('terminated'):
        return 'terminated'
    if info.get('paused'):
        return 'paused'
    return 'running' if info.get('running') else 'stopped'


def plain_json(value: Any, *, convert: Optional[Callable[[Any], Any]] = None) -> Any:
    """Render a value as JSON data (the one converter every observer uses).

    Plain JSON types stay as they are, non-finite floats become their repr (JSON has no
    NaN), mappings get string keys, tuples become lists; anything else is passed to
    ``convert`` (which returns data, rendered again, or None to decline) and otherwise
    rendered as its repr.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {str(key): plain_json(item, convert=convert) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(item, convert=convert) for item in value]
    if convert is not None:
        converted = convert(value)
        if converted is not None:
            return plain_json(converted)
    return repr(value)


def spec_params(document: Any, *, limit: int = 40) -> dict[str, dict[str, str]]:
    """Return the key parameters of every node of a document, as written, by location.

    Args:
        document: a loaded :class:`~bt_executive.core.spec.Document`
        limit: longest rendered value (longer ones are cut with an ellipsis)

    Returns:
        ``str(node.loc) -> {parameter: rendered value}``; behaviours carry the same
        location in the node table.
    """
    from bt_executive.formats.text import format_data
    params: dict[str, dict[str, str]] = {}
    for tree in document.trees.values():
        for node in tree.root.walk():
            params[str(node.loc)] = {name: format_data(value.data, limit=limit)
                                     for name, value in node.params.items()}
    return params


def _kind(behaviour: py_trees.behaviour.Behaviour) -> str:
    if isinstance(behaviour, py_trees.decorators.Decorator):
        return 'decorator'
    if isinstance(behaviour, py_trees.composites.Composite):
        return 'composite'
    return 'leaf'


class SnapshotBuilder:
    """The snapshot model: an observer of one tree's tick records (it never ticks).

    Register it with the tree's :class:`~bt_executive.observe.runner.TreeRunner`
    (``runner.add_observer(builder)``); after each tick :meth:`update` returns a full
    snapshot when something shown changed, :meth:`events` the transitions since the last
    call, :meth:`full` the current snapshot (heartbeats). Snapshots returned share their
    ``nodes`` list (and the per-node dicts) with later snapshots of the same revision:
    treat them as read-only.

    Args:
        tracker: the tree's status tracker (``runner.tracker``): ids and structure
        tree_name: the tree's name
        source_file: the file the tree was loaded from
        revision: the tree revision (the executive increments it on every tree swap)
        blackboard_keys: root blackboard keys to include (``'*'``: every key; ``''``
            entries are ignored, as in the ROS parameter default ``['']``)
        lookup: reads a key; raises KeyError (or any error, whose text is shown) if unset
        render_value: turns a blackboard value into JSON data (ROS messages into dicts)
        document: the loaded document, for the nodes' key parameters (optional)
        session: identifies the process publishing (default: a fresh random id)
        clock: seconds for stamps (the executive passes the ROS clock)
        max_events: transitions kept until :meth:`events` is called (oldest dropped)
    """

    def __init__(self, tracker: StatusTracker, *, tree_name: str,
                 source_file: str, revision: int, blackboard_keys: Iterable[str] = (),
                 lookup: Callable[[str], Any] = blackboard_lookup,
                 render_value: Callable[[Any], Any] = plain_json, document: Any = None,
                 session: Optional[str] = None, clock: Callable[[], float] = time.time,
                 max_events: int = 1000):
        self.tracker = tracker
        self.root = tracker.root
        self.tree_name = tree_name
        self.source_file = source_file
        self.revision = int(revision)
        self.session = session or new_session()
        keys = [key for key in blackboard_keys if key]
        self._all_keys = ALL_KEYS in keys
        self.keys = [key for key in keys if key != ALL_KEYS]
        self.lookup = lookup
        self.render_value = render_value
        self.clock = clock
        self.seq = 0
        self.tick_count = 0
        self.tick_duration = 0.0
        self.tick_interval: Optional[float] = None
        self.events_dropped = 0
        self._params = spec_params(document) if document is not None else {}
        self.max_events = max_events
        self._events: list[dict[str, Any]] = []
        self._blackboard: dict[str, Any] = {}
        self._raw: dict[str, Any] = {}
        self._unset: dict[str, str] = {}
        self._executive: dict[str, Any] = {}
        self._last_failure: Optional[dict[str, Any]] = None
        self._last: Optional[dict[str, Any]] = None
        self._describe()
        self._scan_blackboard()

    # ---- structure -----------------------------------------------------------------

    def _describe(self) -> None:
        """Describe the tree once (per structure version of the tracker)."""
        tracker = self.tracker
        self._version = tracker.structure_version
        self._ids = tracker.ids
        self._state: dict[str, dict[str, str]] = {}
        self._key_json: dict[str, str] = {}
        self._fragments: dict[str, str] = {}
        nodes: list[dict[str, Any]] = []
        entries: dict[str, dict[str, Any]] = {}
        table = tracker.nodes
        for node, ident, parent, depth in tracker.order:
            status, feedback = tracker.state[node]
            self._state[ident] = {'status': status.name, 'feedback': feedback}
            self._key_json[ident] = encode_basestring_ascii(ident)
            self._fragments[ident] = ''
            loc = table.loc(node)
            entry: dict[str, Any] = {
                'id': ident, 'parent': parent, 'name': node.name,
                'type': table.type_name(node), 'kind': _kind(node), 'depth': depth,
                'loc': None if loc is None else str(loc),
                'params': {} if loc is None else dict(self._params.get(str(loc), {})),
                'children': [],
            }
            entries[ident] = entry
            if parent is not None:
                entries[parent]['children'].append(ident)
            nodes.append(entry)
        self._nodes = nodes
        self._nodes_json: Optional[str] = None
        self._stale_fragments = set(self._state)
        self._state_version = 0
        self._built_version = -1
        self._built_state: Optional[dict[str, Any]] = None
        self._dirty = True

    # ---- observing -----------------------------------------------------------------

    def on_tick(self, record: TickRecord) -> None:
        """Take the record of a tick or a stop: statuses, events, tick statistics."""
        if self._version != self.tracker.structure_version:
            self._describe()
        if not record.stopped:
            self.tick_count = record.tick
            self.tick_duration = record.duration
            self.tick_interval = record.interval
        if record.changes:
            self._apply(record)
        if record.debug:
            self._debug_events(record)
        self._scan_blackboard()

    def set_executive(self, info: dict[str, Any]) -> None:
        """Set the caller's ``executive`` section (JSON data); a change is a change."""
        if info != self._executive:
            self._executive = dict(info)
            self._dirty = True

    def _apply(self, record: TickRecord) -> None:
        """Record the changes of a tick (and an event for each status that moved)."""
        state = self._state
        stale = self._stale_fragments
        events = self._events
        root_moved = False
        now = record.time
        for change in record.changes:
            ident = change.id
            name = change.new._name_  # Enum.name is a slow property
            state[ident] = {'status': name, 'feedback': change.reason}
            stale.add(ident)
            if change.old is not change.new:
                if change.behaviour is self.root:
                    root_moved = True
                events.append({'id': ident, 'from': change.old._name_, 'to': name,
                               'time': now, 'tick': record.tick, 'reason': change.reason})
        if len(events) > 2 * self.max_events:  # nobody collects them: keep the newest
            self.events_dropped += len(events) - self.max_events
            del events[:-self.max_events]
        self._state_version += 1
        self._dirty = True
        if self.root.status is Status.FAILURE:
            why = self.why()
            last = self._last_failure
            if last is None or last['why'] != why or root_moved:
                self._last_failure = {
                    'tick': record.tick, 'time': now, 'why': why,
                    'reason': reason_of((step['id'], step['reason']) for step in why)}

    def _debug_events(self, record: TickRecord) -> None:
        """Add an event per debugger action (bt_executive/observe/debugger.py).

        A debug event names its node (the root for the whole tree), keeps that node's
        status in ``from`` and ``to``, and says what happened in ``reason``, what kind of
        action it was in ``debug`` and who did it in ``origin``.
        """
        root_id = self._ids[self.root]
        for note in record.debug:
            ident = note.node if note.node in self._state else root_id
            status = self._state[ident]['status']
            self._events.append({'id': ident, 'from': status, 'to': status,
                                 'time': record.time, 'tick': record.tick,
                                 'reason': note.text, 'debug': note.kind,
                                 'origin': note.origin})

    def _scan_blackboard(self) -> None:
        keys = self.keys
        if self._all_keys:
            storage = py_trees.blackboard.Blackboard.storage
            keys = keys + sorted(name[1:] for name in storage if name[1:] not in keys)
            for key in [k for k in (*self._blackboard, *self._unset) if k not in keys]:
                self._blackboard.pop(key, None)
                self._unset.pop(key, None)
                self._raw.pop(key, None)
                self._dirty = True
        raw = self._raw
        for key in keys:
            try:
                value = self.lookup(key)
            except Exception as error:  # noqa: B902 - KeyError, or why the key is unset
                reason = '' if isinstance(error, KeyError) else str(error)
                if key in self._blackboard or self._unset.get(key) != reason:
                    self._blackboard.pop(key, None)
                    raw.pop(key, None)
                    self._unset[key] = reason
                    self._dirty = True
                continue
            if value is raw.get(key, raw) and type(value) in _IMMUTABLE:
                continue
            rendered = plain_json(self.render_value(value))
            raw[key] = value
            if key not in self._blackboard or rendered != self._blackboard[key]:
                self._blackboard[key] = rendered
                self._unset.pop(key, None)
                self._dirty = True

    # ---- results -------------------------------------------------------------------

    def update(self) -> Optional[dict[str, Any]]:
        """Return a full snapshot if anything shown changed since the last one, else None.

        What counts: a status or feedback message, a selected blackboard value, the
        ``executive`` section, the structure. Tick statistics and stamps do not.
        """
        if not self._dirty:
            return None
        return self._build()

    def node_states(self) -> dict[str, dict[str, str]]:
        """Return each node's status and feedback as the model holds them (builds nothing)."""
        return dict(self._state)

    def full(self) -> dict[str, Any]:
        """Return the current full snapshot (for heartbeats and late joiners)."""
        if self._dirty or self._last is None:
            return self._build()
        snapshot = dict(self._last)
        snapshot['stamp'] = self.clock()
        snapshot['tick'] = self._tick_stats()
        return snapshot

    def events(self) -> list[dict[str, Any]]:
        """Return the status transitions since the last call, oldest first.

        Each is ``{"id", "from", "to", "time", "tick", "reason"}``: the node, its statuses
        before and after the tick (or stop) that moved it, that tick's clock time and
        count, and the node's feedback message (for FAILURE: why).
        """
        events = self._events[-self.max_events:]
        self.events_dropped += len(self._events) - len(events)
        self._events = []
        return events

    def event_batch(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """Wrap transitions as one ``~/events`` message (schema ``bt_executive/events/1``)."""
        return {'schema': EVENTS_SCHEMA, 'session': self.session, 'revision': self.revision,
                'tree': self.tree_name, 'events': events}

    def why(self) -> list[dict[str, str]]:
        """Return the chain of failures below a failed root, root first ([] otherwise)."""
        return [{'id': ident, 'reason': _text(reason)}
                for ident, reason in failure_chain(self.root, ident=self._ids.__getitem__)]

    def _tick_stats(self) -> dict[str, Any]:
        interval = self.tick_interval
        return {'count': self.tick_count,
                'duration_ms': round(self.tick_duration * 1000.0, 3),
                'interval_ms': None if interval is None else round(interval * 1000.0, 3)}

    def _build(self) -> dict[str, Any]:
        self.seq += 1
        self._dirty = False
        ident = self._ids.__getitem__
        root_id = ident(self.root)
        state = dict(self._state)
        self._built_state, self._built_version = state, self._state_version
        snapshot = {
            'schema': SCHEMA,
            'session': self.session,
            'revision': self.revision,
            'seq': self.seq,
            'stamp': self.clock(),
            'tree': self.tree_name,
            'source_file': self.source_file,
            'root': root_id,
            'root_status': state[root_id]['status'],
            'nodes': self._nodes,
            'state': state,
            'active_path': active_path(self.root, ident=ident),
            'why': self.why(),
            'last_failure': self._last_failure,
            'blackboard': dict(self._blackboard),
            'unset': dict(self._unset),
            'tick': self._tick_stats(),
            'executive': self._executive,
        }
        self._last = snapshot
        return snapshot

    def encode(self, snapshot: dict[str, Any]) -> str:
        """Serialise a snapshot as compact JSON, reusing what did not change.

        The structure is serialised once per revision and each node's state once per
        change, so the cost of a snapshot of this builder grows with what changed (plus
        joining the cached pieces). Other snapshots are serialised in full.
        """
        if snapshot.get('nodes') is not self._nodes:
            return to_json(snapshot)
        if self._nodes_json is None:
            self._nodes_json = to_json(self._nodes)
        if snapshot.get('state') is self._built_state \
                and self._built_version == self._state_version:
            fragments = self._fragments
            for ident in self._stale_fragments:
                state = self._state[ident]
                fragments[ident] = (f'{self._key_json[ident]}:{{"status":"{state["status"]}",'
                                    f'"feedback":{encode_basestring_ascii(state["feedback"])}}}')
            self._stale_fragments.clear()
            state_json = '{' + ','.join(fragments.values()) + '}'
        else:
            state_json = to_json(snapshot['state'])
        rest = {key: value for key, value in snapshot.items() if key not in ('nodes', 'state')}
        return f'{to_json(rest)[:-1]},"state":{state_json},"nodes":{self._nodes_json}}}'


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def to_json(data: Any) -> str:
    """Serialise snapshot data as compact, strict JSON (no NaN)."""
    return json.dumps(data, separators=(',', ':'), allow_nan=False)


def load_schema() -> dict[str, Any]:
    """Return the snapshot JSON schema (draft 2020-12)."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding='utf-8'))
    return schema


__all__ = ['ALL_KEYS', 'EVENTS_SCHEMA', 'EXECUTIVE_STATES', 'SCHEMA', 'SCHEMA_FILE',
           'SnapshotBuilder', 'active_path', 'executive_state', 'failure_chain',
           'failure_reason', 'load_schema', 'new_session', 'node_name', 'plain_json',
           'reason_of', 'spec_params', 'to_json']
