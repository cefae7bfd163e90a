# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The state file of persistent blackboard keys: atomic writes, restore rules, bad files."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import types

from bt_executive.core.errors import TreeError
from bt_executive.core.loader import load
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.checkpoint import Checkpointer, encode_state, MAX_STATE_BYTES, \
    read_state, SCHEMA, tree_hash, write_atomically
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def record(tick: int, *writes: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(tick=tick, writes=frozenset(writes))


def test_persistent_section_is_loaded_and_needs_an_initial_value(tmp_path):
    tree = tmp_path / 't.yaml'
    tree.write_text('blackboard: {index: 0, laps: 0}\npersistent: [index, laps]\n'
                    'trees: {Main: {Success: {}}}\n')
    assert list(load(str(tree), default_registry()).persistent) == ['index', 'laps']
    tree.write_text('blackboard: {index: 0}\npersistent: [index, laps, 3]\n'
                    'trees: {Main: {Success: {}}}\n')
    with pytest.raises(TreeError) as caught:
        load(str(tree), default_registry())
    text = str(caught.value)
    assert "t.yaml:2:27: persistent key '3' must be an identifier" in text
    assert "t.yaml:2:21: persistent key 'laps' has no initial value" in text


def test_the_patrol_declares_its_mission_state():
    document = load(str(ROOT / 'config' / 'patrol.yaml'), default_registry())
    assert {'waypoint_index', 'laps', 'battery_low'} <= set(document.persistent)


def test_checkpoint_after_a_write_and_restore(tmp_path):
    path = str(tmp_path / 'state.json')
    storage = {'/index': 3, '/laps': 1, '/other': 'x'}
    clock = [0.0]
    checkpointer = Checkpointer(path, ['index', 'laps'], tree='Main', tree_hash='h',
                                storage=lambda: storage, min_interval=1.0,
                                clock=lambda: clock[0])
    checkpointer.on_tick(record(1))             # a new tree: its first tick writes
    assert checkpointer.writes == 1
    checkpointer.on_tick(record(2, 'other'))    # not persistent: nothing written
    assert checkpointer.writes == 1
    storage['/index'] = 4
    clock[0] = 0.5
    checkpointer.on_tick(record(3, 'index'))    # held back by the interval ...
    assert checkpointer.writes == 1 and checkpointer.due_in() == pytest.approx(0.5)
    clock[0] = 1.0
    checkpointer.on_tick(record(4))             # ... written with the next tick after it
    assert checkpointer.writes == 2 and checkpointer.due_in() is None
    found = read_state(path, tree='Main', tree_hash='h', keys=['index', 'laps'])
    assert found.restored and found.values == {'index': 4, 'laps': 1}
    assert 'resumed tree' in found.message and 'index=4' in found.message
    assert read_state(path, tree='Main', tree_hash='h', keys=['laps']).values == {'laps': 1}


@pytest.mark.parametrize('content, reason', [
    (None, 'none yet'),
    (b'{"schema": "bt_executive/state/1", "tree": "Ma', 'corrupt or truncated'),
    (b'\xff\xfe garbage', 'corrupt or truncated'),
    (b'', 'corrupt or truncated'),
    (b'[1, 2]', 'not a bt_executive state file'),
    (json.dumps({'schema': 'bt_executive/state/0', 'keys': {}}).encode(), "schema 'bt_"),
    (json.dumps({'schema': SCHEMA, 'tree': 'Main', 'tree_hash': 'other',
                 'keys': {'index': 1}}).encode(), 'other contents'),
    (json.dumps({'schema': SCHEMA, 'tree': 'Other', 'tree_hash': 'h',
                 'keys': {'index': 1}}).encode(), "tree 'Other'"),
    (b' ' * (MAX_STATE_BYTES + 1), 'more than'),
])
def test_a_bad_state_file_is_one_line_and_a_fresh_start(tmp_path, content, reason):
    path = tmp_path / 'state.json'
    if content is not None:
        path.write_bytes(content)
    found = read_state(str(path), tree='Main', tree_hash='h', keys=['index'])
    assert not found.restored and found.values == {}
    assert reason in found.message and '\n' not in found.message
    assert found.message.startswith(f'state file {path}: ')


def test_values_that_cannot_persist_are_reported_and_never_written(tmp_path):
    path = str(tmp_path / 'state.json')
    storage = {'/index': 1, '/big': 'x' * 10}
    errors: list[str] = []
    checkpointer = Checkpointer(path, ['index', 'big'], tree='Main', tree_hash='h',
                                storage=lambda: storage, min_interval=0.0,
                                log_error=errors.append)
    checkpointer.on_tick(record(1))
    storage['/big'] = object()
    checkpointer.on_tick(record(2, 'big'))
    checkpointer.on_tick(record(3, 'big'))
    assert len(errors) == 1 and "persistent key 'big': not JSON data" in errors[0]
    storage['/big'] = 'x' * 20000
    checkpointer.on_tick(record(4, 'big'))
    assert "persistent key 'big': 20002 bytes as JSON" in errors[-1]
    found = read_state(path, tree='Main', tree_hash='h', keys=['index', 'big'])
    assert found.values == {'index': 1, 'big': 'x' * 10}   # the last good state stays
    with pytest.raises(ValueError, match='persist small mission state only'):
        encode_state({f'k{i}': 'x' * 8000 for i in range(9)}, tree='t', tree_hash='h',
                     tick=0)


def test_tree_hash_follows_the_files_contents(tmp_path):
    first = tmp_path / 'a.yaml'
    first.write_text('x')
    before = tree_hash('Main', [str(first)])
    assert tree_hash('Main', [str(first)]) == before
    assert tree_hash('Other', [str(first)]) != before
    first.write_text('y')
    assert tree_hash('Main', [str(first)]) != before


KILLED_WRITER = """
import os, sys, time
from bt_executive.observe.checkpoint import encode_state, write_atomically
path, where = sys.argv[1], sys.argv[2]
values = {'index': 2, **{f'pad{i}': 'n' * 8000 for i in range(7)}}
data = encode_state(values, tree='Main', tree_hash='h', tick=9)
if where == 'write':                     # killed half-way through the temporary file
    with open(path + '.tmp', 'wb') as stream:
        stream.write(data[:len(data) // 2])
        stream.flush()
    print('ready', flush=True)
    time.sleep(60)
def stop():                              # killed between the fsync and the rename
    print('ready', flush=True)
    time.sleep(60)
write_atomically(path, data, before_replace=stop)
"""


@pytest.mark.parametrize('where', ['write', 'rename'])
def test_killed_during_a_checkpoint_the_previous_state_stays(tmp_path, where):
    path = str(tmp_path / 'state.json')
    write_atomically(path, encode_state({'index': 1, 'pad': ''}, tree='Main', tree_hash='h',
                                        tick=3))
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    process = subprocess.Popen([sys.executable, '-c', KILLED_WRITER, path, where],
                               stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == 'ready', 'the writer did not start'
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        process.kill()
        process.wait()
    assert os.path.exists(path + '.tmp')                   # the interrupted write
    found = read_state(path, tree='Main', tree_hash='h', keys=['index', 'pad'])
    assert found.restored and found.values == {'index': 1, 'pad': ''}
    write_atomically(path, encode_state({'index': 5}, tree='Main', tree_hash='h', tick=4))
    assert not os.path.exists(path + '.tmp')               # the next write replaces it
    assert read_state(path, tree='Main', tree_hash='h', keys=['index']).values == {'index': 5}


def test_the_background_writer_writes_the_latest_state_and_drains_at_close(tmp_path):
    path = str(tmp_path / 'state.json')
    storage = {'/index': 0}
    checkpointer = Checkpointer(path, ['index'], tree='Main', tree_hash='h',
                                storage=lambda: storage, min_interval=0.0, background=True)
    for tick in range(1, 50):
        storage['/index'] = tick
        checkpointer.on_tick(record(tick, 'index'))
    assert checkpointer.drain(10.0)
    assert read_state(path, tree='Main', tree_hash='h', keys=['index']).values == {'index': 49}
    assert 1 <= checkpointer.writes <= 49          # a newer state replaces a waiting one
    storage['/index'] = 50
    checkpointer.mark()
    checkpointer.close()                           # written before the writer stops
    assert read_state(path, tree='Main', tree_hash='h', keys=['index']).values == {'index': 50}
