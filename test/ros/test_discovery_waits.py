# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Discovery waits under a fast simulated clock: never shorter than their seconds of wall time.

In a ``fleet.launch.py robots:=3`` run a robot skipped its first waypoint: "nobody
subscribes to '/robot3/navigate/goal' after 10.0 s": 10 s of simulated time at 10 times
real time, 1 s of wall time, less than DDS discovery of the sim may take. Here an
executive (in this process, on its own context) runs with ``use_sim_time`` while the test
publishes ``/clock`` ten times faster than wall time, and each leaf that waits for a server
(TopicAction, Action, Service) waits for one that never comes: it must fail after its
``server_timeout`` of wall time, not a tenth of it.
"""

from __future__ import annotations

import time

from executive_host import Host, write_tree
import pytest

pytestmark = pytest.mark.ros

SERVER_TIMEOUT = 1.5
SPEED = 10.0  # simulated seconds per wall second
LEAVES = {
    'TopicAction': ('TopicAction wait: {goal_topic: /absent_goal_{id}, goal_type: '
                    'std_msgs/msg/String, goal: {data: go}, status_topic: '
                    '/absent_status_{id}, status_type: std_msgs/msg/String, succeeded: '
                    "msg.data == 'done', server_timeout: %s}", 'nobody subscribes'),
    'Action': ('Action wait: {type: test_msgs/action/Fibonacci, server: /absent_{id}, '
               'goal: {order: 3}, server_timeout: %s}', 'not available after'),
    'Service': ('Service wait: {type: std_srvs/srv/Trigger, service: /absent_{id}, '
                'server_timeout: %s}', 'not available after'),
}


@pytest.mark.parametrize('leaf', sorted(LEAVES))
def test_a_server_is_waited_for_its_timeout_in_wall_time_under_a_fast_sim_clock(
        tmp_path, leaf):
    import rclpy
    from rosgraph_msgs.msg import Clock

    text, failure = LEAVES[leaf]
    node_text = (text % SERVER_TIMEOUT).replace('{id}', tmp_path.name[-12:].replace('-', '_'))
    tree = write_tree(tmp_path, 'wait.yaml', f'trees:\n  Main:\n    {node_text}\n')
    ex = Host(tree, use_sim_time=True, tick_rate=10.0)
    clock_node = rclpy.create_node('fast_clock', context=ex.context)
    try:
        publisher = clock_node.create_publisher(Clock, '/clock', 10)
        sim = 1000.0
        started = time.monotonic()
        while True:
            sim += SPEED * 0.02
            stamp = Clock()
            stamp.clock.sec, stamp.clock.nanosec = int(sim), int(sim % 1 * 1e9)
            publisher.publish(stamp)
            ex.executor.spin_once(timeout_sec=0.02)
            status = ex.executive.status()
            if failure in (status['last_failure'] or ''):
                break
            assert time.monotonic() - started < 10 * SERVER_TIMEOUT, status
        waited = time.monotonic() - started
    finally:
        clock_node.destroy_node()
        ex.close()
    print(f'{leaf}: failed after {waited:.2f} s of wall time')
    # the wall time of the whole run (a little more than the leaf's own wait)
    assert waited >= SERVER_TIMEOUT, status['last_failure']
    assert f'after {SERVER_TIMEOUT:g} s' in status['last_failure']
