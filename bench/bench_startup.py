# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: start-up (process start to first tick), import time and memory.

Start-up: the executive runs the patrol (config/patrol.yaml with config/executive.yaml,
event mode, wall-clock time, no sim: nothing is waited for before the first tick) as a
fresh process, several times one after the other. Its latched ~/status reports
``startup``: seconds from process start (``/proc/self/stat``) to the end of its imports
and to its first tick; the median is shown. Also shown: how long until another node sees
that first status (process spawn, start-up and DDS discovery), and the CPU the process
used by then: as the programs run (numpy's OpenBLAS kept to one thread, ros/blas.py),
and again with ``OPENBLAS_NUM_THREADS`` set to numpy's default, a thread per core.

Imports: ``import bt_executive.ros.executive`` timed inside a fresh interpreter, against
importing only its third-party dependencies (rclpy, py_trees and the message packages).

Memory: resident set size (``VmRSS``) of the patrol executive after its first tick,
against a process holding one bare rclpy node; issue 18's goal is at most 70 MiB. RSS
counts every page the process maps, shared libraries too; the detail row shows USS (its
private pages: what stopping it frees) and PSS (shared pages divided among their users).
The last row is what a deep writer history keeps of large messages it no longer holds,
with the executive's Fast DDS profile against rmw_fastrtps' own policy
(bench/history_memory.py; the cause of the long-run creep in RELIABILITY.md).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bt_executive.ros.blas import BLAS_THREADS  # noqa: E402
from common import (BenchNode, cpu_seconds, patrol_commands,  # noqa: E402, I100
                    private_memory_mb, Processes, progress, ratio, ros_environment, rss_mb)

RUNS = 5
QUICK_RUNS = 1
TARGET_AFTER_IMPORTS = 1.0
#: Issue 18: the RSS of one executive (MiB) at most.
GOAL_RSS = 70.0
STARTUP_TIMEOUT = 60.0
#: Seconds the patrol drives (executive + sim) before the executive's RSS is read again.
PATROL_SECONDS = 30.0
QUICK_PATROL_SECONDS = 5.0

#: As a program imports it (bt_executive/app/programs.py: the deferrals first).
IMPORT_OURS = ('from bt_executive.ros.memory import defer_for_programs\n'
               'defer_for_programs()\n'
               'import bt_executive.ros.executive')
IMPORT_DEPENDENCIES = ('import rclpy, rclpy.action, rclpy.node, py_trees, yaml\n'
                       'from std_msgs.msg import String\n'
                       'from std_srvs.srv import Trigger\n'
                       'from rcl_interfaces.msg import ParameterDescriptor')
TIMED = 'import time\nstart = time.perf_counter()\n{body}\nprint(time.perf_counter() - start)'

#: A process holding one bare rclpy node, for 60 s or until SIGINT. The SIGINT ends it
#: either way rclpy passes it on: as a KeyboardInterrupt, or, where the process started
#: with SIGINT ignored (a background job of a script, ``nohup``), only by shutting the
#: context down, which ``rclpy.ok()`` reads between short sleeps (waiting for the
#: KeyboardInterrupt alone, such a node ignored the SIGINT and was killed 30 s later).
BARE_NODE = """\
import rclpy, time
rclpy.init()
node = rclpy.create_node('bench_bare_node')
try:  # READY inside: the SIGINT may come before the print returns
    print('READY', flush=True)
    for _ in range(600):
        if not rclpy.ok():
            break
        time.sleep(0.1)
except KeyboardInterrupt:
    pass
"""


#: The same bare node with the deferrals bt_executive's programs make (ros/memory.py).
BARE_NODE_DEFERRED = ('from bt_executive.ros.memory import defer_for_programs\n'
                      'defer_for_programs()\n' + BARE_NODE)


def import_seconds(body: str) -> float:
    """Return the seconds ``body`` takes to run in a fresh interpreter."""
    output = subprocess.run([sys.executable, '-c', TIMED.format(body=body)], check=True,
                            capture_output=True, text=True, timeout=120).stdout
    return float(output.strip().splitlines()[-1])


def bare_node_memory(body: str = BARE_NODE) -> tuple[float, float, float]:
    """Return the RSS, USS and PSS (MiB) of a process holding one bare rclpy node."""
    with Processes('bare_node') as processes:
        process = subprocess.Popen([sys.executable, '-c', body], stdout=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        processes.started.append(('bare_node', process))
        line = process.stdout.readline()
        if b'READY' not in line:
            raise RuntimeError('the bare rclpy node did not start')
        time.sleep(1.0)  # DDS threads and discovery buffers settle (a margin, not a sync)
        return (rss_mb(process.pid), *private_memory_mb(process.pid))


def run(quick: bool = False) -> list[tuple[str, str, str, str]]:
    """Measure start-up, imports and memory; return table rows."""
    ros_environment()
    runs = QUICK_RUNS if quick else RUNS
    first_tick, imports, seen, rss, private = [], [], [], [], []
    cpu: dict[str, list[float]] = {'one': [], 'default': []}
    bench = BenchNode('bench_startup')
    try:
        # the programs' own choice (the variable unset), then numpy's default, alternated
        blas = {'one': {BLAS_THREADS: None},
                'default': {BLAS_THREADS: str(os.cpu_count() or 1)}}
        for number, variant in enumerate(['one', 'default'] * runs):
            progress(f'start-up: run {number + 1}/{2 * runs}')
            namespace = f'bench_startup_{os.getpid()}_{number}'
            status = bench.watch_status(namespace)
            with Processes('startup') as processes:
                (name, argv), = patrol_commands(namespace, tick_mode='event', sim=False)
                spawned = time.monotonic()
                process = processes.spawn(name, argv, env=blas[variant])
                bench.wait_for(
                    lambda: (status.latest.get('startup') or {}).get('first_tick_s'),
                    STARTUP_TIMEOUT, 'the first tick of the patrol executive', processes)
                cpu[variant].append(cpu_seconds(process.pid))
                if variant != 'one':
                    continue
                seen.append(status.first_at - spawned)
                startup = status.latest['startup']
                first_tick.append(startup['first_tick_s'])
                imports.append(startup['imports_s'])
                rss.append(rss_mb(process.pid))
                private.append(private_memory_mb(process.pid))
        progress('start-up: import times')
        ours = statistics.median(import_seconds(IMPORT_OURS) for _ in range(runs))
        dependencies = statistics.median(import_seconds(IMPORT_DEPENDENCIES)
                                         for _ in range(runs))
        bare, bare_uss, bare_pss = bare_node_memory()
        bare_deferred = bare_node_memory(BARE_NODE_DEFERRED)[0]
        kept, kept_plain = history_memory('profile'), history_memory('plain')
        progress('start-up: the patrol with its sim, memory while driving')
        patrolling = patrol_memory(bench, QUICK_PATROL_SECONDS if quick else PATROL_SECONDS)
    finally:
        bench.close()
    patrol_seconds = QUICK_PATROL_SECONDS if quick else PATROL_SECONDS
    first, imported = statistics.median(first_tick), statistics.median(imports)
    after = statistics.median(f - i for f, i in zip(first_tick, imports))
    uss = statistics.median(u for u, _ in private)
    pss = statistics.median(p for _, p in private)
    return [
        (f'start-up: process start -> first tick, patrol (median of {runs})',
         f'{first:.2f} s', '', ''),
        ('  process start -> end of imports', f'{imported:.2f} s', '', ''),
        ('  end of imports -> first tick', f'{after:.2f} s',
         f'target {TARGET_AFTER_IMPORTS:.1f} s', ratio(after, TARGET_AFTER_IMPORTS)),
        ('  spawn -> first ~/status seen by another node',
         f'{statistics.median(seen):.2f} s', '', ''),
        ("  CPU by the first status; numpy's OpenBLAS: one thread (ros/blas.py) / "
         'its default, a thread per core', f'{statistics.median(cpu["one"]):.2f} s',
         f'default {statistics.median(cpu["default"]):.2f} s',
         ratio(statistics.median(cpu['one']), statistics.median(cpu['default']))),
        ('import bt_executive.ros.executive (fresh interpreter)', f'{ours:.2f} s',
         f'its dependencies {dependencies:.2f} s', ratio(ours, dependencies)),
        ('memory: RSS of the patrol executive after its first tick',
         f'{statistics.median(rss):.0f} MiB', f'bare rclpy node {bare:.0f} MiB',
         ratio(statistics.median(rss), bare)),
        ("  same, the bare node with the deferrals of bt_executive's programs",
         f'{statistics.median(rss):.0f} MiB', f'bare rclpy node {bare_deferred:.0f} MiB',
         ratio(statistics.median(rss), bare_deferred)),
        (f'  RSS after {patrol_seconds:.0f} s of patrol with the sim (driving, docking)',
         f'{patrolling:.0f} MiB', f'bare rclpy node {bare:.0f} MiB', ratio(patrolling, bare)),
        ('  USS / PSS (private pages / shared ones divided among their users)',
         f'{uss:.0f} / {pss:.0f} MiB', f'bare rclpy node {bare_uss:.0f} / {bare_pss:.0f} MiB',
         ratio(uss, bare_uss)),
        (f'  goal (issue 18): RSS per executive <= {GOAL_RSS:.0f} MiB; runs min-max, '
         'and while patrolling',
         f'{min(rss):.0f}-{max(rss):.0f} / {patrolling:.0f} MiB', f'goal {GOAL_RSS:.0f} MiB',
         'met' if max(statistics.median(rss), patrolling) <= GOAL_RSS else 'not met'),
        ('memory a depth-100 history keeps after 100 messages of 200 kB, then 100 small '
         "(bench/history_memory.py), with bt_executive's Fast DDS profile",
         f'{kept:.1f} MiB', f'rmw_fastrtps default {kept_plain:.1f} MiB',
         ratio(kept, kept_plain)),
    ]


def history_memory(variant: str) -> float:
    """Run bench/history_memory.py (``plain`` or ``profile``); return the MiB it kept."""
    output = subprocess.run([sys.executable, os.path.join(HERE, 'history_memory.py'),
                             variant], check=True, capture_output=True, text=True,
                            timeout=120).stdout
    return float(output.strip().splitlines()[-1])


def patrol_memory(bench: BenchNode, seconds: float) -> float:
    """Return the executive's RSS (MiB) after ``seconds`` of the patrol with its sim.

    Both run as ``bt-executive demo`` runs them, on wall-clock time: the robot drives its
    waypoints (navigation goals, GoalStatus messages, feedback), so what a run loads only
    once it moves is counted.
    """
    namespace = f'bench_startup_patrol_{os.getpid()}'
    status = bench.watch_status(namespace)
    with Processes('patrol_memory') as processes:
        started = {}
        for name, argv in patrol_commands(namespace, tick_mode='event', sim=True):
            started[name] = processes.spawn(name, argv, early=name == 'bt_executive')
        bench.wait_for(lambda: (status.latest.get('startup') or {}).get('first_tick_s'),
                       STARTUP_TIMEOUT, 'the first tick of the patrol executive', processes)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:  # the run itself, not a wait for an event
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            if any(process.poll() is not None for process in started.values()):
                raise RuntimeError('a patrol process exited while driving '
                                   f'(logs: {processes.logs})')
        return rss_mb(started['bt_executive'].pid)


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
