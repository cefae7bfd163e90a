# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Launch a fleet: N patrols (patrol.launch.py), robot1 .. robotN, on one /clock.

    ros2 launch bt_executive fleet.launch.py robots:=3
    ros2 launch bt_executive fleet.launch.py robots:=2 groot2_port:=1667

    ros2 launch bt_executive fleet.launch.py robots:=30 shared_process:=true

Every robot gets its own namespace, simulated robot and executive. Exactly one process
publishes /clock: the first robot's sim; the other sims and every executive follow it
(use_sim_time). Robot i serves Groot2 on groot2_port + i - 1 (when groot2_port is not 0).
``bt-executive demo --robots N`` starts the same fleet without ``ros2 launch``.

With ``shared_process:=true`` the executives run in one ``fleet_executive`` process and
the sims in one ``sim_robot --robots N`` process, behind the same ROS interfaces (each
executive its own namespace, parameters and services; docs/launch.md): what lets a small
machine run 30 robots (BENCHMARKS.md, scale). ``executive_processes:=K`` splits the
executives over K such processes, one per core: 40 robots on two cores.
"""

from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, EmitEvent, GroupAction,
                            IncludeLaunchDescription, LogInfo, OpaqueFunction,
                            RegisterEventHandler)
from launch.conditions import IfCondition
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare


def robot_arguments(index: int, groot2_port: int) -> dict[str, str]:
    """Return the arguments that differ between robots, for robot ``index`` (from 1)."""
    if groot2_port and groot2_port + index - 1 > 65535:
        raise ValueError(f'groot2_port:={groot2_port}: robot {index} would serve Groot2 on '
                         f'{groot2_port + index - 1}, above 65535 (robot i serves on '
                         'groot2_port + i - 1)')
    return {
        'namespace': f'robot{index}',
        # exactly one clock source: the first robot's sim
        'publish_clock': 'true' if index == 1 else 'false',
        'groot2_port': str(groot2_port + index - 1) if groot2_port else '0',
    }


def executive_groups(robots: int, processes: int) -> list[range]:
    """Return the robot indexes (from 1) each fleet_executive process hosts, in order."""
    if not 1 <= processes <= robots:
        raise ValueError(f'executive_processes:={processes}: expected 1 to {robots} (the '
                         'number of robots)')
    # dealt out: robot i in process (i - 1) mod K
    return [range(first, robots + 1, processes) for first in range(1, processes + 1)]


def launch_robots(context):
    """Include patrol.launch.py once per robot."""
    robots = int(LaunchConfiguration('robots').perform(context))
    if robots < 1:
        raise ValueError(f'robots:={robots}: expected at least 1 robot')
    groot2_port = int(LaunchConfiguration('groot2_port').perform(context))
    processes = int(LaunchConfiguration('executive_processes').perform(context))
    if LaunchConfiguration('shared_process').perform(context).strip().lower() == 'true':
        return launch_shared(robots, groot2_port, executive_groups(robots, processes))
    if processes != 1:
        raise ValueError(f'executive_processes:={processes} applies to shared_process:=true')
    patrol_launch = PathJoinSubstitution(
        [FindPackageShare('bt_executive'), 'launch', 'patrol.launch.py'])

    actions = []
    for index in range(1, robots + 1):
        launch_arguments = {
            'use_sim': LaunchConfiguration('use_sim'),
            'use_sim_time': LaunchConfiguration('use_sim_time'),
            'tree': LaunchConfiguration('tree'),
            'params_file': LaunchConfiguration('params_file'),
            'sim_params_file': LaunchConfiguration('sim_params_file'),
            'tick_mode': LaunchConfiguration('tick_mode'),
            'tick_rate': LaunchConfiguration('tick_rate'),
            'use_respawn': LaunchConfiguration('use_respawn'),
            'log_level': LaunchConfiguration('log_level'),
            'sim_nav2': LaunchConfiguration('sim_nav2'),
            'realtime': LaunchConfiguration('realtime'),
            **robot_arguments(index, groot2_port),
        }
        actions.append(GroupAction([
            LogInfo(msg=[f'Launching robot{index}: publish_clock ',
                         launch_arguments['publish_clock'], ', groot2_port ',
                         launch_arguments['groot2_port']]),
            IncludeLaunchDescription(
                PythonLaunchDescriptionSource(patrol_launch),
                launch_arguments=launch_arguments.items()),
        ]))
    return actions


def launch_shared(robots: int, groot2_port: int, groups: list[range]):
    """Start every sim in one process, the executives in one per group (shared_process)."""
    namespaces = [robot_arguments(index, groot2_port)['namespace']
                  for index in range(1, robots + 1)]
    log_level = LaunchConfiguration('log_level')
    use_sim_time = LaunchConfiguration('use_sim_time')
    sims = Node(
        condition=IfCondition(LaunchConfiguration('use_sim')),
        package='bt_executive', executable='sim_robot', output='screen',
        parameters=[LaunchConfiguration('sim_params_file'), {
            # the first robot's sim publishes /clock; sim_robot --robots makes the others
            # follow it
            'publish_clock': True,
            'use_sim_time': ParameterValue(use_sim_time, value_type=bool),
            'nav2': ParameterValue(LaunchConfiguration('sim_nav2'), value_type=str),
        }],
        arguments=['--namespaces', *namespaces, '--ros-args', '--log-level', log_level])
    actions = [LogInfo(msg=f'Launching {robots} robots: one sim process, {len(groups)} '
                           f"executive process(es): {', '.join(namespaces)}"), sims]
    for group in groups:
        # --split: robot i serves Groot2 on groot2_port + i - 1, whichever process hosts
        # it, and the processes' ticks interleave
        split = ['--split', f'{group.start}/{group.step}'] if len(groups) > 1 else []
        executives = Node(
            package='bt_executive', executable='fleet_executive', output='screen',
            parameters=[LaunchConfiguration('params_file'), {
                'tree_file': ParameterValue(LaunchConfiguration('tree'), value_type=str),
                'tick_mode': ParameterValue(LaunchConfiguration('tick_mode'), value_type=str),
                'tick_rate': ParameterValue(LaunchConfiguration('tick_rate'),
                                            value_type=float),
                'use_sim_time': ParameterValue(use_sim_time, value_type=bool),
                'realtime': ParameterValue(LaunchConfiguration('realtime'), value_type=bool),
            }],
            arguments=['--namespaces', *(namespaces[index - 1] for index in group),
                       '--groot2-port', str(groot2_port), *split,
                       '--ros-args', '--log-level', log_level])
        actions += [
            executives,
            # the executives are the mission: when a process of them exits, all stops
            RegisterEventHandler(OnProcessExit(
                target_action=executives,
                on_exit=[EmitEvent(event=Shutdown(reason='a fleet executive exited'))])),
        ]
    return actions


def generate_launch_description() -> LaunchDescription:
    """Declare the fleet's arguments, then include one patrol per robot."""
    declare_robots_cmd = DeclareLaunchArgument(
        'robots', default_value='3',
        description='Number of robots: robot1 .. robotN, each with its own '
                    "simulated robot and executive; the first robot's sim publishes /clock")

    declare_use_sim_cmd = DeclareLaunchArgument(
        'use_sim', default_value='true',
        description='Start the built-in simulated robot (false: a real robot '
                    'or Gazebo provides the interfaces)')

    declare_use_sim_time_cmd = DeclareLaunchArgument(
        'use_sim_time', default_value='true',
        description='Use /clock for time (the built-in sim and Gazebo '
                    'publish it; false on a real robot)')

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
        description='Serve Groot2 monitoring: robot i on this TCP port + i - 1 (0: off)')

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

    declare_realtime_cmd = DeclareLaunchArgument(
        'realtime', default_value='false',
        description='Run the executive in the real-time mode: its reacting '
                    'threads at SCHED_FIFO 10, memory locked (needs CAP_SYS_NICE or ulimit -r 10, '
                    'else one warning and normal priority; docs/realtime.md)')

    declare_shared_process_cmd = DeclareLaunchArgument(
        'shared_process', default_value='false',
        description='Run every executive in one process (fleet_executive) and every '
                    'sim in another (sim_robot --robots N), behind the same interfaces; '
                    'use_respawn does not apply')

    declare_executive_processes_cmd = DeclareLaunchArgument(
        'executive_processes', default_value='1',
        description='With shared_process:=true: split the executives over this many '
                    'fleet_executive processes (robot i in process (i - 1) mod K); one per '
                    'core uses every core')

    ld = LaunchDescription()

    ld.add_action(declare_robots_cmd)
    ld.add_action(declare_use_sim_cmd)
    ld.add_action(declare_use_sim_time_cmd)
    ld.add_action(declare_tree_cmd)
    ld.add_action(declare_params_file_cmd)
    ld.add_action(declare_sim_params_file_cmd)
    ld.add_action(declare_tick_mode_cmd)
    ld.add_action(declare_tick_rate_cmd)
    ld.add_action(declare_groot2_port_cmd)
    ld.add_action(declare_use_respawn_cmd)
    ld.add_action(declare_log_level_cmd)
    ld.add_action(declare_sim_nav2_cmd)
    ld.add_action(declare_realtime_cmd)
    ld.add_action(declare_shared_process_cmd)
    ld.add_action(declare_executive_processes_cmd)

    ld.add_action(OpaqueFunction(function=launch_robots))

    return ld
