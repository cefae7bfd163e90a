# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The patrol bringup as data: what ``bt-executive demo`` starts, argument by argument.

``launch/patrol.launch.py`` (one robot) and ``launch/fleet.launch.py`` (N robots) are
written by hand for ``ros2 launch``; ``bt-executive demo`` starts the same nodes as
subprocesses from the description here. ``test/test_launch.py`` reads the launch files
and checks that they declare the same arguments (names, defaults, descriptions) and start
the same executables with the same names, parameter files and parameters, so the two
ways of starting the patrol cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Mapping, Optional

import yaml

PACKAGE = 'bt_executive'

#: Console scripts (setup.py ``entry_points``) and the modules whose ``main`` they run.
EXECUTABLES = {
    'executive': 'bt_executive.ros.executive',
    'fleet_executive': 'bt_executive.ros.fleet',
    'sim_robot': 'bt_executive.sim.robot',
}
#: The module every program starts from, as the console scripts do (``-m PROGRAMS name``).
PROGRAMS = 'bt_executive.app.programs'

#: Seconds a respawned node waits before it starts again (``use_respawn``).
RESPAWN_DELAY = 2.0


@dataclasses.dataclass(frozen=True)
class Argument:
    """A launch argument: its name, default and description.

    A default of the form ``config/<file>`` is a file of the package's share directory.
    """

    name: str
    default: str
    description: str


@dataclasses.dataclass(frozen=True)
class Arg:
    """A ROS parameter set from a launch argument, with the parameter's type."""

    name: str
    kind: type = str


@dataclasses.dataclass(frozen=True)
class NodeLaunch:
    """One node to start.

    Attributes:
        executable: console script name (a key of :data:`EXECUTABLES`)
        name: node name
        params_file: the argument naming the node's ROS parameters file
        parameters: parameter overrides from launch arguments
        condition: the boolean argument that must be true to start the node
    """

    executable: str
    name: str
    params_file: str
    parameters: Mapping[str, Arg]
    condition: Optional[str] = None

    @property
    def module(self) -> str:
        """Return the Python module the executable runs."""
        return EXECUTABLES[self.executable]


ARGUMENTS = (
    Argument('namespace', '', 'Namespace of every node (one robot per namespace)'),
    Argument('use_sim', 'true', 'Start the built-in simulated robot (false: a real robot '
             'or Gazebo provides the interfaces)'),
    Argument('use_sim_time', 'true', 'Use /clock for time (the built-in sim and Gazebo '
             'publish it; false on a real robot)'),
    Argument('publish_clock', 'true', 'The simulated robot publishes /clock (false: it '
             'follows /clock from elsewhere, as the robots of a fleet after the first do)'),
    Argument('tree', 'config/patrol.yaml', 'Behaviour tree file to run'),
    Argument('params_file', 'config/executive.yaml', 'ROS parameters of the executive'),
    Argument('sim_params_file', 'config/sim_robot.yaml',
             'ROS parameters of the built-in simulated robot'),
    Argument('tick_mode', 'event', "'event': tick when something the tree depends on "
             "happens; 'periodic': tick_rate ticks per second"),
    Argument('tick_rate', '10.0', 'Executive ticks per second in periodic mode'),
    Argument('groot2_port', '0', 'Serve Groot2 monitoring on this TCP port (0: off)'),
    Argument('use_respawn', 'false', 'Restart the simulated robot and the executive when '
             'they exit (false: the whole launch ends when the executive exits)'),
    Argument('log_level', 'info', 'Log level of every node'),
    Argument('realtime', 'false', 'Run the executive in the real-time mode: its reacting '
             'threads at SCHED_FIFO 10, memory locked (needs CAP_SYS_NICE or ulimit -r 10, '
             'else one warning and normal priority; docs/realtime.md)'),
    Argument('sim_nav2', 'auto', "The built-in sim also serves Nav2's navigate_to_pose, "
             'dock_robot and undock_robot actions (for tree:=config/patrol_nav2.yaml): '
             "'auto' when nav2_msgs is installed, 'true' (the sim exits if it is not), "
             "'false'"),
)

NODES = (
    NodeLaunch('sim_robot', 'sim_robot', 'sim_params_file',
               {'publish_clock': Arg('publish_clock', bool),
                'use_sim_time': Arg('use_sim_time', bool), 'nav2': Arg('sim_nav2')},
               condition='use_sim'),
    NodeLaunch('executive', 'bt_executive', 'params_file',
               {'tree_file': Arg('tree'), 'tick_mode': Arg('tick_mode'),
                'tick_rate': Arg('tick_rate', float), 'groot2_port': Arg('groot2_port', int),
                'use_sim_time': Arg('use_sim_time', bool), 'realtime': Arg('realtime', bool)}),
)

#: Arguments the fleet sets for each robot (see :func:`robot_arguments`).
PER_ROBOT = ('namespace', 'publish_clock', 'groot2_port')

FLEET_ARGUMENTS = (
    Argument('robots', '3', 'Number of robots: robot1 .. robotN, each with its own '
             "simulated robot and executive; the first robot's sim publishes /clock"),
    *(argument for argument in ARGUMENTS if argument.name not in PER_ROBOT),
    Argument('groot2_port', '0', 'Serve Groot2 monitoring: robot i on this TCP port + i - 1 '
             '(0: off)'),
    Argument('shared_process', 'false', 'Run every executive in one process '
             '(fleet_executive) and every sim in another (sim_robot --robots N), behind the '
             'same interfaces; use_respawn does not apply'),
    Argument('executive_processes', '1', 'With shared_process:=true: split the executives '
             'over this many fleet_executive processes (robot i in process (i - 1) mod K); '
             'one per core uses every core'),
)
"""``launch/fleet.launch.py``: ``robots``, the patrol's arguments but the per-robot ones."""


def argument(name: str, arguments: tuple[Argument, ...] = ARGUMENTS) -> Argument:
    """Return the launch argument called ``name``."""
    for item in arguments:
        if item.name == name:
            return item
    raise KeyError(name)


def robot_arguments(index: int, groot2_port: int) -> dict[str, str]:
    """Return the arguments of robot ``index`` (1-based) of a fleet.

    Robot i runs in namespace ``robot<i>``; only the first robot's sim publishes /clock
    (exactly one clock source); Groot2 ports count up from ``groot2_port`` (0: off).

    Raises:
        ValueError: if robot ``index``'s Groot2 port would be above 65535.
    """
    if groot2_port and groot2_port + index - 1 > 65535:
        raise ValueError(f'groot2_port {groot2_port}: robot {index} would serve Groot2 on '
                         f'{groot2_port + index - 1}, above 65535 (robot i serves on '
                         'groot2_port + i - 1)')
    return {'namespace': f'robot{index}',
            'publish_clock': 'true' if index == 1 else 'false',
            'groot2_port': str(groot2_port + index - 1) if groot2_port else '0'}


def executive_groups(robots: int, processes: int) -> list[range]:
    """Return the robot indexes (from 1) each fleet_executive process hosts, in order.

    ``executive_processes:=K`` deals the robots out like cards: robot i goes to process
    (i - 1) mod K, so each process hosts every K-th robot (a range with step K), which
    kept the tick jitter lower than consecutive blocks (BENCHMARKS.md, "Why the tricks
    are there").

    Raises:
        ValueError: ``processes`` is below 1 or above ``robots``.
    """
    if not 1 <= processes <= robots:
        raise ValueError(f'executive_processes:={processes}: expected 1 to {robots} (the '
                         'number of robots)')
    return [range(first, robots + 1, processes) for first in range(1, processes + 1)]


def share_path(relative: str, share_directory: str) -> str:
    """Resolve a ``config/...`` default against the package share directory."""
    return os.path.join(share_directory, relative)


def parse_bool(text: str) -> bool:
    """Read a launch-style boolean ('true'/'false', any case)."""
    lowered = str(text).strip().lower()
    if lowered in ('true', '1', 'yes', 'on'):
        return True
    if lowered in ('false', '0', 'no', 'off'):
        return False
    raise ValueError(f'expected true or false, got {text!r}')


def ros_value(text: str, kind: type) -> str:
    """Return ``text`` as a ``-p name:=value`` value of the parameter type ``kind``.

    Raises:
        ValueError: ``text`` is not a value of that type.
    """
    if kind is bool:
        return 'true' if parse_bool(text) else 'false'
    if kind is int:
        return str(int(text))
    if kind is float:
        return repr(float(text))
    try:
        plain = bool(text) and isinstance(yaml.safe_load(text), str)
    except yaml.YAMLError:
        plain = False
    # a string that YAML would read as something else ('123', 'true', '') is quoted
    return text if plain else "'" + text.replace("'", "''") + "'"


def resolve(values: Mapping[str, str], share_directory: str) -> dict[str, str]:
    """Return the value of every argument: given, else the default (``config/`` resolved).

    Raises:
        KeyError: ``values`` names an argument that does not exist.
    """
    unknown = sorted(set(values) - {item.name for item in ARGUMENTS})
    if unknown:
        known = ', '.join(item.name for item in ARGUMENTS)
        raise KeyError(f'unknown launch argument {unknown[0]!r} (known: {known})')
    resolved = {}
    for item in ARGUMENTS:
        value = values.get(item.name, item.default)
        if value == item.default and value.startswith('config/'):
            value = share_path(value, share_directory)
        resolved[item.name] = value
    return resolved


def command_lines(values: Mapping[str, str], python: str,
                  share_directory: str) -> list[tuple[NodeLaunch, list[str]]]:
    """Resolve the node descriptions into command lines (what the demo starts).

    Args:
        values: launch argument values; missing ones take their defaults
        python: the Python interpreter to run the modules with
        share_directory: where ``config/...`` defaults resolve

    Returns:
        (node, argv) for every node whose condition holds.

    Raises:
        KeyError: an unknown argument.
        ValueError: a value that does not fit its parameter's type.
    """
    resolved = resolve(values, share_directory)
    commands = []
    for node in NODES:
        if node.condition is not None and not parse_bool(resolved[node.condition]):
            continue
        argv = [python, '-m', PROGRAMS, node.executable,
                '--ros-args', '-r', f'__node:={node.name}',
                '--params-file', resolved[node.params_file],
                '--log-level', resolved['log_level']]
        if resolved['namespace']:
            argv += ['-r', f"__ns:=/{resolved['namespace'].strip('/')}"]
        for key, arg in node.parameters.items():
            try:
                value = ros_value(resolved[arg.name], arg.kind)
            except ValueError:
                raise ValueError(f'{arg.name}:={resolved[arg.name]}: expected '
                                 f'{arg.kind.__name__}') from None
            argv += ['-p', f'{key}:={value}']
        commands.append((node, argv))
    return commands
