# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Servers and publishers that die, hang or go silent while the executive runs.

Real peers in subprocesses (killed with SIGKILL, restarted), the executive in-process
(``executive_host``) with its tree restarting from the root after every cycle, observed
through its ``~/events`` topic (every status transition with its reason) and the
blackboard.
"""

from collections.abc import Callable
import json
import re
import signal
import time
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import PeerEvents, SpawnedProcess
import py_trees
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

TIMEOUT = 30.0


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def board(key: str, default: Any = None) -> Any:
    return py_trees.blackboard.Blackboard.storage.get('/' + key, default)


class Transitions:
    """Every status transition the executive publishes on ~/events, by node id."""

    def __init__(self, node: Any, namespace: str) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.items: list[dict[str, Any]] = []
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{namespace}/bt_executive/events',
                                 lambda msg: self.items.extend(json.loads(msg.data)['events']),
                                 qos)

    def failures(self, ident: str) -> list[str]:
        """Return the reasons of every transition of ``ident`` to FAILURE, in order."""
        return [item['reason'] for item in self.items
                if item['id'] == ident and item['to'] == 'FAILURE']


def start_fibonacci(spawn: Callable[..., SpawnedProcess], name: str,
                    *options: str) -> SpawnedProcess:
    process = spawn(PEERS / 'fibonacci_server.py', name, *options)
    process.wait_for_line('READY', timeout=TIMEOUT)
    return process


def active_goals(events: PeerEvents) -> int:
    """Return how many goals the server accepted and has not finished."""
    return len(events.all('goal_accepted')) - len(events.all('finished'))


def test_action_server_killed_mid_goal_fails_the_leaf_and_a_restarted_server_serves_again(
        spawn, host, tmp_path, ros_node):
    name = unique('fib')
    server = start_fibonacci(spawn, name, 'succeed', '--period', '0.2')
    tree = write_tree(tmp_path, 'fib.yaml', f"""
        blackboard: {{succeeded: 0, failed: 0}}
        trees:
          Main:
            Selector cycle:
              - Sequence goal:
                  - Action fib: {{type: test_msgs/action/Fibonacci, server: /{name},
                                 goal: {{order: 8}}, server_timeout: 1.0, timeout: 3.0}}
                  - SetBlackboard ok: {{key: succeeded, value: '${{succeeded + 1}}'}}
              - SetBlackboard ko: {{key: failed, value: '${{failed + 1}}'}}
        """)
    ex = host(tree, tick_rate=20.0, shutdown_timeout=1.0)
    transitions = Transitions(ros_node, ex.namespace)
    first = PeerEvents(ros_node, f'/{name}/events')
    ex.spin_until(lambda: board('succeeded', 0) >= 1, 'a first goal to succeed')
    # a goal accepted within the last half second: more than 1 s of its 1.6 s left. (Just
    # "one in progress" was stale beside a busy neighbour: the events arrived late, the
    # kill fell between two goals, and the next goal found no server.)
    ex.spin_until(lambda: active_goals(first) == 1 and
                  time.time() - first.all('goal_accepted')[-1]['time'] < 0.5,
                  'a goal accepted just now')
    server.popen.send_signal(signal.SIGKILL)
    server.popen.wait(TIMEOUT)
    succeeded, ticks = board('succeeded'), ex.executive.tick_count

    ex.spin_until(lambda: transitions.failures('Main/cycle/goal/fib'), 'the leaf to fail',
                  timeout=TIMEOUT)
    assert transitions.failures('Main/cycle/goal/fib') == ['no result after 3.0 s']
    assert board('succeeded') == succeeded
    assert ex.executive.tick_count > ticks, 'the executive keeps ticking'
    ex.spin_until(lambda: board('failed', 0) >= 2, 'the next run to fail too')

    second = start_fibonacci(spawn, name, 'succeed', '--period', '0.05')
    events = PeerEvents(ros_node, f'/{name}/events')
    ex.spin_until(lambda: board('succeeded') >= succeeded + 2, 'goals to succeed again',
                  timeout=TIMEOUT)
    reasons = transitions.failures('Main/cycle/goal/fib')
    # (a goal sent to the dead server just before DDS dropped it fails as lost)
    lost = re.compile(rf"action server '/{name}' went away while goal [0-9a-f]{{8}} was "
                      r'running \(it left the ROS graph\)')
    assert {reason for reason in reasons if not lost.fullmatch(reason)} <= {
        'no result after 3.0 s', f"action server '/{name}' not available after 1.0 s"}, reasons
    # the server saw them too (its event history reaches this late subscriber in time)
    succeeded_on_server = []

    def second_success(event: dict) -> bool:
        if event.get('event') == 'finished' and event.get('status') == 'succeeded':
            succeeded_on_server.append(event)
        return len(succeeded_on_server) >= 2

    events.wait_for(second_success, timeout=TIMEOUT,
                    message="the server's second succeeded goal")

    # the goals lost with the dead server never block a swap for longer than
    # shutdown_timeout; the goal running on the new server is cancelled
    idle = write_tree(tmp_path, 'idle.yaml', 'trees:\n  Idle:\n    Running:\n')
    assert ex.set_tree(tree_file=idle).successful
    ex.spin_until(lambda: not ex.executive.retiring, 'the old tree to be released',
                  timeout=10.0)
    ex.spin_until(lambda: active_goals(events) == 0, 'no goal left on the new server')
    assert second.returncode is None


def test_a_slow_service_fails_at_its_timeout_without_a_pile_up_of_requests(
        spawn, host, tmp_path, ros_node):
    service = unique('trigger')
    spawn(PEERS / 'trigger_server.py', service, 'slow', '--delay', '0.5').wait_for_line(
        'READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{service}/events')
    tree = write_tree(tmp_path, 'svc.yaml', f"""
        blackboard: {{runs: 0}}
        trees:
          Main:
            Selector cycle:
              - Sequence call:
                  - SetBlackboard count: {{key: runs, value: '${{runs + 1}}'}}
                  - Service slow: {{type: std_srvs/srv/Trigger, service: /{service},
                                   server_timeout: 10.0, timeout: 0.2}}
              - Success next
        """)
    # back-off off: every run calls at once, the worst case for a pile-up
    ex = host(tree, tick_rate=50.0, backoff=0.0)
    transitions = Transitions(ros_node, ex.namespace)
    leaf = ex.executive.tree.root.children[0].children[1]
    assert leaf.name == 'slow'
    pending: list[int] = []

    def sample() -> bool:
        pending.append(len(leaf.client._pending_requests))
        return board('runs', 0) >= 12

    ex.spin_until(sample, '12 runs of the call', timeout=TIMEOUT)
    ex.executive.pause()  # halted: the request in flight is dropped too
    assert len(leaf.client._pending_requests) == 0
    assert max(pending) <= 1, f'requests piled up in the client: {max(pending)}'
    ex.spin_until(lambda: transitions.failures('Main/cycle/call/slow'), 'the failures')
    assert set(transitions.failures('Main/cycle/call/slow')) == \
        {f"no response from '/{service}' after 0.2 s"}
    # one request per run; the server answers each late, and the answers are dropped
    runs = board('runs')
    ex.spin_until(lambda: len(events.all('responded')) >= runs - 1,
                  'the server to answer every request', timeout=TIMEOUT)
    assert len(events.all('request')) <= runs
    assert len(leaf.client._pending_requests) == 0


def test_a_publisher_that_dies_leaves_stale_data_then_fresh_data_again(
        spawn, host, tmp_path, ros_node):
    topic = '/' + unique('battery')
    tree = write_tree(tmp_path, 'stale.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: sensor_msgs/msg/BatteryState, key: battery,
             qos: sensor_data, max_age: 1.0}}
        trees:
          Main:
            Parallel checks:
              success: all
              synchronise: false
              children:
                - Condition fed: battery.percentage > 0.5
                - TopicCondition direct: {{topic: {topic}, type: sensor_msgs/msg/BatteryState,
                                          qos: sensor_data, max_age: 1.0,
                                          expr: msg.percentage > 0.5}}
        """)
    publisher = spawn(PEERS / 'publisher.py', topic, 'battery', '--rate', '20')
    ex = host(tree, tick_mode='event', max_tick_rate=50.0)
    transitions = Transitions(ros_node, ex.namespace)
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'fresh data to pass',
                  timeout=TIMEOUT)
    fed, direct = (len(transitions.failures(f'Main/checks/{name}')) for name in ('fed', 'direct'))
    publisher.popen.send_signal(signal.SIGKILL)
    publisher.popen.wait(TIMEOUT)
    ex.spin_until(lambda: transitions.failures('Main/checks/fed')[fed:]
                  and transitions.failures('Main/checks/direct')[direct:],
                  'both conditions to see stale data', timeout=TIMEOUT)
    assert transitions.failures('Main/checks/fed')[fed].startswith(
        "battery.percentage > 0.5: blackboard key 'battery' is stale: last update ")
    assert transitions.failures('Main/checks/direct')[direct].startswith(
        f'stale: last message on {topic} ')
    assert transitions.failures('Main/checks/direct')[direct].endswith('(max_age 1.0 s)')
    spawn(PEERS / 'publisher.py', topic, 'battery', '--rate', '20')
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'fresh data again',
                  timeout=TIMEOUT)
