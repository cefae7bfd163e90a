# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The snapshot model (bt_executive.observe.snapshot) and the watcher's frames, without ROS."""

from __future__ import annotations

import json
import math
import textwrap
from typing import Any

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.core.table import BuiltTree
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import (EVENTS_SCHEMA, failure_reason, SCHEMA,
                                           SnapshotBuilder, to_json)
from bt_executive.viewers.watch import render_frame, strip_ansi
from helpers import EVENTS_VALIDATOR, SELECTOR_TREE, SNAPSHOT_VALIDATOR
from hypothesis import given, HealthCheck, settings
from hypothesis import strategies as st
import jsonschema
import py_trees
from py_trees.common import Status
import pytest
import yaml


def load(text: str):
    registry = default_registry()
    document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    return document, build(document, registry=registry)


def builder_for(text: str = SELECTOR_TREE,
                **options: Any) -> tuple[TreeRunner, SnapshotBuilder]:
    """Return a runner of the tree in ``text`` and a snapshot model observing it."""
    document, tree = load(text)
    options.setdefault('document', document)
    runner = TreeRunner(tree)
    builder = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='t.yaml',
                              revision=options.pop('revision', 1), **options)
    runner.add_observer(builder)
    return runner, builder


def check_valid(snapshot: dict[str, Any]) -> None:
    SNAPSHOT_VALIDATOR.validate(snapshot)
    ids = [node['id'] for node in snapshot['nodes']]
    assert len(ids) == len(set(ids))
    assert set(snapshot['state']) == set(ids)
    assert snapshot['root'] == ids[0]
    for node in snapshot['nodes']:
        for child in node['children']:
            assert child in snapshot['state']
    assert json.loads(json.dumps(snapshot, allow_nan=False)) == snapshot


def walk_state(builder: SnapshotBuilder) -> dict[str, dict[str, str]]:
    return {builder.tracker.ids[node]: {'status': node.status.name,
                                        'feedback': node.feedback_message}
            for node in builder.root.iterate()}


def test_first_update_describes_the_tree_then_only_changes_count():
    runner, builder = builder_for()
    first = builder.update()
    check_valid(first)
    assert first['schema'] == SCHEMA
    assert (first['seq'], first['revision'], first['tree'], first['source_file']) == \
        (1, 1, 'Main', 't.yaml')
    assert [node['id'] for node in first['nodes']] == [
        'Main/root', 'Main/root/blocked', 'Main/root/work', 'Main/root/work/ok',
        'Main/root/work/busy']
    blocked = first['nodes'][1]
    assert blocked == {'id': 'Main/root/blocked', 'parent': 'Main/root', 'name': 'blocked',
                       'type': 'Condition', 'kind': 'leaf', 'depth': 1, 'loc': 't.yaml:6:9',
                       'params': {'expr': 'x > 5'}, 'children': []}
    assert first['nodes'][0]['children'] == ['Main/root/blocked', 'Main/root/work']
    assert first['root_status'] == 'INVALID'
    assert builder.update() is None

    runner.tick_once()
    second = builder.update()
    check_valid(second)
    assert second['seq'] == 2
    assert second['state']['Main/root/blocked'] == {'status': 'FAILURE',
                                                    'feedback': 'x > 5 is false'}
    assert second['state']['Main/root/work/busy']['status'] == 'RUNNING'
    assert second['active_path'] == ['Main/root', 'Main/root/work', 'Main/root/work/busy']
    assert second['tick']['count'] == 1
    assert second['nodes'] is first['nodes']  # the structure is shared, not rebuilt

    for _ in range(5):
        runner.tick_once()
        assert builder.update() is None  # nothing moved
    assert builder.full()['seq'] == 2  # heartbeats repeat the content and its seq
    assert builder.full()['tick']['count'] == 6


def test_events_report_transitions_with_reasons():
    runner, builder = builder_for()
    runner.tick_once()
    events = builder.events()
    assert {(e['id'], e['from'], e['to']) for e in events} == {
        ('Main/root', 'INVALID', 'RUNNING'), ('Main/root/blocked', 'INVALID', 'FAILURE'),
        ('Main/root/work', 'INVALID', 'RUNNING'), ('Main/root/work/ok', 'INVALID', 'SUCCESS'),
        ('Main/root/work/busy', 'INVALID', 'RUNNING')}
    blocked = next(e for e in events if e['id'] == 'Main/root/blocked')
    assert blocked['reason'] == 'x > 5 is false' and blocked['tick'] == 1
    EVENTS_VALIDATOR.validate(builder.event_batch(events))
    assert builder.events() == []
    # a higher priority wins: the running branch is stopped although it was not ticked
    py_trees.blackboard.Blackboard.set('/x', 10)
    runner.tick_once()
    moved = {(e['id'], e['from'], e['to']) for e in builder.events()}
    assert moved == {
        ('Main/root/blocked', 'FAILURE', 'SUCCESS'), ('Main/root', 'RUNNING', 'SUCCESS'),
        ('Main/root/work', 'RUNNING', 'INVALID'), ('Main/root/work/ok', 'SUCCESS', 'INVALID'),
        ('Main/root/work/busy', 'RUNNING', 'INVALID')}
    snapshot = builder.update()
    assert snapshot['state'] == walk_state(builder)
    assert snapshot['active_path'] == []


def test_feedback_changes_are_changes_without_events():
    runner, builder = builder_for("""
        trees:
          Main:
            Retry three:
              attempts: 3
              Failure nope:
        """)
    builder.update()
    runner.tick_once()
    first = builder.update()['state']['Main/three']
    builder.events()
    runner.tick_once()
    second = builder.update()
    assert second is not None
    second = second['state']['Main/three']
    assert first['status'] == second['status'] == 'RUNNING'
    assert first['feedback'] != second['feedback']
    assert '2' in second['feedback']
    assert [e['id'] for e in builder.events()] == []  # the retry's status did not move


def test_why_chain_and_last_failure():
    runner, builder = builder_for("""
        blackboard: {x: 0}
        trees:
          Main:
            Sequence checks:
              - Success fine
              - Condition too small: x > 1
        """)
    runner.tick_once()
    snapshot = builder.update()
    check_valid(snapshot)
    assert snapshot['root_status'] == 'FAILURE'
    assert snapshot['why'] == [
        {'id': 'Main/checks', 'reason': snapshot['state']['Main/checks']['feedback']},
        {'id': 'Main/checks/too small', 'reason': 'x > 1 is false'}]
    assert snapshot['last_failure']['reason'] == 'Main/checks/too small: x > 1 is false'
    assert snapshot['last_failure']['tick'] == 1
    assert failure_reason(builder.root, ident=runner.tree.nodes.path) == \
        'Main/checks/too small: x > 1 is false'
    assert failure_reason(builder.root) == 'too small: x > 1 is false'  # names by default
    py_trees.blackboard.Blackboard.set('/x', 5)
    runner.tick_once()
    recovered = builder.update()
    assert recovered['why'] == [] and recovered['root_status'] == 'SUCCESS'
    assert recovered['last_failure'] == snapshot['last_failure']  # kept for viewers


def test_external_stop_is_seen_without_a_tick():
    runner, builder = builder_for()
    runner.tick_once()
    builder.events()
    builder.root.stop(Status.INVALID)  # what pause, reset and terminate do
    assert runner.observe().stopped is False  # a record of changes made outside a tick
    snapshot = builder.update()
    assert {state['status'] for state in snapshot['state'].values()} == {'INVALID'}
    assert len(builder.events()) == 5
    # the same through the runner: its record is marked as a stop
    runner.tick_once()
    builder.events()
    record = runner.stop()
    assert record.stopped and len(record.transitions) == 5
    snapshot = builder.update()
    assert {state['status'] for state in snapshot['state'].values()} == {'INVALID'}
    assert len(builder.events()) == 5


def test_blackboard_selection_is_json_safe():
    runner, builder = builder_for(blackboard_keys=['x', 'missing', '', 'obj'])
    builder.update()
    assert builder.update() is None
    storage = py_trees.blackboard.Blackboard.storage
    storage['/obj'] = {'nan': float('nan'), 'inf': [float('-inf')], 'set': {1}}
    assert builder.update() is None  # written outside a tick: seen with the next record
    runner.observe()
    snapshot = builder.update()
    check_valid(snapshot)
    assert snapshot['blackboard'] == {'x': 1, 'obj': {'nan': 'nan', 'inf': ['-inf'],
                                                      'set': '{1}'}}
    assert snapshot['unset'] == {'missing': ''}
    runner.observe()
    assert builder.update() is None  # NaN compares equal once rendered
    storage['/x'] = 2
    runner.observe()
    assert builder.update()['blackboard']['x'] == 2
    del storage['/x']
    runner.observe()
    assert builder.update()['unset'] == {'missing': '', 'x': ''}
    assert '"nan":"nan"' in builder.encode(builder.full())


def test_all_keys_and_lookup_errors_and_render_value():
    def lookup(name: str) -> Any:
        if name == 'stale':
            raise ValueError("blackboard key 'stale' is stale")
        return py_trees.blackboard.Blackboard.storage['/' + name]

    runner, builder = builder_for(blackboard_keys=['*', 'stale'], lookup=lookup,
                                  render_value=lambda value: {'wrapped': value})
    snapshot = builder.update()
    assert snapshot['blackboard'] == {'x': {'wrapped': 1}}
    assert snapshot['unset'] == {'stale': "blackboard key 'stale' is stale"}
    py_trees.blackboard.Blackboard.set('/new', 'hello')
    runner.observe()
    assert builder.update()['blackboard']['new'] == {'wrapped': 'hello'}
    del py_trees.blackboard.Blackboard.storage['/new']
    runner.observe()
    assert 'new' not in builder.update()['blackboard']


def test_executive_section_and_revision_and_session():
    _, builder = builder_for(revision=7, session='abc')
    builder.update()
    builder.set_executive({'running': True})
    assert builder.update()['executive'] == {'running': True}
    builder.set_executive({'running': True})
    assert builder.update() is None  # an equal section is no change
    builder.set_executive({'running': False})
    snapshot = builder.update()
    assert snapshot['executive'] == {'running': False}
    assert (snapshot['revision'], snapshot['session']) == (7, 'abc')
    check_valid(snapshot)


def test_encode_matches_plain_json_and_schema():
    runner, builder = builder_for()
    for index in range(4):
        py_trees.blackboard.Blackboard.set('/x', index * 3)
        runner.tick_once()
        snapshot = builder.update() or builder.full()
        encoded = builder.encode(snapshot)
        assert json.loads(encoded) == json.loads(to_json(snapshot))
        SNAPSHOT_VALIDATOR.validate(json.loads(encoded))
    old = builder.full()
    py_trees.blackboard.Blackboard.set('/x', 0)
    runner.tick_once()
    builder.update()
    # an older snapshot still encodes as itself
    assert json.loads(builder.encode(old)) == json.loads(to_json(old))


def test_plain_py_trees_trees_get_unique_ids():
    root = py_trees.composites.Sequence('top', memory=False, children=[
        py_trees.behaviours.Success('a'), py_trees.behaviours.Success('a'),
        py_trees.decorators.Inverter('not', py_trees.behaviours.Failure('a'))])
    runner = TreeRunner(BuiltTree(root))
    builder = SnapshotBuilder(runner.tracker, tree_name='T', source_file='', revision=0)
    runner.add_observer(builder)
    snapshot = builder.update()
    check_valid(snapshot)
    assert [node['id'] for node in snapshot['nodes']] == [
        'top', 'top/a', 'top/a#2', 'top/not', 'top/not/a']
    assert [node['kind'] for node in snapshot['nodes']] == [
        'composite', 'leaf', 'leaf', 'decorator', 'leaf']
    runner.tick_once()  # the builder only sees what the runner's records say
    assert builder.update()['state'] == walk_state(builder)
    root.stop(Status.INVALID)  # stopped behind the runner's back: observe() catches up
    runner.observe()
    assert builder.update()['state'] == walk_state(builder)


def test_the_schema_rejects_what_it_should():
    _, builder = builder_for()
    snapshot = builder.update()
    broken = dict(snapshot, schema='bt_executive/snapshot/2')
    with pytest.raises(jsonschema.ValidationError):
        SNAPSHOT_VALIDATOR.validate(broken)
    broken = dict(snapshot, state={'Main/root': {'status': 'DONE', 'feedback': ''}})
    with pytest.raises(jsonschema.ValidationError):
        SNAPSHOT_VALIDATOR.validate(broken)
    jsonschema.Draft202012Validator.check_schema(SNAPSHOT_VALIDATOR.schema)
    assert EVENTS_SCHEMA in json.dumps(SNAPSHOT_VALIDATOR.schema)


##############################################################################
# Random trees: the observer agrees with a full walk after every operation
##############################################################################

KEYS = ('a', 'b', 'c')
LEAVES = st.one_of(
    st.sampled_from([{'type': 'Success'}, {'type': 'Failure'}, {'type': 'Running'}]),
    st.builds(lambda key, negate: {'type': 'Condition',
                                   'params': {'expr': f'not {key}' if negate else key}},
              st.sampled_from(KEYS), st.booleans()),
    st.builds(lambda n, then: {'type': 'TickCounter', 'params': {'ticks': n, 'then': then}},
              st.integers(0, 3), st.sampled_from(['success', 'failure'])),
    st.builds(lambda n: {'type': 'SuccessEveryN', 'params': {'n': n}}, st.integers(1, 3)),
    st.builds(lambda n: {'type': 'Periodic', 'params': {'n': n}}, st.integers(1, 2)),
)
DECORATORS = st.one_of(
    st.sampled_from([{'type': name} for name in (
        'Inverter', 'ForceSuccess', 'RunningIsFailure', 'FailureIsRunning', 'PassThrough',
        'OneShot', 'SuccessIsRunning')]),
    st.builds(lambda n: {'type': 'Retry', 'params': {'attempts': n}}, st.integers(1, 3)),
    st.builds(lambda n: {'type': 'Repeat', 'params': {'times': n}}, st.integers(1, 3)),
    st.builds(lambda n: {'type': 'Limit', 'params': {'max_runs': n}}, st.integers(1, 3)),
    st.builds(lambda n: {'type': 'UntilSuccess', 'params': {'max_attempts': n}},
              st.integers(1, 3)),
)
COMPOSITES = st.one_of(
    st.builds(lambda memory: {'type': 'Sequence', 'params': {'memory': memory}}, st.booleans()),
    st.builds(lambda memory: {'type': 'Selector', 'params': {'memory': memory}}, st.booleans()),
    st.sampled_from([{'type': name} for name in (
        'ReactiveSequence', 'ActiveSelector', 'Race', 'Marathon')]),
    st.builds(lambda success, sync: {'type': 'Parallel',
                                     'params': {'success': success, 'synchronise': sync}},
              st.sampled_from(['one', 'all']), st.booleans()),
)


def _with_children(head: dict[str, Any], children: list[dict[str, Any]]) -> dict[str, Any]:
    node = dict(head)
    if head['type'] in ('Inverter', 'ForceSuccess', 'RunningIsFailure', 'FailureIsRunning',
                        'PassThrough', 'OneShot', 'SuccessIsRunning', 'Retry', 'Repeat',
                        'Limit', 'UntilSuccess'):
        node['child'] = children[0]
    else:
        node['children'] = children
    return node


NODES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.builds(lambda head, child: _with_children(head, [child]), DECORATORS, inner),
        st.builds(_with_children, COMPOSITES, st.lists(inner, min_size=1, max_size=4))),
    max_leaves=14)
OPERATIONS = st.lists(st.one_of(
    st.just(('tick',)), st.just(('tick',)), st.just(('tick',)),
    st.tuples(st.just('set'), st.sampled_from(KEYS), st.booleans()),
    st.tuples(st.just('stop'), st.booleans()), st.just(('update',)), st.just(('events',)),
    st.just(('full',))),
    min_size=10, max_size=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=NODES, operations=OPERATIONS)
def test_the_observer_agrees_with_a_full_walk(tree, operations):
    text = yaml.safe_dump({'blackboard': dict.fromkeys(KEYS, True),
                           'trees': {'Main': {'root': tree}}})
    runner, builder = builder_for(text, blackboard_keys=list(KEYS))
    statuses = {ident: state['status'] for ident, state in builder.update()['state'].items()}
    storage = py_trees.blackboard.Blackboard.storage
    for operation in operations + [('update',), ('events',)]:
        if operation[0] == 'tick':
            runner.tick_once()
        elif operation[0] == 'set':
            storage['/' + operation[1]] = operation[2]
            runner.observe()  # a write outside a tick, as the blackboard feed's
        elif operation[0] == 'stop':
            if operation[1]:
                runner.stop()
            else:  # stopped directly, then observed
                builder.root.stop(Status.INVALID)
                runner.observe()
        elif operation[0] in ('update', 'full'):
            snapshot = builder.update() if operation[0] == 'update' else builder.full()
            if snapshot is not None:
                assert snapshot['state'] == walk_state(builder)
                assert snapshot['blackboard'] == {key: storage['/' + key] for key in KEYS}
                check_valid(snapshot)
                assert json.loads(builder.encode(snapshot)) == snapshot
            assert builder.node_states() == walk_state(builder)
        else:
            for event in builder.events():
                assert statuses[event['id']] == event['from'] != event['to']
                statuses[event['id']] = event['to']
            assert statuses == {ident: state['status']
                                for ident, state in walk_state(builder).items()}


##############################################################################
# The watcher's frames
##############################################################################


def frame_snapshot() -> dict[str, Any]:
    runner, builder = builder_for(blackboard_keys=['x', 'missing'])
    builder.set_executive({'node': '/bt_executive', 'running': True, 'heartbeat': 1.0})
    runner.tick_once()
    return builder.update()


def test_frame_shows_statuses_reasons_blackboard_and_stats():
    snapshot = frame_snapshot()
    text = render_frame(snapshot, color=False, width=100, height=40, now=snapshot['stamp'],
                        received=snapshot['stamp'], topic='/bt_executive/snapshot')
    assert '\x1b' not in text
    lines = text.splitlines()
    assert any('Main' in line and 't.yaml' in line and 'rev 1' in line for line in lines)
    assert '\u25b6 Selector "root"' in text
    assert '\u2718 Condition "blocked" \u2014 x > 5 is false' in text
    assert '\u2714 Success "ok"' in text
    assert '\u25b6 Running "busy"' in text
    assert 'x = 1' in text and 'missing (unset)' in text
    assert 'ticks 1' in text
    assert all(len(line) <= 100 for line in lines)


def test_frame_colours_and_highlights_the_active_path():
    snapshot = frame_snapshot()
    text = render_frame(snapshot, color=True, width=100, height=40)
    assert '\x1b[' in text
    busy = next(line for line in text.splitlines() if 'busy' in line)
    assert '\x1b[1' in busy  # bold: on the active path
    assert strip_ansi(text) == render_frame(snapshot, color=False, width=100, height=40)


def test_frame_fits_small_terminals_and_ascii():
    runner, builder = builder_for(yaml.safe_dump({'trees': {'Main': {
        'type': 'Sequence', 'children': [{'type': 'Running'}] + [{'type': 'Success'}] * 40}}}))
    runner.tick_once()
    text = render_frame(builder.update(), color=False, width=30, height=12, ascii_only=True)
    lines = text.splitlines()
    assert len(lines) <= 12 and all(len(line) <= 30 for line in lines)
    assert '> Running' in text and 'more' in text
    assert all(ord(char) < 128 for char in text)


def test_waiting_and_stale_frames():
    waiting = render_frame(None, color=False, width=80, height=10, now=5.0, started=2.0,
                           topic='/ns/bt_executive/snapshot')
    assert 'waiting for /ns/bt_executive/snapshot' in waiting and '3 s' in waiting
    snapshot = frame_snapshot()
    stale = render_frame(snapshot, color=False, width=80, height=40, now=100.0, received=90.0)
    assert 'no update for 10 s' in stale


def test_to_json_is_strict():
    assert to_json({'a': [1, 'b']}) == '{"a":[1,"b"]}'
    with pytest.raises(ValueError):
        to_json({'bad': math.nan})


@pytest.mark.parametrize('info, state', [
    ({'tree': 'Main', 'running': True, 'paused': False, 'terminated': None}, 'running'),
    ({'tree': 'Main', 'running': False, 'paused': True, 'terminated': None}, 'paused'),
    ({'tree': 'Main', 'running': False, 'paused': False, 'terminated': 'Main/stop: done'},
     'terminated'),
    ({'tree': 'Main', 'running': False, 'paused': False, 'terminated': None}, 'stopped'),
    ({'tree': None, 'running': False, 'paused': False, 'terminated': None}, 'idle'),
    ({'running': False, 'paused': True}, 'paused'),  # a snapshot's executive block
])
def test_the_executive_state_is_what_an_operator_reads(info, state):
    from bt_executive.observe.snapshot import executive_state, EXECUTIVE_STATES

    assert executive_state(info) == state and state in EXECUTIVE_STATES
