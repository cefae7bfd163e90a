# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Composites that tick their children in order: sequences, selectors, parallels, races.

py_trees' ``Sequence``, ``Selector`` and ``Parallel`` are reused as they are, except that
a FAILURE says which child failed and why (set in ``terminate()``, so a tick that does not
fail costs nothing extra); ``ReactiveSequence`` and ``ActiveSelector`` are py_trees' without
memory, and ``Race``, ``Marathon`` and :class:`ParallelFailureOnAll` (``Parallel`` with
``failure: all``) are ours. Each class declares its node type (``declaration``) and, where
parameters choose how it is made, builds it from them (``build``).

:class:`BaseComposite` holds the plumbing our composites share with those of
:mod:`~bt_executive.nodes.random_composites` and :mod:`~bt_executive.nodes.conditionals`;
the conventions every behaviour of this package follows are described in
:mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import typing
from typing import Generator, Iterator, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.support import failure_reason, plural
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'ActiveSelector',
    'BaseComposite',
    'Marathon',
    'Parallel',
    'ParallelFailureOnAll',
    'Race',
    'ReactiveSequence',
    'Selector',
    'Sequence',
]


class BaseComposite(Composite):
    """Shared plumbing for the composites of this module and of ``conditionals``.

    A new run starts when the composite is ticked while not RUNNING: all children are reset
    (stopped with INVALID if they are not INVALID already), :meth:`_begin_run` resets the
    per-run state and then the user hook ``initialise()`` is called, as py_trees composites do.
    Whenever the composite finishes or is stopped, its RUNNING children are stopped with INVALID.
    """

    def __init__(self, name: str, children: typing.Sequence[Behaviour] | None = None):
        """Create the composite.

        Args:
            name: the behaviour name.
            children: the children, in order.
        """
        super().__init__(name, children)

    def _begin_run(self) -> None:
        """Reset per-run state; subclasses extend this."""

    def _layout_error(self) -> str | None:
        """Return why the children do not fit this composite, or None if they do."""
        return None

    def _check_given_layout(self, children: typing.Sequence[Behaviour] | None) -> None:
        """Raise if children were given to the constructor and do not fit this composite.

        Args:
            children: the children given to the constructor (None: none given yet).

        Raises:
            ValueError: if :meth:`_layout_error` reports a problem.
        """
        if children is not None:
            error = self._layout_error()
            if error is not None:
                raise ValueError(error)

    def _check_layout(self) -> None:
        """Raise if the children do not fit this composite.

        Raises:
            RuntimeError: if :meth:`_layout_error` reports a problem.
        """
        error = self._layout_error()
        if error is not None:
            raise RuntimeError(f'{self.__class__.__name__} {self.name!r}: {error}')

    def _start_if_new_run(self) -> None:
        """Start a fresh run when the composite is not RUNNING."""
        if self.status == Status.RUNNING:
            return
        for child in self.children:
            if child.status != Status.INVALID:
                child.stop(Status.INVALID)
        self.current_child = None
        self.feedback_message = ''
        self._begin_run()
        self.initialise()

    def _finish(self, status: Status, message: str) -> None:
        """End the run with ``status`` and ``message``, stopping RUNNING children.

        Args:
            status: SUCCESS or FAILURE.
            message: the feedback message.
        """
        self.feedback_message = message
        self.stop(status)

    def _tick_in_order(
        self,
        children: typing.Sequence[Behaviour],
        advance_on: Status,
        running_verb: str,
    ) -> Generator[Behaviour, None, None]:
        """Tick ``children`` from ``self._index`` like a sequence or selector with memory.

        Each child is ticked in turn while it returns ``advance_on`` (SUCCESS for a sequence,
        FAILURE for a selector); the first child that returns anything else ends the walk,
        and ``self._index`` keeps where it stopped. Then this composite is RUNNING while
        that child runs (feedback ``"<running_verb> '<child>'"``), finishes with SUCCESS
        (:meth:`_success_message`) when the walk ended on SUCCESS, and with FAILURE
        (:meth:`_failure_message`) otherwise.

        Args:
            children: the children to walk, in order.
            advance_on: the status that moves on to the next child.
            running_verb: the feedback verb while a child runs ('running', 'trying').

        Yields:
            The nodes ticked, as py_trees tick generators do, and finally this composite.
        """
        index = self._index
        status = advance_on
        while index < len(children):
            child = children[index]
            self.current_child = child
            yield from child.tick()
            if child.status != advance_on:
                status = child.status
                break
            index += 1
        self._index = index
        if status == Status.RUNNING:
            self.status = Status.RUNNING
            self.feedback_message = f"{running_verb} '{children[index].name}'"
        elif status == Status.SUCCESS:
            self._finish(Status.SUCCESS, self._success_message(children, index))
        else:
            self._finish(Status.FAILURE, self._failure_message(children, index))
        yield self

    def _success_message(self, children: typing.Sequence[Behaviour], index: int) -> str:
        """Return the feedback when :meth:`_tick_in_order` ends on SUCCESS at ``index``."""
        raise NotImplementedError

    def _failure_message(self, children: typing.Sequence[Behaviour], index: int) -> str:
        """Return the feedback when :meth:`_tick_in_order` ends on FAILURE at ``index``."""
        raise NotImplementedError

    def setup(self, **kwargs: object) -> None:
        """Check the children before the first tick.

        Args:
            **kwargs: distributed to behaviours by py_trees; unused here.

        Raises:
            RuntimeError: if the children do not fit this composite.
        """
        self._check_layout()

    def stop(self, new_status: Status = Status.INVALID) -> None:
        """Stop RUNNING children with INVALID, then stop this composite.

        Args:
            new_status: the status this composite transitions to.
        """
        for child in self.children:
            if child.status == Status.RUNNING:
                child.stop(Status.INVALID)
        Composite.stop(self, new_status)


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

    declaration = NodeType(
        name='Sequence',
        category=Category.COMPOSITE,
        doc=("Ticks its children in order. A child's SUCCESS moves on to the next child in "
             "the same tick; a child's RUNNING makes the sequence RUNNING; a child's FAILURE "
             "makes it FAILURE at once (\"'<child>' failed: <its reason>\"). SUCCESS when the "
             'last child succeeded. With memory (default) the next tick resumes at the '
             'RUNNING child; without, every tick starts again from the first child (see '
             'ReactiveSequence).'),
        params=(
            Param('memory', ParamType.BOOL, 'resume the running child instead of restarting',
                  default=True),
        ),
        min_children=1,
        max_children=None,
        btcpp='Sequence',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a sequence with the ``memory`` parameter."""
        return cls(name=name, memory=params['memory'], children=children)


class ReactiveSequence(Sequence):
    """:class:`Sequence` without memory: every tick starts again from the first child."""

    declaration = NodeType(
        name='ReactiveSequence',
        category=Category.COMPOSITE,
        doc=('Sequence without memory: every tick starts again from the first child, so a '
             'precondition that fails (or runs) halts the child that was running after it. '
             'RUNNING, SUCCESS and FAILURE as Sequence.'),
        min_children=1,
        max_children=None,
        btcpp='ReactiveSequence',
    )

    def __init__(self, name: str, *, children: typing.Sequence[Behaviour] | None = None):
        """Create the sequence.

        Args:
            name: the behaviour name.
            children: the children, in order.
        """
        super().__init__(name=name, memory=False, children=children)

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the sequence (it has no parameters)."""
        return cls(name=name, children=children)


class Selector(_ExplainedComposite, py_trees.composites.Selector):
    """``py_trees.composites.Selector``; FAILURE says that every child failed."""

    declaration = NodeType(
        name='Selector',
        category=Category.COMPOSITE,
        doc=("Priority selector (fallback): ticks its children in order. A child's FAILURE "
             'moves on to the next child in the same tick; the first child that succeeds or '
             'runs gives the result (SUCCESS or RUNNING). FAILURE when every child failed '
             "('all N children failed'). Without memory (default) every tick starts again "
             'from the first child, and a running lower-priority child is halted (INVALID) '
             'when a higher one succeeds or runs; with memory the next tick resumes at the '
             'RUNNING child.'),
        params=(
            Param('memory', ParamType.BOOL,
                  'resume the running child without re-checking higher priorities',
                  default=False),
        ),
        min_children=1,
        max_children=None,
        aliases=('Fallback',),
        btcpp='ReactiveFallback',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a selector with the ``memory`` parameter."""
        return cls(name=name, memory=params['memory'], children=children)

    def _failure_reason(self) -> str:
        """Say that every child failed (the why chain follows the last one)."""
        count = len(self.children)
        return f'all {plural(count, "child")} failed' if count else 'no children'


class ActiveSelector(py_trees.composites.Selector):
    """A priority selector without memory: ``py_trees.composites.Selector(memory=False)``.

    Every tick re-evaluates the children from the first one; the first child that returns
    RUNNING or SUCCESS decides the result, and if it differs from the child that ran on the
    previous tick, every child after it (in particular the previously RUNNING lower-priority
    child) is stopped with INVALID. A higher-priority child that returns FAILURE does not
    disturb a RUNNING lower-priority child: that child keeps running (it is not restarted).
    FAILURE when every child failed (also with no children).

    This is a thin subclass: py_trees' memoryless Selector already aborts lower priorities; the
    subclass only fixes ``memory=False``, makes ``children`` keyword-only and sets the feedback
    message on FAILURE.
    """

    declaration = NodeType(
        name='ActiveSelector',
        category=Category.COMPOSITE,
        doc=("Selector without memory (the seeds' ActiveSelector): every tick re-evaluates "
             'the higher priorities and halts the running lower one when one of them '
             'succeeds or runs. SUCCESS or RUNNING from the first child that does not fail; '
             'FAILURE when every child failed.'),
        min_children=1,
        max_children=None,
        btcpp='ReactiveFallback',
    )

    def __init__(self, name: str, *, children: typing.Sequence[Behaviour] | None = None):
        """Create the selector.

        Args:
            name: the behaviour name.
            children: the children, highest priority first.
        """
        super().__init__(name, memory=False, children=children)

    def tick(self) -> Iterator[Behaviour]:
        """Tick as ``Selector(memory=False)`` and explain a FAILURE.

        Yields:
            This behaviour or one of its descendants.
        """
        for node in super().tick():
            if node is self:
                if self.status == Status.FAILURE:
                    count = len(self.children)
                    self.feedback_message = (
                        f'all {plural(count, "child")} failed' if count else 'no children'
                    )
                elif self.current_child is not None:
                    self.feedback_message = f"'{self.current_child.name}' is {self.status.name}"
            yield node


class Parallel(_ExplainedComposite, py_trees.composites.Parallel):
    """``py_trees.composites.Parallel``; FAILURE says which child failed and why.

    py_trees fails as soon as a child fails (the first in child order is named). The node
    type's ``failure: all`` is :class:`ParallelFailureOnAll` (:meth:`build` chooses).
    """

    declaration = NodeType(
        name='Parallel',
        category=Category.COMPOSITE,
        doc=('Ticks its children in order, every tick. `success: all`: SUCCESS when every '
             'child succeeded (with `synchronise`, a child that succeeded is not ticked '
             'again); `success: one`: SUCCESS when a child succeeds. `failure: one` '
             "(default, the seeds' RequireOne): FAILURE at the end of a tick in which a "
             'child failed, even if another succeeded in that tick; the running children are '
             'halted. `failure: all` (RequireAll): a child that fails is out of the run and '
             'the others go on; FAILURE when every child failed, or, with `success: all`, '
             'when none is running any more and one failed; with `success: one` the first '
             'success wins at once and the children after it are not ticked (as Race). '
             'RUNNING otherwise. FAILURE names the child that failed.'),
        params=(
            Param('success', ParamType.ENUM, 'success policy: how many children must succeed',
                  default='all', choices=('all', 'one')),
            Param('failure', ParamType.ENUM, 'failure policy: how many children must fail',
                  default='one', choices=('one', 'all')),
            Param('synchronise', ParamType.BOOL,
                  'with success: all, do not re-tick children that already succeeded',
                  default=True),
        ),
        min_children=1,
        max_children=None,
        btcpp='Parallel',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a parallel with the policies the parameters choose.

        The default failure policy (the first failure fails) is py_trees' Parallel;
        ``failure: all`` is :class:`ParallelFailureOnAll`.
        """
        synchronise = params['synchronise']
        if params['failure'] == 'all':
            return ParallelFailureOnAll(name, children=children, success=params['success'],
                                        synchronise=synchronise)
        if params['success'] == 'all':
            policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=synchronise)
        else:
            policy = py_trees.common.ParallelPolicy.SuccessOnOne()
        return cls(name=name, policy=policy, children=children)

    def _failure_reason(self) -> str:
        """Name the first failed child, the one py_trees decided on."""
        child = next((c for c in self.children if c.status is Status.FAILURE), None)
        return failure_reason(child) if child is not None else super()._failure_reason()


class ParallelFailureOnAll(BaseComposite):
    """A parallel that fails only when every child failed (failure policy ``all``).

    Every tick, the children are ticked in order, except those that already finished in
    this run: a child that failed is out of the run, and with ``success='all'`` and
    ``synchronise`` a child that succeeded is not ticked again (without ``synchronise`` it
    is, and its new status counts). The result:

    * ``success='one'``: SUCCESS as soon as a child succeeds (the children after it are
      not ticked in that tick; running ones are halted); FAILURE when every child failed;
      RUNNING otherwise. (This is :class:`Race`.)
    * ``success='all'``: SUCCESS when every child has succeeded; FAILURE when no child is
      running any more and at least one failed (every child failed, or the others
      finished: success is out of reach and nothing is left to wait for); RUNNING
      otherwise. Unlike the default failure policy, a failure does not halt the others.

    A new run (the first tick after the parallel finished or was stopped) resets every
    child. With no children it succeeds at once.
    """

    def __init__(self, name: str, *, children: typing.Sequence[Behaviour] | None = None,
                 success: str = 'all', synchronise: bool = True):
        """Create the parallel.

        Args:
            name: the behaviour name.
            children: the children, ticked in this order.
            success: 'all' or 'one': how many children must succeed.
            synchronise: with success 'all', do not tick a child that succeeded again.

        Raises:
            ValueError: if ``success`` is neither 'all' nor 'one'.
        """
        if success not in ('all', 'one'):
            raise ValueError(f"success must be 'all' or 'one', got {success!r}")
        super().__init__(name, children)
        self.success = success
        self.synchronise = synchronise
        self._failed: set[object] = set()

    def _begin_run(self) -> None:
        """Forget the children that failed in the previous run."""
        self._failed = set()

    def tick(self) -> Iterator[Behaviour]:
        """Tick the children still in the run and decide.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        skip_succeeded = self.success == 'all' and self.synchronise
        for child in self.children:
            if child.id in self._failed or (skip_succeeded and child.status == Status.SUCCESS):
                continue
            self.current_child = child
            yield from child.tick()
            if child.status == Status.FAILURE:
                self._failed.add(child.id)
            elif child.status == Status.SUCCESS and self.success == 'one':
                self._finish(Status.SUCCESS, f"'{child.name}' succeeded")
                yield self
                return
        total = len(self.children)
        failed = [child for child in self.children if child.id in self._failed]
        running = sum(1 for child in self.children if child.status == Status.RUNNING)
        if total and len(failed) == total:
            self._finish(Status.FAILURE, f'all {plural(total, "child")} failed')
        elif self.success == 'all' and len(failed) + running == 0:
            self._finish(Status.SUCCESS, f'all {plural(total, "child")} succeeded')
        elif self.success == 'all' and failed and not running:
            self._finish(Status.FAILURE, f'{len(failed)} of {plural(total, "child")} '
                                         f'failed; {failure_reason(failed[0])}')
        else:
            self.status = Status.RUNNING
            self.feedback_message = f'{running} of {total} running, {len(failed)} failed'
        yield self


class Race(BaseComposite):
    """Run all children concurrently; the first to succeed wins.

    Every tick, the children that have not finished in this run are ticked in order. As soon as
    one returns SUCCESS, the race returns SUCCESS and every other RUNNING child is stopped with
    INVALID (children after the winner are not ticked on that tick). A child that returns
    FAILURE is out of the race: it is not ticked again in this run. The race returns FAILURE
    when every child has failed (also with no children), RUNNING otherwise. A new run (the
    first tick after the race finished or was stopped) resets all children and re-enters them.

    Unlike ``py_trees.composites.Parallel`` with ``SuccessOnOne``, a failing child does not
    make the race fail while others are still running.
    """

    declaration = NodeType(
        name='Race',
        category=Category.COMPOSITE,
        doc=('Ticks every child still in the race each tick, in order. The first child to '
             "succeed wins: SUCCESS (\"'<child>' won\"); the children after it are not ticked "
             'in that tick and the running ones are halted. A child that fails is out of the '
             'race (not ticked again in this run); FAILURE when every child failed. RUNNING '
             'otherwise.'),
        min_children=1,
        max_children=None,
    )

    def __init__(self, name: str, *, children: typing.Sequence[Behaviour] | None = None):
        """Create the race.

        Args:
            name: the behaviour name.
            children: the competitors, ticked in this order.
        """
        super().__init__(name, children)
        self._failed: set[object] = set()

    def _begin_run(self) -> None:
        """Forget the children that failed in the previous run."""
        self._failed = set()

    def tick(self) -> Iterator[Behaviour]:
        """Tick the children still in the race.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        for child in self.children:
            if child.id in self._failed:
                continue
            self.current_child = child
            yield from child.tick()
            if child.status == Status.SUCCESS:
                self._finish(Status.SUCCESS, f"'{child.name}' won")
                self.current_child = child
                yield self
                return
            if child.status != Status.RUNNING:
                self._failed.add(child.id)
        if len(self._failed) == len(self.children):
            if self.children:
                message = f'all {plural(len(self.children), "child")} failed'
            else:
                message = 'no children'
            self._finish(Status.FAILURE, message)
        else:
            self.status = Status.RUNNING
            running = len(self.children) - len(self._failed)
            self.feedback_message = f'{running} of {len(self.children)} still racing'
        yield self


class Marathon(BaseComposite):
    """Run all children concurrently until every one of them has finished.

    Every tick, the children that have not finished in this run are ticked in order; a child
    that returns SUCCESS or FAILURE is not ticked again in this run, and a failure does not stop
    the others. When all children have finished, the marathon returns SUCCESS, or, with
    ``require_success``, FAILURE if any child failed (the feedback says how many). It is RUNNING
    until then. With no children it succeeds at once. A new run resets all children.
    """

    declaration = NodeType(
        name='Marathon',
        category=Category.COMPOSITE,
        doc=('Ticks every child that has not finished in this run, each tick; a failure does '
             "not stop the others. RUNNING until every child finished, then SUCCESS ('all N "
             "children finished (k failed)'), or, with require_success, FAILURE if any child "
             "failed ('k of N children failed')."),
        params=(
            Param('require_success', ParamType.BOOL, 'fail if any child failed', default=False),
        ),
        min_children=1,
        max_children=None,
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a marathon with the ``require_success`` parameter."""
        return cls(name, children=children, require_success=params['require_success'])

    def __init__(
        self,
        name: str,
        *,
        children: typing.Sequence[Behaviour] | None = None,
        require_success: bool = False,
    ):
        """Create the marathon.

        Args:
            name: the behaviour name.
            children: the runners, ticked in this order.
            require_success: return FAILURE at the end if any child failed.
        """
        super().__init__(name, children)
        self.require_success = require_success
        self._finished: set[object] = set()
        self._failures = 0

    def _begin_run(self) -> None:
        """Forget which children finished in the previous run."""
        self._finished = set()
        self._failures = 0

    def tick(self) -> Iterator[Behaviour]:
        """Tick the children that have not finished yet.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        for child in self.children:
            if child.id in self._finished:
                continue
            self.current_child = child
            yield from child.tick()
            if child.status != Status.RUNNING:
                self._finished.add(child.id)
                if child.status != Status.SUCCESS:
                    self._failures += 1
        total = len(self.children)
        if len(self._finished) < total:
            self.status = Status.RUNNING
            self.feedback_message = f'{len(self._finished)} of {total} finished'
        elif self.require_success and self._failures:
            self._finish(
                Status.FAILURE,
                f'{self._failures} of {plural(total, "child")} failed',
            )
        else:
            self._finish(
                Status.SUCCESS,
                f'all {plural(total, "child")} finished ({self._failures} failed)',
            )
        yield self
