#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A std_msgs/msg/String subscriber run as a peer process by tests: reports what arrives.

Usage::

    subscriber.py TOPIC

It subscribes to TOPIC (reliable, volatile, depth 100) and reports every message as an
event. Every event is printed to stdout as one JSON line (flushed) and published as a
std_msgs/msg/String holding the same JSON on ``TOPIC/events`` (reliable, transient local,
depth 100). Each event has ``event``, ``seq``, ``time`` (Unix seconds) and ``source``
(the topic), plus:

    ready                 subscribed (also printed as a bare READY line)
    received    data      a message arrived, with its ``data``
    shutdown              SIGINT or SIGTERM received; exiting

SIGINT and SIGTERM stop it cleanly (exit status 0).
"""

import argparse
import sys
from typing import Any, Optional

from peer_common import EventReporter, serve, start_node


def main(argv: Optional[list[str]] = None) -> int:
    """Report messages until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('topic')
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    node, stop = start_node('subscriber', args.topic)
    events = EventReporter(node, args.topic)

    def on_message(msg: Any) -> None:
        events.emit('received', data=msg.data)

    subscription = node.create_subscription(
        String, args.topic, on_message,
        QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    serve(node, events, 'subscribe', stop)
    node.destroy_subscription(subscription)
    node.destroy_node()
    return 0


if __name__ == '__main__':
    sys.exit(main())
