# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of Log, Terminate and Condition, and of what every behaviour does."""

from __future__ import annotations

import logging
from typing import Callable

from behaviour_helpers import (
    assert_aborted,
    F,
    FakeClock,
    INVALID,
    leaves,
    Probe,
    R,
    S,
    tick,
    trace,
)
from bt_executive.nodes.composites import ActiveSelector, Marathon, Race
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
from bt_executive.nodes.decorators import (
    Cooldown,
    Delay,
    Limit,
    Timeout,
    UntilFailure,
    UntilSuccess,
)
from bt_executive.nodes.log import Log, LOGGER_NAME
from bt_executive.nodes.predicates import Condition
from bt_executive.nodes.random_composites import RandomSelector, RandomSequence
from bt_executive.nodes.terminate import (
    clear_termination,
    Terminate,
    termination_requested,
    TerminationRequest,
)
from py_trees.behaviour import Behaviour
from py_trees.behaviours import Failure, Running, Success
from py_trees.common import ParallelPolicy, Status
from py_trees.composites import Parallel, Selector, Sequence
import pytest


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
