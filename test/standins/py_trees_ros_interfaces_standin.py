# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A TEST STAND-IN for py_trees_ros_interfaces: plain Python classes of the same shapes.

py_trees_ros_interfaces is not on PyPI, so the unit tests of
``bt_executive/ros/streams.py`` hand the streams these classes instead of the real ones
(``interfaces()`` below). They have the real messages' field names, constants and field
types (those of py_trees_ros_interfaces 2.1's definitions, written down in
definitions/py_trees_ros_interfaces and checked by test/ros/test_typed_standins.py), and
like rosidl's generated classes they refuse unknown fields and values of the wrong type,
so a misspelt field or a wrong type fails a test. They have no type support: nothing
made of them can cross a process boundary, so these tests use a stand-in node as well
(the ``typed_standin`` fixture gives the same types with real type support).
``UUID`` and ``Time`` are the real rosidl types (installed here); ``KeyValue`` of
diagnostic_msgs is stood in for too.
"""

from __future__ import annotations

import types
from typing import Any

from builtin_interfaces.msg import Time
from unique_identifier_msgs.msg import UUID


class _Message:
    """A message whose fields are checked as rosidl's classes check them.

    ``_fields`` is ``name -> (type, default factory)``; a list type is written
    ``[element type]``.
    """

    _fields: dict[str, tuple[Any, Any]] = {}

    def __init__(self, **values: Any) -> None:
        for name, (_, default) in self._fields.items():
            object.__setattr__(self, name, default())
        for name, value in values.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._fields:
            raise AttributeError(f'{type(self).__name__} has no field {name!r}')
        kind = self._fields[name][0]
        if isinstance(kind, list):
            if isinstance(value, (str, bytes)) or not all(
                    isinstance(item, kind[0]) for item in value):
                raise TypeError(f'{type(self).__name__}.{name}: expected a sequence of '
                                f'{kind[0].__name__}, got {value!r}')
            value = list(value)
        elif kind is float and isinstance(value, int) and not isinstance(value, bool):
            raise TypeError(f'{type(self).__name__}.{name}: expected float, got int')
        elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f'{type(self).__name__}.{name}: expected {kind.__name__}, '
                            f'got {type(value).__name__}')
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self._fields)

    def __repr__(self) -> str:
        fields = ', '.join(f'{name}={getattr(self, name)!r}' for name in self._fields)
        return f'{type(self).__name__}({fields})'


def _fields(**spec: Any) -> dict[str, tuple[Any, Any]]:
    defaults = {str: str, bool: bool, int: int, float: float}
    result = {}
    for name, kind in spec.items():
        if isinstance(kind, list):
            result[name] = (kind, list)
        else:
            result[name] = (kind, defaults.get(kind, kind))
    return result


class DiagnosticKeyValue(_Message):
    """Stands in for diagnostic_msgs/msg/KeyValue."""

    _fields = _fields(key=str, value=str)


class KeyValue(_Message):
    """Stands in for py_trees_ros_interfaces/msg/KeyValue."""

    _fields = _fields(key=str, value=str)


class ActivityItem(_Message):
    """Stands in for py_trees_ros_interfaces/msg/ActivityItem."""

    READ = 'READ'
    INITIALISED = 'INITIALISED'
    WRITE = 'WRITE'
    ACCESSED = 'ACCESSED'
    ACCESS_DENIED = 'ACCESS_DENIED'
    NO_KEY = 'NO_KEY'
    NO_OVERWRITE = 'NO_OVERWRITE'
    UNSET = 'UNSET'
    _fields = _fields(key=str, client_name=str, activity_type=str, previous_value=str,
                      current_value=str)


class Behaviour(_Message):
    """Stands in for py_trees_ros_interfaces/msg/Behaviour."""

    INVALID, RUNNING, SUCCESS, FAILURE = 1, 2, 3, 4
    UNKNOWN_TYPE, BEHAVIOUR, SEQUENCE, SELECTOR, PARALLEL, CHOOSER, DECORATOR = range(7)
    BLACKBOX_LEVEL_DETAIL, BLACKBOX_LEVEL_COMPONENT = 1, 2
    BLACKBOX_LEVEL_BIG_PICTURE, BLACKBOX_LEVEL_NOT_A_BLACKBOX = 3, 4
    BLACKBOARD_ACCESS_READ = 'r'
    BLACKBOARD_ACCESS_WRITE = 'w'
    BLACKBOARD_ACCESS_EXCLUSIVE_WRITE = 'x'
    _fields = _fields(name=str, class_name=str, own_id=UUID, parent_id=UUID, tip_id=UUID,
                      child_ids=[UUID], current_child_id=UUID, type=int,
                      additional_detail=str, blackbox_level=int, status=int, message=str,
                      is_active=bool, blackboard_access=[KeyValue])


class Statistics(_Message):
    """Stands in for py_trees_ros_interfaces/msg/Statistics."""

    _fields = _fields(count=int, stamp=Time, tick_duration=float,
                      tick_duration_average=float, tick_duration_variance=float,
                      tick_interval=float, tick_interval_average=float,
                      tick_interval_variance=float)


class BehaviourTree(_Message):
    """Stands in for py_trees_ros_interfaces/msg/BehaviourTree."""

    _fields = _fields(behaviours=[Behaviour], changed=bool,
                      blackboard_on_visited_path=[DiagnosticKeyValue],
                      blackboard_activity=[ActivityItem], statistics=Statistics)


class SnapshotStreamParameters(_Message):
    """Stands in for py_trees_ros_interfaces/msg/SnapshotStreamParameters."""

    _fields = _fields(snapshot_period=float, blackboard_data=bool, blackboard_activity=bool)


def _service(name: str, request: dict[str, Any], response: dict[str, Any]) -> type:
    return type(name, (), {
        'Request': type(f'{name}_Request', (_Message,), {'_fields': _fields(**request)}),
        'Response': type(f'{name}_Response', (_Message,), {'_fields': _fields(**response)}),
        '__doc__': f'Stands in for py_trees_ros_interfaces/srv/{name}.'})


OpenSnapshotStream = _service('OpenSnapshotStream', {
    'topic_name': str, 'parameters': SnapshotStreamParameters}, {'topic_name': str})
CloseSnapshotStream = _service('CloseSnapshotStream', {'topic_name': str},
                               {'result': bool})
ReconfigureSnapshotStream = _service('ReconfigureSnapshotStream', {
    'topic_name': str, 'parameters': SnapshotStreamParameters}, {'result': bool})


def interfaces() -> Any:
    """Return the stand-in classes as bt_executive.ros.stream_messages.Interfaces."""
    from bt_executive.ros.stream_messages import Interfaces

    msg = types.SimpleNamespace(
        BehaviourTree=BehaviourTree, Behaviour=Behaviour, Statistics=Statistics,
        ActivityItem=ActivityItem, KeyValue=KeyValue,
        SnapshotStreamParameters=SnapshotStreamParameters)
    srv = types.SimpleNamespace(OpenSnapshotStream=OpenSnapshotStream,
                                CloseSnapshotStream=CloseSnapshotStream,
                                ReconfigureSnapshotStream=ReconfigureSnapshotStream)
    return Interfaces(msg=msg, srv=srv, uuid=UUID, key_value=DiagnosticKeyValue, time=Time)
