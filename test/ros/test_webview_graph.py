# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The web page's graph view and search, in headless Chromium: fit, legibility, layouts.

Trees of every shape (graph_trees: the real patrol, a 500-node tree, a 150-deep chain,
300 leaves under one root, random and full trees) are put into the view server's hub
(no ROS) and the page is driven over the DevTools protocol. At every window size, after
"fit": every box on screen is inside the visible part of the graph, every label on
screen is at least 11 px, no two boxes overlap, no two edges cross; the patrol is shown
whole at 1400x900. A tree is laid out once per structure (statuses update without a
layout); a subtree folded by fit or by "collapse idle" unfolds when it starts running;
folding is shared with the outline; search marks and reveals matches in both views; pan
and zoom; below a legible scale the labels are hidden (semantic zoom).

Screenshots are kept: in ``$BT_EXECUTIVE_SCREENSHOTS`` when set (``make screenshots``
sets it to docs/), else in the test's temporary directory.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import os
import pathlib
import time
from typing import Any

from devtools import assert_no_machine_paths, Page, TIMEOUT, Window
from graph_geometry import crossings, overlaps
import graph_trees
from graph_trees import OfflineTree
import pytest

#: Window sizes fitted: a laptop, the issue's 1400x900, small, full HD, a phone.
SIZES = [(1400, 900), (1024, 768), (800, 600), (1920, 1080), (390, 844)]
LEGIBLE_PX = 11.0


def artefacts(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = os.environ.get('BT_EXECUTIVE_SCREENSHOTS')
    path = pathlib.Path(folder) if folder else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


# What fit must leave on screen, measured in the page: every box and label on screen
# (their screen rectangles and font sizes), and the edges as drawn.
FIT_CHECK = """(() => {
  const svg = document.getElementById('graph-svg').getBoundingClientRect();
  const area = {left: Math.max(svg.left, 0), top: Math.max(svg.top, 0),
    right: Math.min(svg.right, innerWidth), bottom: Math.min(svg.bottom, innerHeight)};
  const boxes = [...document.querySelectorAll('#graph-world .gnode')]
    .filter((g) => g.getClientRects().length);
  const outside = [];
  const small = [];
  const spill = [];
  const rects = {};
  let labels = 0;
  for (const g of boxes) {
    const r = g.querySelector('rect').getBoundingClientRect();
    const id = g.dataset.graphId;
    rects[id] = [r.left, r.top, r.width, r.height];
    if (r.left < area.left - 0.5 || r.top < area.top - 0.5 || r.right > area.right + 0.5 ||
        r.bottom > area.bottom + 0.5) {
      outside.push(id);
    }
    for (const t of g.querySelectorAll('text')) {
      if (!t.getClientRects().length || !t.textContent) continue;
      labels += 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
      if (px < LEGIBLE - 0.01) small.push([id, px]);
      const b = t.getBoundingClientRect();
      if (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 ||
          b.bottom > r.bottom + 1) {
        spill.push(id);
      }
    }
  }
  const edges = Object.fromEntries([...document.querySelectorAll('#graph-world path.edge')]
    .filter((e) => e.getClientRects().length)
    .map((e) => [e.dataset.graphEdge, e.getAttribute('d')]));
  const graph = document.getElementById('graph');
  return {shown: boxes.length, outside, small, spill, labels, rects, edges,
    scale: Number(graph.dataset.scale), labelsOn: graph.dataset.labels,
    folds: window.btGraph.state.fitFolds.size, requests: window.btGraph.state.requests,
    last: window.btGraph.state.last};
})()""".replace('LEGIBLE', str(LEGIBLE_PX))


def box_shown(ident: str) -> str:
    return (f"(document.querySelector('#graph-world [data-graph-id={json.dumps(ident)}]')"
            '?.getClientRects().length > 0)')


def outline_folded(ident: str) -> str:
    return (f"document.querySelector('[data-node-id={json.dumps(ident)}]')"
            ".classList.contains('collapsed')")


def fit(page: Page) -> float:
    """Click fit and wait until it has ended; return the milliseconds it took."""
    fitted = int(page.evaluate("document.getElementById('graph').dataset.fitted || '0'"))
    started = time.perf_counter()
    page.evaluate("document.getElementById('graph-fit').click()")
    page.wait_until(f"Number(document.getElementById('graph').dataset.fitted || 0) > {fitted} "
                    '&& !window.btGraph.state.fitting', 'fit to end')
    return (time.perf_counter() - started) * 1000


def settle(page: Page) -> None:
    """Wait out the page's reaction to a resize (it fits again after 120 ms)."""
    page.evaluate('new Promise((resolve) => setTimeout(resolve, 250))')
    page.wait_until('!window.btGraph.state.fitting', 'the fit after the resize')


def check_fit(page: Page, where: str) -> dict[str, Any]:
    """Assert what fit promises; return the measurements."""
    result = page.evaluate(FIT_CHECK)
    assert result['shown'] >= 1, where
    assert result['outside'] == [], f'{where}: boxes outside the graph: {result["outside"][:5]}'
    assert result['small'] == [], f'{where}: labels under {LEGIBLE_PX} px: {result["small"][:5]}'
    assert result['labelsOn'] == 'on' and result['labels'] >= 2 * result['shown'], where
    assert result['spill'] == [], f'{where}: labels wider than their box: {result["spill"][:5]}'
    assert overlaps({key: tuple(value) for key, value in result['rects'].items()}) == [], where
    assert crossings(result['edges']) == [], where
    return result


def open_graph(browser: Window, server: Any, snapshot: str) -> Page:
    assert server.hub.put_snapshot(snapshot)
    count = len(json.loads(snapshot)['nodes'])
    page = browser.open_page(f'http://127.0.0.1:{server.port}/?view=graph')
    page.wait_until(f'window.btGraph && window.btGraph.state.items.size === {count} && '
                    "document.getElementById('graph').dataset.fitted && "
                    '!window.btGraph.state.fitting', 'the first fit of the graph')
    return page


@pytest.fixture
def browser(browser_window: Callable[..., Window]) -> Window:
    """Give a window of the worker's Chromium (test/ros/conftest.py)."""
    return browser_window(width=1400, height=900)


@pytest.mark.parametrize('shape', sorted(graph_trees.SHAPES))
def test_fit_fits_every_tree_at_every_window_size_with_legible_labels(shape, browser,
                                                                      view_server, capsys):
    server = view_server(max_clients=8, poll_interval=0.1)
    snapshot = graph_trees.SHAPES[shape]()
    nodes = len(json.loads(snapshot)['nodes'])
    page = open_graph(browser, server, snapshot)
    lines = []
    for width, height in SIZES:
        page.resize(width, height)
        settle(page)
        took = fit(page)
        result = check_fit(page, f'{shape} at {width}x{height}')
        lines.append(f'{width}x{height}: {result["shown"]}/{nodes} boxes, scale '
                     f'{result["scale"]:.2f}, {result["folds"]} folded, fit {took:.0f} ms')
        if shape == 'patrol' and (width, height) in ((1400, 900), (1920, 1080)):
            assert result['shown'] == nodes and result['folds'] == 0, lines[-1]
    with capsys.disabled():
        print(f'\n{shape} ({nodes} nodes): ' + '; '.join(lines))


def test_a_tree_is_laid_out_once_and_statuses_update_without_a_layout(browser, view_server,
                                                                      capsys):
    server = view_server(max_clients=8, poll_interval=0.1)
    tree = OfflineTree()
    page = open_graph(browser, server, tree.tick())
    asked = page.evaluate('window.btGraph.state.requests')
    computed = server.layouts.computed
    applied = page.evaluate('window.btGraph.state.applied')
    for x in range(2, 8):  # statuses change every tick (areas 1..x are reached)
        text = tree.tick(x=x)
        assert server.hub.put_snapshot(text)
        count = json.loads(text)['tick']['count']
        page.wait_until(f"document.getElementById('tick-count').textContent === '{count}'",
                        f'tick {count} on the page')
    status = page.evaluate("document.querySelector('#graph-world [data-graph-id="
                           "\"Main/root/area 1\"]').dataset.status")
    assert status == json.loads(text)['state']['Main/root/area 1']['status']
    assert page.evaluate('window.btGraph.state.requests') == asked
    assert page.evaluate('window.btGraph.state.applied') == applied
    assert server.layouts.computed == computed
    # a fit with nothing changed asks the server for nothing
    fit(page)
    assert server.layouts.computed == computed
    with capsys.disabled():
        first = page.evaluate('window.btGraph.state.firstFit')
        print(f'\n500-node tree: the first fit took {first["ms"]:.0f} ms in the page '
              f'({computed} layouts computed by the server; {first["boxes"]} boxes shown)')


def test_fit_follows_the_running_branch_into_a_branch_it_folded(browser, view_server,
                                                                tmp_path):
    server = view_server(max_clients=8, poll_interval=0.1)
    tree = OfflineTree()
    page = open_graph(browser, server, tree.tick())
    hold = 'Main/root/alarm/handle alarm/hold position'
    assert page.evaluate(f'!{box_shown(hold)}'), 'fit shows the whole 500-node tree'
    check_fit(page, '500-node tree')
    page.screenshot(artefacts(tmp_path) / 'graph_view.png')
    assert_no_machine_paths(page, tmp_path)
    assert server.hub.put_snapshot(tree.tick(go=True))  # the alarm branch runs
    page.wait_until(f"{box_shown(hold)} && document.querySelector('#graph-world "
                    f"[data-graph-id={json.dumps(hold)}]').dataset.active === 'leaf' && "
                    '!window.btGraph.state.fitting', 'the running branch to be unfolded')
    check_fit(page, '500-node tree, alarm running')


def test_semantic_zoom_hides_labels_too_small_to_read(browser, view_server, tmp_path):
    server = view_server(max_clients=8, poll_interval=0.1)
    page = open_graph(browser, server, graph_trees.big())
    page.evaluate("document.getElementById('expand-all').click()")  # every box: 510
    page.wait_until("document.getElementById('graph').dataset.shown === '510' && "
                    "document.getElementById('graph').dataset.labels === 'off'",
                    'the whole tree, too small to read')
    result = page.evaluate(FIT_CHECK)
    assert result['shown'] == 510 and result['outside'] == [] and result['labels'] == 0
    assert 'zoom in' in page.evaluate("document.getElementById('graph-note').textContent")
    assert_no_machine_paths(page, tmp_path)
    page.screenshot(artefacts(tmp_path) / 'graph_view_500.png')
    for _ in range(30):
        page.evaluate("document.getElementById('graph-zoom-in').click()")
        if page.evaluate("document.getElementById('graph').dataset.labels") == 'on':
            break
    result = page.evaluate(FIT_CHECK)
    assert result['labelsOn'] == 'on' and result['labels'] > 0 and result['small'] == []


def test_folding_search_pan_and_zoom_on_a_500_node_tree(browser, view_server, tmp_path):
    tree = OfflineTree()
    server = view_server(max_clients=8, poll_interval=0.1)
    first = tree.tick()
    snapshot = json.loads(first)
    page = open_graph(browser, server, first)
    folder = artefacts(tmp_path)
    # status colours and the active path, as in the snapshot
    statuses = page.evaluate('Object.fromEntries([...window.btGraph.state.items].map('
                             '([id, item]) => [id, item.g.dataset.status]))')
    assert statuses == {ident: state['status'] for ident, state in snapshot['state'].items()}
    active = page.evaluate("[...document.querySelectorAll('#graph-world .gnode[data-active]')]"
                           '.map((g) => g.dataset.graphId)')
    assert sorted(active) == sorted(snapshot['active_path'])
    # "collapse idle" folds the idle subtrees in both views ...
    page.evaluate("document.getElementById('expand-all').click()")
    handle = 'Main/root/alarm/handle alarm'
    hold = handle + '/hold position'
    page.wait_until(box_shown(hold), 'expand all')
    page.evaluate("document.getElementById('collapse-idle').click()")
    page.wait_until(f'!{box_shown(hold)} && {outline_folded(handle)}',
                    'collapse idle to fold the alarm handling')
    badge = page.evaluate(f"document.querySelector('[data-graph-id={json.dumps(handle)}] "
                          ".badge').textContent")
    assert badge == '+5'
    # ... and the alarm handling unfolds, in both, when it starts running
    assert server.hub.put_snapshot(tree.tick(go=True))
    page.wait_until(f'{box_shown(hold)} && !{outline_folded(handle)} && document.'
                    f"querySelector('[data-graph-id={json.dumps(hold)}]').dataset.status "
                    "=== 'RUNNING'", 'the running branch to unfold')
    # a branch folded by hand stays folded when it runs (the badge counts it)
    area = 'Main/root/area 3'
    page.wait_until(box_shown(area), 'area 3 in the graph')
    page.evaluate(f"document.querySelector('[data-graph-id={json.dumps(area)}]')"
                  ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    page.wait_until(outline_folded(area) + f" && !{box_shown(area + '/visit 3')}",
                    'a click on a box to fold it in both views')

    # search by name: the match is marked in both views, its folded ancestors unfold
    dock = 'Main/root/area 7/visit 7/dock 7'
    page.evaluate(f'window.btView.setCollapsed({json.dumps(dock)}, true)')
    search(page, 'Drive OUT 7')
    target = dock + '/drive out 7'
    page.wait_until(box_shown(target), 'the match to be revealed in the graph')
    assert marks(page) == {'count': '1 / 1', 'outline': [target], 'graph': [target],
                           'current': target}
    assert page.evaluate(f'window.btView.view.collapsed.has({json.dumps(dock)})') is False
    # the current match is centred in the graph, its label legible
    page.wait_until(f"(() => {{ const r = document.querySelector('[data-graph-id="
                    f"{json.dumps(target)}] rect').getBoundingClientRect(); const s = "
                    "document.getElementById('graph-svg').getBoundingClientRect(); return "
                    'Math.abs(r.x + r.width / 2 - s.x - s.width / 2) < 30 && '
                    'Math.abs(r.y + r.height / 2 - s.y - s.height / 2) < 30; })()',
                    'the match centred')
    assert page.evaluate("document.getElementById('graph').dataset.labels") == 'on'
    assert_no_machine_paths(page, tmp_path)
    page.screenshot(folder / 'graph_search.png')
    # search by type: every Running leaf, stepping with Enter goes round
    running = sorted(node['id'] for node in snapshot['nodes'] if node['type'] == 'Running')
    search(page, 'running')
    page.wait_until(' && '.join(box_shown(ident) for ident in running), 'every match shown')
    found = marks(page)
    assert sorted(found['outline']) == running and sorted(found['graph']) == running
    assert found['count'] == f'1 / {len(running)}'
    page.evaluate("document.getElementById('node-search').dispatchEvent(new KeyboardEvent("
                  "'keydown', {key: 'Enter'}))")
    assert page.evaluate("document.getElementById('search-count').textContent") == \
        f'2 / {len(running)}'
    # no match says so; Escape clears the marks
    assert search(page, 'no such node')['count'] == 'no match'
    page.evaluate("document.getElementById('node-search').dispatchEvent(new KeyboardEvent("
                  "'keydown', {key: 'Escape'}))")
    assert page.evaluate("document.querySelectorAll('.match').length") == 0

    # pan and zoom: the wheel zooms at the cursor, a drag pans
    before = float(page.evaluate("document.getElementById('graph').dataset.scale"))
    page.evaluate("document.getElementById('graph-svg').dispatchEvent(new WheelEvent('wheel', "
                  '{deltaY: -300, clientX: 400, clientY: 400, bubbles: true, '
                  'cancelable: true}))')
    after = float(page.evaluate("document.getElementById('graph').dataset.scale"))
    assert after > before
    moved = page.evaluate("""(() => {
      const svg = document.getElementById('graph-svg');
      const before = window.btGraph.state.tx;
      svg.dispatchEvent(new PointerEvent('pointerdown', {clientX: 500, clientY: 500,
        button: 0, bubbles: true}));
      window.dispatchEvent(new PointerEvent('pointermove', {clientX: 620, clientY: 540}));
      window.dispatchEvent(new PointerEvent('pointerup', {clientX: 620, clientY: 540}));
      return window.btGraph.state.tx - before;
    })()""")
    assert abs(moved - 120) < 0.01
    fit(page)
    check_fit(page, 'after pan and zoom')

    # both views side by side: the outline is shown again, the graph next to it
    page.evaluate("document.querySelector('#view-mode [data-mode=\"both\"]').click()")
    page.wait_until('!window.btGraph.state.fitting', 'the graph beside the outline')
    rects = page.evaluate("[document.getElementById('tree'), document.getElementById('graph')]"
                          '.map((e) => e.getBoundingClientRect().x)')
    assert rects[0] < rects[1]
    fit(page)
    check_fit(page, 'both views')
    assert_no_machine_paths(page, tmp_path)
    page.screenshot(folder / 'graph_view_both.png')


def search(page: Page, text: str) -> dict[str, Any]:
    page.evaluate(f"(() => {{ const input = document.getElementById('node-search'); "
                  f'input.value = {json.dumps(text)}; '
                  "input.dispatchEvent(new Event('input')); })()")
    return marks(page)


def marks(page: Page) -> dict[str, Any]:
    """Return the search's count and its marks in the outline and on the graph's boxes."""
    return page.evaluate("({count: document.getElementById('search-count').textContent, "
                         "outline: [...document.querySelectorAll('#tree li.match')]"
                         '.map((li) => li.dataset.nodeId), '
                         "graph: [...document.querySelectorAll('#graph-world .gnode.match')]"
                         '.map((g) => g.dataset.graphId), '
                         "current: document.querySelector('#graph-world .match-current')"
                         '?.dataset.graphId})')


def test_the_patrol_graph_at_1400x900(browser, view_server, tmp_path):
    """The patrol whole, every box inside the graph, its labels legible (the README's)."""
    server = view_server(max_clients=8, poll_interval=0.1)
    snapshot = graph_trees.patrol()
    page = open_graph(browser, server, snapshot)
    result = check_fit(page, 'patrol at 1400x900')
    assert result['shown'] == len(json.loads(snapshot)['nodes']) and result['folds'] == 0
    assert_no_machine_paths(page, tmp_path)


def test_the_page_serves_the_graph_files(view_server):
    import urllib.request
    server = view_server(max_clients=2, poll_interval=0.1)
    for name, kind in (('graph.js', 'text/javascript'), ('search.js', 'text/javascript'),
                       ('graph.css', 'text/css')):
        with urllib.request.urlopen(f'http://127.0.0.1:{server.port}/{name}',
                                    timeout=TIMEOUT) as answer:
            assert answer.headers['Content-Type'].startswith(kind)
            body = answer.read()
            assert body.startswith(b'/')
            assert b'http://' not in body and b'https://' not in body, f'{name} loads a URL'
