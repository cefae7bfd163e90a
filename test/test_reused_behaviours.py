# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of the py_trees composites and decorators bt_executive reuses."""

from __future__ import annotations

from typing import Callable

from behaviour_helpers import assert_aborted, F, LEAF, leaves, Probe, queue, R, S, tick, trace
from py_trees.behaviour import Behaviour
from py_trees.common import OneShotPolicy, ParallelPolicy, Status
from py_trees.composites import Parallel, Selector, Sequence
from py_trees.decorators import (
    EternalGuard,
    FailureIsSuccess,
    Inverter,
    OneShot,
    Repeat,
    Retry,
    SuccessIsFailure,
)
import pytest


##############################################################################
# Reused py_trees composites
##############################################################################


@pytest.mark.parametrize('make, children, expected', [
    (lambda c: Sequence('seq', memory=True, children=c), (S, S), S),
    (lambda c: Sequence('seq', memory=True, children=c), (S, F), F),
    (lambda c: Sequence('seq', memory=True, children=c), (S, R), R),
    (lambda c: Sequence('seq', memory=False, children=c), (F, R), F),
    (lambda c: Selector('sel', memory=True, children=c), (F, S), S),
    (lambda c: Selector('sel', memory=True, children=c), (F, F), F),
    (lambda c: Selector('sel', memory=False, children=c), (F, R), R),
    (lambda c: Selector('sel', memory=False, children=c), (S, R), S),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnAll(), children=c), (S, S), S),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnAll(), children=c), (S, R), R),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnAll(), children=c), (R, F), F),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnOne(), children=c), (R, S), S),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnOne(), children=c), (R, R), R),
    # gotcha: SuccessOnOne still fails as soon as any child fails, even next to a success
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnOne(), children=c), (S, F), F),
])
def test_py_trees_composite_one_tick(
    make: Callable[[list[Behaviour]], Behaviour],
    children: tuple[Status, ...],
    expected: Status,
) -> None:
    assert tick(make(leaves(*children))) == expected


@pytest.mark.parametrize('memory, second_tick_ticks_first', [(True, False), (False, True)])
def test_py_trees_sequence_memory(memory: bool, second_tick_ticks_first: bool) -> None:
    first = Probe('first', S)
    second = Probe('second', R)
    seq = Sequence('seq', memory=memory, children=[first, second])
    assert trace(seq, 2) == [R, R]
    assert first.updates == (2 if second_tick_ticks_first else 1)
    assert second.initialised == 1


def test_py_trees_sequence_without_memory_aborts_later_child() -> None:
    guard = queue('guard', S, R, eventually=R)
    work = Probe('work', R)
    seq = Sequence('seq', memory=False, children=[guard, work])
    assert tick(seq) == R and work.status == R
    assert tick(seq) == R
    assert_aborted(work)


def test_py_trees_selector_without_memory_aborts_lower_priority() -> None:
    high = Probe('high', F)
    low = Probe('low', R)
    sel = Selector('sel', memory=False, children=[high, low])
    assert tick(sel) == R and low.status == R
    high.result = R
    assert tick(sel) == R
    assert_aborted(low)
    assert sel.current_child is high


def test_py_trees_selector_without_memory_keeps_running_child_when_higher_fails() -> None:
    high = Probe('high', F)
    low = Probe('low', R)
    sel = Selector('sel', memory=False, children=[high, low])
    assert trace(sel, 3) == [R, R, R]
    assert high.updates == 3
    assert low.initialised == 1 and low.terminated == []


def test_py_trees_selector_with_memory_skips_higher_priority() -> None:
    high = Probe('high', F)
    low = Probe('low', R)
    sel = Selector('sel', memory=True, children=[high, low])
    assert tick(sel) == R
    high.result = S
    assert tick(sel) == R
    assert high.updates == 1 and low.status == R


def test_py_trees_parallel_success_on_one_stops_running_siblings() -> None:
    slow = Probe('slow', R)
    par = Parallel('par', ParallelPolicy.SuccessOnOne(), children=[slow, queue('q', R, S)])
    assert trace(par, 2) == [R, S]
    assert_aborted(slow)


def test_py_trees_parallel_failure_stops_running_siblings() -> None:
    slow = Probe('slow', R)
    par = Parallel('par', ParallelPolicy.SuccessOnAll(), children=[slow, queue('q', R, F)])
    assert trace(par, 2) == [R, F]
    assert_aborted(slow)


@pytest.mark.parametrize('synchronise, updates', [(True, 1), (False, 3)])
def test_py_trees_parallel_synchronise(synchronise: bool, updates: int) -> None:
    fast = Probe('fast', S)
    par = Parallel(
        'par', ParallelPolicy.SuccessOnAll(synchronise=synchronise),
        children=[fast, queue('q', R, R, S)])
    assert trace(par, 3) == [R, R, S]
    assert fast.updates == updates

##############################################################################
# Reused py_trees decorators
##############################################################################


@pytest.mark.parametrize('decorator, child, expected', [
    (Inverter, S, F),
    (Inverter, F, S),
    (Inverter, R, R),
    (SuccessIsFailure, S, F),
    (SuccessIsFailure, F, F),
    (SuccessIsFailure, R, R),
    (FailureIsSuccess, F, S),
    (FailureIsSuccess, S, S),
    (FailureIsSuccess, R, R),
])
def test_py_trees_status_decorators(
    decorator: Callable[..., Behaviour], child: Status, expected: Status,
) -> None:
    assert tick(decorator(name='d', child=LEAF[child]('c'))) == expected


@pytest.mark.parametrize('decorate, statuses, expected', [
    (lambda c: Repeat('repeat', child=c, num_success=3), (S,), [R, R, S]),
    (lambda c: Repeat('repeat', child=c, num_success=3), (S, F), [R, F]),
    (lambda c: Repeat('repeat', child=c, num_success=2), (R, S, R, S), [R, R, R, S]),
    # num_failures is the number of attempts: the third failure fails
    (lambda c: Retry('retry', child=c, num_failures=3), (F,), [R, R, F]),
    (lambda c: Retry('retry', child=c, num_failures=3), (F, S), [R, S]),
    (lambda c: Retry('retry', child=c, num_failures=2), (R, F, R, S), [R, R, R, S]),
])
def test_py_trees_repeat_and_retry(
    decorate: Callable[[Behaviour], Behaviour],
    statuses: tuple[Status, ...],
    expected: list[Status],
) -> None:
    node = decorate(queue('q', *statuses, eventually=statuses[-1]))
    assert trace(node, len(expected)) == expected


def test_py_trees_repeat_restarts_child_after_each_success() -> None:
    probe = Probe('p', S)
    node = Repeat('repeat', child=probe, num_success=3)
    assert trace(node, 3) == [R, R, S]
    assert probe.initialised == 3


def test_py_trees_eternal_guard_aborts_child() -> None:
    allowed = [True]
    probe = Probe('p', R)
    guard = EternalGuard('guard', child=probe, condition=lambda: allowed[0])
    assert tick(guard) == R
    allowed[0] = False
    assert tick(guard) == F
    assert_aborted(probe)
    # gotcha: EternalGuard explains nothing
    assert guard.feedback_message == ''


@pytest.mark.parametrize('policy, statuses, expected, child_ticks', [
    (OneShotPolicy.ON_COMPLETION, (R, F, S), [R, F, F, F], 2),
    (OneShotPolicy.ON_SUCCESSFUL_COMPLETION, (F, S, F), [F, S, S, S], 2),
])
def test_py_trees_oneshot(
    policy: OneShotPolicy, statuses: tuple[Status, ...], expected: list[Status],
    child_ticks: int,
) -> None:
    child = queue('q', *statuses, eventually=statuses[-1])
    ticks = []
    original = child.update

    def counted() -> Status:
        ticks.append(1)
        return original()

    child.update = counted  # type: ignore[method-assign]
    node = OneShot('oneshot', child=child, policy=policy)
    assert trace(node, len(expected)) == expected
    assert len(ticks) == child_ticks
