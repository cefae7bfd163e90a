# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the executive's rate-limited debug log (bt_executive/ros/debuglog.py).

A recording stand-in for the rclpy logger and a clock moved by hand: no Context, no DDS.
test_ros_citizen.py checks the same lines in a real executive's console output.
"""

from typing import Any, Callable

from bt_executive.ros.debuglog import DebugLog
import pytest
from rclpy.logging import LoggingSeverity

pytestmark = pytest.mark.ros


class Logger:
    """Record debug lines; the level can be changed as rclpy's can at runtime."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = LoggingSeverity.DEBUG

    def is_enabled_for(self, severity: LoggingSeverity) -> bool:
        return severity >= self.level

    def debug(self, text: str) -> None:
        self.lines.append(text)


class Rig:
    def __init__(self, **limits: Any) -> None:
        self.now = 0.0
        self.logger = Logger()
        self.log = DebugLog(self.logger, clock=lambda: self.now, **limits)

    def write(self, count: int, topic: str = 'tick',
              text: Callable[[int], str] = lambda i: f'line {i}') -> None:
        for index in range(count):
            self.log(topic, text(index))


def test_a_burst_then_the_rate_and_the_next_line_counts_what_was_left_out():
    rig = Rig(burst=3, rate=2.0)
    rig.write(10)  # at one instant: the burst passes, the rest is counted
    assert rig.logger.lines == ['tick: line 0', 'tick: line 1', 'tick: line 2']
    rig.now = 0.5  # one line earned (2 a second)
    rig.write(4)
    assert rig.logger.lines[3:] == ['tick: line 0 (7 tick lines left out by the rate limit)']
    rig.now = 10.0  # a long quiet spell refills the burst, not more
    rig.write(5)
    assert len(rig.logger.lines) == 4 + 3
    assert rig.logger.lines[4] == 'tick: line 0 (3 tick lines left out by the rate limit)'


def test_lines_stay_bounded_however_fast_they_come():
    rig = Rig(burst=20, rate=5.0)
    for step in range(10_000):  # 1 kHz for 10 s
        rig.now = step * 1e-3
        rig.log('tick', 'fast')
    assert 20 + 5 * 9 <= len(rig.logger.lines) <= 20 + 5 * 10 + 1


def test_each_topic_has_its_own_limit():
    rig = Rig(burst=2, rate=1.0)
    rig.write(5, 'tick')
    rig.write(5, 'goal')
    assert rig.logger.lines == ['tick: line 0', 'tick: line 1', 'goal: line 0', 'goal: line 1']


def test_above_debug_nothing_is_written_or_even_formatted():
    rig = Rig()
    rig.logger.level = LoggingSeverity.INFO
    calls = []
    assert rig.log('tick', lambda: calls.append(1) or 'text') is False
    assert rig.logger.lines == [] and calls == [] and not rig.log.enabled
    rig.logger.level = LoggingSeverity.DEBUG  # turned on at runtime
    assert rig.log('tick', lambda: 'lazy') is True
    assert rig.logger.lines == ['tick: lazy']


def test_a_logger_without_levels_writes_nothing():
    log = DebugLog(object())
    assert log('tick', 'text') is False and not log.enabled
