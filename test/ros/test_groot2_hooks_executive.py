# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Groot2's hooks on a live executive: a real executive process, a real action server.

No Groot2 client library that sends hooks is installable (btview, a Groot2 client, only
reads: its request types carry the hook letters but it sends none, and two of them
differ from BehaviorTree.CPP's; behaviortreepy binds BehaviorTree.CPP's publisher, the
server side). So :class:`Groot2Client` below is written from the description in
BehaviorTree.CPP 4.x's ``groot2_protocol.h``, byte for byte: a 6-byte request header,
a hook as the JSON of ``Hook``, replies with a 22-byte header, ``[b'error', why]`` for
errors, ``[header 'N', uid as text]`` on the PUB socket at ``port + 1``. The same
requests are checked against BehaviorTree.CPP's own publisher in test/test_groot2.py
(``test_hooks_dump_is_written_as_btcpp_writes_it``).

The executive runs with ``debug:=true`` (or not) and ``groot2_port``; the Fibonacci peer
counts every goal it receives.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import time
from typing import Any, Optional
from xml.etree import ElementTree

from helpers import free_port, SpawnedProcess, wait_for
import pytest
from test_debug_executive import MOVE, QUIET, Run, TIMEOUT
import zmq

pytestmark = [pytest.mark.ros, pytest.mark.slow]

HEADER = 6
REPLY_HEADER = HEADER + 16


class Groot2Client:
    """Send Groot2's requests, byte for byte as groot2_protocol.h describes them."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.context = zmq.Context.instance()
        self.notes = self.context.socket(zmq.SUB)  # BREAKPOINT_REACHED notifications
        self.notes.setsockopt(zmq.LINGER, 0)
        self.notes.setsockopt(zmq.SUBSCRIBE, b'')
        self.notes.connect(f'tcp://127.0.0.1:{port + 1}')
        self.next_id = 0x5EED

    def request(self, letter: str, payload: Optional[bytes] = None) -> list[bytes]:
        """Send one request; return the reply's frames (a fresh REQ socket each time)."""
        self.next_id += 1
        head = bytes([2, ord(letter)]) + self.next_id.to_bytes(4, 'little')
        socket = self.context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        try:
            socket.connect(f'tcp://127.0.0.1:{self.port}')
            socket.send_multipart([head] if payload is None else [head, payload])
            if not socket.poll(int(TIMEOUT * 1000)):
                raise AssertionError(f'no reply to {letter!r} within {TIMEOUT} s')
            reply = socket.recv_multipart()
        finally:
            socket.close(linger=0)
        if reply[0] != b'error':
            assert len(reply[0]) == REPLY_HEADER and reply[0][:HEADER] == head, reply
        return reply

    def ok(self, letter: str, payload: Optional[bytes] = None) -> list[bytes]:
        reply = self.request(letter, payload)
        assert reply[0] != b'error', f'{letter}: {reply}'
        return reply

    def insert(self, uid: int, *, position: int = 0, mode: int = 0,
               status: str = 'SKIPPED', once: bool = False) -> list[bytes]:
        """Send HOOK_INSERT: one ``Hook`` as JSON (the fields of groot2_protocol.h's)."""
        return self.request('I', json.dumps({
            'enabled': True, 'uid': uid, 'mode': mode, 'once': once,
            'desired_status': status, 'position': position}).encode())

    def unlock(self, uid: int, *, position: int = 0, status: str = 'SKIPPED',
               remove: bool = False) -> list[bytes]:
        return self.request('U', json.dumps({'uid': uid, 'position': position,
                                             'desired_status': status,
                                             'remove_when_done': remove}).encode())

    def remove(self, uid: int, position: int = 0) -> list[bytes]:
        return self.request('R', json.dumps({'uid': uid, 'position': position}).encode())

    def dump(self) -> list[dict[str, Any]]:
        return json.loads(self.ok('D')[1])

    def uid(self, name: str) -> int:
        """Return the ``_uid`` of the node called ``name`` in the FULLTREE XML."""
        xml = ElementTree.fromstring(self.ok('T')[1])
        found = [int(e.get('_uid')) for e in xml.iter() if e.get('name') == name]
        assert len(found) == 1, (name, found)
        return found[0]

    def breakpoint_reached(self) -> list[bytes]:
        if not self.notes.poll(int(TIMEOUT * 1000)):
            raise AssertionError(f'no BREAKPOINT_REACHED on port {self.port + 1} within '
                                 f'{TIMEOUT} s')
        return self.notes.recv_multipart()

    def close(self) -> None:
        self.notes.close(linger=0)


@pytest.fixture
def groot(spawn: Callable[..., SpawnedProcess], ros_node: Any, tmp_path: Any
          ) -> Any:
    clients = []

    def start(*, debug: bool = True) -> tuple[Run, Groot2Client]:
        port = free_port(pair=True)
        client = Groot2Client(port)  # subscribed before any breakpoint can be reached
        clients.append(client)
        live = Run(spawn, ros_node, tmp_path, debug=debug,
                   options=('-p', f'groot2_port:={port}'))
        wait_for(lambda: _tree_served(client), TIMEOUT, 'the tree served to Groot2')
        return live, client
    yield start
    for client in clients:
        client.close()


def _tree_served(client: Groot2Client) -> bool:
    return client.request('T')[0] != b'error'


def groot2_events(live: Run) -> list[tuple[str, str]]:
    return [(event['debug'], event['origin']) for event in live.debug_events()]


def test_a_pre_breakpoint_hook_stops_before_the_goal_and_unlock_sends_it(groot):
    live, client = groot()
    move = client.uid('move')
    assert client.insert(move)[0] != b'error'
    assert client.dump() == [{'desired_status': 'SKIPPED', 'enabled': True, 'mode': 0,
                              'once': False, 'position': 0, 'uid': move}]
    live.debugger.ok('set', key='go', value='true')
    note = client.breakpoint_reached()
    assert note[0][:2] == b'\x02N' and len(note[0]) == HEADER and note[1] == str(move).encode()
    state = live.debugger.wait_paused_at(MOVE)
    assert state['breakpoints'][0]['origin'] == 'groot2'
    time.sleep(QUIET)  # an absence: no goal while paused
    assert live.goals() == [], 'no goal before the unlock'
    client.ok('U', json.dumps({'uid': move, 'position': 0, 'desired_status': 'SKIPPED',
                               'remove_when_done': False}).encode())
    live.server.wait_for_name('goal_received', order=5, timeout=TIMEOUT)
    wait_for(lambda: (live.blackboard('done') or 0) >= 1, TIMEOUT, 'the sequence on')
    # the tree starts again and stops at the breakpoint again (it is not 'once')
    client.breakpoint_reached()
    live.debugger.wait_paused_at(MOVE)
    goals = len(live.goals())
    # removing the hook the tree is paused at lets it go on, as BT.CPP's wakes it
    client.ok('R', json.dumps({'uid': move, 'position': 0}).encode())
    assert client.dump() == []
    wait_for(lambda: len(live.goals()) > goals, TIMEOUT, 'a goal after the removal')
    assert not live.debugger.state()['paused']
    events = groot2_events(live)
    for expected in (('breakpoint', 'groot2'), ('hit', 'breakpoint'),
                     ('continue', 'groot2'), ('breakpoint_removed', 'groot2')):
        assert expected in events, (expected, events)


def test_a_replace_hook_gives_the_status_and_no_goal_is_sent(groot):
    live, client = groot()
    move = client.uid('move')
    assert client.insert(move, mode=1, status='SUCCESS')[0] != b'error'
    assert client.dump() == [{'desired_status': 'SUCCESS', 'enabled': True, 'mode': 1,
                              'once': False, 'position': 0, 'uid': move}]
    live.debugger.ok('set', key='go', value='true')
    wait_for(lambda: (live.blackboard('done') or 0) >= 2, TIMEOUT,
             'the sequence done twice with move replaced')
    assert live.goals() == [], 'a replaced Action sends no goal'
    assert ('substitute', 'groot2') in groot2_events(live)
    # what cannot be mapped is refused, and nothing changes
    for reply in (client.insert(move, mode=1, position=1, status='FAILURE'),
                  client.insert(move, mode=1, status='SKIPPED'),
                  client.insert(9999), client.unlock(move, position=1)):
        assert reply[0] == b'error' and reply[1], reply
    assert [hook['mode'] for hook in client.dump()] == [1]
    # Groot2 disconnecting: every hook removed, the Action works again
    client.ok('A')
    assert client.dump() == []
    live.server.wait_for_name('goal_received', order=5, timeout=TIMEOUT)


def test_with_debugging_off_hooks_are_refused_and_nothing_changes(groot):
    live, client = groot(debug=False)
    move = client.uid('move')
    for reply in (client.insert(move), client.insert(move, mode=1, status='SUCCESS'),
                  client.unlock(move), client.remove(move), client.request('A'),
                  client.request('X')):
        assert reply[0] == b'error' and b'debugging is off' in reply[1], reply
    assert client.dump() == []
    done, message = live.debugger.trigger('state')
    assert not done and 'debugging is off' in message
    assert live.debug_events() == []
    assert live.status[-1]['tree'] == 'Main'
