# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Convert between plain data and ROS messages, checking every value.

Conversion is strict because the generated message classes are not: unless the environment
variable ``ROS_PYTHON_CHECK_FIELDS`` is ``1``, their setters accept anything, and the C
serializer then silently wraps out-of-range integers, pads short fixed-size arrays, or fails
at publish time with an unhelpful message. :func:`to_message` and :func:`check_fields`
therefore check every value against the field's declared type and report the field path:

* ``bool`` fields take only ``True``/``False`` (not 0/1).
* Integer fields take integers (not bools) and floats with an integral value (``3.0``);
  ``3.5`` is an error, never truncated. Values are range-checked for the declared width.
* ``float``/``double`` fields take ints and floats (not bools); ``float`` (float32) is
  range-checked, NaN and infinities are accepted.
* ``string``/``wstring`` fields take ``str``; bounded strings are length-checked.
* ``octet`` fields take an int in [0, 255] or a ``bytes`` object of length 1.
* Arrays and sequences take lists or tuples (also numpy arrays, ``array.array`` and, for
  byte-like element types, ``bytes``); fixed sizes and upper bounds are checked.
* Nested messages take a mapping of their fields, or an instance of the right class.
* ``builtin_interfaces/msg/Time`` and ``Duration`` also take a number of seconds.

A leaf value that is only known at tick time (for example read from the blackboard) is
represented at load time by an instance of :class:`Deferred`; :func:`check_fields` accepts
it for any field, and :func:`to_message` resolves it through ``resolve_deferred``.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Mapping
import math
import numbers
from typing import Any, Optional

from bt_executive.ros.interfaces.fields import (
    ARRAY_TYPECODES, declared_fields, describe_base, field_specs, FieldSpec,
    FLOAT32_MAX, FLOAT_TYPES, INT_RANGES, NUMPY_DTYPES, require_message_class,
    STAMP_TYPES, STRING_TYPES)
from bt_executive.ros.interfaces.names import (did_you_mean, InterfaceError, resolve, type_name,
                                               type_string_of)


class Deferred:
    """Mark a leaf value that is only computed at tick time, e.g. read from the blackboard.

    Load-time validation (:func:`check_fields`) accepts a ``Deferred`` for any field
    without a type check; :func:`to_message` hands it to its ``resolve_deferred`` callback
    and type-checks what that returns. Other layers subclass it to carry their own data.

    Attributes:
        description: Human-readable origin of the value, used in messages and rendering.
    """

    def __init__(self, *, description: str = '') -> None:
        """Create the marker.

        Args:
            description: Human-readable origin of the value, e.g. ``'${bb.target}'``.
        """
        self.description = description

    def __repr__(self) -> str:
        """Return a debug representation including the description."""
        return f'{type(self).__name__}({self.description!r})'


def fields_of(msg_class: type) -> dict[str, str]:
    """Return the message's field names mapped to their ROS type strings, in order.

    Args:
        msg_class: A generated message class.

    Returns:
        For example ``{'header': 'std_msgs/Header', 'cell_voltage': 'sequence<float>'}``.

    Raises:
        InterfaceError: If ``msg_class`` is not a message class.
    """
    require_message_class(msg_class)
    return declared_fields(msg_class)


def to_message(msg_class: type, data: Any, *, path: str = '',
               resolve_deferred: Optional[Callable[[Deferred], Any]] = None) -> Any:
    """Build a message from nested plain data, checking every value on the way.

    Args:
        msg_class: The generated message class to build.
        data: A mapping of field names to values (nested mappings for nested messages,
            lists for arrays and sequences), or an instance of ``msg_class``, which is
            returned unchanged. Fields not mentioned keep their defaults.
        path: Prefix for field paths in errors, e.g. ``'goal'``.
        resolve_deferred: Called with each :class:`Deferred` leaf; its return value is
            checked and used. Its exceptions propagate unchanged. Without it a
            ``Deferred`` leaf is an error.

    Returns:
        The new message instance.

    Raises:
        InterfaceError: For the first problem found (unknown field, wrong type, value
            out of range, wrong array length); ``field_path`` says where.
    """
    require_message_class(msg_class)
    walker = _Walker(build=True, resolve_deferred=resolve_deferred)
    result = walker.message(msg_class, data, path)
    if walker.errors:
        raise walker.errors[0]
    return result


def check_fields(msg_class: type, data: Any, *, path: str = '') -> list[InterfaceError]:
    """Check plain data against a message type without building it, finding every problem.

    Meant for load-time validation of goals, requests and published messages written in
    YAML: :class:`Deferred` leaves are accepted for any field, since their values only
    exist at tick time.

    Args:
        msg_class: The generated message class the data is meant for.
        data: The same kind of value as for :func:`to_message`.
        path: Prefix for field paths in errors, e.g. ``'goal'``.

    Returns:
        One error per problem found, in field order; empty if the data fits.
    """
    require_message_class(msg_class)
    walker = _Walker(build=False, resolve_deferred=None)
    walker.message(msg_class, data, path)
    return walker.errors


def check_field_paths(msg_class: type, data: Mapping[str, Any], *,
                      path: str = '') -> list[InterfaceError]:
    """Check that the keys of a partial description of a message name its fields.

    For patterns that a message is matched against (a scenario's ``fields`` and
    ``match``): keys may be dotted paths (``pose.position.x``) and take list items by
    index (``poses.0``); a mapping value descends into a nested message. Values are not
    checked (a pattern may compare a whole list, or a number to a bool); only names.

    Args:
        msg_class: The generated message class the pattern is matched against.
        data: The pattern.
        path: Prefix for field paths in errors, e.g. ``'fields'``.

    Returns:
        One error per key that names no field, in key order.
    """
    require_message_class(msg_class)
    errors: list[InterfaceError] = []
    for key, value in data.items():
        where = _join(path, str(key))
        spec: Optional[FieldSpec] = None
        current: Optional[type] = msg_class
        for part in str(key).split('.'):
            if spec is not None and spec.container:
                if not part.isdigit():
                    errors.append(InterfaceError(
                        f'{spec.describe()}: expected an item index, not {part!r}',
                        field_path=where))
                    break
                spec = spec.element()
                current = resolve(spec.base, kind='msg') if spec.is_nested else None
                continue
            if current is None:
                assert spec is not None
                if part.isdigit() and spec.base in STRING_TYPES:
                    break  # a character of a string
                errors.append(InterfaceError(
                    f'{spec.describe()} has no field {part!r}', field_path=where))
                break
            specs = field_specs(current)
            spec = specs.get(part)
            if spec is None:
                errors.append(InterfaceError(
                    _unknown_field(part, type_string_of(current), specs), field_path=where))
                break
            current = resolve(spec.base, kind='msg') \
                if spec.is_nested and not spec.container else None
        else:
            if isinstance(value, Mapping) and value:
                if current is not None and spec is not None and not spec.container:
                    errors += check_field_paths(current, value, path=where)
                elif spec is not None and not spec.container:
                    errors.append(InterfaceError(
                        f'{spec.describe()}, not a mapping of fields', field_path=where))
    return errors


def to_dict(msg: Any) -> dict[str, Any]:
    """Turn a message into plain, JSON-friendly Python data.

    Nested messages become dicts, arrays and sequences (lists, numpy arrays,
    ``array.array``) become lists, numpy scalars become Python numbers, ``octet`` fields
    become ints and byte sequences lists of ints. Floats are kept as they are, including
    NaN and infinities: ``json.dumps`` writes those as ``NaN``/``Infinity``, which strict
    JSON parsers reject, so writers that need strict JSON must map them themselves.
    The result can be passed back to :func:`to_message`.

    Args:
        msg: A message instance.

    Returns:
        The fields in declaration order.

    Raises:
        InterfaceError: If ``msg`` is not a message instance.
    """
    if isinstance(msg, type) or not hasattr(type(msg), 'get_fields_and_field_types'):
        raise InterfaceError(f'expected a ROS message instance, got {type_name(msg)}')
    specs = field_specs(type(msg))
    return {name: _plain(getattr(msg, name), spec) for name, spec in specs.items()}


# --- the walker behind to_message and check_fields ------------------------------------


class _Sentinel:
    """A marker object for the walker's internal results."""


_FAILED = _Sentinel()  # the value did not fit; an error was recorded
_UNCHECKED = _Sentinel()  # a Deferred leaf accepted without a check (check_fields only)


class _Walker:
    """Check (and optionally convert) plain data against field types, collecting errors."""

    def __init__(self, *, build: bool,
                 resolve_deferred: Optional[Callable[[Deferred], Any]]) -> None:
        """Create a walker that builds messages when ``build`` is true."""
        self.build = build
        self.resolve_deferred = resolve_deferred
        self.errors: list[InterfaceError] = []

    def fail(self, path: str, message: str) -> _Sentinel:
        """Record an error and return the failure sentinel."""
        self.errors.append(InterfaceError(message, field_path=path))
        return _FAILED

    def message(self, msg_class: type, data: Any, path: str) -> Any:
        """Convert a mapping (or a ready instance) to a message of ``msg_class``."""
        if isinstance(data, msg_class):
            return data
        type_string = type_string_of(msg_class)
        if not isinstance(data, Mapping):
            return self.fail(path, f'expected a mapping of {type_string} fields, '
                                   f'got {type_name(data)}')
        specs = field_specs(msg_class)
        msg = msg_class() if self.build else None
        errors_before = len(self.errors)
        for key, value in data.items():
            if not isinstance(key, str):
                self.fail(path, f'field names must be strings, got {type_name(key)} '
                                f'{key!r} in {type_string}')
                continue
            field_path = _join(path, key)
            spec = specs.get(key)
            if spec is None:
                self.fail(field_path, _unknown_field(key, type_string, specs))
                continue
            converted = self.field(spec, value, field_path)
            if msg is not None and not isinstance(converted, _Sentinel):
                setattr(msg, key, converted)
        if len(self.errors) > errors_before:
            return _FAILED
        return msg

    def undefer(self, value: Any, path: str) -> Any:
        """Replace a Deferred by its value (or _UNCHECKED when only checking)."""
        if not isinstance(value, Deferred):
            return value
        if not self.build:
            return _UNCHECKED
        if self.resolve_deferred is None:
            return self.fail(path, f'value {value!r} is only known at tick time and was '
                                   'not resolved')
        return self.resolve_deferred(value)

    def field(self, spec: FieldSpec, value: Any, path: str) -> Any:
        """Convert the value of one field, single or container."""
        if isinstance(value, Deferred):
            value = self.undefer(value, path)
            if isinstance(value, _Sentinel):
                return value
        if spec.container:
            return self.container(spec, value, path)
        return self.element(spec, value, path)

    def container(self, spec: FieldSpec, value: Any, path: str) -> Any:
        """Convert an array or sequence value."""
        base = spec.base
        if isinstance(value, (str, Mapping)) or not _is_listlike(value, base):
            return self.fail(path, f'expected {spec.describe()}, got {type_name(value)}')
        length = len(value)
        if spec.container == 'array' and length != spec.size:
            return self.fail(path, f'expected exactly {spec.size} items, got {length}')
        if spec.size is not None and length > spec.size:
            return self.fail(path, f'expected at most {spec.size} items, got {length}')
        whole = _take_whole(value, spec)
        if whole is not None:
            return whole if self.build else None
        element_spec = spec.element()
        items = []
        failed = False
        for index, item in enumerate(value):
            converted = self.element(element_spec, item, f'{path}[{index}]')
            failed = failed or converted is _FAILED
            items.append(converted)
        return _FAILED if failed else items

    def element(self, spec: FieldSpec, value: Any, path: str) -> Any:
        """Convert one non-container value."""
        if isinstance(value, Deferred):
            value = self.undefer(value, path)
            if isinstance(value, _Sentinel):
                return value
        base = spec.base
        if spec.is_nested:
            return self.nested(spec, value, path)
        if base == 'boolean':
            if isinstance(value, bool) or _is_numpy_bool(value):
                return bool(value)
            return self.fail(path, f'expected a bool, got {type_name(value)}')
        if base in INT_RANGES:
            return self.integer(base, value, path)
        if base in FLOAT_TYPES:
            return self.floating(base, value, path)
        if base in STRING_TYPES:
            if not isinstance(value, str):
                return self.fail(path, f'expected {describe_base(spec)}, '
                                       f'got {type_name(value)}')
            if spec.string_bound is not None and len(value) > spec.string_bound:
                return self.fail(path, f'expected {describe_base(spec)}, got '
                                       f'{len(value)} characters')
            return value
        if base == 'octet':
            if isinstance(value, (bytes, bytearray)) and len(value) == 1:
                return bytes(value)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                if 0 <= int(value) <= 255:
                    return bytes((int(value),))
                return self.fail(path, f'value {value} is out of range for octet [0, 255]')
            return self.fail(path, f'expected {describe_base(spec)}, got {type_name(value)}')
        if base == 'char':
            if isinstance(value, str) and len(value) == 1:
                return value
            return self.fail(path, f'expected a single character, got {type_name(value)}')
        return self.fail(path, f'unsupported field type {spec.text!r}')

    def integer(self, base: str, value: Any, path: str) -> Any:
        """Convert an integer value and check it fits ``base``."""
        if isinstance(value, bool) or _is_numpy_bool(value):
            return self.fail(path, f'expected an integer, got {type_name(value)}')
        if isinstance(value, numbers.Integral):
            number = int(value)
        elif isinstance(value, numbers.Real):
            as_float = float(value)
            if not (math.isfinite(as_float) and as_float.is_integer()):
                return self.fail(path, f'expected an integer, got non-integral float '
                                       f'{as_float!r}')
            number = int(as_float)
        else:
            return self.fail(path, f'expected an integer, got {type_name(value)}')
        low, high = INT_RANGES[base]
        if not low <= number <= high:
            return self.fail(path, f'value {number} is out of range for {base} '
                                   f'[{low}, {high}]')
        return number

    def floating(self, base: str, value: Any, path: str) -> Any:
        """Convert a float value and check it fits ``base``."""
        if (isinstance(value, bool) or _is_numpy_bool(value)
                or not isinstance(value, numbers.Real)):
            return self.fail(path, f'expected a float, got {type_name(value)}')
        try:
            number = float(value)
        except OverflowError:
            return self.fail(path, f'value {value} is out of range for {base}')
        if base == 'float' and math.isfinite(number) and abs(number) > FLOAT32_MAX:
            return self.fail(path, f'value {number!r} is out of range for float (float32)')
        return number

    def nested(self, spec: FieldSpec, value: Any, path: str) -> Any:
        """Convert a nested message value (mapping, instance, or seconds for stamps)."""
        try:
            nested_class = resolve(spec.base, kind='msg')
        except InterfaceError as exc:
            return self.fail(path, exc.message)
        if isinstance(value, nested_class):
            return value
        if spec.base in STAMP_TYPES:
            converted = self.stamp(spec.base, nested_class, value, path)
            if converted is not None:
                return converted
        if isinstance(value, Mapping):
            return self.message(nested_class, value, path)
        return self.fail(path, f'expected {describe_base(spec)}, got {type_name(value)}')

    def stamp(self, base: str, stamp_class: type, value: Any, path: str) -> Any:
        """Convert seconds (or an rclpy Time/Duration) to a stamp; None if not applicable."""
        to_msg = getattr(value, 'to_msg', None)
        if callable(to_msg) and not isinstance(value, Mapping):
            converted = to_msg()
            if isinstance(converted, stamp_class):
                return converted
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return None
        seconds = float(value)
        if not math.isfinite(seconds):
            return self.fail(path, f'expected a finite number of seconds, got {seconds!r}')
        if base.endswith('/Time') and seconds < 0:
            return self.fail(path, f'expected a non-negative number of seconds for a time, '
                                   f'got {seconds!r}')
        whole = math.floor(seconds)
        nanosec = int(round((seconds - whole) * 1e9))
        if nanosec >= 1_000_000_000:
            whole, nanosec = whole + 1, nanosec - 1_000_000_000
        low, high = INT_RANGES['int32']
        if not low <= whole <= high:
            return self.fail(path, f'value {seconds!r} seconds is out of range for '
                                   f'{base} (int32 seconds)')
        if not self.build:
            return True
        return stamp_class(sec=whole, nanosec=nanosec)


def _unknown_field(key: str, type_string: str, specs: Mapping[str, Any]) -> str:
    """Return the message for a field name ``key`` that the type's ``specs`` lack."""
    return (f'unknown field {key!r} for {type_string}{did_you_mean(key, specs)}; '
            f'valid fields: {", ".join(specs) or "(none)"}')


def _join(path: str, key: str) -> str:
    """Append a field name to a dotted path."""
    return f'{path}.{key}' if path else key


def _is_numpy_bool(value: Any) -> bool:
    """Return whether a value is a numpy boolean scalar (without importing numpy)."""
    return type(value).__module__ == 'numpy' and type(value).__name__ in ('bool', 'bool_')


def _is_listlike(value: Any, base: str) -> bool:
    """Return whether a value can stand for an array or sequence of ``base`` elements."""
    if isinstance(value, (list, tuple, array.array)):
        return True
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base in ('uint8', 'octet')
    # numpy arrays, checked by duck type so numpy is not needed here.
    return getattr(value, 'ndim', None) == 1 and hasattr(value, 'tolist')


def _take_whole(value: Any, spec: FieldSpec) -> Any:
    """Return a container value usable as is (no per-item checks needed), else None."""
    base = spec.base
    if isinstance(value, (bytes, bytearray, memoryview)):
        if base == 'octet':
            return [bytes((item,)) for item in bytes(value)]
        if spec.container == 'sequence':
            return array.array('B', bytes(value))
        return list(bytes(value))
    if isinstance(value, array.array):
        return value if ARRAY_TYPECODES.get(base) == value.typecode else None
    dtype = getattr(value, 'dtype', None)
    if dtype is not None and NUMPY_DTYPES.get(base) == str(dtype):
        return value
    return None


def _plain(value: Any, spec: Optional[FieldSpec]) -> Any:
    """Convert a field value to plain Python data for :func:`to_dict`."""
    if hasattr(type(value), 'get_fields_and_field_types'):
        return to_dict(value)
    if isinstance(value, (bytes, bytearray)):
        if spec is not None and spec.base == 'octet' and not spec.container and len(value) == 1:
            return value[0]
        return list(value)
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, array.array):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        element = spec.element() if spec is not None else None
        return [_plain(item, element) for item in value]
    tolist = getattr(value, 'tolist', None)
    if callable(tolist):
        # numpy arrays and numpy scalars.
        return tolist()
    return value
