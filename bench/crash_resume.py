# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Crash and resume: the patrol's executive SIGKILLed at seeded points, respawned each time.

Usage: ``make crash-soak`` (50 kill points) or
``.venv/bin/python bench/crash_resume.py --kills 8 --seed 3 [--json PATH]``.

Starts the built-in sim and the executive as ``bt-executive demo`` does (the parameter
files of config/, event ticking, simulated time ``--time-scale`` times faster than real
time), with a ``state_file`` and a battery that drains fast, so the patrol docks often.
For each kill point, drawn from ``--seed``: wait until the mission is in the point's
phase (``driving`` to a waypoint, ``docking``: driving to the dock or docking,
``charging``, ``undocking``: leaving the dock), wait a random fraction of a second more,
SIGKILL the executive, check the state file (a whole state of this tree, never a torn
one) and start a new executive, timing how long it takes to tick again (restart to
resume). After the last kill the patrol drives ``--laps`` more laps; then the executive
stops on SIGINT.

Checked (the exit status is 1 when one fails):

* every state file left by a kill is whole and belongs to the tree;
* the waypoints the robot drove to, with the dock left out, follow the patrol's order:
  a waypoint may be driven to again after a restart (the one being driven), none is
  skipped, and the patrol never starts over at waypoint 0;
* ``skipped`` stays 0 and the laps reach their target;
* once the executive stopped, no goal is running at the sim.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from typing import Any, Optional
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import BenchNode, patrol_commands, Processes, REPO  # noqa: E402, I100

PHASES = ('driving', 'docking', 'charging', 'undocking')
WAYPOINTS = [(3.0, 0.0), (3.0, 2.0), (0.0, 2.0), (0.0, 0.0)]  # config/patrol_mission.yaml
DOCK = (0.0, -1.0)
STATUS_KEYS = '[waypoint_index, laps, lap_reached, reached, skipped, dockings, battery_low]'
#: Wall seconds allowed for a phase to come round, and for an executive to tick again.
PHASE_TIMEOUT = 120.0
START_TIMEOUT = 60.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kills', type=int, default=50, help='kill points (default 50)')
    parser.add_argument('--seed', type=int, default=1, help='seed of the kill points')
    parser.add_argument('--laps', type=int, default=1,
                        help='laps driven after the last kill (default 1)')
    parser.add_argument('--time-scale', type=float, default=10.0,
                        help='simulated seconds per wall-clock second (default 10)')
    parser.add_argument('--max-delay', type=float, default=0.4,
                        help='wall seconds a kill may come after its phase began (0.4)')
    parser.add_argument('--no-state', action='store_true',
                        help='run without a state_file: what a crash did before (fails)')
    parser.add_argument('--json', metavar='PATH', help='also write the report as JSON')
    return parser.parse_args(argv)


def phase_of(status: dict[str, Any], robot: dict[str, Any]) -> Optional[str]:
    """Return the mission phase shown by the executive's ~/status and the sim's state.

    ``undocking`` begins in the last moments of charging (the sim undocks within a
    millisecond of the request, too short to be seen and aimed at): kills drawn there
    land at the end of charging, during the undocking or just after it.
    """
    active = ' > '.join(status.get('active') or [])
    if '/leave the dock' in active or (robot.get('docked') and robot.get('battery', 0) >= 0.9):
        return 'undocking'
    if '/charged' in active and robot.get('docked'):
        return 'charging'
    if '/go and dock' in active:
        return 'docking'
    if '/patrol/' in active and '/drive' in active:
        return 'driving'
    return None


def plan(kills: int, seed: int, max_delay: float) -> list[tuple[str, float]]:
    """Return the kill points: (phase, delay); every phase comes round, in a seeded order."""
    rng = random.Random(seed)
    phases = [PHASES[i % len(PHASES)] for i in range(kills)]
    rng.shuffle(phases)
    return [(phase, round(rng.uniform(0.0, max_delay), 3)) for phase in phases]


def waypoint_order(targets: list[tuple[float, float]]) -> list[str]:
    """Return the problems of the robot's waypoint sequence (dock left out), [] if none."""
    problems = []
    visits = [t for t in targets if t != DOCK]
    indexes = []
    for target in visits:
        if target not in WAYPOINTS:
            problems.append(f'a goal to {target}, which is no waypoint')
            continue
        indexes.append(WAYPOINTS.index(target))
    for before, after in zip(indexes, indexes[1:]):
        if after not in (before, (before + 1) % len(WAYPOINTS)):
            problems.append(f'waypoint {before} was followed by waypoint {after}: '
                            f'{after - before - 1 if after > before else "a restart"}'
                            ' skipped or started over')
    return problems


class CrashRun:
    """One sim, a state file, and the executives started and killed in turn."""

    def __init__(self, args: argparse.Namespace, processes: Processes,
                 bench: BenchNode) -> None:
        self.args = args
        self.processes = processes
        self.bench = bench
        self.namespace = f'crash_{uuid.uuid4().hex[:8]}'
        self.workdir = tempfile.mkdtemp(prefix='bt_crash_')
        self.state_file = os.path.join(self.workdir, 'patrol.state.json')
        self.targets: list[tuple[float, float]] = []
        self.sim_state: dict[str, Any] = {}
        self.status = bench.watch_status(self.namespace)
        self._watch_sim()
        ros_args = ['-r', f'/clock:=/{self.namespace}/clock']
        commands = dict(patrol_commands(
            self.namespace, tick_mode='event', sim_time=True,
            executive_params={'status_period': 0.1, 'status_keys': STATUS_KEYS,
                              **({} if args.no_state else {'state_file': self.state_file})},
            # the patrol docks every 3 laps or so; a low battery still reaches the dock
            # after an orphaned goal drove a whole leg during a restart (0.025 per m),
            # however long the restart takes on a loaded machine (no idle drain)
            sim_params={'time_scale': args.time_scale, 'motion_drain': 0.025,
                        'idle_drain': 0.0, 'initial_battery': 0.5},
            ros_args=ros_args))
        self.executive_argv = commands['bt_executive']
        self.sim = processes.spawn('sim_robot', commands['sim_robot'])
        self.executive: Any = None
        self.generation = 0
        self.restart_seconds: list[float] = []
        self.first_tick_seconds: list[float] = []
        self.state_checks: list[str] = []

    def _watch_sim(self) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)

        def on_state(message: Any) -> None:
            state = json.loads(message.data)
            target = (state.get('nav') or {}).get('target')
            if target is not None:
                point = (round(target[0], 2), round(target[1], 2))
                if not self.targets or self.targets[-1] != point:
                    self.targets.append(point)
            with self.bench.condition:
                self.sim_state = state
                self.bench.condition.notify_all()

        self.bench.node.create_subscription(String, f'/{self.namespace}/sim_state', on_state,
                                            latched)

    def wait(self, predicate: Any, what: str, timeout: float = PHASE_TIMEOUT) -> Any:
        return self.bench.wait_for(predicate, timeout, what, self.processes)

    def start_executive(self) -> float:
        """Start an executive; return the wall seconds until it ticked and said so."""
        self.generation += 1
        started = time.monotonic()
        name = f'executive{self.generation}'
        self.executive = self.processes.spawn(name, self.executive_argv, early=True)
        self.wait(lambda: self.status.received_at is not None
                  and self.status.received_at > started
                  and self.status.latest.get('tick_count', 0) > 0,
                  f'{name} to tick', START_TIMEOUT)
        first_tick = (self.status.latest.get('startup') or {}).get('first_tick_s')
        if first_tick is not None:  # the executive's own: process start -> first tick
            self.first_tick_seconds.append(first_tick)
        return time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL the executive (nothing it could do runs); forget the process."""
        import signal

        self.executive.send_signal(signal.SIGKILL)
        self.executive.wait(10.0)
        self.processes.started = [(n, p) for n, p in self.processes.started
                                  if p is not self.executive]

    def check_state_file(self) -> dict[str, Any]:
        """Check that the file a kill left is a whole state of the patrol; return its keys."""
        from bt_executive.observe.checkpoint import read_state, SCHEMA

        if not os.path.exists(self.state_file):
            self.state_checks.append('none yet')
            return {}
        with open(self.state_file, 'rb') as stream:
            data = json.loads(stream.read().decode('utf-8'))  # raises when torn
        assert data['schema'] == SCHEMA and data['tree'] == 'Patrol', data
        found = read_state(self.state_file, tree='Patrol', tree_hash=data['tree_hash'],
                           keys=data['keys'])
        assert found.restored, found.message
        self.state_checks.append('whole')
        return found.values

    def board(self) -> dict[str, Any]:
        return self.status.latest.get('blackboard', {})

    def run(self) -> dict[str, Any]:
        args = self.args
        points = plan(args.kills, args.seed, args.max_delay)
        self.wait(lambda: self.sim_state, 'the sim state')
        self.start_executive()
        log = []
        for number, (phase, delay) in enumerate(points, 1):
            self.wait(lambda p=phase: phase_of(self.status.latest, self.sim_state) == p,
                      f'kill point {number}: the phase {phase!r}')
            time.sleep(delay)  # the kill point itself, not a synchronisation
            self.kill()
            board = self.check_state_file()  # what the next executive resumes
            seconds = self.start_executive()
            self.restart_seconds.append(seconds)
            log.append({'point': number, 'phase': phase, 'delay': delay,
                        'restart_s': round(seconds, 3), 'state_file': board,
                        'status_after_restart': dict(self.board())})
            print(f'kill {number:3d}/{len(points)}  {phase:9s} +{delay:.2f} s  '
                  f'restart {seconds:.2f} s  state file: waypoint '
                  f'{board.get("waypoint_index")} laps {board.get("laps")} battery_low '
                  f'{board.get("battery_low")}',
                  flush=True)
        laps = self.board().get('laps', 0)
        self.wait(lambda: self.board().get('laps', 0) >= laps + args.laps,
                  f'{args.laps} more laps after the last kill', PHASE_TIMEOUT * 2)
        final = dict(self.board())
        self.processes.stop([self.executive])
        code = self.executive.returncode
        self.wait(lambda: (self.sim_state.get('nav') or {}).get('target') is None,
                  'no goal running at the sim after the executive stopped', 15.0)
        problems = waypoint_order(self.targets)
        if final.get('skipped', 0):
            problems.append(f"{final['skipped']} waypoints skipped")
        if code != 0:
            problems.append(f'the last executive exited with status {code} on SIGINT')
        restarts = sorted(self.restart_seconds)
        own = sorted(self.first_tick_seconds)
        return {
            'kills': len(points), 'seed': args.seed, 'phases': {
                p: sum(1 for q, _ in points if q == p) for p in PHASES},
            'state_files': {k: self.state_checks.count(k) for k in set(self.state_checks)},
            'final': final, 'targets': len(self.targets),
            'restart_to_resume_s': {
                'p50': round(restarts[len(restarts) // 2], 3) if restarts else None,
                'max': round(restarts[-1], 3) if restarts else None,
                'process_start_to_first_tick_p50': own[len(own) // 2] if own else None},
            'problems': problems, 'points': log,
        }

    def close(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


def crash_resume(args: argparse.Namespace) -> dict[str, Any]:
    """Run the kill points of ``args``; return the report (``problems`` empty: passed)."""
    bench = BenchNode('bt_crash')
    try:
        with Processes('crash') as processes:
            run = CrashRun(args, processes, bench)
            try:
                return run.run()
            finally:
                run.close()
    finally:
        bench.close()


def main(argv: Optional[list[str]] = None) -> int:
    """Run and report; 0 when every check held."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.chdir(REPO)
    report = crash_resume(args)
    print(f"{report['kills']} kill points (seed {report['seed']}; "
          + ', '.join(f'{p} {n}' for p, n in report['phases'].items())
          + f"): state files {report['state_files']}, final {report['final']}, "
          f"restart to resume p50 {report['restart_to_resume_s']['p50']} s, max "
          f"{report['restart_to_resume_s']['max']} s (the executive's own process start -> "
          f"first tick p50 {report['restart_to_resume_s']['process_start_to_first_tick_p50']}"
          ' s)')
    for problem in report['problems']:
        print(f'PROBLEM: {problem}')
    print('crash and resume: ' + ('ok' if not report['problems'] else 'FAILED'))
    if args.json:
        with open(args.json, 'w') as stream:
            json.dump(report, stream, indent=1)
    return 0 if not report['problems'] else 1


if __name__ == '__main__':
    sys.exit(main())
