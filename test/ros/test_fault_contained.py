# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Nodes of our own catalogue run unguarded; the first exception guards them on the spot.

bt_executive and py_trees node types are not wrapped at build time (a guard costs about a
fifth of a tick). When one of them raises anyway, the executive guards that node
(``contain_fault``) and runs the tick again, in which it fails; later exceptions are
contained in place. Plugin types (test_fault_exceptions.py) are guarded from the start.
"""

import dataclasses

from bt_executive.core.builder import build, BuildContext
from bt_executive.core.faults import contain_fault
from bt_executive.core.loader import Loader
from executive_host import write_tree
from fault_nodes import core_registry, fault_registry, FAULT_TYPES
import py_trees
from py_trees.common import Status
import pytest


def trusted_registry(registry=None):
    """Return the fault node types as if they were part of bt_executive (unguarded)."""
    registry = registry or fault_registry()
    for node_type in FAULT_TYPES:
        registry.register(dataclasses.replace(node_type, source='bt_executive.test'),
                          replace=True)
    return registry


TREE = """
    blackboard: {count: 0}
    trees:
      Main:
        Selector root:
          - Sequence mission:
              - SetBlackboard count: {key: count, value: '${count + 1}'}
              - Raise broken: {message: 'bad value'}
          - Running fallback
    """


def test_trusted_nodes_are_not_wrapped_at_build_time(tmp_path):
    registry = trusted_registry(core_registry())
    document = Loader(registry).load(write_tree(tmp_path, 't.yaml', TREE))
    built = build(document, context=BuildContext(registry=registry, document=document))
    root = built.root
    assert all(built.nodes.guard(b) is None for b in root.iterate())
    assert all(built.nodes.info(b) is not None for b in root.iterate())
    assert all('tick' not in vars(b) for b in root.iterate())  # class methods, unwrapped


def test_a_trusted_node_that_raises_is_guarded_and_fails(tmp_path):
    logged = []
    registry = trusted_registry(core_registry())
    document = Loader(registry).load(write_tree(tmp_path, 't.yaml', TREE))
    py_trees.blackboard.Blackboard.clear()
    py_trees.blackboard.Blackboard.set('/count', 0)
    built = build(document, context=BuildContext(registry=registry, document=document,
                                                 log_error=logged.append))
    root = built.root
    broken = next(b for b in root.iterate() if b.name == 'broken')
    with pytest.raises(RuntimeError) as raised:
        root.tick_once()
    assert contain_fault(raised.value, built)
    assert built.nodes.guard(broken).faults == 1 and len(logged) == 1
    assert logged[0].startswith('Main/root/mission/broken: update() raised RuntimeError')
    root.tick_once()  # the tick run again: the node fails without raising
    assert broken.status is Status.FAILURE
    assert root.status is Status.RUNNING  # the selector went on to its fallback
    for _ in range(3):
        root.tick_once()  # contained in place from now on
    assert built.nodes.guard(broken).faults == 4 and len(logged) == 1
    # the first tick ran twice up to the node, once: the counter shows it
    assert py_trees.blackboard.Blackboard.get('/count') == 5
    assert not contain_fault(RuntimeError('elsewhere'), built)


@pytest.mark.ros
def test_the_executive_contains_a_trusted_node_and_keeps_ticking(host, tmp_path):
    ex = host(write_tree(tmp_path, 't.yaml', TREE), tick_rate=100.0,
              registry=trusted_registry())
    ex.spin_until(lambda: ex.executive.tick_count >= 10, '10 ticks')
    assert ex.executive.last_status is Status.RUNNING
    state = ex.executive.snapshots.full()['state']['Main/root/mission/broken']
    assert state['status'] == 'FAILURE'
    assert state['feedback'].startswith('update() raised RuntimeError: bad value')
