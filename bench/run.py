# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run every benchmark, each in a child process of its own, and print one table.

Usage: ``make bench`` (or ``.venv/bin/python bench/run.py [--quick] [--markdown]
[--runs N] [NAME...]``). Every comparison is measured side by side in this one run;
absolute times vary between machines. ``--quick`` shortens everything (fewer rounds,
reactions, robots and shorter windows) for a smoke run whose figures are not meant to be
quoted; ``--markdown`` prints the table as in BENCHMARKS.md, under a line saying when,
at which commit and on what it ran. ``--runs N`` runs the whole selection N times, one
run after the other, and prints the last run's table, then every row over the N runs
side by side (the day's spread) with, for each goal row, in how many runs it was met.
Progress goes to stderr, the tables to stdout. BENCHMARKS.md says what each metric means
and how it is measured.

Each benchmark module runs in a fresh interpreter (``run.py --child NAME RESULT``), so no
DDS participant or thread of an earlier module is left to disturb it, and one that hangs
(a deadlock inside Fast DDS once held a whole ``--runs 3`` for good) is ended after
``MODULE_TIMEOUT``, with the processes it started, and counts as failed.

Every ROS process keeps DDS discovery on loopback (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST)
and runs in ROS_DOMAIN_ID 73 unless the caller set one.
"""

from __future__ import annotations

import compileall
import datetime
import faulthandler
import importlib
import inspect
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import REPO, ros_environment  # noqa: E402

BENCHMARKS = ['bench_build', 'bench_tick', 'bench_snapshot', 'bench_latency', 'bench_idle',
              'bench_startup', 'bench_scale', 'bench_storm', 'bench_delta', 'bench_checkpoint',
              'bench_realtime']

OPTIONS = ('--quick', '--markdown', '--runs')
#: the first argument of a child process that runs one benchmark (``child_main``)
CHILD = '--child'
#: Seconds one benchmark module may run before it counts as hung: a full bench_scale
#: (both arrangements) takes about 25 minutes, the whole suite about 40 (bench_realtime: 10).
MODULE_TIMEOUT = 60 * 60.0

Row = tuple[str, str, str, str]
#: what a goal row says in its last cell (or, for the latency lines, in its 'ours' cell)
VERDICTS = ('met', 'not met')
#: what a control row says: a goal's test applied to the reference against itself
CONTROLS = ('within', 'beyond')


def run_benchmark(name: str, quick: bool) -> list[Row]:
    """Import benchmark module ``name`` and return its rows (``quick`` where supported)."""
    module = importlib.import_module(name)
    if 'quick' in inspect.signature(module.run).parameters:
        return module.run(quick=quick)
    return module.run()


class BenchmarkFailed(Exception):
    """A benchmark's child process raised (the message says what), hung or died."""


def describe_error(error: BaseException) -> str:
    """Return ``error`` as one line: its type and message."""
    return ' '.join(f'{type(error).__name__}: {error}'.split())


def run_isolated(name: str, quick: bool, timeout: Optional[float] = None) -> list[Row]:
    """Run benchmark ``name`` in a child interpreter of its own; return its rows.

    The child shares this process's stdout, stderr and environment (the ROS domain).

    Raises:
        BenchmarkFailed: the benchmark raised, hung past ``timeout`` seconds (default
            ``MODULE_TIMEOUT``; it is ended, with every process it started) or died.
    """
    timeout = MODULE_TIMEOUT if timeout is None else timeout
    with tempfile.TemporaryDirectory(prefix='bt_bench_') as directory:
        result = os.path.join(directory, 'rows.json')
        argv = [sys.executable, os.path.abspath(__file__), CHILD, name, result]
        child = subprocess.Popen(argv + (['--quick'] if quick else []),
                                 stdin=subprocess.DEVNULL)
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            print(f'  {name} hung: no result after {timeout:.0f} s (a deadlock in C code? '
                  'its stacks follow; `py-spy dump --native` shows the C side); ending it',
                  file=sys.stderr, flush=True)
            end_process_tree(child, stacks=True)
            raise BenchmarkFailed(f'hung: no result after {timeout:.0f} s; ended, with '
                                  'the processes it started') from None
        except BaseException:  # Ctrl-C, SIGTERM: the child stops what it started first
            interrupt_child(child)
            raise
        try:
            with open(result, encoding='utf-8') as stream:
                data = json.load(stream)
        except (OSError, ValueError):
            raise BenchmarkFailed(f'its process exited with status {child.returncode} '
                                  'and no result') from None
    if 'error' in data:
        raise BenchmarkFailed(data['error'])
    return [tuple(row) for row in data['rows']]


def child_main(argv: list[str]) -> int:
    """``run.py --child NAME RESULT [--quick]``: run one benchmark, write its rows as JSON.

    RESULT gets ``{"rows": [...]}`` or ``{"error": "Type: message"}`` (the traceback goes
    to stderr); nothing if the child is interrupted.
    """
    name, result = argv[0], argv[1]
    # a suite started in the background (``make bench &``, ``nohup``) hands its children
    # SIGINT ignored: the suite's interrupt_child() must still reach this one
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminated)
    # SIGUSR1 prints every thread's stack to stderr, from C, so also when the main thread
    # is stuck in C code (the parent sends it before it interrupts or ends a child)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    ros_environment()
    try:
        data, status = {'rows': run_benchmark(name, '--quick' in argv)}, 0
    except KeyboardInterrupt:  # the suite was stopped; the benchmark cleaned up on the way
        return 130
    except Exception as error:  # noqa: B902 - reported to the parent, which goes on
        traceback.print_exc(file=sys.stderr)
        data, status = {'error': describe_error(error)}, 1
    with open(result, 'w', encoding='utf-8') as stream:
        json.dump(data, stream)
    return status


def descendants(pid: int) -> list[int]:
    """Return every live process below ``pid`` (children first), read from ``/proc``.

    The benchmarks start their processes in sessions of their own, so a process group
    does not reach them; their parent links do, while the parent lives.
    """
    children: dict[int, list[int]] = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat', encoding='utf-8') as stream:
                stat = stream.read()
        except OSError:  # gone meanwhile
            continue
        parent = int(stat.rpartition(')')[2].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(0), [])
        found.extend(below)
        todo.extend(below)
    return found


def end_process_tree(child: subprocess.Popen, grace: float = 10.0, *,
                     stacks: bool = False) -> None:
    """End a hung child and everything it started.

    The processes below it get SIGTERM, then SIGKILL if they did not stop within
    ``grace`` seconds; the child gets SIGKILL at once: hung in C code, its own signal
    handlers never run.
    """
    below = descendants(child.pid)  # before anything: a child that exits orphans them
    if stacks:  # where it hung (the signal may also end a C call such as sleep())
        dump_stacks(child)
    for pid in below:
        _signal(pid, signal.SIGTERM)
    child.kill()
    child.wait()
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(pid) for pid in below):
        time.sleep(0.1)
    for pid in below:
        _signal(pid, signal.SIGKILL)


def dump_stacks(child: subprocess.Popen) -> None:
    """Have ``child`` print every thread's stack to stderr (SIGUSR1, child_main)."""
    _signal(child.pid, signal.SIGUSR1)
    try:  # the dump is written from the signal handler at once; give it that moment
        child.wait(0.5)
    except subprocess.TimeoutExpired:
        pass


def interrupt_child(child: subprocess.Popen, grace: float = 60.0) -> None:
    """Let an interrupted child stop its processes, within ``grace`` seconds.

    A Ctrl-C in a terminal reached it already; otherwise (SIGTERM to this process) it
    gets SIGINT.
    """
    try:
        child.wait(2.0)
        return
    except subprocess.TimeoutExpired:
        dump_stacks(child)  # where it was when interrupted (a hang is often why)
        child.send_signal(signal.SIGINT)
    try:
        child.wait(grace)
    except subprocess.TimeoutExpired:
        end_process_tree(child)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f'signal {signum}')


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except OSError:  # gone already
        pass


def alive(pid: int) -> bool:
    """Return whether process ``pid`` runs (not gone, not a zombie)."""
    try:
        with open(f'/proc/{pid}/stat', encoding='utf-8') as stream:
            return stream.read().rpartition(')')[2].split()[0] != 'Z'
    except OSError:
        return False


def failed_row(name: str, error: BaseException) -> Row:
    """Return the row that stands for benchmark ``name`` when it raised ``error``.

    The suite goes on with the other benchmarks and runs (an hour of ``--runs 3`` is not
    lost to one start-up that timed out), and exits with status 1.
    """
    message = (str(error) if isinstance(error, BenchmarkFailed)
               else describe_error(error)).replace('|', '/')
    return (f'{name}: FAILED', message[:200], '', '')


def format_table(rows: list[Row], markdown: bool = False) -> str:
    """Return the rows as a table under a (metric, ours, reference, ratio) header.

    Text: aligned columns. Markdown (``markdown``): a pipe table as in BENCHMARKS.md,
    indented metrics (the details of the row above) marked with an em space.
    """
    return _format(rows, ('metric', 'ours', 'reference', 'ratio'), markdown)


def _format(rows: Sequence[tuple[str, ...]], header: tuple[str, ...], markdown: bool) -> str:
    """Return rows of ``len(header)`` cells as an aligned or a markdown table."""
    rows = [header, *rows]
    if markdown:
        lines = []
        for index, row in enumerate(rows):
            metric = row[0].strip()
            if row[0].startswith(' '):
                metric = '&emsp;' + metric
            lines.append('| ' + ' | '.join([metric, *row[1:]]) + ' |')
            if index == 0:
                lines.append('|' + '---|' * len(header))
        return '\n'.join(lines)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for index, row in enumerate(rows):
        lines.append(' | '.join(cell.ljust(width) for cell, width in zip(row, widths)))
        if index == 0:
            lines.append('-+-'.join('-' * width for width in widths))
    return '\n'.join(lines)


def _keyed(rows: list[Row]) -> list[tuple[tuple[str, int], Row]]:
    """Key each row by its metric and how many rows of that metric came before it."""
    seen: dict[str, int] = {}
    keyed = []
    for row in rows:
        seen[row[0]] = seen.get(row[0], -1) + 1
        keyed.append(((row[0], seen[row[0]]), row))
    return keyed


def _verdict(row: Row) -> str:
    """Return a goal or control row's verdict (VERDICTS, CONTROLS), or '' for any other."""
    for cell in (row[3], row[1]):
        if cell in VERDICTS or cell in CONTROLS:
            return cell
    return ''


def _cell(row: Row) -> str:
    """Return one run's figure of a row, for the table of runs side by side."""
    _, ours, reference, ratio = row
    if ours in VERDICTS or ours in CONTROLS:  # the verdict is the figure: say what it compared
        return f'{ours} ({reference})' if reference else ours
    return f'{ours} ({ratio})' if ours and ratio and ratio != '-' else ours or ratio


def format_spread(runs: list[list[Row]], markdown: bool = False) -> str:
    """Return every row of several runs side by side: metric, run 1..N, goal met in.

    Rows are matched by metric (and, for a metric that repeats, by its place among its
    repeats); a row that only some runs printed (a scale step they reached) is '-' in
    the others. The last column counts the runs whose goal row said 'met' (a control
    row: 'within').
    """
    order: list[tuple[str, int]] = []
    cells: dict[tuple[str, int], list[str]] = {}
    verdicts: dict[tuple[str, int], list[str]] = {}
    for index, rows in enumerate(runs):
        previous = -1
        for key, row in _keyed(rows):
            if key not in cells:
                order.insert(previous + 1, key)
                cells[key] = ['-'] * len(runs)
                verdicts[key] = []
            previous = order.index(key)
            cells[key][index] = _cell(row)
            verdict = _verdict(row)
            if verdict:
                verdicts[key].append(verdict)
    table: list[tuple[str, ...]] = []
    for key in order:
        met = verdicts[key]
        tally = f"{met.count('met')} of {len(runs)}" if met else ''
        if met and met[0] in CONTROLS:
            tally = f"control: within in {met.count('within')} of {len(runs)}"
        table.append((key[0], *cells[key], tally))
    header = ('metric', *[f'run {n}' for n in range(1, len(runs) + 1)], 'goal met in')
    return _format(table, header, markdown)


def _version(distribution: str) -> str:
    from importlib import metadata
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return 'not installed'


def write_bytecode() -> None:
    """Write the package's bytecode before any benchmark starts a process, as an install does.

    ``make`` exports PYTHONDONTWRITEBYTECODE (and a CI may set it): without the files
    every executive, sim and peer a benchmark starts would compile bt_executive again
    (0.2 s of CPU and some MiB each), which a pip or colcon install never does. Stale
    files are rewritten; the rows measure the installed case whatever ran before.
    """
    compileall.compile_dir(os.path.join(REPO, 'bt_executive'), quiet=2, workers=0)


def head_commit() -> str:
    """Return the checkout's commit (short), with a note when tracked files differ from it."""
    here = os.path.dirname(os.path.abspath(__file__))

    def git(*args: str) -> str:
        try:
            return subprocess.run(['git', *args], cwd=here, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ''
    commit = git('rev-parse', '--short', 'HEAD') or 'unknown'
    if git('status', '--porcelain', '--untracked-files=no'):
        commit += ' with local changes'
    return commit


def describe_run(started: datetime.datetime, runs: int, load: Optional[float],
                 commit: str) -> str:
    """Return one line saying when, at which commit and on what machine the suite ran.

    ``load`` is the 1-minute load average when the suite started (None: unknown);
    ``commit`` what :func:`head_commit` said then.
    """
    model = ''
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as stream:
            model = next((line.split(':', 1)[1].strip() for line in stream
                          if line.startswith('model name')), '')
    except OSError:
        pass
    ended = datetime.datetime.now(datetime.timezone.utc)
    return (f'Run on {started:%Y-%m-%d} {started:%H:%M}-{ended:%H:%M} UTC at `{commit}`, '
            f"{runs} run{'s' if runs > 1 else ''}, load average "
            f"{'?' if load is None else f'{load:.2f}'} at the start; "
            f'{os.cpu_count()} CPUs ({model or platform.machine()}), Linux '
            f'{platform.release()}, Python {platform.python_version()}, rclpy '
            f"{_version('rclpy')}, Fast DDS {_version('ros-fastdds')}, py_trees "
            f"{_version('py_trees')}.")


def parse_runs(argv: list[str]) -> tuple[Optional[int], list[str]]:
    """Take ``--runs N`` (or ``--runs=N``) out of ``argv``: (N or None if bad, the rest)."""
    rest, runs = [], 1
    arguments = iter(argv)
    for arg in arguments:
        if arg == '--runs' or arg.startswith('--runs='):
            value = arg.partition('=')[2] if '=' in arg else next(arguments, '')
            if not value.isdigit() or int(value) < 1:
                return None, rest
            runs = int(value)
        else:
            rest.append(arg)
    return runs, rest


def main(argv: list[str]) -> int:
    """Run the named benchmarks (default: all), ``--runs`` times, and print the tables."""
    if argv[:1] == [CHILD]:
        return child_main(argv[1:])
    # SIGTERM (``timeout``, a cancelled job) unwinds like Ctrl-C: the running child is
    # told to stop the processes it started instead of being left running on its own
    signal.signal(signal.SIGTERM, _terminated)
    runs, argv = parse_runs(argv)
    quick = '--quick' in argv
    markdown = '--markdown' in argv
    names = [arg for arg in argv if not arg.startswith('--')] or BENCHMARKS
    unknown = [name for name in names if name not in BENCHMARKS]
    unknown += [arg for arg in argv if arg.startswith('--') and arg not in OPTIONS]
    if runs is None:
        print('--runs takes a whole number >= 1, e.g. --runs 3', file=sys.stderr)
        return 2
    if unknown:
        print(f"unknown {', '.join(unknown)}; usage: run.py [--quick] [--markdown] "
              f"[--runs N] [NAME...], names: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    ros_environment()
    write_bytecode()
    started = datetime.datetime.now(datetime.timezone.utc)
    load = os.getloadavg()[0] if hasattr(os, 'getloadavg') else None
    commit = head_commit()
    print(f"bench: ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']}"
          f"{' (quick)' if quick else ''}{f', {runs} runs' if runs > 1 else ''}",
          file=sys.stderr, flush=True)
    results: list[list[Row]] = []
    failures = 0
    for run in range(1, runs + 1):
        rows: list[Row] = []
        for name in names:
            print(f"running {name}{f' (run {run} of {runs})' if runs > 1 else ''} ...",
                  file=sys.stderr, flush=True)
            start = time.monotonic()
            try:
                rows.extend(run_isolated(name, quick))
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the child has stopped its processes
                print(f'bench: interrupted during {name}; no table', file=sys.stderr,
                      flush=True)
                return 130
            except Exception as error:  # noqa: B902 - one failure must not lose the others
                failures += 1
                if not isinstance(error, BenchmarkFailed):  # the child printed its own
                    traceback.print_exc(file=sys.stderr)
                rows.append(failed_row(name, error))
                print(f'  {name} FAILED after {time.monotonic() - start:.0f} s; going on',
                      file=sys.stderr, flush=True)
                continue
            print(f'  {name} took {time.monotonic() - start:.0f} s', file=sys.stderr,
                  flush=True)
        results.append(rows)
    if markdown:
        print(describe_run(started, runs, load, commit) + '\n', flush=True)
    print(format_table(results[-1], markdown), flush=True)
    if runs > 1:
        print(f'\n{"The same rows over the " if markdown else ""}{runs} runs, side by side '
              f'(the table above is run {runs}):\n', flush=True)
        print(format_spread(results, markdown), flush=True)
    if failures:
        plural = 's' if failures > 1 else ''
        print(f'bench: {failures} benchmark run{plural} failed (the FAILED rows; the '
              'tracebacks are above)', file=sys.stderr, flush=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
