# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of ServerWatch (bt_executive/ros/leaves/common.py): the graph is faked.

The watch is driven with a hand-moved clock and graph functions that return what the
test says; test_fault_server_death.py covers the same with real servers killed.
"""

from __future__ import annotations

from typing import Optional

from bt_executive.ros.leaves.common import DiscoveryWait, GRAPH_POLL_PERIOD, ServerWatch
import pytest


class Graph:
    """What the fake ROS graph holds: whether the server is ready, and its endpoints."""

    def __init__(self) -> None:
        self.ready = True
        self.status = frozenset({b'old'})
        self.reads = 0

    def gids(self) -> frozenset[bytes]:
        self.reads += 1
        return self.status


class Steady:
    """A steady clock the test moves; ``free()``: one where wall time is never short."""

    def __init__(self, now: float = 0.0, step: float = 0.0) -> None:
        self.now = now
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def free() -> Steady:
    return Steady(step=1000.0)  # each read an age later: only the node clock decides


def watch(graph: Graph, grace: float = 1.0, steady: Optional[Steady] = None) -> ServerWatch:
    return ServerWatch(grace, lambda: graph.ready, [('status publisher', graph.gids)],
                       steady or free())


def test_a_server_gone_for_the_grace_period_is_lost():
    graph = Graph()
    server = watch(graph)
    server.start(0.0)
    assert server.lost(0.5) is None
    graph.status = frozenset()
    assert server.lost(1.0) is None
    assert server.wake_at(1.0) == 2.0  # gone since 1.0: asks to be ticked at the deadline
    assert server.lost(1.9) is None
    assert server.lost(2.0) == 'status publisher'


def test_a_server_back_within_the_grace_period_keeps_its_goal():
    graph = Graph()
    server = watch(graph)
    server.start(0.0)
    graph.ready = False
    assert server.lost(0.5) is None
    graph.ready = True
    assert server.lost(1.4) is None
    assert server.lost(5.0) is None


def test_a_server_restarted_with_new_endpoints_is_lost_even_though_ready():
    graph = Graph()
    server = watch(graph, grace=0.0)
    server.start(0.0)
    graph.status = frozenset({b'new'})
    assert server.lost(0.5) == 'status publisher'


def test_endpoints_unknown_at_the_start_leave_the_decision_to_ready():
    graph = Graph()
    graph.status = frozenset()
    server = watch(graph, grace=0.0)
    server.start(0.0)
    assert server.lost(0.5) is None
    graph.ready = False
    assert server.lost(1.0) == 'status publisher'


def test_the_graph_is_read_at_most_every_poll_period_while_the_server_is_there():
    graph = Graph()
    server = watch(graph)
    server.start(0.0)
    reads = graph.reads
    for step in range(1, 10):
        assert server.lost(step * GRAPH_POLL_PERIOD / 10) is None
    assert graph.reads == reads
    assert server.wake_at(0.9 * GRAPH_POLL_PERIOD) == GRAPH_POLL_PERIOD
    assert server.lost(GRAPH_POLL_PERIOD) is None
    assert graph.reads == reads + 1


def test_a_stopped_watch_reports_nothing_and_asks_for_no_tick():
    graph = Graph()
    server = watch(graph, grace=0.0)
    server.start(0.0)
    server.stop()
    graph.ready = False
    assert server.lost(10.0) is None and server.wake_at(10.0) is None


def test_the_gids_are_read_at_every_look_while_the_server_is_there():
    graph = Graph()
    server = watch(graph)
    server.start(0.0)
    reads = graph.reads
    looks = [server.lost(GRAPH_POLL_PERIOD * step) for step in range(1, 5)]
    assert looks == [None] * 4
    assert graph.reads == reads + 4
    # between two looks the graph is not read
    assert server.lost(4.2 * GRAPH_POLL_PERIOD) is None and graph.reads == reads + 4


def test_a_restart_between_two_looks_is_noticed_at_the_next_look():
    graph = Graph()
    server = watch(graph, grace=0.0)
    server.start(0.0)
    assert server.lost(GRAPH_POLL_PERIOD) is None
    graph.status = frozenset({b'new'})  # same number of endpoints, a new one: restarted
    assert server.lost(2 * GRAPH_POLL_PERIOD) == 'status publisher'


def test_a_server_found_gone_is_read_again_until_the_grace_ends():
    graph = Graph()
    server = watch(graph, grace=1.0)
    server.start(0.0)
    graph.status = frozenset({b'new'})
    looks = [server.lost(GRAPH_POLL_PERIOD * step) for step in range(1, 5)]
    # gone at the first look, lost once gone for the grace (two more looks), and stays lost
    assert looks == [None, None, 'status publisher', 'status publisher']


def test_under_a_fast_sim_clock_a_server_is_lost_only_after_the_grace_in_wall_time():
    graph = Graph()
    wall = Steady()
    server = watch(graph, grace=1.0, steady=wall)
    server.start(0.0)
    graph.status = frozenset()
    assert server.lost(1.0) is None  # gone since node time 1.0, wall time 0
    wall.now = 0.1  # the node clock runs 10 times faster than wall time
    assert server.lost(2.0) is None  # a second of node time, 0.1 s of wall time
    assert server.wake_at(2.0) == pytest.approx(2.9)  # looks again, never after the end
    wall.now = 1.0
    assert server.lost(11.0) == 'status publisher'


@pytest.mark.parametrize('rate', [10.0, 1.0, 0.5], ids=['sim x10', 'real time', 'sim x0.5'])
def test_a_discovery_wait_lasts_its_seconds_on_both_clocks(rate):
    wall = Steady()
    wait = DiscoveryWait(10.0, wall)
    wait.start(100.0)
    ended = None
    for tick in range(1, 400):  # 0.1 s of wall time per tick
        wall.now = tick / 10
        now = 100.0 + rate * wall.now
        assert wait.wake_at(now) >= now
        if wait.over(now):
            ended = wall.now
            break
    assert ended == pytest.approx(max(10.0, 10.0 / rate))
    assert not DiscoveryWait(10.0, wall).over(1e9)  # never started: never over


def test_a_discovery_wait_ending_within_a_tick_still_asks_for_one_after_it():
    """over() said no, the wall clock passed the end before wake_at(): a wake-up after now.

    The executive plans only wake-ups after the tick's time; one at the tick's time itself
    was dropped, and with a long heartbeat a leaf whose server was gone never failed
    (test_fault_server_death, once in a fresh-clone run beside a busy process).
    """
    wall = Steady()
    wait = DiscoveryWait(1.0, wall)
    wait.start(100.0)
    wall.now = 0.9999  # the tick at node time 101.0 reads the wall clock just short
    assert not wait.over(101.0)
    wall.now = 1.0001  # and a little later, planning the next tick
    assert wait.wake_at(101.0) > 101.0
    assert wait.over(wait.wake_at(101.0))
