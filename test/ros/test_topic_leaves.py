# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TopicCondition, WaitForMessage and Publish with real DDS traffic.

The test's own node publishes and subscribes (the leaves run on the same node, as the
executive's leaves do); ticks and callbacks are interleaved in the test thread.
"""

from collections.abc import Iterator
import re
import time
from typing import Any

import py_trees
from py_trees.common import Status
import pytest
from tree_runner import RosEnv, unique_name

ANSWER_TIMEOUT = 10.0


def env(request: pytest.FixtureRequest) -> Iterator[RosEnv]:
    """Yield a private ROS environment (context, node, executor) for the test."""
    with RosEnv(request.node.name) as environment:
        yield environment


def one_leaf(node_type: str, **params: Any) -> str:
    """Return a one-leaf tree."""
    text = ', '.join(f'{key}: {value}' for key, value in params.items())
    return f'trees:\n  Main:\n    {node_type} leaf: {{{text}}}\n'


def matched_publisher(env: RosEnv, msg_type: type, topic: str, **qos: Any) -> Any:
    """Create a publisher on the test node and wait until a subscription matched it."""
    from rclpy.qos import QoSProfile

    publisher = env.node.create_publisher(msg_type, topic, QoSProfile(depth=10, **qos))
    env.spin_until(lambda: publisher.get_subscription_count() >= 1, ANSWER_TIMEOUT,
                   f'a subscription on {topic}')
    return publisher


def blackboard(key: str) -> Any:
    """Return a root blackboard value."""
    return py_trees.blackboard.Blackboard.get('/' + key)


@pytest.mark.ros
def test_topic_condition_without_a_message_fails(env: RosEnv) -> None:
    topic = unique_name('silent')
    runner = env.run(one_leaf('TopicCondition', topic=topic, type='std_msgs/msg/Bool'))
    assert runner.tick() == Status.FAILURE
    assert runner.root.feedback_message == f'no message on /{topic} yet'


@pytest.mark.ros
def test_topic_condition_fresh_then_stale_then_false(env: RosEnv) -> None:
    from std_msgs.msg import Bool

    topic = unique_name('flag')
    runner = env.run(one_leaf('TopicCondition', topic=topic, type='std_msgs/msg/Bool',
                              expr='msg.data', max_age=0.5))
    publisher = matched_publisher(env, Bool, topic)
    publisher.publish(Bool(data=True))
    published = time.monotonic()
    runner.tick_until(lambda: runner.status == Status.SUCCESS, ANSWER_TIMEOUT,
                      'the fresh message to pass')

    runner.tick_until(lambda: runner.status == Status.FAILURE, 5.0, 'the message to go stale')
    reason = runner.root.feedback_message
    assert time.monotonic() - published >= 0.5
    assert re.fullmatch(rf'stale: last message on /{topic} \d+\.\d s ago \(max_age 0\.5 s\)',
                        reason), reason

    publisher.publish(Bool(data=False))
    runner.tick_until(lambda: runner.root.feedback_message == 'msg.data is false',
                      ANSWER_TIMEOUT, 'the false message to be seen')
    assert runner.status == Status.FAILURE


@pytest.mark.ros
def test_topic_condition_mixes_message_and_blackboard(env: RosEnv) -> None:
    from std_msgs.msg import Int32

    topic = unique_name('level')
    runner = env.run('blackboard: {limit: 10}\n'
                     + one_leaf('TopicCondition', topic=topic, type='std_msgs/msg/Int32',
                                expr="'msg.data < limit'"))
    publisher = matched_publisher(env, Int32, topic)
    publisher.publish(Int32(data=3))
    runner.tick_until(lambda: runner.status == Status.SUCCESS, ANSWER_TIMEOUT,
                      'the message to pass')
    py_trees.blackboard.Blackboard.unset('/limit')
    assert runner.tick() == Status.FAILURE
    assert runner.root.feedback_message == ('cannot evaluate msg.data < limit: '
                                            "no blackboard key 'limit'")


@pytest.mark.ros
def test_latched_topic_condition_gets_an_earlier_message(env: RosEnv) -> None:
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from std_msgs.msg import Bool

    topic = unique_name('latched')
    publisher = env.node.create_publisher(
        Bool, topic, QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    publisher.publish(Bool(data=True))
    runner = env.run(one_leaf('TopicCondition', topic=topic, type='std_msgs/msg/Bool',
                              expr='msg.data', qos='latched'))
    runner.tick_until(lambda: runner.status == Status.SUCCESS, ANSWER_TIMEOUT,
                      'the latched message')


@pytest.mark.ros
def test_wait_for_message_runs_until_a_matching_message(env: RosEnv) -> None:
    from std_msgs.msg import Int32

    topic = unique_name('count')
    runner = env.run(one_leaf('WaitForMessage', topic=topic, type='std_msgs/msg/Int32',
                              expr="'msg.data > 3'", key='seen'))
    publisher = matched_publisher(env, Int32, topic)
    assert runner.tick() == Status.RUNNING
    publisher.publish(Int32(data=1))
    runner.tick_until(lambda: 'msg.data > 3 is false' in runner.root.feedback_message,
                      ANSWER_TIMEOUT, 'the non-matching message to be tested')
    assert runner.status == Status.RUNNING
    with pytest.raises(KeyError):
        blackboard('seen')

    publisher.publish(Int32(data=5))
    runner.tick_until(lambda: runner.status == Status.SUCCESS, ANSWER_TIMEOUT,
                      'the matching message')
    assert isinstance(blackboard('seen'), Int32) and blackboard('seen').data == 5

    # A new run only counts messages received after it started.
    for _ in range(10):
        runner.spin_once()
        assert runner.tick() == Status.RUNNING
    publisher.publish(Int32(data=9))
    runner.tick_until(lambda: runner.status == Status.SUCCESS, ANSWER_TIMEOUT,
                      'the second matching message')
    assert blackboard('seen').data == 9


@pytest.mark.ros
def test_publish_builds_the_message_from_the_blackboard(env: RosEnv) -> None:
    from geometry_msgs.msg import Point
    from rclpy.qos import QoSProfile

    topic = unique_name('point')
    received: list[Any] = []
    env.node.create_subscription(Point, topic, received.append, QoSProfile(depth=10))
    runner = env.run('blackboard: {x: 1.5}\n'
                     + one_leaf('Publish', topic=topic, type='geometry_msgs/msg/Point',
                                fields="{x: $x, y: 2, z: '${x * 2}'}"))
    # Publish succeeds every tick; keep ticking until the subscription has matched.
    runner.tick_until(lambda: received, ANSWER_TIMEOUT, 'a message on the subscription')
    assert runner.status == Status.SUCCESS
    assert runner.root.feedback_message == f'published on /{topic}'
    assert (received[0].x, received[0].y, received[0].z) == (1.5, 2.0, 3.0)

    py_trees.blackboard.Blackboard.set('/x', 'far')
    assert runner.tick() == Status.FAILURE
    assert runner.root.feedback_message == ('cannot build the fields: field fields.z: '
                                            "${x * 2}: '*' needs two numbers, got str "
                                            'and int')


@pytest.mark.ros
def test_topic_leaves_shut_down_cleanly(env: RosEnv) -> None:
    topic = unique_name('gone')
    runner = env.run('trees:\n'
                     '  Main:\n'
                     '    Sequence:\n'
                     f'      - TopicCondition: {{topic: {topic}, type: std_msgs/msg/Bool}}\n'
                     f'      - WaitForMessage: {{topic: {topic}, type: std_msgs/msg/Bool}}\n'
                     f'      - Publish: {{topic: {topic}, type: std_msgs/msg/Bool}}\n')
    assert env.node.count_subscribers(f'/{topic}') == 2
    assert env.node.count_publishers(f'/{topic}') == 1
    runner.shutdown()
    runner.shutdown()
    assert env.node.count_subscribers(f'/{topic}') == 0
    assert env.node.count_publishers(f'/{topic}') == 0
    assert runner.tick() == Status.FAILURE
    assert runner.leaf('TopicCondition').feedback_message == 'leaf shut down'
    with pytest.raises(RuntimeError, match="TopicCondition leaf 'TopicCondition' needs "
                                           'the ROS node'):
        runner.leaf('TopicCondition').setup()


@pytest.mark.ros
def test_goal_stamps_stay_unique_while_simulated_time_stands_still(env: RosEnv) -> None:
    """Two goals sent before /clock moves still name different goals (the stamp is the id)."""
    from geometry_msgs.msg import PoseStamped
    from rclpy.parameter import Parameter

    from bt_executive.ros.leaves.topic_actions import goal_stamp

    env.node.set_parameters([Parameter('use_sim_time', value=True)])  # no /clock: time 0
    assert env.node.get_clock().now().nanoseconds == 0
    topic = unique_name('goal')
    received: list[Any] = []
    env.node.create_subscription(PoseStamped, topic, received.append, 10)
    leaf = ('goal_topic: /{topic}, goal_type: geometry_msgs/msg/PoseStamped, '
            'goal: {{header: {{frame_id: {frame}}}}}, stamp_field: header.stamp, '
            'status_topic: /{topic}_status, status_type: std_msgs/msg/String, '
            "succeeded: msg.data == 'done', server_timeout: 5.0")
    runner = env.run(f"""
trees:
  Main:
    Parallel both:
      children:
        - TopicAction first: {{{leaf.format(topic=topic, frame='a')}}}
        - TopicAction second: {{{leaf.format(topic=topic, frame='b')}}}
""")
    env.spin_until(lambda: runner.tick() is Status.RUNNING and len(received) == 2,
                   ANSWER_TIMEOUT, 'both goals at the test node')
    stamps = {message.header.frame_id: (message.header.stamp.sec, message.header.stamp.nanosec)
              for message in received}
    assert sorted(stamps) == ['a', 'b']
    assert stamps['a'] != stamps['b'] and stamps['a'][0] == stamps['b'][0] == 0
    # the next stamps go on from the last; a clock that went back (a restarted sim) is kept
    host = runner.host  # the leaves' (an executive's core, in an executive)
    assert goal_stamp(host).nanosec == max(stamps.values())[1] + 1
    env.node.set_parameters([Parameter('use_sim_time', value=False)])
    wall = goal_stamp(host)
    assert wall.sec > 1_000_000_000  # wall-clock time, far ahead: taken as it is
    env.node.set_parameters([Parameter('use_sim_time', value=True)])
    first, second = goal_stamp(host), goal_stamp(host)
    assert (first.sec, first.nanosec, second.sec, second.nanosec) == (0, 0, 0, 1)


def goal_server(env: RosEnv, topic: str, answer: Any, *, latched: bool = False,
                another: bool = False) -> list[Any]:
    """Serve ``/{topic}`` goals on the test node; return the goals received.

    ``answer(goal, n)`` returns the status to publish for the n-th goal received (None:
    stay silent); with ``another``, a status of another goal follows it at once, as when
    a goal replaces one (``latched``: on a transient local publisher, as the sim's). The
    goals are listed as (monotonic arrival time, goal).
    """
    from action_msgs.msg import GoalStatus
    from geometry_msgs.msg import PoseStamped
    from rclpy.qos import DurabilityPolicy, QoSProfile

    received: list[Any] = []
    status = env.node.create_publisher(GoalStatus, f'/{topic}_status', QoSProfile(
        depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
        else DurabilityPolicy.VOLATILE))

    def on_goal(goal: Any) -> None:
        received.append((time.monotonic(), goal))
        code = answer(goal, len(received))
        if code is not None:
            message = GoalStatus(status=code)
            message.goal_info.stamp = goal.header.stamp
            status.publish(message)
        if another:
            message = GoalStatus(status=GoalStatus.STATUS_CANCELED)
            message.goal_info.stamp.sec = 1
            status.publish(message)

    env.node.create_subscription(PoseStamped, f'/{topic}', on_goal, 10)
    return received


def resending_leaf(topic: str, **more: Any) -> str:
    """Return a tree whose TopicAction resends its goal after 0.1 s without a status."""
    params = {'goal_topic': f'/{topic}', 'goal_type': 'geometry_msgs/msg/PoseStamped',
              'stamp_field': 'header.stamp', 'status_topic': f'/{topic}_status',
              'status_type': 'action_msgs/msg/GoalStatus',
              'match': 'msg.goal_info.stamp == goal.header.stamp',
              'succeeded': 'msg.status == 4', 'resend_timeout': 0.1, **more}
    return one_leaf('TopicAction', **params)


@pytest.mark.ros
def test_a_lost_goal_is_sent_again_with_its_stamp(env: RosEnv) -> None:
    """A goal the server never got (here: ignored) is published again, the same goal."""
    topic = unique_name('lost_goal')
    received = goal_server(env, topic, lambda goal, n: None if n == 1 else 4)
    runner = env.run(resending_leaf(topic))
    runner.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT)
    assert len(received) == 2, received
    assert received[0][1] == received[1][1]  # the same stamp: the server can tell it is a repeat


@pytest.mark.ros
@pytest.mark.parametrize('latched', [False, True],
                         ids=['heard', 'latched reader, another goal status after it'])
def test_a_goal_the_server_speaks_of_is_not_sent_again(env: RosEnv, latched: bool) -> None:
    """Once a status about the goal arrived, no resend: the server has the goal.

    ``latched``: the reader (``status_qos: latched``) keeps more than the last status, so
    another goal's status right after this one's does not hide it.
    """
    topic = unique_name('heard_goal')
    received = goal_server(env, topic, lambda goal, n: 2,  # EXECUTING, never done
                           latched=latched, another=latched)
    runner = env.run(resending_leaf(topic, **({'status_qos': 'latched'} if latched else {})))
    runner.tick_until(lambda: received and time.monotonic() - received[0][0] >= 0.5,
                      ANSWER_TIMEOUT, 'five resend timeouts after the goal arrived')
    assert runner.status is Status.RUNNING
    assert len(received) == 1, received


@pytest.mark.ros
def test_resends_of_an_unanswered_goal_back_off(env: RosEnv) -> None:
    """A server that never answers gets the goal at 0, 0.1, 0.3, 0.7 s: not every 0.1 s."""
    topic = unique_name('silent_goal')
    received = goal_server(env, topic, lambda goal, n: None)
    runner = env.run(resending_leaf(topic, timeout=1.0))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert 'no result after 1.0 s' in reason, reason
    runner.spin_until(lambda: len(received) >= 2, ANSWER_TIMEOUT, 'the resent goals')
    assert 2 <= len(received) <= 4, len(received)
    assert all(goal == received[0][1] for _, goal in received)


def test_unique_times_go_on_from_the_last_unless_the_clock_went_back() -> None:
    from bt_executive.ros.leaves.common import SAME_INSTANT_NS, UniqueTimes

    readings = iter([5, 5, 4, 5 + SAME_INSTANT_NS, 3])
    times = UniqueTimes(lambda: next(readings))
    assert [times.take() for _ in range(5)] == [5, 6, 7, 5 + SAME_INSTANT_NS, 3]
