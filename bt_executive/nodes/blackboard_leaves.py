# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Blackboard leaves: set, unset, check and wait for keys, with dotted paths into values.

A key may be a root key (``battery``) or a path into its value (``pose.position.x``):
each dot reads a field exactly as the expression ``pose.position.x`` does (a mapping
entry, or a declared field of a ROS message, dataclass or named tuple; a ROS message
field checks the type of what is written, and an int written to a float field becomes a
float). Writes never change a stored value in place: the containers along the path are
copied and the root key gets the new value, so initial blackboard values (restored by a
reset), values shared with other keys and the write tracking of the tree runner stay
right. Each leaf class declares its node type (``declaration``) and the keys it reads (its
``build``). The conventions every behaviour of this package follows are described in
:mod:`bt_executive.nodes`.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
import copy
import dataclasses
from typing import Any, Callable, Optional, TYPE_CHECKING

from bt_executive.core.expressions import EvaluationError, read_field
from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.support import declare_reads
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'BlackboardExists',
    'KeyPath',
    'PathError',
    'SetBlackboard',
    'UnsetBlackboard',
    'WaitForBlackboard',
    'store_root',
    'unset_root',
]

Lookup = Callable[[str], Any]
"""Reads a root blackboard key; raises KeyError (or EvaluationError) when it is unset."""

#: Longest preview of a written value in feedback messages.
_PREVIEW = 60

#: The ``key`` parameter of the leaves that read a key.
_KEY_PATH = Param('key', ParamType.KEY, 'blackboard key (dots for nested fields)')


class PathError(Exception):
    """A key path that cannot be read or written; the message says why."""


def store_root(key: str, value: Any) -> None:
    """Write the root key ``key`` of the py_trees blackboard."""
    py_trees.blackboard.Blackboard.set('/' + key, value)


def unset_root(key: str) -> bool:
    """Remove the root key ``key`` of the py_trees blackboard; False if it was not set."""
    return py_trees.blackboard.Blackboard.unset('/' + key)


def _preview(value: Any) -> str:
    """Return a short text for a value in feedback."""
    text = repr(value)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW - 3] + '...'


def _type_name(value: Any) -> str:
    """Return the type of ``value`` as users know it (ROS messages as pkg/msg/Name)."""
    cls = type(value)
    module = cls.__module__.split('.')
    if len(module) >= 2 and module[1] == 'msg':
        return f'{module[0]}/msg/{cls.__name__}'
    return cls.__name__


class KeyPath:
    """A blackboard key with an optional path of fields into its value.

    Args:
        text: the key as written, e.g. ``battery`` or ``pose.position.x``
    """

    def __init__(self, text: str) -> None:
        parts = text.split('.')
        if not text or not all(parts):
            raise ValueError(f'not a blackboard key: {text!r}')
        self.text = text
        self.key = parts[0]
        self.fields = tuple(parts[1:])

    def __str__(self) -> str:
        """Return the key as written."""
        return self.text

    def _root(self, lookup: Lookup) -> Any:
        """Return the value of the root key."""
        try:
            return lookup(self.key)
        except KeyError:
            raise PathError(f"no blackboard key '{self.key}'") from None
        except EvaluationError as error:  # e.g. a stale subscription value
            raise PathError(str(error)) from None

    def _chain(self, lookup: Lookup, count: int) -> list[Any]:
        """Return the root value and the values of the first ``count`` fields."""
        chain = [self._root(lookup)]
        for index in range(count):
            try:
                chain.append(read_field(chain[-1], self.fields[index]))
            except EvaluationError as error:
                raise PathError(f'{self._prefix(index)}: {error}') from None
        return chain

    def _prefix(self, count: int) -> str:
        """Return the key and its first ``count`` fields, dotted."""
        return '.'.join((self.key,) + self.fields[:count])

    def read(self, lookup: Lookup) -> Any:
        """Return the value at the path.

        Raises:
            PathError: the key is not set or a field is missing.
        """
        return self._chain(lookup, len(self.fields))[-1]

    def exists(self, lookup: Lookup) -> bool:
        """Tell whether the path can be read."""
        try:
            self.read(lookup)
        except PathError:
            return False
        return True

    def with_value(self, lookup: Lookup, value: Any) -> Any:
        """Return the new value of the root key when the path is set to ``value``.

        The last field may be a new entry of a mapping; everything before it must exist.

        Raises:
            PathError: a part of the path is missing or cannot be written.
        """
        if not self.fields:
            return value
        chain = self._chain(lookup, len(self.fields) - 1)
        return self._rebuild(chain, value)

    def without(self, lookup: Lookup) -> tuple[bool, Any]:
        """Return ``(changed, new root value)`` with the last field removed.

        Nothing changes when the path does not exist. Only mapping entries can be
        removed (the root key itself is removed by the caller).

        Raises:
            PathError: the last field is a field of an object, not a mapping entry.
        """
        try:
            chain = self._chain(lookup, len(self.fields) - 1)
        except PathError:
            return False, None
        parent, name = chain[-1], self.fields[-1]
        if isinstance(parent, Mapping):
            if name not in parent:
                return False, None
            if not isinstance(parent, MutableMapping):
                raise PathError(f'{self._prefix(len(self.fields) - 1)} is a read-only '
                                f'{_type_name(parent)}')
            copied = copy.copy(parent)
            del copied[name]
            return True, self._rebuild(chain[:-1], copied, upto=len(self.fields) - 1)
        try:
            read_field(parent, name)
        except EvaluationError:
            return False, None
        raise PathError(f"cannot remove field '{name}' of {_type_name(parent)} "
                        f'({self._prefix(len(self.fields) - 1)}): only mapping entries '
                        'can be removed')

    def _rebuild(self, chain: list[Any], value: Any, *, upto: Optional[int] = None) -> Any:
        """Put ``value`` at field ``upto - 1`` and copy each container above it."""
        upto = len(self.fields) if upto is None else upto
        for index in reversed(range(upto)):
            value = self._replace(chain[index], index, value)
        return value

    def _replace(self, container: Any, index: int, value: Any) -> Any:
        """Return a copy of ``container`` whose field ``self.fields[index]`` is ``value``."""
        name = self.fields[index]
        where = self._prefix(index)
        if isinstance(container, Mapping):
            if not isinstance(container, MutableMapping):
                raise PathError(f'{where} is a read-only {_type_name(container)}')
            copied = copy.copy(container)
            copied[name] = value
            return copied
        try:
            current = read_field(container, name)  # only declared data fields are written
        except EvaluationError as error:
            raise PathError(f'{where}: {error}') from None
        if isinstance(current, float) and isinstance(value, int) \
                and not isinstance(value, bool):
            value = float(value)  # `x: 5` written to a float field
        try:
            if isinstance(container, tuple) and hasattr(container, '_replace'):
                return container._replace(**{name: value})
            if dataclasses.is_dataclass(container) and not isinstance(container, type):
                return dataclasses.replace(container, **{name: value})
            copied = copy.copy(container)
            checks = getattr(copied, '_check_fields', None)
            if checks is False:  # a ROS message: let its own setter check the type
                copied._check_fields = True
            setattr(copied, name, value)
            if checks is False:
                copied._check_fields = False
            return copied
        except Exception as error:  # noqa: B902 - e.g. a ROS message field's type check
            detail = f': {error}' if str(error) else f' ({type(error).__name__})'
            raise PathError(f'{where}.{name} ({_type_name(container)}) refuses '
                            f'{_preview(value)}{detail}') from None


class SetBlackboard(Behaviour):
    """Write a value to a blackboard key (or a field inside its value) and succeed.

    Each tick: with ``overwrite`` false and the path already readable, nothing is written
    and the result is SUCCESS ('<key> already set, kept'). Otherwise the value is
    computed (``value()``) and written; SUCCESS ('<key> = <value>'). FAILURE, with the
    reason, when the value cannot be computed (e.g. its expression reads a missing key),
    or a dotted key cannot be written: its root key is not set, a field before the last
    is missing, the last field is not a field of the object, or the object refuses the
    value (a ROS message field of another type).
    """

    declaration = NodeType(
        name='SetBlackboard',
        category=Category.LEAF,
        doc=('Writes `value` (literal, $reference or ${expression}, computed on each tick) '
             'to `key` and returns SUCCESS. A dotted key writes a field inside the '
             "key's value (`pose.x`: entry `x` of the mapping in `pose`, or field `x` "
             'of a ROS message or dataclass); the value is copied, never changed in '
             'place, and the last field may be a new mapping entry. With `overwrite: '
             'false` nothing is written when the key (or field) is already set, and the '
             'result is SUCCESS too. FAILURE, with the reason, when the value cannot be '
             "computed (its expression reads a missing key) or a dotted key's root is "
             'not set, a field before the last is missing, or the field does not exist '
             'or refuses the value (a ROS message field of another type).'),
        params=(
            Param('key', ParamType.KEY, _KEY_PATH.doc, writes=True),
            Param('value', ParamType.ANY, 'the value', dynamic=True),
            Param('overwrite', ParamType.BOOL,
                  'replace a value already set (false: keep it; SUCCESS either way)',
                  default=True),
        ),
        btcpp='SetBlackboard',
    )

    def __init__(self, name: str, *, key: str, value: Callable[[], Any],
                 overwrite: bool = True, lookup: Lookup,
                 store: Callable[[str, Any], None] = store_root) -> None:
        """Create the behaviour.

        Args:
            name: the behaviour name.
            key: the key, with dots for fields inside its value.
            value: computes the value to write (called on each tick that writes).
            overwrite: write also when the path is already set.
            lookup: reads a root blackboard key.
            store: writes a root blackboard key.
        """
        super().__init__(name)
        self.path = KeyPath(key)
        self.value = value
        self.overwrite = overwrite
        self.lookup = lookup
        self.store = store

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf, declaring the keys its value (and a dotted key) reads."""
        key = params['key']
        behaviour = cls(name, key=key, value=params.getter('value'),
                        overwrite=params['overwrite'], lookup=ctx.lookup)
        reads = set(params.names())
        if '.' in key or not params['overwrite']:
            reads.add(KeyPath(key).key)  # the outcome depends on the value already there
        declare_reads(ctx, behaviour, frozenset(reads))
        return behaviour

    def update(self) -> Status:
        """Write the value unless it is kept."""
        if not self.overwrite and self.path.exists(self.lookup):
            self.feedback_message = f'{self.path} already set, kept (overwrite: false)'
            return Status.SUCCESS
        try:
            value = self.value()
        except EvaluationError as error:
            self.feedback_message = f'value for {self.path}: {error}'
            return Status.FAILURE
        try:
            root = self.path.with_value(self.lookup, value)
        except PathError as error:
            self.feedback_message = f'cannot set {self.path}: {error}'
            return Status.FAILURE
        self.store(self.path.key, root)
        self.feedback_message = f'{self.path} = {_preview(value)}'
        return Status.SUCCESS


class UnsetBlackboard(Behaviour):
    """Remove a blackboard key (or a mapping entry inside its value) and succeed.

    SUCCESS also when there is nothing to remove (the feedback says so). FAILURE, with the
    reason, only for a dotted key whose last field is a field of an object (a ROS message
    field cannot be removed).
    """

    declaration = NodeType(
        name='UnsetBlackboard',
        category=Category.LEAF,
        doc=('Removes `key` and returns SUCCESS, also when it was not set. A dotted key '
             "removes an entry of the mapping inside the key's value (copied, not "
             'changed in place); FAILURE, with the reason, if that last field is a '
             'field of an object (a ROS message field cannot be removed).'),
        params=(
            Param('key', ParamType.KEY, 'blackboard key (dots for a mapping entry inside it)'),
        ),
        primary='key',
    )

    def __init__(self, name: str, *, key: str, lookup: Lookup,
                 store: Callable[[str, Any], None] = store_root,
                 unset: Callable[[str], bool] = unset_root) -> None:
        """Create the behaviour.

        Args:
            name: the behaviour name.
            key: the key, with dots for an entry inside its value.
            lookup: reads a root blackboard key.
            store: writes a root blackboard key.
            unset: removes a root blackboard key (False if it was not set).
        """
        super().__init__(name)
        self.path = KeyPath(key)
        self.lookup = lookup
        self.store = store
        self.unset = unset

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf."""
        return cls(name, key=params['key'], lookup=ctx.lookup)

    def update(self) -> Status:
        """Remove the key or entry."""
        if not self.path.fields:
            removed = self.unset(self.path.key)
        else:
            try:
                removed, root = self.path.without(self.lookup)
            except PathError as error:
                self.feedback_message = f'cannot remove {self.path}: {error}'
                return Status.FAILURE
            if removed:
                self.store(self.path.key, root)
        self.feedback_message = (f'{self.path} removed' if removed
                                 else f'{self.path} was not set, nothing to remove')
        return Status.SUCCESS


class BlackboardExists(Behaviour):
    """SUCCESS if the key (or the field path inside its value) is set, else FAILURE.

    The FAILURE reason names the missing part, e.g. ``no blackboard key 'pose'`` or
    ``pose: no field 'y' in dict (keys: x)``; a stale subscription value counts as unset.
    """

    declaration = NodeType(
        name='BlackboardExists',
        category=Category.LEAF,
        doc=('SUCCESS if `key` (or the field path inside its value) is set, else FAILURE '
             "naming what is missing (`no blackboard key 'pose'`, `pose: no field 'y' in "
             'dict (keys: x)`); a stale subscription value (`max_age`) is not set.'),
        params=(_KEY_PATH,),
        primary='key',
    )

    def __init__(self, name: str, *, key: str, lookup: Lookup) -> None:
        """Create the behaviour.

        Args:
            name: the behaviour name.
            key: the key, with dots for fields inside its value.
            lookup: reads a root blackboard key.
        """
        super().__init__(name)
        self.path = KeyPath(key)
        self.lookup = lookup

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf; its outcome probe is the existence of the path."""
        path = KeyPath(params['key'])
        behaviour = cls(name, key=params['key'], lookup=ctx.lookup)
        declare_reads(ctx, behaviour, frozenset({path.key}), probe=path.exists)
        return behaviour

    def update(self) -> Status:
        """Check the path."""
        try:
            self.path.read(self.lookup)
        except PathError as error:
            self.feedback_message = str(error)
            return Status.FAILURE
        self.feedback_message = f'{self.path} is set'
        return Status.SUCCESS


class WaitForBlackboard(BlackboardExists):
    """RUNNING until the key (or the field path inside its value) is set, then SUCCESS.

    While waiting, the feedback says what is missing; it never fails.
    """

    declaration = NodeType(
        name='WaitForBlackboard',
        category=Category.LEAF,
        doc=('RUNNING (feedback: what is missing) until `key` (or the field path inside '
             'its value) is set, then SUCCESS. Never FAILURE.'),
        params=(_KEY_PATH,),
        primary='key',
    )

    def update(self) -> Status:
        """Check the path; wait while it is not set."""
        if super().update() is Status.SUCCESS:
            return Status.SUCCESS
        self.feedback_message = f'waiting for {self.path}: {self.feedback_message}'
        return Status.RUNNING
