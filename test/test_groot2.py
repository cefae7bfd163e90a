# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Groot2 server (bt_executive.observe.groot2) against real peers, without ROS.

The peers are real: ``btview`` (a Groot2 client, its library and its command line) reads
our server, and BehaviorTree.CPP's own ``Groot2Publisher`` (``behaviortreepy``) serves an
equivalent tree so that replies can be compared byte for byte. Requests are sent with
plain pyzmq REQ sockets, as Groot2 sends them.
"""

from __future__ import annotations

from collections.abc import Iterator
import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
from typing import Any
from xml.etree import ElementTree

import behaviortreepy as btcpp_py
from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.core.table import BuiltTree
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe import groot2
from bt_executive.observe.debugger import DebugController
from bt_executive.observe.groot2_hooks import dump_text, Groot2Hooks
from bt_executive.observe.runner import TreeRunner
from btview import client as btview_client
from helpers import free_port, listening_possible, open_descriptors, wait_for
import msgpack
import py_trees
from py_trees.common import Status
import pytest
import zmq

TIMEOUT = 10.0
BTVIEW = pathlib.Path(sys.executable).with_name('btview')


@dataclasses.dataclass(frozen=True)
class Pair:
    """The same tree for bt_executive (YAML) and for BehaviorTree.CPP (XML)."""

    name: str
    yaml: str
    xml: str


SIMPLE = Pair('simple', """
    main: Main
    blackboard: {n: 5, s: hi}
    trees:
      Main:
        Sequence root:
          - Success a
          - Selector fb:
              memory: true
              children:
                - Failure f
                - Subtree call: {tree: Sub}
          - Success never
      Sub:
        Sequence inner:
          - Success s
          - Running wait
    """, """
    <root BTCPP_format="4" main_tree_to_execute="Main">
      <BehaviorTree ID="Main">
        <Sequence name="root">
          <AlwaysSuccess name="a"/>
          <Fallback name="fb">
            <AlwaysFailure name="f"/>
            <SubTree ID="Sub" name="call"/>
          </Fallback>
          <AlwaysSuccess name="never"/>
        </Sequence>
      </BehaviorTree>
      <BehaviorTree ID="Sub">
        <Sequence name="inner">
          <AlwaysSuccess name="s"/>
          <Running name="wait"/>
        </Sequence>
      </BehaviorTree>
    </root>
    """)

# subtrees within subtrees, and one that is never ticked: BT.CPP groups the status
# buffer by subtree instance, in the order the instances are created
NESTED = Pair('nested', """
    main: Main
    blackboard: {n: 5, s: hi}
    trees:
      Main:
        Sequence root:
          - Success z
          - Subtree ca: {tree: A}
      A:
        Sequence as:
          - Success a1
          - Subtree cb: {tree: B}
          - Subtree cc: {tree: C}
      B:
        Selector sel:
          memory: true
          children:
            - Failure b0
            - Running b1
      C:
        Running c1
    """, """
    <root BTCPP_format="4" main_tree_to_execute="Main">
      <BehaviorTree ID="Main">
        <Sequence name="root">
          <AlwaysSuccess name="z"/>
          <SubTree ID="A" name="ca"/>
        </Sequence>
      </BehaviorTree>
      <BehaviorTree ID="A">
        <Sequence name="as">
          <AlwaysSuccess name="a1"/>
          <SubTree ID="B" name="cb"/>
          <SubTree ID="C" name="cc"/>
        </Sequence>
      </BehaviorTree>
      <BehaviorTree ID="B">
        <Fallback name="sel">
          <AlwaysFailure name="b0"/>
          <Running name="b1"/>
        </Fallback>
      </BehaviorTree>
      <BehaviorTree ID="C">
        <Running name="c1"/>
      </BehaviorTree>
    </root>
    """)

OTHER_TREE = """
    main: Other
    trees:
      Other:
        Selector other root:
          - Failure nope
          - Running busy
    """


# ---- helpers ------------------------------------------------------------------------------

def ask(port: int, *frames: bytes, timeout: float = TIMEOUT) -> list[bytes]:
    """Send one request on a fresh REQ socket and return the reply frames."""
    context = zmq.Context.instance()
    client = context.socket(zmq.REQ)
    client.setsockopt(zmq.LINGER, 0)
    try:
        client.connect(f'tcp://127.0.0.1:{port}')
        client.send_multipart(list(frames))
        if not client.poll(int(timeout * 1000)):
            raise AssertionError(f'timed out after {timeout}s waiting for a reply from '
                                 f'port {port} to {frames[0][:16]!r}')
        return client.recv_multipart()
    finally:
        client.close(linger=0)


def header(kind: str, request_id: int = 0x11223344, protocol: int = 2) -> bytes:
    return groot2.request_header(ord(kind), request_id, protocol)


def load(text: str) -> tuple[Any, BuiltTree]:
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    return document, build(document, registry=registry)


@dataclasses.dataclass
class Ours:
    """Our server, observing the runner that ticks the tree (as the tree host does)."""

    server: groot2.Groot2Server
    tree: BuiltTree
    runner: TreeRunner
    document: Any

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def root(self) -> py_trees.behaviour.Behaviour:
        return self.tree.root

    def tick(self) -> None:
        self.runner.tick_once()

    def halt(self) -> None:
        self.runner.stop(Status.INVALID)


@dataclasses.dataclass
class Theirs:
    tree: Any
    publisher: Any
    port: int

    def tick(self) -> None:
        self.tree.tick_once()

    def halt(self) -> None:
        self.tree.halt_tree()


def serve_ours(pair: Pair, **options: Any) -> Ours:
    document, tree = load(pair.yaml)
    server = groot2.Groot2Server(0, **options)
    server.on_install(tree, tree_name=document.main, document=document)
    runner = TreeRunner(tree)
    runner.add_observer(server)
    return Ours(server, tree, runner, document)


def serve_btcpp(pair: Pair) -> Theirs:
    factory = btcpp_py.BehaviorTreeFactory()
    running = btcpp_py.NodeStatus.RUNNING
    factory.register_simple_stateful_action('Running', lambda node: running,
                                            lambda node: running)
    factory.register_behavior_tree_from_text(textwrap.dedent(pair.xml))
    tree = factory.create_tree('Main')
    blackboard = tree.root_blackboard()
    blackboard.set_int('n', 5)
    blackboard.set_string('s', 'hi')
    port = free_port(pair=True)
    return Theirs(tree, btcpp_py.Groot2Publisher(tree, port), port)


@pytest.fixture
def ours() -> Iterator[Ours]:
    served = serve_ours(SIMPLE)
    yield served
    served.server.close()


@pytest.fixture(params=[SIMPLE, NESTED], ids=lambda pair: pair.name)
def both(request: pytest.FixtureRequest) -> Iterator[tuple[Ours, Theirs]]:
    served = serve_ours(request.param)
    theirs = serve_btcpp(request.param)
    yield served, theirs
    served.server.close()
    del theirs.publisher  # joins BT.CPP's server thread


def threads_now() -> set[str]:
    """Return the threads a Groot2 server can leave behind: ZMQ's and its own, by id.

    ZMQ's native I/O threads (named ``ZMQbg/...``) and the server's Python thread
    (``groot2-<port>``), nothing else: the process also runs threads other tests started
    (Fast DDS, executors, HTTP handlers) that come and go on their own schedule, and
    counting them made these checks depend on which tests ran before (seen: 7 == 8).
    A set, not a count: only the threads a test started must be gone when it ends.
    """
    native = {task for task in os.listdir('/proc/self/task') if zmq_thread(task)}
    return native | {f'groot2 {thread.ident}' for thread in threading.enumerate()
                     if thread.name.startswith('groot2-')}


def zmq_thread(task: str) -> bool:
    """Return whether thread ``task`` of this process is one of ZMQ's (named ``ZMQbg/``)."""
    try:
        return pathlib.Path(f'/proc/self/task/{task}/comm').read_text().startswith('ZMQbg')
    except OSError:  # the thread ended meanwhile
        return False


def start_shared_zmq_context() -> set[str]:
    """Start the shared ZMQ context's I/O threads (the clients'); return the threads started.

    The first socket of a context creates its reaper and I/O threads, and each names
    itself ``ZMQbg/...`` only once it runs: :func:`threads_now` taken in between missed
    one, which the check at the end then saw as left behind (seen: {'22766', '22767'} -
    {'22766'}). A test counts the threads returned here as there before it, named or not.
    """
    before = set(os.listdir('/proc/self/task'))
    zmq.Context.instance().socket(zmq.REQ).close()
    return set(os.listdir('/proc/self/task')) - before  # none if the context was up


def uuid_is_v4(raw: bytes) -> bool:
    return len(raw) == 16 and raw[6] >> 4 == 4 and raw[8] >> 6 == 0b10


def structure(xml: str) -> list[Any]:
    """Return the trees of a FULLTREE reply: element names and identifying attributes."""
    def shape(element: ElementTree.Element) -> tuple[Any, ...]:
        attributes = {key: element.get(key) for key in ('ID', 'name', '_uid', '_fullpath')
                      if element.get(key) is not None}
        return (element.tag, attributes, [shape(child) for child in element])

    return [shape(tree) for tree in ElementTree.fromstring(xml).iter('BehaviorTree')]


# ---- real peers ----------------------------------------------------------------------------

def test_btview_reads_our_tree_and_live_statuses(ours):
    client = btview_client.Groot2Client(port=ours.port, timeout_ms=int(TIMEOUT * 1000))
    try:
        tree = client.fetch_tree()
        names = {node.uid: (node.name, node.registration) for node in tree.walk()}
        assert names[1] == ('root', 'Sequence') and names[4] == ('f', 'AlwaysFailure')
        assert names[8] == ('wait', 'Running') and names[5][1] == 'SubTree'
        assert tree.size == 9
        assert {node.status.name for node in client.poll().statuses.values()} == {'IDLE'}
        ours.tick()
        statuses = client.poll().statuses
        assert {uid: state.status.name for uid, state in statuses.items()} == {
            1: 'RUNNING', 2: 'SUCCESS', 3: 'RUNNING', 4: 'FAILURE', 5: 'RUNNING',
            6: 'RUNNING', 7: 'SUCCESS', 8: 'RUNNING', 9: 'IDLE'}
        ours.halt()
        statuses = client.poll().statuses
        assert statuses[4].status.name == 'IDLE' and statuses[4].previous.name == 'FAILURE'
        assert statuses[8].previous.name == 'RUNNING'
        assert statuses[9].previous is None  # never ticked
        assert client.fetch_blackboard(['Main']) == {'Main': {'n': 5, 's': 'hi'}}
        assert bytes.fromhex(client.tree_uuid) == ours.server.view.uuid
    finally:
        client.close()


def btview_snapshot(port: int) -> str:
    result = subprocess.run([str(BTVIEW), 'snapshot', '--uid', '--no-legend', '--ascii',
                             '--no-color', '--port', str(port), '--timeout', str(TIMEOUT)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, 'COLUMNS': '100'})
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_btview_command_line_shows_us_as_it_shows_btcpp(both):
    ours, theirs = both
    for peer in both:
        peer.tick()
    ours_text, theirs_text = btview_snapshot(ours.port), btview_snapshot(theirs.port)
    assert 'RUNNING' in ours_text and '#1' in ours_text
    assert ours_text == theirs_text


def test_replies_match_btcpp_byte_for_byte(both):
    ours, theirs = both

    def compare(step: str) -> None:
        mine = ask(ours.port, header('S', 0xA1B2C3D4))
        reference = ask(theirs.port, header('S', 0xA1B2C3D4))
        assert len(mine) == len(reference) == 2, step
        # the echoed request header, byte for byte; then a 16-byte version 4 tree UUID
        assert mine[0][:6] == reference[0][:6] == header('S', 0xA1B2C3D4), step
        assert len(mine[0]) == len(reference[0]) == 22, step
        assert uuid_is_v4(mine[0][6:]) and uuid_is_v4(reference[0][6:]), step
        assert mine[1] == reference[1], (f'{step}: ours {mine[1].hex(" ", 3)} '
                                         f'BT.CPP {reference[1].hex(" ", 3)}')

    compare('before the first tick')
    for peer in both:
        peer.tick()
    compare('after one tick')
    for peer in both:
        peer.halt()
    compare('after halting (idle after running/success/failure)')
    codes = {code for _, code in groot2.parse_status(ask(ours.port, header('S'))[1])}
    assert {groot2.IDLE, 11, 12, 13} <= codes
    for peer in both:
        peer.tick()
    compare('ticked again after the halt')
    for peer in both:
        peer.tick()
    # the one difference of the models: resuming its RUNNING child, a py_trees Selector
    # with memory resets the failed children before it to INVALID; BT.CPP's Fallback
    # leaves them FAILURE
    mine = dict(groot2.parse_status(ask(ours.port, header('S'))[1]))
    reference = dict(groot2.parse_status(ask(theirs.port, header('S'))[1]))
    differ = {uid: (mine[uid], reference[uid]) for uid in mine if mine[uid] != reference[uid]}
    assert differ == {4 if 'call' in ours.server.view.blackboards else 8: (13, 3)}
    for peer in both:
        peer.halt()
    compare('halted again')
    for kind in 'TB':
        frames = [header(kind, 7)] + ([b'Main'] if kind == 'B' else [])
        mine, reference = ask(ours.port, *frames), ask(theirs.port, *frames)
        assert mine[0][:6] == reference[0][:6] and len(mine[0]) == 22, kind
        assert mine[0][6:] == ours.server.view.uuid


def test_tree_xml_matches_btcpp_structurally(both):
    ours, theirs = both
    mine = ask(ours.port, header('T'))[1].decode()
    reference = ask(theirs.port, header('T'))[1].decode()
    assert structure(mine) == structure(reference)
    uids = [int(element.get('_uid')) for element in ElementTree.fromstring(mine).iter()
            if element.get('_uid')]
    assert sorted(uids) == list(range(1, len(uids) + 1))


def test_blackboard_matches_btcpp(both):
    ours, theirs = both
    for names in (b'Main', b'nope', b'', b'Main;nope;Main'):
        mine = ask(ours.port, header('B'), names)
        reference = ask(theirs.port, header('B'), names)
        assert mine[0][:6] == reference[0][:6], names
        assert msgpack.unpackb(mine[1]) == msgpack.unpackb(reference[1]), names
    assert ask(ours.port, header('B'), b'nope')[1] == b'\xc0'  # nil, as BT.CPP sends
    # our subtrees share the main tree's blackboard
    subtree = 'call' if 'call' in ours.server.view.blackboards else 'ca'
    reply = msgpack.unpackb(ask(ours.port, header('B'), subtree.encode())[1])
    assert reply == {subtree: {'n': 5, 's': 'hi'}}


MALFORMED = {
    'empty frame': [b''],
    'short header': [b'\x02S'],
    'long header': [header('S') + b'x'],
    'garbage': [os.urandom(3) + b'\xff\xfe\x00garbage'],
    'huge': [b'x' * 1_000_000],
    'unknown type': [header('Z')],
    'type zero': [header('\x00')],
    'blackboard without names': [header('B')],
    'blackboard with 3 parts': [header('B'), b'Main', b'more'],
}


def test_malformed_requests_are_errors_like_btcpp_and_serving_goes_on(both):
    ours, theirs = both
    for case, frames in MALFORMED.items():
        mine = ask(ours.port, *frames)
        reference = ask(theirs.port, *frames)
        assert mine[0] == reference[0] == b'error', case
        assert len(mine) == 2 and mine[1], case
        assert ask(ours.port, header('S'))[0][:6] == header('S'), case
    assert ours.server.alive


def test_wrong_protocol_and_unsupported_requests_get_error_replies(ours):
    reply = ask(ours.port, header('S', protocol=3))
    assert reply == [b'error', b'unsupported protocol 3: this server speaks protocol 2']
    for kind, payload in (('I', b'{"uid": 1, "position": 0}'), ('R', b'{}'), ('U', b'{}'),
                          ('r', b'start'), ('t', None), ('N', None)):
        reply = ask(ours.port, header(kind), *([payload] if payload else []))
        assert reply[0] == b'error' and b'not supported' in reply[1], kind
    # nothing to remove, disable or list: answered as BT.CPP answers with no hooks
    assert ask(ours.port, header('A')) == [header('A') + ours.server.view.uuid]
    assert ask(ours.port, header('X')) == [header('X') + ours.server.view.uuid]
    assert ask(ours.port, header('D'))[1] == b'[]'


def test_oversized_request_drops_only_that_client(ours):
    context = zmq.Context.instance()
    client = context.socket(zmq.REQ)
    client.setsockopt(zmq.LINGER, 0)
    client.connect(f'tcp://127.0.0.1:{ours.port}')
    client.send(b'x' * (groot2.MAX_REQUEST_BYTES + 1))
    assert not client.poll(500), 'a request over the size limit must not be answered'
    client.close(linger=0)
    assert ask(ours.port, header('S'))[0][:6] == header('S')


def test_requests_never_change_the_tree(ours):
    ours.tick()
    statuses = [node.status for node in ours.root.iterate()]
    storage = dict(py_trees.blackboard.Blackboard.storage)
    view = ours.server.view
    hook = json.dumps({'enabled': True, 'uid': 8, 'mode': 1, 'once': False,
                       'desired_status': 'SUCCESS', 'position': 0}).encode()
    for frames in ([header('I'), hook], [header('U'), hook], [header('R'), hook],
                   [header('A')], [header('X')], [header('r'), b'start'], [header('t')],
                   [header('B'), b'Main'], [header('T')], [header('S')], *MALFORMED.values()):
        ask(ours.port, *frames)
    assert [node.status for node in ours.root.iterate()] == statuses
    assert dict(py_trees.blackboard.Blackboard.storage) == storage
    assert ours.server.view == view
    ours.tick()  # the tree goes on as before: wait stays RUNNING, nothing was replaced
    assert ours.root.status is Status.RUNNING


def test_a_new_tree_gets_a_new_uuid_and_a_following_client_sees_it(ours):
    client = btview_client.Groot2Client(port=ours.port, timeout_ms=int(TIMEOUT * 1000))
    try:
        first = client.fetch_tree()
        first_uuid = client.tree_uuid
        client.poll()
        assert client.tree_uuid == first_uuid
        document, tree = load(OTHER_TREE)
        ours.server.on_install(tree, tree_name='Other', document=document)
        tree.root.tick_once()  # ticked by hand, without a runner: after_tick() reads it
        ours.server.after_tick()
        polled = client.poll()  # what Groot2 polls; the header carries the new UUID
        assert client.tree_uuid != first_uuid
        assert uuid_is_v4(bytes.fromhex(client.tree_uuid))
        second = client.fetch_tree()  # ... so the client fetches the tree again
        assert first.name == 'Main' and second.name == 'Other'
        names = {node.name for node in second.walk()}
        assert names == {'other root', 'nope', 'busy'}
        assert {uid: state.status.name for uid, state in polled.statuses.items()} == {
            1: 'RUNNING', 2: 'FAILURE', 3: 'RUNNING'}
        assert ours.server.port == ours.port and client.fetch_blackboard(['Other']) == {
            'Other': {}}
    finally:
        client.close()


# ---- the status encoding ---------------------------------------------------------------------

@pytest.mark.parametrize('fed', ['read', 'records'])
def test_idle_after_codes_remember_the_previous_status(fed):
    document, tree = load("""
        trees:
          Main:
            Selector root:
              - Condition gate: go
              - Sequence work:
                  - Success ok
                  - Running busy
        blackboard: {go: false}
        """)
    root = tree.root
    encoder = groot2.StatusEncoder(tree, groot2.tree_uids(tree))
    runner = TreeRunner(tree)

    def codes() -> dict[str, int]:
        by_uid = dict(groot2.parse_status(encoder.buffer))
        return {node.name: by_uid[uid] for node in root.iterate()
                for path, uid in groot2.tree_uids(tree).items()
                if path == tree.nodes.path(node)}

    def tick() -> bool:
        """Tick; read every node's status, or apply the record's changes."""
        if fed == 'read':
            root.tick_once()
            return encoder.update()
        return encoder.apply(runner.tick_once().changes)

    def stop() -> bool:
        if fed == 'read':
            root.stop(Status.INVALID)
            return encoder.update()
        return encoder.apply(runner.stop(Status.INVALID).changes)

    assert set(codes().values()) == {groot2.IDLE}
    assert len(codes()) == 5
    assert not encoder.update()  # nothing moved
    assert not encoder.apply(runner.observe().changes)
    assert tick()
    assert codes() == {'root': 1, 'gate': 3, 'work': 1, 'ok': 2, 'busy': 1}
    py_trees.blackboard.Blackboard.set('/go', True)
    tick()  # the gate opens: work and its children are stopped
    assert codes() == {'root': 2, 'gate': 2, 'work': 11, 'ok': 12, 'busy': 11}
    stop()
    assert codes() == {'root': 12, 'gate': 12, 'work': 11, 'ok': 12, 'busy': 11}
    py_trees.blackboard.Blackboard.set('/go', False)
    tick()
    assert codes() == {'root': 1, 'gate': 3, 'work': 1, 'ok': 2, 'busy': 1}


def test_statuses_stay_consistent_while_the_tree_ticks(ours):
    """The tick thread publishes, the server thread reads: every reply is whole."""
    stop = threading.Event()
    ticks = []

    def ticking() -> None:
        while not stop.is_set():
            ours.tick()
            ours.halt()
            ticks.append(1)

    worker = threading.Thread(target=ticking)
    worker.start()
    try:
        seen = set()
        for _ in range(200):
            reply = ask(ours.port, header('S'))
            assert reply[0][6:] == ours.server.view.uuid
            pairs = groot2.parse_status(reply[1])
            assert sorted(uid for uid, _ in pairs) == list(range(1, 10))
            seen.add(reply[1])
        assert len(ticks) > 0 and len(seen) >= 2
    finally:
        stop.set()
        worker.join(TIMEOUT)


# ---- serving -------------------------------------------------------------------------------

def test_without_a_tree_every_request_is_an_error():
    server = groot2.Groot2Server(0)
    try:
        assert ask(server.port, header('T')) == [b'error', b'no tree is loaded']
        assert ask(server.port, header('S'))[0] == b'error'
    finally:
        server.close()


def test_a_tree_that_cannot_be_served_is_logged_and_not_raised(ours):
    messages: list[str] = []

    class Log:
        def error(self, message: str) -> None:
            messages.append(message)

    ours.server.logger = Log()
    ours.server.on_install(ours.tree, tree_name='Main', document=None)  # no document
    assert messages and "cannot serve tree 'Main'" in messages[0]
    assert ask(ours.port, header('T')) == [b'error', b'no tree is loaded']


def test_bound_to_loopback_by_default():
    server = groot2.Groot2Server(0)
    try:
        assert server.endpoint == f'tcp://127.0.0.1:{server.port}'
        assert groot2.DEFAULT_ADDRESS == '127.0.0.1'
    finally:
        server.close()
    empty = groot2.Groot2Server(0, '')  # a cleared setting must not open the port wide
    try:
        assert empty.endpoint == f'tcp://127.0.0.1:{empty.port}'
    finally:
        empty.close()
    warnings = []

    class Logger:
        def warning(self, text):
            warnings.append(text)

        info = error = warning

    everywhere = groot2.Groot2Server(0, '0.0.0.0', logger=Logger())
    try:
        assert everywhere.endpoint == f'tcp://0.0.0.0:{everywhere.port}'
        assert any('every network interface' in text for text in warnings), warnings
    finally:
        everywhere.close()


def test_a_port_in_use_is_a_clear_error(ours):
    with pytest.raises(groot2.Groot2Error) as raised:
        groot2.Groot2Server(ours.port)
    assert str(raised.value) == (f'cannot serve Groot2 on 127.0.0.1:{ours.port}: '
                                 'Address already in use')
    assert ask(ours.port, header('S'))[0][:6] == header('S')  # the first one is unharmed


def test_many_clients_do_not_leak(ours):
    started = start_shared_zmq_context()
    context = zmq.Context.instance()
    ask(ours.port, header('S'))  # the shared client context is up
    fds, threads = open_descriptors(), threads_now() | started
    for round_ in range(4):
        clients = []
        for index in range(50):
            client = context.socket(zmq.REQ)
            client.setsockopt(zmq.LINGER, 0)
            client.connect(f'tcp://127.0.0.1:{ours.port}')
            client.send(header('S', index))
            clients.append(client)
        for index, client in enumerate(clients):
            if index % 2:  # half of them read their reply, the others just go away
                assert client.poll(int(TIMEOUT * 1000)), f'client {index} got no reply'
                assert client.recv_multipart()[0][:6] == header('S', index)
            client.close(linger=0)
    wait_for(lambda: open_descriptors() <= fds + 2, TIMEOUT,
             f'file descriptors to drop back to {fds} (now {open_descriptors()})')
    assert not threads_now() - threads
    assert ask(ours.port, header('S'))[0][:6] == header('S')
    assert ours.server.requests >= 100


def test_close_joins_the_thread_and_frees_the_port():
    threads = start_shared_zmq_context()  # the clients' I/O threads are up
    threads |= threads_now()
    port = None
    for _ in range(3):
        server = groot2.Groot2Server(port or 0)
        port = server.port
        document, tree = load(SIMPLE.yaml)
        server.on_install(tree, tree_name='Main', document=document)
        assert ask(port, header('S'))[0][:6] == header('S')
        assert server.alive
        assert server.close(timeout=TIMEOUT)
        assert not server.alive
        assert server.close()  # closing twice is harmless
    assert not threads_now() - threads  # ZMQ's I/O threads ended with the context
    assert listening_possible(port)  # the port is free again


def test_status_order_groups_subtree_instances():
    _, tree = load(NESTED.yaml)
    order = [node.name for node in groot2.status_order(tree.root)]
    assert order == ['root', 'z', 'ca', 'as', 'a1', 'cb', 'cc', 'sel', 'b0', 'b1', 'c1']


def test_publisher_xml_compacts_nodes_and_declares_the_builtins_used():
    xml = ('<root><BehaviorTree ID="M"><Sequence name="s" _uid="1">'
           '<Action ID="Running" name="r" _uid="2"/>'
           '<Condition ID="Condition" name="c" _uid="3"/></Sequence></BehaviorTree>'
           '<TreeNodesModel><Action ID="Running"/></TreeNodesModel></root>')
    rewritten = ElementTree.fromstring(groot2.publisher_xml(xml))
    tree = rewritten.find('BehaviorTree/Sequence')
    assert [child.tag for child in tree] == ['Running', 'Condition']
    assert tree[0].get('ID') is None and tree[1].get('ID') == 'Condition'
    models = [(model.tag, model.get('ID')) for model in rewritten.find('TreeNodesModel')]
    assert models == [('Action', 'Running'), ('Control', 'Sequence')]


def test_a_views_tick_update_keeps_every_other_field():
    view = groot2.TreeView(uuid=b'u' * 16, name='t', xml=b'<root/>', status=b'\x00',
                           blackboards=frozenset({'t'}), blackboard={'/a': 1})
    now = view.now(b'\x01', {'/a': 2})
    assert now == dataclasses.replace(view, status=b'\x01', blackboard={'/a': 2})
    assert now.blackboard == {'/a': 2} and view.status == b'\x00'
    names = {field.name for field in dataclasses.fields(groot2.TreeView)}
    assert names == {'uuid', 'name', 'xml', 'status', 'blackboards', 'blackboard'}, \
        'a new TreeView field must be carried over by TreeView.now'


# ---- hooks (debugging on): our server with the debugger, BT.CPP's dump ---------------------

def hook(uid: int, *, position: int = 0, mode: int = 0, status: str = 'SKIPPED',
         once: bool = False, enabled: bool = True) -> bytes:
    """Return a hook as Groot2 sends it (the fields of groot2_protocol.h's ``Hook``)."""
    return json.dumps({'enabled': enabled, 'uid': uid, 'mode': mode, 'once': once,
                       'desired_status': status, 'position': position}).encode()


@dataclasses.dataclass
class Debugged:
    """Our server answering hooks with a debugger of the tree it serves."""

    ours: Ours
    debugger: DebugController
    lock: threading.Lock  # the test's ticks and the server's requests take turns

    @property
    def port(self) -> int:
        return self.ours.port


@pytest.fixture
def debugged() -> Iterator[Debugged]:
    document, tree = load(SIMPLE.yaml)
    runner = TreeRunner(tree)
    storage = py_trees.blackboard.Blackboard.storage
    debugger = DebugController(tree, runner, lookup=lambda key: storage['/' + key],
                               storage=lambda: storage)
    hooks = Groot2Hooks(groot2.tree_uids)
    lock = threading.Lock()  # the test's ticks and the server's requests take turns

    def answer(kind: str, payload: Any) -> Any:
        with lock:
            return hooks.answer(debugger, kind, payload)

    server = groot2.Groot2Server(free_port(pair=True), hooks=answer)
    server.on_install(tree, tree_name=document.main, document=document)
    runner.add_observer(server)
    yield Debugged(Ours(server, tree, runner, document), debugger, lock)
    server.close()


def test_hooks_dump_is_written_as_btcpp_writes_it(debugged):
    """The same hooks inserted into BT.CPP's publisher and ours dump to the same bytes."""
    server = debugged.ours.server
    theirs = serve_btcpp(SIMPLE)
    try:
        inserted = [hook(4), hook(2, position=1, once=True),
                    hook(7, mode=1, status='FAILURE')]
        for port in (server.port, theirs.port):
            for one in inserted:
                reply = ask(port, header('I'), one)
                assert reply == [reply[0]] and reply[0][:6] == header('I'), (port, reply)
        mine, reference = ask(server.port, header('D')), ask(theirs.port, header('D'))
        assert sorted(json.loads(mine[1]), key=str) == sorted(json.loads(reference[1]),
                                                              key=str)
        # written alike: compact, keys sorted (what differs is only the order of hooks)
        for text in (mine[1], reference[1]):
            assert text == dump_text(json.loads(text))
        for port in (server.port, theirs.port):  # removing, then nothing is left
            assert len(ask(port, header('R'), b'{"uid": 4, "position": 0}')) == 1
            assert ask(port, header('R'), b'{"uid": 4, "position": 0}')[0] == b'error'
            assert len(ask(port, header('A'))) == 1
            assert ask(port, header('D'))[1] == b'[]'
    finally:
        del theirs.publisher


def test_a_pre_breakpoint_stops_before_the_node_and_unlock_goes_on(debugged):
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b'')
    sub.connect(f'tcp://127.0.0.1:{debugged.port + 1}')
    try:
        runner, lock = debugged.ours.runner, debugged.lock
        uid_s = groot2.tree_uids(debugged.ours.tree)['Main/root/fb/call/Sub/inner/s']
        assert ask(debugged.port, header('I'), hook(uid_s))[0][:6] == header('I')
        assert debugged.debugger.state()['breakpoints'] == [
            {'node': 'Main/root/fb/call/Sub/inner/s', 'when': 'before', 'policy': 'halt',
             'condition': '', 'origin': 'groot2'}]
        with lock:
            runner.tick_once()
        assert debugged.debugger.paused_at.node == 'Main/root/fb/call/Sub/inner/s'
        assert debugged.ours.tree.by_path('Main/root/fb/call/Sub/inner/s').status \
            is Status.INVALID
        assert sub.poll(int(TIMEOUT * 1000)), 'no BREAKPOINT_REACHED notification'
        note = sub.recv_multipart()
        assert note[0][:2] == bytes([2, ord('N')]) and len(note[0]) == 6
        assert note[1] == str(uid_s).encode()
        assert json.loads(ask(debugged.port, header('D'))[1]) == [
            {'desired_status': 'SKIPPED', 'enabled': True, 'mode': 0, 'once': False,
             'position': 0, 'uid': uid_s}]
        # unlocking a hook that is not there, or one the tree is not paused at: errors
        assert ask(debugged.port, header('U'), b'{"uid": 1, "position": 0, '
                   b'"desired_status": "SKIPPED", "remove_when_done": false}')[0] == b'error'
        unlock = json.dumps({'uid': uid_s, 'position': 0, 'desired_status': 'FAILURE',
                             'remove_when_done': True}).encode()
        assert ask(debugged.port, header('U'), unlock)[0][:6] == header('U')
        assert not debugged.debugger.paused
        with lock:
            runner.tick_once()
        s = debugged.ours.tree.by_path('Main/root/fb/call/Sub/inner/s')
        assert s.status is Status.FAILURE and 'groot2' in s.feedback_message
        assert ask(debugged.port, header('D'))[1] == b'[]'  # remove_when_done
    finally:
        sub.close(linger=0)


def test_replace_hooks_and_what_cannot_be_mapped(debugged):
    uids = groot2.tree_uids(debugged.ours.tree)
    wait = uids['Main/root/fb/call/Sub/inner/wait']
    assert len(ask(debugged.port, header('I'), hook(wait, mode=1, status='SUCCESS'))) == 1
    with debugged.lock:
        debugged.ours.tick()
    assert debugged.ours.root.status is Status.SUCCESS  # 'wait' did not run: SUCCESS
    refused = {
        'POST replace': [header('I'), hook(wait, mode=1, position=1, status='SUCCESS')],
        'replace with SKIPPED': [header('I'), hook(wait, mode=1, status='SKIPPED')],
        'unknown uid': [header('I'), hook(999)],
        'not JSON': [header('I'), b'{'],
        'no payload': [header('I')],
        'bad position': [header('R'), b'{"uid": 1, "position": 7}'],
    }
    for case, frames in refused.items():
        reply = ask(debugged.port, *frames)
        assert reply[0] == b'error' and reply[1], case
    assert [h['mode'] for h in json.loads(ask(debugged.port, header('D'))[1])] == [1]
    assert len(ask(debugged.port, header('X'))) == 1  # disabled: removed, nothing kept
    assert debugged.debugger.rules() == 0
