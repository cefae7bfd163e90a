# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: reaction latency, event-driven ticking vs periodic ticking at 10 Hz.

A reaction: a BatteryState with a low percentage is published, and the executive cancels
the long-running navigation goal the low battery preempts. The latency runs from just
before ``publish()`` to the moment the action server's cancel callback runs; both times
are ``time.monotonic()`` in this process, which hosts the publisher and the server. This
side is kept lean, since its own delay is in every figure: one rclpy EventsExecutor
serves all the servers, whose goals never block or await (see SlowServer).

Each executive is a real subprocess running a two-branch priority selector::

    Selector
      Condition battery low: battery_pct < 0.2      (battery_state -> battery_pct)
      Action navigate: test_msgs/action/Fibonacci   (never finishes on its own)

One executive per mode (periodic at 10 Hz; event mode with a 1 s and a 10 s heartbeat),
each in its own namespace with its own server; all start together and are then measured
in turns (one reaction each, round-robin), so load changes hit every mode alike. Each
reaction waits for the new goal to be accepted, then 50-150 ms (uniformly random) before
publishing the low battery: the message lands at a random phase of the 10 Hz timer, and
after the event-mode tree has gone back to sleep. A fourth reactor, bench/latency_floor.py,
does the same in plain rclpy without a tree: the floor no executive can go below.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import (BenchNode, executive_command, percentile, Processes,  # noqa: E402, I100
                    progress, ratio, ros_environment)

REACTIONS = 200
QUICK_REACTIONS = 6
STARTUP_TIMEOUT = 60.0
REACTION_TIMEOUT = 10.0
LOW, HIGH = 0.1, 1.0

#: label -> executive parameters; the first is the reference.
MODES = {
    'periodic 10 Hz': {'tick_mode': 'periodic', 'tick_rate': 10.0},
    'event, heartbeat 1 s': {'tick_mode': 'event', 'heartbeat_period': 1.0},
    'event, heartbeat 10 s': {'tick_mode': 'event', 'heartbeat_period': 10.0},
}

#: The floor: the same reaction in plain rclpy, no tree (bench/latency_floor.py).
FLOOR = 'floor: plain rclpy reflex, no tree'

TREE = """\
blackboard: {{battery_pct: 1.0}}
subscriptions:
  - {{topic: {namespace}/battery_state, type: sensor_msgs/msg/BatteryState,
     field: percentage, key: battery_pct}}
trees:
  Main:
    Selector:
      - Condition battery low: battery_pct < 0.2
      - Action navigate:
          type: test_msgs/action/Fibonacci
          server: {namespace}/navigate
          goal: {{order: 10}}
          server_timeout: 30.0
"""


class SlowServer:
    """A Fibonacci action server whose goals stay active until cancelled; notes every event.

    An accepted goal is not executed: it stays ACCEPTED (active to the client) with no
    callback or coroutine waiting on it. The cancel callback notes the time and then
    executes the goal, whose callback ends it as cancelled. Nothing ever blocks or awaits,
    so the server runs on any single-threaded executor, EventsExecutor included.
    """

    def __init__(self, bench: BenchNode, name: str) -> None:
        from rclpy.action import ActionServer, CancelResponse, GoalResponse
        from test_msgs.action import Fibonacci

        self._condition = bench.condition
        self._executor = bench.executor
        self._result = Fibonacci.Result
        self._cancel_response = CancelResponse.ACCEPT
        self.accepted: list[float] = []
        self.cancels: list[float] = []
        self.server = ActionServer(
            bench.node, Fibonacci, name, self._execute,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            handle_accepted_callback=self._on_accepted, cancel_callback=self._on_cancel)

    def _on_accepted(self, handle: Any) -> None:
        with self._condition:
            self.accepted.append(time.monotonic())
            self._condition.notify_all()

    def _on_cancel(self, handle: Any) -> Any:
        now = time.monotonic()
        with self._condition:
            self.cancels.append(now)
            self._condition.notify_all()
        # runs after this cancel request is accepted: the goal is CANCELING by then
        self._executor.create_task(handle.execute)
        return self._cancel_response

    def _execute(self, handle: Any) -> Any:
        if handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        return self._result(sequence=[0, 1])


def _summary(latencies: list[float]) -> tuple[float, float]:
    return percentile(latencies, 0.5), percentile(latencies, 0.99)


def run(quick: bool = False, reactions: int = 0) -> list[tuple[str, str, str, str]]:
    """Measure reaction latency per mode; return table rows."""
    from sensor_msgs.msg import BatteryState

    ros_environment()
    count = reactions or (QUICK_REACTIONS if quick else REACTIONS)
    rng = random.Random(7)
    # the servers never block: the lean single-threaded EventsExecutor serves them all
    bench = BenchNode('bench_latency', events=True)
    directory = tempfile.mkdtemp(prefix='bt_bench_latency_')
    labels = [*MODES, FLOOR]
    latencies: dict[str, list[float]] = {label: [] for label in labels}
    try:
        with Processes('latency') as processes:
            robots = {}
            for index, label in enumerate(labels):
                namespace = f'/bench_latency_{os.getpid()}_{index}'
                server = SlowServer(bench, f'{namespace}/navigate')
                publisher = bench.node.create_publisher(BatteryState,
                                                        f'{namespace}/battery_state', 10)
                if label == FLOOR:
                    argv = [sys.executable, os.path.join(HERE, 'latency_floor.py'), namespace]
                else:
                    tree = os.path.join(directory, f'latency_{index}.yaml')
                    with open(tree, 'w') as stream:
                        stream.write(TREE.format(namespace=namespace))
                    argv = executive_command(namespace, tree, max_tick_rate=100.0,
                                             setup_timeout=60.0, **MODES[label])
                processes.spawn(f'reactor_{index}', argv)
                robots[label] = (server, publisher)
            bench.start()
            progress(f'latency: {len(MODES)} executives and the floor starting')
            for label, (server, publisher) in robots.items():
                bench.wait_for(lambda: server.accepted and publisher.get_subscription_count(),
                               STARTUP_TIMEOUT, f'the first goal of the {label} reactor',
                               processes)
            progress(f'latency: {count} reactions each, in turns')
            for number in range(count):
                for label, (server, publisher) in robots.items():
                    time.sleep(rng.uniform(0.05, 0.15))
                    cancels = len(server.cancels)
                    accepted = len(server.accepted)
                    start = time.monotonic()
                    publisher.publish(BatteryState(percentage=LOW))
                    bench.wait_for(lambda: len(server.cancels) > cancels, REACTION_TIMEOUT,
                                   f'the cancel of reaction {number + 1} ({label})',
                                   processes)
                    latencies[label].append(server.cancels[cancels] - start)
                    publisher.publish(BatteryState(percentage=HIGH))
                    bench.wait_for(lambda: len(server.accepted) > accepted, REACTION_TIMEOUT,
                                   f'the next goal after reaction {number + 1} ({label})',
                                   processes)
                if (number + 1) % 50 == 0:
                    progress(f'latency: {number + 1}/{count}')
            processes.stop()  # the executives cancel their goals while the servers serve
    finally:
        bench.close()
        shutil.rmtree(directory, ignore_errors=True)
    reference = next(iter(MODES))
    ref50, ref99 = _summary(latencies[reference])
    rows = [(f'reaction latency p50 / p99, {reference} (n={count})',
             f'{ref50 * 1e3:.1f} / {ref99 * 1e3:.1f} ms', '', '')]
    for label in list(MODES)[1:]:
        p50, p99 = _summary(latencies[label])
        rows.append((f'  {label}, p50', f'{p50 * 1e3:.2f} ms',
                     f'periodic {ref50 * 1e3:.1f} ms', ratio(p50, ref50)))
        rows.append((f'  {label}, p99 (target <= 5 ms)', f'{p99 * 1e3:.2f} ms',
                     f'periodic {ref99 * 1e3:.1f} ms', ratio(p99, ref99)))
    floor50, floor99 = _summary(latencies[FLOOR])
    rows.append((f'  {FLOOR}, p50 / p99', f'{floor50 * 1e3:.2f} / {floor99 * 1e3:.2f} ms',
                 '', ''))
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
