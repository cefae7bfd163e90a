# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run every benchmark in one process and print one table.

Usage: ``make bench`` (or ``.venv/bin/python bench/run.py [--quick] [--markdown]
[NAME...]``). Every comparison is measured side by side in this one run; absolute times
vary between machines. ``--quick`` shortens everything (fewer rounds, reactions, robots
and shorter windows) for a smoke run whose figures are not meant to be quoted;
``--markdown`` prints the table as in BENCHMARKS.md. Progress goes to stderr, the table
to stdout. BENCHMARKS.md says what each metric means and how it is measured.

Every ROS process keeps DDS discovery on loopback (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST)
and runs in ROS_DOMAIN_ID 73 unless the caller set one.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import ros_environment  # noqa: E402

BENCHMARKS = ['bench_build', 'bench_tick', 'bench_snapshot', 'bench_latency', 'bench_idle',
              'bench_startup', 'bench_scale', 'bench_storm', 'bench_delta']

OPTIONS = ('--quick', '--markdown')

Row = tuple[str, str, str, str]


def run_benchmark(name: str, quick: bool) -> list[Row]:
    """Import benchmark module ``name`` and return its rows (``quick`` where supported)."""
    module = importlib.import_module(name)
    if 'quick' in inspect.signature(module.run).parameters:
        return module.run(quick=quick)
    return module.run()


def format_table(rows: list[Row], markdown: bool = False) -> str:
    """Return the rows as a table under a (metric, ours, reference, ratio) header.

    Text: aligned columns. Markdown (``markdown``): a pipe table as in BENCHMARKS.md,
    indented metrics (the details of the row above) marked with an em space.
    """
    rows = [('metric', 'ours', 'reference', 'ratio'), *rows]
    if markdown:
        lines = []
        for index, row in enumerate(rows):
            metric = row[0].strip()
            if row[0].startswith(' '):
                metric = '&emsp;' + metric
            lines.append('| ' + ' | '.join([metric, *row[1:]]) + ' |')
            if index == 0:
                lines.append('|---|---|---|---|')
        return '\n'.join(lines)
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for index, row in enumerate(rows):
        lines.append(' | '.join(cell.ljust(width) for cell, width in zip(row, widths)))
        if index == 0:
            lines.append('-+-'.join('-' * width for width in widths))
    return '\n'.join(lines)


def main(argv: list[str]) -> int:
    """Run the named benchmarks (default: all) and print the table."""
    quick = '--quick' in argv
    markdown = '--markdown' in argv
    names = [arg for arg in argv if not arg.startswith('--')] or BENCHMARKS
    unknown = [name for name in names if name not in BENCHMARKS]
    unknown += [arg for arg in argv if arg.startswith('--') and arg not in OPTIONS]
    if unknown:
        print(f"unknown {', '.join(unknown)}; usage: run.py [{'] ['.join(OPTIONS)}] "
              f"[NAME...], names: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    ros_environment()
    print(f"bench: ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']}"
          f"{' (quick)' if quick else ''}", file=sys.stderr, flush=True)
    rows: list[Row] = []
    for name in names:
        print(f'running {name} ...', file=sys.stderr, flush=True)
        start = time.monotonic()
        rows.extend(run_benchmark(name, quick))
        print(f'  {name} took {time.monotonic() - start:.0f} s', file=sys.stderr, flush=True)
    print(format_table(rows, markdown), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
