# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A ROS callback that raises does not stop the executive: it logs the error and keeps going.

The executor hands a callback's exception to the loop that spins it; the executive's main
loop logs it (traceback once per distinct error, repeats counted in ~/status) and spins on.
The real executive process runs a plugin leaf whose subscription callback always raises.

(The exit watchdog, which ends a process whose shutdown blocks, is tested in
test/test_watchdog.py.)
"""

from collections.abc import Callable
import json
import pathlib
import signal
from typing import Any
import uuid

from executive_host import write_tree
from helpers import SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

FAULT_EXECUTIVE = pathlib.Path(__file__).resolve().parent / 'peers' / 'fault_executive.py'
TIMEOUT = 20.0
MESSAGES = 12


def test_a_raising_subscription_callback_is_logged_once_and_the_tree_goes_on(
        spawn: Callable[..., SpawnedProcess], tmp_path, ros_node: Any):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import Int32, String

    namespace = f'/fault_{uuid.uuid4().hex[:8]}'
    tree = write_tree(tmp_path, 't.yaml', f"""
        trees:
          Main:
            Parallel root:
              - RaiseInCallback listener: {namespace}/faulty
              - Running keep going
        """)
    statuses: list[dict[str, Any]] = []
    latched = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    ros_node.create_subscription(String, f'{namespace}/bt_executive/status',
                                 lambda msg: statuses.append(json.loads(msg.data)), latched)
    publisher = ros_node.create_publisher(Int32, f'{namespace}/faulty', 10)
    executive = spawn(FAULT_EXECUTIVE, '--ros-args', '-r', f'__ns:={namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'tick_rate:=50.0',
                      '-p', 'status_period:=0.1')
    wait_for(lambda: statuses and statuses[-1]['tick_count'] >= 10
             and publisher.get_subscription_count() > 0, TIMEOUT,
             'the executive ticking and subscribed to the faulty topic')
    for number in range(MESSAGES):
        publisher.publish(Int32(data=number))
    # rclpy's EventsExecutor logs every exception itself but hands only some of them on
    # (one per spin), so the executive's count is at least one and at most all of them
    wait_for(lambda: statuses[-1]['callback_errors'] >= 1, TIMEOUT,
             'the callback errors counted in ~/status')
    ticks = statuses[-1]['tick_count']
    wait_for(lambda: statuses[-1]['tick_count'] >= ticks + 20, TIMEOUT,
             '20 more ticks after the callback errors')
    assert statuses[-1]['root_status'] == 'RUNNING'
    assert executive.popen.poll() is None, 'the executive exited'

    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 0
    stderr = executive.stderr_text()
    assert 1 <= statuses[-1]['callback_errors'] <= MESSAGES, statuses[-1]
    assert stderr.count('Traceback (most recent call last)') == 1, stderr
    assert stderr.count('a ROS callback raised RuntimeError: callback fault ') == 1, stderr
    assert stderr.count('the executive keeps running (logged once)') == 1, stderr


class Logger:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def error(self, text: str) -> None:
        self.lines.append(text)


def raised(message: str, kind: type = RuntimeError) -> BaseException:
    try:
        raise kind(message)
    except BaseException as error:  # noqa: B902 - any kind, for the test
        return error


def test_each_distinct_error_is_logged_with_its_traceback_once_and_repeats_are_counted():
    from bt_executive.ros.spin import CallbackFaults

    logger = Logger()
    faults = CallbackFaults(logger)
    for number in range(999):
        faults.report(raised(f'fault {number}'))  # one raising line: one distinct error
    faults.report(raised('other', ValueError))
    assert faults.count == 1000
    assert len(logger.lines) == 4, logger.lines
    first, tenth, hundredth, other = logger.lines
    assert first.startswith('a ROS callback raised RuntimeError: fault 0 at ')
    assert 'Traceback (most recent call last)' in first and 'the executive keeps' in first
    assert tenth.endswith(' 10 times') and hundredth.endswith(' 100 times')
    assert 'Traceback' not in tenth + hundredth
    assert other.startswith('a ROS callback raised ValueError: other at ')
