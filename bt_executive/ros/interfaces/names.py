# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Interface type strings: parse them, resolve them to classes, and pick message parts.

Type strings always have three parts, ``package/kind/Name``, with ``kind`` one of ``msg``,
``srv`` or ``action``. Resolving one imports exactly the module ``package.kind`` (the
package name is checked to be a plain lowercase identifier first), so no other code can be
reached through a type string.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import dataclasses
import importlib
import importlib.util
import os
import re
import threading
from typing import Any, Optional

from bt_executive.ros.memory import defer_interface_package


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
                             f'got {type_name(type_string)}')
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
                             f'{did_you_mean(found_kind, KINDS)}')
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
    # the one name, not the module's whole namespace: the executive imports an interface
    # package's types one by one as they are read (ros/memory.py)
    cls = None if parsed.name.startswith('_') else getattr(module, parsed.name, None)
    if not _is_kind(cls, parsed.kind):
        raise InterfaceError(_missing_type_message(parsed, _types_in(module, parsed.kind)))
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
                             f'{did_you_mean(part, allowed)}')
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


def type_name(value: Any) -> str:
    """Name the type of a value for error messages."""
    if value is None:
        return 'None'
    return type(value).__name__


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest candidate, or ``''``."""
    by_lower: dict[str, str] = {}
    for candidate in candidates:
        by_lower.setdefault(candidate.lower(), candidate)
    import difflib  # only for a mistake: not loaded by a run without one

    matches = difflib.get_close_matches(str(word).lower(), list(by_lower), n=1, cutoff=0.6)
    if not matches:
        return ''
    return f' (did you mean {by_lower[matches[0]]!r}?)'


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
    found = {name: getattr(module, name, None) for name in dir(module)
             if not name.startswith('_')}  # dir(): all of a deferred package (ros/memory.py)
    return {name: value for name, value in found.items() if _is_kind(value, kind)}


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
    defer_interface_package(parsed.module)  # a program's: its types one by one (ros/memory.py)
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
    suggestion = did_you_mean(parsed.name, candidates)
    if suggestion:
        return message + suggestion
    names = sorted(candidates)
    if not names:
        return message
    shown = ', '.join(names[:10]) + (', ...' if len(names) > 10 else '')
    return f'{message}; it has: {shown}'
