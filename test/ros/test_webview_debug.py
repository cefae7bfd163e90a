# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The web view's debugger: ``/debug`` of the view server and the page, in headless Chromium.

The server tests give a :class:`ViewServer` a :class:`DebugService` over a stand-in
client (no ROS): what is forwarded (always with the origin ``web view``) and what is
refused before it is (another site's request, a body that is not a request). The page
tests run a real executive subprocess, the view in-process (its server forwards to the
executive's ``~/debug/...`` as a ROS client) and drive headless Chromium by clicks as a
person would: a breakpoint set on a node pauses the tree (checked at the executive's
``~/debug/state``), step ticks exactly once, a substituted node takes its status, a
blackboard edit shows up in the snapshot, a refused edit shows its reason. With
debugging off every click shows the executive's refusal and the page goes on showing the
live tree. The picture docs/debug_view.png is taken here (``make screenshots``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import json
import os
import pathlib
import socket
import time
from typing import Any, Optional
import urllib.error
import urllib.request

from bt_executive.ros.debug_client import DebugAnswer, DebugUnreachable
from bt_executive.viewers.debug_web import DebugService, MAX_BODY, ORIGIN
from bt_executive.viewers.webview import ViewServer, WebView
from conftest import PEERS
from devtools import assert_no_machine_paths, Page, TIMEOUT
from helpers import collect_json, recv_all, SpawnedProcess, wait_for
import pytest
from test_debug_executive import Debugger
from test_webview import EXECUTIVE, unique, write_tree

#: Seconds watched to see that nothing more happens (no tick): an absence has no event
QUIET = 0.6
READY, COUNT, DONE = 'Main/root/ready', 'Main/root/count', 'Main/root/done'
DEBUG_TREE = """
    blackboard: {x: 0, count: 0}
    trees:
      Main:
        Sequence root:
          - Condition ready: x >= 0
          - SetBlackboard count: {key: count, value: '${count + 1}'}
          - Success done:
    """


def artefacts(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = os.environ.get('BT_EXECUTIVE_SCREENSHOTS')
    path = pathlib.Path(folder) if folder else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---- the server, without ROS ------------------------------------------------------------

class StandIn:
    """A debug client that records the requests and answers as it is told."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answer = DebugAnswer(True, 'done', {'enabled': True, 'paused': False})
        self.reachable = True

    def request(self, fields: dict[str, Any], *, timeout: float) -> DebugAnswer:
        if not self.reachable:
            raise DebugUnreachable('/t/bt_executive/debug/command not found')
        self.requests.append(fields)
        return self.answer

    def state(self, *, timeout: float) -> DebugAnswer:
        if not self.reachable:
            raise DebugUnreachable('/t/bt_executive/debug/state not found')
        return self.answer


@pytest.fixture
def debug_server(view_server: Callable[..., ViewServer]) -> tuple[ViewServer, StandIn]:
    server = view_server(max_clients=4, poll_interval=0.1)
    client = StandIn()
    server.debug = DebugService(client, timeout=1.0)
    return server, client


def post(port: int, body: bytes, *, headers: Optional[dict[str, str]] = None,
         path: str = '/debug') -> tuple[int, dict[str, str], bytes]:
    """POST raw bytes (headers as given: nothing added but Host and Content-Length)."""
    lines = [f'POST {path} HTTP/1.1', f'Host: 127.0.0.1:{port}']
    given = {'Content-Type': 'application/json', 'Content-Length': str(len(body)),
             **(headers or {})}
    lines += [f'{name}: {value}' for name, value in given.items() if value is not None]
    with socket.create_connection(('127.0.0.1', port), timeout=5.0) as connection:
        connection.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode() + body)
        answer = recv_all(connection)
    head, _, payload = answer.partition(b'\r\n\r\n')
    status, *fields = head.decode('latin-1').split('\r\n')
    found = dict(field.split(': ', 1) for field in fields)
    return int(status.split()[1]), found, payload


def test_only_a_live_view_has_a_debugger(view_server):
    server = view_server(max_clients=4, poll_interval=0.1)
    assert urlopen(f'http://127.0.0.1:{server.port}/debug')[0] == 404
    code, headers, _ = post(server.port, b'{"command": "pause"}')
    assert code == 405 and headers['Allow'] == 'GET, HEAD'
    code, _, body = urlopen(f'http://127.0.0.1:{server.port}/debug.js')
    assert code == 200 and b"fetch('debug'" in body


def test_requests_are_forwarded_with_the_origin_web_view(debug_server):
    server, client = debug_server
    code, _, body = post(server.port, json.dumps(
        {'command': 'substitute', 'node': 'T/a', 'status': 'success', 'ticks': 2}).encode())
    assert code == 200
    assert json.loads(body) == {'success': True, 'message': 'done',
                                'state': {'enabled': True, 'paused': False}}
    assert client.requests == [{'command': 'substitute', 'node': 'T/a', 'status': 'success',
                                'ticks': 2, 'origin': ORIGIN}]
    # a refusal is passed on as the executive said it, never turned into a success
    client.answer = DebugAnswer(False, 'debugging is off: start the executive with ...',
                                {'enabled': False})
    code, _, body = post(server.port, b'{"command": "pause"}',
                         headers={'Origin': f'http://127.0.0.1:{server.port}'})
    assert code == 200 and json.loads(body)['success'] is False
    assert json.loads(body)['message'].startswith('debugging is off')
    code, _, body = urlopen(f'http://127.0.0.1:{server.port}/debug')
    assert code == 200 and json.loads(body)['success'] is False


@pytest.mark.parametrize('body, headers, code, words', [
    (b'{"command": "pause"}', {'Content-Type': 'text/plain'}, 415, 'application/json'),
    (b'command=pause', {'Content-Type': 'application/x-www-form-urlencoded'}, 415, 'json'),
    (b'{"command": "pause"}', {'Origin': 'http://evil.example'}, 403, 'cross-origin'),
    (b'{"command": "pause"}', {'Origin': 'null'}, 403, 'cross-origin'),
    (b'{"command": "pause"}', {'Host': 'evil.example'}, 403, 'Host'),
    (b'{"command": "pause"}', {'Content-Length': None}, 411, 'Content-Length'),
    (b'{"command": "pause"}', {'Content-Length': 'x'}, 411, 'Content-Length'),
    (b'{"a": "' + b'x' * MAX_BODY + b'"}', {}, 413, 'at most'),
    (b'{"command": ', {}, 400, 'JSON object'),
    (b'[1]', {}, 400, 'JSON object'),
    (b'\xff\xfe', {}, 400, 'UTF-8'),
    (b'{"command": "pause", "origin": "operator"}', {}, 400, "unknown field 'origin'"),
    (b'{"command": "pause", "extra": 1}', {}, 400, "unknown field 'extra'"),
    (b'{"node": "T/a"}', {}, 400, "'command' must be given"),
    (b'{"command": "substitute", "ticks": true}', {}, 400, "'ticks'"),
    (b'{"command": "substitute", "ticks": -1}', {}, 400, "'ticks'"),
    (b'{"command": "breakpoint", "node": 3}', {}, 400, "'node' must be a string"),
])
def test_what_is_not_the_pages_own_request_is_refused(debug_server, body, headers, code,
                                                      words):
    server, client = debug_server
    if 'Host' in headers:  # a foreign Host header (DNS rebinding): the request as sent
        request = (b'POST /debug HTTP/1.1\r\nHost: evil.example\r\nContent-Type: '
                   b'application/json\r\nContent-Length: %d\r\n\r\n' % len(body)) + body
        with socket.create_connection(('127.0.0.1', server.port), timeout=5.0) as connection:
            connection.sendall(request)
            answer = recv_all(connection)
        status, payload = int(answer.split(b' ', 2)[1]), answer.partition(b'\r\n\r\n')[2]
    else:
        status, _, payload = post(server.port, body, headers=headers)
    assert status == code, payload
    assert words in json.loads(payload)['error']
    assert client.requests == [], 'nothing was forwarded'
    # the server answers on
    assert post(server.port, b'{"command": "state"}')[0] == 200


def test_an_executive_that_does_not_answer_is_a_504(debug_server):
    server, client = debug_server
    client.reachable = False
    code, _, body = post(server.port, b'{"command": "pause"}')
    assert code == 504 and 'not found' in json.loads(body)['error']
    code, _, body = urlopen(f'http://127.0.0.1:{server.port}/debug')
    assert code == 504 and 'not found' in json.loads(body)['error']


def urlopen(url: str, data: Optional[bytes] = None,
            timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=data, method='POST' if data else 'GET',
                                     headers={'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# ---- with an executive and a browser ------------------------------------------------------

class Live:
    """An executive subprocess on DEBUG_TREE, its web view, and a ~/debug client."""

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any,
                 tmp_path: pathlib.Path, *, debug: bool, program: pathlib.Path = EXECUTIVE
                 ) -> None:
        self.namespace = unique('dbgview')
        tree = write_tree(tmp_path, 'debug.yaml', DEBUG_TREE)
        options = ['-p', 'debug:=true'] if debug else []
        self.process = spawn(program, '--ros-args', '-r', f'__ns:=/{self.namespace}',
                             '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
                             '-p', 'snapshot_keys:=[x, count]', *options)
        self.events = collect_json(node, f'/{self.namespace}/bt_executive/events', depth=50)
        self.debugger = Debugger(node, f'/{self.namespace}')
        self.view = WebView(namespace=self.namespace, port=0).start()
        self.snapshot(lambda s: s['tick']['count'] > 0, 'a ticking tree')

    def snapshot(self, predicate: Callable[[dict[str, Any]], Any],
                 what: str) -> dict[str, Any]:
        """Wait for a snapshot the view received that satisfies ``predicate``."""
        found = self.view.hub.wait_snapshot(predicate, timeout=TIMEOUT)
        assert found is not None, f'no snapshot with {what}: {self.view.hub.latest()}'
        return found

    def debug_events(self) -> list[tuple[str, str]]:
        return [(event['debug'], event['origin']) for batch in list(self.events)
                for event in batch['events'] if 'debug' in event]

    def close(self) -> None:
        self.view.close()
        assert not self.view.server.errors
        assert not self.view.listener.errors
        assert self.view.listener.stopped, 'the listener thread did not end'


@pytest.fixture
def live(spawn: Callable[..., SpawnedProcess], ros_node: Any,
         tmp_path: pathlib.Path) -> Iterator[Callable[..., Live]]:
    started: list[Live] = []

    def start(**options: Any) -> Live:
        started.append(Live(spawn, ros_node, tmp_path, **options))
        return started[-1]

    yield start
    for each in started:
        each.close()


def row(ident: str) -> str:
    return f'document.querySelector({json.dumps(f"[data-node-id={json.dumps(ident)}]")})'


def click_menu(page: Page, ident: str, action: str) -> str:
    """Open the node's debug menu (its ● button), click ``action``; return the answer."""
    page.evaluate(f"{row(ident)}.querySelector(':scope > .row > .dbg').click()")
    page.wait_until(f'document.body.dataset.debugMenu === {json.dumps(ident)}',
                    f'the menu of {ident}')
    page.evaluate("document.querySelector('#debug-menu .menu-message').textContent = ''; "
                  "document.getElementById('debug-message').textContent = ''")
    page.evaluate(f"document.querySelector('#debug-menu [data-action={json.dumps(action)}]')"
                  '.click()')
    return page.wait_until("(() => { const m = document.getElementById('debug-message'); "
                           "return m.dataset.result !== 'busy' && m.textContent; })()",
                           f'the answer to {action} on {ident}')


def click_bar(page: Page, button: str) -> str:
    page.evaluate(f"document.getElementById('debug-{button}').click()")
    return page.wait_until("(() => { const m = document.getElementById('debug-message'); "
                           "return m.dataset.result !== 'busy' && m.textContent; })()",
                           f'the answer to {button}')


def edit_key(page: Page, key: str, value: str) -> tuple[str, str]:
    """Edit ``key`` as a person would (its ✎, the value, set); return (result, text)."""
    page.evaluate(f"document.querySelector('#blackboard tr[data-key={json.dumps(key)}] "
                  ".bb-edit-button').click()")
    assert page.evaluate("document.getElementById('bb-key').value") == key
    page.evaluate(f"document.getElementById('bb-value').value = {json.dumps(value)}; "
                  "document.getElementById('bb-message').textContent = ''; "
                  "document.getElementById('bb-set').click()")
    return tuple(page.wait_until(
        "(() => { const m = document.getElementById('bb-message'); "
        "return m.dataset.result !== 'busy' && m.textContent && "
        '[m.dataset.result, m.textContent]; })()', f'the answer to the edit of {key}'))


@pytest.mark.ros
def test_the_debugger_driven_in_the_page(browser, live, tmp_path):  # noqa: C901
    run = live(debug=True)
    page = browser.open_page(run.view.url)
    page.resize(1400, 900)
    page.wait_until("document.body.dataset.debug === 'running'", 'the debugger bar')
    assert page.evaluate("document.getElementById('debug-state').textContent") == 'running'

    # a breakpoint before 'count', set by clicking: the tree pauses there
    assert 'before it starts' in click_menu(page, COUNT, 'break-before')
    page.wait_until(f"{row(COUNT)}.dataset.pausedAt === 'true' && "
                    "document.body.dataset.debug === 'paused'", 'the page to show the pause')
    state = run.debugger.state()
    assert state['paused'] and state['paused_at']['node'] == COUNT
    assert state['breakpoints'] == [{'node': COUNT, 'when': 'before', 'policy': 'halt',
                                     'condition': '', 'origin': 'web view'}]
    assert page.evaluate("document.getElementById('debug-state').textContent") == \
        'paused at breakpoint before ‘count’'
    assert page.evaluate(f'{row(COUNT)}.dataset.breakpoint') == 'before'
    assert page.evaluate("document.querySelector('#graph-world [data-graph-id="
                         f"{json.dumps(json.dumps(COUNT))[1:-1]}]').dataset.breakpoint") == \
        'before'
    paused = run.snapshot(lambda s: (s['executive'].get('debug') or {}).get('paused_at'),
                          'the pause')
    ticks, count = state['tick'], paused['blackboard']['count']
    time.sleep(QUIET)
    assert run.debugger.state()['tick'] == ticks, 'paused: nothing ticks'

    # step: exactly one tick, which passes the breakpoint once (count + 1)
    assert 'one tick stepped by web view' in click_bar(page, 'step')
    wait_for(lambda: run.debugger.state()['tick'] == ticks + 1, TIMEOUT, 'the stepped tick')
    stepped = run.snapshot(lambda s: s['blackboard']['count'] == count + 1, 'count + 1')
    assert stepped['executive']['debug']['paused']
    time.sleep(QUIET)
    assert run.debugger.state()['tick'] == ticks + 1, 'a step is exactly one tick'
    page.wait_until(f"document.querySelector('#blackboard tr[data-key=count]')"
                    f".dataset.text === '{count + 1}'", 'the stepped count on the page')

    # substitute 'ready' to FAILURE; the next step takes it: the root fails, no count
    assert 'substituted by web view: FAILURE until removed' in \
        click_menu(page, READY, 'substitute-failure')
    page.wait_until(f"{row(READY)}.dataset.substituted === 'FAILURE'",
                    'the substitution marked on the tree')
    assert 'one tick stepped' in click_bar(page, 'step')
    failed = run.snapshot(lambda s: s['state'][READY]['status'] == 'FAILURE', 'ready failing')
    assert failed['state'][READY]['feedback'] == 'substituted by web view: FAILURE'
    assert failed['root_status'] == 'FAILURE' and failed['blackboard']['count'] == count + 1
    page.wait_until(f"{row(READY)}.dataset.status === 'FAILURE'", 'the substituted status')

    # clear this node: the substitution goes; another one on 'done' (RUNNING); a step:
    # the tick reaches 'count' again and stops at its breakpoint
    assert "substitution of 'Main/root/ready' removed" in click_menu(page, READY, 'clear')
    page.wait_until(f'!{row(READY)}.dataset.substituted', 'the substitution gone')
    assert 'RUNNING until removed' in click_menu(page, DONE, 'substitute-running')
    assert 'one tick stepped' in click_bar(page, 'step')
    page.wait_until(f"{row(COUNT)}.dataset.pausedAt === 'true'", 'the second hit')
    assert run.debugger.state()['paused_at']['node'] == COUNT

    # a blackboard edit: a value of the wrong type is refused with the reason, then set
    result, text = edit_key(page, 'x', 'hello')
    assert result == 'refused' and 'x holds a whole number' in text, text
    assert page.evaluate("document.getElementById('debug-message').dataset.result") == \
        'refused'
    result, text = edit_key(page, 'x', '5')
    assert (result, text) == ('done', 'x = 5 set by web view')
    run.snapshot(lambda s: s['blackboard']['x'] == 5, 'x = 5')
    page.wait_until("document.querySelector('#blackboard tr[data-key=x]')"
                    ".dataset.text === '5'", 'the new value on the page')

    # the graph marks them too, and a right-click on a box opens the same menu
    boxes = page.evaluate('Object.fromEntries([...document.querySelectorAll('
                          "'#graph-world .gnode')].map((g) => [g.dataset.graphId, "
                          "[g.dataset.breakpoint || '', g.dataset.substituted || '', "
                          "g.dataset.pausedAt || '']]))")
    assert boxes[COUNT] == ['before', '', 'true'] and boxes[DONE] == ['', 'RUNNING', '']
    assert boxes[READY] == ['', '', '']
    page.evaluate("document.querySelector('#graph-world [data-graph-id=\"Main/root/ready\"]"
                  " rect').dispatchEvent(new MouseEvent('contextmenu', {bubbles: true}))")
    page.wait_until(f'document.body.dataset.debugMenu === {json.dumps(READY)}',
                    'the menu from the graph')

    # the picture: paused at the breakpoint, a substitution marked, the menu of a node open
    page.evaluate(f"{row(DONE)}.querySelector(':scope > .row > .dbg').click()")
    page.wait_until(f'document.body.dataset.debugMenu === {json.dumps(DONE)}', 'the menu')
    text = page.visible_text()
    for words in ('paused at breakpoint before ‘count’', '● before', '⇒ RUNNING',
                  'x = 5 set by web view'):
        assert words in text, words
    assert_no_machine_paths(page, tmp_path)
    page.screenshot(artefacts(tmp_path) / 'debug_view.png')
    page.evaluate("document.querySelector('#debug-menu .menu-close').click()")

    # clear all, continue: the tree runs on, counting, with nothing marked
    assert '2 breakpoints and substitutions removed' in click_bar(page, 'clear')
    assert 'continued by web view' in click_bar(page, 'continue')
    run.snapshot(lambda s: s['blackboard']['count'] > count + 2, 'the tree counting on')
    page.wait_until(f"document.body.dataset.debug === 'running' && "
                    f'!{row(COUNT)}.dataset.breakpoint && !{row(DONE)}.dataset.substituted',
                    'the marks gone')
    state = run.debugger.state()
    assert not state['paused'] and state['breakpoints'] == state['substitutions'] == []
    wait_for(lambda: {('breakpoint', 'web view'), ('hit', 'breakpoint'), ('step', 'web view'),
                      ('substitute', 'web view'), ('substitution_removed', 'web view'),
                      ('set', 'web view'),
                      ('continue', 'web view'), ('cleared', 'web view')}
             <= set(run.debug_events()), TIMEOUT, 'every action in ~/events',
             describe=run.debug_events)


@pytest.mark.ros
def test_with_debugging_off_each_click_shows_the_refusal(browser, live):
    run = live(debug=False)
    page = browser.open_page(run.view.url)
    page.wait_until("document.body.dataset.debug === 'off'", 'the bar saying it is off')
    assert 'debugging is off: start the executive with the parameter debug:=true' in \
        page.evaluate("document.getElementById('debug-state').textContent")
    answer = click_menu(page, COUNT, 'break-before')
    assert answer.startswith('refused: debugging is off'), answer
    assert page.evaluate("document.querySelector('#debug-menu .menu-message')"
                         '.dataset.result') == 'refused'
    for button in ('pause', 'step', 'continue', 'clear'):
        assert click_bar(page, button).startswith('refused: debugging is off'), button
    result, text = edit_key(page, 'x', '5')
    assert result == 'refused' and 'debugging is off' in text
    # nothing changed, nothing is marked, and the page goes on showing the live tree
    assert page.evaluate("document.querySelectorAll('[data-breakpoint], [data-substituted],"
                         " [data-paused-at]').length") == 0
    ticks = int(page.evaluate("document.getElementById('tick-count').textContent"))
    page.wait_until(f"Number(document.getElementById('tick-count').textContent) > {ticks}",
                    'the tick count to advance')
    latest = json.loads(run.view.hub.latest())
    assert 'debug' not in latest['executive'] and latest['blackboard']['x'] == 0
    assert run.debug_events() == []


@pytest.mark.ros
def test_the_view_forwards_to_an_executive_without_the_interface_package(live):
    """The executive serves the JSON fallback (~/debug/request): the view uses it."""
    run = live(debug=True, program=PEERS / 'untyped_executive.py')
    code, _, body = urlopen(run.view.url + 'debug', json.dumps(
        {'command': 'breakpoint', 'node': COUNT}).encode())
    assert code == 200, body
    answer = json.loads(body)
    assert answer['success'], answer
    assert answer['state']['breakpoints'][0]['origin'] == 'web view'
    run.snapshot(lambda s: (s['executive'].get('debug') or {}).get('paused_at'), 'the pause')
    code, _, body = urlopen(run.view.url + 'debug', b'{"command": "set", "key": "x", '
                                                    b'"value": "[1]"}')
    assert code == 200 and not json.loads(body)['success']
    assert 'x holds a whole number' in json.loads(body)['message']
