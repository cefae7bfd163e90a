# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The operations of the language on evaluated values, with their safety rules.

Arithmetic refuses results that grow too large, comparisons and ``in`` turn Python's
type errors into :class:`EvaluationError`, and fields are read only when they are
declared data fields (dict keys, ROS message fields, dataclass fields, namedtuple
fields).
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import numbers
import operator
from typing import Any, Callable, Optional

from bt_executive.core.expressions.errors import EvaluationError
from bt_executive.core.expressions.limits import (
    INT_LIMIT, INT_LIMIT_BITS, MAX_INT_DIGITS, MAX_MAGNITUDE, MAX_SEQUENCE_LENGTH,
)
from bt_executive.core.expressions.rendering import names_preview, preview, type_name


def is_number(value: Any) -> bool:
    """Return whether ``value`` takes part in arithmetic (bool and numpy numbers too)."""
    return isinstance(value, numbers.Real)


def is_plain_number(value: Any) -> bool:
    """Return whether ``value`` is a Python int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _exceeds(value: Any) -> bool:
    """Return whether a number is beyond :data:`MAX_MAGNITUDE` (or not finite)."""
    if isinstance(value, int):
        return abs(value) > MAX_MAGNITUDE
    try:
        return not abs(float(value)) <= MAX_MAGNITUDE
    except OverflowError:
        return True
    except Exception:  # noqa: BLE001 - exotic numbers: do not judge them
        return False


def checked(op: str, result: Any, *operands: Any) -> Any:
    """Return an arithmetic result, or raise if it grew too large."""
    if isinstance(result, int) and not -INT_LIMIT < result < INT_LIMIT:
        raise EvaluationError(
            f"result of '{op}' is too large (more than {MAX_INT_DIGITS} digits)")
    if _exceeds(result) and not any(_exceeds(value) for value in operands):
        raise EvaluationError(
            f"result of '{op}' is too large (magnitude above {MAX_MAGNITUDE:g})")
    return result


def truth(value: Any) -> bool:
    """Return the truth value of ``value``, raising EvaluationError when it has none."""
    try:
        return bool(value)
    except Exception as exc:  # noqa: BLE001 - e.g. numpy arrays
        raise EvaluationError(
            f'cannot use {type_name(value)} as a condition: {exc}') from exc


def arithmetic(op: str, left: Any, right: Any) -> Any:
    """Apply a binary arithmetic operator with the language's safety rules."""
    if op == '+':
        if is_number(left) and is_number(right):
            return checked(op, left + right, left, right)
        for kind in (str, list, tuple):
            if isinstance(left, kind) and isinstance(right, kind):
                length = len(left) + len(right)
                if length > MAX_SEQUENCE_LENGTH:
                    raise EvaluationError(
                        f"result of '+' is too long ({length} items; "
                        f'the limit is {MAX_SEQUENCE_LENGTH})')
                return left + right  # type: ignore[operator]  # same kind, checked above
        raise EvaluationError(f'cannot add {type_name(left)} and {type_name(right)}')
    if not (is_number(left) and is_number(right)):
        raise EvaluationError(
            f"'{op}' needs two numbers, got {type_name(left)} and {type_name(right)}")
    if op == '-':
        return checked(op, left - right, left, right)
    if op == '*':
        if (isinstance(left, int) and isinstance(right, int)
                and left.bit_length() + right.bit_length() > INT_LIMIT_BITS + 1):
            raise EvaluationError(
                f"result of '*' is too large (more than {MAX_INT_DIGITS} digits)")
        return checked(op, left * right, left, right)
    if right == 0:
        raise EvaluationError(f"division by zero in '{op}'")
    try:
        if op == '/':
            result = left / right
        elif op == '//':
            result = left // right
        else:
            result = left % right
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise EvaluationError(f"'{op}' failed: {exc}") from exc
    return checked(op, result, left, right)


def _is_container(value: Any) -> bool:
    """Return whether ``in`` may be used with ``value`` on its right."""
    return not isinstance(value, type) and hasattr(type(value), '__contains__')


def compare(op: str, left: Any, right: Any) -> Any:
    """Apply one comparison operator."""
    if op == '==':
        return left == right
    if op == '!=':
        return left != right
    if op in ('in', 'not in'):
        if not _is_container(right):
            raise EvaluationError(
                f"'{op}' needs a string, list, tuple, dict or set on the right, "
                f'got {type_name(right)}')
        try:
            found = left in right
        except TypeError as exc:
            raise EvaluationError(
                f'cannot look for {type_name(left)} in {type_name(right)}: {exc}') from exc
        return found if op == 'in' else not truth(found)
    function = _ORDERINGS[op]
    try:
        return function(left, right)
    except TypeError as exc:
        raise EvaluationError(
            f"cannot compare {type_name(left)} and {type_name(right)} with '{op}'"
        ) from exc


_ORDERINGS: dict[str, Callable[[Any, Any], Any]] = {
    '<': operator.lt,
    '<=': operator.le,
    '>': operator.gt,
    '>=': operator.ge,
}


def _declared_fields(value: Any) -> Optional[frozenset[str]]:
    """Return the data field names that may be read from ``value``, or None if none may."""
    if isinstance(value, type):
        return None
    cls = type(value)
    getter = getattr(cls, 'get_fields_and_field_types', None)
    if getter is not None and callable(getter):
        fields = value.get_fields_and_field_types()
        return frozenset(name for name in fields if isinstance(name, str))
    if dataclasses.is_dataclass(value):
        return frozenset(field.name for field in dataclasses.fields(value))
    tuple_fields = getattr(cls, '_fields', None)
    if isinstance(value, tuple) and isinstance(tuple_fields, tuple):
        return frozenset(name for name in tuple_fields if isinstance(name, str))
    return None


def read_field(value: Any, name: str) -> Any:
    """Read the data field ``name`` of ``value`` exactly as the expression ``value.name`` does.

    Mappings give their entry ``name``; ROS messages, dataclasses and named tuples their
    declared field ``name``; anything else has no fields.

    Raises:
        EvaluationError: There is no such field, saying which fields there are.
    """
    if isinstance(value, Mapping):
        try:
            present = name in value
        except TypeError:
            present = False
        if present:
            return value[name]
        raise EvaluationError(
            f"no field '{name}' in {type_name(value)} "
            f'(keys: {names_preview(value.keys())})')
    fields = _declared_fields(value)
    if fields is None:
        raise EvaluationError(f"cannot read field '{name}' of {type_name(value)}")
    if name.startswith('_') or name not in fields:
        raise EvaluationError(
            f"no field '{name}' in {type_name(value)} (fields: {names_preview(fields)})")
    return getattr(value, name)


def read_index(value: Any, key: Any) -> Any:
    """Read ``value[key]`` for mappings (by key) and sequences (by integer index)."""
    if isinstance(value, Mapping):
        try:
            return value[key]
        except KeyError:
            raise EvaluationError(
                f'no key {preview(key)} in {type_name(value)}') from None
        except TypeError as exc:
            raise EvaluationError(
                f'cannot use {type_name(key)} as a key of {type_name(value)}') from exc
    cls = type(value)
    if isinstance(value, type) or not (hasattr(cls, '__getitem__') and hasattr(cls, '__len__')):
        raise EvaluationError(f'cannot index {type_name(value)}')
    if isinstance(key, bool):
        raise EvaluationError('index must be an integer, got bool')
    try:
        index = operator.index(key)
    except TypeError:
        raise EvaluationError(f'index must be an integer, got {type_name(key)}') from None
    try:
        return value[index]
    except IndexError:
        raise EvaluationError(
            f'index {index} is out of range for {type_name(value)} '
            f'of length {len(value)}') from None
