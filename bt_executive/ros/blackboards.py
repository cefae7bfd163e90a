# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""One blackboard per executive when several executives share a process.

py_trees keeps the blackboard in class attributes of ``py_trees.blackboard.Blackboard``
(``storage``, ``metadata``, ``clients``, ``activity_stream``): one per process. Every
reader and writer (py_trees itself, the catalogue's nodes, ROS leaves, the blackboard
feed, the snapshot builder) looks them up there at the moment it runs. A
:class:`BlackboardSpace` holds one executive's set of them; :meth:`BlackboardSpace.entered`
puts them in place for the duration of a call and puts back what was there before
(stack order, so a call of one executive nested in another's, e.g. a callback run while
a stopping executive spins the executor, sees its own blackboard).

The fleet (bt_executive/ros/fleet.py) enters an executive's space around every callback
of its node (subscriptions, timers, services, action clients, parameter changes) and
around its ticks. Outside every space, :func:`guard` leaves a blackboard that refuses
any use: a path that was missed raises (and is counted as a callback error) instead of
reading or writing another robot's keys.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import py_trees

_Fn = TypeVar('_Fn', bound=Callable[..., Any])

#: The class attributes of py_trees' Blackboard that make up one blackboard.
_PARTS = ('storage', 'metadata', 'clients', 'activity_stream')


class BlackboardOutsideExecutive(RuntimeError):
    """The blackboard was used outside every executive while several share the process."""


class _Refusing(dict):  # type: ignore[type-arg]
    """An empty mapping that raises on every use (the blackboard outside all executives)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise BlackboardOutsideExecutive(
            'the py_trees blackboard was used outside every executive of this process; '
            'several executives share it, so each one must enter its own blackboard '
            '(BlackboardSpace.entered) first')

    __getitem__ = __setitem__ = __delitem__ = __contains__ = __iter__ = __len__ = _refuse
    get = setdefault = pop = keys = values = items = clear = update = copy = _refuse

    def __bool__(self) -> bool:
        self._refuse()
        return False


class BlackboardSpace:
    """One executive's blackboard (storage, key metadata, clients, activity stream).

    Args:
        name: whose blackboard this is (for ``repr`` and errors)
    """

    def __init__(self, name: str = '') -> None:
        self.name = name
        self.storage: dict[str, Any] = {}
        self.metadata: dict[str, Any] = {}
        self.clients: dict[Any, str] = {}
        self.activity_stream: Any = None

    def __repr__(self) -> str:
        return f'BlackboardSpace({self.name!r}, {len(self.storage)} keys)'

    def enter(self) -> tuple[Any, ...]:
        """Put this blackboard in place; return what was there (for :meth:`leave`)."""
        board = py_trees.blackboard.Blackboard
        previous = tuple(getattr(board, part) for part in _PARTS)
        board.storage = self.storage
        board.metadata = self.metadata
        board.clients = self.clients
        board.activity_stream = self.activity_stream
        return previous

    def leave(self, previous: tuple[Any, ...]) -> None:
        """Keep what changed (a new activity stream) and restore ``previous``."""
        board = py_trees.blackboard.Blackboard
        if board.storage is self.storage:
            self.activity_stream = board.activity_stream
        for part, value in zip(_PARTS, previous):
            setattr(board, part, value)

    def entered(self, function: _Fn) -> _Fn:
        """Return ``function`` wrapped to run with this blackboard in place."""
        @functools.wraps(function)
        def inside(*args: Any, **kwargs: Any) -> Any:
            previous = self.enter()
            try:
                return function(*args, **kwargs)
            finally:
                self.leave(previous)
        return inside  # type: ignore[return-value]

    def __enter__(self) -> 'BlackboardSpace':
        self._stack = getattr(self, '_stack', [])
        self._stack.append(self.enter())
        return self

    def __exit__(self, *exc: Any) -> None:
        self.leave(self._stack.pop())


def guard() -> Callable[[], None]:
    """Make the blackboard outside every space refuse use; return what undoes it."""
    board = py_trees.blackboard.Blackboard
    previous = tuple(getattr(board, part) for part in _PARTS)
    board.storage = _Refusing()
    board.metadata = _Refusing()
    board.clients = _Refusing()

    def undo() -> None:
        for part, value in zip(_PARTS, previous):
            setattr(board, part, value)
    return undo


__all__ = ['BlackboardOutsideExecutive', 'BlackboardSpace', 'guard']
