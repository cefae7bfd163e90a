# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Persistent blackboard keys in the executive: checkpointed after ticks, resumed at start.

In-process executives on their own contexts, ticked by hand; the second executive of a
test is the "restarted" one (the first is closed the way a crash leaves it: its state
file is what is on disk, nothing is flushed).
"""

import json
import pathlib

from executive_host import Host, write_tree
import py_trees
import pytest

pytestmark = pytest.mark.ros

COUNTER = """
    blackboard: {count: 0, scratch: 0, label: start}
    persistent: [count]
    trees:
      Main:
        Sequence:
          memory: false
          children:
            - SetBlackboard: {key: count, value: '${count + 1}'}
            - SetBlackboard: {key: scratch, value: '${scratch + 1}'}
            - Running
    """


def saved(ex: Host, path: pathlib.Path) -> dict:
    """Return the state file once the executive's checkpoint writer wrote what it had."""
    assert ex.executive.core.checkpointer.drain(), 'the checkpoint writer is stuck'
    return json.loads(path.read_text())


def storage(key: str):
    return py_trees.blackboard.Blackboard.storage.get('/' + key)


def run(tree: str, ticks: int, **parameters) -> Host:
    ex = Host(tree, manual=True, checkpoint_interval=0.0, **parameters)
    for _ in range(ticks):
        ex.executive.tick_once()
    return ex


def crash(ex: Host) -> None:
    """Drop the executive without the flush its destroy_node() would do."""
    ex.executive.core.checkpointer.drain()  # what it had handed to its writer thread
    ex.executive.core.checkpointer = None
    ex.close()


def test_a_restarted_executive_resumes_the_persistent_keys(tmp_path, caplog):
    tree = write_tree(tmp_path, 't.yaml', COUNTER)
    state = tmp_path / 'state.json'
    first = run(tree, 3, state_file=str(state))
    data = saved(first, state)
    assert data['keys'] == {'count': 3} and data['tree'] == 'Main'
    crash(first)
    second = run(tree, 0, state_file=str(state))
    assert storage('count') == 3 and storage('scratch') == 0   # only persistent keys
    second.executive.tick_once()
    assert storage('count') == 4
    crash(second)
    # the executive parameter adds keys; resume:=false starts fresh
    third = run(tree, 1, state_file=str(state), persistent_keys=['scratch'])
    assert storage('count') == 5 and storage('scratch') == 1
    crash(third)
    fresh = run(tree, 1, state_file=str(state), resume=False)
    assert storage('count') == 1
    assert saved(fresh, state)['keys'] == {'count': 1}
    crash(fresh)


def test_another_tree_or_an_edited_one_starts_fresh(tmp_path):
    tree = write_tree(tmp_path, 't.yaml', COUNTER)
    state = tmp_path / 'state.json'
    crash(run(tree, 2, state_file=str(state)))
    pathlib.Path(tree).write_text(pathlib.Path(tree).read_text() + '# edited\n')
    ex = run(tree, 0, state_file=str(state))
    assert storage('count') == 0
    crash(ex)


def test_a_corrupt_state_file_is_reported_and_overwritten(tmp_path):
    tree = write_tree(tmp_path, 't.yaml', COUNTER)
    state = tmp_path / 'state.json'
    state.write_text('{"schema": "bt_executive/state/1", "keys": {"cou')
    ex = run(tree, 1, state_file=str(state))
    assert storage('count') == 1
    assert saved(ex, state)['keys'] == {'count': 1}
    crash(ex)


def test_reset_writes_the_initial_values_and_a_swap_makes_the_file_its_own(tmp_path):
    tree = write_tree(tmp_path, 't.yaml', COUNTER)
    other = write_tree(tmp_path, 'o.yaml', COUNTER.replace('Main', 'Other'))
    state = tmp_path / 'state.json'
    ex = run(tree, 3, state_file=str(state))
    ex.executive.reset()
    assert saved(ex, state)['keys'] == {'count': 3}   # until the next tick
    ex.executive.tick_once()
    assert saved(ex, state)['keys'] == {'count': 1}
    assert ex.set_tree(tree_file=other).successful
    ex.executive.tick_once()
    assert saved(ex, state)['tree'] == 'Other'
    ex.close()


def test_a_write_held_back_by_the_interval_is_flushed_at_stop(tmp_path):
    tree = write_tree(tmp_path, 't.yaml', COUNTER)
    state = tmp_path / 'state.json'
    ex = Host(tree, manual=True, checkpoint_interval=60.0, state_file=str(state))
    for _ in range(3):
        ex.executive.tick_once()
    assert saved(ex, state)['keys'] == {'count': 1}
    ex.close()
    assert json.loads(state.read_text())['keys'] == {'count': 3}
