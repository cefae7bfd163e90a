# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick-by-tick tests of bt_executive.nodes.conditionals: Monitor, Filter, IfThenElse, While."""

from __future__ import annotations

from behaviour_helpers import assert_aborted, F, INVALID, leaves, Probe, queue, R, S, tick, trace
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
from py_trees.behaviours import Failure, Success
from py_trees.common import Status
import pytest


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
