# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The idle floor of bench_idle: a bare rclpy node hearing what the parked executive hears.

``python bench/idle_floor.py NAMESPACE`` subscribes to ``NAMESPACE/battery_state`` and
``NAMESPACE/emergency_stop`` (the topics the parked patrol's sim keeps publishing), stores
nothing, and spins rclpy's EventsExecutor (the executive's own) until SIGINT or SIGTERM.
Its CPU use is what any ROS 2 Python process pays for those messages and for DDS
housekeeping (discovery, reliable-delivery heartbeats): the part of the executive's idle
cost it cannot remove.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import floor_node  # noqa: E402, I100


def main(argv: list[str]) -> int:
    """Spin until SIGINT or SIGTERM."""
    import rclpy
    from sensor_msgs.msg import BatteryState
    from std_msgs.msg import Bool

    namespace = argv[0].rstrip('/')
    with floor_node('idle_floor') as (node, executor, received):
        node.create_subscription(BatteryState, f'{namespace}/battery_state',
                                 lambda message: None, 10)
        node.create_subscription(Bool, f'{namespace}/emergency_stop', lambda message: None, 10)
        while rclpy.ok() and not received:
            executor.spin_once(timeout_sec=0.5)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
