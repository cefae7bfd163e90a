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
    """Return a Selector of Sequences of conditions/leaves with about ``nodes`` nodes."""
    lines = ['blackboard: {x: 1}', 'trees:', '  Main:', '    Selector:']
    count = 1
    while count < nodes:
        lines.append('      - Sequence:')
        count += 1
        for index in range(min(fanout, nodes - count)):
            leaf = 'Condition: x > 0' if index % 3 == 0 else 'Success'
            lines.append(f'          - {leaf}')
            count += 1
    # make every sequence but the last fail so the selector visits all of them
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
