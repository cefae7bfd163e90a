# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Decorators that map their child's status: Inverter, ForceSuccess, ForceFailure, ...

They are py_trees' own decorators, each declared by a thin subclass (``declaration``)
that keeps py_trees' semantics and, where py_trees gives no reason for a FAILURE (an empty
feedback message passed through), adds one naming the child. None has parameters: each is
built as ``cls(name=, child=)``. The conventions every behaviour of this package follows
are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

from typing import Optional

from bt_executive.core.registry import Category, NodeType
from bt_executive.nodes.support import failure_reason
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

__all__ = [
    'FailureIsRunning',
    'ForceFailure',
    'ForceSuccess',
    'Inverter',
    'PassThrough',
    'RunningIsFailure',
    'RunningIsSuccess',
    'SuccessIsRunning',
]


def _declaration(name: str, doc: str, *, aliases: tuple[str, ...] = (),
                 btcpp: Optional[str] = None) -> NodeType:
    """Declare a parameterless decorator that maps its child's status."""
    return NodeType(name=name, category=Category.DECORATOR, doc=doc, min_children=1,
                    max_children=1, aliases=aliases, btcpp=btcpp)


class _PassesReasons:
    """Mixin for py_trees status decorators: a FAILURE passed through names the child."""

    decorated: Behaviour
    feedback_message: str

    def update(self) -> Status:
        """Map the child's status as py_trees does; explain a FAILURE."""
        status: Status = super().update()  # type: ignore[misc]
        if status is Status.FAILURE and self.decorated.status is Status.FAILURE:
            self.feedback_message = failure_reason(self.decorated)
        return status


class _NamesTheChild:
    """Mixin for decorators that turn a child's result into FAILURE: name the child."""

    decorated: Behaviour
    feedback_message: str
    #: the feedback when this decorator fails: formatted with ``child`` and ``reason``
    failure_text: str

    def update(self) -> Status:
        """Map the child's status as py_trees does; say what the child did on FAILURE."""
        status: Status = super().update()  # type: ignore[misc]
        if status is Status.FAILURE:
            child = self.decorated
            if child.status is Status.FAILURE:
                self.feedback_message = failure_reason(child)
            else:
                detail = f': {child.feedback_message}' if child.feedback_message else ''
                self.feedback_message = self.failure_text.format(child=child.name,
                                                                 detail=detail)
        return status


class Inverter(_NamesTheChild, py_trees.decorators.Inverter):
    """``py_trees.decorators.Inverter``; FAILURE says that the child succeeded."""

    declaration = _declaration(
        'Inverter',
        "SUCCESS becomes FAILURE (\"'<child>' succeeded (inverted to FAILURE)\") and FAILURE "
        'becomes SUCCESS; RUNNING passes through.',
        aliases=('Not',),
        btcpp='Inverter',
    )
    failure_text = "'{child}' succeeded{detail} (inverted to FAILURE)"


class ForceSuccess(py_trees.decorators.FailureIsSuccess):
    """``py_trees.decorators.FailureIsSuccess``, as it is (it never fails)."""

    declaration = _declaration(
        'ForceSuccess',
        'FAILURE becomes SUCCESS; SUCCESS and RUNNING pass through. Never FAILURE.',
        aliases=('ReturnSuccess', 'FailureIsSuccess'),
        btcpp='ForceSuccess',
    )


class ForceFailure(_NamesTheChild, py_trees.decorators.SuccessIsFailure):
    """``py_trees.decorators.SuccessIsFailure``; FAILURE says what the child did."""

    declaration = _declaration(
        'ForceFailure',
        "SUCCESS becomes FAILURE (\"'<child>' succeeded (forced to FAILURE)\"); FAILURE and "
        'RUNNING pass through. Never SUCCESS.',
        aliases=('ReturnFailure', 'SuccessIsFailure'),
        btcpp='ForceFailure',
    )
    failure_text = "'{child}' succeeded{detail} (forced to FAILURE)"


class RunningIsFailure(_NamesTheChild, py_trees.decorators.RunningIsFailure):
    """``py_trees.decorators.RunningIsFailure``; FAILURE says that the child still ran."""

    declaration = _declaration(
        'RunningIsFailure',
        "RUNNING becomes FAILURE (\"'<child>' is still running (RUNNING is FAILURE)\") and the "
        'child is halted; SUCCESS and FAILURE pass through. Never RUNNING.',
    )
    failure_text = "'{child}' is still running{detail} (RUNNING is FAILURE)"


class RunningIsSuccess(_PassesReasons, py_trees.decorators.RunningIsSuccess):
    """``py_trees.decorators.RunningIsSuccess``; a FAILURE names the child."""

    declaration = _declaration(
        'RunningIsSuccess',
        'RUNNING becomes SUCCESS and the child is halted; SUCCESS and FAILURE pass through. '
        'Never RUNNING.',
    )


class FailureIsRunning(py_trees.decorators.FailureIsRunning):
    """``py_trees.decorators.FailureIsRunning``, as it is (it never fails)."""

    declaration = _declaration(
        'FailureIsRunning',
        'FAILURE becomes RUNNING (the child starts again on the next tick); SUCCESS and '
        'RUNNING pass through. Never FAILURE.',
    )


class SuccessIsRunning(_PassesReasons, py_trees.decorators.SuccessIsRunning):
    """``py_trees.decorators.SuccessIsRunning``; a FAILURE names the child."""

    declaration = _declaration(
        'SuccessIsRunning',
        'SUCCESS becomes RUNNING (the child starts again on the next tick); FAILURE and '
        'RUNNING pass through. Never SUCCESS.',
    )


class PassThrough(_PassesReasons, py_trees.decorators.PassThrough):
    """``py_trees.decorators.PassThrough``; the child's feedback is shown."""

    declaration = _declaration('PassThrough', "Returns the child's status and feedback unchanged.")

    def update(self) -> Status:
        """Reflect the child's status and feedback."""
        self.feedback_message = self.decorated.feedback_message
        return super().update()
