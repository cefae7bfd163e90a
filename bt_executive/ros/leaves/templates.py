# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Message templates: goals, requests and fields written in YAML, built at tick time."""

from __future__ import annotations

from typing import Any, Optional

from bt_executive.core.expressions import EvaluationError
from bt_executive.core.spec import Dynamic, Value
from bt_executive.ros import interfaces
from bt_executive.ros.leaves.common import Lookup


class _TickValue(interfaces.Deferred):
    """A reference or expression inside a goal/request/fields mapping."""

    def __init__(self, dynamic: Dynamic) -> None:
        """Wrap the dynamic part of a value."""
        super().__init__(description=dynamic.text)
        self.dynamic = dynamic


def _deferred(data: Any) -> Any:
    """Replace every :class:`Dynamic` in plain data by a :class:`_TickValue`."""
    if isinstance(data, Dynamic):
        return _TickValue(data)
    if isinstance(data, dict):
        return {key: _deferred(item) for key, item in data.items()}
    if isinstance(data, list):
        return [_deferred(item) for item in data]
    return data


def _resolve(data: Any, lookup: Lookup, path: str) -> Any:
    """Evaluate every :class:`_TickValue` in ``data`` (depth first, in field order).

    Raises:
        ValueError: ``'field <path>: <text>: <why>'`` for the first one that fails.
    """
    if isinstance(data, _TickValue):
        try:
            return data.dynamic.expression.evaluate(lookup)
        except EvaluationError as error:
            raise ValueError(f'field {path}: {data.description}: {error.message}') from error
    if isinstance(data, dict):
        return {key: _resolve(item, lookup, f'{path}.{key}' if path else str(key))
                for key, item in data.items()}
    if isinstance(data, list):
        return [_resolve(item, lookup, f'{path}[{index}]') for index, item in enumerate(data)]
    return data


class MessageTemplate:
    """A message written in YAML whose leaves may be blackboard references or expressions.

    Args:
        msg_class: the generated message class to build
        value: the parameter value (a mapping, possibly holding dynamic parts), or None
        what: the parameter name, used as the field path prefix in errors
    """

    def __init__(self, msg_class: type, value: Optional[Value], what: str) -> None:
        self.msg_class = msg_class
        self.what = what
        data = value.data if value is not None else {}
        #: a value that is one reference as a whole (``goal: $goal``)
        self.whole: Optional[Dynamic] = data if isinstance(data, Dynamic) else None
        self.template = None if self.whole is not None else _deferred(data)
        #: no blackboard reads: every build gives the same message
        self.is_static = self.whole is None and not self.names()

    def check(self) -> list[interfaces.InterfaceError]:
        """Check the literal parts against the message type (dynamic parts pass)."""
        if self.whole is not None:
            return []
        return interfaces.check_fields(self.msg_class, self.template, path=self.what)

    def build(self, lookup: Lookup) -> Any:
        """Evaluate the dynamic parts against ``lookup`` and build the message.

        The first value that cannot be evaluated is reported (with its field path)
        before any type problem; then the first type problem in field order.

        Raises:
            ValueError: with a readable reason (field path included) if it cannot be built.
        """
        try:
            data = _resolve(self.template if self.whole is None else _TickValue(self.whole),
                            lookup, self.what)
            return interfaces.to_message(self.msg_class, data, path=self.what)
        except ValueError as error:  # InterfaceError is a ValueError
            raise ValueError(f'cannot build the {self.what}: {error}') from error

    def names(self) -> frozenset[str]:
        """Return the blackboard names the dynamic parts read."""
        if self.whole is not None:
            return self.whole.expression.names
        names: set[str] = set()
        stack = [self.template]
        while stack:
            item = stack.pop()
            if isinstance(item, _TickValue):
                names |= item.dynamic.expression.names
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return frozenset(names)
