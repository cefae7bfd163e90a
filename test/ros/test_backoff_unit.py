# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the back-off of failing ROS leaves (bt_executive/ros/leaves/backoff.py).

A scripted leaf on a stand-in node whose clock moves only when the test says so: every
wait, every reason and every sent goal is exact. No Context, no DDS; rclpy is only
imported (the leaves' package needs it). test_goal_storm.py checks the same end to end
against real servers and the built-in sim.
"""

from __future__ import annotations

from collections.abc import Callable
import types
from typing import Any, Optional

import py_trees
from py_trees.common import Status
import pytest

pytestmark = pytest.mark.ros


class Node:
    """An executive stand-in (node and LeafHost): a manual clock, tick requests, back-off."""

    def __init__(self, **parameters: float) -> None:
        self.now = 100.0
        self.parameters = parameters
        self.requests = 0

    def now_seconds(self) -> float:
        return self.now

    def steady_seconds(self) -> float:
        return self.now

    def request_tick(self, source: Any = None) -> None:
        self.requests += 1

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        pass

    def note_sent(self) -> None:
        pass

    def own(self, callback: Any) -> Any:
        return callback

    def backoff_settings(self) -> tuple[float, float]:
        from bt_executive.ros.leaves.backoff import DEFAULTS
        return (float(self.parameters.get('backoff', DEFAULTS['backoff'])),
                float(self.parameters.get('backoff_max', DEFAULTS['backoff_max'])))

    def has_parameter(self, name: str) -> bool:
        return name in self.parameters

    def get_parameter(self, name: str) -> Any:
        return types.SimpleNamespace(value=self.parameters[name])


def scripted_leaf(outcomes: list[Status], **backoff: Optional[float]) -> Any:
    """Return a leaf that 'sends a goal' per step and ends as ``outcomes`` say, in order."""
    from bt_executive.ros.leaves import RosLeaf
    from bt_executive.ros.leaves.backoff import Backoff

    class Scripted(RosLeaf):
        def __init__(self) -> None:
            super().__init__('dock', kind='Action', lookup=lambda key: None)
            self.sent: list[float] = []
            self.initialised: list[float] = []

        def initialise(self) -> None:
            self.initialised.append(self.node.now if self.node else -1.0)

        def step(self) -> Status:
            self.sent.append(self.node.now)
            outcome = outcomes.pop(0)
            if outcome is Status.FAILURE:
                return self.fail(f'goal rejected ({len(self.sent)})')
            self.feedback_message = 'ok' if outcome is Status.SUCCESS else 'goal active'
            return outcome

    leaf = Scripted()
    leaf.backoff = Backoff(leaf, initial=backoff.get('initial'), limit=backoff.get('limit'))
    return leaf


def rig(outcomes: list[Status], node: Optional[Node] = None,
        **backoff: Optional[float]) -> tuple[Any, Node, Callable[[], Status]]:
    """Return (leaf, node, tick): the leaf set up on the node; tick() ticks it once."""
    node = node or Node()
    leaf = scripted_leaf(outcomes, **backoff)
    leaf.setup(node=node, host=node)

    def tick() -> Status:
        leaf.tick_once()
        return leaf.status
    return leaf, node, tick


def test_delays_double_from_backoff_up_to_backoff_max() -> None:
    from bt_executive.ros.leaves.backoff import delay_after

    assert [delay_after(n, 0.2, 10.0) for n in range(9)] == \
        [0.0, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10.0, 10.0]
    assert delay_after(10 ** 6, 0.2, 10.0) == 10.0
    assert delay_after(5, 0.0, 10.0) == 0.0 and delay_after(5, 1.0, 0.0) == 0.0


def test_a_failed_leaf_waits_running_with_the_reason_then_sends_once_the_wait_is_over() -> None:
    leaf, node, tick = rig([Status.FAILURE] * 4, initial=0.5, limit=10.0)
    assert tick() is Status.FAILURE and leaf.sent == [100.0]
    assert leaf.feedback_message == 'goal rejected (1)'
    # the next run: nothing is sent before the wait is over
    assert tick() is Status.RUNNING
    assert leaf.feedback_message == 'backing off 0.5 s after 1 failure: goal rejected (1)'
    assert leaf.backoff.wake_at() == 100.5
    node.now = 100.49
    assert tick() is Status.RUNNING and leaf.sent == [100.0]
    node.now = 100.5
    assert tick() is Status.FAILURE and leaf.sent == [100.0, 100.5]
    # the run started again when the wait ended: its own timers count from there
    assert leaf.initialised[-1] == 100.5
    assert tick() is Status.RUNNING and leaf.backoff.wake_at() == 101.5
    node.now = 103.0
    assert tick() is Status.FAILURE
    assert tick() is Status.RUNNING
    assert leaf.feedback_message == 'backing off 2.0 s after 3 failures: goal rejected (3)'


def test_a_success_is_never_delayed_and_ends_the_streak() -> None:
    outcomes = [Status.SUCCESS, Status.SUCCESS, Status.FAILURE, Status.FAILURE,
                Status.SUCCESS, Status.FAILURE]
    leaf, node, tick = rig(outcomes, initial=1.0, limit=60.0)
    assert tick() is Status.SUCCESS and tick() is Status.SUCCESS
    assert leaf.sent == [100.0, 100.0], 'successes run back to back'
    assert tick() is Status.FAILURE
    node.now = 101.0
    assert tick() is Status.FAILURE and leaf.backoff.failures == 2
    node.now = 103.0
    assert tick() is Status.SUCCESS and leaf.backoff.failures == 0
    # after the success, the next failure waits the first delay again
    assert tick() is Status.FAILURE
    assert tick() is Status.RUNNING and leaf.backoff.wake_at() == 104.0


def test_a_run_that_sent_is_never_held_and_a_halt_keeps_the_streak() -> None:
    leaf, node, tick = rig([Status.FAILURE, Status.RUNNING, Status.RUNNING, Status.FAILURE,
                            Status.FAILURE], initial=1.0, limit=60.0)
    tick()
    node.now = 101.0
    assert tick() is Status.RUNNING and leaf.sent == [100.0, 101.0]
    node.now = 101.5
    assert tick() is Status.RUNNING and leaf.sent[-1] == 101.5, 'a running goal is followed'
    leaf.stop(Status.INVALID)  # halted by a higher priority: neither success nor failure
    assert leaf.backoff.failures == 1
    assert tick() is Status.FAILURE and leaf.backoff.failures == 2
    assert tick() is Status.RUNNING and leaf.backoff.wake_at() == 103.5
    leaf.stop(Status.INVALID)  # halted while waiting: nothing to cancel, the wait goes on
    assert leaf.backoff.wake_at() is None, 'a leaf that does not run needs no tick'
    assert tick() is Status.RUNNING and leaf.backoff.wake_at() == 103.5


def test_settings_come_from_the_leaf_then_the_node_then_the_defaults() -> None:
    from bt_executive.ros.leaves.backoff import DEFAULTS

    leaf, _, _ = rig([], Node(backoff=1.0, backoff_max=3.0), initial=0.25)
    assert leaf.backoff.settings() == (0.25, 3.0)
    leaf, _, _ = rig([], Node())
    assert leaf.backoff.settings() == (DEFAULTS['backoff'], DEFAULTS['backoff_max']) \
        == (0.2, 10.0)


def test_zero_turns_it_off() -> None:
    leaf, node, tick = rig([Status.FAILURE] * 3, initial=0.0)
    assert [tick() for _ in range(3)] == [Status.FAILURE] * 3
    assert leaf.sent == [100.0] * 3


def test_a_clock_that_jumps_back_restarts_the_wait_from_the_jump() -> None:
    leaf, node, tick = rig([Status.FAILURE, Status.FAILURE], initial=2.0)
    tick()
    node.now = 5.0  # a restarted simulator: its time starts again near 0
    assert tick() is Status.RUNNING and leaf.backoff.wake_at() == 7.0
    node.now = 7.0
    assert tick() is Status.FAILURE


def test_an_exception_counts_as_a_failure() -> None:
    from bt_executive.ros.leaves.backoff import Backoff

    leaf, node, tick = rig([], initial=1.0)
    with pytest.raises(IndexError):
        leaf.backoff.run()
    assert isinstance(leaf.backoff, Backoff) and leaf.backoff.failures == 1
    assert leaf.backoff.reason == 'IndexError: pop from empty list'


def test_the_host_helpers_list_waiting_leaves_reset_them_and_report_failures() -> None:
    from bt_executive.observe.record import TickRecord, Transition
    from bt_executive.ros.leaves import backoff

    leaf, node, tick = rig([Status.FAILURE, Status.FAILURE], initial=1.0)
    root = py_trees.composites.Sequence('root', memory=False, children=[leaf])
    tick()
    record = TickRecord(tick=1, time=100.0, changes=[
        Transition('Main/root', root, Status.INVALID, Status.FAILURE, ''),
        Transition('Main/root/dock', leaf, Status.INVALID, Status.FAILURE, 'rejected')])
    warnings: list[str] = []
    assert backoff.leaf_failure(record, warnings.append) == 'Main/root/dock: rejected'
    assert warnings == [], 'a first failure is no news'
    assert backoff.leaf_failure(TickRecord(tick=1, time=0.0, changes=record.changes[:1])) \
        is None
    tick()
    assert backoff.waiting(backoff.backoffs(root), lambda behaviour: behaviour.name) == {
        'dock': 'backing off 1.0 s after 1 failure: goal rejected (1)'}
    node.now += 1.0
    tick()  # fails again: from the second failure in a row on, each back-off is logged
    assert backoff.leaf_failure(record, warnings.append) == 'Main/root/dock: rejected'
    assert warnings == ['Main/root/dock: backing off 2.0 s after 2 failures: '
                        'goal rejected (2)']
    backoff.reset_backoffs(root)
    assert leaf.backoff.failures == 0 and backoff.waiting(backoff.backoffs(root), str) == {}
