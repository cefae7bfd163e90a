# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Service leaf against a real std_srvs/srv/Trigger server in a subprocess.

The server (``peers/trigger_server.py``) also serves test_msgs/srv/BasicTypes on
``<name>/basic``, echoing the request; it reports every request and response as events.
"""

from py_trees.common import Status
import pytest
from tree_runner import (blackboard, DISCOVERY_TIMEOUT, one_leaf_tree, RosEnv, set_blackboard,
                         StartPeer, unique_name)

ANSWER_TIMEOUT = 10.0


def service_tree(service: str, **params: object) -> str:
    """Return a one-leaf tree calling ``service`` (Trigger unless ``type`` is given)."""
    return one_leaf_tree('Service call', {'type': 'std_srvs/srv/Trigger', 'service': service,
                                          'server_timeout': DISCOVERY_TIMEOUT, **params})


@pytest.mark.ros
@pytest.mark.parametrize('mode, status, feedback, success, message', [
    ('ok', Status.SUCCESS, '/{service} succeeded', True, 'ok 1'),
    ('fail', Status.FAILURE, 'response failed success test: response.success', False,
     'failed 1'),  # the failed response is still stored, for the tree to inspect
])
def test_response_is_stored_and_decided_by_the_success_test(
        trigger: StartPeer, env: RosEnv, mode: str, status: Status, feedback: str,
        success: bool, message: str) -> None:
    from std_srvs.srv import Trigger

    service, events = trigger(mode)
    runner = env.run(service_tree(service, response_key='answer',
                                  success='response.success'))
    assert runner.tick_until_status(status, ANSWER_TIMEOUT) == feedback.format(service=service)
    answer = blackboard('answer')
    assert isinstance(answer, Trigger.Response)
    assert (answer.success, answer.message) == (success, message)
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)
    assert runner.outstanding() == []


@pytest.mark.ros
def test_without_a_success_test_any_response_succeeds_and_a_broken_test_fails(
        trigger: StartPeer, env: RosEnv) -> None:
    service, _ = trigger('fail')
    untested = env.run(service_tree(service))  # default success test: true
    untested.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT)

    # fields are checked when the file loads (test_action_leaf.py,
    # test_reads_of_the_response_and_messages_are_checked);
    # what only the response can tell fails the leaf, here text divided by a number
    broken = env.run(service_tree(service, success='response.message / 2 > 0'))
    reason = broken.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason.startswith('cannot evaluate the success test response.message / 2 > 0: ')


@pytest.mark.ros
def test_request_built_from_the_blackboard(trigger: StartPeer, env: RosEnv) -> None:
    service, events = trigger('ok')
    runner = env.run(
        'blackboard: {n: 7, label: seven}\n'
        'trees:\n'
        '  Main:\n'
        f'    Service echo: {{type: test_msgs/srv/BasicTypes, service: {service}/basic,\n'
        "                   request: {int32_value: $n, float64_value: '${n / 2}',\n"
        '                             string_value: $label},\n'
        '                   response_key: echoed, server_timeout: 15.0,\n'
        "                   success: 'response.int32_value == n'}\n")
    runner.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT)
    echoed = blackboard('echoed')
    assert (echoed.int32_value, echoed.float64_value) == (7, 3.5)
    assert echoed.string_value == 'echo 1'

    set_blackboard('n', 'seven')
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == ('cannot build the request: field request.float64_value: ${n / 2}: '
                      "'/' needs two numbers, got str and int")
    set_blackboard('n', 2.5)
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == ('cannot build the request: field request.int32_value: expected an '
                      'integer, got non-integral float 2.5')
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)
    assert events.names().count('request') == 1


@pytest.mark.ros
def test_absent_service_fails_after_server_timeout(env: RosEnv) -> None:
    service = unique_name('nobody')
    runner = env.run(service_tree(service, server_timeout=0.5))
    reason, elapsed = runner.timed_until_status(Status.FAILURE, 5.0)
    assert reason == f"service '/{service}' not available after 0.5 s"
    assert 0.5 <= elapsed < 1.5


@pytest.mark.ros
def test_timeout_drops_the_request_and_the_next_run_sends_one_new_request(
        trigger: StartPeer, env: RosEnv) -> None:
    service, events = trigger('slow', '--delay', '1.0')
    runner = env.run(service_tree(service, timeout=0.3))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == f"no response from '/{service}' after 0.3 s"
    assert runner.outstanding() == []
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)

    # a new run: it waits out its back-off (RUNNING), then sends one new request
    assert runner.tick() == Status.RUNNING
    runner.tick_until(lambda: events.find('request', count=2), ANSWER_TIMEOUT,
                      'the second request')
    assert runner.status == Status.RUNNING
    runner.stop()  # halted: the second request is dropped too
    assert runner.outstanding() == []
    # Both requests are answered (1 s each); by then any extra request would have arrived.
    runner.await_event(events, 'responded', count=1, timeout=ANSWER_TIMEOUT)
    runner.await_event(events, 'responded', count=2, timeout=ANSWER_TIMEOUT)
    requests = [event for event in events.events() if event['event'] == 'request']
    assert [event['count'] for event in requests] == [1, 2]
