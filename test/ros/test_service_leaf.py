"""The Service leaf against a real std_srvs/srv/Trigger server in a subprocess.

The server (``peers/trigger_server.py``) also serves test_msgs/srv/BasicTypes on
``<name>/basic``, echoing the request; it reports every request and response as events.
"""

from collections.abc import Callable
import time

from helpers import PeerEvents
import py_trees
from py_trees.common import Status
import pytest
from tree_runner import RosEnv, unique_name

DISCOVERY_TIMEOUT = 15.0
ANSWER_TIMEOUT = 10.0

StartServer = Callable[..., tuple[str, PeerEvents]]


def service_tree(service: str, **params: object) -> str:
    """Return a one-leaf tree calling ``service`` (Trigger unless ``type`` is given)."""
    fields = {'type': 'std_srvs/srv/Trigger', 'service': service,
              'server_timeout': DISCOVERY_TIMEOUT, **params}
    text = ', '.join(f'{key}: {value}' for key, value in fields.items())
    return f'trees:\n  Main:\n    Service call: {{{text}}}\n'


def blackboard(key: str) -> object:
    """Return a root blackboard value."""
    return py_trees.blackboard.Blackboard.get('/' + key)


@pytest.mark.ros
def test_response_is_stored_and_passes_the_success_test(trigger: StartServer,
                                                        env: RosEnv) -> None:
    from std_srvs.srv import Trigger

    service, events = trigger('ok')
    runner = env.run(service_tree(service, response_key='answer',
                                  success='response.success'))
    assert runner.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT) == \
        f'/{service} succeeded'
    answer = blackboard('answer')
    assert isinstance(answer, Trigger.Response)
    assert (answer.success, answer.message) == (True, 'ok 1')
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)
    assert runner.outstanding() == []


@pytest.mark.ros
def test_success_test_decides_on_a_failed_response(trigger: StartServer,
                                                   env: RosEnv) -> None:
    service, events = trigger('fail')
    tested = env.run(service_tree(service, response_key='answer',
                                  success='response.success'))
    reason = tested.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == 'response failed success test: response.success'
    assert blackboard('answer').message == 'failed 1'  # stored for the tree to inspect

    untested = env.run(service_tree(service))  # default success test: true
    untested.tick_until_status(Status.SUCCESS, ANSWER_TIMEOUT)

    broken = env.run(service_tree(service, success='response.nothing'))
    reason = broken.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason.startswith('cannot evaluate the success test response.nothing: ')


@pytest.mark.ros
def test_request_built_from_the_blackboard(trigger: StartServer, env: RosEnv) -> None:
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

    py_trees.blackboard.Blackboard.set('/n', 'seven')
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == ('cannot build the request: field request.float64_value: ${n / 2}: '
                      "'/' needs two numbers, got str and int")
    py_trees.blackboard.Blackboard.set('/n', 2.5)
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == ('cannot build the request: field request.int32_value: expected an '
                      'integer, got non-integral float 2.5')
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)
    assert events.names().count('request') == 1


@pytest.mark.ros
def test_absent_service_fails_after_server_timeout(env: RosEnv) -> None:
    service = unique_name('nobody')
    runner = env.run(service_tree(service, server_timeout=0.5))
    started = time.monotonic()
    reason = runner.tick_until_status(Status.FAILURE, 5.0)
    elapsed = time.monotonic() - started
    assert reason == f"service '/{service}' not available after 0.5 s"
    assert 0.5 <= elapsed < 1.5


@pytest.mark.ros
def test_timeout_drops_the_request_and_the_next_run_sends_one_new_request(
        trigger: StartServer, env: RosEnv) -> None:
    service, events = trigger('slow', '--delay', '1.0')
    runner = env.run(service_tree(service, timeout=0.3))
    reason = runner.tick_until_status(Status.FAILURE, ANSWER_TIMEOUT)
    assert reason == f"no response from '/{service}' after 0.3 s"
    assert runner.outstanding() == []
    runner.await_event(events, 'request', count=1, timeout=ANSWER_TIMEOUT)

    assert runner.tick() == Status.RUNNING  # a new run: one new request
    runner.await_event(events, 'request', count=2, timeout=ANSWER_TIMEOUT)
    runner.stop()  # halted: the second request is dropped too
    assert runner.outstanding() == []
    # Both requests are answered (1 s each); by then any extra request would have arrived.
    runner.await_event(events, 'responded', count=1, timeout=ANSWER_TIMEOUT)
    runner.await_event(events, 'responded', count=2, timeout=ANSWER_TIMEOUT)
    requests = [event for event in events.events() if event['event'] == 'request']
    assert [event['count'] for event in requests] == [1, 2]
