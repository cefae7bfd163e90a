# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""launch/patrol.launch.py, the demo's command lines and setup.py tell the same story.

``launch`` and ``launch_ros`` are not on PyPI: where they are missing, the launch file
runs against minimal recording stand-ins (the only mocks in the suite, because the real
packages cannot exist here); on a ROS install the real ones are used.
"""

import ast
import importlib.util
import pathlib
import runpy
import sys
import types

from bt_executive.app import bringup
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LAUNCH_FILE = ROOT / 'launch' / 'patrol.launch.py'


class Recorded:
    """A stand-in launch entity that records its arguments."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


def _stand_ins(monkeypatch):
    modules = {}
    for name in ('launch', 'launch.actions', 'launch.conditions', 'launch.substitutions',
                 'launch_ros', 'launch_ros.actions', 'launch_ros.parameter_descriptions'):
        modules[name] = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, modules[name])
    for module, name in (('launch', 'LaunchDescription'),
                         ('launch.actions', 'DeclareLaunchArgument'),
                         ('launch.conditions', 'IfCondition'),
                         ('launch.substitutions', 'LaunchConfiguration'),
                         ('launch_ros.actions', 'Node'),
                         ('launch_ros.parameter_descriptions', 'ParameterValue')):
        setattr(modules[module], name, type(name, (Recorded,), {}))
    packages = types.ModuleType('ament_index_python.packages')
    packages.get_package_share_directory = lambda package: '/opt/share/' + package
    monkeypatch.setitem(sys.modules, 'ament_index_python', types.ModuleType('x'))
    monkeypatch.setitem(sys.modules, 'ament_index_python.packages', packages)


@pytest.fixture
def description(monkeypatch):
    if importlib.util.find_spec('launch_ros') is None:
        _stand_ins(monkeypatch)
    namespace = runpy.run_path(str(LAUNCH_FILE))
    return namespace['generate_launch_description']()


@pytest.mark.skipif(importlib.util.find_spec('launch_ros') is not None,
                    reason='checks the recorded stand-ins; a ROS install runs the real ones')
def test_launch_file_declares_every_argument_and_node(description):
    entities = description.args[0]
    arguments = [e for e in entities if type(e).__name__ == 'DeclareLaunchArgument']
    nodes = [e for e in entities if type(e).__name__ == 'Node']
    assert [a.args[0] for a in arguments] == [a.name for a in bringup.ARGUMENTS]
    for recorded, argument in zip(arguments, bringup.ARGUMENTS):
        assert recorded.kwargs['description'] == argument.description
        default = recorded.kwargs['default_value']
        if argument.default.startswith('config/'):
            assert default == '/opt/share/bt_executive/' + argument.default
            assert (ROOT / argument.default).exists(), argument.default
        else:
            assert default == argument.default
    assert [n.kwargs['executable'] for n in nodes] == ['sim_robot', 'executive']
    sim, executive = nodes
    assert sim.kwargs['condition'].args[0].args == ('use_sim',)
    assert executive.kwargs['condition'] is None
    params_file, overrides = executive.kwargs['parameters']
    assert params_file.args == ('params_file',)
    assert {k: v.args[0].args[0] for k, v in overrides.items()} == {
        'tree_file': 'tree', 'tick_mode': 'tick_mode', 'tick_rate': 'tick_rate',
        'use_sim_time': 'use_sim_time'}
    assert overrides['use_sim_time'].kwargs['value_type'] is bool
    for node in nodes:
        assert node.kwargs['output'] == 'screen'
        assert node.kwargs['arguments'][:2] == ['--ros-args', '--log-level']


def test_demo_command_lines_match_the_launch_description():
    commands = bringup.command_lines({'namespace': 'robot1'}, 'python3', '/share')
    assert [node.executable for node, _ in commands] == ['sim_robot', 'executive']
    sim, executive = (argv for _, argv in commands)
    assert sim[:3] == ['python3', '-m', 'bt_executive.sim.robot']
    assert '--params-file' in sim and '/share/config/sim_robot.yaml' in sim
    assert '__ns:=/robot1' in sim and '__ns:=/robot1' in executive
    assert 'tree_file:=/share/config/patrol.yaml' in executive
    assert 'use_sim_time:=true' in executive and 'tick_rate:=10.0' in executive
    no_sim = bringup.command_lines({'use_sim': 'false', 'use_sim_time': 'false'}, 'p', '/s')
    assert [node.executable for node, _ in no_sim] == ['executive']
    assert 'use_sim_time:=false' in no_sim[0][1]


def test_sim_nav2_argument_reaches_the_sim():
    assert bringup.argument('sim_nav2').default == 'auto'
    (_, sim), _ = bringup.command_lines({}, 'p', '/s')
    assert 'nav2:=auto' in sim
    (_, sim), _ = bringup.command_lines({'sim_nav2': 'true'}, 'p', '/s')
    assert sim.count('-p') == 1 and 'nav2:=true' in sim


def test_bringup_executables_are_the_console_scripts_of_setup_py():
    tree = ast.parse((ROOT / 'setup.py').read_text())
    scripts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and ' = ' in node.value and ':' in node.value:
            name, target = node.value.split(' = ')
            scripts[name] = target.split(':')[0]
    for executable, module in bringup.EXECUTABLES.items():
        assert scripts[executable] == module
        assert importlib.util.find_spec(module) is not None
