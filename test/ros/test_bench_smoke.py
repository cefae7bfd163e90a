# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Smoke test of the benchmark suite's multi-process parts (bench/run.py --quick).

Runs each of the latency, real-time, idle, start-up, scale and goal-storm benchmarks once
with its quick (tiny) durations as a real ``bench/run.py`` process (one test each, so that
parallel test workers share them out), which starts real executives, sims, a reflex peer and
failing servers, and checks the table it prints: the header, one row per expected
metric, four cells per row, and figures that parse. Timings are not asserted
(the machine is shared); only that each benchmark produced a measurement.
"""

import os
import pathlib
import re
import signal
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

BENCH = pathlib.Path(__file__).resolve().parents[2] / 'bench'
TIMEOUT = 150.0

#: benchmark -> {metric prefix -> pattern the 'ours' cell must match}
EXPECTED = {
    'bench_latency': {
        'reaction latency p50 / p99, periodic 10 Hz': r'[\d.]+ / [\d.]+ ms',
        'reaction latency p50 / p99 / p99.9, quiet': r'',
        'reaction latency p50 / p99 / p99.9, CPU-bound neighbour': r'',
        '  floor: plain rclpy reflex': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '  event, heartbeat 1 s': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '  event, heartbeat 10 s': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '    event, heartbeat 1 s: p99 <= floor p99 + 1 ms': r'(not )?met',
        '    event, heartbeat 1 s: p99.9 <= floor p99.9 + 1 ms': r'(not )?met',
        '    event, heartbeat 10 s: p99 <= floor p99 + 1 ms': r'(not )?met',
        '    event, heartbeat 10 s: p99.9 <= floor p99.9 + 1 ms': r'(not )?met',
    },
    'bench_idle': {
        'idle CPU, parked patrol executive, event (target': r'[\d.]+ % of a core',
        'idle CPU, parked patrol executive, event, battery steady': r'[\d.]+ % of a core',
        'idle CPU, parked patrol executive, demo config, event': r'[\d.]+ % of a core',
        '  ticks per second': r'[\d.]+',
        '  floor: bare rclpy node on the same topics': r'[\d.]+ % of a core',
    },
    'bench_startup': {
        'start-up: process start -> first tick': r'[\d.]+ s',
        '  end of imports -> first tick': r'[\d.]+ s',
        'import bt_executive.ros.executive': r'[\d.]+ s',
        "  CPU by the first status; numpy's OpenBLAS": r'[\d.]+ s',
        'memory: RSS of the patrol executive': r'\d+ MiB',
    },
    'bench_scale': {
        'scale (a process per executive and per sim): robots at 10 Hz': r'N [=<] \d+',
        '  N=2: p99 jitter, worst / median executive':
            r'[\d.]+ / [\d.]+ ms; [\d.]+ / [\d.]+ %',
        '  memory: RSS per executive at N=2': r'\d+ \(\d+\) MiB',
        'scale (shared processes: ': r'N [=<] \d+',
        '  N=3: p99 jitter, worst / median executive':
            r'[\d.]+ / [\d.]+ ms; [\d.]+ / [\d.]+ %',
        '  memory: RSS per executive at N=3': r'\d+ \(\d+\) MiB',
        'scale goal: >= 30 robots': r'met|not met',
    },
    'bench_realtime': {
        'real-time mode: classes in effect (spinning thread)':
            r'executive, mode off: normal; executive, real-time mode: .+; measuring side: .+',
        'real-time reaction latency p50 / p99 / p99.9, quiet': r'',
        'real-time reaction latency p50 / p99 / p99.9, 1 busy neighbour': r'',
        'real-time reaction latency p50 / p99 / p99.9, 2 busy neighbours': r'',
        '  floor: plain rclpy reflex': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '  executive, mode off': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '  floor, same class as the mode': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '  executive, real-time mode': r'[\d.]+ / [\d.]+ / [\d.]+ ms',
        '    real-time mode: p99 <= same-class floor p99 + 1 ms': r'met|not met|within|beyond',
        '    real-time mode: p99.9 <= same-class floor p99.9 + 1 ms':
            r'met|not met|within|beyond',
    },
    'bench_storm': {
        'goal storm: goals/s at steady failure, Action (server rejects)': r'[\d.]+ /s',
        '  Service (response fails)': r'[\d.]+ /s',
    },
}


def run_quick(name: str) -> tuple[str, str]:
    """Run ``bench/run.py --quick NAME``; return its stdout and stderr.

    On a timeout the suite gets SIGINT, so it stops every process it started.
    """
    process = subprocess.Popen([sys.executable, str(BENCH / 'run.py'), '--quick', name],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60.0)
        pytest.fail(f'the quick {name} did not finish within {TIMEOUT:.0f} s; stderr:\n'
                    f'{stderr}\nstdout:\n{stdout}')
    assert process.returncode == 0, f'bench/run.py exited {process.returncode}:\n{stderr}'
    return stdout, stderr


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_each_quick_benchmark_prints_its_rows_of_the_table(name):
    """One test per multi-process benchmark, so parallel workers share them out."""
    stdout, stderr = run_quick(name)
    lines = stdout.rstrip('\n').split('\n')
    header = [cell.strip() for cell in lines[0].split(' | ')]
    assert header == ['metric', 'ours', 'reference', 'ratio'], stdout
    assert set(lines[1]) <= {'-', '+'}, stdout
    rows = [[cell.strip() for cell in line.split(' | ')] for line in lines[2:]]
    assert rows and all(len(row) == 4 for row in rows), stdout
    cells = {line.split(' | ')[0].rstrip(): line.split(' | ') for line in lines[2:]}
    for prefix, pattern in EXPECTED[name].items():
        matching = [metric for metric in cells if metric.startswith(prefix)]
        assert matching, f'no row {prefix!r} in:\n{stdout}\nstderr:\n{stderr}'
        ours = cells[matching[0]][1].strip()
        assert re.fullmatch(pattern, ours), f'{matching[0]!r}: {ours!r} in:\n{stdout}'
    ratios = [row[3] for row in rows if row[3]]
    verdict = r'[\d.]+x|-|met|not met'  # a ratio, or a goal row's verdict
    assert ratios and all(re.fullmatch(verdict, value) for value in ratios), stdout
    # the benchmark reported progress and its duration on stderr, not in the table
    assert f'{name} took' in stderr, stderr
    assert 'running' not in stdout
    assert 'did not stop' not in stderr, stderr  # every process it started ended on SIGINT


@pytest.mark.parametrize('disposition', [signal.SIG_DFL, signal.SIG_IGN],
                         ids=['sigint-default', 'sigint-ignored-at-start'])
def test_the_bare_node_of_the_memory_reference_ends_on_sigint(disposition):
    """bench_startup's bare rclpy node stops at a SIGINT, also when started with it ignored.

    A process started with SIGINT ignored (``nohup``, a background job of a script) gets
    no KeyboardInterrupt from rclpy's handler, only a context shut down.
    """
    sys.path.insert(0, str(BENCH))
    import bench_startup
    process = subprocess.Popen([sys.executable, '-c', bench_startup.BARE_NODE],
                               stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               env=dict(os.environ), start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, disposition))
    try:
        assert b'READY' in process.stdout.readline()
        process.send_signal(signal.SIGINT)
        try:
            assert process.wait(20.0) == 0
        except subprocess.TimeoutExpired:
            pytest.fail('the bare node was still running 20 s after SIGINT')
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.stdout.close()
