# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The rule of event-driven ticking, once: when the next tick may come, and when it is due.

Used by the executive's :class:`~bt_executive.ros.ticking.EventTicker` (on the steady
clock, with rclpy timers) and by the scenario harness's
:class:`~bt_executive.testing.harness.LockstepTicker` (in simulated nanoseconds, with
no timer at all); the numbers are in whatever unit the caller uses, consistently.

The rule: ticks are never closer than ``min_interval``; a heartbeat tick comes
``heartbeat`` after the last tick; a tick nobody asked for (a heartbeat or a deadline)
that came at least two intervals after the tick before it does not hold back a requested
tick after it, which may come at once (so a reaction does not wait behind a tick of its
own timing); a request after a requested tick waits its turn.
"""

from __future__ import annotations

import math
from typing import Optional


class EventSchedule:
    """Pace event-driven ticks (see the module docstring).

    Args:
        min_interval: the least time between two ticks (``1 / max_tick_rate``)
        heartbeat: the time from one tick to the next when nothing happens
    """

    __slots__ = ('min_interval', 'heartbeat', 'last', 'previous', 'unasked')

    def __init__(self, *, min_interval: float, heartbeat: float) -> None:
        self.min_interval = min_interval
        self.heartbeat = heartbeat
        #: when the last tick started (-inf before the first)
        self.last: float = -math.inf
        #: when the tick before it started
        self.previous: float = -math.inf
        #: the last tick was unasked (heartbeat, deadline) and came after a free stretch
        self.unasked = False

    def allowed(self) -> float:
        """Return the earliest time the rate cap allows the next tick at."""
        return self.last + self.min_interval

    def may_tick(self, now: float, *, requested: bool) -> bool:
        """Tell whether a tick may start at ``now`` (``requested``: someone asked for it)."""
        return now >= self.last + self.min_interval or (self.unasked and requested)

    def ticked(self, start: float, *, asked: bool) -> None:
        """Note a tick at ``start``; ``asked``: it answered a request or an unsettled tick."""
        self.previous, self.last = self.last, start
        # two intervals free before it: the pair it may start stays within the rate
        self.unasked = not asked and start - self.previous >= 2.0 * self.min_interval

    def heartbeat_due(self) -> float:
        """Return when a heartbeat tick is due if nothing else comes."""
        return self.last + self.heartbeat

    def next_tick(self, *, requested: bool, again: bool,
                  deadline: Optional[float]) -> float:
        """Return when the next tick is due, given what is pending.

        Args:
            requested: a tick was asked for since the last one
            again: the last tick did not settle
            deadline: the earliest deadline of a time-based node, if any
        """
        earliest = self.allowed()
        candidates = [self.heartbeat_due()]
        if requested and self.unasked:  # not held back after an unasked tick
            candidates.append(self.last)
        elif requested or again:
            candidates.append(earliest)
        if deadline is not None:
            candidates.append(max(deadline, earliest))
        return min(candidates)


__all__ = ['EventSchedule']
