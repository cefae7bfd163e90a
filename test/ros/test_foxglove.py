# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive foxglove``: the tree served over Foxglove's WebSocket protocol.

The converters are checked without ROS. End to end, an executive runs as a subprocess,
the bridge in-process (the real ``foxglove-sdk`` server behind its subprotocol gate on a
free loopback port), and a real WebSocket client (the ``websockets`` package, offering
``foxglove.sdk.v1`` as the Foxglove app does, or ``foxglove.websocket.v1`` as Lichtblick
does) reads the server info and the channel advertisements, subscribes to every channel
and decodes the binary message frames (opcode 1, subscription id, timestamp, JSON
payload). Where node and npm are installed, the ``@foxglove/ws-protocol`` library's own
client (Lichtblick's) reads the executive's server too: npm installs it once into a cache
directory outside the repository (``BT_EXECUTIVE_NPM_CACHE``, default
``~/.cache/bt_executive/npm``); without node the test is skipped and says why.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pathlib
import shutil
import socket
import struct
import subprocess
from typing import Any, Callable

from bt_executive.observe.delta import make_delta
from bt_executive.observe.foxglove import (blackboard_message, flatten_numbers, FoxgloveView,
                                           log_messages, nodes_message)
from bt_executive.observe.foxglove_server import (offered_subprotocols, rename_subprotocol,
                                                  SDK_SUBPROTOCOL, SUBPROTOCOLS,
                                                  WEBSOCKET_SUBPROTOCOL)
from devtools import TIMEOUT
from helpers import free_port, SpawnedProcess, wait_for
import pytest
from test_webview import CLI, EXECUTIVE, FIRST_TREE, unique, write_tree

#: The npm packages of Lichtblick's client: the protocol library and its WebSocket.
NPM_PACKAGES = ('@foxglove/ws-protocol@0.8.0', 'ws@8.18.3')
NODE_CLIENT = pathlib.Path(__file__).resolve().parent / 'peers' / 'foxglove_ws_client.js'


def test_the_gate_renames_only_a_handshake_that_offers_the_first_name():
    request = (b'GET / HTTP/1.1\r\nHost: x\r\nSec-WebSocket-Protocol: foo, '
               b'foxglove.websocket.v1\r\nsec-websocket-protocol: bar\r\n\r\n')
    assert offered_subprotocols(request) == ['foo', WEBSOCKET_SUBPROTOCOL, 'bar']
    renamed = rename_subprotocol(request, SDK_SUBPROTOCOL)
    assert renamed == (b'GET / HTTP/1.1\r\nHost: x\r\nSec-WebSocket-Protocol: '
                       b'foxglove.sdk.v1\r\n\r\n')
    assert offered_subprotocols(b'GET / HTTP/1.1\r\n\r\n') == []


def test_blackboard_numbers_are_flattened_for_plots():
    values = {'battery': {'percentage': 0.5, 'power_supply_status': 2}, 'estop': False,
              'mode': 'patrol', 'waypoints': [{'x': 1.0}, {'x': 2.5}], 'odd key!': 3}
    assert flatten_numbers(values) == {
        'battery_percentage': 0.5, 'battery_power_supply_status': 2, 'estop': 0,
        'odd_key_': 3, 'waypoints_0_x': 1.0, 'waypoints_1_x': 2.5}
    assert len(flatten_numbers({'many': list(range(1000))})) == 256
    message = blackboard_message({'tick': {'count': 4}, 'blackboard': {'x': 1}})
    assert message == {'tick': 4, 'values': {'x': 1}, 'numbers': {'x': 1}}


def test_nodes_and_transitions_as_panels_expect_them():
    snapshot = {'tree': 'Main', 'revision': 2, 'tick': {'count': 7}, 'root_status': 'FAILURE',
                'active_path': [],
                'nodes': [{'id': 'Main/a', 'name': 'a', 'type': 'Sequence',
                           'kind': 'composite', 'depth': 0, 'loc': 't.yaml:3:5'}],
                'state': {'Main/a': {'status': 'FAILURE', 'feedback': 'x > 1 is false'}}}
    table = nodes_message(snapshot)
    assert table['nodes'] == [{'id': 'Main/a', 'name': 'a', 'type': 'Sequence',
                               'kind': 'composite', 'depth': 0, 'status': 'FAILURE',
                               'feedback': 'x > 1 is false', 'active': False}]
    assert (table['tree'], table['tick'], table['root_status']) == ('Main', 7, 'FAILURE')
    batch = {'events': [{'id': 'Main/a', 'from': 'RUNNING', 'to': 'FAILURE', 'time': 12.25,
                         'tick': 7, 'reason': 'x > 1 is false'}]}
    assert log_messages(batch, {'Main/a': 't.yaml:3:5'}) == [{
        'timestamp': {'sec': 12, 'nsec': 250000000}, 'level': 3,
        'message': '#7 Main/a: RUNNING -> FAILURE: x > 1 is false', 'name': 'Main/a',
        'file': 't.yaml', 'line': 3}]


def test_the_view_follows_deltas_and_repeats_heartbeats_once_a_period():

    snapshot = {'schema': 'bt_executive/snapshot/1', 'session': 's', 'revision': 1, 'seq': 1,
                'tree': 'Main', 'tick': {'count': 1}, 'root_status': 'RUNNING',
                'nodes': [{'id': 'Main/a', 'name': 'a', 'type': 'Running', 'kind': 'leaf',
                           'depth': 0, 'loc': 'm.yaml:4:7', 'children': []}],
                'state': {'Main/a': {'status': 'RUNNING', 'feedback': ''}},
                'blackboard': {'x': 1}}
    view = FoxgloveView(repeat_period=1.0)
    first = view.put('/n/snapshot', json.dumps(snapshot), 10.0)
    assert [m.channel for m in first] == ['nodes', 'blackboard']
    assert json.loads(first[1].schema)['properties']['numbers'] == {
        'type': 'object', 'additionalProperties': {'type': 'number'}}
    assert view.put('/n/snapshot', json.dumps(snapshot), 10.5) == []  # a heartbeat, early
    assert len(view.put('/n/snapshot', json.dumps(snapshot), 11.0)) == 2  # repeated
    after = dict(snapshot, seq=2, tick={'count': 2}, blackboard={'x': 2, 'y': True},
                 state={'Main/a': {'status': 'RUNNING', 'feedback': 'busy'}})
    delta = make_delta(dict(snapshot, stamp=1.0), dict(after, stamp=2.0))
    changed = view.put('/n/snapshot_delta', json.dumps(delta), 11.1)
    assert [m.channel for m in changed] == ['nodes', 'blackboard']
    assert changed[0].data['nodes'][0]['feedback'] == 'busy'
    # a new key: the same schema (one channel per topic, never advertised again)
    assert changed[1].schema == first[1].schema and changed[1].data['numbers'] == {
        'x': 2, 'y': 1}
    assert view.put('/n/status', '[1]', 12.0) == [] and view.errors == ['/n/status: not a '
                                                                        'JSON object']


def test_transitions_that_overtake_their_snapshot_wait_for_it():
    pytest.importorskip('foxglove')
    from bt_executive.viewers.foxglove_bridge import FoxgloveBridge
    bridge = FoxgloveBridge(port=0)
    logged: list[dict[str, Any]] = []
    try:
        publish = bridge.publish

        def keep(message) -> None:
            if message.channel == 'transitions':
                logged.append(message.data)
            publish(message)

        bridge.publish = keep
        batch = {'session': 's', 'revision': 1, 'events': [
            {'id': 'Main/a', 'from': 'INVALID', 'to': 'RUNNING', 'time': 1.0, 'tick': 1,
             'reason': ''}]}
        bridge.put_events(json.dumps(batch))
        assert logged == []
        bridge.put_snapshot(json.dumps({
            'schema': 'bt_executive/snapshot/1', 'seq': 1, 'session': 's', 'revision': 1,
            'tree': 'Main', 'root': 'Main/a',
            'nodes': [{'id': 'Main/a', 'name': 'a', 'type': 'Running', 'kind': 'leaf',
                       'depth': 0, 'loc': 'm.yaml:4:7', 'children': []}],
            'state': {'Main/a': {'status': 'RUNNING', 'feedback': ''}}}))
        assert [(log['name'], log['file'], log['line']) for log in logged] == \
            [('Main/a', 'm.yaml', 4)]
        bridge.put_events(json.dumps(batch))
        assert len(logged) == 2
        bridge.put_events('not json')
        assert len(bridge.errors) == 1
    finally:
        bridge.close()


class FoxgloveClient:
    """A minimal client of Foxglove's WebSocket protocol (the JSON + binary frames)."""

    def __init__(self, url: str, subprotocol: str = SDK_SUBPROTOCOL) -> None:
        self.url = url
        self.subprotocol = subprotocol
        self.channels: dict[int, dict[str, Any]] = {}
        self.server_info: dict[str, Any] = {}
        self.received: dict[str, list[Any]] = {}

    async def run(self, done: Callable[['FoxgloveClient'], bool], topics: set[str],
                  timeout: float) -> None:
        import websockets
        async with websockets.connect(self.url, subprotocols=[self.subprotocol],
                                      max_size=None) as socket:
            assert socket.subprotocol == self.subprotocol
            subscriptions: dict[int, str] = {}
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while not done(self):
                remaining = deadline - loop.time()
                if remaining <= 0:
                    advertised = sorted(channel['topic'] for channel in self.channels.values())
                    counts = {topic: len(items) for topic, items in self.received.items()}
                    raise AssertionError(f'timed out after {timeout}s; channels {advertised}, '
                                         f'messages received {counts}')
                try:
                    frame = await asyncio.wait_for(socket.recv(), remaining)
                except asyncio.TimeoutError:
                    continue  # reported above, with what came
                if isinstance(frame, str):
                    message = json.loads(frame)
                    if message['op'] == 'serverInfo':
                        self.server_info = message
                    elif message['op'] == 'advertise':
                        new = []
                        for channel in message['channels']:
                            self.channels[channel['id']] = channel
                            if channel['topic'] in topics:
                                ident = len(subscriptions) + 1
                                subscriptions[ident] = channel['topic']
                                new.append({'id': ident, 'channelId': channel['id']})
                        if new:
                            await socket.send(json.dumps({'op': 'subscribe',
                                                          'subscriptions': new}))
                    continue
                opcode, subscription, stamp = struct.unpack_from('<BIQ', frame)
                assert opcode == 1, f'unexpected binary opcode {opcode}'
                assert stamp > 0
                payload = json.loads(frame[13:].decode('utf-8'))
                self.received.setdefault(subscriptions[subscription], []).append(payload)


@pytest.mark.ros
@pytest.mark.parametrize('subprotocol', SUBPROTOCOLS)
def test_a_foxglove_client_sees_the_live_tree(spawn: Callable[..., SpawnedProcess], tmp_path,
                                              subprotocol):
    from bt_executive.viewers.foxglove_bridge import FoxgloveBridge
    namespace = unique('fox')
    tree = write_tree(tmp_path, 'first.yaml', FIRST_TREE)
    recording = tmp_path / 'live.mcap'
    executive = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
                      '-p', 'snapshot_keys:=[x, mode, missing]',
                      '-p', f'record_file:={recording}', grace=15.0)
    prefix = f'/{namespace}/bt_executive'
    topics = {f'{prefix}/{name}' for name in ('nodes', 'blackboard', 'transitions', 'status')}
    with FoxgloveBridge(namespace=namespace, port=0) as bridge:
        assert bridge.url.startswith('ws://127.0.0.1:') and bridge.port > 0

        def done(client: FoxgloveClient) -> bool:
            nodes = client.received.get(f'{prefix}/nodes', [])
            logs = client.received.get(f'{prefix}/transitions', [])
            statuses = client.received.get(f'{prefix}/status', [])
            # the first status can come before the first tick (the next one a period later)
            return bool(nodes and nodes[-1]['tick'] > 0
                        and client.received.get(f'{prefix}/blackboard')
                        and statuses and statuses[-1]['tick_count'] > 0
                        and any('keep going' in log['message'] for log in logs))

        client = FoxgloveClient(bridge.url, subprotocol)
        asyncio.run(client.run(done, topics, TIMEOUT))
        assert not bridge.errors
    assert client.server_info['name'] == f'bt_executive {prefix}'
    # each channel: JSON with a JSON schema; the log has foxglove's own schema name
    advertised = {channel['topic']: channel for channel in client.channels.values()}
    assert set(advertised) == topics
    schemas = {topic: (channel['encoding'], channel['schemaEncoding'], channel['schemaName'])
               for topic, channel in advertised.items()}
    assert schemas == {
        f'{prefix}/nodes': ('json', 'jsonschema', 'bt_executive.Nodes'),
        f'{prefix}/blackboard': ('json', 'jsonschema', 'bt_executive.Blackboard'),
        f'{prefix}/transitions': ('json', 'jsonschema', 'foxglove.Log'),
        f'{prefix}/status': ('json', 'jsonschema', 'bt_executive.Status')}
    assert json.loads(advertised[f'{prefix}/transitions']['schema'])['properties']['level']
    # the node table (Table panel): every node with its status and feedback
    table = client.received[f'{prefix}/nodes'][-1]
    assert table['tree'] == 'Main' and table['root_status'] == 'RUNNING'
    rows = {row['id']: row for row in table['nodes']}
    assert rows['Main/root/work/keep going']['status'] == 'RUNNING'
    assert rows['Main/root/work/keep going']['active'] is True
    assert rows['Main/root/checks/too small'] == {
        'id': 'Main/root/checks/too small', 'name': 'too small', 'type': 'Condition',
        'kind': 'leaf', 'depth': 2, 'status': 'FAILURE', 'feedback': 'x > 1 is false',
        'active': False}
    # the blackboard (Plot panel): numbers flattened, each a number of the one schema
    board = client.received[f'{prefix}/blackboard'][-1]
    assert board['values'] == {'x': 0, 'mode': 'patrol'} and board['numbers'] == {'x': 0}
    schema = json.loads(advertised[f'{prefix}/blackboard']['schema'])
    assert schema['properties']['numbers']['additionalProperties'] == {'type': 'number'}
    # the transitions (Log panel)
    logs = client.received[f'{prefix}/transitions']
    going = next(log for log in logs if log['name'] == 'Main/root/work/keep going')
    assert going['level'] == 2 and 'RUNNING' in going['message']
    assert going['file'].endswith('first.yaml') and going['line'] > 0
    failed = next(log for log in logs if log['name'] == 'Main/root/checks/too small')
    assert failed['level'] == 3 and failed['message'].endswith('x > 1 is false')
    status = client.received[f'{prefix}/status'][-1]
    assert status['tree'] == 'Main' and status['root_status'] == 'RUNNING'
    # the executive's recording: its Foxglove companion has the same channels, schemas and
    # messages (the last table served, every transition served)
    assert executive.stop() == 0
    recorded = read_companion(str(recording).replace('.mcap', '.foxglove.mcap'))
    assert len(recorded['channel_ids']) == len(topics)  # one channel per topic
    assert {topic: (channel['encoding'], channel['schemaEncoding'], channel['schemaName'])
            for topic, channel in recorded['channels'].items()} == schemas
    for topic, channel in advertised.items():
        assert json.loads(recorded['channels'][topic]['schema']) == \
            json.loads(channel['schema']), topic
    assert table in recorded['messages'][f'{prefix}/nodes']
    assert all(log in recorded['messages'][f'{prefix}/transitions'] for log in logs)
    assert status in recorded['messages'][f'{prefix}/status']


def read_companion(path: str) -> dict[str, Any]:
    """Read a Foxglove companion with the mcap reader: the last channel of each topic."""
    from mcap.reader import make_reader

    channels: dict[str, dict[str, Any]] = {}
    messages: dict[str, list[Any]] = {}
    ids: set[int] = set()
    with open(path, 'rb') as stream:
        reader = make_reader(stream)
        assert reader.get_summary() is not None, f'{path} was not finalised'
        for schema, channel, message in reader.iter_messages():
            ids.add(channel.id)
            channels[channel.topic] = {'encoding': channel.message_encoding,
                                       'schemaEncoding': schema.encoding,
                                       'schemaName': schema.name,
                                       'schema': schema.data.decode()}
            messages.setdefault(channel.topic, []).append(json.loads(message.data))
    return {'channels': channels, 'messages': messages, 'channel_ids': ids}


@pytest.mark.ros
def test_the_executive_serves_foxglove_itself(spawn, tmp_path):
    pytest.importorskip('foxglove')
    namespace = unique('foxin')
    tree = write_tree(tmp_path, 'first.yaml', FIRST_TREE)
    port = free_port()
    executive = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
                      '-p', 'snapshot_keys:=[x]', '-p', f'foxglove_port:={port}')
    prefix = f'/{namespace}/bt_executive'
    topics = {f'{prefix}/{name}' for name in ('nodes', 'blackboard', 'transitions', 'status')}

    def done(client: FoxgloveClient) -> bool:
        nodes = client.received.get(f'{prefix}/nodes', [])
        return bool(nodes and nodes[-1]['tick'] > 0
                    and client.received.get(f'{prefix}/blackboard')
                    and client.received.get(f'{prefix}/status'))

    def connected() -> bool:  # the server starts with the node: wait for it, bounded
        try:
            with socket.create_connection(('127.0.0.1', port), timeout=1.0):
                return True
        except OSError:
            return False

    wait_for(connected, TIMEOUT, f'the executive to serve Foxglove on port {port}')
    client = FoxgloveClient(f'ws://127.0.0.1:{port}', WEBSOCKET_SUBPROTOCOL)
    asyncio.run(client.run(done, topics, TIMEOUT))
    assert client.server_info['name'] == f'bt_executive {prefix}'
    assert {channel['topic'] for channel in client.channels.values()} == topics
    rows = {row['id']: row for row in client.received[f'{prefix}/nodes'][-1]['nodes']}
    assert rows['Main/root/checks/too small']['feedback'] == 'x > 1 is false'
    assert client.received[f'{prefix}/blackboard'][-1]['numbers'] == {'x': 0}
    assert executive.stop() == 0
    assert f'Foxglove on ws://127.0.0.1:{port}' in executive.stderr_text()


@pytest.mark.ros
def test_the_foxglove_command_serves_until_interrupted(spawn):
    process = spawn(CLI, 'foxglove', '--ns', unique('nobody'), '--port', '0')
    line = wait_for(lambda: next((line for line in process.lines()
                                  if line.startswith('bt-executive foxglove: ws://')), None),
                    TIMEOUT, 'the URL line')
    url = line.split()[2]
    assert url.startswith('ws://127.0.0.1:')
    client = FoxgloveClient(url)
    asyncio.run(client.run(lambda c: bool(c.server_info) and len(c.channels) == 4, set(),
                           TIMEOUT))
    assert process.stop() == 0


def test_a_client_offering_neither_name_gets_the_sdks_refusal():
    pytest.importorskip('foxglove')
    import websockets
    import websockets.exceptions  # not imported by the package itself in every version
    from bt_executive.observe.foxglove_server import FoxgloveServer

    async def connect(url: str) -> None:
        async with websockets.connect(url, subprotocols=['foxglove.other.v9']):
            pass  # pragma: no cover - refused

    server = FoxgloveServer('/x/bt_executive', port=0)
    try:
        with pytest.raises(websockets.exceptions.InvalidStatus, match='400'):
            asyncio.run(connect(server.url))
    finally:
        server.close()


@pytest.fixture(scope='session')
def ws_protocol_modules() -> str:
    """Return a node_modules directory holding :data:`NPM_PACKAGES` (installed once).

    Skipped without node or npm; an install that fails is skipped too, with npm's words,
    except under CI (``CI=true``), where it fails.
    """
    node, npm = shutil.which('node'), shutil.which('npm')
    if node is None or npm is None:
        pytest.skip('node and npm are not installed: the @foxglove/ws-protocol client '
                    "(Lichtblick's) is not tried (apt-get install nodejs npm)")
    default = pathlib.Path(os.environ.get('XDG_CACHE_HOME') or pathlib.Path.home() / '.cache')
    root = pathlib.Path(os.environ.get('BT_EXECUTIVE_NPM_CACHE')
                        or default / 'bt_executive' / 'npm')
    root.mkdir(parents=True, exist_ok=True)
    modules = root / 'node_modules'
    with open(root / '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel workers install once
        if not all((modules / name.rsplit('@', 1)[0] / 'package.json').exists()
                   for name in NPM_PACKAGES):
            done = subprocess.run(
                [npm, 'install', '--prefix', str(root), '--no-audit', '--no-fund',
                 '--no-save', '--loglevel=error', *NPM_PACKAGES],
                capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                why = f'npm install {" ".join(NPM_PACKAGES)} failed: {done.stderr[-800:]}'
                if os.environ.get('CI'):
                    pytest.fail(why)
                pytest.skip(why)
    return str(modules)


@pytest.mark.ros
def test_lichtblicks_client_library_reads_the_executives_server(spawn, tmp_path,
                                                                ws_protocol_modules):
    pytest.importorskip('foxglove')
    namespace = unique('foxnpm')
    tree = write_tree(tmp_path, 'first.yaml', FIRST_TREE)
    port = free_port()
    executive = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
                      '-p', 'snapshot_keys:=[x]', '-p', f'foxglove_port:={port}')
    wait_for(lambda: f'Foxglove on ws://127.0.0.1:{port}' in executive.stderr_text(),
             TIMEOUT, f'the executive to serve Foxglove on port {port}')
    prefix = f'/{namespace}/bt_executive'
    topics = [f'{prefix}/{name}' for name in ('nodes', 'blackboard', 'transitions', 'status')]
    done = subprocess.run(
        # the transitions come at the first ticks, perhaps before the client: not awaited
        ['node', str(NODE_CLIENT), f'ws://127.0.0.1:{port}', str(int(TIMEOUT)),
         *(f'?{topic}' if topic.endswith('/transitions') else topic for topic in topics)],
        capture_output=True, text=True, timeout=TIMEOUT + 30,
        env=dict(os.environ, NODE_PATH=ws_protocol_modules))
    assert done.returncode == 0, f'{done.stdout[-2000:]}\n{done.stderr[-2000:]}'
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen['subprotocol'] == WEBSOCKET_SUBPROTOCOL
    assert seen['serverInfo']['name'] == f'bt_executive {prefix}'
    # every channel once, with its schema
    assert sorted(channel['topic'] for channel in seen['channels']) == sorted(topics)
    for channel in seen['channels']:
        assert channel['encoding'] == 'json' and channel['schemaEncoding'] == 'jsonschema'
        assert json.loads(channel['schema'])['type'] == 'object'
    rows = {row['id']: row for row in seen['received'][f'{prefix}/nodes'][-1]['nodes']}
    assert rows['Main/root/checks/too small']['feedback'] == 'x > 1 is false'
    assert seen['received'][f'{prefix}/blackboard'][-1]['numbers'] == {'x': 0}
    assert seen['received'][f'{prefix}/status'][-1]['tree'] == 'Main'
    assert executive.stop() == 0
