# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of the composites of bt_executive.nodes.composites."""

from __future__ import annotations

from typing import Callable

from behaviour_helpers import assert_aborted, F, INVALID, leaves, Probe, queue, R, S, tick, trace
from bt_executive.nodes.composites import ActiveSelector, Marathon, Race
from bt_executive.nodes.predicates import Condition
from bt_executive.nodes.random_composites import RandomSelector, RandomSequence
from py_trees.behaviour import Behaviour
from py_trees.behaviours import Failure, Success
from py_trees.composites import Selector
import pytest


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
