# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Field types of generated message classes: the basic types and parsed field specs.

``get_fields_and_field_types()`` of a generated class gives each field's type as a string
such as ``'sequence<string<5>, 3>'``; :func:`field_specs` parses those into
:class:`FieldSpec` objects that the converter checks values against.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from bt_executive.ros.interfaces.names import InterfaceError


INT_RANGES: dict[str, tuple[int, int]] = {
    'int8': (-2 ** 7, 2 ** 7 - 1),
    'uint8': (0, 2 ** 8 - 1),
    'int16': (-2 ** 15, 2 ** 15 - 1),
    'uint16': (0, 2 ** 16 - 1),
    'int32': (-2 ** 31, 2 ** 31 - 1),
    'uint32': (0, 2 ** 32 - 1),
    'int64': (-2 ** 63, 2 ** 63 - 1),
    'uint64': (0, 2 ** 64 - 1),
}
FLOAT32_MAX = 3.4028234663852886e+38
FLOAT_TYPES = ('float', 'double', 'long double')
STRING_TYPES = ('string', 'wstring')
_BASIC_TYPES = frozenset(
    (*INT_RANGES, *FLOAT_TYPES, *STRING_TYPES, 'boolean', 'octet', 'char'))
# numpy dtype names and array.array type codes that hold exactly a given element type, so
# such arrays can be taken whole instead of checked item by item.
NUMPY_DTYPES = {
    'float': 'float32', 'double': 'float64', 'int8': 'int8', 'uint8': 'uint8',
    'int16': 'int16', 'uint16': 'uint16', 'int32': 'int32', 'uint32': 'uint32',
    'int64': 'int64', 'uint64': 'uint64',
}
ARRAY_TYPECODES = {
    'float': 'f', 'double': 'd', 'int8': 'b', 'uint8': 'B', 'int16': 'h', 'uint16': 'H',
    'int32': 'i', 'uint32': 'I', 'int64': 'q', 'uint64': 'Q',
}
STAMP_TYPES = ('builtin_interfaces/msg/Time', 'builtin_interfaces/msg/Duration')


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """A parsed field type string such as ``'sequence<string<5>, 3>'``.

    Attributes:
        text: The original type string.
        base: Element base type: a basic type name, or a ``'pkg/msg/Name'`` type string
            for nested messages.
        string_bound: Maximum length of a bounded (w)string element, else None.
        container: ``''`` for a single value, ``'array'`` or ``'sequence'``.
        size: Exact size of an array or upper bound of a sequence, else None.
    """

    text: str
    base: str
    string_bound: Optional[int] = None
    container: str = ''
    size: Optional[int] = None

    @property
    def is_nested(self) -> bool:
        """Return whether the element type is a message type."""
        return '/' in self.base

    def element(self) -> 'FieldSpec':
        """Return the spec of one element of an array or sequence."""
        return dataclasses.replace(self, container='', size=None)

    def describe(self) -> str:
        """Return what a value of this type must be, e.g. ``'a list of exactly 3 floats'``."""
        if self.container == 'array':
            return f'a list of exactly {self.size} {_plural(self)}'
        if self.container == 'sequence' and self.size is not None:
            return f'a list of at most {self.size} {_plural(self)}'
        if self.container == 'sequence':
            return f'a list of {_plural(self)}'
        return describe_base(self)


_SEQUENCE_RE = re.compile(r'sequence<(.+?)(?:,\s*(\d+))?>\Z')
_ARRAY_RE = re.compile(r'(.+)\[(\d+)\]\Z')
_STRING_RE = re.compile(r'(w?string)(?:<(\d+)>)?\Z')

_spec_cache: dict[type, dict[str, FieldSpec]] = {}


def _parse_field_type(text: str) -> FieldSpec:
    """Parse one type string from ``get_fields_and_field_types()``."""
    container, size, element = '', None, text
    match = _SEQUENCE_RE.match(text)
    if match:
        container, element = 'sequence', match.group(1)
        size = int(match.group(2)) if match.group(2) else None
    else:
        match = _ARRAY_RE.match(text)
        if match:
            container, element, size = 'array', match.group(1), int(match.group(2))
    string_bound = None
    match = _STRING_RE.match(element)
    if match:
        base = match.group(1)
        string_bound = int(match.group(2)) if match.group(2) else None
    elif '/' in element:
        parts = element.split('/')
        base = f'{parts[0]}/msg/{parts[-1]}'
    elif element in _BASIC_TYPES:
        base = element
    else:
        raise InterfaceError(f'unsupported field type {text!r}')
    return FieldSpec(text, base, string_bound, container, size)


def field_specs(msg_class: type) -> dict[str, FieldSpec]:
    """Return the parsed field types of a message class (cached)."""
    specs = _spec_cache.get(msg_class)
    if specs is None:
        specs = {name: _parse_field_type(text)
                 for name, text in declared_fields(msg_class).items()}
        _spec_cache[msg_class] = specs
    return specs


def describe_base(spec: FieldSpec) -> str:
    """Describe a single value of a field's element type."""
    base = spec.base
    if base == 'boolean':
        return 'a bool'
    if base in INT_RANGES:
        return 'an integer'
    if base in FLOAT_TYPES:
        return 'a float'
    if base in STRING_TYPES:
        if spec.string_bound is not None:
            return f'a string of at most {spec.string_bound} characters'
        return 'a string'
    if base == 'octet':
        return 'a byte (an integer in [0, 255] or a bytes object of length 1)'
    if base == 'char':
        return 'a single character'
    if base in STAMP_TYPES:
        return f'a number of seconds or a mapping of {base} fields'
    return f'a mapping of {base} fields'


def _plural(spec: FieldSpec) -> str:
    """Describe the element type of a container in the plural."""
    base = spec.base
    if spec.is_nested:
        return f'{base} items'
    names = {'boolean': 'bools', 'octet': 'bytes', 'char': 'characters'}
    if base in INT_RANGES:
        return f'integers ({base})'
    if base in FLOAT_TYPES:
        return 'floats'
    if base in STRING_TYPES:
        return 'strings'
    return names.get(base, base)


def declared_fields(msg_class: type) -> dict[str, str]:
    """Return a copy of the generated class's field names and type strings."""
    return dict(getattr(msg_class, 'get_fields_and_field_types')())


def require_message_class(msg_class: Any) -> None:
    """Raise InterfaceError unless ``msg_class`` is a generated message class."""
    if not (isinstance(msg_class, type) and hasattr(msg_class, 'get_fields_and_field_types')):
        raise InterfaceError(f'expected a ROS message class, got {msg_class!r}')
