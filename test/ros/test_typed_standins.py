# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The stand-ins with real type support (test/standins/typed.py) and their isolation.

- Each plain stand-in (test/standins/nav2_msgs, py_trees_ros_interfaces_standin.py)
  has exactly the fields, constants and defaults of its definitions
  (test/standins/definitions), which are written down from the real releases.
- Where the real package is installed, the typed stand-in's types have the real ones'
  fields, constants and defaults (each described in a subprocess of its own).
- The typed py_trees_ros_interfaces goes over DDS between two processes: one serves
  ``OpenSnapshotStream`` and publishes a ``BehaviourTree`` on the topic it names, the
  other calls it and receives the message.
- A process using a typed stand-in maps only the stand-in's libraries, even with
  decoys of the same names (and the real package's libraries, where installed) on
  ``LD_LIBRARY_PATH``, and even when the real package's types were used first.

The builds come from the ``typed_standin`` fixture (test/conftest.py); each test is
skipped, with the reason, where they cannot be built.
"""

from __future__ import annotations

from collections.abc import Callable
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

from helpers import installed_for_children
import pytest

pytestmark = pytest.mark.ros

STANDINS = pathlib.Path(__file__).resolve().parents[1] / 'standins'
DESCRIBE = STANDINS / 'describe.py'
TIMEOUT = 60.0


def _run(code: str, env: dict[str, str], *args: str,
         timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env}, check=False)


def _describe(package: str, env: dict[str, str]) -> dict[str, Any]:
    # not ``python describe.py``: that would put test/standins (a plain nav2_msgs) first
    done = subprocess.run([sys.executable, '-c', 'import runpy, sys; sys.argv.pop(0); '
                           'runpy.run_path(sys.argv[0], run_name="__main__")', str(DESCRIBE),
                           package], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **env}, cwd='/', check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _load(name: str, path: pathlib.Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _parsed(package: str) -> dict[str, Any]:
    """Return the definitions' shapes as rosidl_adapter parses them: part -> (fields, ...)."""
    from rosidl_adapter.parser import parse_action_string, parse_message_string, \
        parse_service_string

    typed = _load('_typed_standins', STANDINS / 'typed.py')
    shapes = {}
    for relative, text in typed.definitions(package).items():
        kind, name = relative.split('/')
        name = name.rsplit('.', 1)[0]
        if kind == 'msg':
            parts = {f'msg/{name}': parse_message_string(package, name, text)}
        elif kind == 'srv':
            service = parse_service_string(package, name, text)
            parts = {f'srv/{name}/Request': service.request,
                     f'srv/{name}/Response': service.response}
        else:
            action = parse_action_string(package, name, text)
            parts = {f'action/{name}/Goal': action.goal, f'action/{name}/Result': action.result,
                     f'action/{name}/Feedback': action.feedback}
        for key, spec in parts.items():
            shapes[key] = (
                {field.name: field.type for field in spec.fields},
                {constant.name: constant.value for constant in spec.constants},
                {field.name: field.default_value for field in spec.fields
                 if field.default_value is not None})
    return shapes


#: ROS type names as the parser writes them -> as generated classes report them
_GENERATED = {'bool': 'boolean', 'float32': 'float', 'float64': 'double'}


def test_plain_nav2_standin_has_the_fields_of_its_definitions() -> None:
    action = _load('_nav2_msgs_standin_action', STANDINS / 'nav2_msgs' / 'action' / '__init__.py')
    parsed = _parsed('nav2_msgs')
    assert sorted(parsed) == sorted(f'action/{name}/{part}' for name in
                                    ('DockRobot', 'NavigateToPose', 'UndockRobot')
                                    for part in ('Goal', 'Result', 'Feedback'))
    for key, (fields, constants, defaults) in parsed.items():
        _, name, part = key.split('/')
        cls = getattr(getattr(action, name), part)
        assert cls.get_fields_and_field_types() == {
            field: _GENERATED.get(str(kind), str(kind)) for field, kind in fields.items()}, key
        assert {attribute: getattr(cls, attribute) for attribute in vars(cls)
                if attribute.isupper()} == constants, key
        instance = cls()
        for field, default in defaults.items():
            assert getattr(instance, field) == pytest.approx(default), (key, field)


def test_plain_py_trees_standin_has_the_fields_of_its_definitions() -> None:
    from builtin_interfaces.msg import Time
    from unique_identifier_msgs.msg import UUID

    plain = _load('_py_trees_ros_interfaces_standin',
                  STANDINS / 'py_trees_ros_interfaces_standin.py')
    python_types = {'string': str, 'bool': bool, 'uint8': int, 'int64': int, 'float32': float,
                    'float64': float, 'unique_identifier_msgs/UUID': UUID,
                    'builtin_interfaces/Time': Time,
                    'diagnostic_msgs/KeyValue': plain.DiagnosticKeyValue}
    for key, (fields, constants, _) in _parsed('py_trees_ros_interfaces').items():
        kind, name, *part = key.split('/')
        cls = getattr(getattr(plain, name), part[0]) if part else getattr(plain, name)
        ours = {}
        for field, field_type in fields.items():
            text = str(field_type)
            element = text[:-2] if text.endswith('[]') else text
            element_type = python_types.get(element) or getattr(
                plain, element.split('/')[-1])
            ours[field] = [element_type] if text.endswith('[]') else element_type
        assert {field: kind for field, (kind, _) in cls._fields.items()} == ours, key
        assert {attribute: getattr(cls, attribute) for attribute in vars(cls)
                if attribute.isupper()} == constants, key


@pytest.mark.parametrize('package', ['nav2_msgs', 'py_trees_ros_interfaces'])
def test_typed_standin_matches_the_real_package(package: str,
                                                typed_standin: Callable[[str], Any]) -> None:
    if installed_for_children(package) is None:
        pytest.skip(f'the real {package} is not installed here (PYTHONPATH): nothing to '
                    'compare with')
    built = typed_standin(package)
    ours = _describe(package, built.environment())
    theirs = _describe(package, {})
    assert pathlib.Path(ours.pop('__file__')).is_relative_to(built.python)
    assert not pathlib.Path(theirs.pop('__file__')).is_relative_to(built.python)
    assert ours, 'the stand-in has no types'
    for key, shape in ours.items():
        assert shape == theirs.get(key), key


SERVER = """
    import sys, rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from diagnostic_msgs.msg import KeyValue as DiagnosticKeyValue
    from unique_identifier_msgs.msg import UUID
    from py_trees_ros_interfaces.msg import Behaviour, BehaviourTree, KeyValue
    from py_trees_ros_interfaces.srv import OpenSnapshotStream
    import py_trees_ros_interfaces

    assert py_trees_ros_interfaces.BUILT_FROM_STANDIN
    rclpy.init()
    node = rclpy.create_node('typed_server', namespace=sys.argv[1])
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    publishers = []

    def open_stream(request, response):
        topic = request.topic_name or '~/snapshots'
        publisher = node.create_publisher(BehaviourTree, topic, latched)
        publishers.append(publisher)
        tree = BehaviourTree(changed=True)
        tree.behaviours = [Behaviour(
            name='root', class_name='py_trees.composites.Selector',
            own_id=UUID(uuid=list(range(16))), type=Behaviour.SELECTOR,
            status=Behaviour.RUNNING, is_active=True,
            blackboard_access=[KeyValue(key='/battery', value=Behaviour.BLACKBOARD_ACCESS_READ)])]
        tree.blackboard_on_visited_path = [DiagnosticKeyValue(key='/battery', value='0.5')]
        tree.statistics.count = 7
        tree.statistics.tick_interval = request.parameters.snapshot_period
        publisher.publish(tree)
        response.topic_name = publisher.topic_name
        return response

    node.create_service(OpenSnapshotStream, 'open', open_stream)
    print('serving', flush=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
"""

CLIENT = """
    import json, sys, threading, rclpy
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from py_trees_ros_interfaces.msg import BehaviourTree, SnapshotStreamParameters
    from py_trees_ros_interfaces.srv import OpenSnapshotStream

    rclpy.init()
    node = rclpy.create_node('typed_client', namespace=sys.argv[1])
    client = node.create_client(OpenSnapshotStream, 'open')
    assert client.wait_for_service(timeout_sec=30.0), 'no open service'
    request = OpenSnapshotStream.Request(
        topic_name='stream_1',
        parameters=SnapshotStreamParameters(snapshot_period=2.5, blackboard_data=True))
    future = client.call_async(request)
    rclpy.spin_until_future_complete(node, future, timeout_sec=30.0)
    topic = future.result().topic_name
    received = []
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(BehaviourTree, topic, received.append, latched)
    end = node.get_clock().now().nanoseconds + 30e9
    while not received and node.get_clock().now().nanoseconds < end:
        rclpy.spin_once(node, timeout_sec=0.5)
    tree = received[0]
    behaviour = tree.behaviours[0]
    maps = [line.split()[-1] for line in open('/proc/self/maps')
            if 'libpy_trees_ros_interfaces' in line]
    print(json.dumps({
        'topic': topic, 'name': behaviour.name, 'type': behaviour.type,
        'own_id': [int(byte) for byte in behaviour.own_id.uuid], 'access': [
            (item.key, item.value) for item in behaviour.blackboard_access],
        'visited': [(item.key, item.value) for item in tree.blackboard_on_visited_path],
        'count': tree.statistics.count, 'interval': tree.statistics.tick_interval,
        'maps': sorted(set(maps))}))
"""


def test_typed_py_trees_ros_interfaces_goes_over_dds(
        typed_standin: Callable[[str], Any], spawn: Callable[..., Any],
        tmp_path: pathlib.Path) -> None:
    built = typed_standin('py_trees_ros_interfaces')
    namespace = f'/typed_{os.getpid()}'
    script = tmp_path / 'typed_server.py'
    script.write_text(textwrap.dedent(SERVER))
    server = spawn(script, namespace, env=built.environment())
    server.wait_for_line('serving', timeout=TIMEOUT)
    done = _run(CLIENT, built.environment(), namespace)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer['topic'] == f'{namespace}/stream_1'
    assert (answer['name'], answer['type'], answer['own_id']) == ('root', 3, list(range(16)))
    assert answer['access'] == [['/battery', 'r']]
    assert answer['visited'] == [['/battery', '0.5']]
    assert (answer['count'], answer['interval']) == (7, 2.5)
    assert answer['maps'] and all(pathlib.Path(path).parent == built.lib
                                  for path in answer['maps']), answer['maps']


ROUND_TRIP = """
    import json, sys, importlib, rclpy
    from rclpy.action import ActionClient, ActionServer

    rclpy.init()
    node = rclpy.create_node('isolation')
    if sys.argv[1] == 'real-first':  # use the real package's types first, then drop it
        real = importlib.import_module('nav2_msgs.action')
        assert not hasattr(sys.modules['nav2_msgs'], 'BUILT_FROM_STANDIN')
        ActionClient(node, real.NavigateToPose, 'real_navigate')
        for name in [name for name in sys.modules if name.split('.')[0] == 'nav2_msgs']:
            del sys.modules[name]
        sys.path.insert(0, sys.argv[2])
    import nav2_msgs
    from nav2_msgs.action import NavigateToPose
    assert nav2_msgs.BUILT_FROM_STANDIN

    def execute(handle):
        handle.succeed()
        return NavigateToPose.Result(error_code=NavigateToPose.Result.TIMEOUT, error_msg='ok')

    ActionServer(node, NavigateToPose, 'navigate', execute)
    client = ActionClient(node, NavigateToPose, 'navigate')
    assert client.wait_for_server(timeout_sec=30.0)
    sent = client.send_goal_async(NavigateToPose.Goal(behavior_tree='bt.xml'))
    rclpy.spin_until_future_complete(node, sent, timeout_sec=30.0)
    result = sent.result().get_result_async()
    rclpy.spin_until_future_complete(node, result, timeout_sec=30.0)
    maps = sorted({line.split()[-1] for line in open('/proc/self/maps')
                   if '/libnav2_msgs' in line})
    print(json.dumps({'result': [result.result().result.error_code,
                                 result.result().result.error_msg], 'maps': maps}))
"""


def _decoys(directory: pathlib.Path, names: list[str]) -> pathlib.Path:
    """Write files named like the libraries that fail to load if anything opens them."""
    directory.mkdir()
    for name in names:
        (directory / name).write_text('not a library: a decoy of the isolation test\n')
    return directory


@pytest.mark.parametrize('order', ['standin-only', 'real-first'])
def test_nav2_standin_loads_only_its_own_libraries(
        order: str, typed_standin: Callable[[str], Any], tmp_path: pathlib.Path) -> None:
    real = installed_for_children('nav2_msgs')
    if order == 'real-first' and real is None:
        pytest.skip('the real nav2_msgs is not installed here (PYTHONPATH): this case uses '
                    'its types first')
    built = typed_standin('nav2_msgs')
    kinds = ['rosidl_generator_c', 'rosidl_generator_py', 'rosidl_typesupport_c',
             'rosidl_typesupport_fastrtps_c', 'rosidl_typesupport_introspection_c']
    # the real package's names too, unless its libraries are to be loaded in this case
    tags = ('__standin',) if order == 'real-first' else ('__standin', '')
    decoys = _decoys(tmp_path / 'decoys', [f'libnav2_msgs{tag}__{kind}.so'
                                           for tag in tags for kind in kinds])
    # the decoys come first, then whatever the caller had (a real nav2_msgs' lib, say)
    env = {'LD_LIBRARY_PATH': os.pathsep.join(filter(None, [
        str(decoys), os.environ.get('LD_LIBRARY_PATH')]))}
    if order == 'standin-only':
        env['PYTHONPATH'] = built.environment()['PYTHONPATH']
    done = _run(ROUND_TRIP, env, order, str(built.python))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer['result'] == [9003, 'ok']
    maps = [pathlib.Path(path) for path in answer['maps']]
    ours = {path.name for path in maps if path.parent == built.lib}
    assert ours == {f'libnav2_msgs__standin__{kind}.so' for kind in kinds}, maps
    assert not [path for path in maps if path.parent == decoys], maps
    others = [path for path in maps if path.parent != built.lib]
    if order == 'standin-only':
        assert not others, f'libraries of another nav2_msgs loaded: {others}'
    else:  # the real package's own, loaded for its own types before: never ours
        assert others and all('__standin__' not in path.name for path in others), maps
