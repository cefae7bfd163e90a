# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""ROS names (topics, services, actions) checked by rcl's rules, with one-line reasons.

A tree file names the topics, services and actions its leaves and subscriptions use;
the executive creates them with rclpy, which refuses a name rcl finds invalid. The load
checks (``bt_executive/ros/checks.py``) call :func:`name_problem` on every such name, so
``bt-executive validate`` refuses what the executive would, at the parameter.
"""

from __future__ import annotations

from rclpy.exceptions import InvalidServiceNameException, InvalidTopicNameException
from rclpy.expand_topic_name import expand_topic_name
from rclpy.validate_full_topic_name import validate_full_topic_name
from rclpy.validate_topic_name import validate_topic_name

__all__ = ['name_problem']

#: The node name and namespace a name is expanded with to check it. The executive's own
#: are not known when a file is validated: a name is refused only for what is wrong
#: with it in any namespace but the root (``a{ns}`` is ``a/`` in the root namespace).
_CHECK_NODE, _CHECK_NAMESPACE = 'node', '/ns'


def name_problem(name: str, *, service: bool) -> str:
    """Return why a topic, service or action name is invalid, or ''.

    These are rcl's rules, as the executive meets them when it creates the leaf's client,
    subscription or publisher: the name as written (``validate_topic_name``), its
    substitutions (``~``, ``{node}``, ``{ns}``; an unknown one is an error), and the name
    once expanded (``validate_full_topic_name``: no repeated ``/``, the length limit...).
    The answer is one line, rcl's reason without its caret picture.
    """
    try:
        validate_topic_name(name, is_service=service)
        expanded = expand_topic_name(name, _CHECK_NODE, _CHECK_NAMESPACE)
        validate_full_topic_name(expanded, is_service=service)
    except (InvalidTopicNameException, InvalidServiceNameException) as error:
        first = str(error).splitlines()[0].rstrip(':')
        return first.split(': ', 1)[-1]
    except ValueError as error:  # from expand: "topic name '..' is invalid: why, at file:line"
        reason = str(error).splitlines()[0].split(' is invalid: ', 1)[-1]
        return reason.rsplit(', at ', 1)[0]
    return ''
