# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Blackboard values and evaluation helpers shared by the expression tests."""

from __future__ import annotations

import collections
import dataclasses
import math
from typing import Any, Callable, Mapping

from bt_executive.core.expressions import parse


def lookup_from(env: Mapping[str, Any]) -> Callable[[str], Any]:
    """Return a lookup function reading ``env`` (KeyError for missing names)."""
    def lookup(name: str) -> Any:
        return env[name]
    return lookup


def evaluate(text: str, env: Mapping[str, Any] | None = None) -> Any:
    """Parse and evaluate ``text`` against ``env``."""
    return parse(text).evaluate(lookup_from(env or {}))


@dataclasses.dataclass
class Pose:
    """A dataclass blackboard value."""

    x: float
    y: float
    secret: str = dataclasses.field(default='s3cret', repr=False)
    unlisted = 'class attribute, not a field'

    def norm(self) -> float:
        """Return the length."""
        return math.hypot(self.x, self.y)


class FakeMessage:
    """A class shaped like a generated ROS 2 message."""

    __slots__ = ('_x', '_data', 'secret')

    _fields_and_field_types = {'x': 'double', 'data': 'sequence<int32>'}

    def __init__(self, x: float, data: list[int]) -> None:
        self._x = x
        self._data = data
        self.secret = 'not a field'

    @classmethod
    def get_fields_and_field_types(cls) -> dict[str, str]:
        """Return the field names and types, like rosidl does."""
        return dict(cls._fields_and_field_types)

    @property
    def x(self) -> float:
        """Return x."""
        return self._x

    @property
    def data(self) -> list[int]:
        """Return data."""
        return self._data

    def method(self) -> str:
        """Return something a method would."""
        return 'called'


Point = collections.namedtuple('Point', ['x', 'y'])


class Plain:
    """An object with attributes but no declared fields."""

    def __init__(self) -> None:
        self.x = 1


ENV: dict[str, Any] = {
    'battery': {'percentage': 0.1, 'cells': [3.7, 3.8]},
    'estop': False,
    'goal': {'x': 4, 'y': -2.5, 'name': 'dock'},
    'pose': Pose(3.0, 4.0),
    'msg': FakeMessage(1.5, [10, 20, 30]),
    'point': Point(7, 8),
    'items': [1, 2, 3],
    'word': 'robot',
    'n': 5,
    'zero': 0,
    'nothing': None,
    'tags': {'a', 'b'},
}
