# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: bytes per second of the live tree stream on the wire, default vs full, one run.

Two patrol robots (the ``bt-executive demo`` bringup: the built-in sim and the executive
on config/patrol.yaml with config/executive.yaml, periodic 10 Hz, wall-clock time) drive
their rounds at the same time, in two namespaces:

- *default*: the executive's defaults (``snapshot_on_change`` false): every change as a
  delta on ``~/snapshot_delta``, a full ``~/snapshot`` only as a keyframe (every
  ``snapshot_heartbeat`` = 10 s, after 50 deltas, on a tree swap), heartbeat deltas when
  nothing was published for ``snapshot_keepalive`` = 1 s;
- *full*: ``snapshot_on_change: true``, the full snapshot on every change as well (what
  the wire carried before deltas), so full snapshots and deltas of the same changes are
  measured side by side.

The bytes of the ``std_msgs/String`` data received on each topic during the window,
divided by its length (DDS headers not counted). The goal (issue 16): the default
configuration's ``~/snapshot`` + ``~/snapshot_delta`` <= 10 KB/s; ``~/events`` and
``~/status`` are reported beside it (and the total with them). ``--quick`` (3 s) is a
smoke run: shorter than the 10 s between keyframes, it under-counts them.
"""

from __future__ import annotations

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import BenchNode, patrol_commands, Processes, progress, ratio  # noqa: E402, I100
from common import ros_environment  # noqa: E402

WINDOW = 30.0
QUICK_WINDOW = 3.0
SETTLE = 3.0
STARTUP_TIMEOUT = 90.0
TARGET = 10.0  # KB/s
TOPICS = ('snapshot', 'snapshot_delta', 'events', 'status')
#: robot -> the executive parameters it runs with (beyond config/executive.yaml)
ROBOTS = {'default': {}, 'full': {'snapshot_on_change': True}}


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
    """Measure the default and the full stream of two driving patrol robots; return rows."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    ros_environment()
    window = window or (QUICK_WINDOW if quick else WINDOW)
    namespaces = {robot: f'bench_delta_{robot}_{os.getpid()}' for robot in ROBOTS}
    bench = BenchNode('bench_delta')
    meters = {(robot, topic): Meter() for robot in ROBOTS for topic in TOPICS}
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
    for (robot, topic), meter in meters.items():
        bench.node.create_subscription(
            String, f'/{namespaces[robot]}/bt_executive/{topic}', meter.on_message, qos)
    statuses = {robot: bench.watch_status(namespace) for robot, namespace in namespaces.items()}
    try:
        with Processes('delta') as processes:
            for robot, params in ROBOTS.items():
                for name, argv in patrol_commands(
                        namespaces[robot], tick_mode='periodic',
                        executive_params={'setup_timeout': 60.0, **params}):
                    processes.spawn(f'{robot}_{name}', argv, early=name == 'bt_executive')
            progress('delta: two patrol robots starting (default, snapshot_on_change)')
            for robot, status in statuses.items():
                bench.wait_for(lambda status=status: status.latest.get('tick_count', 0) >= 10,
                               STARTUP_TIMEOUT, f'the {robot} patrol executive to tick',
                               processes)
            time.sleep(1.0 if quick else SETTLE)  # a margin past start-up, not a sync
            progress(f'delta: measuring the streams for {window:.0f} s')
            before = {key: meter.read() for key, meter in meters.items()}
            start = time.monotonic()
            time.sleep(window)
            elapsed = time.monotonic() - start
            after = {key: meter.read() for key, meter in meters.items()}
            processes.check()
    finally:
        bench.close()
    rate = {key: (after[key][0] - before[key][0]) / elapsed / 1000.0 for key in meters}
    count = {key: (after[key][1] - before[key][1]) / elapsed for key in meters}
    snapshot, delta = rate['default', 'snapshot'], rate['default', 'snapshot_delta']
    events, status = rate['default', 'events'], rate['default', 'status']
    stream = snapshot + delta
    full_stream = rate['full', 'snapshot'] + rate['full', 'snapshot_delta']
    full_only = rate['full', 'snapshot']
    everything = stream + events + status
    return [
        ('live stream: patrol, default configuration, snapshot + deltas', f'{stream:.1f} KB/s',
         f'snapshot_on_change: true {full_stream:.1f} KB/s', ratio(stream, full_stream)),
        ('  of which full snapshots (keyframes) / deltas', f'{snapshot:.1f} / {delta:.1f} KB/s',
         f"{rate['full', 'snapshot']:.1f} / {rate['full', 'snapshot_delta']:.1f} KB/s", '-'),
        ('  messages per second, full snapshots / deltas',
         f"{count['default', 'snapshot']:.2f} / {count['default', 'snapshot_delta']:.1f}",
         f"{count['full', 'snapshot']:.2f} / {count['full', 'snapshot_delta']:.1f}", '-'),
        ('  + ~/events and ~/status (everything for viewers)',
         f'{everything:.1f} KB/s (events {events:.1f}, status {status:.1f})',
         f"{full_stream + rate['full', 'events'] + rate['full', 'status']:.1f} KB/s", '-'),
        ('  goal (issue 16): default snapshot + deltas <= 10 KB/s; with events and status',
         f'{stream:.1f} / {everything:.1f} KB/s', f'goal {TARGET:.0f} KB/s',
         'met' if stream <= TARGET else 'not met'),
        ('live stream: patrol, deltas vs full snapshots of the same changes',
         f"{rate['full', 'snapshot_delta']:.1f} KB/s", f'full snapshots {full_only:.1f} KB/s',
         ratio(rate['full', 'snapshot_delta'], full_only)),
    ]


if __name__ == '__main__':
    for row in run(quick='--quick' in sys.argv):
        print(' | '.join(row))
