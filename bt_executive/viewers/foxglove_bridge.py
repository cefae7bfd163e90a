# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive foxglove``: a running executive's tree, live in the Foxglove app.

A :class:`~bt_executive.ros.listener.SnapshotListener` follows the executive's
``~/snapshot`` and ``~/snapshot_delta`` (the state rebuilt by a
:class:`~bt_executive.observe.delta.SnapshotState`), ``~/events`` and ``~/status``; a
WebSocket server of the ``foxglove-sdk`` (Foxglove's own protocol, bound to 127.0.0.1
unless told otherwise) serves four JSON channels with JSON schemas, so Foxglove's
standard panels show them:

======================  ====================  =========================================
topic                   schema                panel
======================  ====================  =========================================
``<node>/nodes``        bt_executive.Nodes    Table (``.nodes``): id, type, status,
                                              feedback, active; Raw Messages
``<node>/blackboard``   bt_executive.Blackb.  Plot (``.numbers.<key>``: every number and
                                              boolean of ``snapshot_keys``, flattened)
``<node>/transitions``  foxglove.Log          Log: one line per status transition
``<node>/status``       bt_executive.Status   Raw Messages, State Transitions
======================  ====================  =========================================

``<node>`` is the executive's fully qualified name (``/bt_executive``,
``/robot1/bt_executive``). The converters (:func:`nodes_message`,
:func:`blackboard_message`, :func:`log_messages`) need neither ROS nor the SDK.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any, Callable, Optional

from bt_executive.observe.delta import SnapshotState
from bt_executive.observe.snapshot import SCHEMA as SNAPSHOT_SCHEMA
from bt_executive.ros.listener import DEFAULT_NODE, SnapshotListener, topic_name
from bt_executive.viewers.serving import serve_until_signal

DEFAULT_HOST = '127.0.0.1'
#: The Foxglove app's default WebSocket address is ws://localhost:8765.
DEFAULT_PORT = 8765
#: Most numbers put on the blackboard channel (the rest are left out).
MAX_NUMBERS = 256
#: Event batches kept until the snapshot of their tree arrives.
MAX_PENDING = 100

#: foxglove.Log levels.
DEBUG, INFO, WARNING, ERROR = 1, 2, 3, 4

NODES_SCHEMA = {
    'title': 'bt_executive.Nodes',
    'description': 'Every node of the tree with its status (one message per snapshot)',
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
LOG_SCHEMA = {
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
STATUS_SCHEMA = {'title': 'bt_executive.Status',
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


def blackboard_schema(numbers: dict[str, float]) -> dict[str, Any]:
    """Return the schema of :func:`blackboard_message` naming each number (for Plot)."""
    return {'title': 'bt_executive.Blackboard',
            'description': 'The snapshot_keys of the blackboard; numbers flattened to plot',
            'type': 'object',
            'properties': {'tick': {'type': 'integer'}, 'values': {'type': 'object'},
                           'numbers': {'type': 'object', 'properties': {
                               key: {'type': 'number'} for key in numbers}}}}


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
        message = {'timestamp': {'sec': max(sec, 0),
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


class FoxgloveBridge:
    """Serves one executive's tree to Foxglove (see the module's table of channels).

    Args:
        namespace: the executive's namespace
        node: the executive's node name
        host: address to bind (default 127.0.0.1)
        port: port to bind (0: any free port; see :attr:`port`)
        ros_args: ROS command-line arguments for the listener's context

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.
        RuntimeError: the port is taken (the SDK's error).
    """

    def __init__(self, *, namespace: str = '', node: str = DEFAULT_NODE,
                 host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 ros_args: Optional[list[str]] = None) -> None:
        import foxglove

        self._foxglove = foxglove
        self.prefix = topic_name(namespace, node, 'x')[:-2]
        self.namespace, self.node = namespace, node
        self.context = foxglove.Context()
        self.server = foxglove.start_server(name=f'bt_executive {self.prefix}', host=host,
                                            port=port, context=self.context)
        self.host = host
        self._lock = threading.Lock()
        self.nodes = self._channel('nodes', NODES_SCHEMA)
        self.transitions = self._channel('transitions', LOG_SCHEMA)
        self.status = self._channel('status', STATUS_SCHEMA)
        self._numbers: Optional[tuple[str, ...]] = None
        self.blackboard = self._channel('blackboard', blackboard_schema({}))
        self._where: dict[str, str] = {}
        self._pending: list[dict[str, Any]] = []
        self._revision: Any = None
        #: the state rebuilt from ``~/snapshot`` and ``~/snapshot_delta``
        self.model = SnapshotState()
        #: why the state shown is behind (a gap in the deltas), or ''
        self.waiting = ''
        self.errors: list[BaseException] = []
        self.listener: Optional[SnapshotListener] = None
        self._ros_args = ros_args

    def _channel(self, name: str, schema: dict[str, Any]) -> Any:
        foxglove = self._foxglove
        return foxglove.Channel(
            f'{self.prefix}/{name}', message_encoding='json', context=self.context,
            schema=foxglove.Schema(name=schema['title'], encoding='jsonschema',
                                   data=json.dumps(schema).encode('utf-8')))

    @property
    def port(self) -> int:
        """Return the port the WebSocket server listens on."""
        return int(self.server.port)

    @property
    def url(self) -> str:
        """Return the address to open in Foxglove."""
        host = f'[{self.host}]' if ':' in self.host else self.host
        return f'ws://{host}:{self.port}'

    # ---- from ROS --------------------------------------------------------------------

    def _guarded(self, work: Callable[[dict[str, Any]], None], text: str) -> None:
        try:
            data = json.loads(text)
            if isinstance(data, dict):
                with self._lock:
                    work(data)
        except (ValueError, TypeError, KeyError) as error:  # a malformed message: skip it
            self.errors.append(error)

    def put_snapshot(self, text: str) -> None:
        """Take a ``~/snapshot`` or ``~/snapshot_delta`` message; publish the state it makes.

        The nodes and blackboard channels get the state rebuilt from the latched snapshot
        and the deltas after it; a gap in the deltas holds them (:attr:`waiting` says
        why, and a warning on the transitions Log) until the next full snapshot, so they
        never show a wrong state.
        """
        self._guarded(self._stream, text)

    put_delta = put_snapshot

    def _stream(self, message: dict[str, Any]) -> None:
        if 'schema' not in message:  # a snapshot of a producer that leaves it out
            message = {**message, 'schema': SNAPSHOT_SCHEMA}
        changed = self.model.feed(message)
        if self.model.waiting != self.waiting:  # a gap starts or ends: say so in the Log
            self.waiting = self.model.waiting
            stamp = float(message.get('stamp') or 0.0)
            self.transitions.log({
                'timestamp': {'sec': max(int(stamp), 0),
                              'nsec': max(0, min(999999999, int((stamp % 1.0) * 1e9)))},
                'level': WARNING if self.waiting else INFO,
                'message': f'behind: {self.waiting}' if self.waiting else
                'caught up at a full snapshot', 'name': self.prefix, 'file': '', 'line': 0})
        if changed and self.model.snapshot is not None:
            self._snapshot(self.model.snapshot)

    def put_events(self, text: str) -> None:
        """Publish an ``~/events`` batch on the transitions channel.

        A batch can overtake the first snapshot of its tree (two topics): it waits for
        that snapshot (at most :data:`MAX_PENDING` batches), which names the nodes' files.
        """
        self._guarded(self._events, text)

    def _events(self, batch: dict[str, Any]) -> None:
        if (batch.get('session'), batch.get('revision')) != self._revision:
            self._pending.append(batch)
            if len(self._pending) > MAX_PENDING:
                self._log_batch(self._pending.pop(0))
            return
        self._log_batch(batch)

    def _log_batch(self, batch: dict[str, Any]) -> None:
        for message in log_messages(batch, self._where):
            self.transitions.log(message)

    def put_status(self, text: str) -> None:
        """Publish a ``~/status`` on the status channel."""
        self._guarded(self.status.log, text)

    def _snapshot(self, snapshot: dict[str, Any]) -> None:
        if not isinstance(snapshot.get('nodes'), list):
            return
        revision = (snapshot.get('session'), snapshot.get('revision'))
        if revision != self._revision:
            self._revision = revision
            self._where = {node['id']: node['loc'] for node in snapshot['nodes']
                           if node.get('loc')}
            pending, self._pending = self._pending, []
            for batch in pending:
                self._log_batch(batch)
        self.nodes.log(nodes_message(snapshot))
        message = blackboard_message(snapshot)
        keys = tuple(message['numbers'])
        if keys != self._numbers:  # a new key: advertise the schema that names it
            self._numbers = keys
            self.blackboard.close()
            self.blackboard = self._channel('blackboard', blackboard_schema(message['numbers']))
        self.blackboard.log(message)

    # ---- running ---------------------------------------------------------------------

    def start(self) -> 'FoxgloveBridge':
        """Start the ROS listener (background thread); the server is already serving."""
        self.listener = SnapshotListener(
            self.namespace, self.node, on_snapshot=self.put_snapshot,
            on_delta=self.put_delta, on_events=self.put_events, on_status=self.put_status,
            name='bt_executive_foxglove', args=self._ros_args).start()
        return self

    def close(self) -> None:
        """Stop the listener and the server."""
        if self.listener is not None:
            self.listener.close()
        self.server.stop()

    def __enter__(self) -> 'FoxgloveBridge':
        """Start the bridge (see :meth:`start`)."""
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        """Close the bridge (see :meth:`close`)."""
        self.close()


def run(*, namespace: str = '', node: str = DEFAULT_NODE, host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT, out: Callable[[str], None] = print) -> int:
    """Serve the executive to Foxglove until SIGINT or SIGTERM; return the exit code."""
    try:
        bridge = FoxgloveBridge(namespace=namespace, node=node, host=host, port=port)
    except ImportError:
        print('bt-executive foxglove: needs the foxglove-sdk package '
              '(pip install foxglove-sdk)', file=sys.stderr)
        return 1
    except ValueError as error:
        print(f'bt-executive foxglove: {error}', file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f'bt-executive foxglove: cannot listen on {host}:{port}: {error}',
              file=sys.stderr)
        return 1
    return serve_until_signal(
        bridge, tool='bt-executive foxglove', host=host,
        exposed='the tree and its blackboard',
        banner=lambda: f'bt-executive foxglove: {bridge.url}  (Foxglove: Open connection > '
                       f'Foxglove WebSocket; topics {bridge.prefix}/nodes, /blackboard, '
                       '/transitions, /status; Ctrl-C to stop)', out=out)


__all__ = ['DEFAULT_HOST', 'DEFAULT_PORT', 'FoxgloveBridge', 'LOG_SCHEMA', 'NODES_SCHEMA',
           'blackboard_message', 'blackboard_schema', 'flatten_numbers', 'log_messages',
           'nodes_message', 'run']
