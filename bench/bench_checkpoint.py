# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: what persistent blackboard keys cost per tick (docs/resume.md).

Executives tick the same 100-node tree, whose first leaf writes a key every tick, side
by side in one run: without a state file (the reference), with a state file whose
persistent key the tree never writes (the cost of looking at each tick's writes), and
with the written key persistent, checkpointed at the default bound (at most every
0.1 s) and on every tick (``checkpoint_interval: 0``, the worst case). The state file
lives in /var/tmp (a disk here, not tmpfs: the fsync is real). Each round times every
contender once, in an order rotated per round; the ratio is the median of the per-round
ratios. The executive writes the file in a thread of its own (the tick only takes and
encodes the state), so the last rows time one write of the patrol's state and reading
it back at start.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))

from bench_tick import compare  # noqa: E402, I100
from bench_tick import TICKS as TICKS_PER_ROUND  # noqa: E402
from common import ros_context  # noqa: E402

ROUNDS = 31
LEAVES = 98

TREE = """
blackboard: {count: 0, unwritten: 0}
trees:
  Main:
    Sequence:
      memory: false
      children:
        - SetBlackboard: {key: count, value: '${count + 1}'}
""" + ''.join('        - Success\n' for _ in range(LEAVES))


def run(quick: bool = False) -> list[tuple[str, str, str, str]]:
    """Measure the checkpoint's cost per tick; return table rows."""
    from rclpy.parameter import Parameter

    from bt_executive.ros.executive import Executive

    rows = []
    with ros_context() as context, tempfile.TemporaryDirectory(prefix='bt_bench_state_',
                                                               dir='/var/tmp') as directory:
        tree = os.path.join(directory, 'tree.yaml')
        with open(tree, 'w') as stream:
            stream.write(TREE)
        settings = {
            'off': {},
            'unwritten': {'persistent_keys': ['unwritten'], 'checkpoint_interval': 0.0},
            'bounded': {'persistent_keys': ['count']},
            'every': {'persistent_keys': ['count'], 'checkpoint_interval': 0.0},
        }
        executives = {}
        for name, values in settings.items():
            overrides = [Parameter('tree_file', value=tree),
                         Parameter('tick_mode', value='periodic'),
                         Parameter('tick_rate', value=0.1)]
            if values:
                overrides.append(Parameter('state_file',
                                           value=os.path.join(directory, f'{name}.json')))
            overrides += [Parameter(k, value=v) for k, v in values.items()]
            executives[name] = Executive(context=context, node_name=f'bench_state_{name}',
                                         parameter_overrides=overrides)
        result = compare({name: executive.tick_once for name, executive in executives.items()},
                         'off', rounds=5 if quick else ROUNDS)
        writes = executives['every'].core.checkpointer.writes
        bounded = executives['bounded'].core.checkpointer.writes
        reference = f"no state file {result['off'][0] * 1e6:.0f} us"
        for name, metric in (
                ('off', f'executive tick, {LEAVES + 2}-node tree, no state file'),
                ('unwritten', '  state file, persistent key not written'),
                ('bounded', '  persistent key written every tick, checkpoint_interval 0.1 s'),
                ('every', '  persistent key written every tick, checkpoint_interval 0')):
            seconds, ratio = result[name]
            rows.append((metric, f'{seconds * 1e6:.0f} us', reference, f'{ratio:.3f}x'))
        ticks = (5 if quick else ROUNDS) * TICKS_PER_ROUND + 1
        rows.append(('  state files written (the writer thread; a newer state replaces a '
                     'waiting one)', f'{writes} of {ticks} ticks',
                     f'bounded: {bounded} of {ticks}', ''))
        rows.extend(file_rows(directory))
        for executive in executives.values():
            executive.destroy_node()
    return rows


def file_rows(directory: str) -> list[tuple[str, str, str, str]]:
    """Time one checkpoint of the patrol's state (off the tick) and reading it back."""
    from bt_executive.observe.checkpoint import encode_state, read_state, write_atomically

    values = {'waypoint_index': 2, 'laps': 41, 'lap_reached': 1, 'reached': 166,
              'skipped': 0, 'dockings': 13, 'battery_low': True, 'stranded': False}
    path = os.path.join(directory, 'patrol.json')
    writes = []
    for _ in range(30):
        start = time.perf_counter()
        data = encode_state(values, tree='Patrol', tree_hash='h', tick=9)
        encoded = time.perf_counter()
        write_atomically(path, data)
        writes.append((encoded - start, time.perf_counter() - encoded))
    start = time.perf_counter()
    for _ in range(1000):
        found = read_state(path, tree='Patrol', tree_hash='h', keys=values)
    seconds = (time.perf_counter() - start) / 1000
    assert found.values == values
    encode = statistics.median(e for e, _ in writes)
    write = statistics.median(w for _, w in writes)
    return [("  the patrol's state: encode (in the tick)", f'{encode * 1e6:.0f} us', '', ''),
            ("  the patrol's state: write + fsync + rename (writer thread)",
             f'{write * 1e3:.2f} ms', '', ''),
            ("  restore at start: read and check the patrol's state file",
             f'{seconds * 1e6:.0f} us', '', '')]


if __name__ == '__main__':
    started = time.monotonic()
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
    print(f'({time.monotonic() - started:.1f} s)')
