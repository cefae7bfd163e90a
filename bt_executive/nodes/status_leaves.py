# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Leaves whose status is scripted: always the same, by tick count, or after a wait.

Success, Failure, Running and SuccessEveryN are py_trees' own, declared by thin
subclasses; TickCounter and Periodic are py_trees' with feedback (and, for Periodic, every
phase exactly ``n`` ticks); Wait is ours (py_trees' ``timers.Timer`` reads ``time.time``,
Wait an injectable clock, so that the ROS layer drives it from the ROS clock). Each class
declares its node type (``declaration``). The conventions every behaviour of this package
follows are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.support import (
    check_seconds,
    Clock,
    format_seconds,
    plural,
    SECONDS,
    STATUSES,
    time_left,
)
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'Failure',
    'Periodic',
    'Running',
    'Success',
    'SuccessEveryN',
    'TickCounter',
    'Wait',
]


class Success(py_trees.behaviours.Success):
    """``py_trees.behaviours.Success``, as it is."""

    declaration = NodeType(
        name='Success',
        category=Category.LEAF,
        doc='Always SUCCESS.',
        aliases=('AlwaysSuccess',),
        btcpp='AlwaysSuccess',
    )


class Failure(py_trees.behaviours.Failure):
    """``py_trees.behaviours.Failure``, as it is (its reason is 'failure')."""

    declaration = NodeType(
        name='Failure',
        category=Category.LEAF,
        doc="Always FAILURE (reason 'failure').",
        aliases=('AlwaysFailure',),
        btcpp='AlwaysFailure',
    )


class Running(py_trees.behaviours.Running):
    """``py_trees.behaviours.Running``, as it is."""

    declaration = NodeType(
        name='Running',
        category=Category.LEAF,
        doc='Always RUNNING.',
    )


class Wait(Behaviour):
    """RUNNING until ``seconds`` have passed on ``clock`` since ``initialise()``, then SUCCESS.

    The feedback message shows the time left. Unlike ``py_trees.timers.Timer`` (which reads
    ``time.time``), the clock is injectable, and the wait succeeds on the first tick at or
    after the end time (``seconds=0`` succeeds on the first tick).
    """

    declaration = NodeType(
        name='Wait',
        category=Category.LEAF,
        doc=("RUNNING ('N s left') until `seconds` have passed on the node clock since the "
             'start of the run, then SUCCESS (`seconds: 0`: SUCCESS on the first tick). '
             'Never FAILURE.'),
        params=(SECONDS,),
        primary='seconds',
        aliases=('Sleep',),
        btcpp='Sleep',
    )

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

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the wait on the clock of the build context."""
        return cls(name, seconds=params['seconds'], clock=ctx.clock)

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


class TickCounter(py_trees.behaviours.TickCounter):
    """``py_trees.behaviours.TickCounter`` with feedback: the count, then the outcome."""

    declaration = NodeType(
        name='TickCounter',
        category=Category.LEAF,
        doc=('RUNNING for `ticks` ticks, then the `then` status on the next tick; the count '
             'restarts with each run.'),
        params=(
            Param('ticks', ParamType.INT, 'ticks to run', minimum=0),
            Param('then', ParamType.ENUM, 'final status', default='success',
                  choices=('success', 'failure')),
        ),
        primary='ticks',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the counter with its tick count and final status."""
        return cls(name=name, duration=params['ticks'],
                   completion_status=STATUSES[params['then']])

    def update(self) -> Status:
        """Count the tick as py_trees does and say where the count is."""
        status = super().update()
        if status is Status.RUNNING:
            self.feedback_message = f'tick {self.counter} of {self.duration}'
        else:
            self.feedback_message = (f'{status.name} after '
                                     f'{plural(self.duration, "running tick")}')
        return status


class SuccessEveryN(py_trees.behaviours.SuccessEveryN):
    """``py_trees.behaviours.SuccessEveryN``, as it is (its reason is 'not yet')."""

    declaration = NodeType(
        name='SuccessEveryN',
        category=Category.LEAF,
        doc=("SUCCESS on every n-th tick (counted over the node's life), FAILURE ('not yet') "
             'on the others.'),
        params=(
            Param('n', ParamType.INT, 'period in ticks', minimum=1),
        ),
        primary='n',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf with its period."""
        return cls(name=name, n=params['n'])


class Periodic(py_trees.behaviours.Periodic):
    """Cycle RUNNING, SUCCESS, FAILURE for exactly ``n`` ticks each, over its whole life.

    py_trees' Periodic gives the first phase ``n`` ticks and later ones ``n + 1``; this one
    gives every phase ``n``. The count is not reset by a new run.
    """

    declaration = NodeType(
        name='Periodic',
        category=Category.LEAF,
        doc=("Cycles RUNNING, SUCCESS, FAILURE, exactly n ticks each, over the node's life "
             '(a new run does not restart the cycle).'),
        params=(
            Param('n', ParamType.INT, 'ticks per status', minimum=1),
        ),
        primary='n',
    )

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf with its phase length."""
        return cls(name=name, n=params['n'])

    _CYCLE = (Status.RUNNING, Status.SUCCESS, Status.FAILURE)

    def update(self) -> Status:
        """Return the status of the phase this tick falls in, saying where it is."""
        phase, tick = divmod(self.count, self.period)
        self.count += 1
        status = self._CYCLE[phase % 3]
        self.feedback_message = (f'{status.name}, tick {tick + 1} of {self.period} '
                                 '(cycle RUNNING, SUCCESS, FAILURE)')
        return status
