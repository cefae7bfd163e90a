# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""When the executive ticks: periodic ticking, event-driven ticking, and tick timing.

Two modes, chosen by the executive's ``tick_mode`` parameter:

``periodic``
    A timer on the node clock ticks the tree ``tick_rate`` times per second.

``event``
    The tree is ticked when something it depends on happens, and otherwise sleeps:

    * a callback calls :meth:`EventTicker.request` (a subscribed blackboard key the tree
      reads changed, an action or service future completed, feedback or a status message
      arrived, a server appeared); requests made while a tick is pending coalesce;
    * a tick that moved a status asks for another tick (the tree is not settled yet:
      e.g. a loop starts its next iteration on the next tick);
    * the earliest deadline of a time-based node (``wake_at()``: Wait, Timeout, Delay,
      Cooldown, leaf timeouts, stale data) arms a one-shot timer on the node clock, so
      simulated time drives deadlines too;
    * a heartbeat tick comes ``heartbeat_period`` seconds (steady clock) after the last
      tick, whatever happened;
    * ticks are never closer than ``1 / max_tick_rate`` seconds (steady clock): a burst
      of requests becomes one tick at the next allowed moment. One exception: a tick
      nobody asked for (a heartbeat or a deadline) that came at least two intervals
      after the tick before it does not hold back the requested tick after it, which
      may come at once. Such ticks come at times of their own (a server check every
      second, say), and about one reaction in a hundred would otherwise wait up to
      ``1 / max_tick_rate`` behind one. A request after a requested tick still waits its
      turn, so a storm of requests is paced as before, and the two intervals keep the
      rate within ``max_tick_rate`` however deadlines and requests interleave.

Requests are posted to the executor as a task, so a tick never runs inside another
callback (a leaf's callback finishes before the tree sees its result). The one exception
is the blackboard feed (:meth:`EventTicker.request_now`): its subscription callback has
stored everything when it asks, so it ticks at once, at its end, when the rate cap allows.
That saves an executor dispatch (0.1-1 ms here) on the reaction path: message in, tree
ticked, goal cancelled, in one callback.

Nothing on that path touches a timer: re-arming an rclpy timer calls into rcl and, under
the EventsExecutor, its timer thread, and on a loaded machine one tick waited 24 ms there
(BENCHMARKS.md, reaction latency). So the heartbeat is not restarted by every tick: its
one-shot timer fires a heartbeat after the tick it was armed from and, if a tick came
since, re-arms itself (inside its own callback) for a heartbeat after that one.
"""

from __future__ import annotations

import bisect
import collections
import math
import os
import time
from typing import Any, Callable, Optional, Protocol

from bt_executive.core.schedule import EventSchedule
from bt_executive.ros.spin import timer_callback
from rclpy.clock import Clock, ClockType

#: Ticks kept for the timing percentiles in ~/status.
TIMING_WINDOW = 1000
#: Seconds a timer may fire before its time as computed here (nanosecond rounding).
TIMER_SLACK = 1e-4


def process_age() -> Optional[float]:
    """Return seconds since this process started (Linux ``/proc``), or None elsewhere."""
    try:
        with open('/proc/self/stat', 'rb') as stream:
            fields = stream.read().rsplit(b')', 1)[1].split()
        started = int(fields[19]) / os.sysconf('SC_CLK_TCK')  # field 22: starttime
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class SortedWindow:
    """The last ``size`` values, kept in arrival order and in sorted order at once.

    ~/status reports percentiles of the last :data:`TIMING_WINDOW` ticks on every change
    of the root's status, right after a tick that may have sent a goal or a cancel.
    Sorting four windows of 1000 values there cost 0.14 ms of CPU per status (more than
    the rest of it together), which the receiver of that cancel waited behind on a
    busy machine (BENCHMARKS.md, reaction latency). Kept sorted, each new value costs
    two binary searches and a short memory move (under 1 us), and a percentile is one
    index.
    """

    __slots__ = ('_order', '_sorted', '_size')

    def __init__(self, size: int) -> None:
        self._order: collections.deque = collections.deque()
        self._sorted: list[float] = []
        self._size = size

    def __len__(self) -> int:
        return len(self._order)

    def append(self, value: float) -> None:
        """Add ``value``, dropping the oldest one when the window is full."""
        if len(self._order) >= self._size:
            oldest = self._order.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, oldest)]
        self._order.append(value)
        bisect.insort(self._sorted, value)

    def clear(self) -> None:
        """Forget every value."""
        self._order.clear()
        self._sorted.clear()

    def percentiles(self) -> dict[str, float]:
        """Return p50, p99 (nearest rank) and the maximum, in milliseconds, rounded to 1 us."""
        ordered = self._sorted
        if not ordered:
            return {'p50': 0.0, 'p99': 0.0, 'max': 0.0}
        last = len(ordered) - 1

        def at(fraction: float) -> float:
            return round(ordered[min(last, math.ceil(fraction * len(ordered)) - 1)] * 1e3, 3)
        return {'p50': at(0.5), 'p99': at(0.99), 'max': round(ordered[-1] * 1e3, 3)}


class Ticker(Protocol):
    """Decide when the executive ticks (the seam of the periodic, event and harness tickers).

    Implemented by :class:`PeriodicTicker`, :class:`EventTicker`, :class:`IdleTicker` and
    the scenario harness's ``LockstepTicker``.

    The core calls :meth:`ticked` at the start of each tick, and, in event mode,
    :meth:`plan` after it; leaves and the blackboard feed call :meth:`request` and
    :meth:`request_now` (through the core) from their callbacks.
    """

    #: True when ticks follow requests (event mode): the core plans after each tick
    event_driven: bool
    #: the seconds between ticks: the period, ``1 / max_tick_rate``, None when idle
    interval: Optional[float]

    def request(self, source: Any = None) -> None:
        """Ask for a tick soon (``source``: who asks, for the debug log)."""

    def request_now(self, source: Any = None) -> None:
        """Ask for a tick at once if allowed (from a callback that has done its work)."""

    def ticked(self, start: float) -> Optional[float]:
        """Note a tick starting at ``start`` (monotonic); return its wake latency, if any."""

    def plan(self, *, again: bool, deadline: Optional[float]) -> None:
        """After a tick: tick ``again`` soon and/or at ``deadline`` (node-clock seconds)."""

    def explain(self, record: Any, name: Callable[[Any], str], *, settled: bool,
                deadline: Optional[float]) -> str:
        """Describe a tick and what was planned after it, for the debug log."""

    def destroy(self) -> None:
        """Release the timers (idempotent)."""


class TickTiming:
    """Tick intervals, jitter, durations and wake latencies over the last ticks.

    Args:
        window: how many ticks the percentiles cover
    """

    def __init__(self, window: int = TIMING_WINDOW) -> None:
        self.ticks = 0
        self.period: Optional[float] = None
        self._last_start: Optional[float] = None
        self._intervals = SortedWindow(window)
        self._jitter = SortedWindow(window)
        self._durations = SortedWindow(window)
        self._latencies = SortedWindow(window)

    def restart(self, period: Optional[float]) -> None:
        """Forget the history (the tick mode or rate changed); ``period`` in seconds."""
        self.period = period
        self._last_start = None
        for series in (self._intervals, self._jitter, self._durations, self._latencies):
            series.clear()

    def record(self, start: float, duration: float, latency: Optional[float] = None) -> None:
        """Record one tick: its start (clock seconds), duration and wake latency."""
        self.ticks += 1
        if self._last_start is not None:
            interval = start - self._last_start
            self._intervals.append(interval)
            if self.period is not None:
                self._jitter.append(abs(interval - self.period))
        self._last_start = start
        self._durations.append(duration)
        if latency is not None:
            self._latencies.append(latency)

    def summary(self) -> dict[str, Any]:
        """Return the percentiles in milliseconds (JSON data for ~/status)."""
        data: dict[str, Any] = {
            'ticks': self.ticks,
            'window': len(self._durations),
            'interval_ms': self._intervals.percentiles(),
            'duration_ms': self._durations.percentiles(),
        }
        if self.period is not None:
            data['period_ms'] = round(self.period * 1e3, 3)
            data['jitter_ms'] = self._jitter.percentiles()
        if self._latencies:
            data['wake_latency_ms'] = self._latencies.percentiles()
        return data


class _OneShot:
    """A timer that fires once at a given time; re-arming reuses the one rclpy timer.

    Creating a timer per arming would grow the node: rclpy's callback group keeps a
    reference of every entity ever created (found by the soak), so one timer is made
    once and re-armed by changing its period and resetting it. Re-arming happens inside
    executor callbacks (ticks, requests), where it is free; under rclpy's EventsExecutor,
    resetting a timer that has fired from *outside* a callback leaks about 80 bytes a
    time. test_ticking_memory.py pins both.
    """

    def __init__(self, node: Any, clock: Clock, now: Callable[[], float],
                 callback: Callable[[], None]) -> None:
        self._node = node
        self._clock = clock
        self._now = now
        self._callback = callback
        self._timer: Any = None
        self.due: Optional[float] = None

    def arm(self, when: float) -> None:
        """Fire at ``when`` (seconds on this timer's clock) unless already due earlier."""
        if self.due is not None and self.due <= when:
            return
        self.due = when
        delay_ns = max(int((when - self._now()) * 1e9), 1000)
        if self._timer is None:
            self._timer = self._node.create_timer(delay_ns * 1e-9, timer_callback(self._fire),
                                                  clock=self._clock)
        else:
            self._timer.timer_period_ns = delay_ns
            self._timer.reset()

    def _fire(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.due = None
        self._callback()

    def cancel(self) -> None:
        """Disarm (the timer is kept for the next arming)."""
        if self._timer is not None:
            self._timer.cancel()
        self.due = None

    def destroy(self) -> None:
        """Disarm and release the timer."""
        if self._timer is not None:
            self._timer.cancel()
            self._node.destroy_timer(self._timer)
            self._timer = None
        self.due = None


class EventTicker:
    """Event-driven tick scheduling on an rclpy node (see the module docstring).

    Args:
        node: the node whose executor runs the ticks
        tick: ticks the tree once (called from timer and guard callbacks only)
        max_rate: the highest tick rate, Hz
        heartbeat: seconds from one tick to the next when nothing happens
    """

    event_driven = True

    def __init__(self, node: Any, tick: Callable[[], None], *, max_rate: float,
                 heartbeat: float) -> None:
        self._node = node
        self._tick = tick
        self.min_interval = self.interval = 1.0 / max_rate
        self.heartbeat = heartbeat
        #: the pacing rule (steady-clock seconds), shared with the scenario harness
        self.schedule = EventSchedule(min_interval=self.min_interval, heartbeat=heartbeat)
        self.requested_at: Optional[float] = None
        #: Why the last tick happened: (trigger, first requester, requests), see :meth:`why`
        self.reason: tuple[str, Any, int] = ('start', None, 0)
        self._source: Any = None
        self._requests = 0
        self._trigger = ''
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._pending = False
        self._ticking = False
        self._pace = _OneShot(node, steady, time.monotonic, self.kick)
        self._deadline = _OneShot(node, node.get_clock(),
                                  lambda: node.get_clock().now().nanoseconds * 1e-9,
                                  lambda: self._kick_for('deadline'))
        self._heartbeat: Optional[_OneShot] = _OneShot(node, steady, time.monotonic,
                                                       self._on_heartbeat)
        self._heartbeat.arm(time.monotonic() + heartbeat)

    @property
    def last_tick(self) -> float:
        """Return when the last tick started (monotonic seconds; -inf before the first)."""
        return self.schedule.last

    def _note(self, source: Any) -> None:
        """Remember who asked first since the last tick, and count the requests."""
        self._requests += 1
        if self._source is None:
            self._source = source if source is not None else 'a callback'

    def request(self, source: Any = None) -> None:
        """Ask for a tick soon (from any callback; cheap, coalescing).

        ``source`` (the behaviour or topic asking) is kept for the debug log only.
        """
        if self._heartbeat is None:  # destroyed
            return
        self._note(source)
        executor = self._node.executor
        if executor is None:
            # not spinning yet: a due timer ticks on the first spin. Not a wake-up latency
            # (the wait is the rest of start-up, reported as ``startup``), so not timed
            self._pace.arm(time.monotonic())
            return
        if self.requested_at is None:
            self.requested_at = time.monotonic()
        if not self._pending:
            self._pending = True
            executor.create_task(self._on_request)

    def request_now(self, source: Any = None) -> None:
        """Tick at once if allowed, else as :meth:`request` (from a finished callback only).

        For callbacks that have done all their work when they ask (the blackboard feed's
        subscriptions); never re-entrant: inside a tick, or before spinning, it is
        :meth:`request`.
        """
        if self._ticking or self._heartbeat is None or self._node.executor is None:
            self.request(source)
            return
        self._note(source)
        if self.requested_at is None:
            self.requested_at = time.monotonic()
        self.kick()

    def _on_request(self) -> None:
        self._pending = False
        # no request left: a tick since (request_now, a deadline) has answered it
        if self._heartbeat is not None and self.requested_at is not None:
            self.kick()

    def _kick_for(self, trigger: str) -> None:
        self._trigger = self._trigger or trigger
        self.kick()

    def _on_heartbeat(self) -> None:
        """Tick if no tick came for a heartbeat; else wait a heartbeat after the last one."""
        if self._heartbeat is None:  # destroyed
            return
        now = time.monotonic()
        due = self.schedule.heartbeat_due()
        if now < due - TIMER_SLACK:  # a tick came since this was armed
            self._heartbeat.arm(due)
            return
        self._kick_for('heartbeat')
        if self._heartbeat is not None:  # a tick that destroyed the ticker (a mode change)
            self._heartbeat.arm(max(self.schedule.last, now) + self.heartbeat)

    def kick(self) -> None:
        """Tick now if the rate cap allows, else at the earliest allowed moment."""
        schedule = self.schedule
        if schedule.may_tick(time.monotonic(), requested=self._source is not None):
            self._ticking = True
            try:
                self._tick()
            finally:
                self._ticking = False
        else:
            self._pace.arm(schedule.allowed())

    def ticked(self, start: float) -> Optional[float]:
        """Note a tick that started at ``start`` (monotonic); return its wake latency."""
        trigger = 'request' if self._source is not None else (self._trigger or 'again')
        self.reason = (trigger, self._source, self._requests)
        self.schedule.ticked(start, asked=trigger not in ('heartbeat', 'deadline'))
        self._source, self._requests, self._trigger = None, 0, ''
        requested, self.requested_at = self.requested_at, None
        return None if requested is None else max(0.0, start - requested)

    def why(self, name: Callable[[Any], str] = str) -> str:
        """Describe why the last tick happened (``name`` renders a requester)."""
        trigger, source, requests = self.reason
        if trigger == 'request':
            more = f' (+{requests - 1} more requests)' if requests > 1 else ''
            return f'requested by {name(source)}{more}'
        return {'start': 'the first tick', 'heartbeat': f'heartbeat ({self.heartbeat:g} s '
                'without a tick)', 'deadline': 'a time-based node or max_age deadline',
                'again': 'the last tick had not settled'}.get(trigger, trigger)

    def explain(self, record: Any, name: Callable[[Any], str], *, settled: bool,
                deadline: Optional[float]) -> str:
        """Describe a tick and what was planned after it, for the debug log.

        Args:
            record: the tick's TickRecord
            name: renders a requester (a leaf's node path, a topic)
            settled: whether the tick moved nothing (no transition, no write)
            deadline: the next deadline of a time-based node (node-clock seconds)
        """
        if not settled:
            plan = 'not settled: ticking again'
        elif deadline is not None:
            plan = f'settled: next tick at a deadline in {deadline - record.time:.3f} s'
        else:
            plan = f'settled: sleeping until a request or the {self.heartbeat:g} s heartbeat'
        return (f'#{record.tick} {self.why(name)}: root {record.root_status.name}, '
                f'{len(record.transitions)} transitions; {plan}')

    def plan(self, *, again: bool, deadline: Optional[float]) -> None:
        """After a tick: tick ``again`` soon, and/or at ``deadline`` (node-clock seconds)."""
        if self._heartbeat is None:  # destroyed
            return
        if again:
            self._pace.arm(self.schedule.allowed())
        if deadline is not None:
            self._deadline.arm(deadline)

    def planned(self) -> dict[str, Optional[float]]:
        """Return when each timer fires next (None: disarmed), for a diagnosis.

        ``pace`` and ``heartbeat`` on the steady clock, ``deadline`` on the node clock.
        """
        return {'pace': self._pace.due, 'deadline': self._deadline.due,
                'heartbeat': self._heartbeat.due if self._heartbeat is not None else None}

    def destroy(self) -> None:
        """Release the timers (idempotent)."""
        self._pace.destroy()
        self._deadline.destroy()
        if self._heartbeat is not None:
            self._heartbeat.destroy()
            self._heartbeat = None


class IdleTicker:
    """Never ticks: the ticker of a managed executive that is not active.

    Requests from leaves and the blackboard feed are dropped; activation replaces it with
    a :class:`PeriodicTicker` or an :class:`EventTicker` (bt_executive/ros/lifecycle.py).
    :class:`PeriodicTicker` extends it with its timer: it ignores requests the same way.
    """

    event_driven = False
    period: Optional[float] = None
    interval: Optional[float] = None

    def request(self, source: Any = None) -> None:
        """Drop the request: no request makes a tick here."""

    def request_now(self, source: Any = None) -> None:
        """Drop the request, as :meth:`request`."""

    def ticked(self, start: float) -> Optional[float]:
        """Nothing to note; no wake latency."""
        return None

    def plan(self, *, again: bool, deadline: Optional[float]) -> None:
        """Nothing to plan."""

    def explain(self, record: Any, name: Callable[[Any], str], *, settled: bool,
                deadline: Optional[float]) -> str:
        """Describe a tick (never planned here)."""
        return f'#{record.tick}: root {record.root_status.name}'

    def destroy(self) -> None:
        """Nothing to release."""


class PeriodicTicker(IdleTicker):
    """Ticks at a fixed rate on the node clock; requests are ignored (the next tick comes).

    Args:
        node: the node whose executor runs the ticks
        tick: ticks the tree once
        rate: ticks per second
        phase: where in the period the ticks fall, a fraction (0 <= phase < 1) of the
            period after a steady-clock multiple of it; None: from now. Executives
            sharing a process get different phases, so their ticks do not come due
            together (bt_executive/ros/fleet.py). With a phase, the timer is re-armed at
            each tick for the next moment of that phase: a tick that came late (the
            executor was busy) does not move the ones after it. Under simulated time
            (``use_sim_time``) the phase is not used: /clock paces the ticks.
    """

    def __init__(self, node: Any, tick: Callable[[], None], *, rate: float,
                 phase: Optional[float] = None) -> None:
        self._node = node
        self._tick = tick
        self.period = self.interval = 1.0 / rate
        self._phase = phase
        if phase is None or getattr(node.get_clock(), 'ros_time_is_active', False):
            self._timer = node.create_timer(self.period, timer_callback(tick))
        else:
            self._timer = node.create_timer(self._until_phase(), timer_callback(self._on_phase),
                                            clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _until_phase(self) -> float:
        """Return the seconds to the next moment of the phase (a quarter period at least)."""
        assert self._phase is not None
        delay = (self._phase * self.period - time.monotonic()) % self.period
        return delay + self.period if delay < 0.25 * self.period else delay

    def _on_phase(self) -> None:
        if self._timer is None:
            return
        self._timer.timer_period_ns = max(1000, int(self._until_phase() * 1e9))
        self._timer.reset()  # inside the timer's callback (see _OneShot)
        self._tick()

    def destroy(self) -> None:
        """Release the timer (idempotent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._node.destroy_timer(self._timer)
            self._timer = None
