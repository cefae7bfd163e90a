# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Snapshot deltas (bt_executive.observe.delta) over ticked trees, without ROS."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.delta import (apply_delta, DELTA_SCHEMA, DeltaTracker,
                                        heartbeat_delta, load_delta_schema, make_delta,
                                        same_structure, SnapshotState)
from bt_executive.observe.foxglove import FoxgloveView
from bt_executive.observe.replay import Timeline
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder, to_json
from helpers import SNAPSHOT_VALIDATOR
import jsonschema
import py_trees
import pytest

DELTA_VALIDATOR = jsonschema.Draft202012Validator(load_delta_schema())

BUSY_TREE = """
    blackboard: {n: 0, flag: false, gone: 1}
    trees:
      Main:
        Parallel root:
          success: all
          children:
            - Sequence count:
                - SetBlackboard: {key: n, value: '${n + 1}'}
                - SuccessEveryN every3: 3
            - Selector pick:
                - Condition odd: n % 2 == 1
                - SuccessEveryN tock: 2
            - Sequence flagger:
                - SetBlackboard: {key: flag, value: '${n % 4 == 0}'}
                - Condition big: n < 1000
    """


def runner_for(text: str,
               keys: list[str]) -> tuple[TreeRunner, SnapshotBuilder, DeltaTracker]:
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    runner = TreeRunner(build(document, registry=registry), track_writes=True)
    builder = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                              revision=1, blackboard_keys=keys, document=document,
                              clock=iter(range(1, 10 ** 6)).__next__)
    tracker = DeltaTracker()
    runner.add_observer(builder)
    runner.add_observer(tracker)
    return runner, builder, tracker


def plain(data: Any) -> Any:
    """Return ``data`` as it comes out of the wire (JSON round trip)."""
    return json.loads(to_json(data))


@pytest.mark.parametrize('keys', [['n', 'flag', 'missing'], ['*'], []])
def test_deltas_rebuild_every_snapshot_exactly(keys):
    runner, builder, tracker = runner_for(BUSY_TREE, keys)
    first = builder.update()
    assert first is not None
    tracker.reset()
    state = SnapshotState()
    assert state.feed(plain(first))
    previous, deltas, full_bytes, delta_bytes = first, 0, 0, 0
    for tick in range(60):
        if tick == 30:
            py_trees.blackboard.Blackboard.unset('/gone')  # a key disappears ('*')
        builder.set_executive({'tick': tick // 10})  # a section that changes sometimes
        runner.tick_once()
        snapshot = builder.update()
        if snapshot is None:
            continue
        delta = tracker.delta(previous, snapshot)
        DELTA_VALIDATOR.validate(delta)
        assert delta['schema'] == DELTA_SCHEMA and delta['seq'] == previous['seq'] + 1
        assert same_structure(previous, snapshot)
        assert state.feed(plain(delta))
        assert state.snapshot == plain(snapshot), f'tick {tick}'
        assert apply_delta(plain(previous), plain(delta)) == plain(snapshot)
        assert make_delta(previous, snapshot)['state'] == delta['state']
        SNAPSHOT_VALIDATOR.validate(state.snapshot)
        full_bytes += len(builder.encode(snapshot))
        delta_bytes += len(to_json(delta))
        previous, deltas = snapshot, deltas + 1
    assert deltas > 30
    assert delta_bytes * 3 < full_bytes


def test_writes_are_listed_and_unchanged_nodes_left_out():
    runner, builder, tracker = runner_for(BUSY_TREE, ['n'])
    previous = builder.update()
    runner.tick_once()
    snapshot = builder.update()
    tracker.reset()
    runner.tick_once()
    nxt = builder.update()
    delta = tracker.delta(snapshot, nxt)
    assert 'n' in delta['written']  # changed values only: flag may stay
    assert delta['blackboard'] == {'n': 2}
    assert all(snapshot['state'][ident] != value for ident, value in delta['state'].items())
    assert 'active_path' not in delta or delta['active_path'] != snapshot['active_path']
    assert previous['seq'] + 2 == delta['seq']


def deltas_of(count: int) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    runner, builder, tracker = runner_for(BUSY_TREE, ['n'])
    first = plain(builder.update())
    tracker.reset()
    previous, deltas, snapshots = first, [], []
    while len(deltas) < count:
        runner.tick_once()
        snapshot = builder.update()
        if snapshot is not None:
            deltas.append(plain(tracker.delta(previous, snapshot)))
            snapshots.append(plain(snapshot))
            previous = snapshot
    return first, deltas, snapshots


def test_every_state_passed_is_told_also_those_of_deltas_kept_for_their_snapshot():
    # a recorder that subscribed before the executive existed: the deltas' history comes
    # before the latched keyframe; a timeline made of it has every state, not only the last
    first, deltas, snapshots = deltas_of(6)
    state = SnapshotState()
    for delta in deltas[:5]:
        assert not state.feed(delta) and state.passed == []
    assert state.feed(snapshots[1])
    assert [s['seq'] for s in state.passed] == [s['seq'] for s in snapshots[1:5]]
    assert state.passed == snapshots[1:5] and state.passed[-1] is state.snapshot
    assert state.feed(deltas[5]) and state.passed == [snapshots[5]]
    assert not state.feed(deltas[5]) and state.passed == []
    messages = [('/bt_executive/snapshot_delta', n, json.dumps(d)) for n, d in
                enumerate(deltas[:5])] + [('/bt_executive/snapshot', 9, json.dumps(snapshots[1]))]
    timeline = Timeline(messages)
    assert [f['seq'] for f in timeline.frames] == [s['seq'] for s in snapshots[1:5]]
    assert not timeline.notes, timeline.notes
    view = FoxgloveView()  # the Foxglove companion of such a recording too
    out = [m for topic, _, text in messages for m in view.put(topic, text, 0.0)]
    assert [m.data['tick'] for m in out if m.channel == 'nodes'] == \
        [s['tick']['count'] for s in snapshots[1:5]]


def test_late_joiner_buffers_deltas_that_come_before_the_snapshot():
    first, deltas, snapshots = deltas_of(6)
    state = SnapshotState()
    for delta in deltas[:4]:
        assert not state.feed(delta)
    assert state.snapshot is None
    assert state.feed(snapshots[1])  # a heartbeat of seq 3: deltas 4, 5 follow at once
    assert state.snapshot == snapshots[3] and not state.waiting
    assert not state.feed(deltas[2])  # already applied
    assert state.feed(deltas[4]) and state.snapshot == snapshots[4]
    assert not state.feed(dict(snapshots[4]))  # the same state in full: nothing new
    assert state.feed(dict(snapshots[4], stamp=-1.0))  # a heartbeat: newer stamp


def test_a_gap_waits_for_the_next_snapshot():
    first, deltas, snapshots = deltas_of(8)
    state = SnapshotState()
    state.feed(first)
    state.feed(deltas[0])
    assert not state.feed(deltas[2])  # deltas[1] was lost
    assert state.snapshot == snapshots[0] and 'missed' in state.waiting and state.gaps == 1
    assert not state.feed(deltas[3])
    assert state.feed(snapshots[4])  # the next full snapshot: caught up
    assert state.snapshot == snapshots[4] and not state.waiting
    assert state.feed(deltas[5]) and state.snapshot == snapshots[5]
    older = dict(snapshots[2])
    assert not state.feed(older)  # an older heartbeat never goes back in time
    with pytest.raises(ValueError, match='delta seq 9 does not follow snapshot seq 7'):
        apply_delta(snapshots[5], deltas[7])
    with pytest.raises(ValueError, match='neither a snapshot nor a delta'):
        state.feed({'schema': 'other'})


def test_a_new_revision_needs_its_snapshot():
    first, deltas, snapshots = deltas_of(3)
    state = SnapshotState()
    state.feed(first)
    other = dict(deltas[0], revision=2)
    assert not state.feed(other)
    assert 'revision 2' in state.waiting
    assert state.snapshot == first
    assert state.feed_text(json.dumps(dict(first, revision=2)))
    assert state.snapshot['seq'] == 2 and not state.waiting


def test_viewers_rebuild_from_snapshot_and_deltas():
    from bt_executive.viewers.watch import Received
    from bt_executive.viewers.webview import SnapshotHub

    first, deltas, snapshots = deltas_of(5)
    hub, received = SnapshotHub(), Received('/t')
    for message in [deltas[0], first, *deltas[1:]]:
        assert hub.put_stream(json.dumps(message))
        received.on_message(json.dumps(message))
    assert json.loads(hub.latest()) == snapshots[-1]
    assert received.take() and received.snapshot == snapshots[-1] and not received.note
    assert not hub.put_stream('{"schema": "other"}') and hub.rejected == 1
    received.on_message('[1]')
    assert received.take() and 'unreadable' in received.note


def test_a_heartbeat_refreshes_stamp_and_tick_of_the_current_state():
    first, deltas, snapshots = deltas_of(4)
    state = SnapshotState()
    assert state.feed(first) and state.feed(deltas[0])
    beat = plain(heartbeat_delta(dict(snapshots[0], stamp=99.0,
                                      tick={'count': 40, 'duration_ms': 0.1,
                                            'interval_ms': 100.0})))
    DELTA_VALIDATOR.validate(beat)
    assert beat['heartbeat'] is True and beat['state'] == {} and beat['seq'] == deltas[0]['seq']
    assert state.feed(beat)  # a viewer's "last update" moves: the executive is alive
    assert state.snapshot == dict(snapshots[0], stamp=99.0, tick=beat['tick'])
    assert not state.feed(dict(beat, stamp=1.0))  # older than what is shown
    assert state.feed(deltas[1]) and state.snapshot == snapshots[1]  # the chain goes on
    assert not state.feed(beat)  # a heartbeat of an older seq: nothing
    assert not state.waiting and state.gaps == 0
    assert apply_delta(snapshots[0], beat)['tick']['count'] == 40
    with pytest.raises(ValueError, match='does not match'):
        apply_delta(snapshots[1], beat)


def test_a_heartbeat_after_a_lost_delta_is_a_gap_until_the_next_snapshot():
    first, deltas, snapshots = deltas_of(5)
    state = SnapshotState()
    state.feed(first)
    state.feed(deltas[0])
    # deltas[1] (the last change) is lost; then the tree is quiet: only heartbeats
    beat = plain(heartbeat_delta(snapshots[1]))
    assert not state.feed(beat)
    assert state.snapshot == snapshots[0]  # the last good state, never a guessed one
    assert state.waiting == f'deltas {deltas[1]["seq"]}..{deltas[1]["seq"]} missed: ' \
        'waiting for a snapshot' and state.gaps == 1
    assert not state.feed(beat) and state.gaps == 1  # the same gap, counted once
    assert state.feed(snapshots[1])  # the keyframe: caught up
    assert state.snapshot == snapshots[1] and not state.waiting


def test_a_heartbeat_before_its_snapshot_is_dropped_not_kept():
    first, deltas, snapshots = deltas_of(3)
    state = SnapshotState()
    state.feed(deltas[0])
    assert not state.feed(plain(heartbeat_delta(snapshots[0])))  # same seq as deltas[0]
    assert state.feed(first)  # the delta kept is applied, not replaced by the heartbeat
    assert state.snapshot == snapshots[0]


def test_the_foxglove_bridge_and_the_web_hub_follow_deltas_and_say_when_behind():
    from bt_executive.viewers.webview import SnapshotHub

    first, deltas, snapshots = deltas_of(6)
    hub = SnapshotHub()
    for message in (first, deltas[0], deltas[2]):  # deltas[1] lost
        assert hub.put_stream(json.dumps(message))
    shown = json.loads(hub.latest())
    assert shown['behind'] == f'deltas {deltas[1]["seq"]}..{deltas[1]["seq"]} missed: ' \
        'waiting for a snapshot'
    assert {key: value for key, value in shown.items() if key != 'behind'} == snapshots[0]
    assert hub.put_stream(json.dumps(snapshots[3]))  # the keyframe
    assert json.loads(hub.latest()) == snapshots[3]
    from bt_executive.observe.foxglove import FoxgloveView  # the live bridge's and files'
    view = FoxgloveView()
    logged: list[dict[str, Any]] = []
    said: list[dict[str, Any]] = []

    def put(topic: str, message: dict[str, Any]) -> None:
        for out in view.put(topic, json.dumps(message), 0.0):
            {'nodes': logged, 'transitions': said}.get(out.channel, []).append(out.data)

    put('snapshot', first)
    for delta in deltas[:2]:
        put('snapshot_delta', delta)
    assert [table['root_status'] for table in logged] == \
        [m['root_status'] for m in (first, *snapshots[:2])]
    assert logged[-1]['tick'] == snapshots[1]['tick']['count']
    put('snapshot_delta', deltas[3])  # deltas[2] lost: nothing shown, says why
    assert len(logged) == 3 and 'missed' in view.waiting and not view.errors
    assert [(log['level'], log['message']) for log in said] == \
        [(3, f'behind: {view.waiting}')]
    put('snapshot', snapshots[3])  # the keyframe: caught up
    assert logged[-1]['tick'] == snapshots[3]['tick']['count'] and not view.waiting
    assert said[-1]['level'] == 2 and 'caught up' in said[-1]['message']
