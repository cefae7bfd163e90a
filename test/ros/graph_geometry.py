# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Geometry of a graph drawing: boxes that overlap, edges that cross or run through boxes.

Shared by the layout tests (the server's answers) and the browser tests (what the page
drew). A drawing is boxes ``(left, top, width, height)`` and edges as SVG path data
(``M``, ``C``, ``H``, ``V``, absolute), one per box but the root.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

Point = tuple[float, float]
Box = tuple[float, float, float, float]

_TOKEN = re.compile(r'[MCHVL]|-?\d+(?:\.\d+)?(?:e-?\d+)?')


def path_points(data: str, samples: int = 13) -> list[Point]:
    """Return a polyline following SVG path data (curves sampled ``samples`` times).

    An odd number of samples: two mirror-image curves that cross in their middle must
    not meet exactly at a sample (a touch, not a crossing, for :func:`properly_cross`).
    """
    tokens = _TOKEN.findall(data)
    points: list[Point] = []
    index = 0
    command = ''
    while index < len(tokens):
        if tokens[index] in 'MCHVL':
            command = tokens[index]
            index += 1
        numbers = []
        while index < len(tokens) and tokens[index] not in 'MCHVL':
            numbers.append(float(tokens[index]))
            index += 1
        if command in 'ML':
            for at in range(0, len(numbers), 2):
                points.append((numbers[at], numbers[at + 1]))
        elif command == 'H':
            points.extend((x, points[-1][1]) for x in numbers)
        elif command == 'V':
            points.extend((points[-1][0], y) for y in numbers)
        elif command == 'C':
            for at in range(0, len(numbers), 6):
                (x0, y0) = points[-1]
                x1, y1, x2, y2, x3, y3 = numbers[at:at + 6]
                for step in range(1, samples + 1):
                    t = step / samples
                    u = 1 - t
                    points.append((u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2
                                   + t ** 3 * x3,
                                   u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2
                                   + t ** 3 * y3))
    return points


def dense(points: list[Point], step: float = 3.0) -> list[Point]:
    """Return the polyline's points with more on each segment, at most ``step`` apart."""
    out = points[:1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        parts = max(1, int(max(abs(x1 - x0), abs(y1 - y0)) / step))
        out.extend((x0 + (x1 - x0) * k / parts, y0 + (y1 - y0) * k / parts)
                   for k in range(1, parts + 1))
    return out


def segments(points: list[Point]) -> list[tuple[Point, Point]]:
    """Return the pieces of a polyline, leaving out those of no length."""
    return [(a, b) for a, b in zip(points, points[1:]) if a != b]


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def properly_cross(first: tuple[Point, Point], second: tuple[Point, Point],
                   tolerance: float = 1e-6) -> bool:
    """Return whether two segments cross at one point inside both.

    Touching (an end on the other segment) or overlapping along a line is no crossing.
    """
    (a, b), (c, d) = first, second
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    scale = max(1.0, abs(b[0] - a[0]) + abs(b[1] - a[1])) * max(
        1.0, abs(d[0] - c[0]) + abs(d[1] - c[1]))
    limit = tolerance * scale
    return ((d1 > limit and d2 < -limit) or (d1 < -limit and d2 > limit)) and \
        ((d3 > limit and d4 < -limit) or (d3 < -limit and d4 > limit))


def crossings(edges: dict[str, str]) -> list[tuple[str, str]]:
    """Return the pairs of edges (by key) that cross each other."""
    parts = {key: segments(path_points(data)) for key, data in edges.items() if data}
    boxes = {key: _bounds([point for segment in value for point in segment])
             for key, value in parts.items() if value}
    keys = sorted(boxes)
    found = []
    for i, first in enumerate(keys):
        for second in keys[i + 1:]:
            if not _meet(boxes[first], boxes[second]):
                continue
            if any(properly_cross(one, two) for one in parts[first] for two in parts[second]
                   if _meet(_bounds(one), _bounds(two))):
                found.append((first, second))
    return found


def _bounds(points: Iterable[Point]) -> Box:
    xs, ys = zip(*points)
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def _meet(a: Box, b: Box) -> bool:
    return a[0] <= b[0] + b[2] and b[0] <= a[0] + a[2] and a[1] <= b[1] + b[3] \
        and b[1] <= a[1] + a[3]


def overlaps(boxes: dict[str, Box], gap: float = 0.5) -> list[tuple[str, str]]:
    """Return the pairs of boxes that overlap (by more than ``gap`` on both axes)."""
    items = sorted(boxes.items(), key=lambda item: item[1][0])
    found = []
    for i, (first, a) in enumerate(items):
        for second, b in items[i + 1:]:
            if b[0] >= a[0] + a[2] - gap:
                break
            if min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]) > gap and \
                    min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > gap:
                found.append((first, second))
    return found


def through_boxes(edges: dict[str, str], boxes: dict[str, Box],
                  ends: dict[str, tuple[str, Optional[str]]],
                  inset: float = 1.0) -> list[tuple[str, str]]:
    """Return ``(edge, box)`` for each edge that runs through a box other than its ends.

    Args:
        edges: key -> path data
        boxes: key -> box
        ends: edge key -> (its child's box key, its parent's box key)
        inset: a point this far inside a box's border counts as inside
    """
    found = []
    for key, data in edges.items():
        if not data:
            continue
        points = dense(path_points(data, samples=25))
        own = set(ends.get(key, (key, None)))
        around = _bounds(points)
        for name, (left, top, width, height) in boxes.items():
            if name in own or not _meet(around, (left, top, width, height)):
                continue
            if any(left + inset < x < left + width - inset and top + inset < y < top + height
                   - inset for x, y in points):
                found.append((key, name))
    return found


__all__ = ['crossings', 'dense', 'overlaps', 'path_points', 'properly_cross', 'segments',
           'through_boxes']
