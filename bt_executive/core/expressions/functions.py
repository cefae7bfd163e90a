# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The functions that expressions may call by default, each with bounded cost."""

from __future__ import annotations

from collections.abc import Mapping
import operator
import types
from typing import Any, Callable

from bt_executive.core.expressions.limits import (INT_LIMIT, MAX_INT_DIGITS, MAX_INT_TEXT,
                                                  MAX_ROUND_DIGITS)
from bt_executive.core.expressions.rendering import preview


def _round(value: Any, ndigits: Any = None) -> Any:
    """Round like Python's ``round``, with a bounded ``ndigits``."""
    if ndigits is None:
        return round(value)
    digits = operator.index(ndigits)
    if not -MAX_ROUND_DIGITS <= digits <= MAX_ROUND_DIGITS:
        raise ValueError(
            f'ndigits must be between {-MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}')
    return round(value, digits)


def _int(value: Any) -> int:
    """Convert to int, refusing very long digit strings."""
    if isinstance(value, (str, bytes, bytearray)) and len(value) > MAX_INT_TEXT:
        raise ValueError(f'text is too long to convert ({len(value)} characters)')
    return int(value)


def _float(value: Any) -> float:
    """Convert to float."""
    return float(value)


def _str(value: Any) -> str:
    """Convert to str, refusing integers too large to print cheaply."""
    if isinstance(value, int) and not -INT_LIMIT < value < INT_LIMIT:
        raise ValueError(f'integer is too large to convert (more than {MAX_INT_DIGITS} digits)')
    return str(value)


def _bool(value: Any) -> bool:
    """Convert to bool."""
    return bool(value)


def _clamp(value: Any, low: Any, high: Any) -> Any:
    """Return ``value`` limited to the range ``[low, high]``."""
    if high < low:
        raise ValueError(f'low ({preview(low)}) is above high ({preview(high)})')
    if value < low:
        return low
    if value > high:
        return high
    return value


DEFAULT_FUNCTIONS: Mapping[str, Callable[..., Any]] = types.MappingProxyType({
    'abs': abs,
    'bool': _bool,
    'clamp': _clamp,
    'float': _float,
    'int': _int,
    'len': len,
    'max': max,
    'min': min,
    'round': _round,
    'str': _str,
})
"""The functions available to expressions unless :func:`parse` is given others."""
