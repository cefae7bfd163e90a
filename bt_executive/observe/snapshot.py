"""Snapshots of a running tree: one JSON-safe model for every viewer (no ROS in here).

A :class:`SnapshotBuilder` watches one built tree. Tick the tree through
:meth:`SnapshotBuilder.tick` (a drop-in for ``root.tick_once()`` that also notes which
behaviours ran), then call :meth:`SnapshotBuilder.update`: it returns a full snapshot
only when something a viewer shows changed (a status, a feedback message, a selected
blackboard value, the caller's ``executive`` info), else None, without serialising
anything. :meth:`SnapshotBuilder.events` returns the status transitions seen since its
last call; :meth:`SnapshotBuilder.full` always returns the current snapshot (heartbeats).

The format (``"schema": "bt_executive/snapshot/1"``) is described in docs/snapshots.md
and by ``bt_executive/schema/snapshot.schema.json``.

How changes are found without walking the tree every tick: a behaviour's status only
changes when it is ticked, or when it is stopped by its parent (always to INVALID). The
tick generator yields every behaviour it ticks, so :meth:`SnapshotBuilder.tick` collects
them; :meth:`SnapshotBuilder.update` compares those, plus their children that are not
INVALID and were not ticked (a parent may stop those), descending further only below
children that changed.
The cost per tick is proportional to the behaviours ticked, not to the tree's size.
"""

from __future__ import annotations

import itertools
import json
from json.encoder import encode_basestring_ascii
import math
import operator
import pathlib
import time
from typing import Any, Callable, Iterable, Optional
import uuid

from bt_executive.core.builder import blackboard_lookup
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

_STATE = operator.attrgetter('status', 'feedback_message')
_INVALID = Status.INVALID
_IMMUTABLE = (type(None), bool, int, float, str, bytes)


def new_session() -> str:
    """Return a fresh random session id (one per publishing process)."""
    return uuid.uuid4().hex[:12]


def node_id(behaviour: py_trees.behaviour.Behaviour) -> str:
    """Return the stable id of a behaviour: its ``bt_path``, else its name."""
    return getattr(behaviour, 'bt_path', behaviour.name)


def active_path(root: py_trees.behaviour.Behaviour, *,
                ident: Callable[[Any], str] = node_id) -> list[str]:
    """Return the ids of the RUNNING branch, root first (the first RUNNING child each level)."""
    path = []
    node = root
    while node is not None and node.status is Status.RUNNING:
        path.append(ident(node))
        node = next((c for c in node.children if c.status is Status.RUNNING), None)
    return path


def failure_chain(root: py_trees.behaviour.Behaviour, *,
                  ident: Callable[[Any], str] = node_id) -> list[tuple[str, str]]:
    """Return the (node id, reason) chain that led to a FAILURE, root first.

    Each step follows the last child that failed; the reason is the node's feedback message.
    """
    chain = []
    node = root
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


def failure_reason(root: py_trees.behaviour.Behaviour) -> str:
    """Summarise why the tree failed: the deepest failing node and its reason."""
    return reason_of(failure_chain(root))


def json_finite(value: Any) -> Any:
    """Return ``value`` with non-finite floats replaced by strings (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {key: json_finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_finite(item) for item in value]
    return value


def plain_json(value: Any) -> Any:
    """Render a value as JSON data: plain JSON types as they are, anything else as repr."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {str(key): plain_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(item) for item in value]
    return repr(value)


def spec_params(document: Any, *, limit: int = 40) -> dict[str, dict[str, str]]:
    """Return the key parameters of every node of a document, as written, by location.

    Args:
        document: a loaded :class:`~bt_executive.core.spec.Document`
        limit: longest rendered value (longer ones are cut with an ellipsis)

    Returns:
        ``str(node.loc) -> {parameter: rendered value}``; behaviours carry the same
        location as ``bt_loc``.
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
    """Observe the ticks of one tree and build snapshots and transition events.

    Snapshots returned share their ``nodes`` list (and the per-node dicts) with later
    snapshots of the same revision: treat them as read-only.

    Args:
        root: the tree's root behaviour (built by :mod:`bt_executive.core.builder`, or any
            py_trees tree: behaviours without ``bt_path`` get ids from their names)
        tree_name: the tree's name
        source_file: the file the tree was loaded from
        revision: the tree revision (the executive increments it on every tree swap)
        blackboard_keys: root blackboard keys to include (``'*'``: every key; ``''``
            entries are ignored, as in the ROS parameter default ``['']``)
        lookup: reads a key; raises KeyError (or any error, whose text is shown) if unset
        render_value: turns a blackboard value into JSON data (ROS messages into dicts)
        document: the loaded document, for the nodes' key parameters (optional)
        session: identifies the process publishing (default: a fresh random id)
        clock: seconds for stamps and event times (the executive passes the ROS clock)
        max_events: transitions kept until :meth:`events` is called (oldest dropped)
    """

    def __init__(self, root: py_trees.behaviour.Behaviour, *, tree_name: str,
                 source_file: str, revision: int, blackboard_keys: Iterable[str] = (),
                 lookup: Callable[[str], Any] = blackboard_lookup,
                 render_value: Callable[[Any], Any] = plain_json, document: Any = None,
                 session: Optional[str] = None, clock: Callable[[], float] = time.time,
                 max_events: int = 1000):
        self.root = root
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
        self._visited: list[py_trees.behaviour.Behaviour] = []
        self._last_visited: list[py_trees.behaviour.Behaviour] = []
        self._last_current: list[tuple[Status, Any]] = []
        self._last_pending: list[py_trees.behaviour.Behaviour] = []
        #: the records of the behaviours in _last_visited equal _last_current
        self._in_sync = False
        self._ticked = False
        self._scan_all = False
        self._now: Optional[float] = None
        self._last_tick_start: Optional[float] = None
        self._blackboard: dict[str, Any] = {}
        self._raw: dict[str, Any] = {}
        self._unset: dict[str, str] = {}
        self._executive: dict[str, Any] = {}
        self._last_failure: Optional[dict[str, Any]] = None
        self._last: Optional[dict[str, Any]] = None
        self._index_structure()
        self._scan_blackboard()

    # ---- structure -----------------------------------------------------------------

    def _index_structure(self) -> None:
        """Give every behaviour an id and describe the tree once (per revision)."""
        self._ids: dict[py_trees.behaviour.Behaviour, str] = {}
        self._parent: dict[py_trees.behaviour.Behaviour, Any] = {}
        #: behaviour -> its children whose recorded status is not INVALID
        self._live: dict[py_trees.behaviour.Behaviour, set] = {}
        self._record: dict[py_trees.behaviour.Behaviour, tuple[Status, str]] = {}
        self._state: dict[str, dict[str, str]] = {}
        self._key_json: dict[str, str] = {}
        self._fragments: dict[str, str] = {}
        nodes: list[dict[str, Any]] = []

        def visit(node: py_trees.behaviour.Behaviour, parent: Optional[str], depth: int,
                  parent_node: Any) -> str:
            ident = getattr(node, 'bt_path', None)
            if ident is None:
                ident = f'{parent}/{node.name}' if parent else node.name
            base, count = ident, 1
            while ident in self._state:
                count += 1
                ident = f'{base}#{count}'
            self._ids[node] = ident
            self._parent[node] = parent_node
            self._live[node] = {child for child in node.children
                                if child.status is not Status.INVALID}
            feedback = _text(node.feedback_message)
            self._record[node] = (node.status, feedback)
            self._state[ident] = {'status': node.status.name, 'feedback': feedback}
            self._key_json[ident] = encode_basestring_ascii(ident)
            self._fragments[ident] = ''
            loc = getattr(node, 'bt_loc', None)
            entry: dict[str, Any] = {
                'id': ident, 'parent': parent, 'name': node.name,
                'type': getattr(node, 'bt_type', type(node).__name__),
                'kind': _kind(node), 'depth': depth,
                'loc': None if loc is None else str(loc),
                'params': {} if loc is None else dict(self._params.get(str(loc), {})),
                'children': [],
            }
            nodes.append(entry)
            entry['children'] = [visit(child, ident, depth + 1, node)
                                 for child in node.children]
            return ident

        visit(self.root, None, 0, None)
        self._nodes = nodes
        self._nodes_json: Optional[str] = None
        self._stale_fragments = set(self._state)
        self._last_visited = []
        self._in_sync = False
        self._state_version = 0
        self._built_version = -1
        self._built_state: Optional[dict[str, Any]] = None
        self._dirty = True

    # ---- observing -----------------------------------------------------------------

    def tick(self) -> None:
        """Tick the tree once, like ``root.tick_once()``, noting the behaviours it ticks."""
        start = time.perf_counter()
        if self._last_tick_start is not None:
            self.tick_interval = start - self._last_tick_start
        self._last_tick_start = start
        visited = self._visited
        if len(visited) > 4 * len(self._record):
            visited.clear()  # nobody calls update(): stay bounded, compare everything later
            self._scan_all = True
        visited.extend(self.root.tick())  # consumed in C: cheaper than tick_once's loop
        self.tick_duration = time.perf_counter() - start
        self.tick_count += 1
        self._ticked = True

    def set_executive(self, info: dict[str, Any]) -> None:
        """Set the caller's ``executive`` section (JSON data); a change is a change."""
        if info != self._executive:
            self._executive = dict(info)
            self._dirty = True

    def mark_all(self) -> None:
        """Compare every behaviour on the next scan (after ticking the tree yourself)."""
        self._scan_all = True

    def _change(self, node: py_trees.behaviour.Behaviour, old: Status, status: Status,
                feedback: Any) -> None:
        """Record a new status/feedback of ``node`` (and a transition if the status moved)."""
        if feedback.__class__ is not str:
            feedback = str(feedback)
        ident = self._ids[node]
        self._record[node] = (status, feedback)
        name = status._name_  # Enum.name is a slow property
        self._state[ident] = {'status': name, 'feedback': feedback}
        self._stale_fragments.add(ident)
        self._state_version += 1
        self._dirty = self._moved = True
        if status is not old:
            parent = self._parent[node]
            if parent is not None:
                if status is _INVALID:
                    self._live[parent].discard(node)
                else:
                    self._live[parent].add(node)
            if node is self.root:
                self._root_moved = True
            if self._now is None:
                self._now = self.clock()
            events = self._events
            events.append({'id': ident, 'from': old._name_, 'to': name, 'time': self._now,
                           'tick': self.tick_count, 'reason': feedback})
            if len(events) > 2 * self.max_events:  # nobody collects them: keep the newest
                self.events_dropped += len(events) - self.max_events
                del events[:-self.max_events]

    def _scan(self) -> None:
        """Find what changed since the last scan (see the module docstring)."""
        self._now = None
        self._moved = self._root_moved = False
        version = self._state_version
        if self._scan_all:
            self._compare(list(self._record))
            self._in_sync = False
        elif self._ticked:
            if not self._scan_ticked():
                return
            self._visited, self._last_visited = self._last_visited, self._visited
        else:
            self._compare([self.root])
            if self._state_version != version:
                self._in_sync = False  # e.g. a stop: records moved away from _last_current
        self._visited.clear()
        self._ticked = self._scan_all = False
        if self._moved and self.root.status is Status.FAILURE:
            why = self.why()
            last = self._last_failure
            if last is None or last['why'] != why or self._root_moved:
                self._last_failure = {
                    'tick': self.tick_count, 'time': self._now or self.clock(), 'why': why,
                    'reason': reason_of((step['id'], step['reason']) for step in why)}
        self._scan_blackboard()

    def _scan_ticked(self) -> bool:
        """Compare the behaviours ticked, then the children their parents may have stopped.

        Only children that are not INVALID can change without being ticked (a stop turns
        them INVALID), so only those are compared, and below them only where one changed.
        When the same behaviours were ticked as last time (the usual case), the ticked
        ones are compared with what they read last time by C loops over the whole list,
        and only those that differ are looked at one by one.

        Returns:
            False if the tree's structure changed (it has been described again).
        """
        visited = self._visited
        current = list(map(_STATE, visited))
        record = self._record
        change = self._change
        if self._in_sync and visited == self._last_visited:
            # records of the ticked behaviours equal _last_current (see _in_sync)
            if current != self._last_current:
                for index in itertools.compress(itertools.count(),
                                                map(operator.ne, current, self._last_current)):
                    node = visited[index]
                    status, feedback = current[index]
                    old, old_feedback = record[node]
                    if status is not old or feedback != old_feedback:
                        change(node, old, status, feedback)
            # a superset of the children to check: with the same behaviours ticked, the
            # live children of ticked parents only lose members that were not ticked
            pending = list(self._last_pending)
        else:
            try:
                recorded = list(map(record.__getitem__, visited))
            except KeyError:  # the tree was changed under us: describe it again
                self._index_structure()
                self._visited.clear()
                self._ticked = False
                return False
            if current != recorded:
                for index in itertools.compress(itertools.count(),
                                                map(operator.ne, current, recorded)):
                    node = visited[index]
                    status, feedback = current[index]
                    old, old_feedback = record[node]  # again: it may be listed twice
                    if status is not old or feedback != old_feedback:
                        change(node, old, status, feedback)
            seen = set(visited)
            pending = list(set().union(*filter(None, map(self._live.__getitem__, seen))) - seen)
            self._last_pending = list(pending)
        self._last_current = current
        self._in_sync = True
        self._compare(pending)
        return True

    def _compare(self, pending: list[Any]) -> None:
        """Compare ``pending`` behaviours; below each that changed, its live children."""
        record = self._record
        live = self._live
        change = self._change
        while pending:
            node = pending.pop()
            old, feedback = record[node]
            status = node.status
            if status is not old or node.feedback_message != feedback:
                pending.extend(live[node])
                change(node, old, status, node.feedback_message)

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
            rendered = json_finite(self.render_value(value))
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
        self._scan()
        if not self._dirty:
            return None
        return self._build()

    def full(self) -> dict[str, Any]:
        """Return the current full snapshot (for heartbeats and late joiners)."""
        self._scan()
        if self._dirty or self._last is None:
            return self._build()
        snapshot = dict(self._last)
        snapshot['stamp'] = self.clock()
        snapshot['tick'] = self._tick_stats()
        return snapshot

    def events(self, *, scan: bool = True) -> list[dict[str, Any]]:
        """Return the status transitions since the last call, oldest first.

        Each is ``{"id", "from", "to", "time", "tick", "reason"}``: the node, its statuses
        at the previous and at this scan (scans follow ticks), the clock time and tick count
        of the scan that saw it, and the node's feedback message (for FAILURE: why).
        ``scan=False`` skips looking for changes: for a caller that just called
        :meth:`update` and changed nothing since.
        """
        if scan:
            self._scan()
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
    return json.loads(SCHEMA_FILE.read_text(encoding='utf-8'))


__all__ = ['ALL_KEYS', 'EVENTS_SCHEMA', 'SCHEMA', 'SCHEMA_FILE', 'SnapshotBuilder',
           'active_path', 'failure_chain', 'failure_reason', 'json_finite', 'load_schema',
           'new_session', 'node_id', 'plain_json', 'reason_of', 'spec_params', 'to_json']
