# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: classes shaped like rosidl's generated ones, without their C extension.

rclpy asks a class for its type support (``_TYPE_SUPPORT``, then
``__import_type_support__()``); like a generated package whose extension module is
missing, these call rosidl's real ``import_type_support``, which raises
``UnsupportedTypeSupport``.
"""

from typing import Any


class Metaclass(type):
    """What rclpy reads of a generated message class's metaclass."""

    _TYPE_SUPPORT = None
    _CREATE_ROS_MESSAGE = None
    _CONVERT_FROM_PY = None
    _CONVERT_TO_PY = None
    _DESTROY_ROS_MESSAGE = None

    @classmethod
    def __import_type_support__(cls) -> None:
        from rosidl_generator_py import import_type_support
        import_type_support('py_trees_ros_interfaces')  # raises UnsupportedTypeSupport


def message(name: str) -> Any:
    """Return a message class called ``name`` (no fields: it never gets that far)."""
    return Metaclass(name, (), {})


def service(name: str) -> Any:
    """Return a service class called ``name`` with Request and Response."""
    return Metaclass(name, (), {'Request': message(f'{name}_Request'),
                                'Response': message(f'{name}_Response')})
