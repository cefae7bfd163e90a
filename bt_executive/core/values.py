# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Static parameter values checked against their declared type (the loader's and builder's).

The loader checks each literal as the file writes it; the builder checks a value again
once tree arguments are substituted into it. Both use :func:`check_type`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional

from bt_executive.core import yaml_source
from bt_executive.core.errors import excerpt
from bt_executive.core.registry import hint, Param, ParamType

_KEY = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z')
_INTERFACE = re.compile(r'[a-z][a-z0-9_]*/(msg|srv|action)/[A-Z][A-Za-z0-9]*\Z')

__all__ = ['check_type', 'is_key']


def is_key(text: str) -> bool:
    """Tell whether ``text`` is a blackboard key path (identifiers joined by dots)."""
    return bool(_KEY.match(text))


def check_type(param: Param, data: Any) -> Optional[str]:
    """Check a static value against a parameter spec; return a problem or None."""
    kind = param.type
    expected = None
    if kind is ParamType.BOOL and not isinstance(data, bool):
        expected = 'true or false'
    elif kind is ParamType.INT and (isinstance(data, bool) or not isinstance(data, int)):
        expected = 'an integer'
    elif kind is ParamType.FLOAT and (isinstance(data, bool)
                                      or not isinstance(data, (int, float))):
        expected = 'a number'
    elif kind in (ParamType.STRING, ParamType.ENUM, ParamType.KEY,
                  ParamType.INTERFACE) and not isinstance(data, str):
        expected = 'a string'
    elif kind is ParamType.LIST and not isinstance(data, list):
        expected = 'a list'
    elif kind is ParamType.MAPPING and not isinstance(data, dict):
        expected = 'a mapping'
    if expected:
        return f'expected {expected}, got {yaml_source.describe(data)}'
    if kind in (ParamType.INT, ParamType.FLOAT):
        if not math.isfinite(data):
            return f'expected a finite number, got {yaml_source.format_number(data)}'
        if param.minimum is not None and data < param.minimum:
            return f'expected a value >= {param.minimum:g}, got {data}'
        if param.maximum is not None and data > param.maximum:
            return f'expected a value <= {param.maximum:g}, got {data}'
    if kind is ParamType.ENUM and data not in param.choices:
        return (f"expected one of {', '.join(param.choices)}, got '{excerpt(data)}'"
                f'{hint(data, param.choices)}')
    if kind is ParamType.KEY and not _KEY.match(data):
        return f"expected a blackboard key (identifier, dots for fields), got '{excerpt(data)}'"
    if kind is ParamType.INTERFACE and not _INTERFACE.match(data):
        return (f"expected a ROS interface type like 'sensor_msgs/msg/BatteryState', "
                f"got '{excerpt(data)}'")
    return None
