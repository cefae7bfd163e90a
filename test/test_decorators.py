# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of bt_executive.nodes.decorators (time-based ones on a fake clock)."""

from __future__ import annotations

from typing import Callable

from behaviour_helpers import (
    assert_aborted,
    F,
    FakeClock,
    INVALID,
    Probe,
    queue,
    R,
    S,
    tick,
    trace,
)
from bt_executive.nodes.composites import Marathon
from bt_executive.nodes.decorators import (
    Cooldown,
    Delay,
    Limit,
    reset_limits,
    Timeout,
    UntilFailure,
    UntilSuccess,
)
from bt_executive.nodes.status_leaves import Wait
from py_trees.behaviour import Behaviour
from py_trees.behaviours import Failure, Success
from py_trees.common import Status
import pytest


##############################################################################
# UntilSuccess / UntilFailure
##############################################################################


@pytest.mark.parametrize('decorator, statuses, max_attempts, expected, feedback', [
    (UntilSuccess, (F, F, S), None, [R, R, S], 'succeeded after 3 attempts'),
    (UntilSuccess, (R, F, R, S), None, [R, R, R, S], 'succeeded after 2 attempts'),
    (UntilSuccess, (F,), 2, [R, F], 'gave up after 2 attempts'),
    (UntilFailure, (S, S, F), None, [R, R, S], 'failed after 3 attempts'),
    (UntilFailure, (S,), 3, [R, R, F], 'still succeeding after 3 attempts'),
])
def test_until_table(
    decorator: Callable[..., Behaviour],
    statuses: tuple[Status, ...],
    max_attempts: int | None,
    expected: list[Status],
    feedback: str,
) -> None:
    node = decorator('u', queue('q', *statuses, eventually=statuses[-1]),
                     max_attempts=max_attempts)
    assert trace(node, len(expected)) == expected
    assert node.feedback_message == feedback


def test_until_success_restarts_child_and_resets_per_run() -> None:
    probe = Probe('p', F)
    node = UntilSuccess('u', probe, max_attempts=2)
    assert trace(node, 2) == [R, F]
    assert probe.initialised == 2
    assert trace(node, 2) == [R, F]  # a new run gets new attempts


@pytest.mark.parametrize('max_attempts', [0, -1, 1.5])
def test_until_rejects_bad_max_attempts(max_attempts: int) -> None:
    with pytest.raises(ValueError):
        UntilSuccess('u', Success(name='s'), max_attempts=max_attempts)

##############################################################################
# Limit
##############################################################################


def test_limit_blocks_after_max_runs() -> None:
    probe = Probe('p', S)
    node = Limit('l', probe, max_runs=2)
    assert trace(node, 3) == [S, S, F]
    assert node.feedback_message == 'limit of 2 runs reached'
    assert probe.updates == 2
    node.reset_limit()
    assert tick(node) == S


def test_limit_counts_starts_not_ticks() -> None:
    node = Limit('l', queue('q', R, R, S, eventually=S), max_runs=1)
    assert trace(node, 4) == [R, R, S, F]
    assert node.runs == 1


def test_limit_interrupted_run_counts_and_child_is_aborted() -> None:
    probe = Probe('p', R)
    node = Limit('l', probe, max_runs=1)
    tick(node)
    node.stop(INVALID)
    assert_aborted(probe)
    assert tick(node) == F
    assert node.feedback_message == 'limit of 1 run reached'


def test_limit_passes_failure_through_and_reset_limits_walks_the_tree() -> None:
    limits = [
        Limit('l1', Failure(name='f'), max_runs=1),
        Limit('l2', Success(name='s'), max_runs=1),
    ]
    root = Marathon('root', children=limits)
    assert tick(root) == S
    assert limits[0].status == F
    assert limits[0].feedback_message == "'f' failed: failure (run 1 of 1)"
    assert tick(root) == S
    assert [limit.status for limit in limits] == [F, F]
    assert reset_limits(root) == 2
    assert tick(root) == S
    assert limits[1].status == S


def test_limit_zero_runs_never_ticks_child() -> None:
    probe = Probe('p', S)
    assert tick(Limit('l', probe, max_runs=0)) == F
    assert probe.updates == 0

##############################################################################
# Delay / Cooldown / Timeout / Wait (fake clock)
##############################################################################


def test_delay_waits_then_passes_through() -> None:
    clock = FakeClock(10.0)
    probe = Probe('p', R)
    node = Delay('d', probe, seconds=2.0, clock=clock)
    assert tick(node) == R
    clock.now = 11.5
    assert tick(node) == R
    assert node.feedback_message == 'starting in 0.5 s'
    assert probe.updates == 0
    clock.now = 12.0
    assert tick(node) == R
    assert probe.updates == 1
    clock.now = 5.0  # the delay is over for this run even if the clock jumps back
    probe.result = F
    assert tick(node) == F
    assert node.feedback_message == "'p' failed"


def test_delay_restarts_on_new_run_and_stop_aborts_child() -> None:
    clock = FakeClock()
    probe = Probe('p', S)
    node = Delay('d', probe, seconds=1.0, clock=clock)
    clock.now = 1.0
    assert tick(node) == R  # the delay starts at the first tick
    clock.now = 2.0
    assert tick(node) == S
    assert tick(node) == R  # new run, new delay
    probe.result = R
    clock.now = 3.0
    assert tick(node) == R and probe.status == R
    node.stop(INVALID)
    assert_aborted(probe)


def test_cooldown_refuses_while_cooling() -> None:
    clock = FakeClock()
    probe = Probe('p', S)
    node = Cooldown('c', probe, seconds=5.0, clock=clock)
    assert tick(node) == S
    clock.now = 3.8
    assert tick(node) == F
    assert node.feedback_message == 'cooling down, 1.2 s left'
    assert probe.updates == 1
    clock.now = 5.0
    probe.result = F
    assert tick(node) == F
    assert node.feedback_message == "'p' failed"
    assert probe.updates == 2
    clock.now = 6.0
    assert tick(node) == F  # a failure starts a cooldown too
    assert node.feedback_message == 'cooling down, 4.0 s left'
    node.reset_cooldown()
    probe.result = R
    assert tick(node) == R


def test_cooldown_interruption_does_not_start_cooldown() -> None:
    clock = FakeClock()
    probe = Probe('p', R)
    node = Cooldown('c', probe, seconds=5.0, clock=clock)
    assert tick(node) == R
    node.stop(INVALID)
    assert_aborted(probe)
    probe.result = S
    assert tick(node) == S


def test_timeout_fails_and_aborts_child() -> None:
    clock = FakeClock(100.0)
    probe = Probe('p', R)
    node = Timeout('t', probe, seconds=2.0, clock=clock)
    assert tick(node) == R
    clock.now = 101.9
    assert tick(node) == R
    assert node.feedback_message == '0.1 s left'
    clock.now = 102.0
    assert tick(node) == F
    assert node.feedback_message == 'timed out after 2.0 s'
    assert probe.updates == 2  # not ticked after the deadline
    assert_aborted(probe)


def test_timeout_passes_results_and_restarts() -> None:
    clock = FakeClock()
    node = Timeout('t', queue('q', R, S, R, F), seconds=1.0, clock=clock)
    assert tick(node) == R
    clock.now = 0.5
    assert tick(node) == S
    clock.now = 10.0
    assert tick(node) == R  # new run, new deadline
    assert tick(node) == F
    assert node.feedback_message == "'q' failed"


def test_wait_counts_down() -> None:
    clock = FakeClock()
    node = Wait('w', seconds=2.0, clock=clock)
    assert tick(node) == R
    assert node.feedback_message == '2.0 s left'
    clock.now = 1.5
    assert tick(node) == R
    assert node.feedback_message == '0.5 s left'
    clock.now = 2.0
    assert tick(node) == S
    assert node.feedback_message == 'waited 2.0 s'
    assert tick(node) == R  # a new run waits again


def test_wait_with_default_clock() -> None:
    assert tick(Wait('w', seconds=0)) == S
    assert tick(Wait('w', seconds=60)) == R


@pytest.mark.parametrize('make', [
    lambda s: Wait('w', seconds=s),
    lambda s: Delay('d', Success(name='s'), seconds=s),
    lambda s: Cooldown('c', Success(name='s'), seconds=s),
    lambda s: Timeout('t', Success(name='s'), seconds=s),
])
@pytest.mark.parametrize('seconds', [-1.0, float('inf'), float('nan')])
def test_time_behaviours_reject_bad_seconds(
    make: Callable[[float], Behaviour], seconds: float,
) -> None:
    with pytest.raises(ValueError):
        make(seconds)
