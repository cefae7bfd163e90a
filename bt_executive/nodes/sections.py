# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The top-level sections of a tree file that belong to the ROS layer, and their shape.

The loader keeps a section's YAML for the ROS layer (``Registry.sections``), which
validates it when the executive loads the file (``bt_executive/ros/subscriptions.py``
parses ``subscriptions:`` with the names and patterns declared here). The JSON Schema of
each section (``Registry.section_schemas``) goes into ``bt-executive schema``, so editors
and validators check it without ROS.
"""

from __future__ import annotations

from typing import Any, Iterator

from bt_executive.core.yaml_source import YMap, YScalar, YSeq

__all__ = ['QOS_PROFILES', 'SECTION_SCHEMAS', 'SECTIONS', 'SUBSCRIPTION_KEYS',
           'subscription_keys']

#: Top-level sections of a tree file for the ROS layer (bt_executive/ros/subscriptions.py).
SECTIONS = ('subscriptions',)

#: The QoS profiles a subscription (and a topic leaf) may name.
QOS_PROFILES = ('reliable', 'sensor_data', 'latched')
#: The keys of one ``subscriptions:`` entry.
SUBSCRIPTION_KEYS = ('topic', 'type', 'key', 'field', 'fields', 'qos', 'max_age')

#: A blackboard key fed by a subscription (no anchors: ``re`` adds ``\Z``, JSON ``^...$``).
KEY_PATTERN = r'[A-Za-z_][A-Za-z0-9_]*'
#: A field path of a message, ``data`` or ``pose.position.x``.
FIELD_PATH_PATTERN = r'[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*'
#: A message type, ``std_msgs/msg/Bool``.
MSG_TYPE_PATTERN = r'[a-z][a-z0-9_]*/msg/[A-Z][A-Za-z0-9]*'
#: A topic name as a subscription may write it (ROS checks the rest when it loads).
TOPIC_PATTERN = r'[~/A-Za-z][~/A-Za-z0-9_{}]*'


def subscription_keys(section: Any) -> Iterator[str]:
    """Yield the blackboard keys a ``subscriptions:`` section feeds (``key``, ``fields``).

    Only the names are read here; the ROS layer validates the section.
    """
    for entry in section if isinstance(section, YSeq) else ():
        if not isinstance(entry, YMap):
            continue
        key, fields = entry.get('key'), entry.get('fields')
        if isinstance(key, YScalar) and isinstance(key.value, str):
            yield key.value
        if isinstance(fields, YMap):
            yield from fields.keys()


def _anchored(pattern: str) -> str:
    return f'^{pattern}$'


#: The largest finite number (JSON Schema has no "finite": this keeps out .inf).
_LARGEST = 1.7976931348623157e308

_FIELD_PATH = {'type': 'string', 'pattern': _anchored(FIELD_PATH_PATTERN)}

SUBSCRIPTION_ENTRY: dict[str, Any] = {
    'title': 'subscription',
    'description': ('One topic that feeds the blackboard: the latest message (or fields of '
                    "it) is stored under 'key' (or each key of 'fields') at the start of a "
                    'tick.'),
    'type': 'object',
    'properties': {
        'topic': {'type': 'string', 'pattern': _anchored(TOPIC_PATTERN),
                  'description': 'the topic (relative names resolve in the namespace)'},
        'type': {'type': 'string', 'pattern': _anchored(MSG_TYPE_PATTERN),
                 'description': "the message type, e.g. 'sensor_msgs/msg/BatteryState'"},
        'key': {'type': 'string', 'pattern': _anchored(KEY_PATTERN),
                'description': 'the blackboard key that stores the message (or its field)'},
        'field': dict(_FIELD_PATH, description=('store only this field of the message, '
                                                "e.g. 'data' or 'pose.position.x'")),
        'fields': {'type': 'object', 'minProperties': 1,
                   'propertyNames': {'pattern': _anchored(KEY_PATTERN)},
                   'additionalProperties': _FIELD_PATH,
                   'description': 'several keys, each fed by a field path (instead of key)'},
        'qos': {'enum': list(QOS_PROFILES), 'default': 'reliable',
                'description': 'QoS profile: ' + ' | '.join(QOS_PROFILES)},
        'max_age': {'type': 'number', 'minimum': 0, 'maximum': _LARGEST, 'default': 0,
                    'description': 'seconds after which the data reads as stale (0: never)'},
    },
    'required': ['topic', 'type'],
    'additionalProperties': False,
    'if': {'required': ['fields']},
    'then': {'not': {'anyOf': [{'required': ['key']}, {'required': ['field']}]}},
    'else': {'required': ['key']},
}
"""One entry of ``subscriptions:``, as ``bt_executive/ros/subscriptions.py`` parses it."""

#: The JSON Schema of each section, for ``bt-executive schema``.
SECTION_SCHEMAS: dict[str, Any] = {
    'subscriptions': {
        'title': 'subscriptions',
        'description': ('Topics that feed the blackboard (read by the ROS executive): a list '
                        'of {topic, type, key} entries.'),
        'type': 'array',
        'items': SUBSCRIPTION_ENTRY,
    },
}
