# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: how many robots (executive + sim) one machine runs at 10 Hz, and their memory.

Every robot is the patrol bringup (the sim and the executive on config/patrol.yaml, as
``bt-executive demo`` starts them) in a namespace of its own, ticking periodically at
10 Hz on wall-clock time (no /clock: the sims step in real time, so many can share the
machine). The robots patrol for real: they drive, and dock when the battery runs low.

Robots are added in steps (5, 10, 15, ...; the running ones keep running). At each step,
once every new executive has ticked, the tick timing of every executive is restarted
(setting its ``tick_rate`` parameter to the same 10 Hz starts its statistics afresh, so
start-up load is not counted; the restarts are spaced by random fractions of a period so
the tick timers keep independent phases), the robots run for a window, and each
executive's p99 tick jitter (|interval - 100 ms| over its ticks in the window, from
~/status ``timing``) is read. A step passes when the worst executive's p99 is under
10 ms; a step that fails is measured once more (the machine is shared: a burst of other
work can spoil one window) and the better window counts. The figure is the largest
passing step; the steps stop at the first failing one.

The sims step at 10 Hz (``rate: 10.0``; the demo's 50 Hz physics would spend most of
the machine on the sims, not on what is measured); their battery_state (5 Hz) and
navigation status traffic are as in the demo.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (BenchNode, cpu_seconds, patrol_commands, Processes,  # noqa: E402, I100
                    progress, ratio, ros_environment, rss_mb)

STEPS = (5, 10, 15, 20, 25, 30, 40)
QUICK_STEPS = (2,)
WINDOW = 20.0
QUICK_WINDOW = 3.0
SETTLE = 5.0
QUICK_SETTLE = 1.0
LIMIT_MS = 10.0
TARGET_ROBOTS = 20
SIM_RATE = 10.0
TICK_RATE = 10.0
#: Start-up is not what is measured: allow slow leaf set-up while many robots start.
START_UP = {'setup_timeout': 60.0}


class Robot:
    """One robot of the fleet: its processes and its executive's ~/status."""

    def __init__(self, bench: BenchNode, processes: Processes, index: int) -> None:
        self.namespace = f'bench_scale_{os.getpid()}_{index}'
        self.status = bench.watch_status(self.namespace)
        self.pids: dict[str, int] = {}
        for name, argv in patrol_commands(self.namespace, tick_mode='periodic',
                                          tick_rate=TICK_RATE,
                                          sim_params={'rate': SIM_RATE},
                                          executive_params=START_UP):
            self.pids[name] = processes.spawn(
                f'{name}_{index}', argv, early=name == 'bt_executive').pid

    @property
    def executive(self) -> str:
        """Return the executive's node name."""
        return f'/{self.namespace}/bt_executive'


def measure(bench: BenchNode, processes: Processes, robots: list[Robot],
            window: float, rng: random.Random) -> dict[str, Any]:
    """Restart every executive's tick timing, run ``window`` seconds, read the timing.

    Restarting the timing restarts the tick timer too; the restarts are spread at random
    over one period each, so the timers keep independent phases as after start-up.
    """
    for robot in robots:
        bench.set_parameters(robot.executive, {'tick_rate': TICK_RATE})
        time.sleep(rng.uniform(0.0, 1.0 / TICK_RATE))
    before = [{name: cpu_seconds(pid) for name, pid in robot.pids.items()} for robot in robots]
    start = time.monotonic()
    time.sleep(window)
    elapsed = time.monotonic() - start
    cpu = [{name: 100.0 * (cpu_seconds(pid) - used[name]) / elapsed
            for name, pid in robot.pids.items()} for robot, used in zip(robots, before)]
    processes.check()
    marker = time.monotonic()
    for robot in robots:  # a status (1 s heartbeat) sent after the window
        bench.wait_for(lambda: (robot.status.received_at or 0.0) > marker, 10.0,
                       f'a status of {robot.executive}', processes)
    jitter = [robot.status.latest['timing']['jitter_ms']['p99'] for robot in robots]
    durations = [robot.status.latest['timing']['duration_ms']['p99'] for robot in robots]
    return {
        'worst': max(jitter), 'median': statistics.median(jitter),
        'duration': statistics.median(durations),
        'executive_cpu': statistics.median(c['bt_executive'] for c in cpu),
        'sim_cpu': statistics.median(c['sim_robot'] for c in cpu),
        'rss': [rss_mb(robot.pids['bt_executive']) for robot in robots],
        'load': os.getloadavg()[0],
    }


def run(quick: bool = False, steps: tuple[int, ...] = (), window: float = 0.0
        ) -> list[tuple[str, str, str, str]]:
    """Add robots step by step until the p99 jitter limit breaks; return table rows."""
    ros_environment()
    steps = steps or (QUICK_STEPS if quick else STEPS)
    window = window or (QUICK_WINDOW if quick else WINDOW)
    settle = QUICK_SETTLE if quick else SETTLE
    rng = random.Random(11)
    bench = BenchNode('bench_scale')
    results: dict[int, dict[str, Any]] = {}
    failure: Optional[tuple[int, str]] = None
    try:
        with Processes('scale') as processes:
            robots: list[Robot] = []
            for count in steps:
                progress(f'scale: starting robots {len(robots) + 1}..{count}')
                new = [Robot(bench, processes, index) for index in range(len(robots), count)]
                robots.extend(new)
                try:
                    for robot in new:
                        bench.wait_for(lambda: robot.status.latest.get('tick_count', 0) >= 1,
                                       60.0 + 5.0 * len(new), f'{robot.executive} to tick',
                                       processes)
                except (TimeoutError, RuntimeError) as error:  # did not start (overload)
                    failure = (count, str(error).split('\n')[0][:70])
                    progress(f'scale: N={count} did not start: {error}')
                    break
                time.sleep(settle)  # start-up work winds down (a margin, not a sync)
                progress(f'scale: N={count}, measuring for {window:.0f} s')
                results[count] = measure(bench, processes, robots, window, rng)
                if results[count]['worst'] >= LIMIT_MS:  # once more: a burst from elsewhere?
                    progress(f"scale: N={count}: worst p99 {results[count]['worst']:.1f} ms; "
                             'measuring once more')
                    again = measure(bench, processes, robots, window, rng)
                    results[count] = min(results[count], again, key=lambda r: r['worst'])
                result = results[count]
                progress(f"scale: N={count}: p99 jitter worst {result['worst']:.1f} ms, "
                         f"median {result['median']:.1f} ms; p99 tick duration (median) "
                         f"{result['duration']:.1f} ms; CPU per executive "
                         f"{result['executive_cpu']:.1f} %, per sim {result['sim_cpu']:.1f} %")
                if results[count]['worst'] >= LIMIT_MS:
                    break
            progress(f'scale: stopping {len(processes.started)} processes')
            processes.stop(timeout=60.0)
    finally:
        bench.close()
    passing = [count for count, result in results.items() if result['worst'] < LIMIT_MS]
    best = max(passing, default=0)
    rows = [(f'scale: robots at {TICK_RATE:.0f} Hz with p99 tick jitter < {LIMIT_MS:.0f} ms'
             f' (target >= {TARGET_ROBOTS})',
             f'N = {best}' if best else f'N < {steps[0]}',
             f'target {TARGET_ROBOTS}', ratio(best, TARGET_ROBOTS))]
    for count, result in results.items():
        rows.append((f'  N={count}: p99 jitter, worst / median executive',
                     f"{result['worst']:.1f} / {result['median']:.1f} ms",
                     f'limit {LIMIT_MS:.0f} ms', ratio(result['worst'], LIMIT_MS)))
    if failure:
        rows.append((f'  stopped: N={failure[0]} did not start', failure[1], '', ''))
    if results:
        last = max(results)
        result = results[last]
        rows.append((f'  N={last}: CPU per executive / per sim; load average',
                     f"{result['executive_cpu']:.1f} / {result['sim_cpu']:.1f} %; "
                     f"{result['load']:.1f}", '', ''))
        rows.append((f'memory: RSS per executive at N={last}, median (max)',
                     f"{statistics.median(result['rss']):.0f} "
                     f"({max(result['rss']):.0f}) MiB", '', ''))
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
