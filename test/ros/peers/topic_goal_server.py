#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A goal server over plain topics (for the TopicAction leaf), run as a peer process by tests.

Usage::

    topic_goal_server.py NAME [--period SECONDS]

It subscribes to ``NAME/goal`` (std_msgs/msg/String, reliable) and, once a goal has
arrived, publishes ``running <goal>`` on ``NAME/status`` (std_msgs/msg/String, reliable)
every ``--period`` seconds (default 0.1) for the latest goal; it never finishes a goal.

Every event is printed to stdout as one JSON line (flushed) and published on
``NAME/events`` like the other peers:

    ready                              the server is up (also printed as a bare READY line)
    goal             goal              a goal arrived
    shutdown                           SIGINT or SIGTERM received; exiting

SIGINT and SIGTERM stop it cleanly (exit status 0).
"""

import argparse
import sys
from typing import Any, Optional

from peer_common import EventReporter, serve, start_node


def main(argv: Optional[list[str]] = None) -> int:
    """Run the server until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('name')
    parser.add_argument('--period', type=float, default=0.1)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)

    from std_msgs.msg import String

    node, stop = start_node('topic_goal_server', args.name)
    events = EventReporter(node, args.name)
    status = node.create_publisher(String, f'{args.name}/status', 10)
    current: list[str] = []

    def on_goal(msg: Any) -> None:
        current[:] = [msg.data]
        events.emit('goal', goal=msg.data)

    def publish_status() -> None:
        if current:
            status.publish(String(data=f'running {current[0]}'))

    subscription = node.create_subscription(String, f'{args.name}/goal', on_goal, 10)
    timer = node.create_timer(args.period, publish_status)
    serve(node, events, 'hold', stop)
    node.destroy_timer(timer)
    node.destroy_subscription(subscription)
    node.destroy_publisher(status)
    node.destroy_node()
    return 0


if __name__ == '__main__':
    sys.exit(main())
