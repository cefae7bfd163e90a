# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Decorators that decide whether, when and how often their child runs.

Repeat, Retry, UntilSuccess, UntilFailure, Limit and OneShot run the child again or refuse
to; Timeout, Delay and Cooldown gate it by time, read from an injectable ``clock`` (the ROS
layer passes the ROS clock). ``Repeat``, ``Retry`` and ``OneShot`` are py_trees' own with a
reason added to a FAILURE; the others are ours. Each class declares its node type
(``declaration``) and builds it from the parameters (``build``). The decorators that only
map their child's status are in :mod:`~bt_executive.nodes.status_decorators`; the
conventions every behaviour of this package follows are described in
:mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import time
from typing import Any, Iterator, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.support import (
    check_count,
    check_seconds,
    Clock,
    failure_reason,
    format_seconds,
    plural,
    SECONDS,
    time_left,
)
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from py_trees.decorators import Decorator

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'Cooldown',
    'Delay',
    'Limit',
    'OneShot',
    'Repeat',
    'Retry',
    'Timeout',
    'UntilFailure',
    'UntilSuccess',
    'reset_limits',
]


class Repeat(py_trees.decorators.Repeat):
    """``py_trees.decorators.Repeat``; FAILURE gives the child's reason and the count.

    The child must succeed ``num_success`` times (one run per tick; each success but the
    last returns RUNNING); a failure aborts with FAILURE.
    """

    declaration = NodeType(
        name='Repeat',
        category=Category.DECORATOR,
        doc=('Runs the child until it has succeeded `times` times in this run, at most one '
             'run per tick: RUNNING meanwhile, SUCCESS at the `times`-th success, FAILURE as '
             'soon as the child fails.'),
        params=(
            Param('times', ParamType.INT, 'successful runs needed', minimum=1),
        ),
        min_children=1,
        max_children=1,
        primary='times',
        btcpp='Repeat',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with ``times`` successes to reach."""
        return cls(name=name, child=children[0], num_success=params['times'])

    def update(self) -> Status:
        """Count successes as py_trees does; explain a FAILURE."""
        status = super().update()
        if status is Status.FAILURE:
            self.feedback_message = (f'{failure_reason(self.decorated)} (after '
                                     f'{self.success} of {self.num_success} successes)')
        return status


class Retry(py_trees.decorators.Retry):
    """``py_trees.decorators.Retry``; FAILURE gives the last attempt's reason.

    FAILURE on the ``num_failures``-th failure: ``num_failures`` is the total number of
    attempts, not the number of retries.
    """

    declaration = NodeType(
        name='Retry',
        category=Category.DECORATOR,
        doc=('Runs the child up to `attempts` times in all: SUCCESS as soon as it succeeds; '
             'after a failure with attempts left RUNNING (the next attempt starts on the '
             "next tick); FAILURE at the `attempts`-th failure, with the last attempt's "
             'reason.'),
        params=(
            Param('attempts', ParamType.INT, 'runs allowed before FAILURE', minimum=1),
        ),
        min_children=1,
        max_children=1,
        primary='attempts',
        btcpp='RetryUntilSuccessful',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with ``attempts`` runs allowed."""
        return cls(name=name, child=children[0], num_failures=params['attempts'])

    def update(self) -> Status:
        """Count failures as py_trees does; explain the giving up."""
        status = super().update()
        if status is Status.FAILURE:
            self.feedback_message = (f'{failure_reason(self.decorated)} (attempt '
                                     f'{self.failures} of {self.num_failures})')
        return status


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

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with the ``max_attempts`` parameter."""
        return cls(name, children[0], max_attempts=params.get('max_attempts'))

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

    declaration = NodeType(
        name='UntilSuccess',
        category=Category.DECORATOR,
        doc=('Restarts the child until it succeeds: RUNNING while it runs and after each '
             'failure (it starts again on the next tick), SUCCESS when it succeeds. With '
             "max_attempts, FAILURE at the max_attempts-th failure ('gave up after N "
             "attempts')."),
        params=(
            Param('max_attempts', ParamType.INT, 'give up with FAILURE after this many failures',
                  default=None, minimum=1),
        ),
        min_children=1,
        max_children=1,
    )

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

    declaration = NodeType(
        name='UntilFailure',
        category=Category.DECORATOR,
        doc=('Restarts the child until it fails, then SUCCESS: RUNNING while it runs and '
             "after each success (the seeds' RepeatUntilFailed / UntilFail). With "
             "max_attempts, FAILURE at the max_attempts-th success ('still succeeding after "
             "N attempts')."),
        params=(
            Param('max_attempts', ParamType.INT,
                  'give up with FAILURE after this many successes', default=None, minimum=1),
        ),
        min_children=1,
        max_children=1,
        aliases=('UntilFail', 'RepeatUntilFailure'),
    )

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

    declaration = NodeType(
        name='Limit',
        category=Category.DECORATOR,
        doc=("Passes the child's status through, but the child may start at most max_runs "
             "times over the tree's life (the seeds' Counter/Limit; `~/reset` clears the "
             "count): after that FAILURE ('limit of N runs reached') without ticking it."),
        params=(
            Param('max_runs', ParamType.INT, 'how many runs are allowed', minimum=1),
        ),
        min_children=1,
        max_children=1,
        primary='max_runs',
    )

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

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with ``max_runs`` runs allowed."""
        return cls(name, children[0], max_runs=params['max_runs'])

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

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with ``seconds`` on the clock of the build context."""
        return cls(name, children[0], seconds=params['seconds'], clock=ctx.clock)

    def update(self) -> Status:
        """Pass the child's status and feedback through, explaining a failure."""
        if self.decorated.status == Status.FAILURE:
            self.feedback_message = failure_reason(self.decorated)
        else:
            self.feedback_message = self.decorated.feedback_message
        return self.decorated.status


class Timeout(_TimedDecorator):
    """Fail if the child has not finished ``seconds`` after the start of the run.

    The deadline is ``clock()`` at ``initialise()`` plus ``seconds``. Each tick, before the
    child is ticked, the deadline is checked: once ``clock()`` has reached it, a RUNNING child
    is stopped with INVALID and this decorator returns FAILURE ('timed out after N s')
    without ticking the child again. Until then the child's status is passed through.

    Unlike ``py_trees.decorators.Timeout``, time comes from ``clock`` (so the ROS clock can
    drive it) and the child is not ticked once the deadline has passed.
    """

    declaration = NodeType(
        name='Timeout',
        category=Category.DECORATOR,
        doc=("Passes the child's status through until `seconds` after the start of the run "
             "(the seeds' TimeLimit); from then on the running child is halted and the "
             "result is FAILURE ('timed out after N s') without ticking it."),
        params=(SECONDS,),
        min_children=1,
        max_children=1,
        primary='seconds',
        aliases=('TimeLimit',),
        btcpp='Timeout',
    )

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


class Delay(_TimedDecorator):
    """Wait ``seconds`` after the start of a run before ticking the child.

    From ``initialise()`` until ``seconds`` have passed on ``clock`` this decorator returns
    RUNNING without ticking the child; from then on (for the rest of the run) it ticks the
    child and passes its status through.
    """

    declaration = NodeType(
        name='Delay',
        category=Category.DECORATOR,
        doc=('RUNNING without ticking the child for `seconds` after the start of a run (the '
             "seeds' Timer), then ticks the child and passes its status through."),
        params=(SECONDS,),
        min_children=1,
        max_children=1,
        primary='seconds',
        btcpp='Delay',
    )

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

    declaration = NodeType(
        name='Cooldown',
        category=Category.DECORATOR,
        doc=("Passes the child's status through. After the child finished (SUCCESS or "
             'FAILURE; a halt does not count), FAILURE for `seconds` without ticking it '
             "('cooling down, N s left')."),
        params=(SECONDS,),
        min_children=1,
        max_children=1,
        primary='seconds',
    )

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


class OneShot(py_trees.decorators.OneShot):
    """``py_trees.decorators.OneShot``; the kept result says what the one run did."""

    declaration = NodeType(
        name='OneShot',
        category=Category.DECORATOR,
        doc=('Runs the child to completion once and then keeps returning that result without '
             'ticking it again (on: completion). With on: success only a SUCCESS is kept: a '
             'FAILURE is returned and the child runs again the next time.'),
        params=(
            Param('on', ParamType.ENUM, 'completion: any result sticks; success: failures re-run',
                  default='completion', choices=('completion', 'success')),
        ),
        min_children=1,
        max_children=1,
    )

    def __init__(self, name: str, child: Behaviour, policy: Any) -> None:
        """Create the decorator (arguments as for py_trees' OneShot)."""
        super().__init__(name=name, child=child, policy=policy)
        self._result = ''

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the decorator with the policy the ``on`` parameter chooses."""
        policy = (py_trees.common.OneShotPolicy.ON_COMPLETION if params['on'] == 'completion'
                  else py_trees.common.OneShotPolicy.ON_SUCCESSFUL_COMPLETION)
        return cls(name=name, child=children[0], policy=policy)

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
