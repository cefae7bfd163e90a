# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Rate-limited debug lines about what the executive decides.

``--ros-args --log-level bt_executive:=debug`` (the node's logger; ``<ns>.bt_executive`` in
a namespace) shows why each tick happened and what the executive planned after it, the
goals and requests the ROS leaves send and the cancels they request, and tree loads,
swaps, pauses and releases. Each topic (``tick``, ``goal``, ``tree``, ``clock``) may write
a burst of :data:`BURST` lines and then :data:`RATE` lines a second; lines over that are
counted, and the topic's next line says how many were left out. So a tree ticking at
1 kHz writes at most a few lines a second, and the cost with debug off is one check of
the logger's level.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Union

from rclpy.logging import LoggingSeverity

#: Lines a topic may write at once before the rate applies.
BURST = 20

#: Lines a second each topic may write after its burst.
RATE = 5.0

Text = Union[str, Callable[[], str]]


class DebugLog:
    """Write rate-limited debug lines to a ROS logger (see the module docstring).

    Args:
        logger: an rclpy logger (anything with ``debug`` and ``is_enabled_for``)
        burst: lines per topic before the rate applies
        rate: lines per second per topic after the burst
        clock: monotonic seconds
    """

    def __init__(self, logger: Any, *, burst: int = BURST, rate: float = RATE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._enabled = getattr(logger, 'is_enabled_for', None)
        self._burst = float(burst)
        self._rate = rate
        self._clock = clock
        self._buckets: dict[str, list[float]] = {}  # topic -> [tokens, last time, left out]

    @property
    def enabled(self) -> bool:
        """Tell whether the logger writes debug lines now (its level can change at runtime)."""
        return self._enabled is not None and self._enabled(LoggingSeverity.DEBUG)

    def __call__(self, topic: str, text: Text) -> bool:
        """Write ``topic: text`` unless the topic is over its rate; return True if written.

        ``text`` may be a callable, called only when the line is written.
        """
        if not self.enabled:
            return False
        now = self._clock()
        bucket = self._buckets.get(topic)
        if bucket is None:
            bucket = self._buckets[topic] = [self._burst, now, 0.0]
        tokens = min(self._burst, bucket[0] + (now - bucket[1]) * self._rate)
        bucket[1] = now
        if tokens < 1.0:
            bucket[0] = tokens
            bucket[2] += 1
            return False
        bucket[0] = tokens - 1.0
        left_out, bucket[2] = int(bucket[2]), 0.0
        line = text() if callable(text) else text
        if left_out:
            line += f' ({left_out} {topic} lines left out by the rate limit)'
        self._logger.debug(f'{topic}: {line}')
        return True


__all__ = ['BURST', 'DebugLog', 'RATE']
