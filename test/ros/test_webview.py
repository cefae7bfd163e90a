# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view``: the HTTP server, the event stream and the page in a real browser.

The server tests feed a :class:`SnapshotHub` directly (no ROS). The browser tests run an
executive as a subprocess, the view in-process, and drive headless Chromium over the
DevTools protocol on a pipe (``--remote-debugging-pipe``): the page is loaded once and
the test waits, inside the page, for what it expects (a MutationObserver resolves a
promise, bounded by a timeout), then reads the DOM. Nothing is downloaded: Chromium runs
with networking features off against 127.0.0.1 only. Without Chromium the browser tests
are skipped (``apt-get install chromium``; ``make test`` installs it when run as root).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import html.parser
import json
import pathlib
import socket
import textwrap
import threading
from typing import Any, Optional
import uuid

from bt_executive.observe.snapshot import EVENTS_SCHEMA, SCHEMA, to_json
from bt_executive.viewers.webview import SnapshotHub, topic_names, ViewServer, WebView
from devtools import get, TIMEOUT
from helpers import recv_all, set_tree_file, SpawnedProcess, wait_for
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
CLI = ROOT / 'bt_executive' / 'app' / 'cli.py'

FIRST_TREE = """
    blackboard: {x: 0, mode: patrol}
    trees:
      Main:
        Selector root:
          - Sequence checks:
              - Condition too small: x > 1
              - Success never reached:
          - Sequence work:
              - Success warm up:
              - Running keep going:
    """
SECOND_TREE = """
    blackboard: {battery: 0.1}
    trees:
      Docked:
        Sequence mission:
          - Condition battery ok: battery > 0.2
          - Running drive:
    """


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def write_tree(directory: pathlib.Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def fake_snapshot(revision: int = 1, status: str = 'RUNNING', **extra: Any) -> str:
    """Return a minimal snapshot JSON of one node (for the server-only tests)."""
    data = {'schema': SCHEMA, 'session': 'test', 'revision': revision, 'seq': 1,
            'stamp': 1.0, 'tree': 'T', 'source_file': 't.yaml', 'root': 'T/a',
            'root_status': status,
            'nodes': [{'id': 'T/a', 'parent': None, 'name': 'a', 'type': 'Running',
                       'kind': 'leaf', 'depth': 0, 'loc': None, 'params': {},
                       'children': []}],
            'state': {'T/a': {'status': status, 'feedback': ''}}, 'active_path': ['T/a'],
            'why': [], 'last_failure': None, 'blackboard': {}, 'unset': {},
            'tick': {'count': 1, 'duration_ms': 0.1, 'interval_ms': None}, 'executive': {}}
    data.update(extra)
    return to_json(data)


class TreeDom(html.parser.HTMLParser):
    """Collect the tree nodes of a DOM dump: attributes and the visible status text."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: dict[str, dict[str, str]] = {}
        self._pending: Optional[str] = None
        self._capture: Optional[str] = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        values = {name: value or '' for name, value in attrs}
        if 'data-node-id' in values:
            node = dict(values, text='')
            self.nodes[values['data-node-id']] = node
            self._pending = values['data-node-id']
        elif tag == 'span' and 'status' in values.get('class', '').split() \
                and self._pending is not None:
            self._capture, self._pending = self._pending, None

    def handle_data(self, data: str) -> None:
        if self._capture is not None:
            self.nodes[self._capture]['text'] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == 'span':
            self._capture = None


def tree_nodes(dom: str) -> dict[str, dict[str, str]]:
    parser = TreeDom()
    parser.feed(dom)
    return parser.nodes


def assert_page_matches(dom: str, snapshot: dict[str, Any]) -> None:
    """Check every node of ``snapshot`` on the page: status, status text, active mark."""
    nodes = tree_nodes(dom)
    assert set(nodes) == {node['id'] for node in snapshot['nodes']}
    active = set(snapshot['active_path'])
    for ident, node in nodes.items():
        status = snapshot['state'][ident]['status']
        assert node['data-status'] == status, ident
        assert node['text'].strip() == status, ident
        assert bool(node.get('data-active')) == (ident in active), ident
        if status == 'RUNNING':
            assert node.get('data-active') in ('true', 'leaf'), ident


# ---- fixtures ------------------------------------------------------------------------------

@pytest.fixture
def executive(spawn: Callable[..., SpawnedProcess],
              tmp_path: pathlib.Path) -> tuple[str, str, SpawnedProcess]:
    """Run an executive subprocess on FIRST_TREE in a unique namespace."""
    namespace = unique('view')
    tree = write_tree(tmp_path, 'first.yaml', FIRST_TREE)
    process = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}',
                    '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
                    '-p', 'snapshot_keys:=[x, mode, missing]')
    return namespace, tree, process


@pytest.fixture
def view_of(executive: tuple[str, str, SpawnedProcess]) -> Iterator[WebView]:
    namespace, _, _ = executive
    view = WebView(namespace=namespace, port=0).start()
    try:
        yield view
    finally:
        view.close()
        assert not view.server.errors
        assert not view.listener.errors
        assert view.listener.stopped, 'the listener thread did not end'


@pytest.fixture
def server(view_server: Callable[..., ViewServer]) -> ViewServer:
    """Run a view server on a free port, fed by a bare hub (no ROS)."""
    return view_server(max_clients=8, poll_interval=0.1)


def raw_request(port: int, data: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes, read the whole answer (the server closes every connection)."""
    with socket.create_connection(('127.0.0.1', port), timeout=timeout) as connection:
        connection.sendall(data)
        return recv_all(connection)


def status_code(answer: bytes) -> int:
    return int(answer.split(b' ', 2)[1])


class EventStream:
    """A raw ``/events`` client: reads Server-Sent Events one at a time (blocking, bounded)."""

    def __init__(self, port: int, timeout: float = 5.0) -> None:
        self.socket = socket.create_connection(('127.0.0.1', port), timeout=timeout)
        self.socket.sendall(b'GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
        self.file = self.socket.makefile('rb')
        self.status = int(self.file.readline().split()[1])
        self.headers = {}
        while True:
            line = self.file.readline().decode('latin-1').strip()
            if not line:
                break
            name, _, value = line.partition(':')
            self.headers[name.lower()] = value.strip()

    def next_event(self) -> dict[str, str]:
        """Return the next event's fields (comments skipped); '' fields mean EOF."""
        fields: dict[str, str] = {}
        while True:
            line = self.file.readline()
            if not line:
                return fields
            text = line.decode('utf-8').rstrip('\n')
            if not text:
                if fields:
                    return fields
                continue
            if text.startswith(':'):
                continue
            name, _, value = text.partition(':')
            fields[name] = value[1:] if value.startswith(' ') else value

    def close(self) -> None:
        self.file.close()
        self.socket.close()


# ---- the server, without ROS ----------------------------------------------------------------

def test_topic_names():
    assert topic_names() == ('/bt_executive/snapshot', '/bt_executive/events')
    assert topic_names('/robot1/', 'bt') == ('/robot1/bt/snapshot', '/robot1/bt/events')
    assert topic_names('a/b')[0] == '/a/b/bt_executive/snapshot'
    for namespace, node in (('a b', 'bt'), ('', '9x'), ('', ''), ('x', 'a/b')):
        with pytest.raises(ValueError):
            topic_names(namespace, node)


def test_hub_keeps_snapshots_and_rejects_other_json():
    hub = SnapshotHub()
    assert hub.latest() is None
    assert not hub.put_snapshot('{"schema": "something/else"}')
    assert not hub.put_snapshot('not json')
    assert not hub.put_snapshot('[1, 2]')
    assert not hub.put_snapshot(fake_snapshot()[:-1] + ',"x":NaN}')
    assert not hub.put_events(fake_snapshot())
    assert hub.rejected == 5 and hub.latest() is None
    pretty = json.dumps(json.loads(fake_snapshot()), indent=2)
    assert hub.put_snapshot(pretty)
    assert '\n' not in hub.latest() and json.loads(hub.latest()) == json.loads(pretty)
    assert hub.wait_snapshot(lambda s: s['tree'] == 'T', timeout=0.0)['revision'] == 1
    assert hub.wait_snapshot(lambda s: s['tree'] == 'other', timeout=0.05) is None


def test_serves_the_packaged_files_and_the_snapshot(server):
    base = f'http://127.0.0.1:{server.port}'
    code, headers, body = get(base + '/snapshot')
    assert code == 503 and headers['Retry-After'] == '1'
    assert json.loads(body) == {'error': '503 no snapshot received yet',
                                'topic': '/t/bt_executive/snapshot'}
    for path, kind in (('/', 'text/html'), ('/index.html', 'text/html'),
                       ('/app.js', 'text/javascript'), ('/style.css', 'text/css')):
        code, headers, body = get(base + path)
        assert code == 200 and headers['Content-Type'].startswith(kind), path
        assert headers['X-Content-Type-Options'] == 'nosniff'
        assert "default-src 'none'" in headers['Content-Security-Policy']
        assert b'http://' not in body and b'https://' not in body, f'{path} loads from a CDN'
    text = get(base + '/')[2].decode()
    for element in ('id="tree-name"', 'id="revision"', 'id="tick-count"', 'src="app.js"',
                    'href="style.css"'):
        assert element in text
    server.hub.put_snapshot(fake_snapshot())
    code, headers, body = get(base + '/snapshot?ignored=1')
    assert code == 200 and headers['Content-Type'] == 'application/json'
    assert json.loads(body)['tree'] == 'T'
    for path in (b'/snapshot', b'/', b'/events'):
        answer = raw_request(server.port, b'HEAD ' + path + b' HTTP/1.0\r\n\r\n')
        assert status_code(answer) == 200 and answer.endswith(b'\r\n\r\n'), path
    assert b'text/event-stream' in answer
    assert server.hub.clients() == 0


@pytest.mark.parametrize('path', [
    '/../etc/passwd', '/%2e%2e/', '/%2e%2e/%2e%2e/etc/passwd', '/..%2fetc%2fpasswd',
    '//etc/passwd', '/app.js/../../../../etc/passwd', '/web/app.js', '/index.htm',
    '/style.css/', '/%00', '/snapshot/..', '/webview.py', '/../webview.py', '/favicon.ico',
    'http://127.0.0.1/../etc/passwd', '*', 'etc/passwd', '/\\..\\..\\etc\\passwd', '//[',
    '/snapshot%3F', '/events/../../etc/passwd'])
def test_only_the_fixed_paths_exist(server, path):
    answer = raw_request(server.port, f'GET {path} HTTP/1.0\r\n\r\n'.encode())
    assert status_code(answer) == 404, answer[:200]
    assert b'root:' not in answer and b'import' not in answer
    assert json.loads(answer.split(b'\r\n\r\n', 1)[1]) == {'error': '404 not found'}


@pytest.mark.parametrize('method', ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE',
                                    'CONNECT', 'PROPFIND', 'FOO'])
def test_other_methods_are_not_allowed(server, method):
    answer = raw_request(server.port, f'{method} /snapshot HTTP/1.0\r\nContent-Length: 2'
                                      f'\r\n\r\n{{}}'.encode())
    assert status_code(answer) == 405, answer[:200]
    assert b'\r\nAllow: GET, HEAD\r\n' in answer


@pytest.mark.parametrize('request_bytes, code', [
    (b'GARBAGE\r\n\r\n', 400),
    (b'GET\r\n\r\n', 400),
    (b'GET / HTTP/1.0 extra\r\n\r\n', 400),
    (b'GET / HTTP/x.y\r\n\r\n', 400),
    (b'GET / HTTP/9.9\r\n\r\n', 505),
    (b'GET / FTP/1.0\r\n\r\n', 400),
    (b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03' + bytes(range(256)) + b'\r\n\r\n', 400),
    (b'GET /' + b'a' * 70000 + b' HTTP/1.0\r\n\r\n', 414),
    (b'GET / HTTP/1.1\r\n' + b'X-A: b\r\n' * 120 + b'\r\n', 431),
    (b'GET / HTTP/1.1\r\nHost: evil.example:8765\r\n\r\n', 403),
    (b'GET /snapshot HTTP/1.1\r\nHost: attacker.test\r\n\r\n', 403),
    (b'GET / HTTP/1.1\r\nHost: [::1\r\n\r\n', 403),
    (b'GET / HTTP/1.1\r\nHost: 127.0.0.1.evil.example\r\n\r\n', 403),
    (b'GET / HTTP/1.1\r\nHost: localhost.:80\r\n\r\n', 403),
])
def test_malformed_requests_get_errors(server, request_bytes, code):
    answer = raw_request(server.port, request_bytes)
    assert status_code(answer) == code, answer[:200]
    # the server survives and still answers
    assert status_code(raw_request(server.port, b'GET / HTTP/1.0\r\n\r\n')) == 200


def test_loopback_host_names_are_accepted(server):
    for host in (f'127.0.0.1:{server.port}', 'localhost', '[::1]:8765', 'LOCALHOST:1'):
        answer = raw_request(server.port, f'GET / HTTP/1.1\r\nHost: {host}\r\n\r\n'.encode())
        assert status_code(answer) == 200, host


def test_clients_that_vanish_do_not_break_the_server(server):
    for data in (b'', b'GET / HTT', b'GET /events HTTP/1.0\r\n'):
        with socket.create_connection(('127.0.0.1', server.port), timeout=5.0) as connection:
            connection.sendall(data)
    assert status_code(raw_request(server.port, b'GET / HTTP/1.0\r\n\r\n')) == 200


def test_event_stream_pushes_each_new_snapshot(server):
    stream = EventStream(server.port)
    try:
        assert stream.status == 200
        assert stream.headers['content-type'].startswith('text/event-stream')
        hello = stream.next_event()
        assert hello['event'] == 'view'
        assert json.loads(hello['data'])['topic'] == '/t/bt_executive/snapshot'
        server.hub.put_snapshot(fake_snapshot(revision=1))
        assert json.loads(stream.next_event()['data'])['revision'] == 1
        server.hub.put_events(to_json({'schema': EVENTS_SCHEMA, 'session': 'test',
                                       'revision': 1, 'tree': 'T',
                                       'events': [{'id': 'T/a', 'from': 'INVALID',
                                                   'to': 'RUNNING', 'time': 1.0, 'tick': 1,
                                                   'reason': ''}]}))
        batch = stream.next_event()
        assert batch['event'] == 'transitions'
        assert json.loads(batch['data'])['events'][0]['to'] == 'RUNNING'
        server.hub.put_snapshot(fake_snapshot(revision=2, status='FAILURE'))
        assert json.loads(stream.next_event()['data'])['root_status'] == 'FAILURE'
    finally:
        stream.close()
    # a new client gets the latest snapshot at once
    late = EventStream(server.port)
    try:
        assert late.next_event()['event'] == 'view'
        assert json.loads(late.next_event()['data'])['revision'] == 2
    finally:
        late.close()


def test_event_streams_do_not_leak_threads(server):
    server.hub.put_snapshot(fake_snapshot())
    wait_for(lambda: server.hub.clients() == 0, 5.0, 'no stream clients')
    before = threading.active_count()
    for _ in range(5):
        streams = [EventStream(server.port) for _ in range(server.hub.max_clients)]
        wait_for(lambda: server.hub.clients() == server.hub.max_clients, 5.0,
                 'every stream registered')
        # one more than allowed is refused, not queued
        refused = raw_request(server.port, b'GET /events HTTP/1.0\r\n\r\n')
        assert status_code(refused) == 503
        for index, stream in enumerate(streams):
            assert stream.next_event()['event'] == 'view'
            if index % 2:
                stream.socket.shutdown(socket.SHUT_RDWR)  # abrupt
            stream.close()
        wait_for(lambda: server.hub.clients() == 0, 5.0, 'every stream to end')
    wait_for(lambda: threading.active_count() <= before, 5.0,
             f'the handler threads to end ({threading.active_count()} > {before})')


def test_closing_the_hub_ends_the_streams(server):
    streams = [EventStream(server.port) for _ in range(3)]
    for stream in streams:
        assert stream.next_event()['event'] == 'view'
    server.hub.close()
    for stream in streams:
        assert stream.next_event() == {}  # EOF
        stream.close()
    wait_for(lambda: server.hub.clients() == 0, 5.0, 'every stream to end')


@pytest.mark.parametrize('source,shown', [
    ('/home/operator/robots/site3/config/patrol.yaml', 'patrol.yaml'),
    ('C:\\Users\\operator\\bt\\patrol.yaml', 'patrol.yaml'),
    ('config/patrol.yaml', 'config/patrol.yaml'),
])
def test_the_header_shows_no_folder_of_the_machine(browser, server, source, shown):
    """An absolute tree file is shown by its name (the whole path on hover)."""
    server.hub.put_snapshot(fake_snapshot(source_file=source))
    page = browser.open_page(f'http://127.0.0.1:{server.port}/')
    page.wait_until("document.getElementById('tree-name').textContent === 'T'", 'the tree')
    header = page.evaluate("[document.getElementById('source-file').textContent, "
                           "document.getElementById('source-file').title]")
    assert header == [shown, source]
    text = page.visible_text()
    assert ('operator' in text) is False and shown in text


def test_page_says_it_is_behind_after_a_missed_delta(browser, server):
    """A gap keeps the last good state on the page, marked behind, until a full snapshot."""
    from test_delta import deltas_of

    first, deltas, snapshots = deltas_of(5)
    for message in (first, deltas[0]):
        assert server.hub.put_stream(json.dumps(message))
    page = browser.open_page(f'http://127.0.0.1:{server.port}/')
    page.wait_until(f"document.body.dataset.revision === '{first['revision']}'",
                    'the first state')
    server.hub.put_stream(json.dumps(deltas[2]))  # deltas[1] was lost
    text = page.wait_until("document.body.dataset.connection === 'behind' && "
                           "document.getElementById('connection').textContent",
                           'the page to say it is behind')
    assert f'deltas {deltas[1]["seq"]}..{deltas[1]["seq"]} missed' in text
    assert json.loads(server.hub.latest())['seq'] == snapshots[0]['seq']  # not a guess
    server.hub.put_stream(json.dumps(snapshots[3]))  # the next keyframe
    page.wait_until("document.body.dataset.connection !== 'behind'", 'the page to catch up')


def test_a_late_first_fetch_does_not_undo_what_the_stream_brought(browser, server):
    """The page's first ``/snapshot`` answer, arriving after the stream's, is not applied.

    It holds the same seq as the streamed state, so only order tells them apart: a
    fetch answered late once put back "live" over a state the stream had marked behind.
    """
    from test_delta import deltas_of

    first, deltas, _ = deltas_of(3)
    for message in (first, deltas[0]):
        assert server.hub.put_stream(json.dumps(message))
    latest, asked, release = server.hub.latest, threading.Event(), threading.Event()

    def held() -> Optional[str]:
        answer = latest()  # read now, answered once released: an answer on its way
        asked.set()
        release.wait(TIMEOUT)
        return answer

    server.hub.latest = held
    try:
        page = browser.open_page(f'http://127.0.0.1:{server.port}/')
        page.wait_until(f"document.body.dataset.revision === '{first['revision']}'",
                        'the first state, from the stream')
        assert asked.wait(TIMEOUT), 'the page did not ask for /snapshot'
        server.hub.put_stream(json.dumps(deltas[2]))  # deltas[1] was lost
        page.wait_until("document.body.dataset.connection === 'behind'",
                        'the page to say it is behind')
    finally:
        release.set()
    assert page.wait_until('document.body.dataset.fetched', 'the first fetch to end') == 'late'
    assert page.evaluate('document.body.dataset.connection') == 'behind'


# ---- with an executive and a browser --------------------------------------------------------

def running_snapshot(view: WebView, **expected: Any) -> dict[str, Any]:
    """Wait (event-based) for a snapshot of a ticking tree with the ``expected`` fields."""
    def ready(snapshot: dict[str, Any]) -> bool:
        return snapshot['tick']['count'] > 0 \
            and snapshot['root_status'] != 'INVALID' \
            and all(snapshot.get(key) == value for key, value in expected.items())

    snapshot = view.hub.wait_snapshot(ready, timeout=TIMEOUT)
    assert snapshot is not None, f'no ticking snapshot {expected} on {view.topic}'
    return snapshot


@pytest.mark.ros
def test_page_shows_the_published_tree(browser, view_of, tmp_path):
    view = view_of
    published = running_snapshot(view, tree='Main')
    code, _, body = get(view.url + 'snapshot')
    assert code == 200
    snapshot = json.loads(body)
    assert snapshot['revision'] == published['revision']
    page = browser.open_page(view.url)
    page.wait_until("document.querySelector('[data-node-id=\"Main/root/work/keep going\"]')"
                    "?.dataset.status === 'RUNNING'", 'the tree to be drawn')
    page.wait_until("document.body.dataset.connection === 'live'", 'the event stream')
    state = page.state()
    assert state['tree'] == 'Main'
    assert state['revision'] == str(snapshot['revision'])
    assert int(state['ticks']) > 0
    assert_page_matches(state['html'], snapshot)
    nodes = tree_nodes(state['html'])
    assert {ident: node['data-status'] for ident, node in nodes.items()} == {
        'Main/root': 'RUNNING', 'Main/root/checks': 'FAILURE',
        'Main/root/checks/too small': 'FAILURE', 'Main/root/checks/never reached': 'INVALID',
        'Main/root/work': 'RUNNING', 'Main/root/work/warm up': 'SUCCESS',
        'Main/root/work/keep going': 'RUNNING'}
    assert nodes['Main/root/work/keep going']['data-active'] == 'leaf'
    assert 'x &gt; 1 is false' in state['html'] or 'x > 1 is false' in state['html']
    # the blackboard table: set keys with their values, unset keys marked
    table = page.evaluate('Object.fromEntries([...document.querySelectorAll('
                          '"#blackboard tbody tr")].map(r => [r.dataset.key, '
                          'r.cells[1].textContent]))')
    assert table == {'x': '0', 'mode': '"patrol"', 'missing': 'unset'}
    # the transitions so far (the executive's latched ~/events, replayed to a new page)
    page.wait_until('document.querySelector(\'#transitions li[title="Main/root/work/keep going"]'
                    '[data-to="RUNNING"]\')', 'the first transitions')
    # the live stream advances the tick count without a reload
    ticks = int(state['ticks'])
    page.wait_until(f"Number(document.getElementById('tick-count').textContent) > {ticks}",
                    'the tick count to advance')
    # click folds a subtree, a second click unfolds it
    fold = "document.querySelector('[data-node-id=\"Main/root/work\"] > .row').click()"
    page.evaluate(fold)
    assert page.evaluate("document.querySelector('[data-node-id=\"Main/root/work\"]')"
                         ".classList.contains('collapsed')")
    assert page.evaluate("document.querySelector('[data-node-id=\"Main/root/work/keep going\"]"
                         " > .row').getClientRects().length") == 0
    assert '1 running' in page.evaluate(
        "document.querySelector('[data-node-id=\"Main/root/work\"] .hidden-count')"
        '.textContent')
    page.evaluate(fold)
    assert page.evaluate("document.querySelector('[data-node-id=\"Main/root/work/keep going\"]"
                         " > .row').getClientRects().length") == 1


@pytest.mark.ros
def test_page_follows_a_tree_swap_without_reload(browser, view_of, executive, ros_node,
                                                 tmp_path):
    view = view_of
    namespace, _, _ = executive
    first = running_snapshot(view, tree='Main')
    page = browser.open_page(view.url)
    page.wait_until("document.getElementById('tree-name').textContent === 'Main'",
                    'the first tree')
    page.evaluate("window.btViewMarker = 'same page'")

    second = write_tree(tmp_path, 'second.yaml', SECOND_TREE)
    result = set_tree_file(ros_node, f'/{namespace}', second,
                           lambda done, message: wait_for(done, TIMEOUT, message))
    assert result.successful, result.reason

    swapped = running_snapshot(view, tree='Docked', root_status='FAILURE')
    assert swapped['revision'] > first['revision']
    assert swapped['session'] == first['session']
    page.wait_until(f"document.getElementById('revision').textContent === "
                    f"'{swapped['revision']}' && document.querySelector("
                    "'[data-node-id=\"Docked/mission\"]')?.dataset.status === 'FAILURE'",
                    'the swapped tree')
    assert page.evaluate('window.btViewMarker') == 'same page', 'the page was reloaded'
    state = page.state()
    assert state['tree'] == 'Docked'
    snapshot = json.loads(get(view.url + 'snapshot')[2])
    assert snapshot['revision'] == swapped['revision']
    assert_page_matches(state['html'], snapshot)
    # the why chain of the failed root, root first
    why = page.evaluate("[...document.querySelectorAll('#why li')].map(li => "
                        "[li.dataset.ref, li.querySelector('.reason')?.textContent || ''])")
    assert why == [[step['id'], step['reason']] for step in snapshot['why']]
    assert why[-1] == ['Docked/mission/battery ok', 'battery > 0.2 is false']
    assert page.evaluate("document.getElementById('why-panel').dataset.state") == 'failed'
    # the transitions of the new tree, from ~/events
    page.wait_until('document.querySelector(\'#transitions li[title="Docked/mission"]'
                    '[data-to="FAILURE"]\')', 'the transition of the new root')

    # a freshly loaded page shows the new tree too
    fresh = browser.open_page(view.url)
    fresh.wait_until("document.querySelector('[data-node-id=\"Docked/mission\"]')"
                     "?.dataset.status === 'FAILURE'", 'the swapped tree on a new page')
    state = fresh.state()
    assert (state['tree'], state['revision']) == ('Docked', str(swapped['revision']))


@pytest.mark.ros
def test_view_command_serves_until_interrupted(spawn):
    namespace = unique('nobody')
    process = spawn(CLI, 'view', '--ns', namespace, '--port', '0')
    line = wait_for(lambda: next((line for line in process.lines()
                                  if line.startswith('bt-executive view: http://')), None),
                    TIMEOUT, 'the URL line')
    url = line.split()[2]
    assert url.startswith('http://127.0.0.1:')
    assert get(url)[0] == 200
    code, _, body = get(url + 'snapshot')
    assert code == 503
    assert json.loads(body)['topic'] == f'/{namespace}/bt_executive/snapshot'
    assert process.stop() == 0
