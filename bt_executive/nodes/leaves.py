# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Leaves py_trees lacks: Wait, Log, Terminate (with the termination helpers), Condition.

:class:`Terminate` asks the tree runner to stop the whole tree: while a runner ticks with
:data:`STOP_AT_TERMINATE` set, the leaf raises :class:`TreeTerminated` through the tick as
soon as it has its status, so nothing after it runs in that tick (not even its parent's
decision); the runner reads and clears the request with :func:`termination_requested`
and :func:`clear_termination`. The conventions every behaviour of this package follows
are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import contextvars
import dataclasses
import logging
import time
from typing import Any, Callable, Iterator, Literal, Optional

from bt_executive.core.expressions import EvaluationError, Expression
from bt_executive.nodes.common import check_seconds, Clock, format_seconds, time_left
from py_trees.behaviour import Behaviour
from py_trees.common import Status

__all__ = [
    'Condition',
    'LOGGER_NAME',
    'Log',
    'STOP_AT_TERMINATE',
    'Terminate',
    'TerminationRequest',
    'TreeTerminated',
    'Wait',
    'WaitUntil',
    'clear_termination',
    'termination_requested',
]

LOGGER_NAME = 'bt_executive.tree'
"""Name of the python logger that :class:`Log` writes to when no sink is given."""

_LOG_LEVELS: dict[str, int] = {
    'debug': logging.DEBUG,
    'info': logging.INFO,
    'warning': logging.WARNING,
    'error': logging.ERROR,
    'critical': logging.CRITICAL,
}

_TERMINATION_ATTRIBUTE = 'bt_termination'


def _root_of(node: Behaviour) -> Behaviour:
    """Return the root of the tree ``node`` belongs to.

    Args:
        node: any behaviour in the tree.

    Returns:
        The ancestor without a parent (``node`` itself when it has no parent).
    """
    while node.parent is not None:
        node = node.parent
    return node


class Wait(Behaviour):
    """RUNNING until ``seconds`` have passed on ``clock`` since ``initialise()``, then SUCCESS.

    The feedback message shows the time left. Unlike ``py_trees.timers.Timer`` (which reads
    ``time.time``), the clock is injectable, and the wait succeeds on the first tick at or
    after the end time (``seconds=0`` succeeds on the first tick).
    """

    def __init__(self, name: str, *, seconds: float, clock: Clock | None = None):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            seconds: how long to wait.
            clock: the time source in seconds (default ``time.monotonic``).

        Raises:
            ValueError: if ``seconds`` is negative or not finite.
        """
        self.seconds = check_seconds(seconds)
        super().__init__(name)
        self.clock: Clock = clock if clock is not None else time.monotonic
        self._start = 0.0

    def initialise(self) -> None:
        """Start waiting."""
        self._start = self.clock()

    def wake_at(self) -> float | None:
        """Return when the wait ends while it runs (event-driven ticking)."""
        return self._start + self.seconds if self.status is Status.RUNNING else None

    def update(self) -> Status:
        """Return SUCCESS once the time is up."""
        left = time_left(self._start + self.seconds, self.clock())
        if left > 0:
            self.feedback_message = f'{left:.1f} s left'
            return Status.RUNNING
        self.feedback_message = f'waited {format_seconds(self.seconds)} s'
        return Status.SUCCESS


class Log(Behaviour):
    """Emit a message and return SUCCESS.

    The message is a string or a callable returning one (evaluated on each tick). It goes to
    ``sink(level, text)``, by default the python logger ``'bt_executive.tree'``. If building
    or emitting the message raises an exception, the behaviour returns FAILURE with the error
    as feedback instead of propagating it. On SUCCESS the feedback is the message.
    """

    def __init__(
        self,
        name: str,
        *,
        message: str | Callable[[], str],
        level: str = 'info',
        sink: Callable[[str, str], None] | None = None,
    ):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            message: the text, or a callable returning it.
            level: 'debug', 'info', 'warning', 'error' or 'critical' (any case).
            sink: called with ``(level, text)``; default: the ``'bt_executive.tree'`` logger.

        Raises:
            ValueError: if ``level`` is unknown.
        """
        normalised = level.lower() if isinstance(level, str) else ''
        if normalised not in _LOG_LEVELS:
            raise ValueError(f'level must be one of {sorted(_LOG_LEVELS)}, got {level!r}')
        super().__init__(name)
        self.message = message
        self.level = normalised
        self.sink: Callable[[str, str], None] = sink if sink is not None else self._log

    @staticmethod
    def _log(level: str, text: str) -> None:
        """Write to the ``'bt_executive.tree'`` logger.

        Args:
            level: the level name.
            text: the message.
        """
        logging.getLogger(LOGGER_NAME).log(_LOG_LEVELS[level], text)

    def update(self) -> Status:
        """Emit the message."""
        try:
            text = self.message() if callable(self.message) else self.message
            text = str(text)
            self.sink(self.level, text)
        except Exception as error:  # noqa: B902 - a log line must never crash the tree
            self.feedback_message = f'could not log: {type(error).__name__}: {error}'
            return Status.FAILURE
        self.feedback_message = text
        return Status.SUCCESS


@dataclasses.dataclass(frozen=True)
class TerminationRequest:
    """A request, made by a :class:`Terminate` leaf, that the whole tree stop.

    Attributes:
        status: the final status the tree should report (SUCCESS or FAILURE).
        reason: why, as given to the leaf (may be empty).
        node_name: the name of the leaf that made the request.
        node: the leaf itself (not compared).
    """

    status: Status
    reason: str
    node_name: str
    node: Optional[Behaviour] = dataclasses.field(default=None, compare=False, repr=False)


class TreeTerminated(BaseException):
    """Raised through the tick by a :class:`Terminate` leaf when a runner asked for it.

    A ``BaseException`` (like ``GeneratorExit``): it ends every tick generator on its way
    up without being taken for a node's error (``except Exception``, the fault guard).
    Only a runner that set :data:`STOP_AT_TERMINATE` gets it, and catches it.
    """


STOP_AT_TERMINATE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    'bt_stop_at_terminate', default=False)
"""Set by a tree runner around its tick: a :class:`Terminate` leaf then stops the tick.

Without it (``root.tick_once()`` as plain py_trees code runs it), the leaf only records
its request and the rest of the tick runs.
"""


class Terminate(Behaviour):
    """Stop the whole tree at once with ``status``.

    When ticked, the leaf stores a :class:`TerminationRequest` on the root of its tree
    (attribute ``bt_termination``) unless one is already there (the first request wins)
    and takes the given status (SUCCESS or FAILURE) with the feedback ``terminating tree:
    <reason>``. When a runner ticks (:data:`STOP_AT_TERMINATE`), the leaf then raises
    :class:`TreeTerminated` instead of handing itself back to its parent, so nothing after
    it runs in that tick (no later sibling, no parent's decision).

    The tree runner (:class:`~bt_executive.observe.runner.TreeRunner`) catches it, halts
    the tree (running leaves are cancelled), clears the request, and sets the leaf and
    every ancestor up to the root to ``request.status``: the tree's status is the leaf's,
    whatever the parents would have made of it (an ``Inverter`` above it does not invert
    it), and the failure chain of a FAILURE leads to the leaf. Ancestors get the feedback
    ``terminated by '<leaf path>': <reason>``.
    """

    def __init__(
        self,
        name: str,
        *,
        status: Literal['success', 'failure'] = 'failure',
        reason: str = '',
    ):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            status: the status to return and to request for the tree.
            reason: a human explanation shown by viewers and the runner.

        Raises:
            ValueError: if ``status`` is neither 'success' nor 'failure'.
        """
        if status not in ('success', 'failure'):
            raise ValueError(f"status must be 'success' or 'failure', got {status!r}")
        super().__init__(name)
        self.final_status = Status.SUCCESS if status == 'success' else Status.FAILURE
        self.reason = reason

    def update(self) -> Status:
        """Record the request on the root and return the configured status."""
        root = _root_of(self)
        if getattr(root, _TERMINATION_ATTRIBUTE, None) is None:
            setattr(
                root,
                _TERMINATION_ATTRIBUTE,
                TerminationRequest(self.final_status, self.reason, self.name, self),
            )
        self.feedback_message = (
            f'terminating tree: {self.reason}' if self.reason else 'terminating tree')
        return self.final_status

    def tick(self) -> Iterator[Behaviour]:
        """Tick as a leaf; under a runner, raise :class:`TreeTerminated` once it has its status.

        Yields:
            This behaviour (only when no runner stops the tick).

        Raises:
            TreeTerminated: when :data:`STOP_AT_TERMINATE` is set.
        """
        for node in super().tick():
            if STOP_AT_TERMINATE.get():
                raise TreeTerminated(self.name)
            yield node


def termination_requested(root: Behaviour) -> TerminationRequest | None:
    """Return the pending termination request of the tree ``root`` belongs to.

    Args:
        root: the root of the tree (any node of it works: the root is looked up).

    Returns:
        The first request made by a :class:`Terminate` leaf since the last
        :func:`clear_termination`, or None.
    """
    request = getattr(_root_of(root), _TERMINATION_ATTRIBUTE, None)
    return request if isinstance(request, TerminationRequest) else None


def clear_termination(root: Behaviour) -> None:
    """Forget the termination request of the tree ``root`` belongs to.

    Args:
        root: the root of the tree (any node of it works: the root is looked up).
    """
    setattr(_root_of(root), _TERMINATION_ATTRIBUTE, None)


class Condition(Behaviour):
    """SUCCESS if ``predicate()`` is truthy, else FAILURE; never raises.

    The predicate is called on every tick. When it is falsy the feedback is
    '<description> is false' (the name stands in for an empty description). When it raises
    an exception, the result is FAILURE with the error text as feedback; the exception does
    not propagate.
    """

    def __init__(self, name: str, *, predicate: Callable[[], bool], description: str = ''):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            predicate: the check; its result is tested for truth.
            description: what the predicate checks, for the feedback (default: the name).
        """
        super().__init__(name)
        self.predicate = predicate
        self.description = description

    def update(self) -> Status:
        """Evaluate the predicate."""
        what = self.description or self.name
        try:
            holds = bool(self.predicate())
        except EvaluationError as error:  # the expression's own, readable reason
            self.feedback_message = f'{what}: {error}'
            return Status.FAILURE
        except Exception as error:  # noqa: B902 - a failed check is a FAILURE, not a crash
            self.feedback_message = f'{what}: {type(error).__name__}: {error}'
            return Status.FAILURE
        self.feedback_message = f'{what} is {"true" if holds else "false"}'
        return Status.SUCCESS if holds else Status.FAILURE


class WaitUntil(Behaviour):
    """RUNNING until an expression over the blackboard is true, then SUCCESS.

    An expression that cannot be evaluated yet (e.g. the key is not set) counts as
    false; the reason is shown as feedback.
    """

    def __init__(self, name: str, *, expression: Expression, lookup: Callable[[str], Any]):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            expression: the expression to wait for.
            lookup: reads a blackboard key for the expression.
        """
        super().__init__(name=name)
        self.expression = expression
        self.lookup = lookup

    def update(self) -> Status:
        """Check the expression."""
        try:
            if self.expression.evaluate(self.lookup):
                self.feedback_message = ''
                return Status.SUCCESS
            self.feedback_message = f'waiting for {self.expression}'
        except Exception as error:  # noqa: B902 - expressions only raise EvaluationError
            self.feedback_message = f'waiting for {self.expression}: {error}'
        return Status.RUNNING
