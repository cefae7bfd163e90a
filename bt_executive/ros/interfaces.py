"""Resolve ROS interface types by name and convert between plain data and messages.

This module is the only place in bt_executive that turns a type string such as
``'geometry_msgs/msg/PoseStamped'`` into a class, and the only converter between plain
Python data (the dicts, lists and scalars that YAML produces) and ROS message instances.

Type strings always have three parts, ``package/kind/Name``, with ``kind`` one of ``msg``,
``srv`` or ``action``. Resolving one imports exactly the module ``package.kind`` (the
package name is checked to be a plain lowercase identifier first), so no other code can be
reached through a type string.

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
from collections.abc import Callable, Iterable, Mapping
import dataclasses
import difflib
import importlib
import importlib.util
import math
import numbers
import os
import re
import threading
from typing import Any, Optional

KINDS: tuple[str, ...] = ('msg', 'srv', 'action')
"""The three interface kinds, i.e. the only submodules that :func:`resolve` imports."""

PARTS: dict[str, tuple[str, ...]] = {
    'msg': ('message',),
    'srv': ('request', 'response'),
    'action': ('goal', 'result', 'feedback'),
}
"""The message parts of each kind, as accepted by :func:`message_class_for`."""

_EXAMPLES = {
    'msg': 'std_msgs/msg/String',
    'srv': 'std_srvs/srv/Trigger',
    'action': 'nav2_msgs/action/NavigateToPose',
}
_ARTICLES = {'msg': 'a msg', 'srv': 'a srv', 'action': 'an action'}
_PACKAGE_RE = re.compile(r'[a-z][a-z0-9_]*\Z')
_NAME_RE = re.compile(r'[A-Za-z][A-Za-z0-9_]*\Z')

_INT_RANGES: dict[str, tuple[int, int]] = {
    'int8': (-2 ** 7, 2 ** 7 - 1),
    'uint8': (0, 2 ** 8 - 1),
    'int16': (-2 ** 15, 2 ** 15 - 1),
    'uint16': (0, 2 ** 16 - 1),
    'int32': (-2 ** 31, 2 ** 31 - 1),
    'uint32': (0, 2 ** 32 - 1),
    'int64': (-2 ** 63, 2 ** 63 - 1),
    'uint64': (0, 2 ** 64 - 1),
}
_FLOAT32_MAX = 3.4028234663852886e+38
_FLOAT_TYPES = ('float', 'double', 'long double')
_STRING_TYPES = ('string', 'wstring')
_BASIC_TYPES = frozenset(
    (*_INT_RANGES, *_FLOAT_TYPES, *_STRING_TYPES, 'boolean', 'octet', 'char'))
# numpy dtype names and array.array type codes that hold exactly a given element type, so
# such arrays can be taken whole instead of checked item by item.
_NUMPY_DTYPES = {
    'float': 'float32', 'double': 'float64', 'int8': 'int8', 'uint8': 'uint8',
    'int16': 'int16', 'uint16': 'uint16', 'int32': 'int32', 'uint32': 'uint32',
    'int64': 'int64', 'uint64': 'uint64',
}
_ARRAY_TYPECODES = {
    'float': 'f', 'double': 'd', 'int8': 'b', 'uint8': 'B', 'int16': 'h', 'uint16': 'H',
    'int32': 'i', 'uint32': 'I', 'int64': 'q', 'uint64': 'Q',
}
_STAMP_TYPES = ('builtin_interfaces/msg/Time', 'builtin_interfaces/msg/Duration')


class InterfaceError(ValueError):
    """A type string that cannot be resolved, or data that does not fit a message.

    Attributes:
        message: What is wrong, without the field path.
        field_path: Dotted path of the offending field, such as
            ``'goal.pose.position.x'`` or ``'poses[2].header'``; empty when the error is
            not about a field (for example a type string that cannot be resolved).
    """

    def __init__(self, message: str, *, field_path: str = '') -> None:
        """Create the error.

        Args:
            message: What is wrong, without the field path.
            field_path: Dotted path of the offending field, if any.
        """
        self.message = message
        self.field_path = field_path
        super().__init__(self.__str__())

    def __str__(self) -> str:
        """Return ``'field <path>: <message>'``, or just the message without a path."""
        if self.field_path:
            return f'field {self.field_path}: {self.message}'
        return self.message


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


@dataclasses.dataclass(frozen=True)
class InterfaceName:
    """The three parts of an interface type string such as ``'std_msgs/msg/String'``.

    Attributes:
        package: ROS package name, e.g. ``'std_msgs'``.
        kind: One of ``'msg'``, ``'srv'`` or ``'action'``.
        name: Type name inside the package, e.g. ``'String'``.
    """

    package: str
    kind: str
    name: str

    def __str__(self) -> str:
        """Return the type string, ``'package/kind/Name'``."""
        return f'{self.package}/{self.kind}/{self.name}'

    @property
    def module(self) -> str:
        """Return the Python module that defines the type, e.g. ``'std_msgs.msg'``."""
        return f'{self.package}.{self.kind}'


def parse_type_string(type_string: str, *, kind: Optional[str] = None) -> InterfaceName:
    """Split and validate a ``'package/kind/Name'`` type string without importing anything.

    Args:
        type_string: The type string, e.g. ``'geometry_msgs/msg/PoseStamped'``.
        kind: If given, the kind the caller expects (``'msg'``, ``'srv'`` or ``'action'``);
            a type string of another kind is an error.

    Returns:
        The validated parts.

    Raises:
        InterfaceError: If the string is not of the form ``package/kind/Name`` or its kind
            is not the expected one; the message gives the expected form with an example.
    """
    if kind is not None and kind not in KINDS:
        raise InterfaceError(f'unknown interface kind {kind!r}; expected one of '
                             f'{", ".join(KINDS)}')
    example = _EXAMPLES[kind or 'msg']
    if not isinstance(type_string, str):
        raise InterfaceError(f'an interface type must be a string such as {example!r}, '
                             f'got {_type_name(type_string)}')
    form = ("expected 'package/kind/Name' with kind msg, srv or action, "
            f'e.g. {example!r}')
    parts = type_string.split('/')
    if len(parts) == 2 and all(parts):
        guess = f'{parts[0]}/{kind or "msg"}/{parts[1]}'
        raise InterfaceError(f'invalid interface type {type_string!r}: {form} '
                             f'(did you mean {guess!r}?)')
    if len(parts) != 3:
        raise InterfaceError(f'invalid interface type {type_string!r}: {form}')
    package, found_kind, name = parts
    if found_kind not in KINDS:
        raise InterfaceError(f'invalid interface type {type_string!r}: the middle part must '
                             f'be msg, srv or action, got {found_kind!r}'
                             f'{_did_you_mean(found_kind, KINDS)}')
    if not _PACKAGE_RE.match(package):
        raise InterfaceError(f'invalid interface type {type_string!r}: the package name '
                             f'{package!r} must be lowercase letters, digits and underscores, '
                             f'starting with a letter, e.g. {example!r}')
    if not _NAME_RE.match(name):
        raise InterfaceError(f'invalid interface type {type_string!r}: the type name '
                             f'{name!r} must be letters, digits and underscores, starting '
                             f'with a letter, e.g. {example!r}')
    if kind is not None and found_kind != kind:
        raise InterfaceError(f'expected {_ARTICLES[kind]} type, got {_ARTICLES[found_kind]} '
                             f'type: {type_string!r}')
    return InterfaceName(package, found_kind, name)


_cache: dict[str, type] = {}
_cache_lock = threading.Lock()


def resolve(type_string: str, *, kind: Optional[str] = None) -> type:
    """Return the interface class named by a type string, importing its module if needed.

    Only the module ``<package>.<kind>`` is imported, with ``kind`` one of msg, srv or
    action and ``package`` a validated identifier. Results are cached.

    Args:
        type_string: The type string, e.g. ``'test_msgs/action/Fibonacci'``.
        kind: If given, the kind the caller expects; another kind is an error.

    Returns:
        The message, service or action class.

    Raises:
        InterfaceError: For bad syntax, a kind mismatch, a package that is not installed,
            or a type the package does not define (with a did-you-mean suggestion).
    """
    parsed = parse_type_string(type_string, kind=kind)
    key = str(parsed)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    module = _import_interface_module(parsed, required=True)
    candidates = _types_in(module, parsed.kind)
    cls = candidates.get(parsed.name)
    if cls is None:
        raise InterfaceError(_missing_type_message(parsed, candidates))
    with _cache_lock:
        _cache[key] = cls
    return cls


def is_available(type_string: str) -> bool:
    """Return whether a type string resolves, i.e. is well formed and installed."""
    try:
        resolve(type_string)
    except InterfaceError:
        return False
    return True


def type_string_of(msg_or_class: Any) -> str:
    """Return the ``'package/kind/Name'`` string of an interface class or message instance.

    Parts of services and actions give their generated names, for example
    ``'test_msgs/action/Fibonacci_Goal'``.

    Args:
        msg_or_class: A generated interface class or an instance of one.

    Returns:
        The type string.
    """
    cls = msg_or_class if isinstance(msg_or_class, type) else type(msg_or_class)
    module_parts = cls.__module__.split('.')
    if len(module_parts) >= 2 and module_parts[1] in KINDS:
        return f'{module_parts[0]}/{module_parts[1]}/{cls.__name__}'
    return f'{cls.__module__}.{cls.__qualname__}'


def message_class_for(type_string: str, part: str) -> type:
    """Return one message class of an interface named by a type string.

    Args:
        type_string: A msg, srv or action type string.
        part: ``'message'`` for a msg type, ``'request'`` or ``'response'`` for a srv
            type, ``'goal'``, ``'result'`` or ``'feedback'`` for an action type.

    Returns:
        The message class of that part.

    Raises:
        InterfaceError: If the type does not resolve or has no such part.
    """
    parsed = parse_type_string(type_string)
    allowed = PARTS[parsed.kind]
    if part not in allowed:
        raise InterfaceError(f'{_ARTICLES[parsed.kind]} type such as {type_string!r} has the '
                             f'parts {", ".join(allowed)}; got {part!r}'
                             f'{_did_you_mean(part, allowed)}')
    cls = resolve(type_string)
    if parsed.kind == 'msg':
        return cls
    return getattr(cls, part.capitalize())


def goal_class(action_cls: type) -> type:
    """Return the Goal message class of an action class."""
    return _part_of(action_cls, 'Goal', 'action')


def result_class(action_cls: type) -> type:
    """Return the Result message class of an action class."""
    return _part_of(action_cls, 'Result', 'action')


def feedback_class(action_cls: type) -> type:
    """Return the Feedback message class of an action class."""
    return _part_of(action_cls, 'Feedback', 'action')


def request_class(srv_cls: type) -> type:
    """Return the Request message class of a service class."""
    return _part_of(srv_cls, 'Request', 'srv')


def response_class(srv_cls: type) -> type:
    """Return the Response message class of a service class."""
    return _part_of(srv_cls, 'Response', 'srv')


def fields_of(msg_class: type) -> dict[str, str]:
    """Return the message's field names mapped to their ROS type strings, in order.

    Args:
        msg_class: A generated message class.

    Returns:
        For example ``{'header': 'std_msgs/Header', 'cell_voltage': 'sequence<float>'}``.

    Raises:
        InterfaceError: If ``msg_class`` is not a message class.
    """
    _require_message_class(msg_class)
    return _declared_fields(msg_class)


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
    _require_message_class(msg_class)
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
    _require_message_class(msg_class)
    walker = _Walker(build=False, resolve_deferred=None)
    walker.message(msg_class, data, path)
    return walker.errors


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
        raise InterfaceError(f'expected a ROS message instance, got {_type_name(msg)}')
    specs = _field_specs(type(msg))
    return {name: _plain(getattr(msg, name), spec) for name, spec in specs.items()}


# --- field types ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _FieldSpec:
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

    def element(self) -> '_FieldSpec':
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
        return _describe_base(self)


_SEQUENCE_RE = re.compile(r'sequence<(.+?)(?:,\s*(\d+))?>\Z')
_ARRAY_RE = re.compile(r'(.+)\[(\d+)\]\Z')
_STRING_RE = re.compile(r'(w?string)(?:<(\d+)>)?\Z')

_spec_cache: dict[type, dict[str, _FieldSpec]] = {}


def _parse_field_type(text: str) -> _FieldSpec:
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
    return _FieldSpec(text, base, string_bound, container, size)


def _field_specs(msg_class: type) -> dict[str, _FieldSpec]:
    """Return the parsed field types of a message class (cached)."""
    specs = _spec_cache.get(msg_class)
    if specs is None:
        specs = {name: _parse_field_type(text)
                 for name, text in _declared_fields(msg_class).items()}
        _spec_cache[msg_class] = specs
    return specs


def _describe_base(spec: _FieldSpec) -> str:
    """Describe a single value of a field's element type."""
    base = spec.base
    if base == 'boolean':
        return 'a bool'
    if base in _INT_RANGES:
        return 'an integer'
    if base in _FLOAT_TYPES:
        return 'a float'
    if base in _STRING_TYPES:
        if spec.string_bound is not None:
            return f'a string of at most {spec.string_bound} characters'
        return 'a string'
    if base == 'octet':
        return 'a byte (an integer in [0, 255] or a bytes object of length 1)'
    if base == 'char':
        return 'a single character'
    if base in _STAMP_TYPES:
        return f'a number of seconds or a mapping of {base} fields'
    return f'a mapping of {base} fields'


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
                                   f'got {_type_name(data)}')
        specs = _field_specs(msg_class)
        msg = msg_class() if self.build else None
        errors_before = len(self.errors)
        for key, value in data.items():
            if not isinstance(key, str):
                self.fail(path, f'field names must be strings, got {_type_name(key)} '
                                f'{key!r} in {type_string}')
                continue
            field_path = _join(path, key)
            spec = specs.get(key)
            if spec is None:
                self.fail(field_path, f'unknown field {key!r} for {type_string}'
                                      f'{_did_you_mean(key, specs)}; valid fields: '
                                      f'{", ".join(specs) or "(none)"}')
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

    def field(self, spec: _FieldSpec, value: Any, path: str) -> Any:
        """Convert the value of one field, single or container."""
        if isinstance(value, Deferred):
            value = self.undefer(value, path)
            if isinstance(value, _Sentinel):
                return value
        if spec.container:
            return self.container(spec, value, path)
        return self.element(spec, value, path)

    def container(self, spec: _FieldSpec, value: Any, path: str) -> Any:
        """Convert an array or sequence value."""
        base = spec.base
        if isinstance(value, (str, Mapping)) or not _is_listlike(value, base):
            return self.fail(path, f'expected {spec.describe()}, got {_type_name(value)}')
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

    def element(self, spec: _FieldSpec, value: Any, path: str) -> Any:
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
            return self.fail(path, f'expected a bool, got {_type_name(value)}')
        if base in _INT_RANGES:
            return self.integer(base, value, path)
        if base in _FLOAT_TYPES:
            return self.floating(base, value, path)
        if base in _STRING_TYPES:
            if not isinstance(value, str):
                return self.fail(path, f'expected {_describe_base(spec)}, '
                                       f'got {_type_name(value)}')
            if spec.string_bound is not None and len(value) > spec.string_bound:
                return self.fail(path, f'expected {_describe_base(spec)}, got '
                                       f'{len(value)} characters')
            return value
        if base == 'octet':
            if isinstance(value, (bytes, bytearray)) and len(value) == 1:
                return bytes(value)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                if 0 <= int(value) <= 255:
                    return bytes((int(value),))
                return self.fail(path, f'value {value} is out of range for octet [0, 255]')
            return self.fail(path, f'expected {_describe_base(spec)}, got {_type_name(value)}')
        if base == 'char':
            if isinstance(value, str) and len(value) == 1:
                return value
            return self.fail(path, f'expected a single character, got {_type_name(value)}')
        return self.fail(path, f'unsupported field type {spec.text!r}')

    def integer(self, base: str, value: Any, path: str) -> Any:
        """Convert an integer value and check it fits ``base``."""
        if isinstance(value, bool) or _is_numpy_bool(value):
            return self.fail(path, f'expected an integer, got {_type_name(value)}')
        if isinstance(value, numbers.Integral):
            number = int(value)
        elif isinstance(value, numbers.Real):
            as_float = float(value)
            if not (math.isfinite(as_float) and as_float.is_integer()):
                return self.fail(path, f'expected an integer, got non-integral float '
                                       f'{as_float!r}')
            number = int(as_float)
        else:
            return self.fail(path, f'expected an integer, got {_type_name(value)}')
        low, high = _INT_RANGES[base]
        if not low <= number <= high:
            return self.fail(path, f'value {number} is out of range for {base} '
                                   f'[{low}, {high}]')
        return number

    def floating(self, base: str, value: Any, path: str) -> Any:
        """Convert a float value and check it fits ``base``."""
        if (isinstance(value, bool) or _is_numpy_bool(value)
                or not isinstance(value, numbers.Real)):
            return self.fail(path, f'expected a float, got {_type_name(value)}')
        try:
            number = float(value)
        except OverflowError:
            return self.fail(path, f'value {value} is out of range for {base}')
        if base == 'float' and math.isfinite(number) and abs(number) > _FLOAT32_MAX:
            return self.fail(path, f'value {number!r} is out of range for float (float32)')
        return number

    def nested(self, spec: _FieldSpec, value: Any, path: str) -> Any:
        """Convert a nested message value (mapping, instance, or seconds for stamps)."""
        try:
            nested_class = resolve(spec.base, kind='msg')
        except InterfaceError as exc:
            return self.fail(path, exc.message)
        if isinstance(value, nested_class):
            return value
        if spec.base in _STAMP_TYPES:
            converted = self.stamp(spec.base, nested_class, value, path)
            if converted is not None:
                return converted
        if isinstance(value, Mapping):
            return self.message(nested_class, value, path)
        return self.fail(path, f'expected {_describe_base(spec)}, got {_type_name(value)}')

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
        low, high = _INT_RANGES['int32']
        if not low <= whole <= high:
            return self.fail(path, f'value {seconds!r} seconds is out of range for '
                                   f'{base} (int32 seconds)')
        if not self.build:
            return True
        return stamp_class(sec=whole, nanosec=nanosec)


# --- helpers --------------------------------------------------------------------------


def _join(path: str, key: str) -> str:
    """Append a field name to a dotted path."""
    return f'{path}.{key}' if path else key


def _type_name(value: Any) -> str:
    """Name the type of a value for error messages."""
    if value is None:
        return 'None'
    return type(value).__name__


def _plural(spec: _FieldSpec) -> str:
    """Describe the element type of a container in the plural."""
    base = spec.base
    if spec.is_nested:
        return f'{base} items'
    names = {'boolean': 'bools', 'octet': 'bytes', 'char': 'characters'}
    if base in _INT_RANGES:
        return f'integers ({base})'
    if base in _FLOAT_TYPES:
        return 'floats'
    if base in _STRING_TYPES:
        return 'strings'
    return names.get(base, base)


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest candidate, or ``''``."""
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(candidate.lower(), candidate)
    matches = difflib.get_close_matches(str(word).lower(), list(by_lower), n=1, cutoff=0.6)
    if not matches:
        return ''
    return f' (did you mean {by_lower[matches[0]]!r}?)'


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


def _take_whole(value: Any, spec: _FieldSpec) -> Any:
    """Return a container value usable as is (no per-item checks needed), else None."""
    base = spec.base
    if isinstance(value, (bytes, bytearray, memoryview)):
        if base == 'octet':
            return [bytes((item,)) for item in bytes(value)]
        if spec.container == 'sequence':
            return array.array('B', bytes(value))
        return list(bytes(value))
    if isinstance(value, array.array):
        return value if _ARRAY_TYPECODES.get(base) == value.typecode else None
    dtype = getattr(value, 'dtype', None)
    if dtype is not None and _NUMPY_DTYPES.get(base) == str(dtype):
        return value
    return None


def _plain(value: Any, spec: Optional[_FieldSpec]) -> Any:
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


def _declared_fields(msg_class: type) -> dict[str, str]:
    """Return a copy of the generated class's field names and type strings."""
    return dict(getattr(msg_class, 'get_fields_and_field_types')())


def _require_message_class(msg_class: Any) -> None:
    """Raise InterfaceError unless ``msg_class`` is a generated message class."""
    if not (isinstance(msg_class, type) and hasattr(msg_class, 'get_fields_and_field_types')):
        raise InterfaceError(f'expected a ROS message class, got {msg_class!r}')


def _part_of(cls: type, part: str, kind: str) -> type:
    """Return attribute ``part`` of an action or service class, checking its shape."""
    parts = {'action': ('Goal', 'Result', 'Feedback'), 'srv': ('Request', 'Response')}[kind]
    if not (isinstance(cls, type) and all(hasattr(cls, name) for name in parts)):
        raise InterfaceError(f'expected {_ARTICLES[kind]} class, got {cls!r}')
    return getattr(cls, part)


def _is_kind(candidate: Any, kind: str) -> bool:
    """Return whether a module attribute is an interface class of ``kind``."""
    if not isinstance(candidate, type):
        return False
    if kind == 'msg':
        return hasattr(candidate, 'get_fields_and_field_types')
    if kind == 'srv':
        return hasattr(candidate, 'Request') and hasattr(candidate, 'Response')
    return all(hasattr(candidate, name) for name in ('Goal', 'Result', 'Feedback'))


def _types_in(module: Any, kind: str) -> dict[str, type]:
    """Return the public interface classes of ``kind`` defined in an interface module."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith('_') and _is_kind(value, kind)}


def _import_interface_module(parsed: InterfaceName, *, required: bool) -> Any:
    """Import ``<package>.<kind>``; None if absent and not required, else raise.

    Before importing, the package is located without running any of its code and must
    contain a ``<kind>/__init__.py``; so a type string can only ever import ROS interface
    modules, never run the top-level code of an arbitrary installed module.
    """
    spec = importlib.util.find_spec(parsed.package)
    if spec is None:
        if not required:
            return None
        distro = os.environ.get('ROS_DISTRO') or '<distro>'
        debian = parsed.package.replace('_', '-')
        raise InterfaceError(f'package {parsed.package!r} is not installed '
                             f'(install ros-{distro}-{debian})')
    locations = spec.submodule_search_locations or ()
    if not any(os.path.isfile(os.path.join(location, parsed.kind, '__init__.py'))
               for location in locations):
        if not required:
            return None
        raise InterfaceError(f'package {parsed.package!r} has no {parsed.kind} interfaces '
                             f'(no module {parsed.module!r}), so {str(parsed)!r} does '
                             'not exist')
    try:
        return importlib.import_module(parsed.module)
    except ImportError as exc:
        if not required:
            return None
        raise InterfaceError(f'cannot import {parsed.module!r} for {str(parsed)!r}: '
                             f'{exc}') from exc


def _missing_type_message(parsed: InterfaceName, candidates: Mapping[str, type]) -> str:
    """Explain that a package lacks a type, suggesting close names and other kinds."""
    message = f'package {parsed.package!r} has no {parsed.kind} type {parsed.name!r}'
    for other in KINDS:
        if other == parsed.kind:
            continue
        other_name = InterfaceName(parsed.package, other, parsed.name)
        module = _import_interface_module(other_name, required=False)
        if module is not None and parsed.name in _types_in(module, other):
            return (f'{message}; {str(other_name)!r} is {_ARTICLES[other]} type, '
                    f'did you mean that?')
    suggestion = _did_you_mean(parsed.name, candidates)
    if suggestion:
        return message + suggestion
    names = sorted(candidates)
    if not names:
        return message
    shown = ', '.join(names[:10]) + (', ...' if len(names) > 10 else '')
    return f'{message}; it has: {shown}'
