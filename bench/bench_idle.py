# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: idle cost of the patrol executive with the robot parked, event vs periodic.

Each robot is the patrol bringup (``bt-executive demo``'s command lines: the built-in sim
and the executive on config/patrol.yaml with config/executive.yaml) in a namespace of its
own; all robots run at the same time. The robot is parked by holding its emergency stop:
the tree sits in its EmergencyStop branch and the sim stands still, while the sim keeps
publishing its battery_state (5 Hz; the percentage drains a little in every message, so
each one changes a key the tree reads) and everything else it publishes.

The figure is the executive process's CPU time (every thread, from
``/proc/<pid>/task/*/schedstat``) over a window, as a percentage of one core. The floor,
bench/idle_floor.py, is a bare rclpy node subscribed to the same topics of the first robot:
what any ROS 2 Python process pays for that traffic and for DDS housekeeping.

Main rows: wall-clock time (the sim runs in real time without /clock), event mode vs
periodic ticking at 10 Hz. Extra rows: the demo's own configuration (sim time at 10x
real time: the sim publishes /clock, remapped per robot so the robots do not share it,
and battery_state at 50 Hz wall-clock; the 10 Hz timer runs on sim time, which moves in
0.2 s steps 50 times a second, so it fires 50 times a wall second), and a robot whose
battery does not drain (``idle_drain: 0``), so nothing the tree reads changes.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (BenchNode, cpu_seconds, patrol_commands, Processes,  # noqa: E402, I100
                    progress, ratio, ros_environment)

WINDOW = 30.0
QUICK_WINDOW = 3.0
SETTLE = 2.0
QUICK_SETTLE = 0.5
STARTUP_TIMEOUT = 90.0

#: label -> (tick mode, sim time, sim parameters); the first two are the main comparison.
ROBOTS: dict[str, tuple[str, bool, dict[str, Any]]] = {
    'event': ('event', False, {}),
    'periodic 10 Hz': ('periodic', False, {}),
    'event, battery steady': ('event', False, {'idle_drain': 0.0}),
    'demo config, event': ('event', True, {}),
    'demo config, periodic': ('periodic', True, {}),
}


class Robot:
    """One parked patrol robot: its processes, status and emergency stop publisher."""

    def __init__(self, bench: BenchNode, processes: Processes, label: str, index: int,
                 tick_mode: str, sim_time: bool, sim_params: dict[str, Any]) -> None:
        from std_msgs.msg import Bool

        self.label = label
        self.namespace = f'bench_idle_{os.getpid()}_{index}'
        remap = ['-r', f'/clock:=/{self.namespace}/clock'] if sim_time else []
        self.status = bench.watch_status(self.namespace)
        self.estop = bench.node.create_publisher(Bool, f'/{self.namespace}/emergency_stop', 10)
        self.pids: dict[str, int] = {}
        for name, argv in patrol_commands(self.namespace, tick_mode=tick_mode,
                                          sim_time=sim_time, sim_params=sim_params,
                                          executive_params={'setup_timeout': 60.0},
                                          ros_args=remap):
            self.pids[name] = processes.spawn(
                f'{name}_{index}', argv, early=name == 'bt_executive').pid

    def parked(self) -> bool:
        """Return whether the executive reports the estop held."""
        return (self.status.latest.get('blackboard') or {}).get('estop') is True


def run(quick: bool = False, window: float = 0.0) -> list[tuple[str, str, str, str]]:
    """Measure the CPU use of parked patrol executives; return table rows."""
    from std_msgs.msg import Bool

    ros_environment()
    window = window or (QUICK_WINDOW if quick else WINDOW)
    bench = BenchNode('bench_idle')
    results: dict[str, dict[str, Any]] = {}
    floor_cpu = 0.0
    try:
        with Processes('idle') as processes:
            robots = [Robot(bench, processes, label, index, *config)
                      for index, (label, config) in enumerate(ROBOTS.items())]
            floor = processes.spawn('idle_floor', [
                sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             'idle_floor.py'), f'/{robots[0].namespace}'])
            progress(f'idle: {len(robots)} patrol robots and the floor starting')
            for robot in robots:
                bench.wait_for(lambda: robot.status.latest.get('tick_count', 0) >= 1
                               and robot.estop.get_subscription_count() >= 2,
                               STARTUP_TIMEOUT, f'the {robot.label} robot', processes)
                robot.estop.publish(Bool(data=True))
            for robot in robots:
                # published again until seen: a message sent right after matching can be
                # lost (the subscriber's side of the match may not be complete yet)
                bench.wait_for(lambda: robot.parked() or robot.estop.publish(Bool(data=True)),
                               20.0, f'the {robot.label} robot to park', processes)
            time.sleep(QUICK_SETTLE if quick else SETTLE)  # a margin, not a synchronisation
            progress(f'idle: measuring CPU for {window:.0f} s')
            before = {robot.label: {name: cpu_seconds(pid) for name, pid in robot.pids.items()}
                      for robot in robots}
            floor_before = cpu_seconds(floor.pid)
            counted = {robot.label: (robot.status.latest.get('tick_count', 0),
                                     robot.status.received_at) for robot in robots}
            start = time.monotonic()
            time.sleep(window)
            elapsed = time.monotonic() - start
            for robot in robots:
                results[robot.label] = {
                    name: 100.0 * (cpu_seconds(pid) - before[robot.label][name]) / elapsed
                    for name, pid in robot.pids.items()}
            floor_cpu = 100.0 * (cpu_seconds(floor.pid) - floor_before) / elapsed
            processes.check()
            # ticks per second: tick counts of two statuses (heartbeat 1 s) and their arrival
            marker = time.monotonic()
            for robot in robots:
                bench.wait_for(lambda: (robot.status.received_at or 0.0) > marker, 5.0,
                               f'a status of the {robot.label} robot', processes)
                count, at = counted[robot.label]
                results[robot.label]['ticks'] = \
                    (robot.status.latest['tick_count'] - count) / (robot.status.received_at - at)
    finally:
        bench.close()
    rows = []
    for label, reference, target in (
            ('event', 'periodic 10 Hz', ' (target <= 0.5 %)'),
            ('event, battery steady', 'periodic 10 Hz', ''),
            ('demo config, event', 'demo config, periodic', '')):
        ours, ref = results[label], results[reference]
        rows.append((f'idle CPU, parked patrol executive, {label}{target}',
                     f"{ours['bt_executive']:.2f} % of a core",
                     f"{reference} {ref['bt_executive']:.2f} %",
                     ratio(ours['bt_executive'], ref['bt_executive'])))
        rows.append(('  ticks per second', f"{ours['ticks']:.1f}", f"{ref['ticks']:.1f}",
                     ratio(ours['ticks'], ref['ticks'])))
    rows.append(('  floor: bare rclpy node on the same topics (bench/idle_floor.py)',
                 f'{floor_cpu:.2f} % of a core', '', ''))
    rows.append(('  the sim robot (for scale), real time / demo config',
                 f"{results['event']['sim_robot']:.1f} / "
                 f"{results['demo config, event']['sim_robot']:.1f} %", '', ''))
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
