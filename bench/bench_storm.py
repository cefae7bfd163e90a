# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: goals per second a leaf sends at steady failure, with and without back-off.

The goal storm: a robot that refuses every goal (a DockRobot-like action server that
rejects, a Trigger service whose response fails) and a patrol-like tree whose recharge
branch keeps asking::

    Selector
      Sequence recharge
        Condition battery low: true
        Action dock (or Service dock)      <- fails every time
      Success patrol                       <- the root succeeds and starts again

Each executive is a real subprocess in event mode at the patrol's ``max_tick_rate`` (100
Hz); this process hosts the servers (one rclpy EventsExecutor) and notes when each goal
or request arrives. The reference is the same executive with ``backoff: 0`` (the
behaviour before the back-off existed: a new goal per tick). After every executive's
first goal and a warm-up long enough for the back-off to reach its cap, goals are counted
over a window. ``--quick`` uses ``backoff_max: 1`` and short windows; the full run the
executive's defaults (0.2 s doubling up to 10 s), so a steady failure costs one goal per
10 s.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import (BenchNode, executive_command, Processes, progress,  # noqa: E402, I100
                    ros_environment)

STARTUP_TIMEOUT = 60.0
#: (backoff_max, warm-up, window) in seconds: the warm-up covers the growth to the cap
#: (0.2 + 0.4 + ... < 2 x the cap) and the window holds several capped waits.
FULL = (10.0, 25.0, 40.0)
QUICK = (1.0, 3.0, 4.0)

LEAVES = {
    'Action (server rejects)': ('Action dock: {{type: test_msgs/action/Fibonacci, '
                                'server: {namespace}/dock_robot, goal: {{order: 1}}, '
                                'server_timeout: 60.0}}'),
    'Service (response fails)': ('Service dock: {{type: std_srvs/srv/Trigger, '
                                 'service: {namespace}/dock, success: response.success, '
                                 'server_timeout: 60.0}}'),
}

TREE = """\
trees:
  Main:
    Selector:
      - Sequence recharge:
          - Condition battery low: 'true'
          - {leaf}
      - Success patrol
"""


class Robot:
    """A DockRobot-like action server that rejects and a dock service that fails.

    Nothing blocks, so both run on the bench node's single-threaded EventsExecutor.
    """

    def __init__(self, bench: BenchNode, namespace: str) -> None:
        from rclpy.action import ActionServer, GoalResponse
        from std_srvs.srv import Trigger
        from test_msgs.action import Fibonacci

        self._condition = bench.condition
        self.goals: list[float] = []
        self.requests: list[float] = []
        self._reject = GoalResponse.REJECT
        self.action = ActionServer(bench.node, Fibonacci, f'{namespace}/dock_robot',
                                   lambda handle: Fibonacci.Result(),
                                   goal_callback=self._on_goal)
        self.service = bench.node.create_service(Trigger, f'{namespace}/dock',
                                                 self._on_request)

    def _note(self, times: list[float]) -> None:
        with self._condition:
            times.append(time.monotonic())
            self._condition.notify_all()

    def _on_goal(self, goal: Any) -> Any:
        self._note(self.goals)
        return self._reject

    def _on_request(self, request: Any, response: Any) -> Any:
        self._note(self.requests)
        response.success = False
        response.message = 'dock blocked'
        return response


def _count(times: list[float], start: float, end: float) -> int:
    return sum(1 for moment in times if start <= moment < end)


def run(quick: bool = False) -> list[tuple[str, str, str, str]]:
    """Measure goals per second at steady failure; return table rows."""
    ros_environment()
    cap, warm_up, window = QUICK if quick else FULL
    modes = {'back-off': {} if not quick else {'backoff_max': cap},
             'off': {'backoff': 0.0}}
    bench = BenchNode('bench_storm', events=True)
    directory = tempfile.mkdtemp(prefix='bt_bench_storm_')
    robots: dict[tuple[str, str], tuple[Robot, str]] = {}
    try:
        with Processes('storm') as processes:
            for index, (kind, leaf) in enumerate(LEAVES.items()):
                for mode, params in modes.items():
                    namespace = f'/bench_storm_{os.getpid()}_{index}_{mode.replace("-", "")}'
                    tree = os.path.join(directory, f'storm_{index}_{mode}.yaml')
                    with open(tree, 'w') as stream:
                        stream.write(TREE.format(leaf=leaf.format(namespace=namespace)))
                    robot = Robot(bench, namespace)
                    robots[(kind, mode)] = (robot, 'goals' if 'Action' in kind else 'requests')
                    processes.spawn(f'storm_{index}_{mode}', executive_command(
                        namespace, tree, tick_mode='event', max_tick_rate=100.0,
                        setup_timeout=60.0, **params), early=True)
            bench.start()
            progress(f'storm: {len(robots)} executives starting')
            for (kind, mode), (robot, what) in robots.items():
                bench.wait_for(lambda: getattr(robot, what), STARTUP_TIMEOUT,
                               f'the first goal of {kind}, {mode}', processes)
            progress(f'storm: warm-up {warm_up:g} s, then counting for {window:g} s')
            start = time.monotonic() + warm_up
            time.sleep(warm_up + window)
            processes.check()
            rates = {key: _count(getattr(robot, what), start, start + window) / window
                     for key, (robot, what) in robots.items()}
    finally:
        bench.close()
        shutil.rmtree(directory, ignore_errors=True)
    rows = []
    for index, kind in enumerate(LEAVES):
        ours, reference = rates[(kind, 'back-off')], rates[(kind, 'off')]
        metric = f'goal storm: goals/s at steady failure, {kind}' if index == 0 \
            else f'  {kind}'
        # four decimals: the back-off is hundreds of times below the storm
        rows.append((metric, f'{ours:.2f} /s', f'{reference:.1f} /s (backoff 0)',
                     f'{ours / reference:.4f}x' if reference else '-'))
    rows.append(('  back-off cap (backoff_max) / counted window',
                 f'{cap:g} s / {window:g} s', '', ''))
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
