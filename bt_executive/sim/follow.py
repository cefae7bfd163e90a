# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Step a simulation on a clock it does not own (``sim_robot`` with ``publish_clock:=false``).

In a fleet one process publishes ``/clock``; every other simulated robot follows it with
``use_sim_time:=true``. A timer on a followed clock fires once per clock message, however
far the clock jumped, so a follower must advance by the time that passed, not by a fixed
step. :class:`ClockFollower` turns successive clock readings into model time steps.
"""

from __future__ import annotations

import math


class ClockFollower:
    """Turn readings of a followed clock into time steps of at most ``max_step`` seconds.

    The first reading, a reading of zero (no ``/clock`` message yet) and a clock that went
    backwards (a restarted clock owner) only set the reference: no time passes for them.

    Attributes:
        max_step: The longest model step (s); longer intervals are split evenly.
        last_ns: The reference reading (ns), or None before the first valid reading.
    """

    def __init__(self, max_step: float) -> None:
        """Follow a clock, stepping at most ``max_step`` seconds at a time."""
        if not (math.isfinite(max_step) and max_step > 0.0):
            raise ValueError(f'max_step must be a positive finite number, got {max_step!r}')
        self.max_step = max_step
        self.last_ns: int | None = None

    def advance(self, now_ns: int) -> list[float]:
        """Return the steps (s) that take the model from the last reading to ``now_ns``."""
        if now_ns <= 0:
            return []
        last, self.last_ns = self.last_ns, now_ns
        if last is None or now_ns <= last:
            return []
        elapsed = (now_ns - last) / 1e9
        count = max(1, math.ceil(elapsed / self.max_step - 1e-9))
        return [elapsed / count] * count
