# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The web page's graph view and search, on a 500-node tree, in headless Chromium.

The tree is built and ticked offline (the real loader, builder, runner and snapshot
model; no ROS), its snapshots are put into the view server's hub, and the page is driven
over the DevTools protocol (the :class:`Browser` of ``test_webview``). Checked: every box
is laid out without overlaps, parents above and between their children; folding is
shared with the outline and follows the active path (a subtree folded by "collapse
idle" unfolds when it starts running); search marks and reveals matches in both views;
pan and zoom. Screenshots are kept as artefacts: in ``$BT_EXECUTIVE_SCREENSHOTS`` when
set (``make screenshots`` sets it to docs/), else in the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import pathlib
import textwrap
from typing import Any

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder
from devtools import Browser, find_browser, Page, TIMEOUT
import py_trees
import pytest

AREAS = 25


def big_tree() -> str:
    """Return a tree file of about 500 nodes: an alarm branch, 25 areas, a running leaf."""
    lines = ['blackboard: {x: 0, go: false}', 'trees:', '  Main:', '    Selector root:',
             '      - Sequence alarm:',
             '          - Condition alarm raised: go',
             '          - Sequence handle alarm:',
             '              - Success stop motors:',
             '              - Sequence notify:',
             '                  - Success beep:',
             '                  - Success flash lights:',
             '              - Running hold position:']
    for i in range(1, AREAS + 1):
        lines += [f'      - Selector area {i}:',
                  f'          - Sequence visit {i}:',
                  f'              - Condition reached {i}: x > {i}',
                  f'              - Sequence dock {i}:',
                  *[f'                  - Success {step} {i}:'
                    for step in ('undock', 'drive out', 'drive back', 'wait')],
                  f'          - Sequence fallback {i}:',
                  f'              - Condition never {i}: x > 100',
                  f'              - Sequence report {i}:',
                  *[f'                  - Success report {i} part {part}:'
                    for part in range(1, 10)]]
    lines.append('      - Running wait for work:')
    return '\n'.join(lines) + '\n'


class OfflineTree:
    """The big tree, ticked offline; :meth:`snapshot` gives the JSON the executive sends."""

    def __init__(self) -> None:
        registry = default_registry()
        document = Loader(registry).load_text(big_tree(), name='big.yaml')
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(document)
        self.runner = TreeRunner(build(document, registry=registry))
        self.builder = SnapshotBuilder(self.runner.tracker, tree_name='Main',
                                       source_file='big.yaml', revision=1,
                                       blackboard_keys=['x', 'go'], document=document)
        self.runner.add_observer(self.builder)

    def tick(self, **blackboard: Any) -> str:
        for key, value in blackboard.items():
            py_trees.blackboard.Blackboard.set(f'/{key}', value)
        self.runner.tick_once()
        self.builder.update()
        return self.builder.encode(self.builder.full())


def artefacts(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = os.environ.get('BT_EXECUTIVE_SCREENSHOTS')
    path = pathlib.Path(folder) if folder else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


# Layout checks, in the page: every shown box, no overlaps on a level, parents centred
# over their shown children, edges where they belong; also times a layout.
LAYOUT_CHECK = """(() => {
  const H = 38;  // BOX_H in graph.js
  const items = window.btGraph.state.items;
  const shown = [...items.values()].filter((item) => item.shown);
  const overlaps = [];
  for (let i = 0; i < shown.length; i++) {
    for (let j = i + 1; j < shown.length; j++) {
      const a = shown[i], b = shown[j];
      if (Math.abs(a.x - b.x) < (a.w + b.w) / 2 - 0.01 && Math.abs(a.y - b.y) < H - 0.01) {
        overlaps.push([a.node.id, b.node.id]);
      }
    }
  }
  const misplaced = [];
  const inside = (box, item) => box.x - box.w / 2 >= item.left - 0.01 &&
    box.x + box.w / 2 <= item.left + item.sub + 0.01;
  for (const item of shown) {
    const kids = item.node.children.map((id) => items.get(id)).filter((k) => k.shown);
    if (!inside(item, item) || kids.some((k) => k.y <= item.y || !inside(k, item))) {
      misplaced.push(item.node.id);
    }
  }
  const edges = [...document.querySelectorAll('#graph-world path.edge')]
    .filter((e) => e.style.display !== 'none').length;
  const started = performance.now();
  window.btGraph.layout();
  const ms = performance.now() - started;
  return {shown: shown.length, overlaps, misplaced, edges, ms,
          width: window.btGraph.state.width, height: window.btGraph.state.height};
})()"""


def box_shown(ident: str) -> str:
    return (f'(window.btGraph.state.items.get({json.dumps(ident)})?.shown === true && '
            f"document.querySelector('[data-graph-id={json.dumps(ident)}]')"
            '.getClientRects().length > 0)')


def outline_folded(ident: str) -> str:
    return (f"document.querySelector('[data-node-id={json.dumps(ident)}]')"
            ".classList.contains('collapsed')")


def search(page: Page, text: str) -> dict[str, Any]:
    page.evaluate(f"(() => {{ const input = document.getElementById('node-search'); "
                  f'input.value = {json.dumps(text)}; '
                  "input.dispatchEvent(new Event('input')); })()")
    return page.evaluate("({count: document.getElementById('search-count').textContent, "
                         "outline: [...document.querySelectorAll('#tree li.match')]"
                         '.map((li) => li.dataset.nodeId), '
                         "graph: [...document.querySelectorAll('#graph-world .gnode.match')]"
                         '.map((g) => g.dataset.graphId), '
                         "current: document.querySelector('#graph-world .match-current')"
                         '?.dataset.graphId})')


@pytest.fixture
def browser(tmp_path: pathlib.Path):
    executable = find_browser()
    if executable is None:
        pytest.skip('needs Chromium for the headless browser test (apt-get install chromium)')
    started = Browser(executable, tmp_path, width=1600, height=1000)
    try:
        yield started
    finally:
        started.close()


def test_graph_view_and_search_on_a_500_node_tree(browser, view_server, tmp_path):
    tree = OfflineTree()
    server = view_server(max_clients=8, poll_interval=0.1)
    first = tree.tick()
    assert server.hub.put_snapshot(first)
    snapshot = json.loads(first)
    nodes = len(snapshot['nodes'])
    assert nodes >= 500, nodes
    assert snapshot['active_path'][-1] == 'Main/root/wait for work'
    url = f'http://127.0.0.1:{server.port}/?view=graph'
    page = browser.open_page(url)
    page.wait_until(f"document.querySelectorAll('#graph-world .gnode').length === {nodes} && "
                    "document.querySelector('[data-graph-id=\"Main/root\"]')"
                    "?.dataset.status === 'RUNNING'", 'the graph of the big tree')
    assert page.evaluate("document.getElementById('tree').hidden") is True
    assert page.evaluate("document.querySelector('#view-mode [data-mode=\"graph\"]')"
                         ".getAttribute('aria-pressed')") == 'true'

    # every box laid out, no overlap, parents over their children, one edge per child
    layout = page.evaluate(LAYOUT_CHECK)
    assert layout['shown'] == nodes
    assert layout['overlaps'] == [] and layout['misplaced'] == []
    assert layout['edges'] == nodes - 1
    print(f"\n500-node layout: {nodes} nodes, {layout['ms']:.1f} ms, "
          f"{layout['width']:.0f} x {layout['height']:.0f} px")
    # too wide to read whole: shown at a readable scale, the running leaf in view
    assert float(page.evaluate("document.getElementById('graph').dataset.scale")) >= 0.6
    assert page.evaluate('(() => { const r = document.querySelector('
                         "'[data-graph-id=\"Main/root/wait for work\"] rect')"
                         '.getBoundingClientRect(); const s = document.getElementById('
                         "'graph-svg').getBoundingClientRect(); return r.left >= s.left && "
                         'r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom; })()')
    # status colours and the active path, as in the snapshot
    statuses = page.evaluate('Object.fromEntries([...document.querySelectorAll('
                             "'#graph-world .gnode')].map((g) => [g.dataset.graphId, "
                             'g.dataset.status]))')
    assert statuses == {ident: state['status'] for ident, state in snapshot['state'].items()}
    active = page.evaluate("[...document.querySelectorAll('#graph-world .gnode[data-active]')]"
                           '.map((g) => g.dataset.graphId)')
    assert sorted(active) == sorted(snapshot['active_path'])
    folder = artefacts(tmp_path)
    page.screenshot(folder / 'graph_view_500.png')

    # "collapse idle" folds the idle subtrees in both views ...
    handle = 'Main/root/alarm/handle alarm'
    hold = handle + '/hold position'
    page.evaluate("document.getElementById('collapse-idle').click()")
    page.wait_until(f'!{box_shown(hold)} && {outline_folded(handle)}',
                    'collapse idle to fold the alarm handling')
    folded = page.evaluate(LAYOUT_CHECK)
    assert folded['shown'] < nodes / 2, folded
    assert folded['overlaps'] == [] and folded['misplaced'] == []
    badge = page.evaluate(f"document.querySelector('[data-graph-id={json.dumps(handle)}] "
                          ".badge').textContent")
    assert badge == '+5'
    # ... and the alarm handling unfolds, in both, when it starts running
    assert server.hub.put_snapshot(tree.tick(go=True))
    page.wait_until(f'{box_shown(hold)} && !{outline_folded(handle)} && document.'
                    f"querySelector('[data-graph-id={json.dumps(hold)}]').dataset.status "
                    "=== 'RUNNING'", 'the running branch to unfold')
    assert page.evaluate(f"document.querySelector('[data-graph-id={json.dumps(hold)}]')"
                         '.dataset.active') == 'leaf'
    page.evaluate("document.getElementById('graph-follow').click()")
    page.screenshot(folder / 'graph_view.png')
    # a branch folded by hand stays folded when it runs (the badge counts it)
    area = 'Main/root/area 3'
    assert page.evaluate(f'window.btView.view.collapsed.has({json.dumps(area)})') is False
    page.evaluate(f"document.querySelector('[data-graph-id={json.dumps(area)}]')"
                  ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    page.wait_until(outline_folded(area) + f" && !{box_shown(area + '/visit 3')}",
                    'a click on a box to fold it in both views')

    # search by name: the match is marked in both views, its folded ancestors unfold
    dock = 'Main/root/area 7/visit 7/dock 7'
    assert page.evaluate(f'window.btView.view.collapsed.has({json.dumps(dock)})') is True
    found = search(page, 'Drive OUT 7')
    target = dock + '/drive out 7'
    assert found == {'count': '1 / 1', 'outline': [target], 'graph': [target],
                     'current': target}
    page.wait_until(box_shown(target), 'the match to be revealed in the graph')
    assert page.evaluate(f'window.btView.view.collapsed.has({json.dumps(dock)})') is False
    # the current match is centred in the graph
    centre = page.evaluate(f'(() => {{ const r = document.querySelector('
                           f"'[data-graph-id={json.dumps(target)}] rect')"
                           '.getBoundingClientRect(); const s = document.getElementById('
                           "'graph-svg').getBoundingClientRect(); return "
                           '[r.x + r.width / 2 - s.x - s.width / 2, '
                           'r.y + r.height / 2 - s.y - s.height / 2]; })()')
    assert abs(centre[0]) < 30 and abs(centre[1]) < 30, centre
    page.screenshot(folder / 'graph_search.png')
    # search by type: every Running leaf, stepping with Enter goes round
    running = sorted(node['id'] for node in snapshot['nodes'] if node['type'] == 'Running')
    found = search(page, 'running')
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
    page.evaluate("document.getElementById('graph-fit').click()")

    # both views side by side: the outline is shown again, the graph next to it
    page.evaluate("document.querySelector('#view-mode [data-mode=\"both\"]').click()")
    rects = page.evaluate("[document.getElementById('tree'), document.getElementById('graph')]"
                          '.map((e) => e.getBoundingClientRect().x)')
    assert rects[0] < rects[1]
    page.screenshot(folder / 'graph_view_both.png')


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
    assert textwrap.dedent(big_tree()).count('\n') > 400
