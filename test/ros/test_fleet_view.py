# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view`` without a namespace: the fleet page.

Without ROS: the discovery rule, the rows and the server's paths (a directory fed by
hand). With ROS, end to end: ``bt-executive demo --robots 3`` and ``bt-executive view``
as real processes, the page in headless Chromium (the :class:`Browser` of
``test_webview``): three rows with their tree, root status, ticks and rate, each opening
that robot's live tree, whose graph view is laid out by the fleet server (its
``/executive/<node>/layout``) and fits. A screenshot is kept (``$BT_EXECUTIVE_SCREENSHOTS``
or the test's temporary directory), with no folder of this machine in it.
"""

from __future__ import annotations

import json
import pathlib
import threading
from typing import Callable, Iterator

from bt_executive.viewers.fleet import (executive_url, find_executives, FleetDirectory,
                                        FleetServer)
from devtools import assert_no_machine_paths, get, TIMEOUT, Window
from helpers import wait_for
import pytest
from test_webview_graph import artefacts, check_fit, fit

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / 'bt_executive' / 'app' / 'cli.py'
ROBOTS = 3
STRING = ['std_msgs/msg/String']


def test_executives_are_nodes_publishing_status_and_snapshot():
    topics = [('/robot1/bt_executive/status', STRING), ('/robot1/bt_executive/snapshot', STRING),
              ('/robot1/bt_executive/events', STRING),
              ('/bt_executive/status', STRING), ('/bt_executive/snapshot', STRING),
              ('/other/status', STRING),  # no snapshot: not an executive
              ('/x/status', ['std_msgs/msg/Int32']), ('/x/snapshot', STRING),
              ('/status', STRING), ('/snapshot', STRING)]
    assert find_executives(topics) == ['/bt_executive', '/robot1/bt_executive']
    assert executive_url('/robot1/bt_executive') == '/executive/robot1/bt_executive/'


def status(tree: str, ticks: int, **extra) -> str:
    data = {'tree': tree, 'file': f'{tree}.yaml', 'root_status': 'RUNNING',
            'tick_count': ticks, 'running': True, 'paused': False, 'terminated': None,
            'last_failure': None, 'tick_mode': 'event',
            'timing': {'interval_ms': {'p50': 50.0}}}
    data.update(extra)
    return json.dumps(data)


@pytest.fixture
def fleet_server() -> Iterator[FleetServer]:
    subscribed: list[str] = []
    directory = FleetDirectory(subscribe=subscribed.append)
    server = FleetServer(('127.0.0.1', 0), directory)
    server.subscribed = subscribed
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.1},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        directory.close()
        server.hub.close()
        server.shutdown()
        thread.join(5.0)
        server.server_close()
        assert not server.errors, server.errors


def test_rows_and_paths_of_the_fleet_server(fleet_server):
    directory = fleet_server.directory
    base = f'http://127.0.0.1:{fleet_server.port}'
    assert directory.seen(['/robot1/bt_executive', '/robot2/bt_executive']) == \
        ['/robot1/bt_executive', '/robot2/bt_executive']
    assert directory.put_status('/robot1/bt_executive', status('Patrol', 10))
    assert directory.put_status('/robot1/bt_executive',
                                status('Patrol', 12, root_status='FAILURE',
                                       last_failure='Patrol/root/dock: goal aborted'))
    assert not directory.put_status('/robot1/bt_executive', 'not json')
    directory.seen(['/robot1/bt_executive'])  # robot2 left the graph
    code, headers, body = get(base + '/fleet')
    assert code == 200 and headers['Content-Type'] == 'application/json'
    rows = {row['node']: row for row in json.loads(body)['executives']}
    one, two = rows['/robot1/bt_executive'], rows['/robot2/bt_executive']
    assert (one['namespace'], one['name'], one['tree'], one['root_status'], one['ticks'],
            one['state'], one['url']) == ('/robot1', 'bt_executive', 'Patrol', 'FAILURE', 12,
                                          'running', '/executive/robot1/bt_executive/')
    assert one['last_failure'] == 'Patrol/root/dock: goal aborted'
    assert one['tick_rate'] > 0
    assert two['state'] == 'offline' and two['tree'] is None
    # the fleet page and its files; no URL in them (offline, no CDN)
    for path in ('/', '/fleet.js', '/fleet.css', '/style.css'):
        code, _, body = get(base + path)
        assert code == 200, path
        assert b'http://' not in body and b'https://' not in body, path
    # an executive's view lives below its path; its data is subscribed on first use
    code, _, body = get(base + '/executive/robot1/bt_executive/')
    assert code == 200 and b'app.js' in body
    assert fleet_server.subscribed == ['/robot1/bt_executive']
    code, _, body = get(base + '/executive/robot1/bt_executive/snapshot')
    assert code == 503 and json.loads(body)['topic'] == '/robot1/bt_executive/snapshot'
    for path in ('/executive/robot1/bt_executive/app.js',
                 '/executive/robot1/bt_executive/graph.js'):
        assert get(base + path)[0] == 200, path
    # only discovered executives; without the trailing slash: redirected
    code, _, body = get(base + '/executive/nobody/bt_executive/')
    assert code == 404 and 'no executive /nobody/bt_executive' in json.loads(body)['error']
    assert get(base + '/executive/robot1/bt_executive/secret.txt')[0] == 404
    assert get(base + '/snapshot')[0] == 404
    import http.client
    connection = http.client.HTTPConnection('127.0.0.1', fleet_server.port, timeout=TIMEOUT)
    connection.request('GET', '/executive/robot1/bt_executive')
    answer = connection.getresponse()
    assert answer.status == 301
    assert answer.headers['Location'] == '/executive/robot1/bt_executive/'
    connection.close()


@pytest.fixture
def browser(browser_window: Callable[..., Window]) -> Window:
    """Give a window of the worker's Chromium (test/ros/conftest.py)."""
    return browser_window(width=1500, height=700)


@pytest.mark.ros
@pytest.mark.slow
def test_fleet_page_lists_the_demo_robots_and_opens_each(spawn, browser, tmp_path):
    # --shared: the executives in one process, the sims in another (two processes instead
    # of six; the fleet page sees the same nodes, and test_fleet.py runs the six)
    demo = spawn(CLI, 'demo', '--robots', str(ROBOTS), '--shared', '--laps', '1000',
                 '--timeout', '600', grace=30.0)
    view = spawn(CLI, 'view', '--port', '0')
    line = wait_for(lambda: next((line for line in view.lines()
                                  if line.startswith('bt-executive view: http://')), None),
                    TIMEOUT, 'the URL line of bt-executive view')
    assert 'the fleet' in line
    url = line.split()[2]
    assert url.startswith('http://127.0.0.1:')
    nodes = [f'/robot{i}/bt_executive' for i in range(1, ROBOTS + 1)]

    def all_ticking():
        code, _, body = get(url + 'fleet')
        rows = {row['node']: row for row in json.loads(body)['executives']} if code == 200 \
            else {}
        ready = all(node in rows and rows[node]['state'] == 'running' and
                    (rows[node]['ticks'] or 0) > 0 and rows[node]['tick_rate'] is not None
                    for node in nodes)
        return rows if ready else None

    rows = wait_for(all_ticking, 90.0, f'{ROBOTS} ticking executives on /fleet (demo: '
                    f'{demo.lines()[-5:]}, view: {view.lines()[-5:]})', interval=0.5)
    for node in nodes:
        assert rows[node]['tree'] == 'Patrol', rows[node]
        assert rows[node]['root_status'] in ('RUNNING', 'SUCCESS', 'FAILURE')

    page = browser.open_page(url)
    page.wait_until(f"document.querySelectorAll('#fleet tbody tr[data-state=\"running\"]')"
                    f'.length === {ROBOTS}', 'three running rows on the fleet page')
    table = page.evaluate("[...document.querySelectorAll('#fleet tbody tr')].map((row) => "
                          '[...row.cells].map((cell) => cell.textContent))')
    assert [row[0] for row in table] == [f'/robot{i}' for i in range(1, ROBOTS + 1)]
    for row in table:
        assert row[1] == 'bt_executive' and row[2] == 'Patrol' and row[4] == 'running'
        assert int(row[5]) > 0 and row[6].endswith(' Hz'), row
    assert page.evaluate("document.getElementById('fleet-count').textContent") == str(ROBOTS)
    assert_no_machine_paths(page, tmp_path)
    page.screenshot(artefacts(tmp_path) / 'fleet_view.png')
    links = page.evaluate("[...document.querySelectorAll('#fleet a.open')]"
                          ".map((a) => a.getAttribute('href'))")
    assert links == [executive_url(node) for node in nodes]

    # each link opens that robot's live tree (the usual view, fed by its own topics)
    for node, link in zip(nodes, links):
        robot = browser.open_page(url.rstrip('/') + link)
        robot.wait_until("document.getElementById('tree-name').textContent === 'Patrol' && "
                         "document.querySelector('[data-node-id]')?.dataset.status "
                         "!== undefined && document.body.dataset.connection === 'live'",
                         f'the live tree of {node}')
        assert robot.evaluate("document.getElementById('fleet-link').hidden") is False
        assert robot.evaluate("document.getElementById('executive-node').textContent") == \
            f'node {node}'
        code, _, body = get(url.rstrip('/') + link + 'snapshot')
        assert code == 200 and json.loads(body)['executive']['node'] == node
    # the graph of a robot's tree, laid out by the fleet server, fitted
    graph = browser.open_page(url.rstrip('/') + links[0] + '?view=graph')
    graph.wait_until("document.getElementById('graph').dataset.fitted && "
                     "document.getElementById('graph').dataset.layout === 'ready' && "
                     '!window.btGraph.state.fitting', 'the graph of robot1')
    fit(graph)
    check_fit(graph, 'the graph of robot1 on the fleet page')
    assert_no_machine_paths(graph, tmp_path)
    assert view.stop() == 0
