# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Snapshot deltas: what changed between two snapshots of one tree (no ROS in here).

A full snapshot (:mod:`bt_executive.observe.snapshot`) repeats the whole tree; a *delta*
(``"schema": "bt_executive/delta/1"``) carries only what a tick changed: the nodes whose
status or feedback changed, the selected blackboard keys whose value changed, the tick
statistics and stamp, and the other sections (active path, why-chain, last failure,
executive) only when they changed. Applying, in ``seq`` order, the deltas that follow a
snapshot reproduces every later snapshot of the same ``session`` and ``revision``
exactly (:func:`apply_delta`). A *heartbeat* (``"heartbeat": true``, :func:`heartbeat_delta`)
is a delta that changes nothing: it repeats the current ``seq`` with a fresh stamp and tick
statistics, so a quiet tree stays visibly alive at a few hundred bytes a beat, and a viewer
whose state is older than that ``seq`` learns it missed something.

:class:`DeltaTracker` is an observer of the tick records: it collects the ids of the
nodes that changed and the blackboard keys written since the last delta, so a delta costs
what changed, not the size of the tree. :class:`SnapshotState` is the receiving side
shared by every viewer (terminal, web, replay): it rebuilds the current snapshot from
snapshots and deltas, buffers deltas that arrive before their snapshot, and detects gaps
(then it keeps the last good state and waits for the next full snapshot).

The format is described in docs/snapshots.md and by
``bt_executive/schema/delta.schema.json``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any, Optional

from bt_executive.observe.record import TickRecord

#: The value of the ``schema`` field of every delta.
DELTA_SCHEMA = 'bt_executive/delta/1'
#: The JSON schema (draft 2020-12) describing deltas.
DELTA_SCHEMA_FILE = pathlib.Path(__file__).resolve().parent.parent / 'schema' / \
    'delta.schema.json'
#: Snapshot sections a delta repeats only when they changed (whole values).
OPTIONAL_SECTIONS = ('active_path', 'why', 'last_failure', 'executive')
#: Deltas kept by :class:`SnapshotState` while it waits for a snapshot to apply them to.
PENDING_LIMIT = 1000


class DeltaTracker:
    """Collect what the ticks changed since the last delta (an observer of tick records).

    Register it with the tree's runner next to the snapshot builder; :meth:`delta` then
    makes the delta from the previous snapshot to the next one.
    """

    def __init__(self) -> None:
        self._changed: set[str] = set()
        self._written: set[str] = set()
        self._all = True

    def on_tick(self, record: TickRecord) -> None:
        """Note the nodes a tick (or stop) changed and the keys it wrote."""
        for change in record.changes:
            self._changed.add(change.id)
        if record.writes:
            self._written.update(key.lstrip('/') for key in record.writes)

    def reset(self) -> None:
        """Forget what was collected (a full snapshot was just built)."""
        self._changed = set()
        self._written = set()
        self._all = False

    def delta(self, previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
        """Return the delta that turns snapshot ``previous`` into ``current``.

        Both must be snapshots of the same structure (see :func:`same_structure`); the
        node states compared are those of the nodes noted since the last call or
        :meth:`reset` (every node before the first).
        """
        old_state, new_state = previous['state'], current['state']
        if self._all:
            ids: Any = new_state
            self._all = False
        else:
            ids = self._changed
        state = {ident: new_state[ident] for ident in ids
                 if ident in new_state and old_state.get(ident) != new_state[ident]}
        written = sorted(self._written)
        self._changed = set()
        self._written = set()
        delta = make_delta(previous, current, state)
        if written:
            delta['written'] = written
        return delta


def make_delta(previous: dict[str, Any], current: dict[str, Any],
               state: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """Return the delta from ``previous`` to ``current`` (``state``: the changed nodes).

    Without ``state`` every node is compared.
    """
    if state is None:
        old_state = previous['state']
        state = {ident: value for ident, value in current['state'].items()
                 if old_state.get(ident) != value}
    delta: dict[str, Any] = {
        'schema': DELTA_SCHEMA, 'session': current['session'],
        'revision': current['revision'], 'seq': current['seq'], 'stamp': current['stamp'],
        'tick': current['tick'], 'root_status': current['root_status'], 'state': state,
    }
    for section in OPTIONAL_SECTIONS:
        if current.get(section) != previous.get(section):
            delta[section] = current.get(section)
    old_values, new_values = previous.get('blackboard') or {}, current.get('blackboard') or {}
    old_unset, new_unset = previous.get('unset') or {}, current.get('unset') or {}
    values = {key: value for key, value in new_values.items()
              if key not in old_values or old_values[key] != value}
    unset = {key: reason for key, reason in new_unset.items()
             if key not in old_unset or old_unset[key] != reason}
    removed = sorted(key for key in (*old_values, *old_unset)
                     if key not in new_values and key not in new_unset)
    if values:
        delta['blackboard'] = values
    if unset:
        delta['unset'] = unset
    if removed:
        delta['removed'] = removed
    return delta


def heartbeat_delta(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Return the heartbeat of ``snapshot``: its ``seq``, stamp and tick, no change."""
    return {'schema': DELTA_SCHEMA, 'session': snapshot['session'],
            'revision': snapshot['revision'], 'seq': snapshot['seq'],
            'stamp': snapshot['stamp'], 'tick': snapshot['tick'],
            'root_status': snapshot['root_status'], 'state': {}, 'heartbeat': True}


def same_structure(previous: Optional[dict[str, Any]], current: dict[str, Any]) -> bool:
    """Tell whether a delta can lead from ``previous`` to ``current`` (same tree shape)."""
    return previous is not None and previous.get('session') == current.get('session') \
        and previous.get('revision') == current.get('revision') \
        and (previous.get('nodes') is current.get('nodes')
             or previous.get('nodes') == current.get('nodes'))


def apply_delta(snapshot: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Return the snapshot that ``delta`` makes of ``snapshot`` (neither is changed).

    The result shares the ``nodes`` list with ``snapshot``.

    Raises:
        ValueError: the delta does not follow this snapshot (other session, revision, or
            a ``seq`` that is not the next one).
    """
    if delta.get('heartbeat'):
        return refresh(snapshot, delta)
    check_follows(snapshot, delta)
    result = dict(snapshot)
    result['seq'], result['stamp'], result['tick'] = delta['seq'], delta['stamp'], delta['tick']
    result['root_status'] = delta['root_status']
    if delta['state']:
        state = dict(snapshot['state'])
        state.update(delta['state'])
        result['state'] = state
    for section in OPTIONAL_SECTIONS:
        if section in delta:
            result[section] = delta[section]
    values, unset = delta.get('blackboard'), delta.get('unset')
    removed = delta.get('removed')
    if values or unset or removed:
        board, missing = dict(snapshot.get('blackboard') or {}), dict(snapshot.get('unset') or {})
        for key, value in (values or {}).items():
            board[key] = value
            missing.pop(key, None)
        for key, reason in (unset or {}).items():
            missing[key] = reason
            board.pop(key, None)
        for key in removed or ():
            board.pop(key, None)
            missing.pop(key, None)
        result['blackboard'], result['unset'] = board, missing
    return result


def refresh(snapshot: dict[str, Any], heartbeat: dict[str, Any]) -> dict[str, Any]:
    """Return ``snapshot`` with the stamp and tick statistics of a heartbeat of its ``seq``.

    Raises:
        ValueError: the heartbeat is of another session, revision or ``seq``.
    """
    key = (heartbeat.get('session'), heartbeat.get('revision'), heartbeat.get('seq'))
    if key != (snapshot.get('session'), snapshot.get('revision'), snapshot.get('seq')):
        raise ValueError(f'heartbeat of session {key[0]} revision {key[1]} seq {key[2]} '
                         f'does not match snapshot of session {snapshot.get("session")} '
                         f'revision {snapshot.get("revision")} seq {snapshot.get("seq")}')
    result = dict(snapshot)
    result['stamp'], result['tick'] = heartbeat['stamp'], heartbeat['tick']
    return result


def check_follows(snapshot: dict[str, Any], delta: dict[str, Any]) -> None:
    """Raise ValueError unless ``delta`` is the next change of ``snapshot``."""
    if delta.get('schema') != DELTA_SCHEMA:
        raise ValueError(f'not a delta: schema {delta.get("schema")!r}')
    if (delta.get('session'), delta.get('revision')) != \
            (snapshot.get('session'), snapshot.get('revision')):
        raise ValueError(f'delta of session {delta.get("session")} revision '
                         f'{delta.get("revision")} does not apply to snapshot of session '
                         f'{snapshot.get("session")} revision {snapshot.get("revision")}')
    if delta.get('seq') != snapshot.get('seq', 0) + 1:
        raise ValueError(f'delta seq {delta.get("seq")} does not follow snapshot seq '
                         f'{snapshot.get("seq")} (a gap)')


class SnapshotState:
    """Rebuild the current snapshot from full snapshots and deltas (every viewer's model).

    Feed it every message of ``~/snapshot`` and ``~/snapshot_delta`` in the order they
    arrive (:meth:`feed`); :attr:`snapshot` is the current state. Deltas that arrive
    before the snapshot they follow are kept (up to :data:`PENDING_LIMIT`) and applied
    when it comes; a missing delta (a gap) leaves the state as it was, with
    :attr:`waiting` set, until the next full snapshot.

    Attributes:
        snapshot: the current snapshot (None until the first full one)
        passed: every state the last :meth:`feed` went through, oldest first, ending with
            :attr:`snapshot` (empty when it changed nothing): a full snapshot that comes
            after deltas kept for it passes through each of their states, which a
            recording's timeline keeps as frames of their own
        waiting: why the state is behind (a gap, a delta of another revision), or ''
        gaps: how many gaps were found
    """

    def __init__(self) -> None:
        self.snapshot: Optional[dict[str, Any]] = None
        self.passed: list[dict[str, Any]] = []
        self.waiting = ''
        self.gaps = 0
        self._pending: dict[tuple[Any, Any, int], dict[str, Any]] = {}

    def feed(self, message: dict[str, Any]) -> bool:
        """Take one snapshot or delta (parsed); return True if the current state changed.

        Raises:
            ValueError: the message is neither a snapshot nor a delta (its ``schema``).
        """
        schema = str(message.get('schema', ''))
        self.passed = []
        if schema == DELTA_SCHEMA:
            return self._delta(message)
        if schema.startswith('bt_executive/snapshot/'):
            return self._snapshot(message)
        raise ValueError(f'neither a snapshot nor a delta: schema {message.get("schema")!r}')

    def feed_text(self, text: str) -> bool:
        """Take one message as JSON text (see :meth:`feed`)."""
        message = json.loads(text)
        if not isinstance(message, dict):
            raise ValueError('not a JSON object')
        return self.feed(message)

    def _snapshot(self, snapshot: dict[str, Any]) -> bool:
        current = self.snapshot
        if current is not None and _key(current) == _key(snapshot):
            if snapshot.get('seq', 0) < current.get('seq', 0):
                return False  # an older snapshot (a heartbeat that crossed deltas)
            if snapshot.get('seq') == current.get('seq') and snapshot == current:
                return False  # the full snapshot of the delta just applied
        self.snapshot, self.waiting = snapshot, ''
        self.passed.append(snapshot)
        self._drain()
        return True

    def _delta(self, delta: dict[str, Any]) -> bool:
        current = self.snapshot
        if delta.get('heartbeat'):
            return current is not None and _key(current) == _key(delta) \
                and self._heartbeat(current, delta)
        if current is None or _key(current) != _key(delta):
            self._keep(delta)
            if current is not None:
                self.waiting = f'a delta of revision {delta.get("revision")} arrived before ' \
                               'its snapshot'
            return False
        seq, have = delta.get('seq', 0), current.get('seq', 0)
        if seq <= have:
            return False  # already applied, or older than the snapshot
        if seq > have + 1:
            self._keep(delta)
            if not self.waiting:
                self.gaps += 1
            self.waiting = f'deltas {have + 1}..{seq - 1} missed: waiting for a snapshot'
            return False
        self.snapshot = apply_delta(current, delta)
        self.passed.append(self.snapshot)
        self._drain()
        return True

    def _heartbeat(self, current: dict[str, Any], beat: dict[str, Any]) -> bool:
        """Refresh stamp and tick from a heartbeat of the current ``seq``; note a gap.

        Heartbeats and deltas come in order on one topic, so a heartbeat of a later
        ``seq`` means the deltas up to it were lost.
        """
        seq, have = beat.get('seq', 0), current.get('seq', 0)
        if seq == have:
            if beat.get('stamp', 0) < current.get('stamp', 0):
                return False  # older than what is shown (it crossed a full snapshot)
            self.snapshot = refresh(current, beat)
            self.passed.append(self.snapshot)
            return True
        if seq > have:
            if not self.waiting:
                self.gaps += 1
            self.waiting = f'deltas {have + 1}..{seq} missed: waiting for a snapshot'
        return False

    def _keep(self, delta: dict[str, Any]) -> None:
        self._pending[(delta.get('session'), delta.get('revision'), delta.get('seq', 0))] = delta
        if len(self._pending) > PENDING_LIMIT:
            del self._pending[min(self._pending, key=lambda key: key[2])]

    def _drain(self) -> None:
        """Apply the kept deltas that now follow the current state; drop older ones."""
        current = self.snapshot
        assert current is not None
        key = _key(current)
        have = current.get('seq', 0)
        for pending in [k for k in self._pending if k[:2] == key and k[2] <= have]:
            del self._pending[pending]
        while True:
            following = self._pending.pop((*key, current.get('seq', 0) + 1), None)
            if following is None:
                break
            current = apply_delta(current, following)
            self.passed.append(current)
        self.snapshot = current
        session, revision = key
        for stale in [k for k in self._pending if k[0] == session and k[1] < revision]:
            del self._pending[stale]
        later = [k[2] for k in self._pending if k[:2] == key]
        self.waiting = f'deltas {current.get("seq", 0) + 1}..{min(later) - 1} missed: ' \
            'waiting for a snapshot' if later else ''


def _key(message: dict[str, Any]) -> tuple[Any, Any]:
    return message.get('session'), message.get('revision')


def load_delta_schema() -> dict[str, Any]:
    """Return the delta JSON schema (draft 2020-12)."""
    schema: dict[str, Any] = json.loads(DELTA_SCHEMA_FILE.read_text(encoding='utf-8'))
    return schema


__all__ = ['DELTA_SCHEMA', 'DELTA_SCHEMA_FILE', 'DeltaTracker', 'SnapshotState',
           'apply_delta', 'check_follows', 'heartbeat_delta', 'load_delta_schema',
           'make_delta', 'refresh', 'same_structure']
