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
reaction waits for the new goal to be accepted, then 30-130 ms (uniformly random) before
publishing the low battery: the message lands at a random phase of the 10 Hz timer, and
after the event-mode tree has gone back to sleep. A fourth reactor, bench/latency_floor.py,
does the same in plain rclpy without a tree: the floor no executive can go below. A fifth,
the same program again, is the control: the goal's test applied to the floor against
itself shows how often the test fails with no executive in it at all (a p99.9 of 1000
samples is the second-worst sample, one DDS delivery or one preemption).

The tail goal (issue 18): p99 and p99.9 of each event mode within 1 ms of the floor's,
quiet and beside a CPU-bound neighbour. So the event modes and the floor make
``REACTIONS`` reactions in each setting, the settings alternating in blocks of ``BLOCK``
rounds (the neighbour, ``NEIGHBOURS`` busy-loop processes, is paused with SIGSTOP outside
its blocks); the periodic mode, the reference of the ratios only, makes
``PERIODIC_REACTIONS``, quiet. About 13 minutes in all. ``BT_BENCH_LATENCY_TRACE=FILE``
writes every reaction's times (``time.monotonic()``, one clock for every process) to FILE.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import (BenchNode, executive_command, percentile, Processes,  # noqa: E402, I100
                    progress, ratio, ros_environment)

#: Reactions per event mode and the floor, quiet and beside the neighbour (each).
REACTIONS = 1000
QUICK_REACTIONS = 6
#: Reactions of the periodic mode (quiet only): its p50 / p99 are the event modes' reference.
PERIODIC_REACTIONS = 200
#: Rounds per block; quiet and loaded blocks alternate.
BLOCK = 50
#: Seconds between a goal's acceptance and the next low battery (uniformly random).
GAP = (0.03, 0.13)
#: CPU-bound neighbour processes during the loaded blocks.
NEIGHBOURS = 1
NEIGHBOUR = [sys.executable, '-c', 'while True: pass']
PERCENTILES = (0.5, 0.99, 0.999)
GOAL_MARGIN = 1e-3
QUIET, LOADED = 'quiet', 'CPU-bound neighbour'
SETTINGS = (QUIET, LOADED)
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
#: The control: the floor's program again; the goal's test, floor against floor.
CONTROL = 'control: a second floor, the same program'
FLOORS = (FLOOR, CONTROL)
PERIODIC = 'periodic 10 Hz'
EVENT_MODES = [label for label in MODES if label != PERIODIC]

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


def triple(values: list[float]) -> tuple[float, float, float]:
    """Return p50, p99 and p99.9 of ``values`` (seconds)."""
    return tuple(percentile(values, fraction) for fraction in PERCENTILES)  # type: ignore


def ms(values: tuple[float, ...]) -> str:
    return ' / '.join(f'{value * 1e3:.2f}' for value in values) + ' ms'


class Neighbour:
    """CPU-bound busy-loop processes, paused (SIGSTOP) and resumed (SIGCONT) per block.

    Pinned nowhere and at the default priority: the scheduler shares the cores between
    them, the reactors and the bench, as it would with a planner busy beside the executive.
    """

    def __init__(self, processes: Processes, count: int) -> None:
        self.count = count
        self._processes = [processes.spawn(f'neighbour_{index}', NEIGHBOUR)
                           for index in range(count)]
        self.pause()

    def _signal(self, signum: int, count: Optional[int] = None) -> None:
        for process in self._processes[:count]:
            if process.poll() is None:
                os.kill(process.pid, signum)

    def pause(self) -> None:
        """Stop burning CPU."""
        self._signal(signal.SIGSTOP)

    def resume(self, count: Optional[int] = None) -> None:
        """Burn CPU again (the first ``count`` processes; default: all)."""
        self._signal(signal.SIGCONT, count)

    def close(self) -> None:
        """End the processes (a stopped process would not see the SIGINT of Processes)."""
        self._signal(signal.SIGKILL)
        for process in self._processes:
            process.wait(5.0)


def measure(bench: BenchNode, processes: Processes, label: str, robot: tuple[Any, Any],
            number: int, rng: random.Random, gap: tuple[float, float] = GAP) -> float:
    """Make one reaction of ``label``'s reactor; return its latency (seconds).

    ``gap``: seconds between the last goal's acceptance and the low battery (random).
    """
    from sensor_msgs.msg import BatteryState

    server, publisher = robot
    time.sleep(rng.uniform(*gap))
    cancels = len(server.cancels)
    accepted = len(server.accepted)
    start = time.monotonic()
    publisher.publish(BatteryState(percentage=LOW))
    bench.wait_for(lambda: len(server.cancels) > cancels, REACTION_TIMEOUT,
                   f'the cancel of reaction {number + 1} ({label})', processes)
    latency = server.cancels[cancels] - start
    publisher.publish(BatteryState(percentage=HIGH))
    bench.wait_for(lambda: len(server.accepted) > accepted, REACTION_TIMEOUT,
                   f'the next goal after reaction {number + 1} ({label})', processes)
    return latency


def run(quick: bool = False, reactions: int = 0,
        neighbours: int = NEIGHBOURS) -> list[tuple[str, str, str, str]]:
    """Measure reaction latency per mode, quiet and beside a busy neighbour; return rows."""
    from sensor_msgs.msg import BatteryState

    ros_environment()
    count = reactions or (QUICK_REACTIONS if quick else REACTIONS)
    rng = random.Random(7)
    # the servers never block: the lean single-threaded EventsExecutor serves them all
    bench = BenchNode('bench_latency', events=True)
    directory = tempfile.mkdtemp(prefix='bt_bench_latency_')
    labels = [*MODES, *FLOORS]
    latencies: dict[tuple[str, str], list[float]] = {
        (setting, label): [] for setting in SETTINGS for label in labels}
    trace: list[tuple[str, str, float, float]] = []
    started = time.monotonic()
    try:
        with Processes('latency') as processes:
            robots = {}
            for index, label in enumerate(labels):
                namespace = f'/bench_latency_{os.getpid()}_{index}'
                server = SlowServer(bench, f'{namespace}/navigate')
                publisher = bench.node.create_publisher(BatteryState,
                                                        f'{namespace}/battery_state', 10)
                if label in FLOORS:
                    argv = [sys.executable, os.path.join(HERE, 'latency_floor.py'), namespace]
                else:
                    tree = os.path.join(directory, f'latency_{index}.yaml')
                    with open(tree, 'w') as stream:
                        stream.write(TREE.format(namespace=namespace))
                    argv = executive_command(namespace, tree, max_tick_rate=100.0,
                                             setup_timeout=60.0, **MODES[label])
                processes.spawn(f'reactor_{index}', argv)
                robots[label] = (server, publisher)
            neighbour = Neighbour(processes, neighbours)
            try:
                _reactions(bench, processes, robots, neighbour, count, rng, latencies, trace)
            finally:
                neighbour.close()
            processes.stop()  # the executives cancel their goals while the servers serve
    finally:
        bench.close()
        shutil.rmtree(directory, ignore_errors=True)
    progress(f'latency: measured in {time.monotonic() - started:.0f} s')
    if os.environ.get('BT_BENCH_LATENCY_TRACE'):  # every reaction, for profiling
        with open(os.environ['BT_BENCH_LATENCY_TRACE'], 'w') as stream:
            json.dump(trace, stream)
    return _rows(latencies, count, neighbours)


def _reactions(bench: BenchNode, processes: Processes, robots: dict[str, Any],
               neighbour: Neighbour, count: int, rng: random.Random,
               latencies: dict[tuple[str, str], list[float]], trace: list[Any]) -> None:
    """Measure ``count`` reactions per reactor and setting, in alternating blocks.

    A quiet block of rounds, then a block with the neighbour running, and so on: a load
    change on the shared machine hits both settings and, within a round (one reaction of
    each reactor in turn), every reactor alike. The periodic mode is measured quiet only.
    """
    block = max(1, min(BLOCK, count // 2))
    periodic_count = _periodic_count(count)
    bench.start()
    progress(f'latency: {len(MODES)} executives, the floor and its control starting')
    for label, (server, publisher) in robots.items():
        bench.wait_for(lambda: server.accepted and publisher.get_subscription_count(),
                       STARTUP_TIMEOUT, f'the first goal of the {label} reactor',
                       processes)
    progress(f'latency: {count} reactions each, quiet and beside {neighbour.count} '
             f'busy neighbour(s), in alternating blocks of {block}')
    number = 0
    while number < count:
        for setting in SETTINGS:
            if setting == LOADED:
                neighbour.resume()
            try:
                for step in range(number, min(count, number + block)):
                    for label, robot in robots.items():
                        if label == PERIODIC and (setting == LOADED
                                                  or step >= periodic_count):
                            continue  # not part of the tail goal: fewer samples
                        latency = measure(bench, processes, label, robot, step, rng)
                        latencies[setting, label].append(latency)
                        trace.append((setting, label, robot[0].cancels[-1] - latency,
                                      robot[0].cancels[-1]))
            finally:
                neighbour.pause()
        number = min(count, number + block)
        progress(f'latency: {number}/{count}')


def _periodic_count(count: int) -> int:
    return max(1, count * PERIODIC_REACTIONS // REACTIONS)


def _rows(latencies: dict[tuple[str, str], list[float]], count: int,
          neighbours: int) -> list[tuple[str, str, str, str]]:
    """Return the table rows: periodic, then per setting the floor, the modes and the goals."""
    periodic_count = _periodic_count(count)
    periodic = triple(latencies[QUIET, PERIODIC])
    rows = [(f'reaction latency p50 / p99, {PERIODIC} (n={periodic_count})',
             f'{periodic[0] * 1e3:.1f} / {periodic[1] * 1e3:.1f} ms', '', '')]
    for setting in SETTINGS:
        name = setting if setting == QUIET else f'{setting} ({neighbours} busy process' \
            f"{'es' if neighbours != 1 else ''})"
        floor = triple(latencies[setting, FLOOR])
        rows.append((f'reaction latency p50 / p99 / p99.9, {name} (n={count} each)', '', '',
                     ''))
        rows.append((f'  {FLOOR}', ms(floor), '', ''))
        control = triple(latencies[setting, CONTROL])
        rows.append((f'  {CONTROL}', ms(control), f'floor {ms(floor)}',
                     ratio(control[1], floor[1])))
        for index, title in ((1, 'p99'), (2, 'p99.9')):  # not a goal: 'within' / 'beyond'
            within = control[index] <= floor[index] + GOAL_MARGIN
            rows.append((f'    control: {title} <= floor {title} + 1 ms, the floor against '
                         'itself', 'within' if within else 'beyond',
                         f'{control[index] * 1e3:.2f} vs {floor[index] * 1e3:.2f} + 1 ms', ''))
        for label in EVENT_MODES:
            ours = triple(latencies[setting, label])
            rows.append((f'  {label}', ms(ours), f'floor {ms(floor)}',
                         ratio(ours[1], floor[1])))
            for index, title in ((1, 'p99'), (2, 'p99.9')):
                met = ours[index] <= floor[index] + GOAL_MARGIN
                rows.append((f'    {label}: {title} <= floor {title} + 1 ms',
                             'met' if met else 'not met',
                             f'{ours[index] * 1e3:.2f} vs {floor[index] * 1e3:.2f} + 1 ms', ''))
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
