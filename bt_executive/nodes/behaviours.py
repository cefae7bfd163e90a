"""Behaviours that py_trees lacks, written as ordinary py_trees behaviours.

Everything here subclasses :class:`py_trees.composites.Composite`,
:class:`py_trees.decorators.Decorator` or :class:`py_trees.behaviour.Behaviour` and follows
the py_trees lifecycle: ``initialise()`` on the first tick of a run, ``terminate()`` through
``stop()``, and children that a node abandons while they are RUNNING are stopped with
``Status.INVALID``. This module imports no ROS code. Time-based behaviours read time from an
injectable ``clock`` (seconds; ``time.monotonic`` by default) so that the ROS layer can drive
them from the ROS clock (``use_sim_time``). Random behaviours own a ``random.Random(seed)``.

Every behaviour sets ``feedback_message`` to a short human reason when it returns FAILURE.

py_trees nodes reused as they are (not redefined here):

* ``composites.Sequence`` / ``composites.Selector`` (with or without memory) and
  ``composites.Parallel`` (``SuccessOnAll`` / ``SuccessOnOne`` / ``SuccessOnSelected``).
* ``decorators.Repeat(name, child, num_success)``: the child must succeed ``num_success`` times
  (one run per tick; each success but the last returns RUNNING); a failure aborts with FAILURE.
  That is our "repeat N times" semantics, so there is no ``Repeat`` here.
* ``decorators.Retry(name, child, num_failures)``: FAILURE on the ``num_failures``-th failure,
  i.e. ``num_failures`` is the total number of attempts, not the number of retries.
* ``decorators.Inverter``, ``SuccessIsFailure``, ``FailureIsSuccess``, ``RunningIsFailure``,
  ``RunningIsSuccess``, ``EternalGuard`` and ``OneShot``.
* ``behaviours.Success`` / ``Failure`` / ``Running`` (no ``SetStatus`` here).

Not reused: ``decorators.Timeout`` (reads ``time.monotonic`` and ticks the child once more after
the deadline) and ``timers.Timer`` (reads ``time.time``); see :class:`Timeout` and :class:`Wait`.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
import time
from typing import Callable, Generator, Iterator, Literal, Sequence

from bt_executive.core.expressions import EvaluationError
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.composites import Composite, Selector
from py_trees.decorators import Decorator

__all__ = [
    'ActiveSelector',
    'Condition',
    'Cooldown',
    'Delay',
    'Filter',
    'IfThenElse',
    'LOGGER_NAME',
    'Limit',
    'Log',
    'Marathon',
    'Monitor',
    'Race',
    'RandomSelector',
    'RandomSequence',
    'Terminate',
    'TerminationRequest',
    'Timeout',
    'UntilFailure',
    'UntilSuccess',
    'Wait',
    'While',
    'clear_termination',
    'reset_limits',
    'termination_requested',
]

Clock = Callable[[], float]
"""A time source returning seconds (monotonic for wall time, the ROS clock for sim time)."""

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


##############################################################################
# Helpers
##############################################################################


def _check_seconds(seconds: float, what: str = 'seconds') -> float:
    """Return ``seconds`` as a float, or raise if it is not a finite, non-negative number.

    Args:
        seconds: the duration to check.
        what: the parameter name used in the error message.

    Returns:
        The duration as a float.

    Raises:
        ValueError: if the value is not a finite number >= 0.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f'{what} must be a number, got {seconds!r}')
    value = float(seconds)
    if not math.isfinite(value) or value < 0.0:
        raise ValueError(f'{what} must be finite and >= 0, got {seconds!r}')
    return value


def _check_count(value: int | None, what: str, *, minimum: int) -> None:
    """Raise unless ``value`` is None or an int >= ``minimum``.

    Args:
        value: the count to check.
        what: the parameter name used in the error message.
        minimum: the smallest accepted value.

    Raises:
        ValueError: if the value is not an int or is too small.
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f'{what} must be an integer >= {minimum}, got {value!r}')


def _format_seconds(seconds: float) -> str:
    """Format a configured duration for feedback ('2.0', '0.25', '1.2').

    Args:
        seconds: the duration.

    Returns:
        The duration with at least one decimal.
    """
    if seconds == round(seconds, 1):
        return f'{seconds:.1f}'
    return f'{seconds:g}'


def _failed(child: Behaviour, role: str = '') -> str:
    """Build the feedback for a node that fails because ``child`` failed.

    Args:
        child: the failed child.
        role: an optional word describing the child ('condition', 'action', ...).

    Returns:
        A short reason, including the child's own feedback when it has some.
    """
    prefix = f'{role} ' if role else ''
    reason = f"{prefix}'{child.name}' failed"
    if child.feedback_message:
        reason += f': {child.feedback_message}'
    return reason


def _plural(count: int, noun: str) -> str:
    """Return e.g. '1 child' or '3 children' (nouns 'child' and regular nouns only).

    Args:
        count: the number of things.
        noun: the singular noun.

    Returns:
        The count followed by the noun in the right number.
    """
    if count == 1:
        return f'{count} {noun}'
    return f'{count} {"children" if noun == "child" else noun + "s"}'


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


##############################################################################
# Composites
##############################################################################


class _Composite(Composite):
    """Shared plumbing for the composites in this module.

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


class Race(_Composite):
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
                message = f'all {_plural(len(self.children), "child")} failed'
            else:
                message = 'no children'
            self._finish(Status.FAILURE, message)
        else:
            self.status = Status.RUNNING
            running = len(self.children) - len(self._failed)
            self.feedback_message = f'{running} of {len(self.children)} still racing'
        yield self


class Marathon(_Composite):
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
                f'{self._failures} of {_plural(total, "child")} failed',
            )
        else:
            self._finish(
                Status.SUCCESS,
                f'all {_plural(total, "child")} finished ({self._failures} failed)',
            )
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
                        f'all {_plural(count, "child")} failed' if count else 'no children'
                    )
                elif self.current_child is not None:
                    self.feedback_message = f"'{self.current_child.name}' is {self.status.name}"
            yield node


class _RandomOrder(_Composite):
    """Base for composites that walk their children in a new random order on each run.

    Subclasses may replace the uniform shuffle of :meth:`_draw_order`, and set
    :attr:`_advance_on` and :attr:`_running_verb` (see :meth:`_Composite._tick_in_order`);
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
                    f'got {len(values)} weights for {_plural(len(self.children), "child")}'
                )
            if values and not any(value > 0 for value in values):
                raise ValueError('weights must not all be zero')
            self.weights = tuple(values)

    def _layout_error(self) -> str | None:
        """Report weights that no longer match the children."""
        if self.weights is not None and len(self.weights) != len(self.children):
            return (
                f'{len(self.weights)} weights for {_plural(len(self.children), "child")}'
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
        return f'all {_plural(count, "child")} failed' if count else 'no children'


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
        return f'all {_plural(len(self.children), "child")} succeeded'

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the child's failure."""
        return _failed(children[index])


class _ConditionsThenActions(_Composite):
    """Base for composites whose first ``num_conditions`` children are conditions."""

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        num_conditions: int,
    ):
        """Create the composite.

        Args:
            name: the behaviour name.
            children: the conditions followed by the actions.
            num_conditions: how many of the first children are conditions.

        Raises:
            ValueError: if ``num_conditions`` is negative or exceeds the number of children.
        """
        _check_count(num_conditions, 'num_conditions', minimum=0)
        super().__init__(name, children)
        self.num_conditions = num_conditions
        self._index = 0
        self._check_given_layout(children)

    @property
    def conditions(self) -> list[Behaviour]:
        """Return the condition children."""
        return self.children[:self.num_conditions]

    @property
    def actions(self) -> list[Behaviour]:
        """Return the action children."""
        return self.children[self.num_conditions:]

    def _layout_error(self) -> str | None:
        """Report more conditions than children."""
        if self.num_conditions > len(self.children):
            return (
                f'num_conditions is {self.num_conditions} but there are only '
                f'{_plural(len(self.children), "child")}'
            )
        return None

    def _begin_run(self) -> None:
        """Start with the first child."""
        self._check_layout()
        self._index = 0

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that the actions succeeded."""
        return 'all actions succeeded'


class Monitor(_ConditionsThenActions):
    """Run actions while conditions keep holding (a parallel of conditions and a sequence).

    The first ``num_conditions`` children are conditions, the rest are actions. Every tick,
    the conditions are ticked first, in order; a condition that returns SUCCESS or RUNNING
    holds. As soon as one returns FAILURE, the monitor returns FAILURE without ticking the
    actions, and RUNNING actions (and conditions) are stopped with INVALID. While all
    conditions hold, the actions run as a sequence with memory on the same tick: RUNNING while
    the current action runs (resumed next tick), FAILURE when an action fails, SUCCESS when the
    last action succeeds (at once if there are no actions).

    Compare :class:`Filter`, which checks its conditions only at the start of a run.
    """

    def tick(self) -> Iterator[Behaviour]:
        """Check every condition, then advance the actions.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        self._check_layout()
        for condition in self.conditions:
            self.current_child = condition
            yield from condition.tick()
            if condition.status not in (Status.SUCCESS, Status.RUNNING):
                self._finish(Status.FAILURE, _failed(condition, 'condition'))
                yield self
                return
        yield from self._tick_in_order(self.actions, Status.SUCCESS, 'running')

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the failure of the action at ``index`` of the actions."""
        return _failed(children[index], 'action')


class Filter(_ConditionsThenActions):
    """Check conditions once at the start of a run, then run actions as a sequence.

    This is a sequence with memory over all children in which the first ``num_conditions``
    children are conditions: they are ticked in order at the start of a run, and if one
    returns FAILURE the filter returns FAILURE and no action runs. Once they have succeeded
    they are not ticked again in this run, and the actions run as a sequence with memory:
    RUNNING while the current action runs (resumed next tick), FAILURE when an action fails,
    SUCCESS when the last one succeeds. A condition that returns RUNNING is waited for (it is
    resumed on the next tick, like any child of a sequence with memory).

    Unlike :class:`Monitor`, a condition that becomes false while the actions run does not
    interrupt them.
    """

    def tick(self) -> Iterator[Behaviour]:
        """Resume the sequence of conditions and actions.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        yield from self._tick_in_order(self.children, Status.SUCCESS, 'running')

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the failure of the condition or action at ``index``."""
        role = 'condition' if index < self.num_conditions else 'action'
        return _failed(children[index], role)


class IfThenElse(_Composite):
    """Choose a branch by a condition evaluated once at the start of a run.

    Children: ``condition``, ``then`` and optionally ``else``. At the start of a run the
    condition is ticked (while it returns RUNNING, so does this node, and the condition is
    ticked again next tick). SUCCESS selects ``then``, FAILURE selects ``else``; the chosen
    branch is ticked on the same tick and on following ticks, without re-checking the
    condition, until it finishes; its result is the result of this node. If the condition is
    false and there is no ``else`` branch, the result is FAILURE.
    """

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
        """Create the node.

        Args:
            name: the behaviour name.
            children: ``[condition, then]`` or ``[condition, then, else]``.

        Raises:
            ValueError: if there are not 2 or 3 children.
        """
        super().__init__(name, children)
        self._branch: Behaviour | None = None
        self._check_given_layout(children)

    def _layout_error(self) -> str | None:
        """Require 2 or 3 children."""
        if len(self.children) not in (2, 3):
            return f'needs 2 or 3 children (condition, then, [else]), got {len(self.children)}'
        return None

    def _begin_run(self) -> None:
        """Forget the branch chosen in the previous run."""
        self._branch = None

    def tick(self) -> Iterator[Behaviour]:
        """Evaluate the condition if needed, then tick the chosen branch.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._check_layout()
        self._start_if_new_run()
        if self._branch is None:
            condition = self.children[0]
            self.current_child = condition
            yield from condition.tick()
            if condition.status == Status.RUNNING:
                self.status = Status.RUNNING
                self.feedback_message = f"evaluating '{condition.name}'"
                yield self
                return
            if condition.status == Status.SUCCESS:
                self._branch = self.children[1]
            elif len(self.children) == 3:
                self._branch = self.children[2]
            else:
                self._finish(
                    Status.FAILURE, f"'{condition.name}' is false and there is no else branch")
                yield self
                return
        branch = self._branch
        self.current_child = branch
        yield from branch.tick()
        which = 'then' if branch is self.children[1] else 'else'
        if branch.status == Status.RUNNING:
            self.status = Status.RUNNING
            self.feedback_message = f"running {which} branch '{branch.name}'"
        elif branch.status == Status.SUCCESS:
            self._finish(Status.SUCCESS, f"{which} branch '{branch.name}' succeeded")
        else:
            self._finish(Status.FAILURE, _failed(branch, f'{which} branch'))
        yield self


class While(_Composite):
    """Loop a body while a condition holds.

    Children: ``condition`` and ``body``. Every tick the condition is ticked first; SUCCESS or
    RUNNING means it holds. If it does not hold, a RUNNING body is stopped with INVALID and the
    loop ends: SUCCESS if the body completed (succeeded) at least once in this run, FAILURE if
    it never did (the loop did not do its job). While the condition holds, the body is ticked:
    SUCCESS completes an iteration and the loop stays RUNNING (the body restarts on the next
    tick, so there is at most one iteration per tick), RUNNING keeps the loop RUNNING, and
    FAILURE ends the loop with FAILURE.
    """

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
        """Create the loop.

        Args:
            name: the behaviour name.
            children: ``[condition, body]``.

        Raises:
            ValueError: if there are not exactly 2 children.
        """
        super().__init__(name, children)
        self.iterations = 0
        self._check_given_layout(children)

    def _layout_error(self) -> str | None:
        """Require exactly 2 children."""
        if len(self.children) != 2:
            return f'needs 2 children (condition, body), got {len(self.children)}'
        return None

    def _begin_run(self) -> None:
        """Reset the iteration count."""
        self.iterations = 0

    def tick(self) -> Iterator[Behaviour]:
        """Check the condition, then tick the body.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._check_layout()
        self._start_if_new_run()
        condition, body = self.children
        self.current_child = condition
        yield from condition.tick()
        if condition.status not in (Status.SUCCESS, Status.RUNNING):
            if self.iterations:
                self._finish(
                    Status.SUCCESS,
                    f"'{condition.name}' is false after {_plural(self.iterations, 'iteration')}")
            else:
                self._finish(
                    Status.FAILURE, f"'{condition.name}' is false before the first iteration")
            yield self
            return
        self.current_child = body
        yield from body.tick()
        if body.status == Status.SUCCESS:
            self.iterations += 1
            self.status = Status.RUNNING
            self.feedback_message = f'{_plural(self.iterations, "iteration")} done'
        elif body.status == Status.RUNNING:
            self.status = Status.RUNNING
            self.feedback_message = f'iteration {self.iterations + 1} running'
        else:
            self._finish(Status.FAILURE, _failed(body, 'body'))
        yield self


##############################################################################
# Decorators
##############################################################################


class _GatedDecorator(Decorator):
    """A decorator that may answer for its child without ticking it.

    Each tick: ``initialise()`` on a new run, then :meth:`_gate`; if it returns a status, that
    is this tick's result and the child is not ticked; otherwise the child is ticked and
    ``update()`` decides, as in ``py_trees.decorators.Decorator``. Finishing stops a RUNNING
    child with INVALID (``Decorator.stop``).
    """

    def _gate(self) -> Status | None:
        """Return a status to answer without ticking the child, or None to tick it."""
        return None

    def update(self) -> Status:
        """Pass the child's status through, explaining a failure."""
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = _failed(self.decorated)
        return self.decorated.status

    def tick(self) -> Iterator[Behaviour]:
        """Tick the child unless the gate answers.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        if self.status != Status.RUNNING:
            self.initialise()
        new_status = self._gate()
        if new_status is None:
            yield from self.decorated.tick()
            new_status = self.update()
        if new_status != Status.RUNNING:
            self.stop(new_status)
        self.status = new_status
        yield self


class _Until(Decorator):
    """Restart the child until it ends with :attr:`wanted`; shared by the two Until nodes.

    Subclasses set :attr:`wanted` (the child status that ends the loop with SUCCESS) and
    the feedback texts. With ``max_attempts``, the ``max_attempts``-th other ending in a
    run returns FAILURE. Attempts are counted per run.
    """

    wanted: Status
    #: feedback when the loop ends, when an attempt is repeated, and when giving up
    done_text: str
    again_text: str
    give_up_text: str

    def __init__(self, name: str, child: Behaviour, *, max_attempts: int | None = None):
        """Create the decorator.

        Args:
            name: the behaviour name.
            child: the behaviour to restart.
            max_attempts: the number of child runs allowed per run of this decorator
                (None: unlimited).

        Raises:
            ValueError: if ``max_attempts`` is not None or a positive integer.
        """
        _check_count(max_attempts, 'max_attempts', minimum=1)
        super().__init__(name, child)
        self.max_attempts = max_attempts
        self.attempts = 0

    def initialise(self) -> None:
        """Reset the attempt count."""
        self.attempts = 0

    def update(self) -> Status:
        """Decide from the child's status."""
        status = self.decorated.status
        if status == self.wanted:
            self.feedback_message = self.done_text.format(
                attempts=_plural(self.attempts + 1, 'attempt'))
            return Status.SUCCESS
        if status == Status.RUNNING:
            self.feedback_message = f'attempt {self.attempts + 1} running'
            return Status.RUNNING
        self.attempts += 1
        if self.max_attempts is not None and self.attempts >= self.max_attempts:
            self.feedback_message = self.give_up_text.format(
                attempts=_plural(self.attempts, 'attempt'))
            return Status.FAILURE
        self.feedback_message = self.again_text.format(attempt=self.attempts)
        return Status.RUNNING


class UntilSuccess(_Until):
    """Restart the child until it succeeds.

    SUCCESS when the child succeeds. When it fails, this decorator stays RUNNING and the child
    is started again on the next tick. With ``max_attempts``, the ``max_attempts``-th failure
    in a run returns FAILURE ('gave up after N attempts'). Attempts are counted per run.
    """

    wanted = Status.SUCCESS
    done_text = 'succeeded after {attempts}'
    again_text = 'attempt {attempt} failed, retrying'
    give_up_text = 'gave up after {attempts}'


class UntilFailure(_Until):
    """Restart the child until it fails; that failure is this decorator's SUCCESS.

    SUCCESS when the child fails. When it succeeds, this decorator stays RUNNING and the child
    is started again on the next tick. With ``max_attempts``, the ``max_attempts``-th success
    in a run returns FAILURE ('still succeeding after N attempts'). Attempts are counted per
    run.
    """

    wanted = Status.FAILURE
    done_text = 'failed after {attempts}'
    again_text = 'attempt {attempt} succeeded, repeating'
    give_up_text = 'still succeeding after {attempts}'


class Limit(_GatedDecorator):
    """Let the child start at most ``max_runs`` times over the decorator's lifetime.

    A child run starts whenever the child is ticked while not RUNNING (after it finished or
    was stopped). While the child is RUNNING it is ticked and its status passed through. Once
    it has been started ``max_runs`` times, every later tick returns FAILURE ('limit of N runs
    reached') without ticking the child. The count survives runs of this decorator; it is
    cleared only by :meth:`reset_limit` (or :func:`reset_limits` for a whole tree).
    """

    def __init__(self, name: str, child: Behaviour, *, max_runs: int):
        """Create the decorator.

        Args:
            name: the behaviour name.
            child: the limited behaviour.
            max_runs: how many times the child may be started.

        Raises:
            ValueError: if ``max_runs`` is not a non-negative integer.
        """
        _check_count(max_runs, 'max_runs', minimum=0)
        super().__init__(name, child)
        self.max_runs = max_runs
        self._runs = 0

    @property
    def runs(self) -> int:
        """How many times the child has been started since the last reset."""
        return self._runs

    def reset_limit(self) -> None:
        """Allow the child ``max_runs`` more starts."""
        self._runs = 0

    def _gate(self) -> Status | None:
        """Count a new child run, or refuse it when the limit is reached."""
        if self.decorated.status == Status.RUNNING:
            return None
        if self._runs >= self.max_runs:
            self.feedback_message = f'limit of {_plural(self.max_runs, "run")} reached'
            return Status.FAILURE
        self._runs += 1
        return None

    def update(self) -> Status:
        """Pass the child's status through."""
        run = f'run {self._runs} of {self.max_runs}'
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = f'{_failed(self.decorated)} ({run})'
        else:
            self.feedback_message = run
        return self.decorated.status


def reset_limits(root: Behaviour) -> int:
    """Reset every :class:`Limit` in the tree below (and including) ``root``.

    Args:
        root: the root of the (sub)tree.

    Returns:
        The number of Limit decorators reset.
    """
    count = 0
    for node in root.iterate():
        if isinstance(node, Limit):
            node.reset_limit()
            count += 1
    return count


class _TimedDecorator(_GatedDecorator):
    """A gated decorator that measures ``seconds`` on an injectable ``clock``.

    Subclasses set their initial timing state in :meth:`_init_timing`, which the
    constructor calls, so they need no constructor of their own.
    """

    def __init__(
        self,
        name: str,
        child: Behaviour,
        *,
        seconds: float,
        clock: Clock | None = None,
    ):
        """Create the decorator.

        Args:
            name: the behaviour name.
            child: the decorated behaviour.
            seconds: the duration (the subclass says which: delay, cooldown, time limit).
            clock: the time source in seconds (default ``time.monotonic``).

        Raises:
            ValueError: if ``seconds`` is negative or not finite.
        """
        self.seconds = _check_seconds(seconds)
        super().__init__(name, child)
        self.clock: Clock = clock if clock is not None else time.monotonic
        self._init_timing()

    def _init_timing(self) -> None:
        """Set the timing state a new decorator starts with; subclasses override this."""

    def update(self) -> Status:
        """Pass the child's status and feedback through, explaining a failure."""
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = _failed(self.decorated)
        else:
            self.feedback_message = self.decorated.feedback_message
        return self.decorated.status


class Delay(_TimedDecorator):
    """Wait ``seconds`` after the start of a run before ticking the child.

    From ``initialise()`` until ``seconds`` have passed on ``clock`` this decorator returns
    RUNNING without ticking the child; from then on (for the rest of the run) it ticks the
    child and passes its status through.
    """

    def _init_timing(self) -> None:
        """Start with no run begun: no start time, delay not passed."""
        self._start = 0.0
        self._waited = False

    def initialise(self) -> None:
        """Start the delay."""
        self._start = self.clock()
        self._waited = False

    def _gate(self) -> Status | None:
        """Answer RUNNING until the delay has passed."""
        if not self._waited:
            left = self.seconds - (self.clock() - self._start)
            if left > 0:
                self.feedback_message = f'starting in {left:.1f} s'
                return Status.RUNNING
            self._waited = True
        return None

    def wake_at(self) -> float | None:
        """Return when the delay ends while this is waiting (event-driven ticking)."""
        if self.status is Status.RUNNING and not self._waited:
            return self._start + self.seconds
        return None


class Cooldown(_TimedDecorator):
    """After the child finishes, refuse to run it again for ``seconds``.

    The child is ticked and its status passed through. When it finishes (SUCCESS or FAILURE;
    an interruption with INVALID does not count) a cooldown of ``seconds`` on ``clock``
    starts, during which this decorator returns FAILURE ('cooling down, 1.2 s left') without
    ticking the child. The cooldown outlives the run and is cleared by :meth:`reset_cooldown`.
    """

    def _init_timing(self) -> None:
        """Start without a cooldown."""
        self._ready_at: float | None = None

    def reset_cooldown(self) -> None:
        """End the current cooldown, if any."""
        self._ready_at = None

    def _gate(self) -> Status | None:
        """Answer FAILURE while cooling down."""
        if self._ready_at is not None and self.decorated.status != Status.RUNNING:
            left = self._ready_at - self.clock()
            if left > 0:
                self.feedback_message = f'cooling down, {left:.1f} s left'
                return Status.FAILURE
            self._ready_at = None
        return None

    def wake_at(self) -> float | None:
        """Return when the cooldown ends, if one is running (event-driven ticking)."""
        return self._ready_at

    def update(self) -> Status:
        """Pass the child's status through and start the cooldown when it finished."""
        status = self.decorated.status
        if status in (Status.SUCCESS, Status.FAILURE):
            self._ready_at = self.clock() + self.seconds
        if status == Status.FAILURE:
            self.feedback_message = _failed(self.decorated)
        else:
            self.feedback_message = self.decorated.feedback_message
        return status


class Timeout(_TimedDecorator):
    """Fail if the child has not finished ``seconds`` after the start of the run.

    The deadline is ``clock()`` at ``initialise()`` plus ``seconds``. Each tick, before the
    child is ticked, the deadline is checked: once ``clock()`` has reached it, a RUNNING child
    is stopped with INVALID and this decorator returns FAILURE ('timed out after N s')
    without ticking the child again. Until then the child's status is passed through.

    Unlike ``py_trees.decorators.Timeout``, time comes from ``clock`` (so the ROS clock can
    drive it) and the child is not ticked once the deadline has passed.
    """

    def _init_timing(self) -> None:
        """Start with no deadline set."""
        self._deadline = 0.0

    def initialise(self) -> None:
        """Set the deadline."""
        self._deadline = self.clock() + self.seconds

    def _gate(self) -> Status | None:
        """Answer FAILURE once the deadline has passed."""
        if self.clock() >= self._deadline:
            self.feedback_message = f'timed out after {_format_seconds(self.seconds)} s'
            return Status.FAILURE
        return None

    def wake_at(self) -> float | None:
        """Return the deadline while the child runs (event-driven ticking)."""
        return self._deadline if self.status is Status.RUNNING else None

    def update(self) -> Status:
        """Pass the child's status through, showing the time left while it runs."""
        status = self.decorated.status
        if status == Status.FAILURE:
            self.feedback_message = _failed(self.decorated)
        elif status == Status.RUNNING:
            self.feedback_message = f'{self._deadline - self.clock():.1f} s left'
        else:
            self.feedback_message = self.decorated.feedback_message
        return status


##############################################################################
# Leaves
##############################################################################


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
        self.seconds = _check_seconds(seconds)
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
        left = self.seconds - (self.clock() - self._start)
        if left > 0:
            self.feedback_message = f'{left:.1f} s left'
            return Status.RUNNING
        self.feedback_message = f'waited {_format_seconds(self.seconds)} s'
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
    """

    status: Status
    reason: str
    node_name: str


class Terminate(Behaviour):
    """Ask the tree runner to stop the whole tree, and return ``status``.

    When ticked, the leaf stores a :class:`TerminationRequest` on the root of its tree
    (attribute ``bt_termination``) unless one is already there (the first request wins), and
    returns the given status (SUCCESS or FAILURE).

    A tree runner calls :func:`termination_requested` on the root after each tick; when it
    returns a request, the runner stops ticking, calls ``root.stop(Status.INVALID)`` so that
    running behaviours are cancelled, reports ``request.status`` and ``request.reason`` as
    the tree's outcome, and calls :func:`clear_termination` before it runs the tree again.
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
                TerminationRequest(self.final_status, self.reason, self.name),
            )
        self.feedback_message = (
            f'terminating tree: {self.reason}' if self.reason else 'terminating tree')
        return self.final_status


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
