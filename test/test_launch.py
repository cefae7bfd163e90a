# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The launch files, ``bt-executive demo`` and setup.py tell the same story.

``launch`` and ``launch_ros`` are not on PyPI, so the launch files are read statically
(``ast``): the arguments they declare (names, defaults, descriptions; a default
``PathJoinSubstitution([FindPackageShare('bt_executive'), 'config', FILE])`` reads as
``config/FILE``), the nodes they start (executable, name, parameter file, parameters and
their types, condition, respawn) and how the fleet includes the patrol. All of it must
match :mod:`bt_executive.app.bringup`, from which the demo builds its command lines.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import pathlib
from typing import Any, Optional

from bt_executive.app import bringup, cli, demo, programs
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PATROL = ROOT / 'launch' / 'patrol.launch.py'
FLEET = ROOT / 'launch' / 'fleet.launch.py'


@dataclasses.dataclass
class Call:
    """A call in a launch file: ``Node(package=...)`` read as data."""

    func: str
    args: list[Any]
    kwargs: dict[str, Any]
    line: int


@dataclasses.dataclass
class Ref:
    """A name the reader could not resolve (a function parameter, a loop variable)."""

    name: str


class Reader:
    """Evaluate the assignments of one function of a launch file into :class:`Call` data."""

    def __init__(self, function: ast.FunctionDef) -> None:
        self.names: dict[str, Any] = {}
        self.added: list[Any] = []
        for statement in ast.walk(function):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name):
                self.names[statement.targets[0].id] = self.value(statement.value)
            elif isinstance(statement, ast.Call) and isinstance(statement.func, ast.Attribute) \
                    and statement.func.attr == 'add_action':
                self.added.append(self.value(statement.args[0]))

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.names.get(node.id, Ref(node.id))
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(item) for item in node.elts]
        if isinstance(node, ast.Dict):
            result: dict[Any, Any] = {}
            for key, item in zip(node.keys, node.values):
                result[None if key is None else self.value(key)] = self.value(item)
            return result
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else ast.unparse(func)
            return Call(name, [self.value(a) for a in node.args],
                        {k.arg: self.value(k.value) for k in node.keywords if k.arg},
                        node.lineno)
        return ast.unparse(node)


def functions(path: pathlib.Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding='utf-8'))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def calls(value: Any, func: str) -> list[Call]:
    """Return every call of ``func`` inside ``value`` (depth first)."""
    found = []
    if isinstance(value, Call):
        if value.func == func:
            found.append(value)
        for item in [*value.args, *value.kwargs.values()]:
            found += calls(item, func)
    elif isinstance(value, list):
        for item in value:
            found += calls(item, func)
    elif isinstance(value, dict):
        for item in value.values():
            found += calls(item, func)
    return found


def config(value: Any) -> Any:
    """Read a launch argument reference, a share path or a literal as bringup writes it."""
    if isinstance(value, Call) and value.func == 'LaunchConfiguration':
        return ('arg', value.args[0])
    if isinstance(value, Call) and value.func == 'PathJoinSubstitution':
        package, *parts = value.args[0]
        assert package == Call('FindPackageShare', ['bt_executive'], {}, package.line), package
        return '/'.join(parts)
    return value


def declared(reader: Reader) -> dict[str, tuple[str, str]]:
    """Return name -> (default, description) of the arguments added to the description."""
    arguments = {}
    for item in reader.added:
        if isinstance(item, Call) and item.func == 'DeclareLaunchArgument':
            name = item.args[0]
            assert name not in arguments, f'{name} declared twice'
            arguments[name] = (config(item.kwargs['default_value']),
                               item.kwargs['description'])
    return arguments


def expected(arguments: tuple[bringup.Argument, ...]) -> dict[str, tuple[str, str]]:
    return {a.name: (a.default, a.description) for a in arguments}


@pytest.fixture(scope='module')
def patrol() -> Reader:
    return Reader(functions(PATROL)['generate_launch_description'])


@pytest.fixture(scope='module')
def fleet() -> dict[str, ast.FunctionDef]:
    return functions(FLEET)


def test_patrol_declares_the_demo_arguments_with_the_same_defaults_and_descriptions(patrol):
    assert declared(patrol) == expected(bringup.ARGUMENTS)
    # every declared argument is added: no DeclareLaunchArgument left out of the description
    every = [c.args[0] for v in patrol.names.values() for c in calls(v, 'DeclareLaunchArgument')]
    assert sorted(every) == sorted(declared(patrol))
    for default, _ in declared(patrol).values():
        if default.startswith('config/'):
            assert (ROOT / default).is_file(), default


def test_patrol_starts_the_demo_nodes_with_the_same_files_parameters_and_types(patrol):
    group, = calls(patrol.added, 'GroupAction')
    nodes = [item for item in group.args[0] if item.func == 'Node']
    assert [n.kwargs['executable'] for n in nodes] == [n.executable for n in bringup.NODES]
    for call, node in zip(nodes, bringup.NODES):
        where = f'{PATROL.name}:{call.line}'
        assert call.kwargs['package'] == bringup.PACKAGE, where
        assert call.kwargs['name'] == node.name, where
        params_file, overrides = call.kwargs['parameters']
        assert config(params_file) == ('arg', node.params_file), where
        read = {}
        for key, value in overrides.items():
            assert value.func == 'ParameterValue', f'{where}: {key} has no explicit type'
            read[key] = (config(value.args[0]), value.kwargs['value_type'].name)
        assert read == {key: (('arg', arg.name), arg.kind.__name__)
                        for key, arg in node.parameters.items()}, where
        condition = call.kwargs.get('condition')
        assert (None if condition is None else config(condition.args[0])) == (
            None if node.condition is None else ('arg', node.condition)), where
        assert config(call.kwargs['respawn']) == ('arg', 'use_respawn'), where
        assert call.kwargs['respawn_delay'] == bringup.RESPAWN_DELAY, where
        assert call.kwargs['output'] == 'screen', where
        assert [config(a) for a in call.kwargs['arguments']] == [
            '--ros-args', '--log-level', ('arg', 'log_level')], where


def test_patrol_groups_the_nodes_in_the_namespace_and_ends_when_the_executive_exits(patrol):
    group, = calls(patrol.added, 'GroupAction')
    push, *members = group.args[0]
    assert push.func == 'PushRosNamespace' and config(push.args[0]) == ('arg', 'namespace')
    assert [m.func for m in members] == ['Node', 'Node', 'RegisterEventHandler']
    handler = members[-1]
    assert config(handler.kwargs['condition'].args[0]) == ('arg', 'use_respawn')
    assert handler.kwargs['condition'].func == 'UnlessCondition'
    on_exit = handler.args[0]
    assert on_exit.func == 'OnProcessExit'
    assert on_exit.kwargs['target_action'].kwargs['executable'] == 'executive'
    function = launch_function(PATROL, 'on_executive_exit')
    log, emit = function.body[-1].value.elts
    assert log.func.id == 'LogInfo' and emit.func.id == 'EmitEvent'
    assert emit.keywords[0].value.func.id == 'Shutdown'


def launch_function(path: pathlib.Path, name: str) -> ast.FunctionDef:
    """Return the definition of the function ``name`` in the launch file ``path``."""
    found = [node for node in ast.parse(path.read_text(encoding='utf-8')).body
             if isinstance(node, ast.FunctionDef) and node.name == name]
    assert len(found) == 1, name
    return found[0]


@pytest.mark.parametrize('code, line', [
    (0, 'the executive stopped cleanly (exit status 0)'),
    (1, 'the executive FAILED with exit status 1 (its tree file did not load'),
    (2, 'FAILED with exit status 2 (a bad parameter value'),
    (-9, 'FAILED with exit status -9 (killed with SIGKILL: by its exit guard'),
    (-11, 'FAILED with exit status -11 (see its log)'),
])
def test_the_patrol_launch_prints_one_line_naming_how_the_executive_ended(code, line):
    # ros2 launch exits 0 whatever the executive did: this line is what a wrapper reads
    module = ast.Module(body=[launch_function(PATROL, 'executive_exit_line')], type_ignores=[])
    namespace: dict[str, Any] = {}
    exec(compile(module, str(PATROL), 'exec'), namespace)  # noqa: S102 - our own file
    text = namespace['executive_exit_line'](code)
    assert text.startswith('bt_executive: ') and line in text and '\n' not in text


def test_the_launch_files_never_build_from_the_package_at_load(patrol):
    for path in (PATROL, FLEET):
        text = path.read_text(encoding='utf-8')
        assert 'bt_executive.' not in text.replace("'bt_executive'", ''), path
        assert 'get_package_share_directory' not in text, path


def test_fleet_declares_the_demo_fleet_arguments(fleet):
    assert declared(Reader(fleet['generate_launch_description'])) == \
        expected(bringup.FLEET_ARGUMENTS)


def test_fleet_gives_each_robot_what_the_demo_gives_it(fleet):
    # the launch file's own rule, run: namespace, the one clock owner, Groot2 ports
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module([fleet['robot_arguments']], []), str(FLEET), 'exec'), namespace)
    for port in (0, 1667):
        for index in range(1, 5):
            assert namespace['robot_arguments'](index, port) == \
                bringup.robot_arguments(index, port)
    assert set(bringup.robot_arguments(1, 0)) == set(bringup.PER_ROBOT)
    # a fleet whose last Groot2 port would not exist is refused by both, before a start
    assert bringup.robot_arguments(2, 65534)['groot2_port'] == '65535'
    for rule in (namespace['robot_arguments'], bringup.robot_arguments):
        with pytest.raises(ValueError, match='robot 3 would serve Groot2 on 65536, above '
                                             '65535'):
            rule(3, 65534)


def test_fleet_splits_the_executives_as_the_demo_does(fleet):
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module([fleet['executive_groups']], []), str(FLEET), 'exec'), namespace)
    for robots in range(1, 8):
        for processes in range(1, robots + 1):
            groups = bringup.executive_groups(robots, processes)
            assert namespace['executive_groups'](robots, processes) == groups
            # dealt out: robot i in process (i - 1) mod K, every robot once
            assert sorted(i for group in groups for i in group) == list(range(1, robots + 1))
            assert all((i - 1) % processes == k for k, group in enumerate(groups)
                       for i in group)
    assert bringup.executive_groups(5, 2) == [range(1, 6, 2), range(2, 6, 2)]
    for robots, processes in ((3, 0), (3, 4)):
        with pytest.raises(ValueError, match=f'executive_processes:={processes}: expected '
                           f'1 to {robots}'):
            bringup.executive_groups(robots, processes)
        with pytest.raises(ValueError, match='expected 1 to'):
            namespace['executive_groups'](robots, processes)


def test_fleet_includes_the_patrol_with_every_argument(fleet):
    reader = Reader(fleet['launch_robots'])
    source = reader.names['patrol_launch']
    assert config(source) == 'launch/patrol.launch.py'
    include, = [c for c in ast.walk(fleet['launch_robots']) if isinstance(c, ast.Call)
                and ast.unparse(c.func) == 'IncludeLaunchDescription']
    assert ast.unparse(include.args[0]) == 'PythonLaunchDescriptionSource(patrol_launch)'
    assert ast.unparse(include.keywords[0].value) == 'launch_arguments.items()'
    passed = dict(reader.names['launch_arguments'])
    spread = passed.pop(None)
    assert spread.func == 'robot_arguments'
    # everything but the per-robot arguments passes through under its own name
    assert {name: config(value) for name, value in passed.items()} == {
        name: ('arg', name) for name in passed}
    assert sorted([*passed, *bringup.PER_ROBOT]) == sorted(a.name for a in bringup.ARGUMENTS)
    fleet_names = {a.name for a in bringup.FLEET_ARGUMENTS}
    assert set(passed) | {'robots', 'groot2_port', 'shared_process',
                          'executive_processes'} == fleet_names


def test_the_demo_takes_every_launch_argument_and_the_fleet_options():
    args = cli.build_parser().parse_args([
        'demo', '--robots', '3', '--groot2-port', '1667',
        *(f'{a.name}:={a.default}' for a in bringup.ARGUMENTS)])
    assert args.robots == 3 and args.groot2_port == 1667
    assert demo.parse_arguments(args.arguments) == {a.name: a.default
                                                    for a in bringup.ARGUMENTS}
    with pytest.raises(ValueError, match="unknown launch argument 'robot'"):
        demo.parse_arguments(['robot:=1'])
    with pytest.raises(ValueError, match='NAME:=VALUE'):
        demo.parse_arguments(['tree=x.yaml'])


def _flag(argv: list[str], name: str) -> Optional[str]:
    values = [item.split(':=', 1)[1] for item in argv if item.startswith(f'{name}:=')]
    return values[-1] if values else None


def test_the_demo_fleet_has_one_clock_owner_and_counts_the_groot2_ports():
    robots = demo.plan({'groot2_port': '1667'}, 3, '/share')
    assert [r.namespace for r in robots] == ['robot1', 'robot2', 'robot3']
    for index, robot in enumerate(robots, 1):
        (sim_node, sim), (exe_node, executive) = robot.commands
        assert (sim_node.executable, exe_node.executable) == ('sim_robot', 'executive')
        assert f'__ns:=/robot{index}' in sim and f'__ns:=/robot{index}' in executive
        assert _flag(sim, 'publish_clock') == ('true' if index == 1 else 'false')
        assert _flag(sim, 'use_sim_time') == 'true' == _flag(executive, 'use_sim_time')
        assert _flag(executive, 'groot2_port') == str(1666 + index)
    assert _flag(demo.plan({}, 2, '/s')[1].commands[1][1], 'groot2_port') == '0'
    with pytest.raises(ValueError, match='namespace is set per robot'):
        demo.plan({'namespace': 'x'}, 2, '/s')
    with pytest.raises(ValueError, match='at least 1 robot'):
        demo.plan({}, 0, '/s')


def test_demo_command_lines_type_every_parameter():
    commands = bringup.command_lines({'namespace': 'robot1', 'tree': '123'}, 'python3',
                                     '/share')
    assert [node.executable for node, _ in commands] == ['sim_robot', 'executive']
    sim, executive = (argv for _, argv in commands)
    assert sim[:4] == ['python3', '-m', 'bt_executive.app.programs', 'sim_robot']
    assert '--params-file' in sim and '/share/config/sim_robot.yaml' in sim
    assert '__ns:=/robot1' in sim and '__ns:=/robot1' in executive
    assert _flag(executive, 'tree_file') == "'123'"  # a string, though YAML reads a number
    assert _flag(executive, 'tick_rate') == '10.0' and _flag(executive, 'groot2_port') == '0'
    no_sim = bringup.command_lines({'use_sim': 'false', 'use_sim_time': 'false'}, 'p', '/s')
    assert [node.executable for node, _ in no_sim] == ['executive']
    assert _flag(no_sim[0][1], 'use_sim_time') == 'false'
    with pytest.raises(ValueError, match='groot2_port:=x: expected int'):
        bringup.command_lines({'groot2_port': 'x'}, 'p', '/s')
    with pytest.raises(KeyError, match='unknown launch argument'):
        bringup.command_lines({'robots': '2'}, 'p', '/s')


@pytest.mark.skipif(importlib.util.find_spec('launch_ros') is None,
                    reason='launch and launch_ros are not on PyPI; a ROS install runs this')
@pytest.mark.parametrize('path, arguments', [(PATROL, bringup.ARGUMENTS),
                                             (FLEET, bringup.FLEET_ARGUMENTS)],
                         ids=['patrol', 'fleet'])
def test_with_launch_installed_the_files_load_and_declare_the_arguments(path, arguments):
    import runpy

    description = runpy.run_path(str(path))['generate_launch_description']()
    assert sorted(a.name for a in description.get_launch_arguments()) == \
        sorted(a.name for a in arguments)


def _row(argument: bringup.Argument) -> str:
    default = argument.default or "''"
    return f'| `{argument.name}` | `{default}` | {argument.description} |'


def test_docs_launch_md_lists_every_argument_with_its_default_and_meaning():
    text = (ROOT / 'docs' / 'launch.md').read_text(encoding='utf-8')
    patrol, fleet = text.split('## A fleet')
    for argument in bringup.ARGUMENTS:
        assert _row(argument) in patrol, argument.name
    for argument in bringup.FLEET_ARGUMENTS:
        assert _row(argument) in fleet or _row(bringup.argument(argument.name)) == \
            _row(argument), argument.name


def test_sim_nav2_argument_reaches_the_sim():
    assert bringup.argument('sim_nav2').default == 'auto'
    (_, sim), _ = bringup.command_lines({}, 'p', '/s')
    assert 'nav2:=auto' in sim
    (_, sim), _ = bringup.command_lines({'sim_nav2': 'true'}, 'p', '/s')
    assert "nav2:='true'" in sim and "nav2:='auto'" not in sim


def test_bringup_executables_are_the_console_scripts_of_setup_py():
    tree = ast.parse((ROOT / 'setup.py').read_text())
    scripts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and ' = ' in node.value and ':' in node.value:
            name, target = node.value.split(' = ')
            scripts[name] = target
    for executable, module in bringup.EXECUTABLES.items():
        assert scripts[executable] == f'{bringup.PROGRAMS}:{executable}'
        assert programs.PROGRAMS[executable] == module
        assert importlib.util.find_spec(module) is not None
    assert "glob('launch/*.launch.py')" in (ROOT / 'setup.py').read_text()


def test_the_shared_demo_fleet_is_two_processes_with_the_same_parameters():
    separate = demo.plan({'groot2_port': '1667'}, 3, '/share')
    robots = demo.plan({'groot2_port': '1667'}, 3, '/share', shared=True)
    assert [len(robot.commands) for robot in robots] == [2, 0, 0]
    (sim_node, sim), (exe_node, executive) = robots[0].commands
    assert sim[sim.index('-m') + 2] == 'sim_robot'
    assert executive[executive.index('-m') + 2] == 'fleet_executive'
    for argv in (sim, executive):
        assert argv[argv.index('--namespaces'):][:4] == ['--namespaces', 'robot1', 'robot2',
                                                         'robot3']
        assert not any(item.startswith('__ns:=') for item in argv)
    assert executive[executive.index('--groot2-port') + 1] == '1667'
    # the rest is the first robot's command line: parameter files, parameters, the clock
    for argv, (_, first) in zip((sim, executive), separate[0].commands):
        expected = first[first.index('--ros-args'):]
        remap = expected.index('__ns:=/robot1')
        del expected[remap - 1:remap + 1]
        assert argv[argv.index('--ros-args'):] == expected
    assert _flag(sim, 'publish_clock') == 'true'
    with pytest.raises(ValueError, match='use_respawn'):
        demo.plan({'use_respawn': 'true'}, 2, '/s', shared=True)


def test_a_shared_demo_fleet_splits_its_executives_over_processes():
    one = demo.plan({'groot2_port': '1667'}, 5, '/share', shared=True)
    robots = demo.plan({'groot2_port': '1667'}, 5, '/share', shared=True, processes=2)
    assert [len(robot.commands) for robot in robots] == [3, 0, 0, 0, 0]
    (sim_node, sim), *executives = robots[0].commands
    assert sim_node.executable == 'sim_robot' and sim == one[0].commands[0][1]
    assert [node.executable for node, _ in executives] == ['executive', 'executive']
    groups = [argv[argv.index('--namespaces') + 1:argv.index('--groot2-port')]
              for _, argv in executives]
    assert groups == [['robot1', 'robot3', 'robot5'], ['robot2', 'robot4']]
    # robot i keeps port 1667 + i - 1 whichever process serves it
    assert [argv[argv.index('--groot2-port'):argv.index('--ros-args')]
            for _, argv in executives] == [
        ['--groot2-port', '1667', '--split', '1/2'],
        ['--groot2-port', '1667', '--split', '2/2']]
    _, whole = one[0].commands[1]
    assert '--split' not in whole
    for _, argv in executives:  # the rest of the command line is the one-process one
        assert argv[:argv.index('--namespaces')] == whole[:whole.index('--namespaces')]
        assert argv[argv.index('--ros-args'):] == whole[whole.index('--ros-args'):]
    no_port = demo.plan({}, 4, '/s', shared=True, processes=2)[0].commands
    assert [argv[argv.index('--groot2-port') + 1] for _, argv in no_port[1:]] == ['0', '0']
    with pytest.raises(ValueError, match=r'executive_processes:=3: expected 1 to 2'):
        demo.plan({}, 2, '/s', shared=True, processes=3)
    with pytest.raises(ValueError, match='applies to a shared process'):
        demo.plan({}, 2, '/s', processes=2)


def test_the_demo_command_line_takes_the_executive_processes():
    args = cli.build_parser().parse_args(['demo', '--robots', '4', '--shared',
                                          '--executive-processes', '2'])
    assert (args.robots, args.shared, args.executive_processes) == (4, True, 2)
    assert cli.build_parser().parse_args(['demo']).executive_processes == 1
