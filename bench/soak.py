# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Soak: the patrol on the simulated robot for a long time; memory, timing, laps, errors.

Usage: ``make soak`` (one hour) or ``.venv/bin/python bench/soak.py --minutes 5``.

Starts the built-in sim and the executive as two processes, exactly as ``bt-executive
demo`` does (bt_executive/app/bringup.py: the parameter files of config/, event ticking,
simulated time), with the sim running ``--time-scale`` times faster than real time, in a
namespace of their own. While they run it samples, every ``--sample-period`` seconds:

* the resident memory (``VmRSS``) of both processes;
* the executive's ``~/status``: tick count, the ``timing`` percentiles (tick interval and
  jitter on the node clock, i.e. simulated milliseconds; tick duration and wake-up
  latency in wall milliseconds), laps and dockings from the blackboard;
* the ERROR/FATAL log lines and Python tracebacks in both processes' output.

The sim's ``/clock`` is remapped into the namespace, so other simulations in the same
ROS domain cannot disturb this one's time; their DDS traffic still costs memory, so run
the soak in a quiet domain (``ROS_DOMAIN_ID``; bench/common.py picks 73 when unset).

It prints progress while running and a report at the end (``--json PATH`` also writes it
as JSON). The memory trend is the least-squares slope of RSS over time after a warm-up
(``--warmup``, a fraction of the run), in KiB per minute. The exit status is 0 when there
were no errors, the executive's slope is below ``--max-rss-slope``, at least
``--min-laps`` laps were driven, both processes stayed up and the executive stopped
cleanly on SIGINT (status 0, every goal cancel acknowledged); else 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import time
from typing import Any, Optional
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import BenchNode, patrol_commands, Processes, rss_mb  # noqa: E402, I100

#: Log lines that count as errors.
ERROR_PATTERN = re.compile(r'\[(ERROR|FATAL)\]|Traceback \(most recent call last\)')
#: Seconds allowed from the start of the processes to the executive's first tick.
START_TIMEOUT = 90.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--minutes', type=float, default=60.0,
                        help='wall-clock minutes to run (default 60)')
    parser.add_argument('--time-scale', type=float, default=10.0,
                        help='simulated seconds per wall-clock second (default 10)')
    parser.add_argument('--sim-rate', type=float, default=None,
                        help='sim steps per wall-clock second (default: 0.1 simulated '
                             'seconds per step, at most 200 Hz)')
    parser.add_argument('--tick-mode', choices=('event', 'periodic'), default='event',
                        help='the executive tick_mode (default event, as the patrol)')
    parser.add_argument('--sample-period', type=float, default=5.0,
                        help='seconds between samples (default 5)')
    parser.add_argument('--warmup', type=float, default=0.2,
                        help='fraction of the run left out of the memory slope (default 0.2)')
    parser.add_argument('--max-rss-slope', type=float, default=64.0,
                        help='highest acceptable executive RSS slope, KiB/min (default 64)')
    parser.add_argument('--min-laps', type=int, default=1,
                        help='fewest laps that count as a working patrol (default 1)')
    parser.add_argument('--json', metavar='PATH', help='also write the report as JSON')
    parser.add_argument('--logs', metavar='DIR', help="keep the processes' logs in DIR")
    return parser.parse_args(argv)


def slope_per_minute(samples: list[tuple[float, float]]) -> Optional[float]:
    """Return the least-squares slope of (seconds, MiB) samples in KiB per minute."""
    if len(samples) < 3:
        return None
    count = len(samples)
    mean_t = sum(t for t, _ in samples) / count
    mean_v = sum(v for _, v in samples) / count
    spread = sum((t - mean_t) ** 2 for t, _ in samples)
    if spread == 0:
        return None
    slope = sum((t - mean_t) * (v - mean_v) for t, v in samples) / spread  # MiB per second
    return slope * 1024.0 * 60.0


def count_errors(path: str) -> tuple[int, list[str]]:
    """Return how many error lines a log has, and the first few of them."""
    found: list[str] = []
    count = 0
    try:
        with open(path, 'rb') as stream:
            for raw in stream:
                line = raw.decode('utf-8', 'replace').rstrip()
                if ERROR_PATTERN.search(line):
                    count += 1
                    if len(found) < 5:
                        found.append(line[:300])
    except OSError:
        pass
    return count, found


class Soak:
    """One soak run: the processes, the samples and the report."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.namespace = f'soak_{uuid.uuid4().hex[:6]}'
        self.samples: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self.worst: dict[str, float] = {}
        self.robot: dict[str, Any] = {}
        self.lowest_battery = 1.0
        self.errors: dict[str, tuple[int, list[str]]] = {}
        self.exit_status: Optional[int] = None
        self.started_at = 0.0

    def on_robot(self, text: str) -> None:
        """Keep the latest sim_state and the lowest battery level."""
        self.robot = json.loads(text)
        battery = self.robot.get('battery')
        if isinstance(battery, (int, float)):
            self.lowest_battery = min(self.lowest_battery, battery)

    def sample(self, processes: Processes, status: dict[str, Any],
               pids: dict[str, int]) -> dict[str, Any]:
        """Record one sample of memory, status and errors."""
        board = status.get('blackboard') or {}
        timing = status.get('timing') or {}
        sample = {'t': time.monotonic() - self.started_at,
                  'rss_mb': {name: rss_mb(pid) for name, pid in pids.items()},
                  'ticks': status.get('tick_count', 0),
                  'laps': board.get('laps', 0), 'dockings': board.get('dockings', 0),
                  'reached': board.get('reached', 0), 'skipped': board.get('skipped', 0),
                  'timing': timing}
        for series in ('interval_ms', 'jitter_ms', 'duration_ms', 'wake_latency_ms'):
            values = timing.get(series) or {}
            for key in ('p99', 'max'):
                if isinstance(values.get(key), (int, float)):
                    name = f'{series}.{key}'
                    self.worst[name] = max(self.worst.get(name, 0.0), values[key])
        self.errors = {name: count_errors(os.path.join(processes.logs, f'{name}.log'))
                       for name in pids}
        sample['errors'] = sum(count for count, _ in self.errors.values())
        self.samples.append(sample)
        return sample

    def progress(self, sample: dict[str, Any]) -> None:
        """Print one progress line."""
        rss = '  '.join(f'{name} {value:.1f} MiB' for name, value in sample['rss_mb'].items())
        print(f"[{sample['t'] / 60:6.1f} min] laps {sample['laps']}  dockings "
              f"{sample['dockings']}  ticks {sample['ticks']}  {rss}  errors "
              f"{sample['errors']}", flush=True)

    def run(self) -> int:
        """Run the soak; return the exit status."""
        args = self.args
        rate = args.sim_rate or min(200.0, args.time_scale / 0.1)
        # the sim's /clock is renamed for both nodes: other sims in the domain cannot
        # move this soak's time
        commands = patrol_commands(
            self.namespace, tick_mode=args.tick_mode, sim_time=True,
            sim_params={'time_scale': args.time_scale, 'rate': rate},
            ros_args=['-r', f'/clock:=/{self.namespace}/clock'])
        domain = os.environ.get('ROS_DOMAIN_ID')
        print(f'soak: {args.minutes:g} min, sim x{args.time_scale:g} at {rate:g} Hz, '
              f'{args.tick_mode} ticking, namespace /{self.namespace}, '
              f'ROS_DOMAIN_ID={domain}', flush=True)
        bench = BenchNode('bt_soak')
        try:
            status = bench.watch_status(self.namespace)
            self._watch_robot(bench)
            with Processes('soak') as processes:
                try:
                    self._run(bench, status, processes, commands)
                except KeyboardInterrupt:  # Ctrl-C: report what was measured so far
                    self.failures.append('interrupted')
                finally:
                    self._finish(processes)
        finally:
            bench.close()
        report = self.report()
        print(self.render(report), flush=True)
        if args.json:
            with open(args.json, 'w', encoding='utf-8') as stream:
                json.dump(report, stream, indent=2)
        return 0 if report['passed'] else 1

    def _watch_robot(self, bench: BenchNode) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        bench.node.create_subscription(String, f'/{self.namespace}/sim_state',
                                       lambda message: self.on_robot(message.data), latched)

    def _run(self, bench: BenchNode, status: Any, processes: Processes,
             commands: list[tuple[str, list[str]]]) -> None:
        pids = {}
        for name, argv in commands:
            pids[name] = processes.spawn(name, argv, early=(name == 'bt_executive')).pid
        self.pids = pids
        bench.wait_for(lambda: status.latest.get('tick_count', 0) > 0, START_TIMEOUT,
                       'the first tick', processes)
        self.started_at = time.monotonic()
        deadline = self.started_at + self.args.minutes * 60.0
        report_every = max(30.0, self.args.minutes * 60.0 / 20.0)
        next_report = self.started_at
        while True:
            try:
                processes.check()
            except RuntimeError as error:
                self.failures.append(str(error))
                return
            sample = self.sample(processes, status.latest, pids)
            if time.monotonic() >= next_report:
                self.progress(sample)
                next_report += report_every
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(self.args.sample_period, left))

    def _finish(self, processes: Processes) -> None:
        """Stop the executive (then the sim) with SIGINT; count the errors; keep logs."""
        executive = [p for name, p in processes.started if name == 'bt_executive']
        processes.stop(executive, timeout=30.0)
        if executive:
            self.exit_status = executive[0].returncode
        processes.stop(timeout=30.0)
        self.errors = {name: count_errors(os.path.join(processes.logs, f'{name}.log'))
                       for name in getattr(self, 'pids', {})}
        if self.args.logs:
            os.makedirs(self.args.logs, exist_ok=True)
            for name in os.listdir(processes.logs):
                shutil.copy(os.path.join(processes.logs, name), self.args.logs)

    def report(self) -> dict[str, Any]:
        """Summarise the run; decide whether it passed."""
        args = self.args
        last = self.samples[-1] if self.samples else {}
        duration = last.get('t', 0.0)
        after = [s for s in self.samples if s['t'] >= args.warmup * duration]
        slopes = {}
        for name in (self.samples[0]['rss_mb'] if self.samples else {}):
            slope = slope_per_minute([(s['t'], s['rss_mb'][name]) for s in after
                                      if not math.isnan(s['rss_mb'][name])])
            slopes[name] = None if slope is None else round(slope, 1)
        errors = sum(count for count, _ in self.errors.values())
        failures = list(self.failures)
        if errors:
            failures.append(f'{errors} error lines in the logs')
        executive_slope = slopes.get('bt_executive')
        if executive_slope is None:
            failures.append('too few samples for a memory slope')
        elif executive_slope > args.max_rss_slope:
            failures.append(f'executive RSS grows {executive_slope} KiB/min '
                            f'(limit {args.max_rss_slope:g})')
        if last.get('laps', 0) < args.min_laps:
            failures.append(f"{last.get('laps', 0)} laps, fewer than {args.min_laps}")
        if self.exit_status != 0:
            failures.append(f'the executive exited with status {self.exit_status} on SIGINT '
                            '(expected 0: a clean stop)')
        first = self.samples[0] if self.samples else {}
        return {
            'passed': not failures,
            'failures': failures,
            'minutes': round(duration / 60.0, 2),
            'time_scale': args.time_scale,
            'tick_mode': args.tick_mode,
            'laps': last.get('laps', 0),
            'dockings': last.get('dockings', 0),
            'waypoints_reached': last.get('reached', 0),
            'waypoints_skipped': last.get('skipped', 0),
            'lowest_battery': round(self.lowest_battery, 3),
            'goal_results': self.robot.get('results', {}),
            'ticks': last.get('ticks', 0),
            'ticks_per_second': round(last.get('ticks', 0) / duration, 1) if duration else 0,
            'timing_last': last.get('timing', {}),
            'timing_worst': {key: round(value, 3) for key, value in sorted(self.worst.items())},
            'rss_mb_first': {k: round(v, 1) for k, v in first.get('rss_mb', {}).items()},
            'rss_mb_last': {k: round(v, 1) for k, v in last.get('rss_mb', {}).items()},
            'rss_mb_max': {name: round(max(s['rss_mb'][name] for s in self.samples), 1)
                           for name in first.get('rss_mb', {})},
            'rss_slope_kib_per_min': slopes,
            'errors': errors,
            'error_lines': {name: lines for name, (_, lines) in self.errors.items() if lines},
            'executive_exit_status': self.exit_status,
            'samples': len(self.samples),
        }

    @staticmethod
    def render(report: dict[str, Any]) -> str:
        """Render the report as text."""
        def rss(key: str) -> str:
            return ', '.join(f'{name} {value}' for name, value in report[key].items())

        timing = report['timing_worst']
        lines = [
            'soak report',
            f"  duration             {report['minutes']} min (sim x{report['time_scale']:g}, "
            f"{report['tick_mode']} ticking)",
            f"  laps / dockings      {report['laps']} / {report['dockings']}",
            f"  waypoints            {report['waypoints_reached']} reached, "
            f"{report['waypoints_skipped']} skipped",
            f"  lowest battery       {report['lowest_battery'] * 100:.1f}%",
            f"  goal results (sim)   {report['goal_results']}",
            f"  ticks                {report['ticks']} ({report['ticks_per_second']}/s)",
            f"  worst timing p99/max {', '.join(f'{k} {v}' for k, v in timing.items())}",
            f"  RSS first (MiB)      {rss('rss_mb_first')}",
            f"  RSS last (MiB)       {rss('rss_mb_last')}",
            f"  RSS max (MiB)        {rss('rss_mb_max')}",
            f"  RSS slope (KiB/min)  {report['rss_slope_kib_per_min']}",
            f"  errors               {report['errors']}",
            f"  executive exit       {report['executive_exit_status']}",
            f"  result               {'PASS' if report['passed'] else 'FAIL'}",
        ]
        lines += [f'    - {failure}' for failure in report['failures']]
        for name, found in report['error_lines'].items():
            lines += [f'    {name}: {line}' for line in found]
        return '\n'.join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the soak with the command-line options."""
    return Soak(parse_args(sys.argv[1:] if argv is None else argv)).run()


if __name__ == '__main__':
    sys.exit(main())
