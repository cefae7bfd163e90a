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

Two arrangements are measured. ``separate``: one executive process and one sim process
per robot (as ``bt-executive demo --robots N`` starts them). ``shared``: the executives
in ``fleet_executive`` processes, one per core (``shared_process:=true
executive_processes:=K``; ``--executive-processes 1`` puts them all in one process on
one executor), and every sim in one ``sim_robot --robots N`` process
(bt_executive/ros/fleet.py); each step starts them afresh with N robots, and every step
up to the first failing one is measured (the curve of jitter against N). CPU and RSS
per executive are the process's divided by the robots it hosts there.

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
from bt_executive.app.bringup import executive_groups  # noqa: E402, I100

STEPS = (5, 10, 15, 20, 25, 30, 40)
QUICK_STEPS = (2,)
SHARED_STEPS = (10, 20, 30, 40, 50, 60)
QUICK_SHARED_STEPS = (3,)
ARRANGEMENTS = ('separate', 'shared')
WINDOW = 20.0
QUICK_WINDOW = 3.0
SETTLE = 5.0
QUICK_SETTLE = 1.0
LIMIT_MS = 10.0
TARGET_ROBOTS = 30
#: The shared arrangement's fleet_executive processes: one per core, as docs/launch.md
#: advises (``executive_processes:=K``); ``--executive-processes 1`` measures one.
FLEET_PROCESSES = os.cpu_count() or 1
SIM_RATE = 10.0
TICK_RATE = 10.0
#: Start-up is not what is measured: allow slow leaf set-up while many robots start.
START_UP = {'setup_timeout': 60.0}


class Robot:
    """One robot of the fleet: its processes and its executive's ~/status."""

    def __init__(self, bench: BenchNode, processes: Processes, index: int) -> None:
        self.namespace = namespace(index)
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


def namespace(index: int, step: str = '') -> str:
    """Return the namespace of robot ``index`` (unique to this bench run and ``step``)."""
    return f'bench_scale_{os.getpid()}{step}_{index}'


class SharedRobot:
    """One robot of a shared-process fleet: its namespace and its executive's ~/status."""

    def __init__(self, bench: BenchNode, name: str, pids: dict[str, int]) -> None:
        self.namespace = name
        self.status = bench.watch_status(self.namespace)
        self.pids = pids

    @property
    def executive(self) -> str:
        """Return the executive's node name."""
        return f'/{self.namespace}/bt_executive'


def shared_commands(names: list[str],
                    processes: int = 1) -> list[tuple[str, list[str], list[str]]]:
    """Return (name, argv, robots) of the sim fleet and each fleet executive of ``names``.

    The command lines of the separate processes (patrol_commands) turned into the
    fleet's by ``bt-executive demo``'s own rule (``demo.shared_commands``): one sim
    process, the executives split over ``processes`` as ``executive_processes:=K``
    splits them.
    """
    from bt_executive.app import bringup, demo

    launches = {node.name: node for node in bringup.NODES}
    separate = [(launches[name], argv) for name, argv in patrol_commands(
        names[0], tick_mode='periodic', tick_rate=TICK_RATE, sim_params={'rate': SIM_RATE},
        executive_params=START_UP)]
    groups = iter(executive_groups(len(names), processes))
    commands = []
    for launch, argv in demo.shared_commands(separate, names, 0,
                                             executive_groups(len(names), processes)):
        hosted = names if launch.executable == 'sim_robot' else \
            [names[index - 1] for index in next(groups)]
        commands.append((launch.name, argv, hosted))
    return commands


def measure(bench: BenchNode, processes: Processes, robots: list[Any],
            window: float, rng: random.Random) -> dict[str, Any]:
    """Restart every executive's tick timing, run ``window`` seconds, read the timing.

    Restarting the timing restarts the tick timer too; the restarts are spread at random
    over one period each, so the timers keep independent phases as after start-up (a
    shared process keeps each executive's phase). CPU and RSS are per robot: a process
    shared by N robots counts 1/N for each.
    """
    for robot in robots:
        bench.set_parameters(robot.executive, {'tick_rate': TICK_RATE})
        time.sleep(rng.uniform(0.0, 1.0 / TICK_RATE))
    pids = {(name, pid) for robot in robots for name, pid in robot.pids.items()}
    before = {pid: cpu_seconds(pid) for _, pid in pids}
    start = time.monotonic()
    time.sleep(window)
    elapsed = time.monotonic() - start
    cpu = {'bt_executive': 0.0, 'sim_robot': 0.0}
    for name, pid in pids:
        cpu[name] += 100.0 * (cpu_seconds(pid) - before[pid]) / elapsed / len(robots)
    processes.check()
    marker = time.monotonic()
    for robot in robots:  # a status (1 s heartbeat) sent after the window
        bench.wait_for(lambda: (robot.status.received_at or 0.0) > marker, 10.0,
                       f'a status of {robot.executive}', processes)
    jitter = [robot.status.latest['timing']['jitter_ms']['p99'] for robot in robots]
    durations = [robot.status.latest['timing']['duration_ms']['p99'] for robot in robots]
    executives = sorted({pid for name, pid in pids if name == 'bt_executive'})
    share = len(robots) / len(executives)
    return {
        'worst': max(jitter), 'median': statistics.median(jitter),
        'duration': statistics.median(durations),
        'executive_cpu': cpu['bt_executive'], 'sim_cpu': cpu['sim_robot'],
        'rss': [rss_mb(pid) / share for pid in executives],
        'load': os.getloadavg()[0],
    }


def measure_step(bench: BenchNode, processes: Processes, robots: list[Any], count: int,
                 window: float, rng: random.Random) -> dict[str, Any]:
    """Measure one step; a failing step is measured once more and the better one counts."""
    progress(f'scale: N={count}, measuring for {window:.0f} s')
    result = measure(bench, processes, robots, window, rng)
    if result['worst'] >= LIMIT_MS:  # once more: a burst from elsewhere?
        progress(f"scale: N={count}: worst p99 {result['worst']:.1f} ms; measuring once more")
        again = measure(bench, processes, robots, window, rng)
        result = min(result, again, key=lambda r: r['worst'])
    progress(f"scale: N={count}: p99 jitter worst {result['worst']:.1f} ms, "
             f"median {result['median']:.1f} ms; p99 tick duration (median) "
             f"{result['duration']:.1f} ms; CPU per executive "
             f"{result['executive_cpu']:.1f} %, per sim {result['sim_cpu']:.1f} %")
    return result


def wait_ticking(bench: BenchNode, processes: Processes, robots: list[Any],
                 timeout: float) -> None:
    """Wait until every robot's executive has ticked (TimeoutError, RuntimeError if not)."""
    for robot in robots:
        bench.wait_for(lambda: robot.status.latest.get('tick_count', 0) >= 1, timeout,
                       f'{robot.executive} to tick', processes)


def run_separate(bench: BenchNode, steps: tuple[int, ...], window: float, settle: float,
                 rng: random.Random) -> tuple[dict[int, dict[str, Any]], Any]:
    """Add robots (a process each for executive and sim) step by step until one fails."""
    results: dict[int, dict[str, Any]] = {}
    failure: Optional[tuple[int, str]] = None
    with Processes('scale') as processes:
        robots: list[Robot] = []
        for count in steps:
            progress(f'scale: starting robots {len(robots) + 1}..{count}')
            new = [Robot(bench, processes, index) for index in range(len(robots), count)]
            robots.extend(new)
            try:
                wait_ticking(bench, processes, new, 60.0 + 5.0 * len(new))
            except (TimeoutError, RuntimeError) as error:  # did not start (overload)
                failure = (count, str(error).split('\n')[0][:70])
                progress(f'scale: N={count} did not start: {error}')
                break
            time.sleep(settle)  # start-up work winds down (a margin, not a sync)
            results[count] = measure_step(bench, processes, robots, count, window, rng)
            if results[count]['worst'] >= LIMIT_MS:
                break
        progress(f'scale: stopping {len(processes.started)} processes')
        processes.stop(timeout=60.0)
    return results, failure


def run_shared(bench: BenchNode, steps: tuple[int, ...], window: float, settle: float,
               rng: random.Random, fleets: int = 1) -> tuple[dict[int, dict[str, Any]], Any]:
    """Start N robots per step (sims: one process; executives: ``fleets``) until one fails."""
    results: dict[int, dict[str, Any]] = {}
    failure: Optional[tuple[int, str]] = None
    for count in steps:
        progress(f'scale: shared processes with {count} robots')
        with Processes('scale_shared') as processes:
            names = [namespace(index, f'n{count}') for index in range(count)]
            robots = []
            sim = 0
            for number, (name, argv, hosted) in enumerate(shared_commands(names, fleets)):
                pid = processes.spawn(f'{name}_fleet{number}', argv,
                                      early=name == 'bt_executive').pid
                if name == 'sim_robot':
                    sim = pid
                else:
                    robots += [SharedRobot(bench, robot, {'bt_executive': pid,
                                                          'sim_robot': sim})
                               for robot in hosted]
            try:
                wait_ticking(bench, processes, robots, 60.0 + 2.0 * count)
            except (TimeoutError, RuntimeError) as error:
                failure = (count, str(error).split('\n')[0][:70])
                progress(f'scale: N={count} did not start: {error}')
                break
            time.sleep(settle)
            results[count] = measure_step(bench, processes, robots, count, window, rng)
            progress(f'scale: stopping the shared processes of N={count}')
            processes.stop(timeout=60.0)
            if processes.hung:
                failure = (count, f'{processes.hung} did not stop')
                break
        if results[count]['worst'] >= LIMIT_MS:
            break
    return results, failure


def run(quick: bool = False, steps: tuple[int, ...] = (), window: float = 0.0,
        arrangements: tuple[str, ...] = ARRANGEMENTS,
        fleets: int = FLEET_PROCESSES) -> list[tuple[str, str, str, str]]:
    """Measure each arrangement step by step until the p99 jitter limit breaks; rows."""
    ros_environment()
    window = window or (QUICK_WINDOW if quick else WINDOW)
    settle = QUICK_SETTLE if quick else SETTLE
    rng = random.Random(11)
    bench = BenchNode('bench_scale')
    rows: list[tuple[str, str, str, str]] = []
    best: dict[str, int] = {}
    try:
        for arrangement in arrangements:
            if arrangement == 'separate':
                chosen = steps or (QUICK_STEPS if quick else STEPS)
                results, failure = run_separate(bench, chosen, window, settle, rng)
            else:
                chosen = steps or (QUICK_SHARED_STEPS if quick else SHARED_STEPS)
                chosen = tuple(count for count in chosen if count >= fleets) or (fleets,)
                results, failure = run_shared(bench, chosen, window, settle, rng, fleets)
            best[arrangement] = max((count for count, result in results.items()
                                     if result['worst'] < LIMIT_MS), default=0)
            rows += table(arrangement, chosen, results, failure, best[arrangement], fleets)
    finally:
        bench.close()
    met = max(best.values(), default=0) >= TARGET_ROBOTS
    rows.append((f'scale goal: >= {TARGET_ROBOTS} robots at {TICK_RATE:.0f} Hz, p99 jitter '
                 f'< {LIMIT_MS:.0f} ms', 'met' if met else 'not met',
                 ', '.join(f'{name} N = {count}' for name, count in best.items()), ''))
    return rows


def table(arrangement: str, steps: tuple[int, ...], results: dict[int, dict[str, Any]],
          failure: Any, best: int, fleets: int = 1) -> list[tuple[str, str, str, str]]:
    """Return the rows of one arrangement: the figure, the curve, CPU and memory."""
    executives = 'all executives in one process' if fleets == 1 else \
        f'the executives in {fleets} processes'
    label = {'separate': 'a process per executive and per sim',
             'shared': f'shared processes: {executives}, all sims in one'}[arrangement]
    rows = [(f'scale ({label}): robots at {TICK_RATE:.0f} Hz with p99 tick jitter < '
             f'{LIMIT_MS:.0f} ms (target >= {TARGET_ROBOTS})',
             f'N = {best}' if best else f'N < {steps[0]}',
             f'target {TARGET_ROBOTS}', ratio(best, TARGET_ROBOTS))]
    for count, result in results.items():
        rows.append((f'  N={count}: p99 jitter, worst / median executive; CPU per '
                     'executive / per sim',
                     f"{result['worst']:.1f} / {result['median']:.1f} ms; "
                     f"{result['executive_cpu']:.1f} / {result['sim_cpu']:.1f} %",
                     f'limit {LIMIT_MS:.0f} ms', ratio(result['worst'], LIMIT_MS)))
    if failure:
        rows.append((f'  stopped: N={failure[0]} did not start', failure[1], '', ''))
    if results:
        last = max(results)
        result = results[last]
        rows.append((f'  N={last}: load average', f"{result['load']:.1f}", '', ''))
        rows.append((f'  memory: RSS per executive at N={last}, median (max)',
                     f"{statistics.median(result['rss']):.0f} "
                     f"({max(result['rss']):.0f}) MiB", '', ''))
    return rows


def _arguments(argv: list[str]) -> dict[str, Any]:
    """Read the command line's options.

    ``--quick``, ``--shared``/``--separate``, ``--steps 10,20,30``, ``--window S``,
    ``--executive-processes K``.
    """
    options: dict[str, Any] = {'quick': '--quick' in argv}
    chosen = tuple(name for name in ARRANGEMENTS if f'--{name}' in argv)
    if chosen:
        options['arrangements'] = chosen
    if '--steps' in argv:
        options['steps'] = tuple(int(n) for n in argv[argv.index('--steps') + 1].split(','))
    if '--window' in argv:
        options['window'] = float(argv[argv.index('--window') + 1])
    if '--executive-processes' in argv:
        options['fleets'] = int(argv[argv.index('--executive-processes') + 1])
    return options


if __name__ == '__main__':
    for row in run(**_arguments(sys.argv[1:])):
        print(' | '.join(row))
