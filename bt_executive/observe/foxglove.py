# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What Foxglove shows of an executive: its channels, their JSON schemas and messages.

One place for both the live bridge (``bt-executive foxglove``, over the foxglove-sdk
WebSocket server) and the recordings (``bt-executive record``, ``record_file``: the
``.foxglove.mcap`` file beside the bag), so a recording opened in Foxglove shows what a
live connection shows. No ROS and no SDK in here.

======================  =========================  ====================================
channel (under node)    schema (``jsonschema``)    Foxglove panel
======================  =========================  ====================================
``nodes``               ``bt_executive.Nodes``     Table (``.nodes``): id, type, status,
                                                   feedback, active; Raw Messages
``blackboard``          ``bt_executive.Blackb.``   Plot (``.numbers.<key>``: every number
                                                   and boolean of ``snapshot_keys``)
``transitions``         ``foxglove.Log``           Log: one line per status transition
``status``              ``bt_executive.Status``    Raw Messages, State Transitions
======================  =========================  ====================================

:class:`FoxgloveView` turns the executive's topics (``~/snapshot``, ``~/snapshot_delta``,
``~/events``, ``~/status``, as JSON text) into :class:`FoxgloveMessage` s: the state is
rebuilt from snapshots and deltas by the viewers' own model
(:class:`~bt_executive.observe.delta.SnapshotState`), so every change gives one node
table whether or not the executive publishes a full snapshot on each change.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Optional

from bt_executive.observe.delta import SnapshotState

#: The channels, in the order they are advertised (each under the executive's node name).
CHANNELS = ('nodes', 'blackboard', 'transitions', 'status')
#: Most numbers put on the blackboard channel (the rest are left out).
MAX_NUMBERS = 256
#: Event batches kept until the snapshot of their tree arrives.
MAX_PENDING = 100
#: Seconds between repeats of the node table and blackboard while nothing changes (on the
#: executive's heartbeat snapshots), so a late client or a seek shows the current state.
REPEAT_PERIOD = 1.0

#: foxglove.Log levels.
DEBUG, INFO, WARNING, ERROR = 1, 2, 3, 4

NODES_SCHEMA: dict[str, Any] = {
    'title': 'bt_executive.Nodes',
    'description': 'Every node of the tree with its status (one message per change)',
    'type': 'object',
    'properties': {
        'tree': {'type': 'string'},
        'revision': {'type': 'integer'},
        'tick': {'type': 'integer'},
        'root_status': {'type': 'string'},
        'active_path': {'type': 'array', 'items': {'type': 'string'}},
        'nodes': {'type': 'array', 'items': {'type': 'object', 'properties': {
            'id': {'type': 'string'}, 'name': {'type': 'string'},
            'type': {'type': 'string'}, 'kind': {'type': 'string'},
            'depth': {'type': 'integer'}, 'status': {'type': 'string'},
            'feedback': {'type': 'string'}, 'active': {'type': 'boolean'}}}},
    },
}
LOG_SCHEMA: dict[str, Any] = {
    'title': 'foxglove.Log',
    'description': 'A log message',
    'type': 'object',
    'properties': {
        'timestamp': {'type': 'object', 'properties': {
            'sec': {'type': 'integer', 'minimum': 0},
            'nsec': {'type': 'integer', 'minimum': 0, 'maximum': 999999999}}},
        'level': {'type': 'integer', 'enum': [0, 1, 2, 3, 4, 5]},
        'message': {'type': 'string'},
        'name': {'type': 'string'},
        'file': {'type': 'string'},
        'line': {'type': 'integer', 'minimum': 0},
    },
}
STATUS_SCHEMA: dict[str, Any] = {
    'title': 'bt_executive.Status',
    'description': "The executive's ~/status (docs: README, The executive)",
    'type': 'object'}


def _plain_key(text: str) -> str:
    return re.sub(r'[^A-Za-z0-9_]', '_', text) or '_'


def flatten_numbers(values: dict[str, Any], *, limit: int = MAX_NUMBERS) -> dict[str, float]:
    """Return every number and boolean in ``values``, nested keys joined by ``_``.

    ``{'battery': {'percentage': 0.5}, 'estop': False}`` gives
    ``{'battery_percentage': 0.5, 'estop': 0}``: names a Plot message path accepts.
    """
    numbers: dict[str, float] = {}

    def walk(prefix: str, value: Any) -> None:
        if len(numbers) >= limit:
            return
        if isinstance(value, bool):
            numbers[prefix] = int(value)
        elif isinstance(value, (int, float)):
            numbers[prefix] = value
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f'{prefix}_{_plain_key(str(key))}', item)
        elif isinstance(value, list):
            for index, item in enumerate(value[:limit]):
                walk(f'{prefix}_{index}', item)

    for key in sorted(values):
        walk(_plain_key(key), values[key])
    return numbers


def nodes_message(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Return the node table of a snapshot (``bt_executive.Nodes``)."""
    active = set(snapshot.get('active_path') or [])
    state = snapshot.get('state') or {}
    rows = []
    for node in snapshot.get('nodes') or []:
        current = state.get(node['id']) or {}
        rows.append({'id': node['id'], 'name': node.get('name') or '',
                     'type': node.get('type') or '', 'kind': node.get('kind') or '',
                     'depth': node.get('depth') or 0,
                     'status': current.get('status', 'INVALID'),
                     'feedback': current.get('feedback') or '',
                     'active': node['id'] in active})
    return {'tree': snapshot.get('tree') or '', 'revision': snapshot.get('revision') or 0,
            'tick': (snapshot.get('tick') or {}).get('count') or 0,
            'root_status': snapshot.get('root_status') or 'INVALID',
            'active_path': list(snapshot.get('active_path') or []), 'nodes': rows}


def blackboard_message(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Return the blackboard of a snapshot: the values and their numbers, flattened."""
    values = snapshot.get('blackboard') or {}
    return {'tick': (snapshot.get('tick') or {}).get('count') or 0, 'values': values,
            'numbers': flatten_numbers(values)}


#: The blackboard channel's schema: one for the channel's whole life, whatever keys come
#: (a schema naming each number would change with every new key, and a channel advertised
#: again with another schema shows in Foxglove as a second topic of the same name).
BLACKBOARD_SCHEMA: dict[str, Any] = {
    'title': 'bt_executive.Blackboard',
    'description': 'The snapshot_keys of the blackboard; numbers flattened to plot '
                   '(.numbers.<key>)',
    'type': 'object',
    'properties': {'tick': {'type': 'integer'}, 'values': {'type': 'object'},
                   'numbers': {'type': 'object',
                               'additionalProperties': {'type': 'number'}}}}


def _level(to: str) -> int:
    return {'FAILURE': WARNING, 'INVALID': DEBUG}.get(to, INFO)


def log_messages(batch: dict[str, Any],
                 where: Optional[dict[str, str]] = None) -> list[dict[str, Any]]:
    """Return one ``foxglove.Log`` message per transition of an ``~/events`` batch.

    Args:
        batch: the ``~/events`` message (schema ``bt_executive/events/1``)
        where: node id -> its source location (``file:line:col``), when known
    """
    messages = []
    for event in batch.get('events') or []:
        stamp = float(event.get('time') or 0.0)
        sec = int(stamp)
        text = f"#{event.get('tick')} {event.get('id')}: {event.get('from')} -> {event.get('to')}"
        if event.get('reason'):
            text += f": {event['reason']}"
        message: dict[str, Any] = {
            'timestamp': {'sec': max(sec, 0),
                          'nsec': max(0, min(999999999, int((stamp - sec) * 1e9)))},
            'level': _level(str(event.get('to'))), 'message': text,
            'name': str(event.get('id') or ''), 'file': '', 'line': 0}
        location = (where or {}).get(str(event.get('id')))
        if location:
            parts = location.rsplit(':', 2)
            message['file'] = parts[0]
            if len(parts) > 1 and parts[1].isdigit():
                message['line'] = int(parts[1])
        messages.append(message)
    return messages


@dataclasses.dataclass(frozen=True)
class FoxgloveMessage:
    """One message for a Foxglove channel.

    Attributes:
        channel: the channel's name under the executive's node (one of :data:`CHANNELS`)
        schema_name: the schema's name (its ``title``)
        schema: the channel's JSON schema as JSON text (:data:`SCHEMAS`)
        data: the message
    """

    channel: str
    schema_name: str
    schema: str
    data: dict[str, Any]

    def encode(self) -> bytes:
        """Return the message as JSON (UTF-8), as it goes on the wire and into a file."""
        return json.dumps(self.data, separators=(',', ':')).encode('utf-8')


def _text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, separators=(',', ':'))


#: The schema name of each channel.
TITLES = {'nodes': 'bt_executive.Nodes', 'blackboard': 'bt_executive.Blackboard',
          'transitions': 'foxglove.Log', 'status': 'bt_executive.Status'}
#: The schema of each channel (the same for every message: one channel per topic name).
SCHEMAS = {'nodes': _text(NODES_SCHEMA), 'blackboard': _text(BLACKBOARD_SCHEMA),
           'transitions': _text(LOG_SCHEMA), 'status': _text(STATUS_SCHEMA)}


class FoxgloveView:
    """Turn one executive's topic messages into its Foxglove channels' messages.

    Feed :meth:`put` every message of ``~/snapshot``, ``~/snapshot_delta``, ``~/events``
    and ``~/status`` (JSON text) in the order they arrive; it returns what to publish:

    - a node table and a blackboard message per change of the state (rebuilt from
      snapshots and deltas), and at most once per :data:`REPEAT_PERIOD` on a full
      snapshot that changes nothing (the executive's heartbeat);
    - a ``foxglove.Log`` per transition; a batch that overtakes the first snapshot of its
      tree waits for it (at most :data:`MAX_PENDING` batches), which names the files;
    - the status, as it came.

    Every channel keeps one schema (:data:`SCHEMAS`): a new blackboard key is a new
    member of ``numbers``, not a new schema.

    A gap in the deltas holds the node table and blackboard at the last good state (never
    a wrong one) until the next full snapshot; the transitions Log says so when it starts
    (a warning, ``behind: ...``) and when it ends (``caught up ...``).

    Attributes:
        errors: the messages that could not be read (what was wrong), oldest first
        waiting: why the state shown is behind (a gap in the deltas), or ''
    """

    def __init__(self, *, repeat_period: float = REPEAT_PERIOD) -> None:
        self.repeat_period = repeat_period
        self.errors: list[str] = []
        self.waiting = ''
        self._state = SnapshotState()
        self._where: dict[str, str] = {}
        self._revision: Any = None
        self._pending: list[dict[str, Any]] = []
        self._latest: dict[str, FoxgloveMessage] = {}
        self._shown = float('-inf')

    def latest(self) -> list[FoxgloveMessage]:
        """Return the last node table, blackboard and status (what a new file starts with)."""
        return [self._latest[name] for name in ('nodes', 'blackboard', 'status')
                if name in self._latest]

    def put(self, topic: str, text: str, now: float) -> list[FoxgloveMessage]:
        """Take one message of a topic; return the Foxglove messages it makes.

        Args:
            topic: the topic it came on: ``snapshot``, ``snapshot_delta``, ``events`` or
                ``status``, or a name ending so (only the last name counts)
            text: the message (JSON)
            now: seconds (any clock; spaces the heartbeat repeats)
        """
        kind = topic.rsplit('/', 1)[-1]
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError('not a JSON object')
            if kind == 'status':
                return [self._message('status', data)]
            if kind == 'events':
                return self._events(data)
            if kind == 'snapshot':
                return self._snapshot(data, now)
            if kind == 'snapshot_delta':
                return self._delta(data, now)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            self.errors.append(f'{topic}: {error}')
        return []

    def _message(self, channel: str, data: dict[str, Any]) -> FoxgloveMessage:
        message = FoxgloveMessage(channel, TITLES[channel], SCHEMAS[channel], data)
        self._latest[channel] = message
        return message

    def _snapshot(self, snapshot: dict[str, Any], now: float) -> list[FoxgloveMessage]:
        if not isinstance(snapshot.get('nodes'), list):
            raise ValueError('a snapshot without nodes')
        changed = self._state.feed(snapshot)
        said = self._gap(snapshot)
        if not changed and now - self._shown < self.repeat_period:
            return said
        return said + self._state_messages(now)

    def _delta(self, delta: dict[str, Any], now: float) -> list[FoxgloveMessage]:
        changed = self._state.feed(delta)
        said = self._gap(delta)
        return said + self._state_messages(now) if changed else said

    def _gap(self, message: dict[str, Any]) -> list[FoxgloveMessage]:
        """Return a Log line when a gap in the deltas starts or ends (see the class)."""
        if self._state.waiting == self.waiting:
            return []
        self.waiting = self._state.waiting
        stamp = float(message.get('stamp') or 0.0)
        sec = max(int(stamp), 0)
        return [self._message('transitions', {
            'timestamp': {'sec': sec, 'nsec': max(0, min(999999999, int((stamp - sec) * 1e9)))},
            'level': WARNING if self.waiting else INFO,
            'message': f'behind: {self.waiting}' if self.waiting else
            'caught up at a full snapshot', 'name': 'bt_executive', 'file': '', 'line': 0})]

    def _state_messages(self, now: float) -> list[FoxgloveMessage]:
        """Return the node table and blackboard of each state the last message passed.

        (Deltas kept until their snapshot came are states of their own; a repeat is the
        current state again.)
        """
        current = self._state.snapshot
        assert current is not None
        out: list[FoxgloveMessage] = []
        for snapshot in self._state.passed or [current]:
            revision = (snapshot.get('session'), snapshot.get('revision'))
            if revision != self._revision:
                self._revision = revision
                self._where = {node['id']: node['loc'] for node in snapshot['nodes']
                               if node.get('loc')}
                pending, self._pending = self._pending, []
                for batch in pending:
                    out += self._log(batch)
            out.append(self._message('nodes', nodes_message(snapshot)))
            out.append(self._message('blackboard', blackboard_message(snapshot)))
        self._shown = now
        return out

    def _events(self, batch: dict[str, Any]) -> list[FoxgloveMessage]:
        if (batch.get('session'), batch.get('revision')) != self._revision:
            self._pending.append(batch)
            if len(self._pending) > MAX_PENDING:
                return self._log(self._pending.pop(0))
            return []
        return self._log(batch)

    def _log(self, batch: dict[str, Any]) -> list[FoxgloveMessage]:
        return [self._message('transitions', message)
                for message in log_messages(batch, self._where)]


__all__ = ['BLACKBOARD_SCHEMA', 'CHANNELS', 'FoxgloveMessage', 'FoxgloveView', 'LOG_SCHEMA',
           'MAX_NUMBERS', 'NODES_SCHEMA', 'REPEAT_PERIOD', 'SCHEMAS', 'STATUS_SCHEMA', 'TITLES',
           'blackboard_message', 'flatten_numbers', 'log_messages', 'nodes_message']
