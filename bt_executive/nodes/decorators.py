# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Decorators py_trees lacks: UntilSuccess, UntilFailure, Limit, Delay, Cooldown, Timeout.

Time-based decorators read an injectable ``clock``; the conventions every behaviour of this
package follows are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import time
from typing import Iterator

from bt_executive.nodes.common import (
    check_count,
    check_seconds,
    Clock,
    failure_reason,
    format_seconds,
    plural,
    time_left,
)
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.decorators import Decorator

__all__ = [
    'Cooldown',
    'Delay',
    'Limit',
    'Timeout',
    'UntilFailure',
    'UntilSuccess',
    'reset_limits',
]


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
            self.feedback_message = failure_reason(self.decorated)
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
        check_count(max_attempts, 'max_attempts', minimum=1)
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
                attempts=plural(self.attempts + 1, 'attempt'))
            return Status.SUCCESS
        if status == Status.RUNNING:
            self.feedback_message = f'attempt {self.attempts + 1} running'
            return Status.RUNNING
        self.attempts += 1
        if self.max_attempts is not None and self.attempts >= self.max_attempts:
            self.feedback_message = self.give_up_text.format(
                attempts=plural(self.attempts, 'attempt'))
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
        check_count(max_runs, 'max_runs', minimum=0)
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
            self.feedback_message = f'limit of {plural(self.max_runs, "run")} reached'
            return Status.FAILURE
        self._runs += 1
        return None

    def update(self) -> Status:
        """Pass the child's status through."""
        run = f'run {self._runs} of {self.max_runs}'
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = f'{failure_reason(self.decorated)} ({run})'
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
        self.seconds = check_seconds(seconds)
        super().__init__(name, child)
        self.clock: Clock = clock if clock is not None else time.monotonic
        self._init_timing()

    def _init_timing(self) -> None:
        """Set the timing state a new decorator starts with; subclasses override this."""

    def update(self) -> Status:
        """Pass the child's status and feedback through, explaining a failure."""
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = failure_reason(self.decorated)
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
            left = time_left(self._start + self.seconds, self.clock())
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
            left = time_left(self._ready_at, self.clock())
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
            self.feedback_message = failure_reason(self.decorated)
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
        if time_left(self._deadline, self.clock()) == 0.0:
            self.feedback_message = f'timed out after {format_seconds(self.seconds)} s'
            return Status.FAILURE
        return None

    def wake_at(self) -> float | None:
        """Return the deadline while the child runs (event-driven ticking)."""
        return self._deadline if self.status is Status.RUNNING else None

    def update(self) -> Status:
        """Pass the child's status through, showing the time left while it runs."""
        status = self.decorated.status
        if status == Status.FAILURE:
            self.feedback_message = failure_reason(self.decorated)
        elif status == Status.RUNNING:
            self.feedback_message = f'{self._deadline - self.clock():.1f} s left'
        else:
            self.feedback_message = self.decorated.feedback_message
        return status
