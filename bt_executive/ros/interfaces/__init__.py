# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Resolve ROS interface types by name and convert between plain data and messages.

This package is the only place in bt_executive that turns a type string such as
``'geometry_msgs/msg/PoseStamped'`` into a class, and the only converter between plain
Python data (the dicts, lists and scalars that YAML produces) and ROS message instances.

The modules, from the bottom layer up: ``names`` (type strings, :func:`resolve` and the
message parts of services and actions), ``fields`` (the field types of generated message
classes) and ``convert`` (:func:`to_message`, :func:`check_fields`,
:func:`check_field_paths`, :func:`to_dict` and
:class:`Deferred`). Import from the package.
"""

from bt_executive.ros.interfaces.convert import (
    check_field_paths, check_fields, Deferred, fields_of, to_dict, to_message)
# Private, but the tests use it.
from bt_executive.ros.interfaces.fields import INT_RANGES
from bt_executive.ros.interfaces.names import (
    feedback_class, goal_class, InterfaceError, InterfaceName, is_available, KINDS,
    message_class_for, parse_type_string, PARTS, request_class, resolve, response_class,
    result_class, type_string_of)

__all__ = [
    'Deferred',
    'INT_RANGES',
    'InterfaceError',
    'InterfaceName',
    'KINDS',
    'PARTS',
    'check_field_paths',
    'check_fields',
    'feedback_class',
    'fields_of',
    'goal_class',
    'is_available',
    'message_class_for',
    'parse_type_string',
    'request_class',
    'resolve',
    'response_class',
    'result_class',
    'to_dict',
    'to_message',
    'type_string_of',
]
