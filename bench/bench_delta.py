# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: bytes per second of the live tree stream, full snapshots vs deltas, one run.

One patrol robot (the ``bt-executive demo`` bringup: the built-in sim and the executive
on config/patrol.yaml with config/executive.yaml, periodic 10 Hz, wall-clock time) drives
its rounds. With ``snapshot_on_change`` (the default) the executive publishes both the
full ``~/snapshot`` and the ``~/snapshot_delta`` of every change, so the two streams are
measured side by side over the same ticks: the bytes of the ``std_msgs/String`` data
received on each topic during the window, divided by its length. A viewer on the delta
stream needs the deltas plus a full snapshot per heartbeat (or on a structure change);
the last row counts that (``snapshot_on_change: false``).
"""

from __future__ import annotations

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import BenchNode, patrol_commands, Processes, progress, ratio  # noqa: E402, I100
from common import ros_environment  # noqa: E402

WINDOW = 20.0
QUICK_WINDOW = 3.0
SETTLE = 3.0
STARTUP_TIMEOUT = 90.0
TARGET = 10.0  # KB/s


class Meter:
    """Count the bytes and messages received on one topic."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bytes = 0
        self.messages = 0
        self.largest = 0

    def on_message(self, message: object) -> None:
        size = len(message.data)  # type: ignore[attr-defined]
        with self.lock:
            self.bytes += size
            self.messages += 1
            self.largest = max(self.largest, size)

    def read(self) -> tuple[int, int]:
        with self.lock:
            return self.bytes, self.messages


def run(quick: bool = False, window: float = 0.0) -> list[tuple[str, str, str, str]]:
    """Measure the full and the delta stream of one driving patrol robot; return rows."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    ros_environment()
    window = window or (QUICK_WINDOW if quick else WINDOW)
    namespace = f'bench_delta_{os.getpid()}'
    bench = BenchNode('bench_delta')
    meters = {'snapshot': Meter(), 'snapshot_delta': Meter()}
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
    for topic, meter in meters.items():
        bench.node.create_subscription(String, f'/{namespace}/bt_executive/{topic}',
                                       meter.on_message, qos)
    status = bench.watch_status(namespace)
    try:
        with Processes('delta') as processes:
            for name, argv in patrol_commands(namespace, tick_mode='periodic',
                                              executive_params={'setup_timeout': 60.0,
                                                                'snapshot_on_change': True}):
                processes.spawn(name, argv, early=name == 'bt_executive')
            progress('delta: a patrol robot starting')
            bench.wait_for(lambda: status.latest.get('tick_count', 0) >= 10, STARTUP_TIMEOUT,
                           'the patrol executive to tick', processes)
            time.sleep(1.0 if quick else SETTLE)  # a margin past start-up, not a sync
            progress(f'delta: measuring the streams for {window:.0f} s')
            before = {topic: meter.read() for topic, meter in meters.items()}
            start = time.monotonic()
            time.sleep(window)
            elapsed = time.monotonic() - start
            after = {topic: meter.read() for topic, meter in meters.items()}
            processes.check()
    finally:
        bench.close()
    rate = {topic: (after[topic][0] - before[topic][0]) / elapsed / 1000.0 for topic in meters}
    count = {topic: (after[topic][1] - before[topic][1]) / elapsed for topic in meters}
    full, delta = rate['snapshot'], rate['snapshot_delta']
    largest = meters['snapshot'].largest / 1000.0
    viewer = delta + largest  # + one heartbeat snapshot a second
    target = f' (target <= {TARGET:.0f} KB/s)'
    return [
        (f'live stream: patrol, deltas{target}', f'{delta:.1f} KB/s',
         f'full snapshots {full:.1f} KB/s', ratio(delta, full)),
        ('  messages per second, deltas / full', f"{count['snapshot_delta']:.1f}",
         f"{count['snapshot']:.1f}", '-'),
        ('  deltas + a 1 s heartbeat snapshot (snapshot_on_change: false)',
         f'{viewer:.1f} KB/s', f'full snapshots {full:.1f} KB/s', ratio(viewer, full)),
    ]


if __name__ == '__main__':
    for row in run(quick='--quick' in sys.argv):
        print(' | '.join(row))
