# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Contain the exceptions of single behaviours: the node fails, the tree goes on.

A :class:`FaultGuard` makes an exception raised while a behaviour is ticked or halted that
behaviour's FAILURE (the reason names the exception) instead of the end of the tick, and
logs its traceback once through the node's ``log_error``: plugin node types are guarded
when built, bt_executive's and py_trees' own when they first raise (:func:`contain_fault`,
which the tree host calls), so an ordinary tick pays nothing. The guard of a node is kept
in its :class:`~bt_executive.core.table.NodeInfo`, not on the behaviour.
"""

from __future__ import annotations

import traceback
from typing import Callable, Iterator, Optional

from bt_executive.core.table import BuiltTree, NodeInfo
import py_trees

#: Distinct errors of one behaviour whose traceback is logged; later ones are only counted.
MAX_LOGGED_FAULTS = 5

#: The reason a guarded node's FAILURE gets when the node set no feedback message.
NO_REASON = 'failed without giving a reason (its feedback message is empty)'


class FaultGuard:
    """Contain the exceptions of one behaviour: that behaviour fails, the tree goes on.

    Installed (as instance attributes replacing ``tick`` and ``terminate``) when a node is
    built from a node type outside bt_executive and py_trees, and on any other behaviour
    the first time it raises (:func:`contain_fault`): the guard's extra generator frame
    costs about a fifth of a tick, so trusted nodes run unguarded. When the behaviour's
    tick raises (its ``initialise()``, ``update()``
    or a composite's own logic; the children are guarded themselves) its running children
    are halted (INVALID: their goals are cancelled), it is stopped with FAILURE and its
    feedback message says which method raised what. An exception in ``terminate()`` is
    reported and the stop completes. Each distinct error (type and message) of a behaviour
    is logged with its traceback once, at most :data:`MAX_LOGGED_FAULTS` of them. A
    FAILURE without a feedback message gets one (:data:`NO_REASON`) before its parent
    sees it: every FAILURE carries a reason, also a plugin's.

    Args:
        behaviour: the behaviour to guard
        path: its node path (named in reports)
        log_error: where reports go
    """

    def __init__(self, behaviour: py_trees.behaviour.Behaviour, path: str,
                 log_error: Callable[[str], None]) -> None:
        self.behaviour = behaviour
        self.path = path
        self.log_error = log_error
        #: how many exceptions the behaviour raised so far
        self.faults = 0
        self.logged: set[tuple[str, str]] = set()
        #: an error reported already that the next tick turns into FAILURE (contain_fault)
        self.pending: Optional[tuple[Exception, str]] = None
        self._tick = behaviour.tick
        self._terminate = behaviour.terminate
        # instance attributes shadow the class's methods: the guard wraps this node only
        behaviour.tick = self.tick  # type: ignore[method-assign]
        behaviour.terminate = self.terminate  # type: ignore[method-assign]

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick the behaviour; if that raises, stop it with FAILURE and yield it."""
        if self.pending is not None:  # it raised in the tick being run again: fail now
            (_, reason), self.pending = self.pending, None
            yield from self._fail(reason)
            return
        behaviour = self.behaviour
        try:
            for node in self._tick():
                if node is behaviour and not behaviour.feedback_message \
                        and behaviour.status is py_trees.common.Status.FAILURE:
                    behaviour.feedback_message = NO_REASON
                yield node
        except Exception as error:  # noqa: B902 - whatever a node raises, it fails alone
            yield from self._fail(self.report(error))

    def _fail(self, reason: str) -> Iterator[py_trees.behaviour.Behaviour]:
        """Halt the running children, stop the behaviour with FAILURE, yield it."""
        behaviour = self.behaviour
        try:
            for child in behaviour.children:  # py_trees only halts them on INVALID
                if child.status is py_trees.common.Status.RUNNING:
                    child.stop(py_trees.common.Status.INVALID)
            behaviour.stop(py_trees.common.Status.FAILURE)
        except Exception as again:  # noqa: B902 - stopping raised as well
            self.report(again)
            behaviour.status = py_trees.common.Status.FAILURE
        behaviour.feedback_message = reason
        yield behaviour

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """Call the behaviour's own terminate; an exception is reported, not raised."""
        try:
            self._terminate(new_status)
        except Exception as error:  # noqa: B902 - the stop must complete
            self.behaviour.feedback_message = self.report(error)

    def report(self, error: Exception) -> str:
        """Count and (once per distinct error) log ``error``; return the failure reason."""
        self.faults += 1
        where = _raised_in(error, self.behaviour)
        reason = f'{where} raised {type(error).__name__}: {error}'.rstrip(': ')
        key = (type(error).__name__, str(error))
        if key not in self.logged and len(self.logged) < MAX_LOGGED_FAULTS:
            self.logged.add(key)
            lines = traceback.format_exception(type(error), error, error.__traceback__)
            more = ('; further distinct errors of this node are not logged'
                    if len(self.logged) == MAX_LOGGED_FAULTS else '')
            try:
                self.log_error(f'{self.path}: {reason} (the node fails; logged once{more})'
                               f'\n{"".join(lines).rstrip()}')
            except Exception:  # noqa: B902 - a broken log sink must not break the tick
                pass
        return reason


def contain_fault(error: BaseException, tree: BuiltTree, *, in_tick: bool = True) -> bool:
    """Guard the unguarded behaviour that raised ``error`` during a tick or a stop.

    The behaviour is the innermost one of ``tree`` on the traceback. It gets a
    :class:`FaultGuard` (which logs the error once) holding the error as pending, so that
    when the caller runs the tick again the behaviour fails at once instead of raising:
    the tick in which a trusted node first raises is run a second time (what ran before
    the node in it runs twice, once); from then on the guard contains it in place. With
    ``in_tick=False`` (a stop raised) nothing is pending: the caller stops again and the
    guard's ``terminate`` reports instead of raising. The error is logged through the
    ``log_error`` of the node's :class:`NodeInfo`.

    Returns:
        False if no unguarded behaviour of the tree raised it (the caller re-raises).
    """
    if not isinstance(error, Exception):
        return False
    members = {id(behaviour): behaviour for behaviour in tree.root.iterate()}
    culprit = None
    trace = error.__traceback__
    while trace is not None:
        candidate = trace.tb_frame.f_locals.get('self')
        if candidate is not None and id(candidate) in members \
                and members[id(candidate)] is candidate:
            culprit = candidate
        trace = trace.tb_next
    if culprit is None:
        return False
    info = tree.nodes.info(culprit)
    if info is None:  # a behaviour the builder did not make (added to the tree later)
        info = tree.nodes[culprit.id] = NodeInfo(path=culprit.name,
                                                 type=type(culprit).__name__)
    if info.guard is not None:
        return False
    guard = info.guard = FaultGuard(culprit, info.path, info.log_error)
    reason = guard.report(error)
    if in_tick:
        guard.pending = (error, reason)
    else:
        culprit.feedback_message = reason
    return True


def _raised_in(error: BaseException, behaviour: py_trees.behaviour.Behaviour) -> str:
    """Name the method of ``behaviour`` that raised: a lifecycle method, else ``tick()``."""
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        if frame.f_code.co_name in _LIFECYCLE and frame.f_locals.get('self') is behaviour:
            return f'{frame.f_code.co_name}()'
        trace = trace.tb_next
    return 'tick()'


_LIFECYCLE = frozenset({'initialise', 'update', 'terminate'})


__all__ = ['FaultGuard', 'MAX_LOGGED_FAULTS', 'NO_REASON', 'contain_fault']
