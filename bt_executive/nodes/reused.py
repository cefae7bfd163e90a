# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""py_trees' own nodes, reused as they are except that every FAILURE says why.

py_trees' composites never set a feedback message, some of its decorators pass an empty
one through and ``TickCounter`` has none. The subclasses here keep py_trees' semantics
(ticking, statuses, halting) and only add the reason: a composite or decorator that fails
because a child failed says ``'<child>' failed: <the child's reason>``. The reason is set
in ``terminate()`` (py_trees calls it whenever a node finishes), so a tick that does not
fail costs nothing extra. The conventions every behaviour of this package follows are
described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

from typing import Any

from bt_executive.nodes.common import failure_reason, plural
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

__all__ = [
    'ForceFailure',
    'Inverter',
    'OneShot',
    'Parallel',
    'PassThrough',
    'Periodic',
    'Repeat',
    'Retry',
    'RunningIsFailure',
    'RunningIsSuccess',
    'Selector',
    'Sequence',
    'SuccessIsRunning',
    'TickCounter',
]


def _last_failed(children: list[Behaviour]) -> Behaviour | None:
    """Return the last child whose status is FAILURE, or None."""
    for child in reversed(children):
        if child.status is Status.FAILURE:
            return child
    return None


class _ExplainedComposite:
    """Mixin for py_trees composites: forget the reason on a new run, give one on FAILURE."""

    children: list[Behaviour]
    feedback_message: str

    def initialise(self) -> None:
        """Start a run without the previous run's reason."""
        self.feedback_message = ''
        super().initialise()  # type: ignore[misc]

    def terminate(self, new_status: Status) -> None:
        """Explain a FAILURE by the child that failed."""
        if new_status is Status.FAILURE:
            self.feedback_message = self._failure_reason()
        super().terminate(new_status)  # type: ignore[misc]

    def _failure_reason(self) -> str:
        """Return why this composite failed."""
        child = _last_failed(self.children)
        if child is not None:
            return failure_reason(child)
        return 'no children' if not self.children else 'failed'


class Sequence(_ExplainedComposite, py_trees.composites.Sequence):
    """``py_trees.composites.Sequence``; FAILURE says which child failed and why."""


class Selector(_ExplainedComposite, py_trees.composites.Selector):
    """``py_trees.composites.Selector``; FAILURE says that every child failed."""

    def _failure_reason(self) -> str:
        """Say that every child failed (the why chain follows the last one)."""
        count = len(self.children)
        return f'all {plural(count, "child")} failed' if count else 'no children'


class Parallel(_ExplainedComposite, py_trees.composites.Parallel):
    """``py_trees.composites.Parallel``; FAILURE says which child failed and why.

    py_trees fails as soon as a child fails (the first in child order is named).
    """

    def _failure_reason(self) -> str:
        """Name the first failed child, the one py_trees decided on."""
        child = next((c for c in self.children if c.status is Status.FAILURE), None)
        return failure_reason(child) if child is not None else super()._failure_reason()


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


class PassThrough(_PassesReasons, py_trees.decorators.PassThrough):
    """``py_trees.decorators.PassThrough``; the child's feedback is shown."""

    def update(self) -> Status:
        """Reflect the child's status and feedback."""
        self.feedback_message = self.decorated.feedback_message
        return super().update()


class RunningIsSuccess(_PassesReasons, py_trees.decorators.RunningIsSuccess):
    """``py_trees.decorators.RunningIsSuccess``; a FAILURE names the child."""


class SuccessIsRunning(_PassesReasons, py_trees.decorators.SuccessIsRunning):
    """``py_trees.decorators.SuccessIsRunning``; a FAILURE names the child."""


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

    failure_text = "'{child}' succeeded{detail} (inverted to FAILURE)"


class ForceFailure(_NamesTheChild, py_trees.decorators.SuccessIsFailure):
    """``py_trees.decorators.SuccessIsFailure``; FAILURE says what the child did."""

    failure_text = "'{child}' succeeded{detail} (forced to FAILURE)"


class RunningIsFailure(_NamesTheChild, py_trees.decorators.RunningIsFailure):
    """``py_trees.decorators.RunningIsFailure``; FAILURE says that the child still ran."""

    failure_text = "'{child}' is still running{detail} (RUNNING is FAILURE)"


class Repeat(py_trees.decorators.Repeat):
    """``py_trees.decorators.Repeat``; FAILURE gives the child's reason and the count."""

    def update(self) -> Status:
        """Count successes as py_trees does; explain a FAILURE."""
        status = super().update()
        if status is Status.FAILURE:
            self.feedback_message = (f'{failure_reason(self.decorated)} (after '
                                     f'{self.success} of {self.num_success} successes)')
        return status


class Retry(py_trees.decorators.Retry):
    """``py_trees.decorators.Retry``; FAILURE gives the last attempt's reason."""

    def update(self) -> Status:
        """Count failures as py_trees does; explain the giving up."""
        status = super().update()
        if status is Status.FAILURE:
            self.feedback_message = (f'{failure_reason(self.decorated)} (attempt '
                                     f'{self.failures} of {self.num_failures})')
        return status


class OneShot(py_trees.decorators.OneShot):
    """``py_trees.decorators.OneShot``; the kept result says what the one run did."""

    def __init__(self, name: str, child: Behaviour, policy: Any) -> None:
        """Create the decorator (arguments as for py_trees' OneShot)."""
        super().__init__(name=name, child=child, policy=policy)
        self._result = ''

    def terminate(self, new_status: Status) -> None:
        """Explain a FAILURE; after the one run, repeat what it did."""
        completed = self.final_status is not None
        super().terminate(new_status)
        if self.final_status is None:  # not kept (yet): this run's own outcome
            if new_status is Status.FAILURE:
                self.feedback_message = failure_reason(self.decorated)
            return
        if not completed:
            self._result = (failure_reason(self.decorated)
                            if new_status is Status.FAILURE
                            else f"'{self.decorated.name}' succeeded")
        self.feedback_message = f'{self._result} (its one run; the result is kept)'


class TickCounter(py_trees.behaviours.TickCounter):
    """``py_trees.behaviours.TickCounter`` with feedback: the count, then the outcome."""

    def update(self) -> Status:
        """Count the tick as py_trees does and say where the count is."""
        status = super().update()
        if status is Status.RUNNING:
            self.feedback_message = f'tick {self.counter} of {self.duration}'
        else:
            self.feedback_message = (f'{status.name} after '
                                     f'{plural(self.duration, "running tick")}')
        return status


class Periodic(py_trees.behaviours.Periodic):
    """Cycle RUNNING, SUCCESS, FAILURE for exactly ``n`` ticks each, over its whole life.

    py_trees' Periodic gives the first phase ``n`` ticks and later ones ``n + 1``; this one
    gives every phase ``n``. The count is not reset by a new run.
    """

    _CYCLE = (Status.RUNNING, Status.SUCCESS, Status.FAILURE)

    def update(self) -> Status:
        """Return the status of the phase this tick falls in, saying where it is."""
        phase, tick = divmod(self.count, self.period)
        self.count += 1
        status = self._CYCLE[phase % 3]
        self.feedback_message = (f'{status.name}, tick {tick + 1} of {self.period} '
                                 '(cycle RUNNING, SUCCESS, FAILURE)')
        return status
