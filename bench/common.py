"""Helpers shared by the benchmarks: generated trees and timing."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def flat_tree_yaml(nodes: int) -> str:
    """Return a tree file with one Sequence over ``nodes - 1`` Success leaves."""
    lines = ['trees:', '  Main:', '    Sequence:']
    lines += ['      - Success' for _ in range(nodes - 1)]
    return '\n'.join(lines) + '\n'


def bushy_tree_yaml(nodes: int, fanout: int = 9) -> str:
    """Return a Selector of Sequences with about ``nodes`` nodes, all ticked every tick.

    Each sequence runs its Success leaves and fails on a last Condition, so the selector
    visits every sequence; the final sequence ends in a true condition.
    """
    groups = []
    count = 1
    while count < nodes:
        size = min(fanout, nodes - count - 1)
        groups.append(size)
        count += size + 1
    lines = ['blackboard: {x: 1}', 'trees:', '  Main:', '    Selector:']
    for index, size in enumerate(groups):
        lines.append('      - Sequence:')
        for _ in range(max(size - 1, 0)):
            lines.append('          - Success')
        last = 'x > 0' if index == len(groups) - 1 else 'x < 0'
        lines.append(f'          - Condition: {last}')
    return '\n'.join(lines) + '\n'


def best_of(function: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Return the median seconds of ``number`` calls, over ``repeat`` rounds."""
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        rounds.append((time.perf_counter() - start) / number)
    return statistics.median(rounds)
