# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tests proving the ROS test harness works: peers as subprocesses, fixtures, event waits.

Each test starts a peer script from ``test/ros/peers`` with the ``spawn`` fixture, talks
to it with plain rclpy clients on the ``ros_node`` fixture, and awaits answers and the
peer's reported events with event-based waits (no sleeps).
"""

from collections.abc import Callable, Iterator
import os
import pathlib
import signal
import sys
import threading
import time
from typing import Any
import uuid

from helpers import (ExecutorThread, PeerEvents, SpawnedProcess, wait_event, wait_for,
                     wait_future)
import pytest

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
FIBONACCI_SERVER = PEERS / 'fibonacci_server.py'
TRIGGER_SERVER = PEERS / 'trigger_server.py'
DISCOVERY_TIMEOUT = 15.0
ANSWER_TIMEOUT = 10.0

StartFibonacci = Callable[..., tuple[Any, PeerEvents, SpawnedProcess]]
StartTrigger = Callable[..., tuple[str, PeerEvents]]


def unique_name(prefix: str) -> str:
    """Return a ROS name no other test (or leftover peer) uses."""
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


@pytest.fixture
def fibonacci(spawn: Callable[..., SpawnedProcess],
              ros_node: Any) -> Iterator[StartFibonacci]:
    """Start a Fibonacci server in the given mode; return (client, events, process)."""
    from rclpy.action import ActionClient
    from test_msgs.action import Fibonacci

    clients: list[Any] = []

    def start(mode: str, *options: str) -> tuple[Any, PeerEvents, SpawnedProcess]:
        name = unique_name('fib')
        process = spawn(FIBONACCI_SERVER, name, mode, *options)
        process.wait_for_line('READY', timeout=DISCOVERY_TIMEOUT)
        client = ActionClient(ros_node, Fibonacci, name)
        clients.append(client)
        assert client.wait_for_server(timeout_sec=DISCOVERY_TIMEOUT), \
            f'action server {name} not discovered within {DISCOVERY_TIMEOUT}s'
        events = PeerEvents(ros_node, f'{name}/events')
        events.wait_for_name('ready', timeout=DISCOVERY_TIMEOUT)
        return client, events, process

    yield start
    for client in clients:
        client.destroy()


def send_goal(client: Any, order: int) -> tuple[Any, list[list[int]], threading.Event]:
    """Send a goal; return (goal_handle, feedback list, feedback event)."""
    from test_msgs.action import Fibonacci

    feedback: list[list[int]] = []
    got_feedback = threading.Event()

    def on_feedback(message: Any) -> None:
        feedback.append(list(message.feedback.sequence))
        got_feedback.set()

    future = client.send_goal_async(Fibonacci.Goal(order=order),
                                    feedback_callback=on_feedback)
    goal_handle = wait_future(future, ANSWER_TIMEOUT, 'the goal response')
    return goal_handle, feedback, got_feedback


def goal_id(goal_handle: Any) -> str:
    """Return the client goal handle's UUID as the hex string the peers report."""
    return bytes(goal_handle.goal_id.uuid).hex()


@pytest.mark.ros
def test_fibonacci_goal_succeeds_with_feedback(fibonacci: StartFibonacci) -> None:
    from action_msgs.msg import GoalStatus

    client, events, _process = fibonacci('succeed', '--period', '0.05')
    goal_handle, feedback, got_feedback = send_goal(client, 6)
    assert goal_handle.accepted
    result = wait_future(goal_handle.get_result_async(), ANSWER_TIMEOUT, 'the result')
    assert result.status == GoalStatus.STATUS_SUCCEEDED
    assert list(result.result.sequence) == [0, 1, 1, 2, 3, 5, 8]
    wait_event(got_feedback, ANSWER_TIMEOUT, 'feedback')
    assert feedback and all(seq == [0, 1, 1, 2, 3, 5, 8][:len(seq)] for seq in feedback)
    accepted = events.wait_for_name('goal_accepted', goal_id=goal_id(goal_handle))
    finished = events.wait_for_name('finished', goal_id=goal_id(goal_handle))
    assert accepted['order'] == 6
    assert finished['status'] == 'succeeded'
    assert finished['feedback_count'] == 5
    assert events.names()[:4] == ['ready', 'goal_received', 'goal_accepted', 'finished']


@pytest.mark.ros
def test_fibonacci_slow_goal_is_cancelled(fibonacci: StartFibonacci) -> None:
    from action_msgs.msg import GoalStatus
    from action_msgs.srv import CancelGoal

    client, events, _process = fibonacci('slow', '--period', '0.05')
    goal_handle, _feedback, got_feedback = send_goal(client, 3)
    assert goal_handle.accepted
    wait_event(got_feedback, ANSWER_TIMEOUT, 'the first feedback')
    result_future = goal_handle.get_result_async()
    response = wait_future(goal_handle.cancel_goal_async(), ANSWER_TIMEOUT,
                           'the cancel response')
    assert response.return_code == CancelGoal.Response.ERROR_NONE
    assert [goal_id(info) for info in response.goals_canceling] == [goal_id(goal_handle)]
    result = wait_future(result_future, ANSWER_TIMEOUT, 'the result')
    assert result.status == GoalStatus.STATUS_CANCELED
    ident = goal_id(goal_handle)
    events.wait_for_name('cancel_requested', goal_id=ident)
    events.wait_for_name('cancel_accepted', goal_id=ident)
    finished = events.wait_for_name('finished', goal_id=ident)
    assert finished['status'] == 'canceled'
    assert finished['feedback_count'] >= 1


@pytest.mark.ros
def test_fibonacci_goal_rejected(fibonacci: StartFibonacci) -> None:
    client, events, _process = fibonacci('reject')
    goal_handle, _feedback, _event = send_goal(client, 4)
    assert not goal_handle.accepted
    rejected = events.wait_for_name('goal_rejected')
    assert rejected['order'] == 4


@pytest.mark.ros
def test_fibonacci_goal_aborted(fibonacci: StartFibonacci) -> None:
    from action_msgs.msg import GoalStatus

    client, events, _process = fibonacci('abort')
    goal_handle, _feedback, _event = send_goal(client, 4)
    result = wait_future(goal_handle.get_result_async(), ANSWER_TIMEOUT, 'the result')
    assert result.status == GoalStatus.STATUS_ABORTED
    assert list(result.result.sequence) == [0, 1, 1]
    finished = events.wait_for_name('finished', goal_id=goal_id(goal_handle))
    assert finished['status'] == 'aborted'


@pytest.mark.ros
def test_fibonacci_delay_accept_holds_the_goal_response(fibonacci: StartFibonacci) -> None:
    from action_msgs.msg import GoalStatus

    client, events, _process = fibonacci('delay_accept', '--accept-delay', '1.0')
    started = time.monotonic()
    goal_handle, _feedback, _event = send_goal(client, 2)
    assert time.monotonic() - started >= 0.9
    assert goal_handle.accepted
    events.wait_for_name('goal_received')
    result = wait_future(goal_handle.get_result_async(), ANSWER_TIMEOUT, 'the result')
    assert result.status == GoalStatus.STATUS_SUCCEEDED


@pytest.fixture
def trigger(spawn: Callable[..., SpawnedProcess], ros_node: Any) -> StartTrigger:
    """Start a Trigger server in the given mode; return (service name, events)."""
    def start(mode: str, *options: str) -> tuple[str, PeerEvents]:
        name = unique_name('trigger')
        process = spawn(TRIGGER_SERVER, name, mode, *options)
        process.wait_for_line('READY', timeout=DISCOVERY_TIMEOUT)
        events = PeerEvents(ros_node, f'{name}/events')
        return name, events

    return start


def call(node: Any, srv_type: type, name: str, request: Any) -> Any:
    """Call a service from ``node`` and return the response (event-based wait).

    ``wait_for_service`` can return before the server's response writer has matched the
    client (a DDS discovery race), and then the first response is lost; one retry covers
    it. Servers count requests, so callers must accept a count of 1 or 2.
    """
    client = node.create_client(srv_type, name)
    try:
        assert client.wait_for_service(timeout_sec=DISCOVERY_TIMEOUT), \
            f'service {name} not discovered within {DISCOVERY_TIMEOUT}s'
        future = client.call_async(request)
        try:
            return wait_future(future, ANSWER_TIMEOUT / 2, f'a response from {name}')
        except AssertionError:
            client.remove_pending_request(future)
            return wait_future(client.call_async(request), ANSWER_TIMEOUT,
                               f'a response from {name} (second try)')
    finally:
        node.destroy_client(client)


@pytest.mark.ros
@pytest.mark.parametrize(('mode', 'success', 'message'), [
    ('ok', True, 'ok 1'),
    ('fail', False, 'failed 1'),
])
def test_trigger_responds(trigger: StartTrigger, ros_node: Any, mode: str, success: bool,
                          message: str) -> None:
    from std_srvs.srv import Trigger

    name, events = trigger(mode)
    response = call(ros_node, Trigger, name, Trigger.Request())
    assert response.success is success
    assert response.message in (message, message.replace(' 1', ' 2'))  # see call()
    events.wait_for_name('request', count=1, service=name)
    responded = events.wait_for_name('responded', count=1)
    assert responded['success'] is success


@pytest.mark.ros
def test_trigger_slow_and_basic_types_echo(trigger: StartTrigger, ros_node: Any) -> None:
    from std_srvs.srv import Trigger
    from test_msgs.srv import BasicTypes

    name, events = trigger('slow', '--delay', '0.5')
    started = time.monotonic()
    response = call(ros_node, Trigger, name, Trigger.Request())
    assert time.monotonic() - started >= 0.45
    assert response.success and response.message in ('ok 1', 'ok 2')  # see call()
    request = BasicTypes.Request(int32_value=-7, float64_value=2.5, string_value='in')
    echoed = call(ros_node, BasicTypes, f'{name}/basic', request)
    assert (echoed.int32_value, echoed.float64_value) == (-7, 2.5)
    assert echoed.string_value.startswith('echo ')
    events.wait_for_name('responded', count=2, service=f'{name}/basic')


# --- the executor thread of the ros_node fixture --------------------------------------------

@pytest.mark.ros
def test_executor_thread_survives_a_callback_error_and_stops_before_the_context(
        ros_context: Any) -> None:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    node = rclpy.create_node(unique_name('spinner'), context=ros_context)
    executor = SingleThreadedExecutor(context=ros_context)
    executor.add_node(node)
    calls: list[int] = []
    called_again = threading.Event()

    def on_timer() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError('the first call fails')
        if len(calls) == 2:  # what a wait set with a half-built ActionClient raises
            raise AttributeError("'ActionClient' object has no attribute '_lock'")
        if len(calls) == 3:
            raise AttributeError('a real one')
        called_again.set()

    node.create_timer(0.01, on_timer)
    spinning = ExecutorThread(executor, 'spinner')
    try:
        wait_event(called_again, ANSWER_TIMEOUT, 'a timer call after the failing one')
    finally:
        stopped = spinning.stop(ANSWER_TIMEOUT)
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
    assert stopped and ros_context.ok()  # joined while the context was still valid
    assert [str(error) for error in spinning.errors] == ['the first call fails', 'a real one']


@pytest.mark.ros
def test_executor_thread_stop_wakes_an_executor_with_nothing_to_do(ros_context: Any) -> None:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    node = rclpy.create_node(unique_name('idle'), context=ros_context)
    executor = SingleThreadedExecutor(context=ros_context)
    executor.add_node(node)
    fired = threading.Event()

    def once() -> None:
        timer.cancel()
        fired.set()

    timer = node.create_timer(0.01, once)
    try:
        for _ in range(3):
            fired.clear()
            timer.reset()
            spinning = ExecutorThread(executor, 'idle')
            wait_event(fired, ANSWER_TIMEOUT, 'the one timer call')  # spinning: now idle
            # nothing is left to end the executor's wait (no timeout) but stop() itself
            assert spinning.stop(ANSWER_TIMEOUT), 'the idle executor was not woken'
            assert not spinning.errors
    finally:
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()


# --- the spawn fixture itself (no ROS needed) ---------------------------------------------

def test_spawned_process_inherits_ros_isolation(spawn: Callable[..., SpawnedProcess],
                                                tmp_path: pathlib.Path) -> None:
    script = tmp_path / 'show_env.py'
    script.write_text(
        'import json, os\n'
        'print(json.dumps({key: os.environ.get(key) for key in\n'
        "                  ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE')}), flush=True)\n")
    process = spawn(script)
    event = process.wait_for_event(lambda record: True, message='the environment line')
    assert event == {'ROS_DOMAIN_ID': os.environ['ROS_DOMAIN_ID'],
                     'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST'}
    assert 1 <= int(event['ROS_DOMAIN_ID']) <= 232


def test_spawn_stop_escalates_to_sigkill(spawn: Callable[..., SpawnedProcess],
                                         tmp_path: pathlib.Path) -> None:
    script = tmp_path / 'stubborn.py'
    script.write_text(
        'import signal, time\n'
        'signal.signal(signal.SIGINT, signal.SIG_IGN)\n'
        "print('READY', flush=True)\n"
        'while True:\n'
        '    time.sleep(1)\n')
    process = spawn(script, grace=0.5)
    process.wait_for_line('READY')
    started = time.monotonic()
    assert process.stop() == -signal.SIGKILL
    assert time.monotonic() - started < 5.0
    assert (tmp_path / f'{process.name}.stdout').read_text() == 'READY\n'


def test_spawn_reports_early_exit(spawn: Callable[..., SpawnedProcess],
                                  tmp_path: pathlib.Path) -> None:
    script = tmp_path / 'crash.py'
    script.write_text("import sys\nsys.stderr.write('boom\\n')\nsys.exit(3)\n")
    process = spawn(script)
    with pytest.raises(AssertionError, match=r'exited \(status 3\) before line .READY.'):
        process.wait_for_line('READY')
    assert 'boom' in process.stderr_text()


def test_wait_for_times_out_with_message() -> None:
    calls: list[int] = []
    with pytest.raises(AssertionError, match=r'^timed out after 0.1s waiting for nothing$'):
        wait_for(lambda: calls.append(1), 0.1, 'nothing')
    assert len(calls) >= 2
    assert wait_for(lambda: 'value', 1.0, 'a value') == 'value'
    assert sys.executable  # the peers run with the same interpreter
