# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The graph view's layouts (``GET layout``, bt_executive/viewers/graph_layout.py), no browser.

Every shape of tree, laid out by Graphviz's dot (graphviz-pure) and by the builtin
placement used without it: no two boxes overlap, every box is below its parent, no two
edges cross, no edge runs through a box, each edge ends on its box. A bad request is a
400 with a sentence. The layout time of the patrol and of a 500-node tree is measured.
"""

from __future__ import annotations

import json
import time
from typing import Any
import urllib.parse

from bt_executive.formats.dot import find_renderer
from bt_executive.viewers.graph_layout import (GraphLayouts, lay_out, LayoutError,
                                               parse_request)
from devtools import get
from graph_geometry import crossings, overlaps, path_points, through_boxes
import graph_trees
from hypothesis import given, HealthCheck, settings, strategies as st
import pytest

DOT = find_renderer()
ENGINES = [pytest.param(None, id='dot'), pytest.param('', id='builtin')]


def request_of(snapshot: dict[str, Any], folded: frozenset[str] = frozenset(),
               ) -> tuple[list[str], list[int], list[int], list[int]]:
    """Return what the page asks for: ids depth first, child counts, widths, heights."""
    by_id = {node['id']: node for node in snapshot['nodes']}
    order, stack = [], [snapshot['root']]
    while stack:
        ident = stack.pop()
        order.append(ident)
        if ident not in folded:
            stack.extend(reversed(by_id[ident]['children']))
    counts = [0 if ident in folded else len(by_id[ident]['children']) for ident in order]
    widths = [min(210, max(56, 18 + 7 * max(len(by_id[ident]['name']),
                                            len(by_id[ident]['type'])))) for ident in order]
    heights = [51 if ident in folded and by_id[ident]['children'] else 36 for ident in order]
    return order, counts, widths, heights


def from_parents(parents: list[int], seed: int = 0) -> tuple[list[int], list[int], list[int]]:
    counts = [0] * len(parents)
    for parent in parents[1:]:
        counts[parent] += 1
    widths = [56 + (index * 37 + seed * 11) % 150 for index in range(len(parents))]
    heights = [36 if counts[index] or (index + seed) % 4 else 51
               for index in range(len(parents))]
    return counts, widths, heights


def check_drawing(counts: list[int], widths: list[int], heights: list[int],
                  answer: dict[str, Any]) -> None:
    """Assert what every drawing must be (see the module's docstring)."""
    count = len(counts)
    assert len(answer['x']) == len(answer['y']) == len(answer['edges']) == count
    boxes = {str(i): (answer['x'][i] - widths[i] / 2, answer['y'][i], widths[i], heights[i])
             for i in range(count)}
    for left, top, width, height in boxes.values():
        assert left >= -0.5 and top >= -0.5
        assert left + width <= answer['width'] + 0.5 and top + height <= answer['height'] + 0.5
    assert overlaps(boxes) == []
    parents = [-1] * count
    stack: list[int] = []
    wanted = list(counts)
    for index in range(count):
        if stack:
            parents[index] = stack[-1]
            wanted[stack[-1]] -= 1
            if not wanted[stack[-1]]:
                stack.pop()
        if counts[index]:
            stack.append(index)
    edges = {}
    for index in range(1, count):
        parent = parents[index]
        assert answer['y'][index] >= answer['y'][parent] + heights[parent] - 0.5, index
        data = answer['edges'][index]
        assert data.startswith('M'), (index, data)
        edges[str(index)] = data
        # the edge ends on its box: the middle of its top, or the middle of its left side
        end_x, end_y = path_points(data)[-1]
        left, top, width, height = boxes[str(index)]
        assert (abs(end_x - (left + width / 2)) < 1 and abs(end_y - top) < 1) or \
            (abs(end_x - left) < 1 and abs(end_y - (top + height / 2)) < 1), (index, data)
    assert answer['edges'][0] == ''
    assert crossings(edges) == []
    ends = {str(i): (str(i), str(parents[i])) for i in range(1, count)}
    assert through_boxes(edges, boxes, ends) == []


SHAPES = {
    'single': [-1],
    'pair': [-1, 0],
    'chain': graph_trees.chain(40),
    'wide': graph_trees.wide(60),
    'bushy': graph_trees.bushy(3, 4),
    'comb': graph_trees.comb(6, 4),
    'random': graph_trees.random_tree(150, 11),
    'mixed': [-1, 0, 1, 1, 0, 4, 4, 4, 0, 8, 9, 10, 0, 0, 0, 14, 14],
}


@pytest.mark.parametrize('program', ENGINES)
@pytest.mark.parametrize('shape', sorted(SHAPES))
def test_every_shape_is_drawn_without_overlaps_or_crossings(shape, program):
    if program is None and DOT is None:
        pytest.skip('no dot program (graphviz-pure) installed')
    counts, widths, heights = from_parents(SHAPES[shape])
    answer = lay_out(counts, widths, heights, program=program)
    assert answer['engine'] == ('builtin' if program == '' or len(counts) == 1
                                else answer['engine'])
    check_drawing(counts, widths, heights, answer)


@pytest.mark.skipif(DOT is None, reason='no dot program (graphviz-pure) installed')
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=80),
       st.integers(min_value=0, max_value=5))
def test_random_trees_are_drawn_without_overlaps_or_crossings(picks, seed):
    parents = [-1]
    for pick in picks:  # each box hangs under one of the last few (deep and wide trees)
        parents.append(len(parents) - 1 - pick % min(len(parents), 6))
    counts, widths, heights = from_parents(parents, seed)
    check_drawing(counts, widths, heights, lay_out(counts, widths, heights))


def test_the_patrol_and_a_500_node_tree_are_drawn_and_timed(capsys):
    timings = {}
    for name, snapshot in (('patrol', graph_trees.patrol()), ('500-node', graph_trees.big())):
        _, counts, widths, heights = request_of(json.loads(snapshot))
        started = time.perf_counter()
        answer = lay_out(counts, widths, heights)
        timings[name] = (len(counts), (time.perf_counter() - started) * 1000, answer['engine'],
                         answer['width'], answer['height'])
        check_drawing(counts, widths, heights, answer)
    with capsys.disabled():
        for name, (count, ms, engine, width, height) in timings.items():
            print(f'\nlayout of the {name} tree: {count} boxes in {ms:.0f} ms ({engine}), '
                  f'{width:.0f} x {height:.0f} px')
    # a live view lays a tree out once per structure: generous bounds for a loaded machine
    assert timings['patrol'][1] < 3000 and timings['500-node'][1] < 10000


def test_a_dot_that_fails_gives_the_builtin_drawing_and_says_so():
    counts, widths, heights = from_parents(SHAPES['mixed'])
    answer = lay_out(counts, widths, heights, program='/bin/false')
    assert answer['engine'] == 'builtin' and 'dot failed' in answer['note']
    check_drawing(counts, widths, heights, answer)


def test_the_patrol_is_as_wide_as_a_window():
    """Stacking small subtrees keeps the whole patrol within a 1400-pixel-wide page.

    (1300 pixels until the patrol got its fourth branch, 'leave the dock': 1394 since.)
    """
    _, counts, widths, heights = request_of(json.loads(graph_trees.patrol()))
    answer = lay_out(counts, widths, heights)
    assert answer['width'] <= 1400 and answer['height'] <= 700, answer


def test_requests_are_checked_with_sentences():
    good = {'c': '2,0,0', 'w': '80,60,60', 'h': '36,36,36'}
    assert parse_request(good) == ([2, 0, 0], [80, 60, 60], [36, 36, 36], 8)
    assert parse_request(dict(good, r='12'))[3] == 12
    bad = {
        'no c': ({'w': '1', 'h': '1'}, 'layout needs c'),
        'letters': (dict(good, c='2,x,0'), "item 2 is 'x'"),
        'negative': (dict(good, w='80,-60,60'), "item 2 is '-60'"),
        'float': (dict(good, h='36,36.5,36'), "item 2 is '36.5'"),
        'empty item': (dict(good, c='2,,0'), "item 2 is ''"),
        'short w': (dict(good, w='80,60'), 'w has 2 items for the 3 boxes'),
        'zero width': (dict(good, w='80,0,60'), 'w must be from 1 to 2000 pixels'),
        'huge height': (dict(good, h='36,36,9999'), 'h must be from 1 to 400 pixels'),
        'huge width': (dict(good, w='80,60,1234567'), 'item 3 is 1234567'),
        'huge count': (dict(good, c='1234567,0,0'), 'does not describe one tree'),
        'two roots': (dict(good, c='0,0,0'), 'box 2 has no parent'),
        'missing box': (dict(good, c='3,0,0'), '1 more box(es) announced'),
        'unknown': (dict(good, z='1'), "'z' is not one of them"),
        'rows': (dict(good, r='0'), 'r must be a whole number from 1 to 200'),
        'rows text': (dict(good, r='many'), "not 'many'"),
        'too many': ({'c': ','.join(['0'] * 6000), 'w': '1', 'h': '1'}, 'at most 5000'),
    }
    for name, (values, sentence) in bad.items():
        with pytest.raises(LayoutError) as raised:
            parse_request(values)
        assert sentence in str(raised.value), (name, str(raised.value))


def test_the_server_answers_layouts_once_per_request_and_400_with_a_sentence(view_server):
    server = view_server(max_clients=2, poll_interval=0.1)
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return lay_out(*args, **kwargs)

    server.layouts = GraphLayouts(lay_out=counting)
    base = f'http://127.0.0.1:{server.port}/layout?'
    query = 'c=2,0,1,0&w=90,70,80,60&h=36,36,36,51'
    for _ in range(3):
        code, headers, body = get(base + query)
        assert code == 200 and headers['Content-Type'] == 'application/json'
    answer = json.loads(body)
    assert len(calls) == 1 and answer['cached'] is True
    check_drawing([2, 0, 1, 0], [90, 70, 80, 60], [36, 36, 36, 51], answer)
    for bad, sentence in (('c=1,0&w=10,10&h=10,x', 'h must be comma-separated whole numbers'),
                          ('c=1,0&w=10,10', 'layout needs h'),
                          ('c=1,0&w=10,10&h=1,1&c=1,0', "'c' is given twice"),
                          ('', 'layout needs c')):
        code, _, body = get(base + bad)
        error = json.loads(body)['error']
        assert code == 400 and error.startswith('400 ') and sentence in error, (bad, error)
        assert 'invalid literal' not in error and 'Traceback' not in error


def test_a_request_for_a_tree_of_every_size_fits_the_request_line():
    """The page's request for 5000 boxes stays below the server's 64 KiB request line."""
    query = urllib.parse.urlencode({'c': ','.join(['0'] * 5000), 'w': ','.join(['210'] * 5000),
                                    'h': ','.join(['51'] * 5000)}, safe=',')
    assert len(query) < 65536 - 100
