# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of bt_executive.nodes behaviours and of the py_trees nodes we reuse."""

from __future__ import annotations

import logging
from typing import Callable

from bt_executive.nodes.composites import (
    ActiveSelector,
    Marathon,
    Race,
    RandomSelector,
    RandomSequence,
)
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
from bt_executive.nodes.decorators import (
    Cooldown,
    Delay,
    Limit,
    reset_limits,
    Timeout,
    UntilFailure,
    UntilSuccess,
)
from bt_executive.nodes.leaves import (
    clear_termination,
    Condition,
    Log,
    LOGGER_NAME,
    Terminate,
    termination_requested,
    TerminationRequest,
    Wait,
)
from py_trees.behaviour import Behaviour
from py_trees.behaviours import Failure, Running, StatusQueue, Success
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

S = Status.SUCCESS
F = Status.FAILURE
R = Status.RUNNING
INVALID = Status.INVALID


##############################################################################
# Helpers
##############################################################################


class Probe(Behaviour):
    """A leaf returning ``result`` (settable between ticks) that records its lifecycle."""

    def __init__(self, name: str = 'probe', result: Status = R):
        """Create the probe.

        Args:
            name: the behaviour name.
            result: what ``update()`` returns until changed.
        """
        super().__init__(name)
        self.result = result
        self.initialised = 0
        self.updates = 0
        self.terminated: list[Status] = []

    def initialise(self) -> None:
        """Count the start of a run."""
        self.initialised += 1

    def update(self) -> Status:
        """Return the configured result."""
        self.updates += 1
        return self.result

    def terminate(self, new_status: Status) -> None:
        """Record the status the probe is stopped with."""
        self.terminated.append(new_status)


class FakeClock:
    """A settable time source."""

    def __init__(self, now: float = 0.0):
        """Start at ``now`` seconds.

        Args:
            now: the initial time.
        """
        self.now = now

    def __call__(self) -> float:
        """Return the current fake time."""
        return self.now


def queue(name: str, *statuses: Status, eventually: Status | None = None) -> StatusQueue:
    """Build a StatusQueue that returns ``statuses`` and then ``eventually``."""
    return StatusQueue(name=name, queue=list(statuses), eventually=eventually)


def tick(node: Behaviour, times: int = 1) -> Status:
    """Tick ``node`` ``times`` times and return its status."""
    for _ in range(times):
        node.tick_once()
    return node.status


def trace(node: Behaviour, ticks: int) -> list[Status]:
    """Tick ``node`` ``ticks`` times and return the status after each tick."""
    return [tick(node) for _ in range(ticks)]


def assert_aborted(probe: Probe) -> None:
    """Assert that a probe was stopped with INVALID (as an abandoned RUNNING child is)."""
    assert probe.status == INVALID
    assert probe.terminated and probe.terminated[-1] == INVALID


LEAF: dict[Status, Callable[[str], Behaviour]] = {
    S: lambda name: Success(name=name),
    F: lambda name: Failure(name=name),
    R: lambda name: Running(name=name),
}


def leaves(*statuses: Status) -> list[Behaviour]:
    """Build constant leaves named a, b, c, ... returning ``statuses``."""
    return [LEAF[status]('abcdefgh'[i]) for i, status in enumerate(statuses)]


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


##############################################################################
# Race
##############################################################################


def test_race_first_success_wins_and_aborts_the_others() -> None:
    first = Probe('first', R)
    last = Probe('last', R)
    race = Race('race', children=[first, queue('winner', R, S), last])
    assert tick(race) == R
    assert tick(race) == S
    assert race.feedback_message == "'winner' won"
    assert race.current_child is race.children[1]
    assert_aborted(first)
    assert_aborted(last)
    assert last.updates == 1  # not ticked on the winning tick


def test_race_fails_only_when_all_children_failed() -> None:
    early = Probe('early', F)
    late = Probe('late', R)
    race = Race('race', children=[early, late, queue('q', R, R, F)])
    assert trace(race, 2) == [R, R]
    assert early.updates == 1  # a failed child is out of the race
    assert race.feedback_message == '2 of 3 still racing'
    late.result = F
    assert tick(race) == F
    assert race.feedback_message == 'all 3 children failed'


def test_race_restarts_all_children_on_a_new_run() -> None:
    loser = Probe('loser', F)
    race = Race('race', children=[loser, Success(name='s')])
    assert tick(race) == S
    loser.result = S
    assert tick(race) == S
    assert race.feedback_message == "'loser' won"
    assert loser.initialised == 2


##############################################################################
# Marathon
##############################################################################


def test_marathon_waits_for_every_child() -> None:
    failing = Probe('failing', F)
    slow = Probe('slow', R)
    marathon = Marathon('m', children=[failing, queue('q', R, S), slow])
    assert trace(marathon, 2) == [R, R]
    assert failing.updates == 1  # a finished child is not ticked again
    assert marathon.feedback_message == '2 of 3 finished'
    slow.result = S
    assert tick(marathon) == S
    assert marathon.feedback_message == 'all 3 children finished (1 failed)'


def test_marathon_require_success_reports_failures() -> None:
    marathon = Marathon(
        'm', children=leaves(F, S, F), require_success=True)
    assert tick(marathon) == F
    assert marathon.feedback_message == '2 of 3 children failed'


def test_marathon_require_success_succeeds_when_all_succeed() -> None:
    marathon = Marathon('m', children=[queue('q', R, S), Success(name='s')],
                        require_success=True)
    assert trace(marathon, 2) == [R, S]


def test_marathon_restart_and_stop() -> None:
    probe = Probe('p', S)
    marathon = Marathon('m', children=[probe])
    assert tick(marathon) == S
    probe.result = R
    assert tick(marathon) == R
    assert probe.initialised == 2
    marathon.stop(INVALID)
    assert_aborted(probe)


##############################################################################
# ActiveSelector
##############################################################################


def test_active_selector_is_a_memoryless_selector() -> None:
    node = ActiveSelector('a', children=leaves(F))
    assert isinstance(node, Selector)
    assert node.memory is False


def test_active_selector_aborts_lower_priority_child() -> None:
    high = Probe('high', F)
    low = Probe('low', R)
    node = ActiveSelector('a', children=[high, low])
    assert tick(node) == R and low.status == R
    high.result = R
    assert tick(node) == R
    assert_aborted(low)
    assert node.current_child is high
    assert node.feedback_message == "'high' is RUNNING"


def test_active_selector_higher_success_aborts_and_succeeds() -> None:
    high = Probe('high', F)
    low = Probe('low', R)
    node = ActiveSelector('a', children=[high, low])
    tick(node)
    high.result = S
    assert tick(node) == S
    assert_aborted(low)


def test_active_selector_failure_and_restart() -> None:
    high = Probe('high', F)
    node = ActiveSelector('a', children=[high, Failure(name='f')])
    assert tick(node) == F
    assert node.feedback_message == 'all 2 children failed'
    high.result = S
    assert tick(node) == S
    assert high.initialised == 2


##############################################################################
# RandomSelector / RandomSequence
##############################################################################


def names(nodes: tuple[Behaviour, ...]) -> list[str]:
    """Return the names of ``nodes``."""
    return [node.name for node in nodes]


def test_random_selector_order_is_seeded() -> None:
    orders = []
    for _ in range(2):
        node = RandomSelector('r', children=leaves(F, F, F, F), seed=7)
        tick(node)
        orders.append(names(node.order))
    assert orders[0] == orders[1]
    assert sorted(orders[0]) == ['a', 'b', 'c', 'd']


def test_random_selector_reshuffles_on_each_run() -> None:
    node = RandomSelector('r', children=leaves(F, F, F), seed=1)
    firsts = set()
    for _ in range(30):
        assert tick(node) == F
        firsts.add(node.order[0].name)
    assert firsts == {'a', 'b', 'c'}
    assert node.feedback_message == 'all 3 children failed'


def test_random_selector_has_memory_and_succeeds() -> None:
    probes = [Probe(name, R) for name in 'abc']
    node = RandomSelector('r', children=probes, seed=3)
    assert tick(node) == R
    first, second, third = node.order
    assert isinstance(first, Probe) and isinstance(second, Probe) and isinstance(third, Probe)
    assert first.status == R and second.updates == 0
    first.result = F
    assert tick(node) == R
    assert node.feedback_message == f"trying '{second.name}'"
    assert tick(node) == R
    assert first.updates == 2  # not re-checked while the second one runs
    assert second.initialised == 1 and third.updates == 0
    second.result = S
    assert tick(node) == S
    assert node.feedback_message == f"'{second.name}' succeeded"
    assert third.updates == 0


def test_random_selector_weights_order() -> None:
    node = RandomSelector('r', children=leaves(F, F, F), weights=[0, 1, 0], seed=0)
    for _ in range(5):
        tick(node)
        assert names(node.order) == ['b', 'a', 'c']


def test_random_selector_weights_bias_the_first_choice() -> None:
    node = RandomSelector('r', children=leaves(F, F), weights=[9.0, 1.0], seed=42)
    firsts = []
    for _ in range(200):
        tick(node)
        firsts.append(node.order[0].name)
    assert 150 < firsts.count('a') < 200


@pytest.mark.parametrize('weights, children', [
    ([1.0], 2),
    ([1.0, -1.0], 2),
    ([0.0, 0.0], 2),
    ([float('nan'), 1.0], 2),
    (['x', 1.0], 2),
])
def test_random_selector_rejects_bad_weights(weights: list[float], children: int) -> None:
    with pytest.raises(ValueError):
        RandomSelector('r', children=leaves(*[F] * children), weights=weights)


def test_random_selector_weights_checked_again_when_children_are_added() -> None:
    node = RandomSelector('r', children=leaves(F), weights=[1.0])
    node.add_child(Failure(name='late'))
    with pytest.raises(RuntimeError):
        tick(node)


def test_random_sequence_runs_all_children_in_a_seeded_order() -> None:
    ran: list[str] = []

    def recorder(name: str) -> Callable[[], bool]:
        def check() -> bool:
            ran.append(name)
            return True
        return check

    children = [Condition(n, predicate=recorder(n)) for n in 'abcd']
    node = RandomSequence('r', children=children, seed=5)
    assert tick(node) == S
    assert ran == names(node.order)
    assert sorted(ran) == ['a', 'b', 'c', 'd']
    twin = RandomSequence('twin', children=leaves(S, S, S, S), seed=5)
    tick(twin)
    assert names(twin.order) == names(node.order)


def test_random_sequence_reshuffles_on_each_run() -> None:
    node = RandomSequence('r', children=leaves(S, S, S), seed=2)
    orders = set()
    for _ in range(30):
        assert tick(node) == S
        orders.add(tuple(names(node.order)))
    assert len(orders) > 1


def test_random_sequence_failure_and_memory() -> None:
    running = Probe('running', R)
    node = RandomSequence('r', children=[running, Success(name='s')], seed=0)
    assert trace(node, 2) == [R, R]
    assert running.initialised == 1
    running.result = F
    assert tick(node) == F
    assert node.feedback_message.startswith("'running' failed")


##############################################################################
# Monitor
##############################################################################


def test_monitor_checks_conditions_every_tick() -> None:
    condition = Probe('ok', S)
    node = Monitor('m', children=[condition, queue('act', R, S), Success(name='s')],
                   num_conditions=1)
    assert trace(node, 2) == [R, S]
    assert condition.updates == 2
    assert node.feedback_message == 'all actions succeeded'


def test_monitor_condition_failure_aborts_actions() -> None:
    condition = Probe('ok', S)
    action = Probe('act', R)
    node = Monitor('m', children=[condition, action], num_conditions=1)
    assert tick(node) == R
    condition.result = F
    assert tick(node) == F
    assert node.feedback_message == "condition 'ok' failed"
    assert_aborted(action)
    assert action.updates == 1


def test_monitor_running_condition_holds_and_is_stopped_at_the_end() -> None:
    condition = Probe('watch', R)
    node = Monitor('m', children=[condition, queue('act', R, S)], num_conditions=1)
    assert trace(node, 2) == [R, S]
    assert_aborted(condition)


def test_monitor_action_failure() -> None:
    node = Monitor('m', children=[Success(name='ok'), queue('act', R, F)], num_conditions=1)
    assert trace(node, 2) == [R, F]
    assert node.feedback_message == "action 'act' failed"


def test_monitor_actions_have_memory_and_restart_on_a_new_run() -> None:
    first = Probe('first', S)
    second = Probe('second', R)
    node = Monitor('m', children=[Success(name='ok'), first, second], num_conditions=1)
    assert trace(node, 3) == [R, R, R]
    assert first.updates == 1
    second.result = S
    assert tick(node) == S
    assert tick(node) == S
    assert first.initialised == 2


@pytest.mark.parametrize('num_conditions', [-1, 3])
def test_monitor_rejects_bad_num_conditions(num_conditions: int) -> None:
    with pytest.raises(ValueError):
        Monitor('m', children=leaves(S, S), num_conditions=num_conditions)


##############################################################################
# Filter
##############################################################################


def test_filter_condition_failure_skips_actions() -> None:
    action = Probe('act', S)
    node = Filter('f', children=[Success(name='ok'), Failure(name='no'), action],
                  num_conditions=2)
    assert tick(node) == F
    assert node.feedback_message == "condition 'no' failed: failure"
    assert action.updates == 0


def test_filter_checks_conditions_only_at_the_start() -> None:
    condition = Probe('ok', S)
    action = Probe('act', R)
    node = Filter('f', children=[condition, action], num_conditions=1)
    assert tick(node) == R
    condition.result = F  # a Monitor would abort now
    assert tick(node) == R
    assert condition.updates == 1
    action.result = S
    assert tick(node) == S
    condition.result = S
    action.result = R
    assert tick(node) == R  # a new run checks the condition again
    assert condition.updates == 2


def test_filter_action_failure_and_stop() -> None:
    action = Probe('act', R)
    node = Filter('f', children=[Success(name='ok'), action], num_conditions=1)
    tick(node)
    node.stop(INVALID)
    assert_aborted(action)
    action.result = F
    assert tick(node) == F
    assert node.feedback_message == "action 'act' failed"


##############################################################################
# IfThenElse
##############################################################################


@pytest.mark.parametrize('children, expected, feedback', [
    ((S, S, F), S, "then branch 'b' succeeded"),
    ((S, F, S), F, "then branch 'b' failed: failure"),
    ((F, F, S), S, "else branch 'c' succeeded"),
    ((F, S, F), F, "else branch 'c' failed: failure"),
    ((F, S), F, "'a' is false and there is no else branch"),
    ((S, R), R, "running then branch 'b'"),
])
def test_if_then_else_table(
    children: tuple[Status, ...], expected: Status, feedback: str,
) -> None:
    node = IfThenElse('if', children=leaves(*children))
    assert tick(node) == expected
    assert node.feedback_message == feedback


def test_if_then_else_evaluates_condition_once_per_run() -> None:
    condition = Probe('cond', S)
    then = Probe('then', R)
    otherwise = Probe('else', S)
    node = IfThenElse('if', children=[condition, then, otherwise])
    assert tick(node) == R
    condition.result = F
    assert tick(node) == R
    assert condition.updates == 1 and otherwise.updates == 0
    then.result = S
    assert tick(node) == S
    assert tick(node) == S  # new run: the condition is false now
    assert otherwise.updates == 1


def test_if_then_else_waits_for_a_running_condition() -> None:
    then = Probe('then', S)
    node = IfThenElse('if', children=[queue('cond', R, S), then])
    assert tick(node) == R
    assert then.updates == 0
    assert tick(node) == S


@pytest.mark.parametrize('count', [1, 4])
def test_if_then_else_needs_two_or_three_children(count: int) -> None:
    with pytest.raises(ValueError):
        IfThenElse('if', children=leaves(*[S] * count))


##############################################################################
# While
##############################################################################


def test_while_loops_until_condition_is_false() -> None:
    condition = Probe('more', S)
    body = Probe('body', S)
    node = While('w', children=[condition, body])
    assert trace(node, 2) == [R, R]
    assert body.initialised == 2 and node.iterations == 2
    condition.result = F
    assert tick(node) == S
    assert node.feedback_message == "'more' is false after 2 iterations"


def test_while_fails_if_condition_false_before_first_iteration() -> None:
    node = While('w', children=[Failure(name='more'), Success(name='body')])
    assert tick(node) == F
    assert node.feedback_message == "'more' is false before the first iteration"


def test_while_body_failure_fails() -> None:
    node = While('w', children=[Success(name='more'), queue('body', S, F)])
    assert trace(node, 2) == [R, F]
    assert node.feedback_message == "body 'body' failed"


@pytest.mark.parametrize('first_body, expected, feedback', [
    (S, S, "'more' is false after 1 iteration (iteration 2 aborted)"),
    (R, F, "'more' turned false before the first iteration finished (iteration 1 aborted)"),
])
def test_while_condition_false_aborts_running_body(first_body: Status, expected: Status,
                                                   feedback: str) -> None:
    condition = Probe('more', S)
    body = Probe('body', first_body)
    node = While('w', children=[condition, body])
    tick(node)
    body.result = R
    tick(node)
    condition.result = F
    assert tick(node) == expected
    assert node.feedback_message == feedback
    assert_aborted(body)


def test_while_restart_resets_iterations_and_stop() -> None:
    condition = Probe('more', S)
    body = Probe('body', S)
    node = While('w', children=[condition, body])
    tick(node)
    condition.result = F
    assert tick(node) == S
    condition.result = S
    body.result = R
    assert tick(node) == R
    assert node.iterations == 0
    node.stop(INVALID)
    assert_aborted(body)
    assert_aborted(condition)


def test_while_needs_two_children() -> None:
    with pytest.raises(ValueError):
        While('w', children=leaves(S))


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


##############################################################################
# Log / Terminate / Condition
##############################################################################


def test_log_to_sink() -> None:
    lines: list[tuple[str, str]] = []
    count = iter(range(10))
    node = Log('log', message=lambda: f'n={next(count)}', level='WARNING',
               sink=lambda level, text: lines.append((level, text)))
    assert trace(node, 2) == [S, S]
    assert lines == [('warning', 'n=0'), ('warning', 'n=1')]
    assert node.feedback_message == 'n=1'


def test_log_default_sink(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        assert tick(Log('log', message='hello')) == S
    assert [(r.name, r.levelname, r.message) for r in caplog.records] == [
        (LOGGER_NAME, 'INFO', 'hello')]


def test_log_failures_do_not_propagate() -> None:
    def broken() -> str:
        raise RuntimeError('boom')

    node = Log('log', message=broken, sink=lambda level, text: None)
    assert tick(node) == F
    assert node.feedback_message == 'could not log: RuntimeError: boom'


def test_log_rejects_unknown_level() -> None:
    with pytest.raises(ValueError):
        Log('log', message='x', level='loud')


def test_terminate_records_request_on_root() -> None:
    stop = Terminate('stop', status='success', reason='done')
    root = Sequence('root', memory=True, children=[Success(name='s'), stop])
    assert termination_requested(root) is None
    assert tick(root) == S
    assert termination_requested(root) == TerminationRequest(S, 'done', 'stop')
    assert termination_requested(stop) == termination_requested(root)
    assert stop.feedback_message == 'terminating tree: done'
    clear_termination(root)
    assert termination_requested(root) is None


def test_terminate_first_request_wins_and_runner_stops_tree() -> None:
    worker = Probe('worker', R)
    first = Terminate('first', reason='fault')
    root = Marathon('root', children=[worker, first, Terminate('second', status='success')])
    # a minimal runner: tick, then stop the tree if termination was requested
    for _ in range(3):
        root.tick_once()
        request = termination_requested(root)
        if request is not None:
            root.stop(INVALID)
            break
    assert request == TerminationRequest(F, 'fault', 'first')
    assert first.feedback_message == 'terminating tree: fault'
    assert_aborted(worker)
    assert worker.updates == 1


def test_terminate_rejects_unknown_status() -> None:
    with pytest.raises(ValueError):
        Terminate('t', status='maybe')  # type: ignore[arg-type]


def _raise() -> bool:
    raise KeyError('battery')


@pytest.mark.parametrize('predicate, description, expected, feedback', [
    (lambda: True, 'door open', S, 'door open is true'),
    (lambda: 0, 'door open', F, 'door open is false'),
    (lambda: [], '', F, 'check is false'),
    (_raise, 'battery ok', F, "battery ok: KeyError: 'battery'"),
])
def test_condition(
    predicate: Callable[[], bool], description: str, expected: Status, feedback: str,
) -> None:
    node = Condition('check', predicate=predicate, description=description)
    assert tick(node) == expected
    assert node.feedback_message == feedback


##############################################################################
# Every behaviour explains a FAILURE
##############################################################################


@pytest.mark.parametrize('make', [
    lambda: Race('x', children=leaves(F)),
    lambda: Marathon('x', children=leaves(F), require_success=True),
    lambda: ActiveSelector('x', children=leaves(F)),
    lambda: RandomSelector('x', children=leaves(F), seed=0),
    lambda: RandomSequence('x', children=leaves(F), seed=0),
    lambda: Monitor('x', children=leaves(F, S), num_conditions=1),
    lambda: Filter('x', children=leaves(S, F), num_conditions=1),
    lambda: IfThenElse('x', children=leaves(F, S)),
    lambda: While('x', children=leaves(F, S)),
    lambda: UntilSuccess('x', Failure(name='f'), max_attempts=1),
    lambda: UntilFailure('x', Success(name='s'), max_attempts=1),
    lambda: Limit('x', Failure(name='f'), max_runs=1),
    lambda: Delay('x', Failure(name='f'), seconds=0, clock=FakeClock()),
    lambda: Cooldown('x', Failure(name='f'), seconds=1, clock=FakeClock()),
    lambda: Timeout('x', Running(name='r'), seconds=0, clock=FakeClock()),
    lambda: Terminate('x'),
    lambda: Condition('x', predicate=lambda: False),
    lambda: Log('x', message='m', sink=lambda level, text: print(1 / 0)),
])
def test_failure_has_feedback(make: Callable[[], Behaviour]) -> None:
    node = make()
    assert tick(node) == F
    assert node.feedback_message


##############################################################################
# Every composite and decorator stops its running children
##############################################################################


@pytest.mark.parametrize('make, running', [
    (lambda c: Sequence('seq', memory=True, children=c), 1),
    (lambda c: Selector('sel', memory=False, children=c), 1),
    (lambda c: Parallel('par', ParallelPolicy.SuccessOnAll(), children=c), 1),
    (lambda c: Race('race', children=c), 2),
    (lambda c: ActiveSelector('a', children=[Failure(name='f'), *c]), 1),
    (lambda c: RandomSelector('r', children=c, seed=0), 1),
    (lambda c: RandomSequence('r', children=c, seed=0), 1),
    (lambda c: Monitor('m', children=c, num_conditions=1), 2),  # condition and action
    (lambda c: IfThenElse('if', children=[Success(name='c'), *c]), 1),  # the then branch
    (lambda c: UntilSuccess('u', *c), 1),
    (lambda c: UntilFailure('u', *c), 1),
    (lambda c: Timeout('t', *c, seconds=1.0, clock=FakeClock()), 1),
])
def test_stop_invalidates_running_children(
    make: Callable[[list[Behaviour]], Behaviour], running: int,
) -> None:
    probes = [Probe(name, R) for name in 'ab'[:running]]
    node = make(list(probes))
    assert tick(node) == R
    node.stop(INVALID)
    assert node.status == INVALID
    for probe in probes:
        assert_aborted(probe)


@pytest.mark.parametrize('make, expected, feedback', [
    (lambda: Race('race'), F, 'no children'),
    (lambda: RandomSelector('r'), F, 'no children'),
    (lambda: Marathon('m'), S, 'all 0 children finished (0 failed)'),
])
def test_without_children(make: Callable[[], Behaviour], expected: Status,
                          feedback: str) -> None:
    node = make()
    assert tick(node) == expected
    assert node.feedback_message == feedback
