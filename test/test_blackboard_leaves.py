# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""SetBlackboard, UnsetBlackboard, BlackboardExists, WaitForBlackboard: keys and dotted paths.

What docs/nodes.md says they return, case by case: nested fields of mappings, dataclasses,
named tuples and ROS messages; ``overwrite: false``; values never changed in place (the
initial blackboard survives for a reset, values shared by two keys stay apart, and the
tree runner sees the write).
"""

from __future__ import annotations

import collections
import dataclasses
import textwrap
from typing import Any, Iterator

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.expressions import EvaluationError
from bt_executive.core.loader import Loader
from bt_executive.nodes.blackboard_leaves import (
    BlackboardExists,
    KeyPath,
    PathError,
    SetBlackboard,
    UnsetBlackboard,
    WaitForBlackboard,
)
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
import py_trees
from py_trees.common import Status
import pytest

S, F, R = Status.SUCCESS, Status.FAILURE, Status.RUNNING


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


@dataclasses.dataclass
class Pose:
    x: float
    y: float


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: float


Pair = collections.namedtuple('Pair', 'left right')


def bb(key: str) -> Any:
    return py_trees.blackboard.Blackboard.storage['/' + key]


def put(key: str, value: Any) -> None:
    py_trees.blackboard.Blackboard.set('/' + key, value)


def lookup(key: str) -> Any:
    return py_trees.blackboard.Blackboard.storage['/' + key]


def run(text: str, ticks: int = 1) -> tuple[TreeRunner, Any]:
    """Build ``text`` (initial blackboard applied) and tick it; return runner and document."""
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    apply_blackboard_defaults(document)
    runner = TreeRunner(build(document, registry=registry), track_writes=True)
    for _ in range(ticks):
        runner.tick_once()
    return runner, document


def one(node: Any) -> Status:
    node.tick_once()
    return node.status


# ---- SetBlackboard -----------------------------------------------------------------------

def test_a_nested_key_writes_a_field_of_a_mapping_and_the_runner_sees_it():
    runner, document = run("""
        blackboard: {pose: {x: 1.0, y: 2.0}}
        trees:
          Main:
            SetBlackboard it: {key: pose.x, value: 5.0}
        """, ticks=0)
    record = runner.tick_once()
    assert record.root_status is S and bb('pose') == {'x': 5.0, 'y': 2.0}
    assert record.writes == {'pose'}
    assert runner.root.feedback_message == 'pose.x = 5.0'
    assert document.blackboard['pose'].data == {'x': 1.0, 'y': 2.0}  # a reset restores it


def test_deep_paths_new_entries_and_expressions():
    run("""
        blackboard: {robot: {pose: {position: {x: 0, y: 0}}}, step: 2}
        trees:
          Main:
            Sequence:
              - SetBlackboard: {key: robot.pose.position.x, value: '${step * 3}'}
              - SetBlackboard: {key: robot.pose.position.z, value: 1}
              - SetBlackboard: {key: robot.name, value: r2}
        """)
    assert bb('robot') == {'pose': {'position': {'x': 6, 'y': 0, 'z': 1}}, 'name': 'r2'}


def test_values_shared_by_two_keys_stay_apart():
    run("""
        blackboard: {a: {x: 1}}
        trees:
          Main:
            Sequence:
              - SetBlackboard: {key: b, value: $a}
              - SetBlackboard: {key: b.x, value: 2}
        """)
    assert bb('a') == {'x': 1} and bb('b') == {'x': 2}


@pytest.mark.parametrize('key, message', [
    ('pose.x', "cannot set pose.x: no blackboard key 'pose'"),
    ('target.pose.x', "cannot set target.pose.x: target: no field 'pose' in dict (keys: x)"),
    ('count.x', "cannot set count.x: count: cannot read field 'x' of int"),
])
def test_a_nested_key_that_cannot_be_written_fails_with_the_reason(key, message):
    runner, _ = run(f"""
        blackboard: {{target: {{x: 1}}, count: 3}}
        trees:
          Main:
            SetBlackboard it: {{key: {key}, value: 1}}
        """)
    assert runner.root.status is F
    assert runner.root.feedback_message == message
    assert bb('target') == {'x': 1} and bb('count') == 3


def test_a_value_that_cannot_be_computed_fails_with_the_reason():
    runner, _ = run("""
        trees:
          Main:
            SetBlackboard it: {key: a, value: '${missing + 1}'}
        """)
    assert runner.root.status is F
    assert runner.root.feedback_message == "value for a: no blackboard key 'missing'"


def test_overwrite_false_keeps_a_value_and_succeeds():
    runner, _ = run("""
        blackboard: {a: 1, pose: {x: 1}}
        trees:
          Main:
            Sequence:
              - SetBlackboard kept: {key: a, value: 2, overwrite: false}
              - SetBlackboard new: {key: b, value: 3, overwrite: false}
              - SetBlackboard kept field: {key: pose.x, value: 9, overwrite: false}
              - SetBlackboard new field: {key: pose.y, value: 4, overwrite: false}
              - SetBlackboard not evaluated: {key: a, value: '${nope}', overwrite: false}
        """)
    assert runner.root.status is S
    assert (bb('a'), bb('b'), bb('pose')) == (1, 3, {'x': 1, 'y': 4})
    kept = runner.tree.by_path('Main/Sequence/kept')
    assert kept.feedback_message == 'a already set, kept (overwrite: false)'


def test_fields_of_objects_are_written_on_a_copy():
    pose, frozen, pair = Pose(1.0, 2.0), Frozen(1.0), Pair(1, 2)
    put('pose', pose)
    put('frozen', frozen)
    put('pair', pair)
    for key, value in (('pose.x', 5.0), ('frozen.x', 6.0), ('pair.left', 7)):
        assert one(SetBlackboard('s', key=key, value=lambda v=value: v, lookup=lookup)) is S
    assert bb('pose') == Pose(5.0, 2.0) and pose == Pose(1.0, 2.0)
    assert bb('frozen') == Frozen(6.0) and bb('pair') == Pair(7, 2)
    node = SetBlackboard('s', key='pose.z', value=lambda: 1, lookup=lookup)
    assert one(node) is F
    assert node.feedback_message == "cannot set pose.z: pose: no field 'z' in Pose " \
        '(fields: x, y)'


def test_fields_of_ros_messages_are_type_checked():
    geometry = pytest.importorskip('geometry_msgs.msg')
    original = geometry.Pose()
    put('pose', original)
    node = SetBlackboard('s', key='pose.position.x', value=lambda: 2.5, lookup=lookup)
    assert one(node) is S
    assert bb('pose').position.x == 2.5 and original.position.x == 0.0
    wrong = SetBlackboard('s', key='pose.position.x', value=lambda: 'far', lookup=lookup)
    assert one(wrong) is F
    assert wrong.feedback_message == (
        'cannot set pose.position.x: pose.position.x (geometry_msgs/msg/Point) refuses '
        "'far': The 'x' field must be of type 'float'")
    assert bb('pose').position.x == 2.5
    whole = SetBlackboard('s', key='pose.position.y', value=lambda: 3, lookup=lookup)
    assert one(whole) is S and bb('pose').position.y == 3.0  # an int for a float field
    assert isinstance(bb('pose').position.y, float)


# ---- UnsetBlackboard ---------------------------------------------------------------------

def test_unset_removes_keys_and_mapping_entries():
    runner, document = run("""
        blackboard: {a: 1, pose: {x: 1, y: 2}}
        trees:
          Main:
            Sequence:
              - UnsetBlackboard key: a
              - UnsetBlackboard entry: pose.y
              - UnsetBlackboard absent: nothing
              - UnsetBlackboard absent entry: pose.z
        """)
    assert runner.root.status is S
    storage = py_trees.blackboard.Blackboard.storage
    assert '/a' not in storage and bb('pose') == {'x': 1}
    assert document.blackboard['pose'].data == {'x': 1, 'y': 2}
    feedback = {runner.tree.nodes.path(b): b.feedback_message for b in runner.root.children}
    assert feedback == {'Main/Sequence/key': 'a removed',
                        'Main/Sequence/entry': 'pose.y removed',
                        'Main/Sequence/absent': 'nothing was not set, nothing to remove',
                        'Main/Sequence/absent entry': 'pose.z was not set, nothing to remove'}


def test_unset_cannot_remove_a_field_of_an_object():
    put('pose', Pose(1.0, 2.0))
    node = UnsetBlackboard('u', key='pose.x', lookup=lookup)
    assert one(node) is F
    assert node.feedback_message == ("cannot remove pose.x: cannot remove field 'x' of Pose "
                                     '(pose): only mapping entries can be removed')


# ---- BlackboardExists / WaitForBlackboard ------------------------------------------------

def test_exists_follows_paths_and_names_what_is_missing():
    put('pose', {'x': 1.0})
    cases = {'pose': (S, 'pose is set'), 'pose.x': (S, 'pose.x is set'),
             'pose.y': (F, "pose: no field 'y' in dict (keys: x)"),
             'gone': (F, "no blackboard key 'gone'"),
             'gone.x': (F, "no blackboard key 'gone'")}
    for key, (status, feedback) in cases.items():
        node = BlackboardExists('e', key=key, lookup=lookup)
        assert (one(node), node.feedback_message) == (status, feedback), key


def test_a_stale_value_does_not_exist_and_says_why():
    def stale(key: str) -> Any:
        raise EvaluationError(f"blackboard key '{key}' is stale: 3.0 s old (max_age 1.0 s)")

    node = BlackboardExists('e', key='battery.percentage', lookup=stale)
    assert one(node) is F
    assert node.feedback_message == \
        "blackboard key 'battery' is stale: 3.0 s old (max_age 1.0 s)"


def test_wait_for_blackboard_waits_for_a_nested_field():
    put('pose', {'x': 1.0})
    node = WaitForBlackboard('w', key='pose.y', lookup=lookup)
    assert one(node) is R
    assert node.feedback_message == "waiting for pose.y: pose: no field 'y' in dict (keys: x)"
    put('pose', {'x': 1.0, 'y': 0.0})
    assert one(node) is S and node.feedback_message == 'pose.y is set'


def test_the_exists_probe_and_reads_are_declared_for_event_ticking():
    runner, _ = run("""
        trees:
          Main:
            Sequence:
              - BlackboardExists e: pose.y
              - SetBlackboard s: {key: pose.x, value: 1}
        """, ticks=0)
    table = runner.tree.nodes
    exists = runner.tree.by_path('Main/Sequence/e')
    assert table.reads(exists) == {'pose'}
    probe = table.probe(exists)
    assert probe(lambda key: {'y': 1}) is True and probe(lambda key: {}) is False
    assert table.reads(runner.tree.by_path('Main/Sequence/s')) == {'pose'}


def test_key_paths_reject_empty_parts():
    with pytest.raises(ValueError):
        KeyPath('pose..x')
    assert KeyPath('a.b.c').fields == ('b', 'c')
    with pytest.raises(PathError):
        KeyPath('a.b').read(lambda key: {'c': 1})
