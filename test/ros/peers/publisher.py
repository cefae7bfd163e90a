#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A steady publisher run as a peer process by tests: a battery, a counter, or a flood.

Usage::

    publisher.py TOPIC KIND [--rate HZ]

Kinds:
    battery: sensor_msgs/msg/BatteryState with ``percentage`` 0.8 (sensor_data QoS).
    count: std_msgs/msg/Int64 counting up from 1 (reliable, depth 10).

It publishes at ``--rate`` Hz (default 10; 1000 for a flood), paced by the steady clock
without an executor, and prints ``READY`` once started, then one JSON line per second:
``{"event": "rate", "sent": <messages so far>, "last": <last count published>}``.
SIGINT and SIGTERM stop it (exit status 0).
"""

import argparse
import json
import sys
import time
from typing import Optional

from peer_common import start_node


def main(argv: Optional[list[str]] = None) -> int:
    """Publish until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('topic')
    parser.add_argument('kind', choices=('battery', 'count'))
    parser.add_argument('--rate', type=float, default=10.0)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    import rclpy
    from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import BatteryState
    from std_msgs.msg import Int64

    node, stop = start_node('publisher', args.topic)
    if args.kind == 'battery':
        publisher = node.create_publisher(BatteryState, args.topic, qos_profile_sensor_data)
    else:
        publisher = node.create_publisher(
            Int64, args.topic, QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    period = 1.0 / args.rate
    print('READY', flush=True)
    sent = 0
    start = next_report = time.monotonic()
    while not stop.is_set():
        sent += 1
        if args.kind == 'battery':
            publisher.publish(BatteryState(percentage=0.8, present=True))
        else:
            publisher.publish(Int64(data=sent))
        now = time.monotonic()
        if now >= next_report:
            print(json.dumps({'event': 'rate', 'sent': sent, 'last': sent}), flush=True)
            next_report = now + 1.0
        # pace on the schedule, not on the previous send: a late send is caught up
        delay = start + sent * period - now
        if delay > 0:
            stop.wait(delay)
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
