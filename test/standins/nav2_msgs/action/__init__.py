# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""STAND-IN action classes shaped like Nav2's (Kilted 1.4.2), without ROS type support.

The shapes are those of test/standins/definitions/nav2_msgs/action (written down from
Nav2 1.4.2; test/ros/test_typed_standins.py checks these classes against them).

Each part (Goal, Result, Feedback) is a plain class with the fields and defaults of the
action definition and a ``get_fields_and_field_types()`` in the format of generated
messages, so a test can compare it with the real package. Nested messages are the real
``geometry_msgs``/``builtin_interfaces`` classes.
"""

from __future__ import annotations

from typing import Any, Callable

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped

#: field type names as generated messages report them -> factory of the default value
_DEFAULTS: dict[str, Callable[[], Any]] = {
    'string': str, 'boolean': bool, 'uint16': int, 'int16': int, 'float': float,
    'geometry_msgs/PoseStamped': PoseStamped, 'builtin_interfaces/Duration': Duration,
}


class _Part:
    """One message of an action: fields set from the defaults, keyword overrides."""

    _fields: dict[str, str] = {}
    _values: dict[str, Any] = {}

    def __init__(self, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(self._fields)
        if unknown:
            raise AttributeError(f'{type(self).__name__} has no fields {sorted(unknown)}')
        for name, field_type in self._fields.items():
            default = self._values.get(name, _DEFAULTS[field_type]())
            setattr(self, name, kwargs.get(name, default))

    @classmethod
    def get_fields_and_field_types(cls) -> dict[str, str]:
        """Return field name -> type name, as generated message classes do."""
        return dict(cls._fields)

    def __repr__(self) -> str:
        fields = ', '.join(f'{name}={getattr(self, name)!r}' for name in self._fields)
        return f'{type(self).__name__}({fields})'


class NavigateToPose:
    """STAND-IN of ``nav2_msgs/action/NavigateToPose``."""

    class Goal(_Part):
        _fields = {'pose': 'geometry_msgs/PoseStamped', 'behavior_tree': 'string'}

    class Result(_Part):
        NONE = 0
        UNKNOWN = 9000
        FAILED_TO_LOAD_BEHAVIOR_TREE = 9001
        TF_ERROR = 9002
        TIMEOUT = 9003
        _fields = {'error_code': 'uint16', 'error_msg': 'string'}

    class Feedback(_Part):
        _fields = {'current_pose': 'geometry_msgs/PoseStamped',
                   'navigation_time': 'builtin_interfaces/Duration',
                   'estimated_time_remaining': 'builtin_interfaces/Duration',
                   'number_of_recoveries': 'int16', 'distance_remaining': 'float'}


class DockRobot:
    """STAND-IN of ``nav2_msgs/action/DockRobot``."""

    class Goal(_Part):
        _fields = {'use_dock_id': 'boolean', 'dock_id': 'string',
                   'dock_pose': 'geometry_msgs/PoseStamped', 'dock_type': 'string',
                   'max_staging_time': 'float', 'navigate_to_staging_pose': 'boolean'}
        _values = {'use_dock_id': True, 'max_staging_time': 1000.0,
                   'navigate_to_staging_pose': True}

    class Result(_Part):
        NONE = 0
        DOCK_NOT_IN_DB = 901
        DOCK_NOT_VALID = 902
        FAILED_TO_STAGE = 903
        FAILED_TO_DETECT_DOCK = 904
        FAILED_TO_CONTROL = 905
        FAILED_TO_CHARGE = 906
        TIMEOUT = 907
        UNKNOWN = 999
        _fields = {'success': 'boolean', 'error_code': 'uint16', 'num_retries': 'uint16',
                   'error_msg': 'string'}
        _values = {'success': True, 'error_code': 0, 'num_retries': 0}

    class Feedback(_Part):
        NONE = 0
        NAV_TO_STAGING_POSE = 1
        INITIAL_PERCEPTION = 2
        CONTROLLING = 3
        WAIT_FOR_CHARGE = 4
        RETRY = 5
        _fields = {'state': 'uint16', 'docking_time': 'builtin_interfaces/Duration',
                   'num_retries': 'uint16'}
        _values = {'num_retries': 0}


class UndockRobot:
    """STAND-IN of ``nav2_msgs/action/UndockRobot``."""

    class Goal(_Part):
        _fields = {'dock_type': 'string', 'max_undocking_time': 'float'}
        _values = {'max_undocking_time': 30.0}

    class Result(_Part):
        NONE = 0
        DOCK_NOT_VALID = 902
        FAILED_TO_CONTROL = 905
        TIMEOUT = 907
        UNKNOWN = 999
        _fields = {'success': 'boolean', 'error_code': 'uint16', 'error_msg': 'string'}
        _values = {'success': True, 'error_code': 0}

    class Feedback(_Part):
        _fields: dict[str, str] = {}
