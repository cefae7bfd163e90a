# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Servers killed with SIGKILL while their goal or request is in flight, with no timeout.

Real peers in subprocesses, the executive in-process (``executive_host``), observed
through ``~/events``. A killed process stays in the ROS graph until DDS drops it: after
its participant lease, 20 s with Fast DDS defaults (the first test), or 3 s for peers
started with :data:`SHORT_LEASE` (the others, to keep them short). The leaf must fail
``server_lost_timeout`` after that, with a reason, and the next runs must behave as for
an absent server: no goal is sent until one is back.
"""

import re
import signal

from conftest import PEERS
from executive_host import write_tree
from helpers import PeerEvents, short_lease
import pytest
from test_fault_servers import board, start_fibonacci, Transitions, unique

pytestmark = [pytest.mark.ros, pytest.mark.slow]

#: Seconds to wait for a killed server to be noticed: bounds a failing test only (DDS
#: needs the lease, 20 s by default, then server_lost_timeout and a graph poll).
NOTICE_TIMEOUT = 90.0
TIMEOUT = 30.0


def kill(process):
    process.popen.send_signal(signal.SIGKILL)
    process.popen.wait(TIMEOUT)


def action_tree(tmp_path, name):
    return write_tree(tmp_path, 'fib.yaml', f"""
        blackboard: {{failed: 0}}
        trees:
          Main:
            Selector cycle:
              - Action fib: {{type: test_msgs/action/Fibonacci, server: /{name},
                             goal: {{order: 5}}, server_timeout: 1.0}}
              - SetBlackboard ko: {{key: failed, value: '${{failed + 1}}'}}
        """)


def test_an_action_server_killed_mid_goal_fails_the_leaf_after_the_dds_lease(
        spawn, host, tmp_path, ros_node):
    name = unique('fib')
    server = start_fibonacci(spawn, name, 'slow', '--period', '0.2')
    events = PeerEvents(ros_node, f'/{name}/events')
    # event-driven ticking with no heartbeat: only the leaf's own wake-ups notice it
    ex = host(action_tree(tmp_path, name), tick_mode='event', heartbeat_period=3600.0,
              shutdown_timeout=1.0)
    transitions = Transitions(ros_node, ex.namespace)
    goal = ex.spin_until(lambda: events.find('goal_accepted'), 'the goal', TIMEOUT)['goal_id']
    ex.spin_until(lambda: ex.executive.last_status.name == 'RUNNING', 'the goal to run')
    # on a loaded machine discovery may take longer than server_timeout: a first run may
    # have failed before the goal went out; what counts is what follows the kill
    before = len(transitions.failures('Main/cycle/fib'))
    kill(server)

    ex.spin_until(lambda: transitions.failures('Main/cycle/fib')[before:], 'the leaf to fail',
                  timeout=NOTICE_TIMEOUT)
    assert transitions.failures('Main/cycle/fib')[before] == (
        f"action server '/{name}' went away while goal {goal[:8]} was running (it left "
        'the ROS graph)')
    # the next runs wait for a server as usual: nothing is sent to the dead one
    failed = board('failed')
    ex.spin_until(lambda: board('failed') >= failed + 2, 'two more runs to fail')
    assert set(transitions.failures('Main/cycle/fib')[before + 1:]) == {
        f"action server '/{name}' not available after 1.0 s"}


def test_a_server_restarted_under_the_same_name_does_not_hide_the_lost_goal(
        spawn, host, tmp_path, ros_node):
    name = unique('fib')
    server = spawn(PEERS / 'fibonacci_server.py', name, 'slow', '--period', '0.2',
                   env=short_lease(tmp_path))
    server.wait_for_line('READY', timeout=TIMEOUT)
    first = PeerEvents(ros_node, f'/{name}/events')
    ex = host(action_tree(tmp_path, name), tick_rate=20.0, shutdown_timeout=1.0)
    transitions = Transitions(ros_node, ex.namespace)
    goal = ex.spin_until(lambda: first.find('goal_accepted'), 'the goal', TIMEOUT)['goal_id']
    ex.spin_until(lambda: ex.executive.last_status.name == 'RUNNING', 'the goal to run')
    # on a loaded machine discovery may take longer than server_timeout: a first run may
    # have failed before the goal went out (seen once); what counts is what follows the kill
    before = len(transitions.failures('Main/cycle/fib'))
    kill(server)
    first.close()
    start_fibonacci(spawn, name, 'slow', '--period', '0.2')  # at once, same name
    second = PeerEvents(ros_node, f'/{name}/events')

    ex.spin_until(lambda: transitions.failures('Main/cycle/fib')[before:], 'the leaf to fail',
                  timeout=NOTICE_TIMEOUT)
    # Which notices first depends on timing: the DDS lease of the dead server, or the
    # new server answering the result request for a goal it never had. Both say so.
    assert transitions.failures('Main/cycle/fib')[before:] in (
        [f"action server '/{name}' went away while goal {goal[:8]} was running (it left "
         'the ROS graph)'],
        [f"action server '/{name}' does not know goal {goal[:8]} any more (the server that "
         'accepted it was restarted or dropped it)'])
    # the next run sends one goal to the new server, which keeps it running
    ex.spin_until(lambda: second.find('goal_accepted'), 'a goal on the new server', TIMEOUT)
    ticks = ex.executive.tick_count
    ex.spin_until(lambda: ex.executive.tick_count >= ticks + 20, '20 more ticks')
    assert len(second.all('goal_accepted')) == 1, second.events()
    assert board('failed') == before + 1 and ex.executive.last_status.name == 'RUNNING'


def test_a_service_killed_with_a_request_in_flight_fails_the_leaf(
        spawn, host, tmp_path, ros_node):
    service = unique('trigger')
    server = spawn(PEERS / 'trigger_server.py', service, 'slow', '--delay', '600',
                   env=short_lease(tmp_path))
    server.wait_for_line('READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{service}/events')
    tree = write_tree(tmp_path, 'svc.yaml', f"""
        blackboard: {{failed: 0}}
        trees:
          Main:
            Selector cycle:
              - Service call: {{type: std_srvs/srv/Trigger, service: /{service},
                               server_timeout: 1.0, timeout: 0}}
              - SetBlackboard ko: {{key: failed, value: '${{failed + 1}}'}}
        """)
    ex = host(tree, tick_rate=20.0)
    transitions = Transitions(ros_node, ex.namespace)
    leaf = ex.executive.tree.root.children[0]
    ex.spin_until(lambda: events.find('request'), 'the request', TIMEOUT)
    kill(server)

    ex.spin_until(lambda: transitions.failures('Main/cycle/call'), 'the leaf to fail',
                  timeout=NOTICE_TIMEOUT)
    assert transitions.failures('Main/cycle/call')[0] == (
        f"service '/{service}' went away while a request was in flight (it left the ROS "
        'graph)')
    ex.spin_until(lambda: board('failed') >= 3, 'two more runs to fail')
    assert set(transitions.failures('Main/cycle/call')[1:]) == {
        f"service '/{service}' not available after 1.0 s"}
    assert len(leaf.client._pending_requests) == 0, 'the lost request was dropped'
    assert len(events.all('request')) == 1


def test_a_topic_goal_server_killed_mid_goal_fails_the_leaf(spawn, host, tmp_path, ros_node):
    name = unique('goals')
    server = spawn(PEERS / 'topic_goal_server.py', name, env=short_lease(tmp_path))
    server.wait_for_line('READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{name}/events')
    tree = write_tree(tmp_path, 'topic.yaml', f"""
        blackboard: {{failed: 0}}
        trees:
          Main:
            Selector cycle:
              - TopicAction go:
                  goal_topic: /{name}/goal
                  goal_type: std_msgs/msg/String
                  goal: {{data: g1}}
                  status_topic: /{name}/status
                  status_type: std_msgs/msg/String
                  status_key: status
                  succeeded: msg.data == 'done'
                  server_timeout: 1.0
              - SetBlackboard ko: {{key: failed, value: '${{failed + 1}}'}}
        """)
    ex = host(tree, tick_mode='event', heartbeat_period=3600.0)
    transitions = Transitions(ros_node, ex.namespace)
    ex.spin_until(lambda: events.find('goal'), 'the goal', TIMEOUT)
    ex.spin_until(lambda: board('status') is not None, 'a status of the goal')
    kill(server)

    ex.spin_until(lambda: transitions.failures('Main/cycle/go'), 'the leaf to fail',
                  timeout=NOTICE_TIMEOUT)
    reason = transitions.failures('Main/cycle/go')[0]
    assert re.fullmatch(
        rf"the server went away while the goal was running \((no subscriber on '/{name}/goal'"
        rf"|nobody publishes '/{name}/status'): it left the ROS graph\)", reason), reason
    ex.spin_until(lambda: board('failed') >= 3, 'two more runs to fail')
    assert set(transitions.failures('Main/cycle/go')[1:]) == {
        f"nobody subscribes to '/{name}/goal' after 1.0 s"}
    assert len(events.all('goal')) == 1
