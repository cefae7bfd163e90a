# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``validate`` accepts exactly the files the executive accepts: a differential corpus.

Each file of the corpus goes through ``bt-executive validate``'s checks (in-process,
:func:`bt_executive.app.validation.validate_file` with the ROS checks) and through the
real executive's load: the tree host on a real rclpy node, which builds the tree and sets
every leaf up (its clients, subscriptions and publishers are created, so rclpy's own name
checks run). Both must accept, or both reject; a file validate rejects gets one-line
messages located at a line and column.
"""

from __future__ import annotations

import pathlib
from typing import Any

from bt_executive.app.validation import validate_file
from bt_executive.core.errors import TreeError
from bt_executive.nodes.catalogue import default_registry
import pytest

pytestmark = pytest.mark.ros

FIB = 'type: test_msgs/action/Fibonacci'
TRIGGER = 'type: std_srvs/srv/Trigger'
BOOL = 'type: std_msgs/msg/Bool'


def _leaf(line: str) -> str:
    return f'trees:\n  Main:\n    {line}\n'


def _subscription(topic: str) -> str:
    return (f"subscriptions:\n  - {{topic: '{topic}', {BOOL}, key: flag}}\n"
            'trees:\n  Main:\n    Condition: flag.data\n')


def _topic_action(**names: str) -> str:
    topics = {'goal_topic': 'dock/goal', 'status_topic': 'dock/status', **names}
    written = ', '.join(f"{key}: '{value}'" for key, value in topics.items())
    return _leaf(f'TopicAction: {{{written}, goal_type: std_msgs/msg/String, '
                 "status_type: std_msgs/msg/String, succeeded: msg.data == 'done'}")


#: name -> (file text, whether the executive accepts it)
CORPUS: dict[str, tuple[str, bool]] = {
    # names: services, actions, topics, subscriptions, every name a TopicAction has
    'service ok': (_leaf(f"Service: {{{TRIGGER}, service: 'dock/now'}}"), True),
    'service private': (_leaf(f"Service: {{{TRIGGER}, service: '~/dock'}}"), True),
    'service absolute': (_leaf(f"Service: {{{TRIGGER}, service: '/robot/dock'}}"), True),
    'service node substitution': (_leaf(f"Service: {{{TRIGGER}, service: '{{node}}/dock'}}"),
                                  True),
    'service repeated slash': (_leaf(f"Service: {{{TRIGGER}, service: 'dock//now'}}"), False),
    'service trailing slash': (_leaf(f"Service: {{{TRIGGER}, service: 'dock/'}}"), False),
    'service space': (_leaf(f"Service: {{{TRIGGER}, service: 'dock now'}}"), False),
    'service unknown substitution': (_leaf(f"Service: {{{TRIGGER}, service: '{{robot}}/d'}}"),
                                     False),
    'service digit token': (_leaf(f"Service: {{{TRIGGER}, service: 'dock/1st'}}"), False),
    'service tilde inside': (_leaf(f"Service: {{{TRIGGER}, service: 'a/~/b'}}"), False),
    'service too long': (_leaf(f"Service: {{{TRIGGER}, service: '{'s' * 260}'}}"), False),
    'action ok': (_leaf(f"Action: {{{FIB}, server: 'fibonacci'}}"), True),
    'action repeated slash': (_leaf(f"Action: {{{FIB}, server: '//fibonacci'}}"), False),
    'action dash': (_leaf(f"Action: {{{FIB}, server: 'fibo-nacci'}}"), False),
    'publish ok': (_leaf(f"Publish: {{topic: 'cmd/flag', {BOOL}, fields: {{data: true}}}}"),
                   True),
    'publish repeated slash': (_leaf(f"Publish: {{topic: 'cmd//flag', {BOOL}}}"), False),
    'condition topic ok': (_leaf(f"TopicCondition: {{topic: 'flag', {BOOL}, expr: msg.data}}"),
                           True),
    'condition topic bad': (_leaf(f"TopicCondition: {{topic: 'fl ag', {BOOL}, expr: msg.data}}"),
                            False),
    'wait topic bad': (_leaf(f"WaitForMessage: {{topic: 'flag//x', {BOOL}}}"), False),
    'subscription ok': (_subscription('robot/flag'), True),
    'subscription repeated slash': (_subscription('robot//flag'), False),
    'subscription trailing slash': (_subscription('robot/'), False),
    'subscription unknown substitution': (_subscription('{robot}/flag'), False),
    'topic action ok': (_topic_action(cancel_topic='dock/cancel'), True),
    'topic action goal topic': (_topic_action(goal_topic='dock//goal'), False),
    'topic action status topic': (_topic_action(status_topic='dock//status'), False),
    'topic action cancel topic': (_topic_action(cancel_topic='dock/cancel/'), False),
    # interfaces and fields
    'goal field typo': (_leaf(f'Action: {{{FIB}, server: fib, goal: {{ordr: 5}}}}'), False),
    'wrong kind': (_leaf('Service: {type: std_srvs/msg/Trigger, service: s}'), False),
    'misspelt type': (_leaf('Action: {type: test_msgs/action/Fibonaci, server: f}'), False),
    'response field typo': (_leaf(f'Service: {{{TRIGGER}, service: s, '
                                  'success: response.sucess}'), False),
    'topic action match typo': (_leaf(
        'TopicAction: {goal_topic: g, goal_type: std_msgs/msg/String, status_topic: s, '
        "status_type: std_msgs/msg/String, match: msg.dat == 'x', succeeded: 'true'}"), False),
    'topic action stamp field': (_leaf(
        'TopicAction: {goal_topic: g, goal_type: geometry_msgs/msg/PoseStamped, '
        'stamp_field: header.stmp, status_topic: s, status_type: std_msgs/msg/String, '
        "succeeded: 'true'}"), False),
    'topic action stamp ok': (_leaf(
        'TopicAction: {goal_topic: g, goal_type: geometry_msgs/msg/PoseStamped, '
        'stamp_field: header.stamp, status_topic: s, status_type: std_msgs/msg/String, '
        "succeeded: 'true'}"), True),
    'subscription field typo': (
        'subscriptions:\n  - {topic: odom, type: nav_msgs/msg/Odometry, '
        'fields: {x: pose.pose.positon.x}}\ntrees:\n  Main:\n    Condition: x > 0\n', False),
    'goal from a tree argument': (
        'main: Main\ntrees:\n  Main:\n    Subtree: {tree: Go, n: abc}\n  Go:\n'
        f'    params: {{n: 1}}\n    root:\n      Action: {{{FIB}, server: fib, '
        'goal: {order: $n}}\n', False),
    # loader errors beside ROS ones
    'unknown subtree and goal typo': (
        'trees:\n  Main:\n    Sequence:\n      - Subtree: Dokc\n'
        f'      - Action: {{{FIB}, server: fib, goal: {{ordr: 5}}}}\n  Dock:\n    Success:\n',
        False),
}


class _Logger:
    def warning(self, text: str) -> None:
        pass

    info = error = warning


def _executive_accepts(node: Any, path: str) -> bool:
    from bt_executive.ros.host import TreeHost
    from bt_executive.ros.leaves import FACTORIES
    host = TreeHost(node, default_registry().with_factories(FACTORIES), clock=lambda: 0.0,
                    logger=_Logger(), on_install=lambda tree: None)
    try:
        loaded = host.load(path)
    except TreeError:
        return False
    loaded.destroy()
    return True


def _validate_problems(path: str) -> list[Any]:
    from bt_executive.ros import checks
    try:
        validate_file(path, default_registry(), ros=checks)
    except TreeError as error:
        return error.diagnostics
    return []


@pytest.mark.parametrize('case', sorted(CORPUS))
def test_validate_and_the_executive_agree(env, tmp_path: pathlib.Path, case: str):
    text, accepted = CORPUS[case]
    path = tmp_path / 'tree.yaml'
    path.write_text(text)
    assert _executive_accepts(env.node, str(path)) is accepted, \
        f'{case}: the corpus says the executive {"accepts" if accepted else "rejects"} it'
    problems = _validate_problems(str(path))
    assert (not problems) is accepted, [str(problem) for problem in problems]
    for problem in problems:
        assert problem.location.line > 0 and '\n' not in str(problem), str(problem)
        assert '\\n' not in str(problem), str(problem)


@pytest.mark.parametrize('case, column, message', [
    ('service repeated slash', 52, "service 'dock//now': topic name must not contain "
     "repeated '/'"),
    ('service unknown substitution', 52, "service '{robot}/d': unknown substitution: "
     '{robot}'),
    ('subscription repeated slash', 13, "'topic' 'robot//flag': topic name must not "
     "contain repeated '/'"),
])
def test_an_invalid_name_is_one_line_at_its_parameter(tmp_path: pathlib.Path, case: str,
                                                      column: int, message: str):
    path = tmp_path / 'tree.yaml'
    path.write_text(CORPUS[case][0])
    problems = _validate_problems(str(path))
    assert [(p.location.column, p.message) for p in problems] == [(column, message)]
