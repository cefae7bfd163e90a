#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Where the suite's CPU goes: a summary of a ``BT_TEST_CPU=FOLDER make test`` run.

    BT_TEST_CPU=/tmp/cpu make test
    python3 tools/test_cpu.py /tmp/cpu [--top 40]

Prints the total, then the files and the tests that took the most CPU (the test process
plus the child processes it waited for). On a machine with N cores, ``make test`` cannot
take less wall time than total CPU / N.
"""

import argparse
import collections
import json
import pathlib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('folder', type=pathlib.Path)
    parser.add_argument('--top', type=int, default=40)
    args = parser.parse_args()
    rows = [json.loads(line) for path in sorted(args.folder.glob('*.jsonl'))
            for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        raise SystemExit(f'{args.folder}: no *.jsonl lines (was BT_TEST_CPU set?)')
    for row in rows:
        row['total'] = row['cpu'] + row['children']
    total = sum(row['total'] for row in rows)
    print(f'{len(rows)} tests, {total:.0f} s CPU ({sum(r["cpu"] for r in rows):.0f} s in '
          f'the test processes, {sum(r["children"] for r in rows):.0f} s in their '
          f'children), {sum(r["wall"] for r in rows):.0f} s wall summed over workers')
    files: dict[str, float] = collections.Counter()
    for row in rows:
        files[row['test'].split('::')[0]] += row['total']
    print(f'\nfiles by CPU (top {args.top}):')
    for name, seconds in sorted(files.items(), key=lambda item: -item[1])[:args.top]:
        print(f'{seconds:8.1f} s {100 * seconds / total:5.1f} %  {name}')
    print(f'\ntests by CPU (top {args.top}):')
    for row in sorted(rows, key=lambda r: -r['total'])[:args.top]:
        print(f'{row["total"]:8.1f} s (wall {row["wall"]:6.1f} s)  {row["test"]}')


if __name__ == '__main__':
    main()
