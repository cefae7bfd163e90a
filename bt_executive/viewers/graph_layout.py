# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Lay out the web page's graph view with Graphviz's ``dot``: ``GET layout?c=...&w=...&h=...``.

The page (``graph.js``) measures its boxes, and asks the view server where to put them.
The request describes the tree *as shown* (folded subtrees left out), depth first:

=====  ===========================================================================
``c``  the number of shown children of each box, comma-separated (``2,0,1,0``)
``w``  the width of each box in pixels (what its text needs)
``h``  the height of each box in pixels
``r``  optional: the most boxes in one column of a stacked block (default
       :data:`MAX_ROWS`); the page gives as many as its window's height holds
=====  ===========================================================================

The answer places every box (``x``: its centre, ``y``: its top) and draws the edge into
each box but the root (``edges``: SVG path data), in the request's order, with the
drawing's ``width`` and ``height``, the ``engine`` used and the milliseconds it took
(``ms``). The same request always gets the same answer, kept in a small cache, so the
page lays a tree out once per structure and folding, never per tick.

How the drawing is made:

- **dot** (``graphviz-pure``, else Graphviz's ``dot``; ``bt_executive.formats.dot``)
  places the boxes left to right, rank by rank (``ordering=out``: children in their
  order, a parent over its children, subtrees packed side by side). Only its x
  coordinates are used: a box's rank is its depth, ranks are :data:`RANK_HEIGHT` +
  :data:`RANK_GAP` apart, and every box sits at the top of its rank. A box or block
  taller than a rank (a folded box, a stack of leaves) hangs into the ranks below it:
  dot gets an invisible box of its width in each of them, so nothing is put there.
- **Runs of small subtrees are stacked**: two or more siblings in a row, each a leaf or
  a subtree of at most :data:`SMALL` boxes, become one block drawn as an indented
  outline, in columns of at most :data:`MAX_ROWS` boxes, joined to their parent by a
  rail. A selector of 25 actions is a compact block, not a 3000-pixel row, and the
  patrol is as wide as a window.
- **Edges are drawn here**, as curves that leave every parent of a rank at the same
  height and reach every child of the next rank at the same height, with the same
  curvature: two edges between the same ranks keep their left-to-right order all the
  way down, so, with dot keeping children in order, no two edges cross.
- Without a ``dot`` program (or when it fails) the same drawing is made with a simple
  placement of our own (each subtree as wide as its children), ``engine: builtin``.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import threading
import time
from typing import Any, Callable, Optional

from bt_executive.formats.dot import find_renderer

#: Most boxes in one request (a URL of about 10 characters a box stays far below the
#: server's 64 KiB request line); fold subtrees to draw more.
MAX_BOXES = 5000
#: Accepted box sizes in pixels.
MAX_WIDTH = 2000
MAX_HEIGHT = 400
#: Pixels between boxes side by side (dot's ``nodesep``) and between ranks.
NODE_GAP = 12
RANK_GAP = 26
#: The height of a rank: a unit taller than this reaches into the ranks below it, whose
#: room dot keeps free for it (see :func:`to_dot`).
RANK_HEIGHT = 36
#: Fewest small sibling subtrees in a row that are stacked into a block.
STACK_MIN = 2
#: Most boxes of a subtree that is small enough for a block.
SMALL = 4
#: Most boxes in one column of a block by default; more go into further columns.
MAX_ROWS = 8
#: The most the ``r`` parameter may ask for.
ROWS_LIMIT = 200
#: A block's column: the rail at INDENT / 2 from its left, boxes INDENT from its left
#: (and INDENT more per level inside a stacked subtree).
INDENT = 18
ROW_GAP = 6
COLUMN_GAP = 16
#: Space between the top of a block (where the rail starts) and its first box.
BLOCK_TOP = 6
#: Answers kept (request -> answer).
CACHE_SIZE = 128
#: Seconds dot may take before the builtin placement is used instead.
DOT_TIMEOUT = 20.0

_NUMBER = re.compile(r'[0-9]{1,9}')  # ranges are checked after, with their own sentence


class LayoutError(ValueError):
    """Raised for a request that does not describe a tree of boxes (the 400 sentence)."""


class Unit:
    """One thing dot places: a box, or a block of stacked small sibling subtrees."""

    __slots__ = ('box', 'columns', 'width', 'height', 'children', 'rank', 'x')

    def __init__(self, box: int, width: float, height: float,
                 columns: Optional[list[list[tuple[int, int]]]] = None) -> None:
        self.box = box  # the box; a block: its first box
        self.width = width
        self.height = height
        #: a block's rows, column by column: ``(box, level in its subtree)``, depth first
        self.columns = columns
        self.children: list[Unit] = []
        self.rank = 0
        self.x = 0.0  # the centre


def parse_numbers(name: str, text: Optional[str], what: str) -> list[int]:
    """Return the comma-separated whole numbers of parameter ``name`` (LayoutError if not)."""
    if text is None:
        raise LayoutError(f'layout needs {name} ({what})')
    items = text.split(',')
    if len(items) > MAX_BOXES:
        raise LayoutError(f'{name} has {len(items)} items: at most {MAX_BOXES} boxes are '
                          'laid out at once (fold some subtrees)')
    numbers = []
    for index, item in enumerate(items):
        if not _NUMBER.fullmatch(item):
            shown = item if len(item) <= 20 else item[:19] + '\u2026'
            raise LayoutError(f'{name} must be comma-separated whole numbers ({what}); '
                              f'item {index + 1} is {shown!r}')
        numbers.append(int(item))
    return numbers


def parse_request(values: dict[str, str]) -> tuple[list[int], list[int], list[int], int]:
    """Return ``(child counts, widths, heights, rows)`` of a layout request, checked.

    Args:
        values: the query parameters (each given once)

    Raises:
        LayoutError: a parameter is missing, unknown, malformed, or the numbers do not
            describe one tree (a sentence saying what is wrong).
    """
    unknown = sorted(set(values) - {'c', 'w', 'h', 'r'})
    if unknown:
        raise LayoutError(f'layout takes c, w, h and r; {unknown[0]!r} is not one of them')
    rows = MAX_ROWS
    if 'r' in values:
        text = values['r']
        if not _NUMBER.fullmatch(text) or not 1 <= int(text) <= ROWS_LIMIT:
            shown = text if len(text) <= 20 else text[:19] + '\u2026'
            raise LayoutError(f'r must be a whole number from 1 to {ROWS_LIMIT} (the most '
                              f'boxes in a column of a block), not {shown!r}')
        rows = int(text)
    counts = parse_numbers('c', values.get('c'), 'the number of shown children of each '
                           'box, depth first')
    widths = parse_numbers('w', values.get('w'), 'the width of each box in pixels')
    heights = parse_numbers('h', values.get('h'), 'the height of each box in pixels')
    for name, numbers in (('w', widths), ('h', heights)):
        if len(numbers) != len(counts):
            raise LayoutError(f'{name} has {len(numbers)} items for the {len(counts)} boxes '
                              'of c: give one per box')
    for name, numbers, limit in (('w', widths, MAX_WIDTH), ('h', heights, MAX_HEIGHT)):
        for index, number in enumerate(numbers):
            if not 1 <= number <= limit:
                raise LayoutError(f'{name} must be from 1 to {limit} pixels; item {index + 1} '
                                  f'is {number}')
    # depth first: the counts describe one tree when each box but the root fills a
    # place its ancestors opened, and the last box fills the last place
    open_places = 1
    for index, count in enumerate(counts):
        if open_places == 0:
            raise LayoutError(f'c does not describe one tree: box {index + 1} has no parent '
                              f'(the tree ends after box {index})')
        open_places += count - 1
    if open_places:
        raise LayoutError(f'c does not describe one tree: {open_places} more box(es) '
                          f'announced than the {len(counts)} given')
    return counts, widths, heights, rows


def children_of(counts: list[int]) -> list[list[int]]:
    """Return each box's children (indexes) from the depth-first child counts."""
    children: list[list[int]] = [[] for _ in counts]
    stack: list[int] = []  # boxes still waiting for children
    wanted = list(counts)
    for index in range(len(counts)):
        if stack:
            parent = stack[-1]
            children[parent].append(index)
            wanted[parent] -= 1
            if wanted[parent] == 0:
                stack.pop()
        if counts[index]:
            stack.append(index)
    return children


def build_units(counts: list[int], widths: list[int], heights: list[int], *,
                rows: int = MAX_ROWS) -> Unit:
    """Group the boxes into units (runs of small sibling subtrees become blocks).

    Returns:
        the root's unit; each unit's ``children`` are the units under it, in order.
    """
    children = children_of(counts)
    size = [1] * len(counts)
    for index in range(len(counts) - 1, -1, -1):  # children come after their parent
        size[index] += sum(size[child] for child in children[index])

    def rows_of(top: int) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        stack = [(top, 0)]
        while stack:
            box, level = stack.pop()
            found.append((box, level))
            stack.extend((child, level + 1) for child in reversed(children[box]))
        return found

    def block(run: list[int]) -> Unit:
        subtrees = [rows_of(top) for top in run]
        total = sum(len(subtree) for subtree in subtrees)
        columns_wanted = -(-total // rows)
        target = -(-total // columns_wanted)
        columns: list[list[tuple[int, int]]] = [[]]
        for subtree in subtrees:  # a subtree stays in one column
            if columns[-1] and len(columns[-1]) + len(subtree) > target:
                columns.append([])
            columns[-1].extend(subtree)
        width = sum(column_width(column, widths) for column in columns) \
            + COLUMN_GAP * (len(columns) - 1)
        height = BLOCK_TOP + max(sum(heights[box] for box, _ in column)
                                 + ROW_GAP * (len(column) - 1) for column in columns)
        return Unit(run[0], width, height, columns)

    root = Unit(0, widths[0], heights[0])
    stack = [root]
    while stack:
        unit = stack.pop()
        run: list[int] = []
        for kid in [*children[unit.box], None]:
            if kid is not None and size[kid] <= SMALL:
                run.append(kid)
                continue
            if len(run) >= STACK_MIN:
                unit.children.append(block(run))
            else:
                for box in run:
                    unit.children.append(Unit(box, widths[box], heights[box]))
            run = []
            if kid is not None:
                unit.children.append(Unit(kid, widths[kid], heights[kid]))
        for child in unit.children:
            child.rank = unit.rank + 1
            if child.columns is None:
                stack.append(child)
    return root


def column_width(column: list[tuple[int, int]], widths: list[int]) -> float:
    """Return the width of a block's column: rail, indents and the widest box."""
    return INDENT + max(level * INDENT + widths[box] for box, level in column)


def walk(root: Unit) -> list[Unit]:
    """Return the units depth first (parents before children, children in order)."""
    order: list[Unit] = []
    stack = [root]
    while stack:
        unit = stack.pop()
        order.append(unit)
        stack.extend(reversed(unit.children))
    return order


def spans(unit: Unit) -> int:
    """Return how many ranks a unit reaches into (1 for a box of at most a rank's height)."""
    return 1 + max(0, -(-(int(unit.height) - RANK_HEIGHT) // (RANK_HEIGHT + RANK_GAP)))


def to_dot(units: list[Unit]) -> str:
    """Return the DOT text placing the units (``u<i>``: the i-th unit of ``units``).

    A unit reaching into the ranks below it gets a column of invisible boxes of its width
    there (``f<i>_<k>``), kept straight under it (``group``), so that dot places nothing
    where it hangs.
    """
    number = {id(unit): index for index, unit in enumerate(units)}
    lines = ['digraph layout {',
             f'  graph [rankdir=TB, ordering=out, nodesep={NODE_GAP / 72:.4f}, '
             f'ranksep={RANK_GAP / 72:.4f}, splines=false, margin=0];',
             f'  node [shape=box, fixedsize=true, label="", height={RANK_HEIGHT / 72:.4f}];',
             '  edge [arrowhead=none];']
    for index, unit in enumerate(units):
        width = f'{unit.width / 72:.4f}'
        reach = spans(unit)
        group = f', group=g{index}' if reach > 1 else ''
        lines.append(f'  u{index} [width={width}{group}];')
        previous = f'u{index}'
        for below in range(1, reach):
            lines.append(f'  f{index}_{below} [width={width}, group=g{index}, style=invis];')
            lines.append(f'  {previous} -> f{index}_{below} [weight=100];')
            previous = f'f{index}_{below}'
    for unit in units:
        for child in unit.children:
            lines.append(f'  u{number[id(unit)]} -> u{number[id(child)]};')
    lines.append('}')
    return '\n'.join(lines) + '\n'


def place_with_dot(units: list[Unit], program: str) -> None:
    """Set each unit's x from dot's placement (``-Tplain``: inches, y up).

    Raises:
        RuntimeError: dot failed, took too long, or answered what we cannot read.
    """
    try:
        result = subprocess.run([program, '-Tplain'], input=to_dot(units).encode('ascii'),
                                capture_output=True, timeout=DOT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f'{os.path.basename(program)}: {error}') from error
    if result.returncode != 0:
        raise RuntimeError(f'{os.path.basename(program)} exited with {result.returncode}: '
                           + result.stderr.decode('utf-8', 'replace').strip()[:200])
    found = 0
    for line in result.stdout.decode('ascii', 'replace').splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[0] == 'node' and fields[1].startswith('u'):
            try:
                units[int(fields[1][1:])].x = float(fields[2]) * 72.0
            except (ValueError, IndexError):
                raise RuntimeError(f'{os.path.basename(program)} answered {line[:80]!r}') \
                    from None
            found += 1
    if found != len(units):
        raise RuntimeError(f'{os.path.basename(program)} placed {found} of {len(units)} boxes')


def place_builtin(root: Unit) -> None:
    """Set each unit's x without dot: children side by side under their parent.

    Each subtree is as wide as the wider of its box and its children.
    """
    order = walk(root)
    span: dict[int, float] = {}
    for unit in reversed(order):
        kids = sum(span[id(child)] for child in unit.children) \
            + NODE_GAP * max(len(unit.children) - 1, 0)
        span[id(unit)] = max(unit.width, kids)
    left = {id(root): 0.0}
    for unit in order:
        start = left[id(unit)]
        total = span[id(unit)]
        kids = sum(span[id(child)] for child in unit.children) \
            + NODE_GAP * max(len(unit.children) - 1, 0)
        cursor = start + (total - kids) / 2
        for child in unit.children:
            left[id(child)] = cursor
            cursor += span[id(child)] + NODE_GAP
        if unit.children:
            first, last = unit.children[0], unit.children[-1]
            unit.x = (left[id(first)] + span[id(first)] / 2
                      + left[id(last)] + span[id(last)] / 2) / 2
        else:
            unit.x = start + total / 2


def _n(value: float) -> str:
    text = f'{value:.1f}'
    return text[:-2] if text.endswith('.0') else text


def draw(root: Unit, widths: list[int], heights: list[int]) -> dict[str, Any]:
    """Return the answer for placed units: box positions, edges, size (y from the ranks)."""
    units = walk(root)
    pitch = RANK_HEIGHT + RANK_GAP
    shift = -min(unit.x - unit.width / 2 for unit in units)
    count = len(widths)
    xs = [0.0] * count
    ys = [0.0] * count
    edges = [''] * count
    parents = [-1] * count
    for unit in units:
        unit.x += shift
        top = unit.rank * pitch
        if unit.columns is None:
            xs[unit.box], ys[unit.box] = unit.x, top
            continue
        left = unit.x - unit.width / 2
        for column in unit.columns:
            y = top + BLOCK_TOP
            above: list[int] = []  # the boxes of the subtree above this row, by level
            for box, level in column:
                del above[level:]
                if level:
                    parents[box] = above[-1]
                above.append(box)
                xs[box] = left + INDENT * (level + 1) + widths[box] / 2
                ys[box] = y
                y += heights[box] + ROW_GAP
            left += column_width(column, widths) + COLUMN_GAP
    for unit in units:
        if unit.columns is not None:
            for column in unit.columns:
                for box, level in column:
                    if level:  # inside a stacked subtree: a rail from its parent
                        parent = parents[box]
                        edges[box] = (f'M{_n(xs[parent] - widths[parent] / 2 + INDENT / 2)},'
                                      f'{_n(ys[parent] + heights[parent])}'
                                      f'V{_n(ys[box] + heights[box] / 2)}'
                                      f'H{_n(xs[box] - widths[box] / 2)}')
        if not unit.children:
            continue
        start_x, start_y = xs[unit.box], ys[unit.box] + heights[unit.box]
        end_y = (unit.rank + 1) * pitch
        bend = (end_y - start_y) / 2
        for child in unit.children:
            if child.columns is None:
                end_x = xs[child.box]
            else:
                end_x = child.x - child.width / 2 + INDENT / 2
            curve = (f'M{_n(start_x)},{_n(start_y)}C{_n(start_x)},{_n(start_y + bend)} '
                     f'{_n(end_x)},{_n(end_y - bend)} {_n(end_x)},{_n(end_y)}')
            if child.columns is None:
                edges[child.box] = curve
                continue
            rail = end_x
            for column in child.columns:
                for box, level in column:
                    if not level:
                        edges[box] = (f'{curve}H{_n(rail)}V{_n(ys[box] + heights[box] / 2)}'
                                      f'H{_n(xs[box] - widths[box] / 2)}')
                rail += column_width(column, widths) + COLUMN_GAP
    width = max(unit.x + unit.width / 2 for unit in units)
    height = max(unit.rank * pitch + unit.height for unit in units)
    return {'width': round(width, 1), 'height': round(height, 1),
            'x': [round(x, 1) for x in xs], 'y': [round(y, 1) for y in ys], 'edges': edges}


def lay_out(counts: list[int], widths: list[int], heights: list[int], *,
            rows: int = MAX_ROWS, program: Optional[str] = None) -> dict[str, Any]:
    """Lay out a checked request (see :func:`parse_request`); return the answer's data.

    Args:
        counts: each box's number of shown children, depth first
        widths: each box's width in pixels
        heights: each box's height in pixels
        rows: the most boxes in one column of a stacked block
        program: the dot program (default: :func:`~bt_executive.formats.dot.find_renderer`;
            ``''``: the builtin placement)
    """
    started = time.perf_counter()
    root = build_units(counts, widths, heights, rows=rows)
    units = walk(root)
    program = find_renderer() if program is None else program
    engine = 'builtin'
    note = ''
    if program and len(units) > 1:
        try:
            place_with_dot(units, program)
            engine = os.path.basename(program)
        except RuntimeError as error:
            note = f'dot failed ({error}); laid out without it'
    if engine == 'builtin':
        place_builtin(root)
    answer = draw(root, widths, heights)
    answer.update(engine=engine, ms=round((time.perf_counter() - started) * 1000, 1))
    if note:
        answer['note'] = note
    return answer


class GraphLayouts:
    """Answers ``layout`` requests for a view server: one dot at a time, answers cached.

    Args:
        program: the dot program (default: found on first use; ``''``: builtin only)
        lay_out: the layout function (tests count its calls)
    """

    def __init__(self, *, program: Optional[str] = None,
                 lay_out: Callable[..., dict[str, Any]] = lay_out) -> None:
        self._program = program
        self._lay_out = lay_out
        self._lock = threading.Lock()
        self._cache: collections.OrderedDict[tuple[str, ...], dict[str, Any]] = \
            collections.OrderedDict()
        #: layouts computed (not answered from the cache)
        self.computed = 0

    def answer(self, values: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """Return ``(HTTP status, JSON data)`` for the query parameters of a request."""
        try:
            counts, widths, heights, rows = parse_request(values)
        except LayoutError as error:
            return 400, {'error': f'400 {error}'}
        key = (values['c'], values['w'], values['h'], str(rows))
        with self._lock:  # one layout at a time: a burst of requests cannot load the CPU
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return 200, dict(cached, cached=True)
            if self._program is None:
                self._program = find_renderer() or ''
            data = self._lay_out(counts, widths, heights, rows=rows, program=self._program)
            self.computed += 1
            self._cache[key] = data
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return 200, dict(data, cached=False)


__all__ = ['GraphLayouts', 'LayoutError', 'MAX_BOXES', 'build_units', 'children_of',
           'lay_out', 'parse_request', 'to_dot']
