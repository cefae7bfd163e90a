# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tests for bt_executive.ros.interfaces: type resolution and dict <-> message conversion.

These need the ROS message packages (Python classes only), but no DDS traffic.
"""

import array
from collections.abc import Callable
import json
import math
from typing import Any, Optional

from helpers import skip_if_installed
from hypothesis import given, settings, strategies as st
import pytest

pytest.importorskip('std_msgs.msg', reason='ROS message packages are not installed')
pytest.importorskip('test_msgs.msg', reason='test_msgs is not installed')

from bt_executive.ros import interfaces  # noqa: E402, I100, I202
from bt_executive.ros.interfaces import (  # noqa: E402
    check_fields, Deferred, feedback_class, fields_of, goal_class, InterfaceError,
    InterfaceName, is_available, message_class_for, parse_type_string, request_class,
    resolve, response_class, result_class, to_dict, to_message, type_string_of)
from builtin_interfaces.msg import Duration, Time  # noqa: E402
from geometry_msgs.msg import Point, PoseStamped  # noqa: E402
from sensor_msgs.msg import BatteryState  # noqa: E402
from std_msgs.msg import Bool, Header  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402
from test_msgs.action import Fibonacci  # noqa: E402
from test_msgs.msg import (  # noqa: E402
    Arrays, BasicTypes, BoundedSequences, Builtins, MultiNested, Nested, Strings,
    UnboundedSequences)


# --- type strings ---------------------------------------------------------------------

@pytest.mark.parametrize(('type_string', 'kind', 'expected'), [
    ('std_msgs/msg/Bool', None, Bool),
    ('std_msgs/msg/Bool', 'msg', Bool),
    ('sensor_msgs/msg/BatteryState', None, BatteryState),
    ('test_msgs/action/Fibonacci', None, Fibonacci),
    ('test_msgs/action/Fibonacci', 'action', Fibonacci),
    ('std_srvs/srv/Trigger', 'srv', Trigger),
])
def test_resolve_returns_the_class(type_string: str, kind: Optional[str],
                                   expected: type) -> None:
    assert resolve(type_string, kind=kind) is expected
    assert resolve(type_string) is expected  # second call comes from the cache
    assert is_available(type_string)


def test_parse_type_string_splits_parts() -> None:
    parsed = parse_type_string('geometry_msgs/msg/PoseStamped')
    assert parsed == InterfaceName('geometry_msgs', 'msg', 'PoseStamped')
    assert str(parsed) == 'geometry_msgs/msg/PoseStamped'
    assert parsed.module == 'geometry_msgs.msg'


@pytest.mark.parametrize(('type_string', 'kind', 'expected'), [
    ('std_msgs/Bool', None,
     "invalid interface type 'std_msgs/Bool': expected 'package/kind/Name' with kind msg, "
     "srv or action, e.g. 'std_msgs/msg/String' (did you mean 'std_msgs/msg/Bool'?)"),
    ('test_msgs/Fibonacci', 'action', "(did you mean 'test_msgs/action/Fibonacci'?)"),
    ('Bool', None, "invalid interface type 'Bool': expected 'package/kind/Name'"),
    ('a/msg/B/C', None, "invalid interface type 'a/msg/B/C': expected 'package/kind/Name'"),
    ('', None, "invalid interface type '': expected 'package/kind/Name'"),
    ('std_msgs/msgs/Bool', None,
     "the middle part must be msg, srv or action, got 'msgs' (did you mean 'msg'?)"),
    ('Std-Msgs/msg/Bool', None,
     "the package name 'Std-Msgs' must be lowercase letters, digits and underscores"),
    ('..evil/msg/Bool', None, "the package name '..evil' must be lowercase"),
    ('std_msgs/msg/Bo.ol', None, "the type name 'Bo.ol' must be letters, digits"),
    ('std_msgs/msg/Bool', 'action',
     "expected an action type, got a msg type: 'std_msgs/msg/Bool'"),
    ('test_msgs/action/Fibonacci', 'srv',
     "expected a srv type, got an action type: 'test_msgs/action/Fibonacci'"),
    ('std_msgs/msg/Bool', 'topic', "unknown interface kind 'topic'"),
])
def test_parse_errors_explain_the_form(type_string: str, kind: Optional[str],
                                       expected: str) -> None:
    with pytest.raises(InterfaceError) as info:
        parse_type_string(type_string, kind=kind)
    assert expected in str(info.value)
    assert info.value.field_path == ''
    with pytest.raises(InterfaceError):
        resolve(type_string, kind=kind)
    assert not is_available(type_string) or kind is not None


def test_parse_rejects_non_strings() -> None:
    with pytest.raises(InterfaceError, match='must be a string'):
        parse_type_string(42)


@pytest.mark.parametrize(('type_string', 'kind', 'expected'), [
    ('std_msgs/msg/Bol', None, "package 'std_msgs' has no msg type 'Bol' (did you mean 'Bool'?)"),
    ('std_msgs/msg/bool', None, "(did you mean 'Bool'?)"),
    ('sensor_msgs/msg/Battery', None, "(did you mean 'BatteryState'?)"),
    ('std_srvs/srv/Triger', 'srv', "no srv type 'Triger' (did you mean 'Trigger'?)"),
    ('test_msgs/action/Fibonaci', 'action', "(did you mean 'Fibonacci'?)"),
    ('test_msgs/msg/Fibonacci', None,
     "'test_msgs/action/Fibonacci' is an action type, did you mean that?"),
    ('std_msgs/msg/Qwertyuiop', None, "no msg type 'Qwertyuiop'; it has: Bool, Byte"),
    ('std_msgs/srv/Bool', None, "package 'std_msgs' has no srv interfaces"),
    ('json/msg/Thing', None, "package 'json' has no msg interfaces"),
    # A generated part class is not an action type in its own right.
    ('test_msgs/action/Fibonacci_Goal', None, "no action type 'Fibonacci_Goal'"),
])
def test_resolve_errors(type_string: str, kind: Optional[str], expected: str) -> None:
    with pytest.raises(InterfaceError) as info:
        resolve(type_string, kind=kind)
    assert expected in str(info.value)
    assert not is_available(type_string)


@pytest.mark.parametrize(('distro', 'hint'), [
    (None, 'install ros-<distro>-nav2-msgs'),
    ('kilted', 'install ros-kilted-nav2-msgs'),
])
def test_resolve_names_the_missing_package(monkeypatch: pytest.MonkeyPatch,
                                           distro: Optional[str], hint: str) -> None:
    skip_if_installed('nav2_msgs')
    if distro is None:
        monkeypatch.delenv('ROS_DISTRO', raising=False)
    else:
        monkeypatch.setenv('ROS_DISTRO', distro)
    with pytest.raises(InterfaceError) as info:
        resolve('nav2_msgs/action/NavigateToPose', kind='action')
    assert str(info.value) == f"package 'nav2_msgs' is not installed ({hint})"


def test_interface_error_formats_field_path() -> None:
    error = InterfaceError('expected a float, got str', field_path='goal.pose.position.x')
    assert str(error) == 'field goal.pose.position.x: expected a float, got str'
    assert error.message == 'expected a float, got str'
    assert isinstance(error, ValueError)
    assert str(InterfaceError('plain')) == 'plain'


# --- parts of services and actions ----------------------------------------------------

def test_part_helpers() -> None:
    assert goal_class(Fibonacci) is Fibonacci.Goal
    assert result_class(Fibonacci) is Fibonacci.Result
    assert feedback_class(Fibonacci) is Fibonacci.Feedback
    assert request_class(Trigger) is Trigger.Request
    assert response_class(Trigger) is Trigger.Response


@pytest.mark.parametrize(('helper', 'argument'), [
    (goal_class, Trigger), (request_class, Fibonacci), (response_class, Bool),
    (result_class, 'test_msgs/action/Fibonacci'),
])
def test_part_helpers_reject_the_wrong_kind(helper: Callable[[Any], type],
                                            argument: Any) -> None:
    with pytest.raises(InterfaceError, match='expected an? (action|srv) class'):
        helper(argument)


@pytest.mark.parametrize(('type_string', 'part', 'expected'), [
    ('test_msgs/action/Fibonacci', 'goal', Fibonacci.Goal),
    ('test_msgs/action/Fibonacci', 'result', Fibonacci.Result),
    ('test_msgs/action/Fibonacci', 'feedback', Fibonacci.Feedback),
    ('std_srvs/srv/Trigger', 'request', Trigger.Request),
    ('std_srvs/srv/Trigger', 'response', Trigger.Response),
    ('std_msgs/msg/Bool', 'message', Bool),
])
def test_message_class_for(type_string: str, part: str, expected: type) -> None:
    assert message_class_for(type_string, part) is expected


@pytest.mark.parametrize(('type_string', 'part', 'expected'), [
    ('test_msgs/action/Fibonacci', 'request',
     "an action type such as 'test_msgs/action/Fibonacci' has the parts goal, result, "
     "feedback; got 'request'"),
    ('std_srvs/srv/Trigger', 'reponse', "got 'reponse' (did you mean 'response'?)"),
    ('std_msgs/msg/Bool', 'goal', "a msg type such as 'std_msgs/msg/Bool' has the parts "
                                  "message; got 'goal'"),
])
def test_message_class_for_errors(type_string: str, part: str, expected: str) -> None:
    with pytest.raises(InterfaceError) as info:
        message_class_for(type_string, part)
    assert expected in str(info.value)


def test_fields_of_and_type_string_of() -> None:
    fields = fields_of(BatteryState)
    assert fields['cell_voltage'] == 'sequence<float>'
    assert fields['header'] == 'std_msgs/Header'
    assert list(fields)[0] == 'header'
    assert type_string_of(BatteryState) == 'sensor_msgs/msg/BatteryState'
    assert type_string_of(Fibonacci.Goal()) == 'test_msgs/action/Fibonacci_Goal'
    with pytest.raises(InterfaceError, match='expected a ROS message class'):
        fields_of(dict)


# --- to_message / to_dict round trips --------------------------------------------------

POSE_STAMPED = {
    'header': {'stamp': {'sec': 12, 'nanosec': 500}, 'frame_id': 'map'},
    'pose': {'position': {'x': 1.5, 'y': -2.0, 'z': 0.0},
             'orientation': {'x': 0.0, 'y': 0.0, 'z': 0.7071, 'w': 0.7071}},
}
BATTERY = {
    'header': {'stamp': {'sec': 1, 'nanosec': 2}, 'frame_id': 'base'},
    'voltage': 12.5, 'temperature': 30.25, 'current': -1.5, 'charge': 2.0,
    'capacity': 4.0, 'design_capacity': 5.0, 'percentage': 0.5,
    'power_supply_status': BatteryState.POWER_SUPPLY_STATUS_DISCHARGING,
    'power_supply_health': 1, 'power_supply_technology': 2, 'present': True,
    'cell_voltage': [3.5, 3.75, 4.0], 'cell_temperature': [20.5, float('inf')],
    'location': 'slot 1', 'serial_number': 'SN-1',
}
BASIC = {
    'bool_value': True, 'byte_value': 255, 'char_value': 65, 'float32_value': 1.25,
    'float64_value': -1e300, 'int8_value': -128, 'uint8_value': 255,
    'int16_value': -32768, 'uint16_value': 65535, 'int32_value': -2 ** 31,
    'uint32_value': 2 ** 32 - 1, 'int64_value': -2 ** 63, 'uint64_value': 2 ** 64 - 1,
}
ARRAYS = {
    'bool_values': [True, False, True], 'byte_values': [0, 1, 255],
    'char_values': [97, 98, 99], 'float32_values': [0.5, -0.25, 8.0],
    'float64_values': [1e-9, 2.0, 3.0], 'int8_values': [-1, 0, 1],
    'uint8_values': [0, 128, 255], 'int16_values': [1, 2, 3], 'uint16_values': [4, 5, 6],
    'int32_values': [7, 8, 9], 'uint32_values': [10, 11, 12],
    'int64_values': [2 ** 40, 0, -1], 'uint64_values': [2 ** 63, 1, 2],
    'string_values': ['a', 'bb', ''],
    'basic_types_values': [BASIC, {'int8_value': 3}, {}],
    'alignment_check': 17,
}
UNBOUNDED = {
    'bool_values': [True], 'byte_values': [9, 10], 'float32_values': [0.5] * 5,
    'float64_values': [], 'uint8_values': [1, 2, 3, 4], 'int64_values': [-5],
    'string_values': ['x', 'y'], 'basic_types_values': [{'uint16_value': 7}] * 4,
}
BOUNDED = {
    'bool_values': [True, False], 'uint8_values': [1, 2, 3], 'string_values': ['p'],
    'basic_types_values': [{'float64_value': 0.5}],
}
MULTI_NESTED = {
    'array_of_arrays': [ARRAYS, {}, {'int8_values': [1, 2, 3]}],
    'unbounded_sequence_of_bounded_sequences': [BOUNDED, BOUNDED],
}


@pytest.mark.parametrize(('msg_class', 'data'), [
    (PoseStamped, POSE_STAMPED),
    (BatteryState, BATTERY),
    (BasicTypes, BASIC),
    (Nested, {'basic_types_value': BASIC}),
    (Arrays, ARRAYS),
    (UnboundedSequences, UNBOUNDED),
    (BoundedSequences, BOUNDED),
    (Strings, {'string_value': 'héllo', 'bounded_string_value': 'x' * 22}),
    (Builtins, {'time_value': {'sec': 3, 'nanosec': 4}, 'duration_value': {'sec': -1}}),
    (MultiNested, MULTI_NESTED),
    (Fibonacci.Goal, {'order': 10}),
    (Fibonacci.Feedback, {'sequence': [0, 1, 1, 2, 3]}),
])
def test_round_trip(msg_class: type, data: dict[str, Any]) -> None:
    msg = to_message(msg_class, data)
    assert isinstance(msg, msg_class)
    plain = to_dict(msg)
    _assert_subset(data, plain)
    json.dumps(plain)  # JSON-safe (inf and NaN are written as Infinity and NaN)
    assert to_message(msg_class, plain) == msg
    assert check_fields(msg_class, data) == []
    assert check_fields(msg_class, plain) == []


def test_built_messages_serialize() -> None:
    serialization = pytest.importorskip('rclpy.serialization')
    for msg_class, data in [(PoseStamped, POSE_STAMPED), (BatteryState, BATTERY),
                            (Arrays, ARRAYS), (UnboundedSequences, UNBOUNDED),
                            (BoundedSequences, BOUNDED), (MultiNested, MULTI_NESTED)]:
        msg = to_message(msg_class, data)
        raw = serialization.serialize_message(msg)
        assert serialization.deserialize_message(raw, msg_class) == msg


def _assert_subset(expected: Any, actual: Any, path: str = 'msg') -> None:
    """Check that every value given in ``expected`` came back in ``actual``."""
    if isinstance(expected, dict):
        for key, value in expected.items():
            _assert_subset(value, actual[key], f'{path}.{key}')
    elif isinstance(expected, list):
        assert len(expected) == len(actual), path
        for index, (item, got) in enumerate(zip(expected, actual)):
            _assert_subset(item, got, f'{path}[{index}]')
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(actual), path
    else:
        assert expected == actual, path
        assert type(actual) in (type(expected), float), path


def test_to_dict_converts_containers_to_plain_types() -> None:
    plain = to_dict(to_message(BatteryState, BATTERY))
    assert type(plain['cell_voltage']) is list
    assert all(type(value) is float for value in plain['cell_voltage'])
    arrays = to_dict(to_message(Arrays, ARRAYS))
    assert arrays['byte_values'] == [0, 1, 255]
    assert type(arrays['float32_values']) is list
    assert type(arrays['int64_values'][0]) is int
    assert to_dict(to_message(BasicTypes, {'byte_value': b'\x07'}))['byte_value'] == 7
    nan = to_dict(to_message(BasicTypes, {'float64_value': float('nan')}))['float64_value']
    assert math.isnan(nan)
    with pytest.raises(InterfaceError, match='expected a ROS message instance'):
        to_dict({'a': 1})
    with pytest.raises(InterfaceError, match='expected a ROS message instance'):
        to_dict(Bool)


def test_to_message_leaves_other_fields_at_defaults() -> None:
    msg = to_message(PoseStamped, {'pose': {'position': {'x': 2}}}, path='goal')
    assert msg.pose.position.x == 2.0 and type(msg.pose.position.x) is float
    assert msg.pose.orientation.w == 1.0
    assert msg.header.frame_id == ''


def test_to_message_accepts_instances() -> None:
    header = Header(frame_id='odom')
    msg = to_message(PoseStamped, {'header': header, 'pose': {'position': Point(x=3.0)}})
    assert msg.header is header
    assert msg.pose.position.x == 3.0
    ready = PoseStamped()
    assert to_message(PoseStamped, ready) is ready
    poses = to_message(Arrays, {'basic_types_values': [BasicTypes(int8_value=1), {}, {}]})
    assert poses.basic_types_values[0].int8_value == 1


def test_to_message_accepts_numpy_array_and_bytes_inputs() -> None:
    numpy = pytest.importorskip('numpy')
    msg = to_message(UnboundedSequences, {
        'float32_values': numpy.array([1.0, 2.0], dtype=numpy.float32),
        'float64_values': numpy.array([3.0]),
        'int32_values': array.array('i', [1, 2]),
        'uint8_values': b'\x01\x02',
        'byte_values': bytearray(b'\x03'),
        'int16_values': numpy.array([4, 5], dtype=numpy.int64),  # checked item by item
        'bool_values': [numpy.bool_(True)],
    })
    plain = to_dict(msg)
    assert plain['float32_values'] == [1.0, 2.0]
    assert plain['float64_values'] == [3.0]
    assert plain['int32_values'] == [1, 2]
    assert plain['uint8_values'] == [1, 2]
    assert plain['byte_values'] == [3]
    assert plain['int16_values'] == [4, 5]
    assert plain['bool_values'] == [True]
    fixed = to_message(Arrays, {'uint8_values': b'abc', 'float64_values': numpy.zeros(3)})
    assert to_dict(fixed)['uint8_values'] == [97, 98, 99]
    with pytest.raises(InterfaceError, match='expected a list of integers'):
        to_message(UnboundedSequences, {'int8_values': b'\x01'})


# --- conversion errors -----------------------------------------------------------------

@pytest.mark.parametrize(('msg_class', 'data', 'field_path', 'message'), [
    (PoseStamped, {'pose': {'position': {'x': 'far'}}}, 'goal.pose.position.x',
     'expected a float, got str'),
    (PoseStamped, {'pose': {'position': {'x': True}}}, 'goal.pose.position.x',
     'expected a float, got bool'),
    (PoseStamped, {'pose': {'position': {'x': None}}}, 'goal.pose.position.x',
     'expected a float, got None'),
    (PoseStamped, {'pose': {'positon': {}}}, 'goal.pose.positon',
     "unknown field 'positon' for geometry_msgs/msg/Pose (did you mean 'position'?); "
     'valid fields: position, orientation'),
    (PoseStamped, {'frame': 'map'}, 'goal.frame',
     "unknown field 'frame' for geometry_msgs/msg/PoseStamped; valid fields: header, pose"),
    (PoseStamped, {'pose': [1, 2, 3]}, 'goal.pose',
     'expected a mapping of geometry_msgs/msg/Pose fields, got list'),
    (PoseStamped, {'header': {'stamp': 'now'}}, 'goal.header.stamp',
     'expected a number of seconds or a mapping of builtin_interfaces/msg/Time fields, '
     'got str'),
    (PoseStamped, {'header': {'frame_id': 5}}, 'goal.header.frame_id',
     'expected a string, got int'),
    (BasicTypes, {'int32_value': 1.5}, 'goal.int32_value',
     'expected an integer, got non-integral float 1.5'),
    (BasicTypes, {'int32_value': float('nan')}, 'goal.int32_value',
     'expected an integer, got non-integral float nan'),
    (BasicTypes, {'int32_value': True}, 'goal.int32_value', 'expected an integer, got bool'),
    (BasicTypes, {'int32_value': '3'}, 'goal.int32_value', 'expected an integer, got str'),
    (BasicTypes, {'bool_value': 1}, 'goal.bool_value', 'expected a bool, got int'),
    (BasicTypes, {'bool_value': 'true'}, 'goal.bool_value', 'expected a bool, got str'),
    (BasicTypes, {'float32_value': 1e39}, 'goal.float32_value',
     'value 1e+39 is out of range for float (float32)'),
    (BasicTypes, {'float64_value': 10 ** 400}, 'goal.float64_value',
     f'value {10 ** 400} is out of range for double'),
    (BasicTypes, {'byte_value': 256}, 'goal.byte_value',
     'value 256 is out of range for octet [0, 255]'),
    (BasicTypes, {'byte_value': b'ab'}, 'goal.byte_value',
     'expected a byte (an integer in [0, 255] or a bytes object of length 1), got bytes'),
    (Strings, {'bounded_string_value': 'x' * 23}, 'goal.bounded_string_value',
     'expected a string of at most 22 characters, got 23 characters'),
    (Arrays, {'int32_values': [1, 2]}, 'goal.int32_values', 'expected exactly 3 items, got 2'),
    (Arrays, {'int32_values': 'abc'}, 'goal.int32_values',
     'expected a list of exactly 3 integers (int32), got str'),
    (Arrays, {'int8_values': [1, 200, 3]}, 'goal.int8_values[1]',
     'value 200 is out of range for int8 [-128, 127]'),
    (Arrays, {'basic_types_values': [{}, {'uint8_value': -1}, {}]},
     'goal.basic_types_values[1].uint8_value', 'value -1 is out of range for uint8 [0, 255]'),
    (BoundedSequences, {'string_values': ['a', 'b', 'c', 'd']}, 'goal.string_values',
     'expected at most 3 items, got 4'),
    (UnboundedSequences, {'float64_values': {1, 2}}, 'goal.float64_values',
     'expected a list of floats, got set'),
    (UnboundedSequences, {'float64_values': {'a': 1}}, 'goal.float64_values',
     'expected a list of floats, got dict'),
    (BatteryState, {'cell_voltage': [3.5, 'x']}, 'goal.cell_voltage[1]',
     'expected a float, got str'),
    (Fibonacci.Goal, 7, 'goal', 'expected a mapping of test_msgs/action/Fibonacci_Goal '
                                'fields, got int'),
    (Fibonacci.Goal, {1: 2}, 'goal',
     'field names must be strings, got int 1 in test_msgs/action/Fibonacci_Goal'),
    (Builtins, {'time_value': -1.0}, 'goal.time_value',
     'expected a non-negative number of seconds for a time, got -1.0'),
    (Builtins, {'duration_value': float('inf')}, 'goal.duration_value',
     'expected a finite number of seconds, got inf'),
    (Builtins, {'duration_value': 1e12}, 'goal.duration_value',
     'value 1000000000000.0 seconds is out of range for builtin_interfaces/msg/Duration '
     '(int32 seconds)'),
])
def test_conversion_errors(msg_class: type, data: Any, field_path: str, message: str) -> None:
    with pytest.raises(InterfaceError) as info:
        to_message(msg_class, data, path='goal')
    assert info.value.field_path == field_path
    assert info.value.message == message
    assert str(info.value) == (f'field {field_path}: {message}')
    assert [str(error) for error in check_fields(msg_class, data, path='goal')] == [
        str(info.value)]


INT_LIMITS = [(name, low, high) for name, (low, high) in interfaces.INT_RANGES.items()]


@pytest.mark.parametrize(('type_name', 'low', 'high'), INT_LIMITS)
def test_integer_ranges(type_name: str, low: int, high: int) -> None:
    field = f'{type_name}_value'
    assert getattr(to_message(BasicTypes, {field: low}), field) == low
    assert getattr(to_message(BasicTypes, {field: high}), field) == high
    assert getattr(to_message(BasicTypes, {field: 1.0}), field) == 1
    for bad in (low - 1, high + 1):
        with pytest.raises(InterfaceError) as info:
            to_message(BasicTypes, {field: bad})
        assert str(info.value) == (
            f'field {field}: value {bad} is out of range for {type_name} [{low}, {high}]')


def test_int_is_accepted_for_float_fields_and_converted() -> None:
    msg = to_message(BasicTypes, {'float32_value': 3, 'float64_value': 2 ** 60})
    assert type(msg.float32_value) is float and msg.float32_value == 3.0
    assert msg.float64_value == float(2 ** 60)


@pytest.mark.parametrize(('field', 'seconds', 'sec', 'nanosec'), [
    ('time_value', 0, 0, 0),
    ('time_value', 2, 2, 0),
    ('time_value', 1.5, 1, 500_000_000),
    ('time_value', 1.25e-7, 0, 125),
    ('time_value', 1.9999999999, 2, 0),
    ('duration_value', 0.001, 0, 1_000_000),
    ('duration_value', -1.5, -2, 500_000_000),
])
def test_time_and_duration_from_seconds(field: str, seconds: float, sec: int,
                                        nanosec: int) -> None:
    stamp = getattr(to_message(Builtins, {field: seconds}), field)
    assert (stamp.sec, stamp.nanosec) == (sec, nanosec)
    assert check_fields(Builtins, {field: seconds}) == []


def test_time_accepts_objects_with_to_msg() -> None:
    class FakeClockTime:
        def to_msg(self) -> Time:
            return Time(sec=5, nanosec=6)

    stamp = to_message(Header, {'stamp': FakeClockTime()}).stamp
    assert (stamp.sec, stamp.nanosec) == (5, 6)
    duration = to_message(Builtins, {'duration_value': Duration(sec=1)}).duration_value
    assert duration.sec == 1


# --- Deferred and check_fields ----------------------------------------------------------

def test_check_fields_accepts_deferred_anywhere() -> None:
    later = Deferred(description='${bb.target}')
    data = {
        'header': later,
        'pose': {'position': {'x': later, 'y': 1.0}, 'orientation': later},
    }
    assert check_fields(PoseStamped, data) == []
    assert check_fields(Arrays, {'int8_values': [later, 1, later], 'string_values': later}) == []
    assert repr(later) == "Deferred('${bb.target}')"


def test_check_fields_still_checks_around_deferred() -> None:
    data = {'pose': {'position': {'x': Deferred(), 'y': 'no'}}, 'extra': 1}
    errors = check_fields(PoseStamped, data, path='goal')
    assert [str(error) for error in errors] == [
        'field goal.pose.position.y: expected a float, got str',
        "field goal.extra: unknown field 'extra' for geometry_msgs/msg/PoseStamped; valid "
        'fields: header, pose',
    ]


def test_check_fields_reports_every_error() -> None:
    errors = check_fields(BasicTypes, {'int8_value': 500, 'bool_value': 0, 'nope': 1,
                                       'float64_value': 'x'})
    assert [error.field_path for error in errors] == [
        'int8_value', 'bool_value', 'nope', 'float64_value']


def test_to_message_resolves_deferred_values() -> None:
    class FromBlackboard(Deferred):
        def __init__(self, key: str) -> None:
            super().__init__(description=key)
            self.key = key

    blackboard: dict[str, Any] = {'x': 4, 'frame': 'map', 'bad': 'oops'}

    def lookup(value: Deferred) -> Any:
        return blackboard[value.key]

    data = {'header': {'frame_id': FromBlackboard('frame')},
            'pose': {'position': {'x': FromBlackboard('x')}}}
    msg = to_message(PoseStamped, data, resolve_deferred=lookup)
    assert msg.header.frame_id == 'map'
    assert msg.pose.position.x == 4.0
    with pytest.raises(InterfaceError) as info:
        to_message(PoseStamped, {'pose': {'position': {'z': FromBlackboard('bad')}}},
                   resolve_deferred=lookup)
    assert str(info.value) == 'field pose.position.z: expected a float, got str'
    with pytest.raises(InterfaceError) as info:
        to_message(PoseStamped, data)
    assert str(info.value) == ("field header.frame_id: value FromBlackboard('frame') is only "
                               'known at tick time and was not resolved')


def test_check_fields_requires_a_message_class() -> None:
    with pytest.raises(InterfaceError, match='expected a ROS message class'):
        check_fields('geometry_msgs/msg/Pose', {})


# --- property: plain data survives a round trip ---------------------------------------

def _int_strategy(type_name: str) -> st.SearchStrategy[int]:
    low, high = interfaces.INT_RANGES[type_name]
    return st.integers(min_value=low, max_value=high)


BASIC_TYPES_DATA = st.fixed_dictionaries({}, optional={
    'bool_value': st.booleans(),
    'byte_value': st.integers(min_value=0, max_value=255),
    'float32_value': st.floats(width=32, allow_nan=False),
    'float64_value': st.floats(allow_nan=False),
    **{f'{name}_value': _int_strategy(name) for name in interfaces.INT_RANGES},
})


@settings(max_examples=60, deadline=None)
@given(data=BASIC_TYPES_DATA)
def test_basic_types_round_trip_property(data: dict[str, Any]) -> None:
    plain = to_dict(to_message(BasicTypes, data))
    assert {key: plain[key] for key in data} == data
