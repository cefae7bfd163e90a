"""Run every benchmark in one process and print one table.

Usage: ``make bench`` (or ``.venv/bin/python bench/run.py [NAME...]``). Every comparison
is measured side by side in this one run; absolute times vary between machines.
"""

from __future__ import annotations

import importlib
import os
import sys

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BENCHMARKS = ['bench_build', 'bench_tick', 'bench_snapshot']


def main(argv: list[str]) -> int:
    """Run the named benchmarks (default: all) and print the table."""
    names = argv or BENCHMARKS
    rows = [('metric', 'ours', 'reference', 'ratio')]
    for name in names:
        module = importlib.import_module(name)
        print(f'running {name} ...', file=sys.stderr, flush=True)
        rows.extend(module.run())
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for index, row in enumerate(rows):
        print(' | '.join(cell.ljust(width) for cell, width in zip(row, widths)))
        if index == 0:
            print('-+-'.join('-' * width for width in widths))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
