# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive demo``: the patrol on the built-in simulated robot, without ``ros2 launch``.

Starts the nodes of :mod:`bt_executive.app.bringup` as subprocesses with the same parameter
files as ``launch/patrol.launch.py``, shows the live tree and robot state in the
terminal, and ends after N laps (or Ctrl-C) with a summary.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional, TextIO

from bt_executive.app import bringup
from bt_executive.viewers.watch import format_duration

CLEAR = '\x1b[H\x1b[J'


def package_share() -> str:
    """Return the directory holding ``config/`` (source checkout or installed share)."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isdir(os.path.join(here, 'config')):
        return here
    try:
        from ament_index_python.packages import get_package_share_directory
        return get_package_share_directory(bringup.PACKAGE)
    except Exception:  # noqa: B902 - not installed through ament either
        return here


@dataclasses.dataclass
class Observed:
    """What the demo has seen of the robot and the tree."""

    status: dict[str, Any] = dataclasses.field(default_factory=dict)
    robot: dict[str, Any] = dataclasses.field(default_factory=dict)
    lowest_battery: float = 1.0
    goals_cancelled: int = 0
    goals_aborted: int = 0
    goals_succeeded: int = 0
    updates: int = 0
    count_from_sim_state: bool = False
    """Take the goal counts from ``sim_state`` (Nav2 goals have no ``navigate/status``)."""

    def on_status(self, text: str) -> None:
        """Record an executive ~/status message."""
        self.status = json.loads(text)
        self.updates += 1

    def on_robot(self, text: str) -> None:
        """Record a sim_state message."""
        self.robot = json.loads(text)
        battery = self.robot.get('battery')
        if isinstance(battery, (int, float)):
            self.lowest_battery = min(self.lowest_battery, battery)
        results = self.robot.get('results') or {}
        if self.count_from_sim_state:
            self.goals_succeeded = results.get('succeeded', 0)
            self.goals_cancelled = results.get('canceled', 0)
            self.goals_aborted = results.get('aborted', 0)
        self.updates += 1

    def on_goal_status(self, status: int) -> None:
        """Count terminal navigation statuses."""
        if self.count_from_sim_state:
            return
        if status == 4:
            self.goals_succeeded += 1
        elif status == 5:
            self.goals_cancelled += 1
        elif status == 6:
            self.goals_aborted += 1

    @property
    def blackboard(self) -> dict[str, Any]:
        """Return the blackboard selection of the latest status."""
        return self.status.get('blackboard') or {}


def render(observed: Observed, laps_wanted: int) -> str:
    """Render the live view: tree status, active branch, counters, robot state."""
    status, robot, board = observed.status, observed.robot, observed.blackboard
    active = [p.rsplit('/', 1)[-1] for p in status.get('active', [])
              if p.rsplit('/', 1)[-1] not in ('Sequence', 'Selector')]
    lines = [
        f"tree {status.get('tree', '?')}  root {status.get('root_status', '?')}  "
        f"ticks {status.get('tick_count', 0)}",
        'active branch: ' + (' \u25b8 '.join(active) or '-'),
        f"laps {board.get('laps', 0)}/{laps_wanted}  waypoint {board.get('waypoint_index', '?')}"
        f"  reached {board.get('reached', 0)}  skipped {board.get('skipped', 0)}  "
        f"dockings {board.get('dockings', 0)}",
    ]
    if robot:
        battery = robot.get('battery', 0.0)
        lines.append(f"robot x {robot.get('x', 0):6.2f}  y {robot.get('y', 0):6.2f}  "
                     f"speed {robot.get('speed', 0):4.2f}  battery {battery * 100:5.1f}%"
                     f"{'  DOCKED' if robot.get('docked') else ''}"
                     f"{'  ESTOP' if robot.get('estop') else ''}")
    if status.get('last_failure'):
        lines.append(f"last failure: {status['last_failure']}")
    return '\n'.join(lines)


def summary(observed: Observed, elapsed: float) -> str:
    """Render the end-of-run summary."""
    board = observed.blackboard
    return '\n'.join([
        'patrol summary',
        f"  laps completed       {board.get('laps', 0)}",
        f"  waypoints reached    {board.get('reached', 0)}",
        f"  waypoints skipped    {board.get('skipped', 0)}",
        f"  dockings             {board.get('dockings', 0)}",
        f'  lowest battery       {observed.lowest_battery * 100:.1f}%',
        f'  goals cancelled      {observed.goals_cancelled}',
        f'  goals aborted        {observed.goals_aborted}',
        f"  ticks                {observed.status.get('tick_count', 0)}",
        f'  wall time            {format_duration(elapsed)}',
    ])


def _tail(path: str, lines: int = 20) -> str:
    try:
        with open(path, 'rb') as stream:
            return b''.join(stream.readlines()[-lines:]).decode('utf-8', 'replace')
    except OSError:
        return '(no log)'


def _stop(process: subprocess.Popen, name: str, timeout: float, out: TextIO) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        print(f'demo: {name} did not stop within {timeout} s; killing it', file=out)
        process.kill()
        process.wait(timeout)


def run(*, laps: int = 2, tree: Optional[str] = None, namespace: str = '',
        timeout: float = 300.0, out: TextIO = sys.stdout, live: Optional[bool] = None,
        nav2: bool = False) -> int:
    """Run the patrol demo; return the exit code (0 when the laps were completed).

    With ``nav2`` the tree defaults to ``config/patrol_nav2.yaml`` and the sim serves
    Nav2's actions (``sim_nav2:=true``); without a usable ``nav2_msgs`` this returns 2
    before starting anything.
    """
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))
    from bt_executive.ros.listener import SnapshotListener

    live = out.isatty() if live is None else live
    share = package_share()
    values = {'namespace': namespace}
    if nav2:
        from bt_executive.sim.nav2_server import load_actions
        if not load_actions()[0]:
            print(f'demo: --nav2 needs the Nav2 action types: {load_actions()[1]}', file=out)
            return 2
        values['sim_nav2'] = 'true'
        values['tree'] = os.path.join(share, 'config', 'patrol_nav2.yaml')
    if tree:
        values['tree'] = os.path.abspath(tree)
    commands = bringup.command_lines(values, sys.executable, share)
    print(f"demo: ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']} "
          f"ROS_AUTOMATIC_DISCOVERY_RANGE={os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']}",
          file=out, flush=True)
    processes: list[tuple[str, subprocess.Popen]] = []
    logs = tempfile.mkdtemp(prefix='bt_executive_demo_')
    print(f'demo: node logs in {logs}', file=out, flush=True)
    observed = Observed(count_from_sim_state=nav2)
    # the listener's node lives in the executive's namespace: relative names resolve there
    listener = SnapshotListener(namespace, on_status=observed.on_status,
                                name='bt_executive_demo')
    listener.subscribe('sim_state', lambda msg: observed.on_robot(msg.data))
    listener.subscribe('navigate/status', lambda msg: observed.on_goal_status(msg.status),
                       msg_type='action_msgs/msg/GoalStatus', depth=10, latched=False)
    started = time.monotonic()
    interrupted = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    code = 0
    final_view = ''
    try:
        for launch, argv in commands:
            print(f'demo: starting {launch.name} ({argv[2]})', file=out, flush=True)
            with open(os.path.join(logs, f'{launch.name}.log'), 'wb') as log:
                processes.append((launch.name, subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)))
        last_draw = 0.0
        while not interrupted:
            listener.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            dead = [(name, p.returncode) for name, p in processes if p.poll() is not None]
            if dead:
                print(f'demo: {dead[0][0]} exited with status {dead[0][1]}; the end of its '
                      f'log:\n{_tail(os.path.join(logs, dead[0][0] + ".log"))}', file=out)
                code = 1
                break
            if observed.blackboard.get('laps', 0) >= laps:
                break
            if now - started > timeout:
                print(f'demo: {laps} laps not completed within {format_duration(timeout)}',
                      file=out)
                code = 1
                break
            if now - last_draw >= (0.25 if live else 5.0) and observed.updates:
                last_draw = now
                text = render(observed, laps)
                print(CLEAR + text if live else text + '\n', file=out, flush=True)
        final_view = render(observed, laps)
    finally:
        signal.signal(signal.SIGINT, previous)
        for name, process in reversed(processes):  # the executive first: it cancels goals
            _stop(process, name, 10.0, out)
        listener.spin_once(timeout_sec=0.1)
        listener.close()
    if final_view:
        print(final_view, file=out)
    print(summary(observed, time.monotonic() - started), file=out, flush=True)
    return 130 if interrupted else code
