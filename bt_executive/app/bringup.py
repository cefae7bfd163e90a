# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The patrol bringup as data: launch arguments and nodes, shared by every launcher.

``launch/patrol.launch.py`` turns this description into launch_ros actions; ``bt-executive
demo`` turns the same description into subprocess command lines. Both read the same
parameter files, so the two ways of starting the patrol cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Mapping, Optional, Union

PACKAGE = 'bt_executive'

#: Console scripts (setup.py ``entry_points``) and the modules they run.
EXECUTABLES = {
    'executive': 'bt_executive.ros.executive',
    'sim_robot': 'bt_executive.sim.robot',
}


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
    """A reference to a launch argument's value inside a node description."""

    name: str


@dataclasses.dataclass(frozen=True)
class NodeLaunch:
    """One node to start.

    Attributes:
        executable: console script name (a key of :data:`EXECUTABLES`)
        name: node name
        params_file: the argument naming the node's ROS parameters file
        parameters: parameter overrides (literals or :class:`Arg` references)
        condition: the boolean argument that must be true to start the node
    """

    executable: str
    name: str
    params_file: str
    parameters: Mapping[str, Union[str, float, bool, Arg]]
    condition: Optional[str] = None

    @property
    def module(self) -> str:
        """Return the Python module the executable runs."""
        return EXECUTABLES[self.executable]


ARGUMENTS = (
    Argument('tree', 'config/patrol.yaml', 'behaviour tree file to run'),
    Argument('use_sim', 'true', 'start the built-in simulated robot (false: a real robot '
             'or Gazebo provides the interfaces)'),
    Argument('use_sim_time', 'true', 'use /clock for time (the built-in sim and Gazebo '
             'publish it; false on a real robot)'),
    Argument('namespace', '', 'namespace of every node (one robot per namespace)'),
    Argument('tick_mode', 'event', "'event': tick when something the tree depends on "
             "happens; 'periodic': tick_rate ticks per second"),
    Argument('tick_rate', '10.0', 'executive ticks per second in periodic mode'),
    Argument('log_level', 'info', 'log level of every node'),
    Argument('params_file', 'config/executive.yaml', 'ROS parameters of the executive'),
    Argument('sim_params_file', 'config/sim_robot.yaml',
             'ROS parameters of the built-in simulated robot'),
    Argument('sim_nav2', 'auto', "the built-in sim also serves Nav2's navigate_to_pose, "
             'dock_robot and undock_robot actions (for tree:=config/patrol_nav2.yaml): '
             "'auto' when nav2_msgs is installed, 'true' (the sim exits if it is not), "
             "'false'"),
)

NODES = (
    NodeLaunch('sim_robot', 'sim_robot', 'sim_params_file', {'nav2': Arg('sim_nav2')},
               condition='use_sim'),
    NodeLaunch('executive', 'bt_executive', 'params_file',
               {'tree_file': Arg('tree'), 'tick_mode': Arg('tick_mode'),
                'tick_rate': Arg('tick_rate'),
                'use_sim_time': Arg('use_sim_time')}),
)


def argument(name: str) -> Argument:
    """Return the launch argument called ``name``."""
    for item in ARGUMENTS:
        if item.name == name:
            return item
    raise KeyError(name)


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


def _ros_value(value: Union[str, float, bool]) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def command_lines(values: Mapping[str, str], python: str,
                  share_directory: str) -> list[tuple[NodeLaunch, list[str]]]:
    """Resolve the node descriptions into command lines (what the demo starts).

    Args:
        values: launch argument values; missing ones take their defaults
        python: the Python interpreter to run the modules with
        share_directory: where ``config/...`` defaults resolve

    Returns:
        (node, argv) for every node whose condition holds.
    """
    resolved = {}
    for item in ARGUMENTS:
        value = values.get(item.name, item.default)
        if value == item.default and value.startswith('config/'):
            value = share_path(value, share_directory)
        resolved[item.name] = value
    commands = []
    for node in NODES:
        if node.condition is not None and not parse_bool(resolved[node.condition]):
            continue
        argv = [python, '-m', node.module, '--ros-args', '-r', f'__node:={node.name}',
                '--params-file', resolved[node.params_file],
                '--log-level', resolved['log_level']]
        if resolved['namespace']:
            argv += ['-r', f"__ns:=/{resolved['namespace'].strip('/')}"]
        for key, value in node.parameters.items():
            if isinstance(value, Arg):
                value = resolved[value.name]
                if key == 'use_sim_time':
                    value = parse_bool(value)
            argv += ['-p', f'{key}:={_ros_value(value)}']
        commands.append((node, argv))
    return commands
