# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Event ticking does not grow the process, however many times its timers are re-armed.

Two rclpy behaviours can make an event-driven executive grow: a timer created per arming
stays in its callback group's entity set (the soak found this: 126 KiB a minute), and
under rclpy's EventsExecutor, resetting a timer that has fired from outside an executor
callback leaks about 80 bytes a time. The ticker makes one timer per purpose and re-arms
it from within callbacks (ticks, requests). These tests drive the ticker's timers through
thousands of fire/re-arm cycles on both executors the executive can use, and bound the
resident set and the callback group.
"""

import time
from typing import Any

import pytest

pytestmark = pytest.mark.ros

CYCLES = 30_000
WARM_UP = 2_000
MAX_GROWTH_KIB = 512


def rss_kib() -> int:
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    raise AssertionError('no VmRSS in /proc/self/status')


def make(kind: str, context: Any) -> Any:
    if kind == 'events':
        from rclpy.experimental import EventsExecutor
        return EventsExecutor(context=context)
    from rclpy.executors import SingleThreadedExecutor
    return SingleThreadedExecutor(context=context)


@pytest.mark.parametrize('kind', ['events', 'single'])
def test_rearming_the_tick_timers_does_not_grow_memory(ros_context, kind):
    import rclpy

    from bt_executive.ros.ticking import EventTicker

    node = rclpy.create_node('ticking_memory', context=ros_context)
    executor = make(kind, ros_context)
    executor.add_node(node)
    group = node.default_callback_group
    entities_before = len(group.entities)
    ticks = 0

    def tick() -> None:
        # alternate the two one-shot timers: the pacing one (the tree moved) and the
        # deadline one on the node clock (a time-based node is due); every tick also
        # moves the heartbeat
        nonlocal ticks
        ticks += 1
        ticker.ticked(time.monotonic())
        if ticks % 2:
            ticker.plan(again=True, deadline=None)
        else:
            now = node.get_clock().now().nanoseconds * 1e-9
            ticker.plan(again=False, deadline=now + 1e-5)

    def run(count: int) -> None:
        target = ticks + count
        while ticks < target:
            before = ticks
            deadline = time.monotonic() + 5.0
            while ticks == before:
                assert time.monotonic() < deadline, \
                    f'no tick for 5 s after {ticks} ticks: the ticker stopped re-arming'
                executor.spin_once(timeout_sec=1.0)

    ticker = EventTicker(node, tick, max_rate=1e5, heartbeat=3600.0)
    try:
        ticker.request()
        run(WARM_UP)
        start = rss_kib()
        run(CYCLES)
        growth = rss_kib() - start
        entities = len(group.entities) - entities_before
    finally:
        ticker.destroy()
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
    assert growth <= MAX_GROWTH_KIB, (
        f'{kind} executor: RSS grew {growth} KiB over {CYCLES} ticks that re-armed the '
        f'tick timers (limit {MAX_GROWTH_KIB} KiB)')
    assert entities <= 3, f'{entities} timers kept in the callback group (at most 3 live)'
