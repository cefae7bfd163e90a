# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Swap storms and bad trees: nothing may leak, nothing may keep running, errors say where.

A storm is 100 tree swaps in a row on an in-process executive, alternating between two
valid trees that run action goals, service calls, topic leaves and subscriptions, and
invalid ones (rejected while loading, or after their leaves were set up). Leaks are
counted three ways: the executive's own entities (subscriptions, publishers, clients,
services, timers, guard conditions, waitables), what another node sees of it in the ROS
graph, and the goals still active on the action server (its peer events).
"""

from collections.abc import Callable
import pathlib
from typing import Any
import uuid

from bt_executive.core.errors import TreeError
from conftest import PEERS
from executive_host import Host, write_tree
from fault_nodes import fault_registry
from helpers import PeerEvents, SpawnedProcess, wait_for
import py_trees
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 30.0
SWAPS = 100


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def tree_text(name: str, server: str, service: str, prefix: str, order: int) -> str:
    return f"""
        subscriptions:
          - {{topic: {prefix}/battery, type: sensor_msgs/msg/BatteryState, key: battery,
             max_age: 5.0}}
        trees:
          {name}:
            Parallel:
              success: all
              children:
                - Sequence work:
                    - Publish hello: {{topic: {prefix}/out, type: std_msgs/msg/String,
                                      fields: {{data: {name}}}}}
                    - Service call: {{type: std_srvs/srv/Trigger, service: {service},
                                     server_timeout: 10.0}}
                    - Action move: {{type: test_msgs/action/Fibonacci, server: {server},
                                    goal: {{order: {order}}}, server_timeout: 10.0}}
                - Selector watch:
                    - TopicCondition flag: {{topic: {prefix}/flag, type: std_msgs/msg/Bool,
                                            expr: msg.data}}
                    - WaitForMessage never: {{topic: {prefix}/never, type: std_msgs/msg/Bool}}
        """


def entity_counts(node: Any) -> dict[str, int]:
    """Count what the executive node owns, and the py_trees blackboard clients."""
    counts = {kind: len(list(getattr(node, kind))) for kind in (
        'subscriptions', 'publishers', 'clients', 'services', 'timers', 'guards',
        'waitables')}
    counts['blackboard clients'] = len(py_trees.blackboard.Blackboard.clients)
    return counts


def graph_counts(observer: Any, name: str, namespace: str) -> dict[str, int]:
    """Count the executive's endpoints as another node sees them in the ROS graph."""
    from rclpy._rclpy_pybind11 import NodeNameNonExistentError
    try:
        return {kind: len(getattr(observer, f'get_{kind}_names_and_types_by_node')(
            name, namespace)) for kind in ('publisher', 'subscriber', 'service', 'client')}
    except NodeNameNonExistentError:  # not discovered yet
        return {}


def active_goals(events: PeerEvents) -> int:
    return len(events.all('goal_accepted')) - len(events.all('finished'))


@pytest.mark.slow
def test_a_swap_storm_leaks_nothing_and_leaves_one_goal(spawn: Callable[..., SpawnedProcess],
                                                        tmp_path: pathlib.Path,
                                                        ros_node: Any) -> None:
    fib, trigger = unique('fib'), unique('trigger')
    spawn(PEERS / 'fibonacci_server.py', fib, 'slow', '--period', '0.2').wait_for_line(
        'READY', timeout=TIMEOUT)
    spawn(PEERS / 'trigger_server.py', trigger, 'ok').wait_for_line('READY', timeout=TIMEOUT)
    goals = PeerEvents(ros_node, f'/{fib}/events')
    prefix = '/' + unique('storm')
    valid = [write_tree(tmp_path, 'a.yaml', tree_text('A', '/' + fib, '/' + trigger,
                                                      prefix + '/a', 30)),
             write_tree(tmp_path, 'b.yaml', tree_text('B', '/' + fib, '/' + trigger,
                                                      prefix + '/b', 40))]
    invalid = [
        # rejected while loading: a message field that does not exist
        write_tree(tmp_path, 'bad_field.yaml', tree_text('C', '/' + fib, '/' + trigger,
                                                         prefix + '/c', 30)
                   .replace('{order: 30}', '{ordr: 30}')),
        # rejected after every leaf was set up: setup took longer than setup_timeout
        write_tree(tmp_path, 'slow_setup.yaml', tree_text('D', '/' + fib, '/' + trigger,
                                                          prefix + '/d', 30)
                   .replace('- Selector watch:', '- SlowSetup: 0.6\n'
                            '                - Selector watch:')),
    ]
    ex = Host(valid[0], tick_rate=50.0, setup_timeout=0.5, registry=fault_registry())
    try:
        node = ex.executive

        def settle(order: int) -> None:
            """Wait for the swap to finish: old tree released, only the new goal active."""
            ex.spin_until(lambda: not node.retiring, 'the old tree to be released')
            ex.spin_until(lambda: active_goals(goals) == 1 and goals.all(
                'goal_accepted', order=order), f'one active goal of order {order}')

        settle(30)
        assert ex.set_tree(tree_file=valid[1]).successful
        settle(40)
        assert ex.set_tree(tree_file=valid[0]).successful
        settle(30)
        before_entities = entity_counts(node)
        name, namespace = node.get_name(), node.get_namespace()
        wait_for(lambda: graph_counts(ros_node, name, namespace).get('client'), TIMEOUT,
                 'the executive in the graph')
        before_graph = graph_counts(ros_node, name, namespace)
        accepted_before = len(goals.all('goal_accepted'))
        received_before = len(goals.all('goal_received'))

        rejected = 0
        for swap in range(SWAPS):
            if swap % 2:
                result = ex.set_tree(tree_file=invalid[(swap // 2) % 2])
                assert not result.successful
                rejected += 1
            else:
                target = valid[(swap // 2 + 1) % 2]
                assert ex.set_tree(tree_file=target).successful, swap
                if swap % 4 == 0:  # let this one's goal get accepted
                    accepted = len(goals.all('goal_accepted'))
                    ex.spin_until(lambda: len(goals.all('goal_accepted')) > accepted,
                                  f'the goal of swap {swap}')
                else:  # swap again as soon as the goal reaches the server: it is in flight
                    received = len(goals.all('goal_received'))
                    ex.spin_until(lambda: len(goals.all('goal_received')) > received,
                                  f'the goal of swap {swap} to reach the server')
        assert node.tree.name == 'A'
        assert rejected == SWAPS // 2
        settle(30)
        assert len(goals.all('goal_received')) >= received_before + SWAPS // 2
        assert len(goals.all('goal_accepted')) >= accepted_before + SWAPS // 4
        assert entity_counts(node) == before_entities
        wait_for(lambda: graph_counts(ros_node, name, namespace) == before_graph, TIMEOUT,
                 f'the graph to show what it showed before the storm: {before_graph}')
    finally:
        ex.close()
    wait_for(lambda: active_goals(goals) == 0, TIMEOUT, 'every goal to end after the stop')


def test_an_invalid_swap_after_setup_releases_what_it_set_up(tmp_path: pathlib.Path) -> None:
    first = write_tree(tmp_path, 'ok.yaml', 'trees:\n  Main:\n    Running:\n')
    slow = write_tree(tmp_path, 'slow.yaml', """
        trees:
          Main:
            Sequence:
              - TopicCondition flag: {topic: /leak_check/flag, type: std_msgs/msg/Bool}
              - Publish out: {topic: /leak_check/out, type: std_msgs/msg/Bool}
              - SlowSetup: 0.3
        """)
    ex = Host(first, setup_timeout=0.1, registry=fault_registry())
    try:
        before = entity_counts(ex.executive)
        result = ex.set_tree(tree_file=slow)
        assert not result.successful
        assert 'setting up the leaves took longer than setup_timeout 0.1 s' in result.reason
        assert entity_counts(ex.executive) == before
    finally:
        ex.close()


@pytest.mark.parametrize('text, expected', [
    ("""
     trees:
       Main:
         Action a: {type: test_msgs/action/Fibonacci, server: fib, goal: {ordr: 3}}
     """, ["t.yaml:4:69: Main/a: field goal.ordr: unknown field 'ordr' for "
           "test_msgs/action/Fibonacci_Goal (did you mean 'order'?); valid fields: order"]),
    ("""
     trees:
       Main:
         Service s: {type: std_srvs/srv/SetBool, service: sb, request: {data: 3}}
     """, ['t.yaml:4:67: Main/s: field request.data: expected a bool, got int']),
    ("""
     trees:
       Main:
         Publish p: {type: geometry_msgs/msg/Twist, topic: cmd_vel,
                     fields: {linear: {x: fast}}}
     """, ['t.yaml:5:25: Main/p: field fields.linear.x: expected a float, got str']),
    ("""
     trees:
       Main:
         TopicAction t:
           goal_topic: g
           goal_type: geometry_msgs/msg/PoseStamped
           goal: {header: {frame_id: 7}}
           status_topic: s
           status_type: action_msgs/msg/GoalStatus
           succeeded: msg.status == 4
           cancel_topic: c
           cancel_type: action_msgs/msg/GoalInfo
           cancel: {stampp: '${goal.header.stamp}'}
           stamp_field: header.stam
     """, ['t.yaml:7:13: Main/t: field goal.header.frame_id: expected a string, got int',
           "t.yaml:13:15: Main/t: field cancel.stampp: unknown field 'stampp' for "
           "action_msgs/msg/GoalInfo (did you mean 'stamp'?); valid fields: goal_id, stamp",
           "t.yaml:14:20: Main/t: stamp_field 'header.stam': no field 'stam'"]),
    ("""
     subscriptions:
       - {topic: odom, type: nav_msgs/msg/Odometry, fields: {x: pose.pose.positon.x}}
     trees:
       Main: {Success: }
     """, ['positon']),
], ids=['goal', 'request', 'publish', 'topic action', 'subscription'])
def test_bad_message_fields_are_load_errors_with_their_location(
        text, expected, tmp_path, host) -> None:
    good = write_tree(tmp_path, 'good.yaml', 'trees:\n  Main:\n    Running:\n')
    bad = write_tree(tmp_path, 't.yaml', text)
    ex = host(good)
    result = ex.set_tree(tree_file=bad)
    assert not result.successful
    for line in expected:
        assert line in result.reason, result.reason
    assert ex.executive.tree.file == good
    with pytest.raises(TreeError) as raised:
        ex.executive.load(bad)
    for diagnostic in raised.value.diagnostics:
        assert str(diagnostic).startswith(f'{bad}:'), str(diagnostic)
