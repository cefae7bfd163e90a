# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Every FAILURE carries a reason: each node type of the catalogue, ticked into FAILURE.

The cases drive every node type that can fail into FAILURE through the tree runner (the
ROS leaves as the offline stubs ``bt-executive tick`` uses; their real failures are in
test/ros/). Each case checks that the node itself, and every other node that failed,
has a non-empty reason, and that the tree's failure summary (what ``~/status`` shows as
``last_failure``) and the snapshot's why chain carry it. A plugin node that fails without
a reason gets one from its fault guard.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any, Iterator

from bt_executive.core.builder import apply_blackboard_defaults, BuildContext, Builder
from bt_executive.core.faults import NO_REASON
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category, NodeType, Registry
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import failure_reason, SnapshotBuilder
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status
import pytest

#: Node types that never return FAILURE, and why.
NEVER_FAIL = {
    'Success': 'always SUCCESS',
    'Running': 'always RUNNING',
    'Wait': 'RUNNING, then SUCCESS',
    'WaitUntil': 'RUNNING until the expression is true',
    'WaitForBlackboard': 'RUNNING until the key is set',
    'ForceSuccess': 'FAILURE becomes SUCCESS',
    'FailureIsRunning': 'FAILURE becomes RUNNING',
    'WaitForMessage': 'RUNNING until a message arrives (its offline stub succeeds)',
}

#: node type -> (the tree's main body, the path of the node that must fail, blackboard).
#: The node under test is named ``it``.
CASES: dict[str, tuple[str, str]] = {
    'Sequence': ('Sequence it: [Success, Failure]', 'Main/it'),
    'ReactiveSequence': ('ReactiveSequence it: [Failure]', 'Main/it'),
    'Selector': ('Selector it: [Failure, Failure]', 'Main/it'),
    'ActiveSelector': ('ActiveSelector it: [Failure]', 'Main/it'),
    'Parallel': ('Parallel it: [Running, Failure]', 'Main/it'),
    'Race': ('Race it: [Failure, Failure]', 'Main/it'),
    'Marathon': ('Marathon it: {require_success: true, children: [Success, Failure]}',
                 'Main/it'),
    'Monitor': ('Monitor it: [Failure, Running]', 'Main/it'),
    'Filter': ('Filter it: [Success, Failure]', 'Main/it'),
    'RandomSelector': ('RandomSelector it: {seed: 1, children: [Failure, Failure]}',
                       'Main/it'),
    'RandomSequence': ('RandomSequence it: {seed: 1, children: [Success, Failure]}',
                       'Main/it'),
    'IfThenElse': ('IfThenElse it: [Failure, Success]', 'Main/it'),
    'While': ('While it: [Failure, Success]', 'Main/it'),
    'Inverter': ('Inverter it: {Success: }', 'Main/it'),
    'ForceFailure': ('ForceFailure it: {Success: }', 'Main/it'),
    'RunningIsFailure': ('RunningIsFailure it: {Running: }', 'Main/it'),
    'RunningIsSuccess': ('RunningIsSuccess it: {Failure: }', 'Main/it'),
    'SuccessIsRunning': ('SuccessIsRunning it: {Failure: }', 'Main/it'),
    'PassThrough': ('PassThrough it: {Failure: }', 'Main/it'),
    'Repeat': ('Repeat it: {times: 2, Failure: }', 'Main/it'),
    'Retry': ('Retry it: {attempts: 2, Failure: }', 'Main/it'),
    'UntilSuccess': ('UntilSuccess it: {max_attempts: 2, Failure: }', 'Main/it'),
    'UntilFailure': ('UntilFailure it: {max_attempts: 2, Success: }', 'Main/it'),
    'Limit': ('ReactiveSequence: [Limit it: {max_runs: 1, Success: }, Running]',
              'Main/ReactiveSequence/it'),
    'Timeout': ('Timeout it: {seconds: 0.15, Running: }', 'Main/it'),
    'Delay': ('Delay it: {seconds: 0.0, Failure: }', 'Main/it'),
    'Cooldown': ('ReactiveSequence: [Cooldown it: {seconds: 5, Success: }, Running]',
                 'Main/ReactiveSequence/it'),
    'OneShot': ('OneShot it: {Failure: }', 'Main/it'),
    'Failure': ('Failure it', 'Main/it'),
    'Log': ('Log it: $missing', 'Main/it'),
    'Terminate': ('Terminate it: {reason: enough}', 'Main/it'),
    'Condition': ('Condition it: x > 1', 'Main/it'),
    'SetBlackboard': ('SetBlackboard it: {key: missing.x, value: 1}', 'Main/it'),
    'UnsetBlackboard': ('UnsetBlackboard it: point.x', 'Main/it'),
    'BlackboardExists': ('BlackboardExists it: pose.y', 'Main/it'),
    'TickCounter': ('TickCounter it: {ticks: 1, then: failure}', 'Main/it'),
    'SuccessEveryN': ('SuccessEveryN it: 2', 'Main/it'),
    'Periodic': ('Periodic it: 1', 'Main/it'),
    'Subtree': ('Subtree it: Fails', 'Main/it'),
    'Action': ('Action it: {type: test_msgs/action/Fibonacci, server: fib}', 'Main/it'),
    'Service': ('Service it: {type: std_srvs/srv/Trigger, service: s}', 'Main/it'),
    'TopicCondition': ('TopicCondition it: {topic: t, type: std_msgs/msg/Bool}', 'Main/it'),
    'Publish': ('Publish it: {topic: t, type: std_msgs/msg/Bool}', 'Main/it'),
    'TopicAction': ('TopicAction it: {goal_topic: g, goal_type: std_msgs/msg/Bool, '
                    'status_topic: s, status_type: std_msgs/msg/Bool, succeeded: msg.data}',
                    'Main/it'),
}


@dataclasses.dataclass
class Point:
    """A value with declared fields (as a ROS message has): a field cannot be removed."""

    x: float


#: Blackboard values a case needs that YAML cannot write.
OBJECTS = {'UnsetBlackboard': {'point': Point(1.0)}}

#: ROS leaves whose offline stub succeeds by default: the case stubs them to fail.
STUBBED_TO_FAIL = {'Action', 'Service', 'Publish', 'TopicAction'}

DOCUMENT = """\
main: Main
blackboard: {{x: 0, pose: {{x: 1.0}}}}
trees:
  Main:
    {body}
  Fails:
    Sequence: [Success, Condition: x > 5]
"""


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


class Clock:
    """A clock advanced by the test, 0.1 s per tick."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _runner(text: str, registry: Registry, **context: Any) -> TreeRunner:
    document = Loader(registry).load_text(text, name='t.yaml')
    apply_blackboard_defaults(document)
    built = Builder(BuildContext(registry=registry, document=document, **context)).build()
    return TreeRunner(built)


def test_every_node_type_is_covered():
    names = {node_type.name for node_type in default_registry().types()}
    assert names == set(CASES) | set(NEVER_FAIL), (
        'add a FAILURE case (or a NEVER_FAIL entry) for: '
        f'{sorted(names - set(CASES) - set(NEVER_FAIL))}')


@pytest.mark.parametrize('node_type', sorted(CASES))
def test_each_node_type_fails_with_a_reason(node_type):
    body, path = CASES[node_type]
    text = DOCUMENT.format(body=body)
    stubs = {'it': ('failure', 0)} if node_type in STUBBED_TO_FAIL else {}
    if node_type == 'Publish':  # a stub is a stub: the real leaf fails to build a message
        stubs = {'it': ('failure', 0)}
    clock = Clock()
    runner = _runner(text, default_registry(), clock=clock, stubs=stubs, seed=1)
    for key, value in OBJECTS.get(node_type, {}).items():
        py_trees.blackboard.Blackboard.set('/' + key, value)
    snapshots = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                                revision=1)
    runner.add_observer(snapshots)
    runner.root.setup_with_descendants()
    node = runner.tree.by_path(path)
    for _ in range(12):
        runner.tick_once()
        if node.status is Status.FAILURE and runner.root.status is Status.FAILURE:
            break
        clock.now += 0.1
    assert node.status is Status.FAILURE, f'{node_type} did not fail: {node.status}'
    assert node.feedback_message, f'{node_type} failed without a reason'
    failed = {runner.tree.nodes.path(b): b.feedback_message for b in runner.root.iterate()
              if b.status is Status.FAILURE}
    assert all(failed.values()), f'FAILURE without a reason: {failed}'
    summary = failure_reason(runner.root, ident=runner.tree.nodes.path)
    assert summary and not summary.endswith(': '), summary
    why = snapshots.full()['why']
    assert why and all(step['reason'] for step in why), why


def test_a_plugin_that_fails_without_a_reason_gets_one():
    class Silent(Behaviour):
        def update(self) -> Status:
            return Status.FAILURE

    base = default_registry()
    registry = Registry(base.types(), sections=base.sections)
    registry.register(NodeType(
        'Silent', Category.LEAF, 'fails without a reason',
        factory=lambda ctx, name, params, children: Silent(name), source='plugin.Silent'))
    runner = _runner('trees:\n  Main:\n    Sequence: [Success, Silent it]\n', registry)
    record = runner.tick_once()
    assert record.root_status is Status.FAILURE
    leaf = runner.tree.by_path('Main/Sequence/it')
    assert leaf.feedback_message == NO_REASON
    assert runner.root.feedback_message == f"'it' failed: {NO_REASON}"


REASONS = {
    'Sequence': "'Failure' failed: failure",
    'Selector': 'all 2 children failed',
    'Parallel': "'Failure' failed: failure",
    'PassThrough': "'Failure' failed: failure",
    'Retry': "'Failure' failed: failure (attempt 2 of 2)",
    'Repeat': "'Failure' failed: failure (after 0 of 2 successes)",
    'OneShot': "'Failure' failed: failure (its one run; the result is kept)",
    'SetBlackboard': "cannot set missing.x: no blackboard key 'missing'",
    'UnsetBlackboard': 'cannot remove point.x: cannot remove field',
    'BlackboardExists': "pose: no field 'y' in dict (keys: x)",
    'TickCounter': 'FAILURE after 1 running tick',
    'Subtree': "'Condition' failed: x > 5 is false",
}


@pytest.mark.parametrize('node_type', sorted(REASONS))
def test_reasons_say_what_failed(node_type):
    body, path = CASES[node_type]
    runner = _runner(DOCUMENT.format(body=body), default_registry())
    for key, value in OBJECTS.get(node_type, {}).items():
        py_trees.blackboard.Blackboard.set('/' + key, value)
    node = runner.tree.by_path(path)
    for _ in range(4):
        runner.tick_once()
        if node.status is Status.FAILURE:
            break
    assert node.feedback_message.startswith(REASONS[node_type]), node.feedback_message


def test_reasons_reach_the_status_summary_through_composites():
    runner = _runner(textwrap.dedent("""\
        trees:
          Main:
            Selector top:
              - Sequence a: [Success, Condition low: x > 5]
              - Retry b: {attempts: 1, Failure nope: }
        blackboard: {x: 0}
        """), default_registry())
    runner.tick_once()
    assert runner.root.feedback_message == 'all 2 children failed'
    assert runner.tree.by_path('Main/top/a').feedback_message == \
        "'low' failed: x > 5 is false"
    assert failure_reason(runner.root, ident=runner.tree.nodes.path) == \
        'Main/top/b/nope: failure'


@pytest.mark.parametrize('body, reason', [
    ('Inverter it: {Success ok: }', "'ok' succeeded: success (inverted to FAILURE)"),
    ('ForceFailure it: {Success ok: }', "'ok' succeeded: success (forced to FAILURE)"),
    ('RunningIsFailure it: {Running busy: }',
     "'busy' is still running: running (RUNNING is FAILURE)"),
    ('RunningIsFailure it: {Failure bad: }', "'bad' failed: failure"),
])
def test_decorators_that_make_a_failure_name_the_child(body, reason):
    runner = _runner(DOCUMENT.format(body=body), default_registry())
    runner.tick_once()
    assert runner.root.status is Status.FAILURE
    assert runner.root.feedback_message == reason
