# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Action leaf against a real test_msgs/action/Fibonacci server in a subprocess.

Every test ticks a tree with the real leaves in the test thread, interleaved with
``spin_once`` of a single-threaded executor (see ``tree_runner``), and checks what the
server saw through the events it publishes.
"""

import re
from typing import Any

from helpers import skip_if_installed
from py_trees.common import Status
import pytest
from tree_runner import (blackboard, DISCOVERY_TIMEOUT, one_leaf_tree, RosEnv, set_blackboard,
                         StartPeer, unique_name)

ANSWER_TIMEOUT = 10.0
# Seconds per step of goals that must stay active for a while: the peer's int32 sequence
# overflows (and the goal aborts) after 46 steps, i.e. after 9 s at this period.
SLOW_PERIOD = '0.2'


def action_tree(server: str, **params: Any) -> str:
    """Return a one-leaf tree calling the Fibonacci action on ``server``."""
    return one_leaf_tree('Action fib', {'type': 'test_msgs/action/Fibonacci', 'server': server,
                                        'server_timeout': DISCOVERY_TIMEOUT, **params})


PREEMPTABLE = """
blackboard: {{preempt: false}}
trees:
  Main:
    Selector:
      - Condition: preempt
      - Action fib: {{type: test_msgs/action/Fibonacci, server: {server},
                     goal: {{order: {order}}}, server_timeout: 15.0}}
"""


@pytest.mark.ros
def test_goal_from_blackboard_succeeds_with_result_and_feedback(
        fibonacci: StartPeer, env: RosEnv) -> None:
    from test_msgs.action import Fibonacci

    server, events = fibonacci('succeed', '--period', '0.05')
    runner = env.run(action_tree(server, goal='{order: $n}', result_key='result',
                                 feedback_key='progress'))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == "cannot build the goal: field goal.order: $n: no blackboard key 'n'"

    set_blackboard('n', 5)
    runner.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT)
    result = blackboard('result')
    assert isinstance(result, Fibonacci.Result)
    assert list(result.sequence) == [0, 1, 1, 2, 3, 5]
    progress = blackboard('progress')
    assert isinstance(progress, Fibonacci.Feedback)
    assert list(progress.sequence) == [0, 1, 1, 2, 3, 5][:len(progress.sequence)]
    accepted = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)
    assert accepted['order'] == 5
    assert events.names().count('goal_received') == 1
    runner.root.stop(Status.INVALID)  # halting a finished leaf cancels nothing
    assert runner.outstanding() == []


@pytest.mark.ros
def test_absent_server_fails_after_server_timeout(env: RosEnv) -> None:
    server = unique_name('nobody')
    runner = env.run(action_tree(server, server_timeout=0.5))
    reason, elapsed = runner.timed_until_status(Status.FAILURE, 5.0)
    assert reason == f"action server '/{server}' not available after 0.5 s"
    assert 0.5 <= elapsed < 1.5


@pytest.mark.ros
def test_rejected_goal_fails(fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('reject')
    runner = env.run(action_tree(server, goal='{order: 4}'))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == f'goal rejected by /{server}'
    assert runner.await_event(events, 'goal_rejected', timeout=ANSWER_TIMEOUT)['order'] == 4
    assert runner.outstanding() == []


@pytest.mark.ros
def test_aborted_goal_fails(fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('abort')
    runner = env.run(action_tree(server, goal='{order: 4}', result_key='result'))
    assert runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT) == 'goal aborted'
    with pytest.raises(KeyError):
        blackboard('result')


@pytest.mark.ros
def test_result_timeout_cancels_the_goal(fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('slow', '--period', SLOW_PERIOD)
    runner = env.run(action_tree(server, goal='{order: 3}', timeout=0.5))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == 'no result after 0.5 s'
    accepted = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)
    goal_id = accepted['goal_id']
    runner.await_event(events, 'cancel_requested', goal_id=goal_id, timeout=ANSWER_TIMEOUT)
    finished = runner.await_event(events, 'finished', goal_id=goal_id,
                                  timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'
    runner.spin_until(lambda: not runner.outstanding(), ANSWER_TIMEOUT, 'the cancel response')


@pytest.mark.ros
def test_preemption_cancels_the_running_goal(fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('slow', '--period', SLOW_PERIOD)
    runner = env.run(PREEMPTABLE.format(server=server, order=3))
    leaf = runner.leaf('fib')
    accepted = runner.tick_until(
        lambda: next((e for e in events.events() if e['event'] == 'goal_accepted'), None),
        ANSWER_TIMEOUT, 'the goal to be accepted')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal active'),
                      ANSWER_TIMEOUT, 'the goal response')
    assert runner.status == Status.RUNNING

    set_blackboard('preempt', True)
    assert runner.tick() == Status.SUCCESS
    assert leaf.status == Status.INVALID
    assert runner.outstanding(), 'the cancel response should be awaited'
    runner.await_event(events, 'cancel_requested', goal_id=accepted['goal_id'],
                       timeout=ANSWER_TIMEOUT)
    finished = runner.await_event(events, 'finished', goal_id=accepted['goal_id'],
                                  timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'
    runner.spin_until(lambda: not runner.outstanding(), ANSWER_TIMEOUT, 'the cancel response')


@pytest.mark.ros
def test_preemption_before_the_goal_response_cancels_once_accepted(
        fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('delay_accept', '--accept-delay', '1.0',
                               '--period', SLOW_PERIOD)
    runner = env.run(PREEMPTABLE.format(server=server, order=40))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal sent'),
                      DISCOVERY_TIMEOUT, 'the goal to be sent')
    set_blackboard('preempt', True)
    assert runner.tick() == Status.SUCCESS
    assert leaf.status == Status.INVALID
    assert 'goal_accepted' not in events.names()
    assert runner.outstanding(), 'the pending goal response should be awaited'

    accepted = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)
    runner.await_event(events, 'cancel_requested', goal_id=accepted['goal_id'],
                       timeout=ANSWER_TIMEOUT)
    finished = runner.await_event(events, 'finished', goal_id=accepted['goal_id'],
                                  timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'
    runner.spin_until(lambda: not runner.outstanding(), ANSWER_TIMEOUT,
                      'the goal and cancel responses')


@pytest.mark.ros
def test_preemption_after_a_lost_goal_response_cancels_by_goal_id_at_once(
        fibonacci: StartPeer, env: RosEnv) -> None:
    # The server accepts the goal and answers, but the answer never reaches the leaf:
    # what Fast DDS does to a response for a client it has not matched yet ("failed to
    # send response (timeout)"). No real part loses a response on demand, so the goal
    # service client forgets its pending request and drops the answer when it comes, with
    # the request's future left pending.
    server, events = fibonacci('delay_accept', '--accept-delay', '0.5',
                               '--period', SLOW_PERIOD)
    runner = env.run(PREEMPTABLE.format(server=server, order=40))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal sent'),
                      DISCOVERY_TIMEOUT, 'the goal to be sent')
    leaf.client.goal_client._pending_requests.clear()  # the answer will be lost
    accepted = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)
    set_blackboard('preempt', True)
    assert runner.tick() == Status.SUCCESS
    assert leaf.status == Status.INVALID
    # cancelled at once by its id, not after the answer that will never come
    runner.await_event(events, 'cancel_requested', goal_id=accepted['goal_id'],
                       timeout=ANSWER_TIMEOUT)
    finished = runner.await_event(events, 'finished', goal_id=accepted['goal_id'],
                                  timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'
    # the acknowledged cancel ends the wait a stop would make for the answer
    runner.spin_until(lambda: not runner.outstanding(), ANSWER_TIMEOUT,
                      'the cancel response to release the lost goal response')


@pytest.mark.ros
def test_a_lost_result_is_asked_for_again_once_the_status_says_the_goal_ended(
        fibonacci: StartPeer, env: RosEnv) -> None:
    from test_msgs.action import Fibonacci

    server, events = fibonacci('succeed', '--period', SLOW_PERIOD)
    runner = env.run(action_tree(server, goal='{order: 4}', result_key='result'))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal active'),
                      ANSWER_TIMEOUT, 'the goal to be accepted')
    # The result request is out; its response will be lost, as a goal's answer can be
    # (see the test above): the result client forgets the request and drops the response.
    leaf.client.result_client._pending_requests.clear()
    finished = runner.await_event(events, 'finished', timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'succeeded'
    waiting = f'goal succeeded on /{server}, waiting for its result'
    runner.tick_until(lambda: leaf.feedback_message == waiting, ANSWER_TIMEOUT,
                      "the status topic's word that the goal ended")
    assert runner.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT) == \
        f'goal succeeded on /{server}'
    result = blackboard('result')
    assert isinstance(result, Fibonacci.Result)
    assert list(result.sequence) == finished['sequence']


@pytest.mark.ros
def test_a_lost_cancel_response_is_not_awaited_once_the_status_says_canceled(
        fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('slow', '--period', SLOW_PERIOD)
    runner = env.run(PREEMPTABLE.format(server=server, order=40))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal active'),
                      ANSWER_TIMEOUT, 'the goal to be accepted')
    set_blackboard('preempt', True)
    assert runner.tick() == Status.SUCCESS
    # the cancel request is out; its response will be lost (see the tests above)
    leaf.client.cancel_client._pending_requests.clear()
    finished = runner.await_event(events, 'finished', timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'
    runner.spin_until(lambda: not runner.outstanding(), ANSWER_TIMEOUT,
                      "the status topic's word that the goal was canceled")


@pytest.mark.ros
def test_a_goal_nobody_answers_fails_after_answer_timeout_and_is_cancelled(
        fibonacci: StartPeer, env: RosEnv) -> None:
    # The server answers only after 3 s: to the client, a lost goal response.
    server, events = fibonacci('delay_accept', '--accept-delay', '3.0',
                               '--period', SLOW_PERIOD)
    runner = env.run(action_tree(server, goal='{order: 40}', answer_timeout=1.0))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    match = re.fullmatch(rf"action server '/?{server}' did not answer goal ([0-9a-f]{{8}}) "
                         r'within 1.0 s \(a cancel was sent in case it runs\)', reason)
    assert match, reason
    # the answer that comes after all is an orphan's: the accepted goal is cancelled
    accepted = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)
    assert accepted['goal_id'].startswith(match.group(1))
    finished = runner.await_event(events, 'finished', goal_id=accepted['goal_id'],
                                  timeout=ANSWER_TIMEOUT)
    assert finished['status'] == 'canceled'


@pytest.mark.ros
def test_callbacks_of_a_preempted_run_do_not_affect_the_next_run(
        fibonacci: StartPeer, env: RosEnv) -> None:
    server, events = fibonacci('slow', '--period', SLOW_PERIOD)
    runner = env.run(PREEMPTABLE.format(server=server, order=3))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal active'),
                      ANSWER_TIMEOUT, 'the first goal to be active')
    first = runner.await_event(events, 'goal_accepted', timeout=ANSWER_TIMEOUT)['goal_id']
    set_blackboard('preempt', True)
    runner.tick()
    set_blackboard('preempt', False)
    runner.tick_until(
        lambda: [e for e in events.events() if e['event'] == 'goal_accepted'][1:],
        ANSWER_TIMEOUT, 'the second goal to be accepted')
    # The first goal's canceled result arrives while the second run is going on.
    runner.tick_until(lambda: any(e['event'] == 'finished' and e['goal_id'] == first
                                  for e in events.events()),
                      ANSWER_TIMEOUT, 'the first goal to finish')
    for _ in range(20):
        runner.spin_once()
        assert runner.tick() == Status.RUNNING, runner.describe()
    assert leaf.feedback_message.startswith('goal active')


@pytest.mark.ros
def test_leaf_without_node_and_after_shutdown(env: RosEnv) -> None:
    from bt_executive.ros.leaves import FACTORIES

    runner = env.run(action_tree(unique_name('nobody'), server_timeout=5.0))
    leaf = runner.leaf('fib')
    assert leaf.outstanding() == []
    runner.shutdown()
    runner.shutdown()  # idempotent
    assert runner.tick() == Status.FAILURE
    assert leaf.feedback_message == 'leaf shut down'

    registry = runner.context.registry
    assert registry.get('Action').factory is FACTORIES['Action']
    with pytest.raises(RuntimeError, match="Action leaf 'fib' needs the ROS node"):
        leaf.setup()


# ---- build-time and load-time checks (no server needed) ----------------------------


def load(text: str) -> Any:
    """Load a document with the catalogue (ROS leaves as declared)."""
    from bt_executive.core.loader import Loader
    from bt_executive.nodes.catalogue import default_registry

    return Loader(default_registry()).load_text(text, name='tree.yaml')


def check(text: str) -> list[tuple[str, str]]:
    """Run check_leaf over every ROS leaf of the text's trees; return (loc, message)."""
    from bt_executive.ros.leaves import check_leaf

    document = load(text)
    problems = []
    for tree in document.trees.values():
        for node in tree.root.walk():
            problems.extend((str(loc), message) for loc, message in check_leaf(node))
    return problems


@pytest.mark.ros
def test_check_leaf_reports_goal_field_errors_with_the_field_path() -> None:
    problems = check('trees:\n'
                     '  Main:\n'
                     '    Action: {type: test_msgs/action/Fibonacci, server: fib,\n'
                     '             goal: {ordr: 3}}\n')
    assert problems == [('tree.yaml:4:20',
                         "field goal.ordr: unknown field 'ordr' for "
                         "test_msgs/action/Fibonacci_Goal (did you mean 'order'?); "
                         'valid fields: order')]
    problems = check('trees:\n'
                     '  Main:\n'
                     '    Action: {type: test_msgs/action/Fibonacci, server: fib,\n'
                     '             goal: {order: 2.5}}\n')
    assert problems == [('tree.yaml:4:20',
                         'field goal.order: expected an integer, got non-integral float '
                         '2.5')]


@pytest.mark.ros
def test_check_leaf_accepts_references_and_expressions() -> None:
    assert check('trees:\n'
                 '  Main:\n'
                 '    Sequence:\n'
                 '      - Action: {type: test_msgs/action/Fibonacci, server: fib,\n'
                 "                 goal: {order: '${n + 1}'}}\n"
                 '      - Action: {type: test_msgs/action/Fibonacci, server: fib,\n'
                 '                 goal: $whole_goal}\n'
                 '      - Service: {type: test_msgs/srv/BasicTypes, service: srv,\n'
                 '                  request: {int32_value: $n, string_value: text}}\n'
                 '      - Publish: {type: geometry_msgs/msg/Point, topic: p,\n'
                 '                  fields: {x: $x, y: 1}}\n') == []


@pytest.mark.ros
def test_check_leaf_skips_types_whose_package_is_not_installed() -> None:
    skip_if_installed('nav2_msgs')
    assert check('trees:\n'
                 '  Main:\n'
                 '    Action: {type: nav2_msgs/action/NavigateToPose,\n'
                 '             server: navigate_to_pose,\n'
                 '             goal: {pose: {header: {frame_id: map}}, nonsense: 1}}\n') == []


@pytest.mark.ros
def test_check_leaf_reports_types_names_and_request_fields() -> None:
    problems = check('trees:\n'
                     '  Main:\n'
                     '    Sequence:\n'
                     '      - Action: {type: std_msgs/msg/Bool, server: fib}\n'
                     '      - Service: {type: std_srvs/srv/Triger, service: a b}\n'
                     '      - Service: {type: test_msgs/srv/BasicTypes, service: srv,\n'
                     '                  request: {bool_value: 1}}\n'
                     '      - Publish: {type: std_msgs/msg/Bool, topic: /p/, fields: {}}\n')
    messages = [message for _loc, message in problems]
    assert len(problems) == 5, problems
    assert messages[0] == "expected an action type, got a msg type: 'std_msgs/msg/Bool'"
    assert messages[1].startswith("service 'a b': ")
    assert "has no srv type 'Triger'" in messages[2] and "'Trigger'" in messages[2]
    assert messages[3] == 'field request.bool_value: expected a bool, got int'
    assert messages[4] == "topic '/p/': topic name must not end with a forward slash"


@pytest.mark.ros
def test_reads_of_the_response_and_messages_are_checked() -> None:
    from bt_executive.core.builder import build
    from bt_executive.core.errors import TreeError
    from bt_executive.nodes.catalogue import default_registry
    from bt_executive.ros.leaves import FACTORIES

    registry = default_registry().with_factories(FACTORIES)
    document_text = (
        'trees:\n'
        '  Main:\n'
        '    Sequence:\n'
        "      - Service: {type: std_srvs/srv/SetBool, service: s, success: 'response.sucess'}\n"
        '      - TopicCondition: {type: geometry_msgs/msg/PoseArray, topic: p,\n'
        "                         expr: 'msg.poses[0].positon.x > 1 and len(msg.poses) > 0'}\n"
        "      - WaitForMessage: {type: std_msgs/msg/String, topic: s, expr: 'msg.data[0] == x'}\n"
        '      - TopicAction: {goal_topic: g, goal_type: std_msgs/msg/Header,\n'
        '                      status_type: action_msgs/msg/GoalStatus,\n'
        '                      status_topic: st,\n'
        "                      succeeded: 'msg.status == 4 and goal.stamp.sex'}\n")
    document = load(document_text)
    problems = check(document_text)
    assert problems == [
        ('tree.yaml:4:68', "success 'response.sucess': field response.sucess: unknown field "
         "'sucess' for std_srvs/srv/SetBool_Response (did you mean 'success'?); valid fields: "
         'success, message'),
        ('tree.yaml:6:32', "expr 'msg.poses[0].positon.x > 1 and len(msg.poses) > 0': field "
         "msg.poses.0.positon.x: unknown field 'positon' for geometry_msgs/msg/Pose (did you "
         "mean 'position'?); valid fields: position, orientation"),
        ('tree.yaml:11:34', "succeeded 'msg.status == 4 and goal.stamp.sex': field "
         "goal.stamp.sex: unknown field 'sex' for builtin_interfaces/msg/Time (did you mean "
         "'sec'?); valid fields: sec, nanosec")], problems
    with pytest.raises(TreeError) as raised:  # and when it is built (tree arguments in)
        build(document, registry=registry)
    messages = [diagnostic.message for diagnostic in raised.value.diagnostics]
    assert any(message.startswith("cannot build TopicAction: succeeded 'msg.status == 4 and "
                                  "goal.stamp.sex': field goal.stamp.sex: unknown field 'sex' "
                                  'for builtin_interfaces/msg/Time') for message in messages), \
        messages


@pytest.mark.ros
def test_factory_rejects_bad_types_and_goals_at_build_time() -> None:
    from bt_executive.core.builder import build
    from bt_executive.core.errors import TreeError
    from bt_executive.nodes.catalogue import default_registry
    from bt_executive.ros.leaves import FACTORIES

    skip_if_installed('nav2_msgs')
    registry = default_registry().with_factories(FACTORIES)
    document = load('trees:\n'
                    '  Main:\n'
                    '    Sequence:\n'
                    '      - Action: {type: nav2_msgs/action/NavigateToPose, server: nav}\n'
                    '      - Action: {type: test_msgs/action/Fibonacci, server: fib,\n'
                    '                 goal: {order: $n, extra: 1}}\n')
    with pytest.raises(TreeError) as raised:
        build(document, registry=registry)
    messages = [diagnostic.message for diagnostic in raised.value.diagnostics]
    assert messages[0].startswith("cannot build Action: package 'nav2_msgs' is not "
                                  'installed')
    assert messages[1].startswith('cannot build Action: field goal.extra: unknown field '
                                  "'extra'")


@pytest.mark.ros
def test_failure_reason_carries_the_results_error_message_and_code() -> None:
    from types import SimpleNamespace

    from bt_executive.ros.leaves.actions import error_detail
    assert error_detail(SimpleNamespace(error_code=9000, error_msg='battery empty')) == (
        ': battery empty (error_code 9000)')
    assert error_detail(SimpleNamespace(error_code=0, error_msg='canceled')) == ': canceled'
    assert error_detail(SimpleNamespace(error_code=903, error_msg='')) == ': (error_code 903)'
    assert error_detail(SimpleNamespace(sequence=[1, 2])) == ''  # Fibonacci: nothing to add
    assert error_detail(None) == ''


@pytest.mark.ros
def test_the_client_is_plain_entities_no_waitable_and_destroys_every_one(
        fibonacci: StartPeer, env: RosEnv) -> None:
    # A Waitable that leaves the node while rclpy's EventsExecutor spins can crash the
    # process (bt_executive/ros/entities.py), and a leaf's client leaves on every swap.
    from bt_executive.ros import entities

    server, _ = fibonacci('slow', '--period', SLOW_PERIOD)
    before = entities.counts(env.node)
    runner = env.run(action_tree(server, goal='{order: 40}', feedback_key='progress'))
    leaf = runner.leaf('fib')
    runner.tick_until(lambda: leaf.feedback_message.startswith('goal active'),
                      ANSWER_TIMEOUT, 'the goal to be accepted')
    made = entities.counts(env.node)
    assert made['waitables'] == before['waitables']
    assert (made['clients'] - before['clients'], made['subscriptions']
            - before['subscriptions']) == (3, 2)  # send_goal, cancel, result; feedback, status
    runner.tick_until(lambda: _has('progress'), ANSWER_TIMEOUT, 'feedback')
    runner.stop()
    runner.shutdown()
    assert entities.counts(env.node) == before


def _has(key: str) -> bool:
    try:
        blackboard(key)
    except KeyError:
        return False
    return True
