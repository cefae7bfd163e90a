# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What a writer's history keeps of messages it no longer holds, with and without our profile.

``python bench/history_memory.py plain|profile`` makes one latched publisher of depth 100
(as ~/snapshot_delta), publishes 100 messages of 200 kB and then 100 of 10 bytes, so the
history holds only small ones, gives the C heap's free pages back and prints the RSS it
still has over its start, in MiB. ``profile`` first applies bt_executive's Fast DDS profile
(bt_executive/ros/dds_profile.py), as the executive's programs do; ``plain`` keeps
rmw_fastrtps' own policy, under which each place keeps a buffer of the largest message it
held. bench_startup prints both; test/ros/test_dds_profile.py checks them.
"""

from __future__ import annotations

import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import rss_mb  # noqa: E402, I100

DEPTH = 100
LARGE = 200_000


def retained(profile: bool) -> float:
    """Publish large then small messages; return the MiB of RSS kept over the start.

    Any Fast DDS setting of the environment (and our switch) is dropped first, so each
    variant measures what it names: rmw_fastrtps' own policy, or our profile.
    """
    from bt_executive.ros.dds_profile import SWITCH, use_dds_profile, USER_SETTINGS
    for name in (SWITCH, *USER_SETTINGS):
        os.environ.pop(name, None)
    if profile:
        if not use_dds_profile():
            raise RuntimeError('the profile was not applied (another RMW, or a '
                               'DEFAULT_FASTDDS_PROFILES.xml in the working directory)')
    import rclpy
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    rclpy.init()
    try:
        node = rclpy.create_node('history_memory')
        qos = QoSProfile(depth=DEPTH, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
        publisher = node.create_publisher(String, 'history_memory', qos)
        message = String()
        start = rss_mb(os.getpid())
        for index in range(DEPTH):
            message.data = chr(97 + index % 26) * LARGE
            publisher.publish(message)
        for index in range(DEPTH):
            message.data = 'small'
            publisher.publish(message)
        del message
        ctypes.CDLL('libc.so.6').malloc_trim(0)
        kept = rss_mb(os.getpid()) - start
        node.destroy_node()
        return kept
    finally:
        rclpy.shutdown()


def main(argv: list[str]) -> int:
    """Print the MiB kept, for ``plain`` or ``profile``."""
    if argv != ['plain'] and argv != ['profile']:
        print(__doc__, file=sys.stderr)
        return 2
    print(f'{retained(argv[0] == "profile"):.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
