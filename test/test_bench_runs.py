# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""bench/run.py --runs N: the rows of several runs side by side, goals counted per run.

The table of runs is how BENCHMARKS.md shows the day's spread; these tests pin how rows
are matched across runs (repeated metrics, rows only some runs reached) and what the
"goal met in" column counts. The real suite runs in test/ros/test_bench_smoke.py.
"""

import os
import pathlib
import signal
import subprocess
import sys

from helpers import wait_for
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / 'bench'
sys.path.insert(0, str(BENCH))

import run  # noqa: E402


def rows_of(table: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split(' | ')] for line in table.split('\n')[2:]]


def test_rows_are_matched_by_metric_and_repeats_by_their_place():
    first = [('idle, event', '0.3 % of a core', 'periodic 0.6 %', '0.46x'),
             ('  ticks per second', '1.0', '10.0', '0.10x'),
             ('idle, demo', '1.5 % of a core', 'periodic 3.0 %', '0.50x'),
             ('  ticks per second', '2.0', '50.0', '0.04x')]
    second = [('idle, event', '0.4 % of a core', 'periodic 0.6 %', '0.60x'),
              ('  ticks per second', '1.1', '10.0', '0.11x'),
              ('idle, demo', '1.6 % of a core', 'periodic 3.1 %', '0.52x'),
              ('  ticks per second', '2.1', '50.0', '0.05x')]
    table = run.format_spread([first, second])
    assert [cell.strip() for cell in table.split('\n')[0].split(' | ')][:3] == [
        'metric', 'run 1', 'run 2']
    rows = rows_of(table)
    assert [row[0] for row in rows] == ['idle, event', 'ticks per second', 'idle, demo',
                                        'ticks per second']
    assert rows[1][1:3] == ['1.0 (0.10x)', '1.1 (0.11x)']
    assert rows[3][1:3] == ['2.0 (0.04x)', '2.1 (0.05x)']


def test_a_row_only_some_runs_reached_is_placed_after_its_neighbour_and_dashed():
    first = [('scale', 'N = 30', 'target 30', '1.00x'),
             ('  N=30: p99 jitter', '6.2 ms', 'limit 10 ms', '0.62x'),
             ('  N=40: p99 jitter', '15.5 ms', 'limit 10 ms', '1.55x'),
             ('scale goal', 'met', 'N = 30', '')]
    second = [('scale', 'N < 30', 'target 30', '0.83x'),
              ('  N=25: p99 jitter', '4.0 ms', 'limit 10 ms', '0.40x'),
              ('  N=30: p99 jitter', '11.0 ms', 'limit 10 ms', '1.10x'),
              ('scale goal', 'not met', 'N = 25', '')]
    rows = rows_of(run.format_spread([first, second]))
    assert [row[0] for row in rows] == ['scale', 'N=25: p99 jitter', 'N=30: p99 jitter',
                                        'N=40: p99 jitter', 'scale goal']
    assert rows[1][1:3] == ['-', '4.0 ms (0.40x)']
    assert rows[3][1:3] == ['15.5 ms (1.55x)', '-']
    assert rows[4][1:] == ['met (N = 30)', 'not met (N = 25)', '1 of 2']


def test_goal_met_in_counts_verdicts_in_either_place():
    runs = [[('goal: tick <= 1.02x', '1.009x', 'goal 1.02x', 'met'),
             ('  p99.9 <= floor + 1 ms', 'met', '3.1 vs 2.4 + 1 ms', '')],
            [('goal: tick <= 1.02x', '1.030x', 'goal 1.02x', 'not met'),
             ('  p99.9 <= floor + 1 ms', 'not met', '4.6 vs 3.3 + 1 ms', '')],
            [('goal: tick <= 1.02x', '1.010x', 'goal 1.02x', 'met'),
             ('  p99.9 <= floor + 1 ms', 'met', '3.0 vs 2.5 + 1 ms', '')]]
    rows = rows_of(run.format_spread(runs))
    assert rows[0][1:] == ['1.009x (met)', '1.030x (not met)', '1.010x (met)', '2 of 3']
    assert rows[1][1:] == ['met (3.1 vs 2.4 + 1 ms)', 'not met (4.6 vs 3.3 + 1 ms)',
                           'met (3.0 vs 2.5 + 1 ms)', '2 of 3']


def test_a_control_row_is_counted_apart_from_the_goals():
    runs = [[('  control: p99.9 <= floor p99.9 + 1 ms', verdict, f'{figure} vs 2.0 + 1 ms', '')]
            for verdict, figure in (('within', '2.9'), ('beyond', '3.4'), ('within', '2.2'))]
    rows = rows_of(run.format_spread(runs))
    assert rows[0][1:] == ['within (2.9 vs 2.0 + 1 ms)', 'beyond (3.4 vs 2.0 + 1 ms)',
                           'within (2.2 vs 2.0 + 1 ms)', 'control: within in 2 of 3']


def test_markdown_marks_indented_rows_and_has_a_column_per_run():
    table = run.format_spread([[('a', '1', '', '')], [('a', '2', '', '')],
                               [('a', '3', '', '')]], markdown=True).split('\n')
    assert table[0] == '| metric | run 1 | run 2 | run 3 | goal met in |'
    assert table[1] == '|---|---|---|---|---|'
    assert table[2] == '| a | 1 | 2 | 3 |  |'


def test_parse_runs_takes_the_option_out_and_rejects_bad_values():
    assert run.parse_runs(['--quick', '--runs', '3', 'bench_tick']) == (
        3, ['--quick', 'bench_tick'])
    assert run.parse_runs(['--runs=2']) == (2, [])
    assert run.parse_runs(['bench_tick']) == (1, ['bench_tick'])
    for bad in (['--runs'], ['--runs', '0'], ['--runs', 'x'], ['--runs=-1']):
        assert run.parse_runs(bad)[0] is None, bad


def test_a_bad_runs_value_is_a_usage_error_before_anything_runs():
    process = subprocess.run([sys.executable, str(BENCH / 'run.py'), '--runs', 'three'],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ))
    assert process.returncode == 2
    assert '--runs takes a whole number' in process.stderr
    assert 'running' not in process.stderr and process.stdout == ''


def test_two_quick_runs_print_the_last_table_then_both_side_by_side():
    process = subprocess.run([sys.executable, str(BENCH / 'run.py'), '--quick', '--markdown',
                              '--runs', '2', 'bench_build'],
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ))
    assert process.returncode == 0, process.stderr
    assert 'bench_build (run 2 of 2)' in process.stderr
    out = process.stdout
    assert out.startswith('Run on '), out
    assert ', 2 runs, load average ' in out.split('\n')[0]
    assert '| metric | ours | reference | ratio |' in out
    assert '| metric | run 1 | run 2 | goal met in |' in out
    side = out.split('| metric | run 1 | run 2 | goal met in |')[1]
    assert '| load+build 1000-node flat tree | ' in side, out


def test_a_benchmark_that_fails_is_a_row_and_the_suite_goes_on(tmp_path):
    # a module that raises stands in for a benchmark whose start-up timed out
    (tmp_path / 'sitecustomize.py').write_text(
        'import sys, types\n'
        "module = types.ModuleType('bench_tick')\n"
        'def run(quick=False):\n'
        "    raise TimeoutError('timed out after 60 s waiting for | a reactor')\n"
        'module.run = run\n'
        "sys.modules['bench_tick'] = module\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    process = subprocess.run([sys.executable, str(BENCH / 'run.py'), '--quick', '--runs',
                              '2', 'bench_tick', 'bench_build'],
                             capture_output=True, text=True, timeout=120, env=env)
    assert process.returncode == 1, process.stderr
    assert 'bench_tick FAILED' in process.stderr and 'bench_build (run 2 of 2)' in process.stderr
    assert '2 benchmark runs failed' in process.stderr
    side = process.stdout.split('side by side')[1]
    failed = next(row for row in rows_of(side.strip()) if row[0] == 'bench_tick: FAILED')
    assert failed[1] == failed[2] == 'TimeoutError: timed out after 60 s waiting for / a reactor'
    assert any(row[0] == 'load+build 1000-node flat tree' and row[2] != '-'
               for row in rows_of(side.strip()))


def fake_benchmark(directory: pathlib.Path, name: str, body: str) -> None:
    """Make ``name`` a module whose ``run`` executes ``body``.

    In every Python started with ``PYTHONPATH=directory``: the benchmark children of run.py.
    """
    (directory / 'sitecustomize.py').write_text(
        'import sys, types\n'
        f'module = types.ModuleType({name!r})\n'
        'def run(quick=False):\n'
        + ''.join(f'    {line}\n' for line in body.strip().split('\n')) +
        'module.run = run\n'
        f'sys.modules[{name!r}] = module\n')


def wait_for_file(path: pathlib.Path, timeout: float = 30.0) -> str:
    return wait_for(lambda: path.exists() and path.read_text().endswith('\n')
                    and path.read_text(), timeout, f'{path} to be written', interval=0.05)


def test_a_benchmark_hung_in_c_code_is_ended_with_what_it_started(tmp_path, monkeypatch):
    # as in the Fast DDS deadlock: the module's main thread blocks in C code holding the
    # GIL (no signal handler of its own can run), a process it started in its own session
    pids = tmp_path / 'pids'
    fake_benchmark(tmp_path, 'bench_idle', f"""
import ctypes, os, subprocess
sleeper = subprocess.Popen(['sleep', '600'], start_new_session=True)
open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{sleeper.pid}}\\n')
ctypes.PyDLL(None).sleep(600)
""")
    monkeypatch.setenv('PYTHONPATH', str(tmp_path))
    failure = None
    try:
        run.run_isolated('bench_idle', quick=True, timeout=5.0)
    except run.BenchmarkFailed as error:
        failure = error
    assert failure is not None, 'a hung benchmark returned rows'
    assert 'hung: no result after 5 s' in str(failure)
    child, sleeper = (int(pid) for pid in wait_for_file(pids, 1.0).split())
    assert not run.alive(child), 'the hung benchmark process is still running'
    assert not run.alive(sleeper), 'a process the hung benchmark started is still running'
    assert run.failed_row('bench_idle', failure)[1].startswith('hung: no result')


def test_a_benchmark_that_exits_without_a_result_is_a_failure(tmp_path, monkeypatch):
    fake_benchmark(tmp_path, 'bench_idle', 'import os\nos._exit(3)')
    monkeypatch.setenv('PYTHONPATH', str(tmp_path))
    try:
        run.run_isolated('bench_idle', quick=True, timeout=60.0)
    except run.BenchmarkFailed as error:
        assert str(error) == 'its process exited with status 3 and no result'
    else:
        raise AssertionError('a benchmark that died returned rows')


@pytest.mark.parametrize('sigint', [signal.SIG_DFL, signal.SIG_IGN],
                         ids=['foreground', 'background'])
def test_sigterm_to_the_suite_stops_the_running_benchmark(tmp_path, sigint):
    # started in the background (``make bench &``) the suite and its children inherit
    # SIGINT ignored; the benchmark must stop at once all the same, not after the grace
    pids = tmp_path / 'pids'
    fake_benchmark(tmp_path, 'bench_idle', f"""
import os, time
open({str(pids)!r}, 'w').write(f'{{os.getpid()}}\\n')
time.sleep(600)
""")
    suite = subprocess.Popen([sys.executable, str(BENCH / 'run.py'), 'bench_idle'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))
    try:
        child = int(wait_for_file(pids))
        suite.send_signal(signal.SIGTERM)
        try:
            _, stderr = suite.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            raise AssertionError('the suite did not stop within 30 s of SIGTERM: its '
                                 'benchmark ignored the stop') from None
    finally:
        if suite.poll() is None:
            suite.kill()
    assert suite.returncode == 130, stderr
    assert 'bench: interrupted during bench_idle; no table' in stderr
    assert not run.alive(child), f'the benchmark process outlived the suite:\n{stderr}'
