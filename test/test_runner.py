# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TreeRunner, StatusTracker and TickRecord (bt_executive.observe), without ROS.

The runner is the one place a tree is ticked; each tick (or stop) yields one record of
what ran, what moved and why, and what was written, handed to every observer in order.
"""

from __future__ import annotations

import random
import textwrap
from typing import Any, Iterator

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.core.table import BuiltTree
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.record import StatusTracker, TickRecord, Transition
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder
from helpers import SELECTOR_TREE
import py_trees
from py_trees.common import Status
import pytest

I, R, S, F = Status.INVALID, Status.RUNNING, Status.SUCCESS, Status.FAILURE


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


def load(text: str) -> tuple[Any, BuiltTree]:
    """Load and build ``text`` with the default catalogue (initial blackboard applied)."""
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    return document, build(document, registry=registry)


def runner_for(text: str, **options: Any) -> TreeRunner:
    return TreeRunner(load(text)[1], **options)


def paths(runner: TreeRunner, behaviours: Any) -> list[str]:
    """Return the ids of ``behaviours`` (node paths; for others, made from names)."""
    return [runner.tracker.ids[behaviour] for behaviour in behaviours]


def moves(record: TickRecord) -> dict[str, tuple[Status, Status]]:
    return {change.id: (change.old, change.new) for change in record.transitions}


def walk(runner: TreeRunner) -> dict[str, tuple[Status, str]]:
    """Return every node's status and feedback message, read from the tree itself."""
    return {runner.tracker.ids[node]: (node.status, str(node.feedback_message))
            for node in runner.root.iterate()}


SEQUENCE = """
    trees:
      Main:
        Sequence root:
          - Success a
          - Running b
          - Success c
    """


# ---- records ----------------------------------------------------------------------------

def test_a_record_lists_the_behaviours_ticked_in_order():
    runner = runner_for(SEQUENCE, clock=lambda: 42.0)
    record = runner.tick_once()
    assert paths(runner, record.ticked) == ['Main/root/a', 'Main/root/b', 'Main/root']
    assert all(isinstance(behaviour, py_trees.behaviour.Behaviour)
               for behaviour in record.ticked)
    assert (record.tick, record.time, record.root_status, record.stopped) == (1, 42.0, R, False)
    assert record.interval is None and record.duration >= 0.0
    second = runner.tick_once(now=7.5)
    assert (second.tick, second.time) == (2, 7.5)
    assert second.interval is not None and second.interval >= 0.0
    assert runner.tick_count == 2 and runner.last is second
    assert 'Main/root/c' not in paths(runner, second.ticked)  # never reached


def test_transitions_carry_old_and_new_status_and_the_reason():
    runner = runner_for(SELECTOR_TREE)
    record = runner.tick_once()
    assert moves(record) == {
        'Main/root': (I, R), 'Main/root/blocked': (I, F), 'Main/root/work': (I, R),
        'Main/root/work/ok': (I, S), 'Main/root/work/busy': (I, R)}
    blocked = next(change for change in record.changes if change.id == 'Main/root/blocked')
    assert isinstance(blocked, Transition) and blocked.moved
    assert blocked.behaviour is runner.tree.by_path('Main/root/blocked')
    assert blocked.reason == 'x > 5 is false'
    assert len({change.id for change in record.changes}) == len(record.changes)
    steady = runner.tick_once()
    assert steady.changes == [] and steady.transitions == []
    # a higher priority wins: the running branch is stopped although it was not ticked
    py_trees.blackboard.Blackboard.set('/x', 10)
    record = runner.tick_once()
    assert moves(record) == {
        'Main/root/blocked': (F, S), 'Main/root': (R, S), 'Main/root/work': (R, I),
        'Main/root/work/ok': (S, I), 'Main/root/work/busy': (R, I)}
    assert 'Main/root/work/busy' not in paths(runner, record.ticked)
    assert record.root_status is S


def test_feedback_only_changes_are_changes_but_not_transitions():
    runner = runner_for("""
        trees:
          Main:
            Retry three:
              attempts: 3
              Failure nope:
        """)
    first = runner.tick_once()
    assert moves(first)['Main/three'] == (I, R)
    second = runner.tick_once()
    retry = [change for change in second.changes if change.id == 'Main/three']
    assert len(retry) == 1
    assert retry[0].old is retry[0].new is R and not retry[0].moved
    assert retry[0].reason != next(c.reason for c in first.changes if c.id == 'Main/three')
    assert '2' in retry[0].reason
    assert 'Main/three' not in moves(second)
    assert all(change.moved for change in second.transitions)


def test_writes_are_tracked_when_asked_and_equal_rewrites_are_not_writes():
    text = """
        blackboard: {count: 0, gone: 1}
        trees:
          Main:
            Sequence root:
              - SetBlackboard same: {key: fixed, value: 5}
              - SetBlackboard next: {key: count, value: '${count + 1}'}
        """
    runner = runner_for(text, track_writes=True)
    assert runner.tick_once().writes == {'fixed', 'count'}
    assert runner.tick_once().writes == {'count'}  # 'fixed' was written with an equal value
    assert py_trees.blackboard.Blackboard.get('/count') == 2
    py_trees.blackboard.Blackboard.storage.clear()  # nothing equal to write over now
    py_trees.blackboard.Blackboard.set('/count', 10)
    assert runner.tick_once().writes == {'fixed', 'count'}
    untracked = runner_for(text)
    assert [untracked.tick_once().writes for _ in range(2)] == [frozenset(), frozenset()]
    assert py_trees.blackboard.Blackboard.get('/count') == 2


def test_removed_keys_are_writes():
    runner = runner_for("""
        blackboard: {a: 1, b: 2}
        trees:
          Main:
            Sequence root:
              - UnsetBlackboard: a
        """, track_writes=True)
    assert runner.tick_once().writes == {'a'}
    assert runner.tick_once().writes == frozenset()


def test_stop_records_invalid_transitions():
    runner = runner_for(SELECTOR_TREE)
    runner.tick_once()
    record = runner.stop()
    assert record.stopped and record.ticked == () and record.tick == 1
    assert record.root_status is I and runner.tick_count == 1
    assert moves(record) == {
        'Main/root': (R, I), 'Main/root/blocked': (F, I), 'Main/root/work': (R, I),
        'Main/root/work/ok': (S, I), 'Main/root/work/busy': (R, I)}
    assert {node.status for node in runner.root.iterate()} == {I}
    again = runner.stop()  # nothing left to stop
    assert again.stopped and again.changes == []
    assert moves(runner.tick_once())['Main/root'] == (I, R)


def test_a_stop_made_directly_is_seen_by_observe():
    runner = runner_for(SELECTOR_TREE)
    runner.tick_once()
    runner.root.stop(Status.INVALID)  # what pause and reset did before the runner
    record = runner.observe()
    assert not record.stopped and record.ticked == ()
    assert set(moves(record)) == {'Main/root', 'Main/root/blocked', 'Main/root/work',
                                  'Main/root/work/ok', 'Main/root/work/busy'}
    assert all(new is I for _, new in moves(record).values())
    assert runner.observe().changes == []


def test_observers_get_every_record_in_order():
    runner = runner_for(SELECTOR_TREE)
    seen: list[tuple[str, int, bool]] = []

    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def on_tick(self, record: TickRecord) -> None:
            seen.append((self.name, record.tick, record.stopped))

    first, second = Named('first'), Named('second')
    runner.add_observer(first)
    runner.add_observer(second)
    records = [runner.tick_once(), runner.tick_once(), runner.stop(), runner.observe()]
    assert seen == [('first', 1, False), ('second', 1, False),
                    ('first', 2, False), ('second', 2, False),
                    ('first', 2, True), ('second', 2, True),
                    ('first', 2, False), ('second', 2, False)]
    assert runner.last is records[-1]
    runner.remove_observer(first)
    runner.tick_once()
    assert seen[-1] == ('second', 3, False) and seen[-2] == ('second', 2, False)


def test_a_structure_change_under_the_runner_is_described_again():
    runner = runner_for("""
        trees:
          Main:
            Sequence root:
              - Success a
              - Running b
        """)
    builder = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                              revision=1)
    runner.add_observer(builder)
    runner.tick_once()
    version = runner.tracker.structure_version
    old = runner.tree.by_path('Main/root/b')
    added = py_trees.behaviours.Failure('f')
    runner.root.replace_child(old, added)
    record = runner.tick_once()  # the tick meets a behaviour it does not know
    assert runner.tracker.structure_version == version + 1
    # what that tick did is in its record: the new node failed, and so did the root
    assert moves(record) == {'Main/root': (R, F), 'Main/root/f': (I, F)}
    assert builder.events()[-1]['id'] == 'Main/root'

    assert runner.tracker.ids[added] == 'Main/root/f' and old not in runner.tracker.ids
    snapshot = builder.update()
    assert [node['id'] for node in snapshot['nodes']] == [
        'Main/root', 'Main/root/a', 'Main/root/f']
    assert snapshot['state'] == {ident: {'status': status.name, 'feedback': feedback}
                                 for ident, (status, feedback) in walk(runner).items()}
    assert snapshot['root_status'] == 'FAILURE'
    # from then on records are as usual
    record = runner.tick_once()
    assert record.changes == [] and paths(runner, record.ticked) == [
        'Main/root/a', 'Main/root/f', 'Main/root']
    record = runner.stop()
    assert moves(record) == {'Main/root': (F, I), 'Main/root/a': (S, I),
                             'Main/root/f': (F, I)}


def test_plain_trees_get_ids_from_names_with_duplicates_numbered():
    root = py_trees.composites.Sequence('top', memory=False, children=[
        py_trees.behaviours.Success('a'), py_trees.behaviours.Success('a'),
        py_trees.decorators.Inverter('not', py_trees.behaviours.Failure('a'))])
    tracker = StatusTracker(BuiltTree(root))
    assert [ident for _, ident, _, _ in tracker.order] == [
        'top', 'top/a', 'top/a#2', 'top/not', 'top/not/a']
    assert [(parent, depth) for _, _, parent, depth in tracker.order] == [
        (None, 0), ('top', 1), ('top', 1), ('top', 1), ('top/not', 2)]
    changes = tracker.after_tick(list(root.tick()))
    assert {change.id: change.new for change in changes} == {
        'top': S, 'top/a': S, 'top/a#2': S, 'top/not': S, 'top/not/a': F}
    root.stop(Status.INVALID)
    assert {change.id for change in tracker.compare_root()} == {
        'top', 'top/a', 'top/a#2', 'top/not', 'top/not/a'}
    root.tick_once()  # ticked behind the tracker's back: compare_all() catches up
    assert len(tracker.compare_all()) == 5


# ---- the snapshot model fed only by records ----------------------------------------------

TREES = [
    SELECTOR_TREE,
    """
    main: Main
    blackboard: {a: true, b: false, n: 0}
    trees:
      Main:
        Parallel root:
          success: all
          children:
            - ReactiveSequence guard:
                - Condition: a
                - Retry: {attempts: 2, child: {Condition: b}}
                - Running
            - Selector choose:
                memory: true
                children:
                  - Condition: not b
                  - SetBlackboard: {key: n, value: '${n + 1}'}
                  - Running
            - Subtree call: {tree: Count, limit: 2}
      Count:
        params: {limit: 1}
        root:
          Sequence count:
            - TickCounter: {ticks: $limit, then: success}
            - Inverter: {Condition: a}
    """,
    """
    blackboard: {a: false, b: true}
    trees:
      Main:
        Selector root:
          - Sequence first:
              - Condition: a
              - Periodic: 2
          - ActiveSelector second:
              - Condition: b
              - SuccessEveryN: 2
          - OneShot: {Failure: }
    """,
]


def comparable(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Return what a snapshot shows of the tree (not its seq, stamps or history)."""
    shown = ('nodes', 'state', 'root', 'root_status', 'active_path', 'why', 'blackboard',
             'unset')
    return {key: snapshot[key] for key in shown}


@pytest.mark.parametrize('index', range(len(TREES)))
def test_the_snapshot_model_fed_by_records_equals_one_built_fresh(index):
    document, tree = load(TREES[index])
    runner = TreeRunner(tree)
    keys = ['a', 'b', 'n', 'x', 'missing']
    options = {'tree_name': 'Main', 'source_file': 't.yaml', 'revision': 1,
               'blackboard_keys': keys, 'document': document, 'session': 's'}
    observed = SnapshotBuilder(runner.tracker, **options)
    runner.add_observer(observed)
    choices = random.Random(index)  # deterministic
    storage = py_trees.blackboard.Blackboard.storage
    for step in range(60):
        action = choices.choice(['tick', 'tick', 'tick', 'set', 'stop', 'direct stop'])
        if action == 'tick':
            runner.tick_once()
        elif action == 'set':
            storage['/' + choices.choice('ab')] = choices.random() < 0.5
            storage['/x'] = choices.randint(0, 10)
            runner.observe()
        elif action == 'stop':
            runner.stop()
        else:
            runner.root.stop(Status.INVALID)
            runner.observe()
        fresh = SnapshotBuilder(TreeRunner(tree).tracker, **options)  # walks the tree now
        mine = observed.update() or observed.full()
        assert comparable(mine) == comparable(fresh.full()), (step, action)
        assert observed.why() == fresh.why()
