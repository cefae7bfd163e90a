# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of when the executive ticks (bt_executive/ros/ticking.py), on manual clocks.

The tickers run on a stand-in node whose timers and executor tasks fire only when the test
lets time pass (:meth:`Rig.advance`): the steady clock (``time.monotonic`` in ticking.py,
patched) and the node clock move by hand, so every expectation is exact. No Context, no
node, no DDS; rclpy is only imported (ticking.py builds an ``rclpy.clock.Clock``).
test_event_ticking.py checks the same behaviour end to end on a real executive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import math
import types
from typing import Any, Optional

from hypothesis import given, settings, strategies as st
import pytest

pytestmark = pytest.mark.ros

HOUR = 3600.0


class ManualClock:
    """Seconds that move only when told."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        """Return the current time."""
        return self.now


class FakeTimer:
    """An rclpy timer stand-in: due ``period`` after creation or reset, until cancelled."""

    def __init__(self, node: 'FakeNode', period: float, callback: Callable[[], None],
                 clock: Any, order: int) -> None:
        self.node = node
        self.callback = callback
        self.clock = clock
        self.order = order
        self.timer_period_ns = int(period * 1e9)
        self.canceled = False
        self.due = self.now() + period

    def now(self) -> float:
        """Return the time of this timer's clock."""
        return self.node.time_of(self.clock)

    def reset(self) -> None:
        """Restart the period from now (and undo a cancel), as rclpy's reset does."""
        self.canceled = False
        self.due = self.now() + self.timer_period_ns * 1e-9

    def cancel(self) -> None:
        """Stop firing until reset."""
        self.canceled = True

    def fire(self) -> None:
        """Run the callback; a periodic timer is due again one period later."""
        self.due += self.timer_period_ns * 1e-9
        self.callback()


class FakeExecutor:
    """Collects tasks; :meth:`Rig.advance` runs them as an executor runs its tasks."""

    def __init__(self) -> None:
        self.tasks: list[Callable[[], None]] = []

    def create_task(self, callback: Callable[[], None]) -> None:
        """Queue ``callback``."""
        self.tasks.append(callback)


class FakeNode:
    """What the tickers use of an rclpy node: timers, the node clock, the executor."""

    def __init__(self, steady: ManualClock, ros: ManualClock) -> None:
        self.steady = steady
        self.ros = ros
        self.executor: Optional[FakeExecutor] = None
        self.timers: list[FakeTimer] = []
        self.created = 0
        self._clock = types.SimpleNamespace(
            now=lambda: types.SimpleNamespace(nanoseconds=int(round(ros() * 1e9))))

    def get_clock(self) -> Any:
        """Return the node clock (ROS time: the ``ros`` manual clock)."""
        return self._clock

    def on_node_clock(self, clock: Any) -> bool:
        """Tell whether a timer made with ``clock`` runs on the node clock (the default)."""
        return clock is None or clock is self._clock

    def time_of(self, clock: Any) -> float:
        """Return the time of a timer's clock: the node clock, or else the steady one."""
        return self.ros() if self.on_node_clock(clock) else self.steady()

    def create_timer(self, period: float, callback: Callable[[], None],
                     clock: Any = None) -> FakeTimer:
        """Create a timer that starts at once."""
        self.created += 1
        timer = FakeTimer(self, period, callback, clock, self.created)
        self.timers.append(timer)
        return timer

    def destroy_timer(self, timer: FakeTimer) -> None:
        """Forget ``timer``."""
        self.timers.remove(timer)


class Rig:
    """A ticker on a :class:`FakeNode`; records tick starts and their wake latencies.

    After each tick it plans as the executive does, with :attr:`again` and
    :attr:`deadline`; :attr:`during_tick` runs inside each tick.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from bt_executive.ros import ticking

        self.steady = ManualClock(1000.0)
        self.ros = ManualClock(50.0)  # another epoch: the two clocks never mix up
        monkeypatch.setattr(ticking, 'time', types.SimpleNamespace(monotonic=self.steady))
        self.node = FakeNode(self.steady, self.ros)
        self.ticks: list[float] = []
        self.latencies: list[Optional[float]] = []
        self.again = False
        self.deadline: Optional[float] = None
        self.during_tick: Callable[[], None] = lambda: None
        self.ticker: Any = None

    def event(self, *, max_rate: float = 10.0, heartbeat: float = HOUR) -> Any:
        """Create an EventTicker (min interval 0.1 s by default) ticking :meth:`tick`."""
        from bt_executive.ros.ticking import EventTicker

        self.ticker = EventTicker(self.node, self.tick, max_rate=max_rate,
                                  heartbeat=heartbeat)
        return self.ticker

    def spinning(self) -> FakeExecutor:
        """Attach an executor to the node (the executive has been added to one)."""
        self.node.executor = FakeExecutor()
        return self.node.executor

    def tick(self) -> None:
        """Tick as Executive.tick_once does: note the tick, then plan the next one."""
        start = self.steady()
        self.latencies.append(self.ticker.ticked(start))
        self.ticks.append(start)
        self.during_tick()
        self.ticker.plan(again=self.again, deadline=self.deadline)

    def run_tasks(self) -> None:
        """Run the executor's queued tasks (and those they queue)."""
        executor = self.node.executor
        while executor is not None and executor.tasks:
            executor.tasks.pop(0)()

    def advance(self, seconds: float, *, ros: bool = True) -> None:
        """Let ``seconds`` of steady time pass, firing due timers in time order.

        The node clock moves along unless ``ros`` is False (simulated time standing
        still); tasks run before each timer, as an executor runs them before each wait.
        """
        end = self.steady.now + seconds
        while True:
            self.run_tasks()
            due = self._next_due(ros)
            if due is None or self.steady.now + due[0] > end + 1e-9:
                break
            self._move(due[0], ros)
            due[1].fire()
        self._move(end - self.steady.now, ros)
        self.run_tasks()

    def _next_due(self, ros: bool) -> Optional[tuple[float, FakeTimer]]:
        ready = []
        for timer in self.node.timers:
            if timer.canceled:
                continue
            delay = max(0.0, timer.due - timer.now())
            if not ros and self.node.on_node_clock(timer.clock) and delay > 0.0:
                continue  # the node clock stands still: it never becomes due
            ready.append((delay, timer.order, timer))
        if not ready:
            return None
        delay, _, timer = min(ready, key=lambda item: item[:2])
        return delay, timer

    def _move(self, seconds: float, ros: bool) -> None:
        self.steady.now += seconds
        if ros:
            self.ros.now += seconds


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    """Give a rig on manual clocks; destroy its ticker afterwards."""
    made = Rig(monkeypatch)
    yield made
    if made.ticker is not None:
        made.ticker.destroy()


# --- TickTiming -------------------------------------------------------------------------

def test_timing_summarises_intervals_jitter_durations_and_latencies():
    from bt_executive.ros.ticking import TickTiming

    timing = TickTiming(window=3)
    timing.restart(0.1)
    timing.record(10.0, 0.002)
    timing.record(10.1, 0.004, latency=0.001)
    timing.record(10.25, 0.003)
    summary = timing.summary()
    assert summary['ticks'] == 3 and summary['window'] == 3
    assert summary['period_ms'] == 100.0
    assert summary['interval_ms'] == {'p50': 100.0, 'p99': 150.0, 'max': 150.0}
    assert summary['jitter_ms'] == {'p50': 0.0, 'p99': 50.0, 'max': 50.0}
    assert summary['duration_ms'] == {'p50': 3.0, 'p99': 4.0, 'max': 4.0}
    assert summary['wake_latency_ms'] == {'p50': 1.0, 'p99': 1.0, 'max': 1.0}
    timing.record(10.3, 0.001)  # the window keeps the last three
    assert timing.summary()['window'] == 3 and timing.summary()['ticks'] == 4
    assert timing.summary()['duration_ms']['max'] == 4.0


def test_timing_restart_forgets_the_history_but_not_the_tick_count():
    from bt_executive.ros.ticking import TickTiming

    timing = TickTiming()
    timing.restart(0.1)
    timing.record(1.0, 0.001, latency=0.5)
    timing.record(1.1, 0.001)
    timing.restart(None)  # event mode: no period, so no jitter
    timing.record(5.0, 0.002)  # the first tick after a restart has no interval
    summary = timing.summary()
    assert summary['ticks'] == 3 and summary['window'] == 1
    assert summary['interval_ms'] == {'p50': 0.0, 'p99': 0.0, 'max': 0.0}
    assert 'period_ms' not in summary and 'jitter_ms' not in summary
    assert 'wake_latency_ms' not in summary


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), max_size=60),
       size=st.integers(min_value=1, max_value=12))
def test_a_sorted_window_gives_the_percentiles_of_its_last_values(values, size):
    from bt_executive.ros.ticking import SortedWindow

    window = SortedWindow(size)
    for index, value in enumerate(values):
        window.append(value)
        kept = sorted(values[max(0, index + 1 - size):index + 1])
        assert len(window) == len(kept)
        rank = {fraction: kept[min(len(kept) - 1, math.ceil(fraction * len(kept)) - 1)]
                for fraction in (0.5, 0.99)}
        assert window.percentiles() == {'p50': round(rank[0.5] * 1e3, 3),
                                        'p99': round(rank[0.99] * 1e3, 3),
                                        'max': round(kept[-1] * 1e3, 3)}
    window.clear()
    assert len(window) == 0 and window.percentiles() == {'p50': 0.0, 'p99': 0.0, 'max': 0.0}


def test_process_age_is_the_age_of_this_process():
    from bt_executive.ros.ticking import process_age

    age = process_age()
    assert age is not None and 0.0 < age < 7 * 24 * HOUR


# --- EventTicker ------------------------------------------------------------------------

def test_a_request_before_spinning_ticks_on_the_first_spin_and_is_not_a_latency(rig):
    ticker = rig.event()
    ticker.request()  # the executive asks while it is built: no executor yet
    ticker.request_now()  # the same before spinning
    rig.advance(0.001)
    assert rig.ticks == [pytest.approx(1000.0, abs=1e-5)] and rig.latencies == [None]
    rig.advance(HOUR - 1.0)
    assert len(rig.ticks) == 1  # settled: nothing until the heartbeat


def test_requests_coalesce_into_one_task_and_one_tick(rig):
    ticker = rig.event()
    executor = rig.spinning()
    for _ in range(5):
        ticker.request()
        rig.steady.now += 0.01
    assert len(executor.tasks) == 1
    rig.advance(0.0)
    assert rig.ticks == [pytest.approx(1000.05)]
    assert rig.latencies == [pytest.approx(0.05)]  # from the first request of the burst
    rig.advance(10.0)
    assert len(rig.ticks) == 1


def test_a_request_answered_by_a_tick_in_between_does_not_tick_again(rig):
    ticker = rig.event()
    executor = rig.spinning()
    ticker.request()
    ticker.request_now()  # ticks at once: the queued task finds nothing left to do
    assert len(rig.ticks) == 1 and len(executor.tasks) == 1
    rig.advance(1.0)
    assert len(rig.ticks) == 1


def test_the_rate_cap_turns_a_burst_into_one_tick_per_interval(rig):
    ticker = rig.event(max_rate=10.0)
    rig.spinning()
    ticker.request_now()
    assert rig.ticks == [1000.0]
    for _ in range(90):  # a request every 5 ms, the last at 0.45 s
        rig.advance(0.005)
        ticker.request()
        ticker.request_now()
    rig.advance(0.2)
    assert rig.ticks == pytest.approx([1000.0, 1000.1, 1000.2, 1000.3, 1000.4, 1000.5])
    # each deferred tick answers every request made since the tick before it
    # (timers are armed to the microsecond, so "at" is within one)
    assert all(latency is not None and latency <= 0.1 + 1e-5 for latency in rig.latencies[1:])


def test_request_now_ticks_inside_the_callback_when_the_cap_allows(rig):
    ticker = rig.event(max_rate=10.0)
    executor = rig.spinning()
    ticker.request_now()
    assert rig.ticks == [1000.0] and rig.latencies == [0.0] and not executor.tasks
    rig.steady.now += 0.05
    ticker.request_now()  # too soon: deferred to the allowed moment, not dropped
    assert len(rig.ticks) == 1
    rig.advance(0.06)
    assert rig.ticks == pytest.approx([1000.0, 1000.1])
    assert rig.latencies[1] == pytest.approx(0.05, abs=1e-5)


def test_request_now_inside_a_tick_is_a_plain_request(rig):
    ticker = rig.event(max_rate=10.0)
    executor = rig.spinning()
    depth = []

    def during_tick() -> None:  # e.g. a leaf's callback run by the tick itself
        depth.append(len(rig.ticks))
        if len(rig.ticks) == 1:
            ticker.request_now()
            assert len(rig.ticks) == 1, 'ticked re-entrantly'

    rig.during_tick = during_tick
    ticker.request_now()
    assert len(executor.tasks) == 1
    rig.advance(0.1)
    assert rig.ticks == pytest.approx([1000.0, 1000.1]) and depth == [1, 2]


def test_plan_again_ticks_at_the_next_allowed_moment_until_settled(rig):
    ticker = rig.event(max_rate=10.0)
    rig.spinning()

    def during_tick() -> None:  # not settled for three ticks (e.g. a loop's iterations)
        rig.again = len(rig.ticks) < 3

    rig.during_tick = during_tick
    ticker.request_now()
    rig.advance(10.0)
    assert rig.ticks == pytest.approx([1000.0, 1000.1, 1000.2])
    assert rig.latencies == [0.0, None, None]  # progress is not a wake-up


def test_a_deadline_ticks_when_due_on_the_node_clock(rig):
    ticker = rig.event(max_rate=10.0)
    rig.spinning()
    rig.deadline = rig.ros() + 0.5  # e.g. a Wait that ends in half a second
    ticker.request_now()
    rig.deadline = None
    rig.advance(2.0, ros=False)  # simulated time stands still: the deadline is not due
    assert len(rig.ticks) == 1
    rig.ros.now += 0.5  # simulated time jumps to the deadline
    rig.advance(0.0)
    assert rig.ticks == [1000.0, 1002.0]


def test_an_earlier_deadline_replaces_a_later_one_not_the_reverse(rig):
    ticker = rig.event()
    rig.spinning()
    ticker.request_now()
    now = rig.ros()
    ticker.plan(again=False, deadline=now + 5.0)
    ticker.plan(again=False, deadline=now + 2.0)
    ticker.plan(again=False, deadline=now + 3.0)  # already due earlier: kept at 2.0
    rig.advance(10.0)
    assert rig.ticks == [1000.0, 1002.0]


def test_the_heartbeat_comes_a_heartbeat_after_the_last_tick(rig):
    ticker = rig.event(heartbeat=1.0)
    rig.spinning()
    rig.advance(0.5)
    ticker.request_now()  # a tick restarts the heartbeat period
    rig.advance(0.99)
    assert rig.ticks == [1000.5]
    rig.advance(0.01)
    assert rig.ticks == pytest.approx([1000.5, 1001.5])
    rig.advance(2.0)
    assert rig.ticks == pytest.approx([1000.5, 1001.5, 1002.5, 1003.5])
    assert rig.latencies[1:] == [None, None, None]


def test_a_request_right_after_a_heartbeat_tick_is_not_held_back(rig):
    ticker = rig.event(max_rate=10.0, heartbeat=1.0)
    rig.spinning()
    rig.advance(1.0)
    assert rig.ticks == [1001.0]  # the heartbeat: nobody asked for it
    rig.steady.now += 0.01
    ticker.request_now()  # e.g. a low battery 10 ms later: ticks now, not at 1001.1
    assert rig.ticks == pytest.approx([1001.0, 1001.01]) and rig.latencies[-1] == 0.0
    rig.steady.now += 0.01
    ticker.request_now()  # after a requested tick the cap holds as before
    assert len(rig.ticks) == 2
    rig.advance(0.2)
    assert rig.ticks == pytest.approx([1001.0, 1001.01, 1001.11])


def test_a_request_right_after_a_deadline_tick_is_not_held_back(rig):
    ticker = rig.event(max_rate=10.0)
    executor = rig.spinning()
    rig.deadline = rig.ros() + 0.5  # e.g. a server check of an Action leaf
    ticker.request_now()
    rig.deadline = None
    rig.advance(0.5)
    assert rig.ticks == [1000.0, 1000.5]
    rig.steady.now += 0.02
    ticker.request()  # through the executor's task, as a leaf's callback asks
    rig.run_tasks()
    assert rig.ticks == pytest.approx([1000.0, 1000.5, 1000.52]) and not executor.tasks


def test_the_pace_after_an_unasked_tick_still_bounds_a_storm(rig):
    ticker = rig.event(max_rate=10.0, heartbeat=1.0)
    rig.spinning()
    rig.advance(1.0)
    for _ in range(60):  # a request every 5 ms right after the heartbeat tick
        rig.advance(0.005)
        ticker.request_now()
    rig.advance(0.2)
    # one tick at once, then one per interval: never two ticks closer than the cap
    # but for the one right after the heartbeat
    gaps = [later - earlier for earlier, later in zip(rig.ticks[1:], rig.ticks[2:])]
    assert rig.ticks[1] == pytest.approx(1001.005)
    assert gaps and min(gaps) >= 0.1 - 1e-6, gaps


def test_deadlines_and_requests_interleaved_stay_within_the_rate(rig):
    # a deadline due every interval and a request right after each: without the two free
    # intervals before an unasked tick this would be two ticks per interval
    ticker = rig.event(max_rate=10.0)
    rig.spinning()
    ticker.request_now()
    for _ in range(30):
        rig.deadline = rig.ros() + 0.1
        ticker.plan(again=False, deadline=rig.deadline)
        rig.advance(0.1)
        rig.steady.now += 0.001
        ticker.request_now()
    rig.advance(0.2)
    seconds = rig.ticks[-1] - rig.ticks[0]
    assert len(rig.ticks) - 1 <= seconds * 10.0 + 1, rig.ticks


def test_ticks_do_not_restart_the_heartbeat_timer(rig, monkeypatch):
    # re-arming an rclpy timer goes through rcl and the EventsExecutor's timer thread (a
    # tick once waited 24 ms there): the reaction path (message in, tick, cancel) must not
    ticker = rig.event(max_rate=100.0, heartbeat=1.0)
    rig.spinning()
    resets: list[float] = []
    monkeypatch.setattr(FakeTimer, 'reset', lambda timer, original=FakeTimer.reset: (
        resets.append(rig.steady()), original(timer))[1])
    for _ in range(19):  # a requested tick every 50 ms, the last at 1000.95
        rig.advance(0.05)
        ticker.request_now()
    assert len(rig.ticks) == 19 and resets == []
    # at 1001.0 the heartbeat timer finds a tick 50 ms old: it re-arms itself (in its own
    # callback) for a heartbeat after that tick, fires then, ticks and re-arms again
    rig.advance(1.5)
    assert rig.ticks[-1] == pytest.approx(1001.95) and len(rig.ticks) == 20
    assert resets == pytest.approx([1001.0, 1001.95])


def test_destroy_releases_the_timers_and_ignores_later_requests(rig):
    ticker = rig.event()
    executor = rig.spinning()
    ticker.request_now()
    ticker.plan(again=True, deadline=rig.ros() + 1.0)
    assert len(rig.node.timers) == 3  # heartbeat, pace, deadline
    ticker.destroy()
    ticker.destroy()  # idempotent
    assert rig.node.timers == []
    ticker.request()
    ticker.request_now()
    ticker.plan(again=True, deadline=rig.ros() + 1.0)
    rig.advance(HOUR)
    assert rig.ticks == [1000.0] and not executor.tasks


def test_rearming_reuses_one_timer(rig):
    # a timer per arming grew the node for good (rclpy keeps every entity; the soak test)
    ticker = rig.event(max_rate=10.0)
    rig.spinning()
    rig.again = True
    ticker.request_now()
    rig.advance(1.05)
    assert len(rig.ticks) == 11
    assert rig.node.created == 2  # the heartbeat and one pace timer, re-armed ten times


# --- PeriodicTicker ---------------------------------------------------------------------

def test_the_periodic_ticker_ticks_at_its_rate_on_the_node_clock(rig):
    from bt_executive.ros.ticking import PeriodicTicker

    ticks: list[float] = []
    ticker = PeriodicTicker(rig.node, lambda: ticks.append(rig.ros()), rate=4.0)
    assert ticker.period == 0.25 and not ticker.event_driven
    ticker.request()
    ticker.request_now()
    ticker.plan(again=True, deadline=rig.ros())  # all ignored: the timer ticks anyway
    assert ticker.ticked(rig.steady()) is None
    rig.advance(1.0)
    assert ticks == pytest.approx([50.25, 50.5, 50.75, 51.0])
    rig.advance(1.0, ros=False)  # paused simulated time: no ticks
    assert len(ticks) == 4
    ticker.destroy()
    ticker.destroy()
    assert rig.node.timers == []
    rig.advance(1.0)
    assert len(ticks) == 4


def test_event_ticker_constants(rig):
    ticker = rig.event(max_rate=20.0, heartbeat=2.0)
    assert ticker.event_driven and ticker.min_interval == 0.05 and ticker.heartbeat == 2.0
    assert ticker.last_tick == -math.inf and ticker.requested_at is None


def test_timer_callbacks_answer_rclpy_signature_reads_without_computing_them():
    """Timer callbacks carry their signature: rclpy reads it on every call.

    The same object comes back each time (nothing is unwrapped or computed), also through
    a fleet executive's blackboard wrapper (functools.wraps), and the call goes through.
    """
    import inspect

    from bt_executive.ros.blackboards import BlackboardSpace
    from bt_executive.ros.spin import timer_callback

    calls = []

    class Ticks:
        def tick(self) -> None:
            calls.append('tick')

    callback = timer_callback(Ticks().tick)
    ready = vars(callback).get('__signature__')
    assert ready is not None and not ready.parameters
    assert inspect.signature(callback) is ready
    wrapped = BlackboardSpace('robot1').entered(callback)
    assert inspect.signature(wrapped) is ready
    wrapped()
    assert calls == ['tick']
    assert callback.__qualname__.endswith('Ticks.tick')
