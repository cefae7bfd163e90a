# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive validate`` finds what the executive finds when it loads a file.

With rclpy and the message packages importable, ``validate`` runs the tree host's load
checks (bt_executive/ros/checks.py): the tests compare the two on the same broken files.
The tree host runs in-process on no node at all: every check here happens before the host
touches one. No Context, no DDS.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from typing import Any

from bt_executive.core.errors import TreeError
from cli_process import run_cli
from helpers import skip_if_installed
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

BROKEN = {
    'goal field typo': """
trees:
  Main:
    Action fib: {type: test_msgs/action/Fibonacci, server: fibonacci, goal: {ordr: 5}}
""",
    'bad names and types': """
subscriptions:
  - {topic: odom, type: nav_msgs/msg/Odometry, fields: {x: pose.pose.positon.x}}
  - {topic: battery, type: sensor_msgs/msg/BateryState, key: battery}
trees:
  Main:
    Sequence:
      - Publish: {topic: 'bad topic', type: std_msgs/msg/Bool, fields: {data: 1.5}}
      - Service: {type: std_srvs/srv/Triger, service: s}
      - TopicAction: {goal_topic: g, goal_type: geometry_msgs/msg/PoseStamped,
                      goal: {pose: {position: {z: abc}}}, status_topic: s,
                      status_type: action_msgs/msg/GoalStatus, succeeded: 'true'}
""",
    'found when building': """
main: Main
trees:
  Main:
    Sequence:
      - Subtree: {tree: Go, n: abc}
      - TopicAction: {goal_topic: g, goal_type: std_msgs/msg/Bool, goal: {data: true},
                      status_topic: s, status_type: action_msgs/msg/GoalStatu,
                      succeeded: 'true'}
  Go:
    params: {n: 1}
    root:
      Action: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: $n}}
""",
    'message fields read': """
subscriptions:
  - {topic: odom, type: nav_msgs/msg/Odometry, key: odom}
  - {topic: battery, type: sensor_msgs/msg/BatteryState, fields: {h: header, level: percentage}}
  - {topic: pose, type: geometry_msgs/msg/PoseStamped, key: target}
  - {topic: goal, type: geometry_msgs/msg/PoseStamped, key: given}
  - {topic: flag, type: std_msgs/msg/Bool, key: flag}
  - {topic: ready, type: std_msgs/msg/Bool, key: ready}
blackboard: {given: {x: 1}}
trees:
  Main:
    Sequence:
      - Condition: odom.pose.pose.positon.x > 1 and level > 0.2 and h.frame_id == 'map'
      - SetBlackboard: {key: speed, value: '${odom.twist.twist.liner.x}'}
      - Condition: h.stamp.secs > 0 and len(odom.pose.covariance) > odom.pose.covariance[3]
      - Condition: target.x > 0 and given.x > 0
      - SetBlackboard: {key: target, value: 1}
      - Subtree: {tree: Check, f: $flag}
      - Service: {type: std_srvs/srv/SetBool, service: s, request: {data: $ready.dta}}
  Check:
    params: {f: null}
    root:
      Condition: f.anything
""",
    'result fields read': """
trees:
  Main:
    Sequence:
      - Action fib: {type: test_msgs/action/Fibonacci, server: fib, result_key: answer,
                     feedback_key: progress}
      - Condition: len(answer.sequnce) > 0 and len(progress.sequence) > 0
      - Service s: {type: std_srvs/srv/Trigger, service: s, response_key: said}
      - Log: {message: '${said.mesage}'}
      - WaitForMessage w: {topic: t, type: std_msgs/msg/String, key: heard}
      - Condition: heard.data == 'x'
      - Action again: {type: test_msgs/action/Fibonacci, server: fib, result_key: both}
      - Service s2: {type: std_srvs/srv/Trigger, service: s, response_key: both}
      - Condition: both.anything
      - Service s3: {type: std_srvs/srv/Trigger, service: s, response_key: out.said}
      - Condition: out.anything
      - Subtree: {tree: Fetch, slot: $fetched}
      - Condition: slot.anything and fetched.anything
  Fetch:
    params: {slot: null}
    root:
      Service: {type: std_srvs/srv/Trigger, service: f, response_key: slot}
""",
}


class _Logger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def warning(self, text: str) -> None:
        self.lines.append(('warning', text))

    def info(self, text: str) -> None:
        self.lines.append(('info', text))

    def error(self, text: str) -> None:
        self.lines.append(('error', text))


def _host(logger: Any = None) -> Any:
    from bt_executive.nodes.catalogue import default_registry
    from bt_executive.ros.host import TreeHost
    from bt_executive.ros.leaves import FACTORIES
    return TreeHost(None, default_registry().with_factories(FACTORIES), clock=lambda: 0.0,
                    logger=logger or _Logger(), on_install=lambda tree: None)


def _validate(path: str) -> subprocess.CompletedProcess:
    return run_cli('validate', path, timeout=60,
                   env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})


def _rejected(tmp_path: pathlib.Path, case: str) -> tuple[str, list[Any]]:
    """Write the BROKEN case; return its path and what the executive rejects it with."""
    path = tmp_path / 'tree.yaml'
    path.write_text(BROKEN[case])
    with pytest.raises(TreeError) as rejected:
        _host().load(str(path))
    return str(path), list(rejected.value.diagnostics)


@pytest.mark.ros
@pytest.mark.parametrize('case', sorted(BROKEN))
def test_validate_reports_exactly_what_the_executive_rejects(tmp_path, case):
    path, diagnostics = _rejected(tmp_path, case)
    executive = [str(diagnostic) for diagnostic in diagnostics]
    assert executive
    result = _validate(str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == executive + [
        f'{path}: {len(executive)} error{"s" if len(executive) > 1 else ""}']


@pytest.mark.ros
def test_the_goal_field_typo_is_named_with_its_place(tmp_path):
    path = tmp_path / 'tree.yaml'
    path.write_text(BROKEN['goal field typo'])
    result = _validate(str(path))
    assert f"{path}:4:77: Main/fib: field goal.ordr: unknown field 'ordr' for " \
        "test_msgs/action/Fibonacci_Goal (did you mean 'order'?)" in result.stderr
    assert 'ROS checks skipped' not in result.stderr


#: (line, message) of every read of a message field the executive rejects, per case
READS = {
    # target is written by a node, given has an initial value, flag goes to a subtree:
    # none of them is known to hold the message alone, so their reads are not checked
    'message fields read': [
        (13, 'expr "odom.pose.pose.positon.x > 1 and level > 0.2 and h.frame_id == \'map\'"'
         ": field odom.pose.pose.positon.x: unknown field 'positon' for "
         "geometry_msgs/msg/Pose (did you mean 'position'?); valid fields: position, "
         "orientation ('odom' holds nav_msgs/msg/Odometry from the subscription to 'odom')"),
        (14, "value 'odom.twist.twist.liner.x': field odom.twist.twist.liner.x: unknown "
         "field 'liner' for geometry_msgs/msg/Twist (did you mean 'linear'?); valid "
         "fields: linear, angular ('odom' holds nav_msgs/msg/Odometry from the subscription "
         "to 'odom')"),
        (15, "expr 'h.stamp.secs > 0 and len(odom.pose.covariance) > odom.pose.covariance[3]'"
         ": field h.stamp.secs: unknown field 'secs' for builtin_interfaces/msg/Time (did "
         "you mean 'sec'?); valid fields: sec, nanosec ('h' holds std_msgs/msg/Header from "
         "the subscription to 'battery')"),
        (19, "request 'ready.dta': field ready.dta: unknown field 'dta' for std_msgs/msg/Bool "
         "(did you mean 'data'?); valid fields: data ('ready' holds std_msgs/msg/Bool from "
         "the subscription to 'ready')"),
    ],
    # 'both' holds two types, 'out' a value with a field written, 'fetched' what a subtree
    # writes, and 'slot' is only that subtree's name for it: none is checked
    'result fields read': [
        (7, "expr 'len(answer.sequnce) > 0 and len(progress.sequence) > 0': field "
         "answer.sequnce: unknown field 'sequnce' for test_msgs/action/Fibonacci_Result (did "
         "you mean 'sequence'?); valid fields: sequence ('answer' holds "
         'test_msgs/action/Fibonacci_Result from the result_key of Main/Sequence/fib)'),
        (9, "message 'said.mesage': field said.mesage: unknown field 'mesage' for "
         "std_srvs/srv/Trigger_Response (did you mean 'message'?); valid fields: success, "
         "message ('said' holds std_srvs/srv/Trigger_Response from the response_key of "
         'Main/Sequence/s)'),
    ],
}


@pytest.mark.ros
@pytest.mark.parametrize('case', sorted(READS))
def test_reads_of_a_key_known_to_hold_a_message_are_checked(tmp_path, case):
    found = [(d.location.line, d.message) for d in _rejected(tmp_path, case)[1]]
    assert found == READS[case], found


@pytest.mark.ros
def test_the_executive_names_its_own_way_to_choose_a_tree(tmp_path):
    path = tmp_path / 'tree.yaml'
    path.write_text('trees:\n  A:\n    Success:\n  B:\n    Failure:\n')
    with pytest.raises(TreeError) as rejected:
        _host().load(str(path))
    assert [str(d) for d in rejected.value.diagnostics] == [
        f"{path}: the file defines several trees and no 'main': add 'main: NAME' to the "
        "file or set the executive's 'tree_name' parameter (trees: A, B)"]
    loaded = _host().load(str(path), 'B')
    assert loaded.name == 'B'
    loaded.destroy()


@pytest.mark.ros
def test_the_executive_logs_warnings_and_loads(tmp_path):
    path = tmp_path / 'tree.yaml'
    path.write_text('blackboard: {battery: 1.0}\ntrees:\n  Main:\n'
                    '    Condition: batery > 0.5\n')
    logger = _Logger()
    loaded = _host(logger).load(str(path))
    loaded.destroy()
    assert ('warning', f"{path}:4:16: warning: Main/Condition: blackboard key 'batery' is "
            "read but nothing sets it (not in 'blackboard:', fed by no subscription, written "
            "by no node) (did you mean 'battery'?)") in logger.lines


@pytest.mark.ros
def test_validate_warns_about_packages_it_cannot_check():
    skip_if_installed('nav2_msgs')  # the validator runs with this process's sys.path
    result = _validate(str(ROOT / 'config' / 'patrol_nav2.yaml'))
    assert result.returncode == 0, result.stderr
    assert "warning: Navigate/navigate to pose: package 'nav2_msgs' is not installed here, " \
        'so nav2_msgs/action/NavigateToPose (and 2 more uses) and the fields written for it ' \
        'were not checked; the executive rejects the file on a machine without the package' \
        in result.stderr
    assert "ok (8 trees, 52 nodes, main 'Patrol', 1 warning)" in result.stdout


def test_each_ros_leaf_class_carries_the_declaration_the_offline_catalogue_registers():
    """One node type, one place: the class the catalogue's declaration names is the leaf."""
    from bt_executive.core.registry import NodeType
    from bt_executive.nodes.catalogue import default_registry
    from bt_executive.nodes.ros_leaf_types import ROS_LEAF_TYPES
    from bt_executive.ros import leaves

    offline = default_registry()
    assert [leaf.declaration for leaf in leaves.LEAVES] == list(ROS_LEAF_TYPES)
    for leaf in leaves.LEAVES:
        declared = NodeType.of(leaf)
        assert declared.source == f'{leaf.__module__}.{leaf.__qualname__}'
        assert offline.get(declared.name).source == declared.source
        assert declared.factory == leaf.build
        assert (leaves.FACTORIES[declared.name] == leaf.build) is not leaf.backs_off
        for param in (leaf.interface.type_param, leaf.interface.name_param,
                      leaf.interface.mapping_param, leaf.interface.test_param,
                      *leaf.interface.writes):
            assert param is None or declared.param(param) is not None, (leaf, param)
    assert {name for name, leaf in zip(leaves.FACTORIES, leaves.LEAVES) if leaf.backs_off} \
        == {'Action', 'Service', 'TopicAction'}


# ---- every problem in one run ----------------------------------------------------------

def _validate_lines(tmp_path: pathlib.Path, text: str) -> tuple[str, list[str]]:
    path = tmp_path / 'tree.yaml'
    path.write_text(text)
    result = _validate(str(path))
    assert result.returncode == 1, result.stderr
    return str(path), result.stderr.splitlines()


@pytest.mark.ros
def test_loader_errors_do_not_hide_the_ros_checks(tmp_path):
    path, lines = _validate_lines(tmp_path, """
trees:
  Main:
    Sequence:
      - Subtree: Dokc
      - Action: {type: test_msgs/action/Fibonacci, server: fib, goal: {ordr: 5}}
  Dock:
    Success:
""")
    assert lines == [
        f"{path}:5:18: Main/Sequence/Subtree: unknown tree 'Dokc' (did you mean 'Dock'?) "
        '(trees: Dock, Main)',
        f"{path}:6:71: Main/Sequence/Action: field goal.ordr: unknown field 'ordr' for "
        "test_msgs/action/Fibonacci_Goal (did you mean 'order'?); valid fields: order",
        f'{path}: 2 errors']


@pytest.mark.ros
def test_malformed_types_do_not_hide_other_type_errors_nor_the_package_warning(tmp_path):
    path, lines = _validate_lines(tmp_path, """
trees:
  Main:
    Sequence:
      - Action: {type: test_msgs/Fibonacci, server: fib}
      - Service: {type: 'std_srvs/srv/', service: s}
      - Action: {type: test_msgs/action/Fibonaci, server: fib2}
      - Service: {type: std_srvs/msg/Trigger, service: s2}
      - Action: {type: nowhere_msgs/action/Go, server: go}
""")
    expected = "expected a ROS interface type like 'sensor_msgs/msg/BatteryState', got"
    assert lines == [
        f"{path}:5:24: Main/Sequence/Action: parameter 'type': {expected} "
        "'test_msgs/Fibonacci'",
        f"{path}:6:25: Main/Sequence/Service: parameter 'type': {expected} 'std_srvs/srv/'",
        f"{path}:7:24: Main/Sequence/Action#2: package 'test_msgs' has no action type "
        "'Fibonaci' (did you mean 'Fibonacci'?)",
        f'{path}:8:25: Main/Sequence/Service#2: expected a srv type, got a msg type: '
        "'std_srvs/msg/Trigger'",
        f"{path}:9:24: warning: Main/Sequence/Action#3: package 'nowhere_msgs' is not "
        'installed here, so nowhere_msgs/action/Go and the fields written for it were not '
        'checked; the executive rejects the file on a machine without the package',
        f'{path}: 4 errors, 1 warning']


@pytest.mark.ros
def test_every_problem_of_a_topic_action_is_reported_at_its_parameter(tmp_path):
    path, lines = _validate_lines(tmp_path, """
trees:
  Main:
    TopicAction:
      goal_topic: dock_goal
      goal_type: geometry_msgs/msg/PoseStamped
      stamp_field: header.stmp
      status_topic: dock_status
      status_type: std_msgs/msg/String
      match: msg.dat == 'x'
""")
    assert lines == [
        f"{path}:4:5: Main/TopicAction: TopicAction needs parameter 'succeeded' (expression: "
        'success test over `msg`)',
        f"{path}:7:20: Main/TopicAction: stamp_field 'header.stmp': no field 'stmp'",
        f"{path}:10:14: Main/TopicAction: match \"msg.dat == 'x'\": field msg.dat: unknown "
        "field 'dat' for std_msgs/msg/String (did you mean 'data'?); valid fields: data",
        f'{path}: 3 errors']


@pytest.mark.ros
def test_a_problem_found_when_building_is_located_at_the_parameter(tmp_path):
    path = tmp_path / 'tree.yaml'
    path.write_text("""
main: Main
trees:
  Main:
    Subtree: {tree: Check, field: header.stmp}
  Check:
    params: {field: null}
    root:
      TopicAction: {goal_topic: g, goal_type: geometry_msgs/msg/PoseStamped,
                    stamp_field: $field, status_topic: s, status_type: std_msgs/msg/String,
                    succeeded: 'true'}
""")
    with pytest.raises(TreeError) as rejected:
        _host().load(str(path))
    assert [str(d) for d in rejected.value.diagnostics] == [
        f'{path}:10:34: Main/Subtree/Check/TopicAction: cannot build TopicAction: '
        "stamp_field 'header.stmp': no field 'stmp'"]


@pytest.mark.ros
def test_a_ros_error_leaves_the_tree_whole_so_its_build_problems_show_too(tmp_path):
    path, lines = _validate_lines(tmp_path, """
trees:
  Main:
    Sequence:
      - Action: {type: test_msgs/action/Fibonacci, server: fib, goal: {ordr: 5}}
      - Log: '${1 / 0}'
      - Wiat: 1
  Other:
    Log: '${2 / 0}'
""")
    assert lines == [
        f"{path}:5:71: Main/Sequence/Action: field goal.ordr: unknown field 'ordr' for "
        "test_msgs/action/Fibonacci_Goal (did you mean 'order'?); valid fields: order",
        f"{path}:7:9: Main/Sequence/Wiat: unknown node type 'Wiat' (did you mean 'Wait'?) "
        "(run 'bt-executive nodes' for the catalogue)",
        f"{path}:9:10: Other/Log: bad expression '2 / 0': division by zero in '/' (it reads "
        'no blackboard key, so it is evaluated when the tree is built)',
        f'{path}: 3 errors']
    path, lines = _validate_lines(tmp_path, """
trees:
  Main:
    Sequence:
      - Action: {type: test_msgs/action/Fibonacci, server: fib, goal: {ordr: 5}}
      - Log: '${1 / 0}'
""")
    assert lines[1] == (f"{path}:6:14: Main/Sequence/Log: bad expression '1 / 0': division "
                        "by zero in '/' (it reads no blackboard key, so it is evaluated when "
                        'the tree is built)')


@pytest.mark.ros
def test_the_executive_s_load_with_every_check_reports_loader_and_ros_problems(tmp_path):
    # bt_executive.ros.checks.load: the loader with the ROS checks as its document checks
    from bt_executive.nodes.catalogue import default_registry
    from bt_executive.ros import checks
    path = tmp_path / 'tree.yaml'
    path.write_text('subscriptions:\n  - {topic: odom, type: nav_msgs/msg/Odometry, key: odom}\n'
                    'trees:\n  Main:\n    Sequence:\n      - Subtree: Dokc\n'
                    "      - Service: {type: std_srvs/srv/Trigger, service: 'dock//now'}\n"
                    '      - Condition: odom.pose.pose.positon.x > 1\n')
    with pytest.raises(TreeError) as rejected:
        checks.load(str(path), default_registry())
    assert [(d.location.line, d.message.split(':')[0]) for d in rejected.value.diagnostics] \
        == [(6, "unknown tree 'Dokc' (trees"), (7, "service 'dock//now'"),
            (8, "expr 'odom.pose.pose.positon.x > 1'")]
    assert rejected.value.warnings == []
    text = path.read_text().replace('Subtree: Dokc', 'Wiat: 1')
    path.write_text(text)  # a node lost: what each key holds is not known, that check waits
    with pytest.raises(TreeError) as rejected:
        checks.load(str(path), default_registry())
    assert [(d.location.line, d.message.split(':')[0]) for d in rejected.value.diagnostics] \
        == [(6, "unknown node type 'Wiat' (did you mean 'Wait'?) (run 'bt-executive nodes' "
                'for the catalogue)'), (7, "service 'dock//now'")]
    assert [d.message for d in rejected.value.warnings] == [
        'the fields expressions read of keys that hold a message were not checked: that '
        'check waits until the errors here are fixed']
    path.write_text('subscriptions:\n  - {topic: odom, type: nav_msgs/msg/Odometry, key: odom}\n'
                    'trees:\n  Main:\n    Condition: odom.pose.pose.position.x > 1\n')
    document, specs = checks.load(str(path), default_registry())
    assert [spec.topic for spec in specs] == ['odom'] and document.warnings == []
