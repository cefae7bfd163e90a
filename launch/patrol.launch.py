# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Launch the patrol: the behaviour-tree executive and the built-in simulated robot.

    ros2 launch bt_executive patrol.launch.py
    ros2 launch bt_executive patrol.launch.py namespace:=robot1 groot2_port:=1667
    ros2 launch bt_executive patrol.launch.py use_sim:=false use_sim_time:=false tree:=T.yaml

``ros2 launch bt_executive patrol.launch.py --show-args`` lists the arguments.
``bt-executive demo`` starts the same nodes with the same arguments and parameter files
without ``ros2 launch`` (test/test_launch.py keeps the two in agreement).
"""

from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, EmitEvent, GroupAction, LogInfo,
                            RegisterEventHandler)
from launch.conditions import IfCondition, UnlessCondition
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node, PushRosNamespace
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare


def executive_exit_line(returncode: int) -> str:
    """Return the line the launch prints when the executive exits (wrapper scripts read it).

    ``ros2 launch`` itself ends with status 0 whatever its processes did (docs/launch.md);
    this line says how the executive ended and why.
    """
    if returncode == 0:
        return 'bt_executive: the executive stopped cleanly (exit status 0)'
    causes = {1: 'its tree file did not load, a goal cancel was not acknowledged or its '
                 'stop hung: see its log',
              2: 'a bad parameter value: see its log',
              -9: 'killed with SIGKILL: by its exit guard after a stop that hung, or by the '
                  'OOM killer'}
    return (f'bt_executive: the executive FAILED with exit status {returncode} '
            f'({causes.get(returncode, "see its log")})')


def on_executive_exit(event, context):
    """Print :func:`executive_exit_line`, then end the launch: the executive is the mission."""
    return [LogInfo(msg=executive_exit_line(event.returncode)),
            EmitEvent(event=Shutdown(reason='the executive exited'))]


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments, then start the sim and the executive in the namespace."""
    namespace = LaunchConfiguration('namespace')
    use_sim = LaunchConfiguration('use_sim')
    use_sim_time = LaunchConfiguration('use_sim_time')
    publish_clock = LaunchConfiguration('publish_clock')
    tree = LaunchConfiguration('tree')
    params_file = LaunchConfiguration('params_file')
    sim_params_file = LaunchConfiguration('sim_params_file')
    tick_mode = LaunchConfiguration('tick_mode')
    tick_rate = LaunchConfiguration('tick_rate')
    groot2_port = LaunchConfiguration('groot2_port')
    use_respawn = LaunchConfiguration('use_respawn')
    log_level = LaunchConfiguration('log_level')
    sim_nav2 = LaunchConfiguration('sim_nav2')

    declare_namespace_cmd = DeclareLaunchArgument(
        'namespace', default_value='',
        description='Namespace of every node (one robot per namespace)')

    declare_use_sim_cmd = DeclareLaunchArgument(
        'use_sim', default_value='true',
        description='Start the built-in simulated robot (false: a real robot '
                    'or Gazebo provides the interfaces)')

    declare_use_sim_time_cmd = DeclareLaunchArgument(
        'use_sim_time', default_value='true',
        description='Use /clock for time (the built-in sim and Gazebo '
                    'publish it; false on a real robot)')

    declare_publish_clock_cmd = DeclareLaunchArgument(
        'publish_clock', default_value='true',
        description='The simulated robot publishes /clock (false: it '
                    'follows /clock from elsewhere, as the robots of a fleet after the first do)')

    declare_tree_cmd = DeclareLaunchArgument(
        'tree',
        default_value=PathJoinSubstitution(
            [FindPackageShare('bt_executive'), 'config', 'patrol.yaml']),
        description='Behaviour tree file to run')

    declare_params_file_cmd = DeclareLaunchArgument(
        'params_file',
        default_value=PathJoinSubstitution(
            [FindPackageShare('bt_executive'), 'config', 'executive.yaml']),
        description='ROS parameters of the executive')

    declare_sim_params_file_cmd = DeclareLaunchArgument(
        'sim_params_file',
        default_value=PathJoinSubstitution(
            [FindPackageShare('bt_executive'), 'config', 'sim_robot.yaml']),
        description='ROS parameters of the built-in simulated robot')

    declare_tick_mode_cmd = DeclareLaunchArgument(
        'tick_mode', default_value='event',
        description="'event': tick when something the tree depends on "
                    "happens; 'periodic': tick_rate ticks per second")

    declare_tick_rate_cmd = DeclareLaunchArgument(
        'tick_rate', default_value='10.0',
        description='Executive ticks per second in periodic mode')

    declare_groot2_port_cmd = DeclareLaunchArgument(
        'groot2_port', default_value='0',
        description='Serve Groot2 monitoring on this TCP port (0: off)')

    declare_use_respawn_cmd = DeclareLaunchArgument(
        'use_respawn', default_value='false',
        description='Restart the simulated robot and the executive when '
                    'they exit (false: the whole launch ends when the executive exits)')

    declare_sim_nav2_cmd = DeclareLaunchArgument(
        'sim_nav2', default_value='auto',
        description="The built-in sim also serves Nav2's navigate_to_pose, "
                    'dock_robot and undock_robot actions (for tree:=config/patrol_nav2.yaml): '
                    "'auto' when nav2_msgs is installed, 'true' (the sim exits if it is not), "
                    "'false'")

    declare_log_level_cmd = DeclareLaunchArgument(
        'log_level', default_value='info',
        description='Log level of every node')

    sim_robot_node = Node(
        condition=IfCondition(use_sim),
        package='bt_executive',
        executable='sim_robot',
        name='sim_robot',
        output='screen',
        respawn=use_respawn,
        respawn_delay=2.0,
        parameters=[sim_params_file, {
            'publish_clock': ParameterValue(publish_clock, value_type=bool),
            'use_sim_time': ParameterValue(use_sim_time, value_type=bool),
            'nav2': ParameterValue(sim_nav2, value_type=str),
        }],
        arguments=['--ros-args', '--log-level', log_level])

    executive_node = Node(
        package='bt_executive',
        executable='executive',
        name='bt_executive',
        output='screen',
        respawn=use_respawn,
        respawn_delay=2.0,
        parameters=[params_file, {
            'tree_file': ParameterValue(tree, value_type=str),
            'tick_mode': ParameterValue(tick_mode, value_type=str),
            'tick_rate': ParameterValue(tick_rate, value_type=float),
            'groot2_port': ParameterValue(groot2_port, value_type=int),
            'use_sim_time': ParameterValue(use_sim_time, value_type=bool),
        }],
        arguments=['--ros-args', '--log-level', log_level])

    # Without respawning, the executive is the mission: when it exits, everything stops.
    shutdown_on_executive_exit = RegisterEventHandler(
        OnProcessExit(target_action=executive_node, on_exit=on_executive_exit),
        condition=UnlessCondition(use_respawn))

    bringup_group = GroupAction([
        PushRosNamespace(namespace),
        sim_robot_node,
        executive_node,
        shutdown_on_executive_exit,
    ])

    ld = LaunchDescription()

    ld.add_action(declare_namespace_cmd)
    ld.add_action(declare_use_sim_cmd)
    ld.add_action(declare_use_sim_time_cmd)
    ld.add_action(declare_publish_clock_cmd)
    ld.add_action(declare_tree_cmd)
    ld.add_action(declare_params_file_cmd)
    ld.add_action(declare_sim_params_file_cmd)
    ld.add_action(declare_tick_mode_cmd)
    ld.add_action(declare_tick_rate_cmd)
    ld.add_action(declare_groot2_port_cmd)
    ld.add_action(declare_use_respawn_cmd)
    ld.add_action(declare_log_level_cmd)
    ld.add_action(declare_sim_nav2_cmd)

    ld.add_action(bringup_group)

    return ld
