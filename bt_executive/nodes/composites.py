# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Composites py_trees lacks: Race, Marathon, ParallelFailureOnAll, ActiveSelector, random ones.

:class:`BaseComposite` holds the plumbing these composites share with those of
:mod:`bt_executive.nodes.conditionals`; the conventions every behaviour of this package
follows are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import math
import random
from typing import Generator, Iterator, Sequence

from bt_executive.nodes.common import failure_reason, plural
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite, Selector

__all__ = [
    'ActiveSelector',
    'BaseComposite',
    'Marathon',
    'ParallelFailureOnAll',
    'Race',
    'RandomSelector',
    'RandomSequence',
]


class BaseComposite(Composite):
    """Shared plumbing for the composites of this module and of ``conditionals``.

    A new run starts when the composite is ticked while not RUNNING: all children are reset
    (stopped with INVALID if they are not INVALID already), :meth:`_begin_run` resets the
    per-run state and then the user hook ``initialise()`` is called, as py_trees composites do.
    Whenever the composite finishes or is stopped, its RUNNING children are stopped with INVALID.
    """

    def __init__(self, name: str, children: Sequence[Behaviour] | None = None):
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

    def _check_given_layout(self, children: Sequence[Behaviour] | None) -> None:
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
        children: Sequence[Behaviour],
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

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Return the feedback when :meth:`_tick_in_order` ends on SUCCESS at ``index``."""
        raise NotImplementedError

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
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

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
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

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
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

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None,
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


class ActiveSelector(Selector):
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

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
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


class _RandomOrder(BaseComposite):
    """Base for composites that walk their children in a new random order on each run.

    Subclasses may replace the uniform shuffle of :meth:`_draw_order`, and set
    :attr:`_advance_on` and :attr:`_running_verb` (see :meth:`BaseComposite._tick_in_order`);
    the walk has memory: a RUNNING child is resumed on the next tick instead of starting over.
    """

    _advance_on: Status
    _running_verb: str

    def __init__(
        self,
        name: str,
        children: Sequence[Behaviour] | None,
        seed: int | None,
    ):
        """Create the composite.

        Args:
            name: the behaviour name.
            children: the children.
            seed: seed of this composite's own random generator (None: from the OS).
        """
        super().__init__(name, children)
        self._random = random.Random(seed)
        self._order: list[Behaviour] = []
        self._index = 0

    @property
    def order(self) -> tuple[Behaviour, ...]:
        """Return the order drawn for the current (or last) run."""
        return tuple(self._order)

    def _draw_order(self) -> list[Behaviour]:
        """Return the children in the order to try them in this run: a uniform shuffle."""
        order = list(self.children)
        self._random.shuffle(order)
        return order

    def _begin_run(self) -> None:
        """Draw a new order and start at its first child."""
        self._check_layout()
        self._order = self._draw_order()
        self._index = 0

    def tick(self) -> Iterator[Behaviour]:
        """Walk the children in this run's order, with memory.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        yield from self._tick_in_order(self._order, self._advance_on, self._running_verb)


class RandomSelector(_RandomOrder):
    """A selector with memory over an order drawn at random at the start of each run.

    At the start of each run (the first tick after it finished or was stopped) the children
    are put in a random order: uniformly shuffled without ``weights``; with ``weights``, a
    weighted draw without replacement (each next child is picked with probability proportional
    to its weight among those not yet picked; children with weight 0 come last, in their given
    order). The selector then tries the children in that order with memory: SUCCESS as soon as
    one succeeds, RUNNING while the current child runs (it is resumed on the next tick, earlier
    children are not re-checked), the next child when one fails, FAILURE when all failed.

    The weights belong to the children given to the constructor, by position. If children are
    added later, the next run raises RuntimeError unless no weights were given.
    """

    _advance_on = Status.FAILURE
    _running_verb = 'trying'

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        weights: Sequence[float] | None = None,
        seed: int | None = None,
    ):
        """Create the selector.

        Args:
            name: the behaviour name.
            children: the children.
            weights: one non-negative weight per child, not all zero (None: uniform).
            seed: seed of this selector's own random generator (None: from the OS).

        Raises:
            ValueError: if the weights do not match the children or are invalid.
        """
        super().__init__(name, children, seed)
        self.weights: tuple[float, ...] | None = None
        if weights is not None:
            values: list[float] = []
            for weight in weights:
                if isinstance(weight, bool) or not isinstance(weight, (int, float)):
                    raise ValueError(f'weights must be numbers, got {weight!r}')
                if not math.isfinite(weight) or weight < 0:
                    raise ValueError(f'weights must be finite and >= 0, got {weight!r}')
                values.append(float(weight))
            if len(values) != len(self.children):
                raise ValueError(
                    f'got {len(values)} weights for {plural(len(self.children), "child")}'
                )
            if values and not any(value > 0 for value in values):
                raise ValueError('weights must not all be zero')
            self.weights = tuple(values)

    def _layout_error(self) -> str | None:
        """Report weights that no longer match the children."""
        if self.weights is not None and len(self.weights) != len(self.children):
            return (
                f'{len(self.weights)} weights for {plural(len(self.children), "child")}'
            )
        return None

    def _draw_order(self) -> list[Behaviour]:
        """Draw a (weighted) random order of the children."""
        if self.weights is None:
            return super()._draw_order()
        pool = [(w, c) for w, c in zip(self.weights, self.children) if w > 0]
        order = []
        while pool:
            pick = self._random.random() * sum(w for w, _ in pool)
            chosen = len(pool) - 1  # guards against rounding at the top end
            for position, (weight, _) in enumerate(pool):
                if pick < weight:
                    chosen = position
                    break
                pick -= weight
            order.append(pool.pop(chosen)[1])
        order.extend(c for w, c in zip(self.weights, self.children) if w == 0)
        return order

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Name the child that succeeded."""
        return f"'{children[index].name}' succeeded"

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that every child failed."""
        count = len(self.children)
        return f'all {plural(count, "child")} failed' if count else 'no children'


class RandomSequence(_RandomOrder):
    """A sequence with memory over an order shuffled at the start of each run.

    At the start of each run (the first tick after it finished or was stopped) the children
    are shuffled uniformly. The sequence then runs them in that order with memory: the next
    child when one succeeds, RUNNING while the current child runs (it is resumed on the next
    tick), FAILURE as soon as one fails, SUCCESS when all succeeded (also with no children).
    """

    _advance_on = Status.SUCCESS
    _running_verb = 'running'

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        seed: int | None = None,
    ):
        """Create the sequence.

        Args:
            name: the behaviour name.
            children: the children.
            seed: seed of this sequence's own random generator (None: from the OS).
        """
        super().__init__(name, children, seed)

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that every child succeeded."""
        return f'all {plural(len(self.children), "child")} succeeded'

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the child's failure."""
        return failure_reason(children[index])
