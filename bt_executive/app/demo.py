# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive demo``: the patrol on the built-in simulated robot, without ``ros2 launch``.

Starts the nodes of :mod:`bt_executive.app.bringup` as subprocesses with the same arguments
and parameter files as ``launch/patrol.launch.py`` (``--robots N``: as
``launch/fleet.launch.py``, robot1 .. robotN on one /clock), shows the live tree and robot
state in the terminal, and ends when every robot completed its laps (or on Ctrl-C) with a
summary.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import tempfile
import time
from typing import Any, Mapping, Optional, TextIO

from bt_executive.app import bringup
from bt_executive.app.processes import Processes
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
    #: seconds from the start of the demo to the end of the wanted laps
    done_after: Optional[float] = None
    count_from_sim_state: bool = False
    """Take the goal counts from ``sim_state`` (Nav2 goals have no ``navigate/status``)."""

    def on_status(self, text: str) -> None:
        """Record an executive ~/status message."""
        self.status = json.loads(text)
        self.updates += 1

    def on_robot(self, text: str) -> None:
        """Record a sim_state message."""
        self.robot = json.loads(text)
        results = self.robot.get('results') or {}
        if self.count_from_sim_state:
            self.goals_succeeded = results.get('succeeded', 0)
            self.goals_cancelled = results.get('canceled', 0)
            self.goals_aborted = results.get('aborted', 0)
        battery = self.robot.get('battery')
        if isinstance(battery, (int, float)):
            self.lowest_battery = min(self.lowest_battery, battery)
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


def parse_arguments(items: list[str]) -> dict[str, str]:
    """Read ``NAME:=VALUE`` launch arguments (as ``ros2 launch`` takes them).

    Raises:
        ValueError: an item without ``:=`` or an unknown name.
    """
    known = [argument.name for argument in bringup.ARGUMENTS]
    values = {}
    for item in items:
        name, separator, value = item.partition(':=')
        if not separator:
            raise ValueError(f'{item!r}: expected NAME:=VALUE')
        if name not in known:
            raise ValueError(f"unknown launch argument {name!r} (known: {', '.join(known)})")
        values[name] = value
    return values


@dataclasses.dataclass
class Robot:
    """One robot of the demo: its namespace, its nodes' command lines, what was seen."""

    namespace: str
    commands: list[tuple[bringup.NodeLaunch, list[str]]]
    observed: Observed = dataclasses.field(default_factory=Observed)

    @property
    def label(self) -> str:
        """Return the robot's name in the output (its namespace, or ``patrol``)."""
        return self.namespace.strip('/') or 'patrol'

    def topic(self, name: str) -> str:
        """Return the absolute name of a topic relative to the robot's namespace."""
        space = self.namespace.strip('/')
        return f'/{space}/{name}' if space else f'/{name}'


def plan(values: Mapping[str, str], robots: Optional[int], share: str, *,
         shared: bool = False, processes: int = 1) -> list[Robot]:
    """Return the robots to start: the patrol once, or a fleet of ``robots``.

    ``shared`` (``shared_process:=true``): the first robot carries the command lines of
    the whole fleet, every executive in one ``fleet_executive`` (or in ``processes`` of
    them, ``executive_processes:=K``) and every sim in one ``sim_robot --namespaces``;
    the others carry none.

    Raises:
        KeyError: an unknown launch argument.
        ValueError: a value that does not fit, or a per-robot argument given to a fleet.
    """
    if processes != 1 and not shared:
        raise ValueError('executive_processes applies to a shared process (--robots N '
                         '--shared)')
    if robots is None:
        values = dict(values)
        return [Robot(values.get('namespace', ''),
                      bringup.command_lines(values, sys.executable, share))]
    if robots < 1:
        raise ValueError(f'--robots {robots}: expected at least 1 robot')
    if shared and bringup.parse_bool(values.get('use_respawn', 'false')):
        raise ValueError('use_respawn does not apply to a shared process')
    groups = bringup.executive_groups(robots, processes)
    fixed = sorted(set(values) & {'namespace', 'publish_clock'})
    if fixed:
        raise ValueError(f'{fixed[0]} is set per robot in a fleet (robot1 .. robotN; only '
                         "the first robot's sim publishes /clock)")
    port = int(values.get('groot2_port', '0'))
    fleet = []
    for index in range(1, robots + 1):
        each = {**values, **bringup.robot_arguments(index, port)}
        fleet.append(Robot(each['namespace'],
                           bringup.command_lines(each, sys.executable, share)))
    if shared:
        fleet[0].commands = shared_commands(fleet[0].commands,
                                            [robot.namespace for robot in fleet], port,
                                            groups)
        for robot in fleet[1:]:
            robot.commands = []
    return fleet


def shared_commands(commands: list[tuple[bringup.NodeLaunch, list[str]]],
                    namespaces: list[str], groot2_port: int,
                    groups: Optional[list[range]] = None
                    ) -> list[tuple[bringup.NodeLaunch, list[str]]]:
    """Turn the first robot's command lines into those of the whole fleet's processes.

    The same parameter files and parameters, the first robot's (its sim publishes
    /clock; ``sim_robot --namespaces`` makes the others follow it), with ``--namespaces``
    in place of the namespace remapping. One sim process; one executive process per
    group of robot indexes (:func:`~bt_executive.app.bringup.executive_groups`; default:
    one for all), robot i still serving Groot2 on ``groot2_port + i - 1``.
    """
    programs = {'executive': 'fleet_executive', 'sim_robot': 'sim_robot'}
    result = []
    for launch, argv in commands:
        argv = list(argv)
        argv[argv.index('-m') + 2] = programs[launch.executable]
        remap = argv.index(f'__ns:=/{namespaces[0]}')
        del argv[remap - 1:remap + 1]
        ros = argv.index('--ros-args')
        if launch.executable != 'executive':
            result.append((launch, argv[:ros] + ['--namespaces', *namespaces] + argv[ros:]))
            continue
        for group in groups or [range(1, len(namespaces) + 1)]:
            extra = ['--namespaces', *(namespaces[index - 1] for index in group),
                     '--groot2-port', str(groot2_port)]
            if group.step != 1:  # robot i keeps groot2_port + i - 1 (fleet.py)
                extra += ['--split', f'{group.start}/{group.step}']
            result.append((launch, argv[:ros] + extra + argv[ros:]))
    return result


def render_fleet(robots: list[Robot], laps_wanted: int, clock_publishers: int) -> str:
    """Render one line per robot, under a line naming the /clock publishers."""
    lines = [f'fleet of {len(robots)} robots  /clock publishers {clock_publishers}']
    for robot in robots:
        status, board, state = robot.observed.status, robot.observed.blackboard, \
            robot.observed.robot
        active = [p.rsplit('/', 1)[-1] for p in status.get('active', [])
                  if p.rsplit('/', 1)[-1] not in ('Sequence', 'Selector')]
        battery = state.get('battery')
        branch = ' \u25b8 '.join(active[-2:]) or '-'
        lines.append(
            f"{robot.label:<8} laps {board.get('laps', 0)}/{laps_wanted}  reached "
            f"{board.get('reached', 0):>3}  dockings {board.get('dockings', 0)}  battery "
            + (f'{battery * 100:5.1f}%' if isinstance(battery, (int, float)) else '    ?')
            + f"  ticks {status.get('tick_count', 0):>5}  {branch}")
    return '\n'.join(lines)


def summary_fleet(robots: list[Robot], clock_publishers: int, elapsed: float) -> str:
    """Render the fleet's end-of-run report: one row per robot, the /clock publishers."""
    rows = ['fleet summary',
            '  robot     laps  reached  skipped  dockings  lowest battery  cancelled  '
            'ticks  laps done after']
    for robot in robots:
        observed, board = robot.observed, robot.observed.blackboard
        done = '-' if observed.done_after is None else format_duration(observed.done_after)
        rows.append(f"  {robot.label:<9} {board.get('laps', 0):>4}  {board.get('reached', 0):>7}"
                    f"  {board.get('skipped', 0):>7}  {board.get('dockings', 0):>8}  "
                    f'{observed.lowest_battery * 100:>13.1f}%  {observed.goals_cancelled:>9}  '
                    f"{observed.status.get('tick_count', 0):>5}  {done:>15}")
    rows.append(f'  /clock publishers  {clock_publishers} (the most seen at once)')
    rows.append(f'  wall time          {format_duration(elapsed)}')
    return '\n'.join(rows)


def _listen(listener: Any, robot: Robot) -> None:
    """Subscribe the listener to the robot's status, sim state and navigation statuses."""
    from bt_executive.ros.listener import topic_name

    observed = robot.observed
    listener.subscribe(topic_name(robot.namespace, 'bt_executive', 'status'),
                       lambda msg: observed.on_status(msg.data))
    listener.subscribe(robot.topic('sim_state'), lambda msg: observed.on_robot(msg.data))
    listener.subscribe(robot.topic('navigate/status'),
                       lambda msg: observed.on_goal_status(msg.status),
                       msg_type='action_msgs/msg/GoalStatus', depth=10, latched=False)


def run(*, laps: int = 2, tree: Optional[str] = None, namespace: str = '',
        robots: Optional[int] = None, groot2_port: Optional[int] = None,
        arguments: Optional[Mapping[str, str]] = None, timeout: float = 300.0,
        out: TextIO = sys.stdout, live: Optional[bool] = None, nav2: bool = False,
        shared: bool = False, processes: int = 1, err: Optional[TextIO] = None) -> int:
    """Run the patrol demo; return the exit code (0 when every robot completed its laps).

    With ``nav2`` the tree defaults to ``config/patrol_nav2.yaml`` and the sims serve
    Nav2's actions (``sim_nav2:=true``); without a usable ``nav2_msgs`` this returns 2
    before starting anything.

    Args:
        laps: laps every robot must complete
        tree: the tree file (the ``tree`` launch argument)
        namespace: the namespace of the single patrol (not with ``robots``)
        robots: start a fleet of this many robots (``launch/fleet.launch.py``)
        groot2_port: serve Groot2 on this port (a fleet: robot i on port + i - 1)
        arguments: launch arguments (``launch/patrol.launch.py``) by name
        timeout: wall-clock seconds before giving up
        out: where the output goes
        live: redraw in place (default: when ``out`` is a terminal)
        err: where an argument that cannot work is reported (default: standard error)
        nav2: run ``patrol_nav2.yaml`` against the sims' Nav2 actions
        shared: with ``robots``, every executive in one process and every sim in another
        processes: with ``shared``, split the executives over this many processes

    Returns:
        0 on success, 1 on a failure (a node exited, the timeout), 2 on invalid
        arguments, 130 on Ctrl-C.
    """
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))
    values = dict(arguments or {})
    if namespace:
        values['namespace'] = namespace
    if nav2:
        from bt_executive.sim.nav2_server import load_actions
        usable, why = load_actions()
        if not usable:
            print(f'demo: --nav2 needs the Nav2 action types: {why}', file=err or sys.stderr)
            return 2
        values['sim_nav2'] = 'true'
        values.setdefault('tree', os.path.join(package_share(), 'config', 'patrol_nav2.yaml'))
    if tree:
        values['tree'] = os.path.abspath(tree)
    if groot2_port is not None:
        values['groot2_port'] = str(groot2_port)
    try:
        if shared and robots is None:
            raise ValueError('--shared needs --robots N')
        fleet = plan(values, robots, package_share(), shared=shared, processes=processes)
        respawn = bringup.parse_bool(values.get('use_respawn', 'false'))
    except (KeyError, ValueError) as error:
        print(f'demo: {error.args[0]}', file=err or sys.stderr)
        return 2
    from bt_executive.ros.listener import SnapshotListener

    live = out.isatty() if live is None else live
    print(f"demo: ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']} "
          f"ROS_AUTOMATIC_DISCOVERY_RANGE={os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']}",
          file=out, flush=True)
    logs = tempfile.mkdtemp(prefix='bt_executive_demo_')
    print(f'demo: node logs in {logs}', file=out, flush=True)
    processes = Processes(logs, respawn, bringup.RESPAWN_DELAY, out)
    listener = SnapshotListener(name='bt_executive_demo')
    for robot in fleet:
        robot.observed.count_from_sim_state = nav2
        _listen(listener, robot)
    started = time.monotonic()
    interrupted = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    code = 0
    final_view = ''
    clock = [0]  # the most /clock publishers seen at once

    def view() -> str:
        if robots is None:
            return render(fleet[0].observed, laps)
        return render_fleet(fleet, laps, clock[0])

    def start(executable: str) -> None:
        for robot in fleet:
            mine = [(launch, argv) for launch, argv in robot.commands
                    if launch.executable == executable]
            for number, (launch, argv) in enumerate(mine, 1):
                owner = 'fleet' if shared else robot.label
                label = f'{owner}/{launch.name}' if robots else launch.name
                if len(mine) > 1:  # executive_processes: fleet/bt_executive1, 2, ...
                    label += str(number)
                print(f'demo: starting {label} ({argv[2]})', file=out, flush=True)
                processes.start(label, launch.executable, argv)

    try:
        # the sims first; the executives once every sim is up (its latched sim_state
        # arrived), so no executive's first goal waits out discovery on a loaded machine
        start('sim_robot')
        sims = [robot for robot in fleet
                if any(launch.executable == 'sim_robot' for launch, _ in robot.commands)]
        if shared and sims:  # one process for every sim
            sims = fleet
        while not interrupted and code == 0 \
                and not all(robot.observed.robot for robot in sims):
            listener.spin_once(timeout_sec=0.1)
            failure = processes.check(time.monotonic())
            if failure or time.monotonic() - started > timeout:
                print(failure or f'demo: the simulated robots did not come up within '
                      f'{format_duration(timeout)}', file=out)
                code = 1
        if not interrupted and code == 0:
            start('executive')
        last_draw = 0.0
        while not interrupted and code == 0:
            listener.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            failure = processes.check(now)
            if failure:
                print(failure, file=out)
                code = 1
                break
            clock[0] = max(clock[0], listener.node.count_publishers('/clock'))
            for robot in fleet:
                if robot.observed.done_after is None \
                        and robot.observed.blackboard.get('laps', 0) >= laps:
                    robot.observed.done_after = now - started
            if all(robot.observed.done_after is not None for robot in fleet):
                break
            if now - started > timeout:
                late = [robot.label for robot in fleet if robot.observed.done_after is None]
                print(f'demo: {laps} laps not completed within {format_duration(timeout)} '
                      f"by {', '.join(late)}", file=out)
                code = 1
                break
            if now - last_draw >= (0.25 if live else 5.0) \
                    and any(robot.observed.updates for robot in fleet):
                last_draw = now
                text = view()
                print(CLEAR + text if live else text + '\n', file=out, flush=True)
        final_view = view()
    finally:
        signal.signal(signal.SIGINT, previous)
        processes.stop()
        listener.spin_once(timeout_sec=0.1)
        listener.close()
    if final_view:
        print(final_view, file=out)
    elapsed = time.monotonic() - started
    if robots is None:
        print(summary(fleet[0].observed, elapsed), file=out, flush=True)
    else:
        print(summary_fleet(fleet, clock[0], elapsed), file=out, flush=True)
    return 130 if interrupted else code
