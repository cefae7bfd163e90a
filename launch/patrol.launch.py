# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Launch the patrol: the executive and (optionally) the built-in simulated robot.

Derived from ``bt_executive.app.bringup`` (the description ``bt-executive demo`` also uses):
    ros2 launch bt_executive patrol.launch.py tree:=/path/to/tree.yaml use_sim:=false
"""

from ament_index_python.packages import get_package_share_directory
from bt_executive.app import bringup
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue


def _default(argument: bringup.Argument, share: str) -> str:
    if argument.default.startswith('config/'):
        return bringup.share_path(argument.default, share)
    return argument.default


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments and the nodes of the patrol bringup."""
    share = get_package_share_directory(bringup.PACKAGE)
    actions = [DeclareLaunchArgument(a.name, default_value=_default(a, share),
                                     description=a.description)
               for a in bringup.ARGUMENTS]
    for node in bringup.NODES:
        overrides = {}
        for key, value in node.parameters.items():
            if isinstance(value, bringup.Arg):
                value_type = bool if key == 'use_sim_time' else (
                    float if key == 'tick_rate' else str)
                value = ParameterValue(LaunchConfiguration(value.name), value_type=value_type)
            overrides[key] = value
        actions.append(Node(
            package=bringup.PACKAGE,
            executable=node.executable,
            name=node.name,
            namespace=LaunchConfiguration('namespace'),
            parameters=[LaunchConfiguration(node.params_file), overrides],
            arguments=['--ros-args', '--log-level', LaunchConfiguration('log_level')],
            condition=IfCondition(LaunchConfiguration(node.condition))
            if node.condition else None,
            output='screen'))
    return LaunchDescription(actions)
