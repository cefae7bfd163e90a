# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: the snapshot observer's cost per tick, as ratios to a bare ``tick_once()``.

Every row ticks the same 1000-node tree both ways, side by side in one run:

* reference: ``root.tick_once()`` (plus the same blackboard writes where the tree toggles)
* ours: ``TreeRunner.tick_once()`` with a ``SnapshotBuilder`` observer, then ``update()``,
  and when something changed also ``events()`` and ``encode()`` (the JSON the executive
  publishes)

The last rows tick the executive (``Executive.tick_once``: feed, the runner's tick and
its observers, ~/status, ~/snapshot, ~/events) with snapshots on against the same tick
with them off (the snapshot observer detached, nothing published).

Workloads: ``unchanged`` (every node ticked, no status moves: the steady state),
``few change`` (a condition flips each tick: three nodes move), ``all change`` (every
node moves each tick), ``sparse`` (a 1000-node tree of which two nodes are ticked), and
for comparison the rejected design of comparing every node after each tick.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))

from bt_executive.core.builder import apply_blackboard_defaults, build  # noqa: E402, I100
from bt_executive.core.loader import Loader  # noqa: E402
from bt_executive.core.table import BuiltTree  # noqa: E402
from bt_executive.nodes.catalogue import default_registry  # noqa: E402
from bt_executive.observe.runner import TreeRunner  # noqa: E402
from bt_executive.observe.snapshot import SnapshotBuilder  # noqa: E402
from common import bushy_tree_yaml, flat_tree_yaml, ros_context, tree_files  # noqa: E402
import py_trees  # noqa: E402

TICKS = 40
ROUNDS = 5


def conditions_tree_yaml(nodes: int) -> str:
    """Return a ReactiveSequence of conditions on ``x``: flipping ``x`` moves every node."""
    lines = ['blackboard: {x: 1}', 'trees:', '  Main:', '    ReactiveSequence:']
    lines += ['      - Condition: x > 0' for _ in range(nodes - 1)]
    return '\n'.join(lines) + '\n'


def sparse_tree_yaml(nodes: int) -> str:
    """Return a Sequence whose first child runs forever: 2 of ``nodes`` nodes are ticked."""
    lines = ['trees:', '  Main:', '    Sequence:', '      - Running']
    lines += ['      - Success' for _ in range(nodes - 2)]
    return '\n'.join(lines) + '\n'


def _tree(text: str) -> BuiltTree:
    registry = default_registry()
    document = Loader(registry).load_text(text, name='bench.yaml')
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    return build(document, registry=registry)


def _set_x(index: int) -> None:
    py_trees.blackboard.Blackboard.storage['/x'] = 1 if index % 2 else -1


def _bare(root: py_trees.behaviour.Behaviour) -> Callable[[], None]:
    return root.tick_once


def _observed(tree: BuiltTree) -> Callable[[], None]:
    """Tick through a runner whose snapshot observer publishes what changed."""
    runner = TreeRunner(tree)
    builder = SnapshotBuilder(runner.tracker, tree_name='Main', source_file='bench.yaml',
                              revision=1, blackboard_keys=['x'])
    runner.add_observer(builder)
    builder.encode(builder.full())  # the structure is serialised once per revision

    def tick() -> None:
        runner.tick_once()
        snapshot = builder.update()
        if snapshot is not None:
            builder.events()
            builder.encode(snapshot)
    return tick


def _walk_all(tree: BuiltTree) -> Callable[[], None]:
    """Tick, then compare every node's status and feedback (the rejected design)."""
    root = tree.root
    nodes = list(root.iterate())
    record = {node: (node.status, node.feedback_message) for node in nodes}

    def tick() -> None:
        root.tick_once()
        for node in nodes:
            old, feedback = record[node]
            if node.status is not old or node.feedback_message != feedback:
                record[node] = (node.status, node.feedback_message)
    return tick


def _paired(ours: Callable[[], None], bare: Callable[[], None], *,
            toggles: bool) -> tuple[float, float]:
    """Return the seconds per tick of (ours, bare), ticked alternately step by step.

    ABBA order, so drifts in machine load hit both alike; where the tree toggles, both
    ticks of one step see the same blackboard. Per step the difference of the two times is
    taken; the result is bare's median plus the median difference, which keeps other
    processes' time slices (spikes in single ticks) out of the ratio.
    """
    perf = time.perf_counter
    bare_times, differences = [], []
    for _ in range(ROUNDS):
        for index in range(TICKS):
            if toggles:
                _set_x(index)
            times = [0.0, 0.0]
            pair = ((0, bare), (1, ours)) if index % 2 else ((1, ours), (0, bare))
            for slot, tick in pair:
                start = perf()
                tick()
                times[slot] = perf() - start
            bare_times.append(times[0])
            differences.append(times[1] - times[0])
    bare_t = statistics.median(bare_times)
    return bare_t + statistics.median(differences), bare_t


def _compare(text: str, toggles: bool, rival: Callable = _observed) -> tuple[float, float]:
    """Return the seconds per tick of (rival, bare) ticking one tree (see :func:`_paired`).

    Both tick the same tree, so memory layout is the same for both. The observer still
    sees every change: what a bare tick moved is compared at the runner's next tick.
    """
    tree = _tree(text)
    return _paired(rival(tree), _bare(tree.root), toggles=toggles)


def _executive_rows() -> list[tuple[str, str, str, str]]:
    """Time ``Executive.tick_once`` with snapshots on against the same tick with them off."""
    from rclpy.parameter import Parameter

    from bt_executive.ros.executive import Executive

    rows = []
    with ros_context() as context, tree_files(1000) as trees:
        for label, _, path in trees:
            executive = Executive(context=context, parameter_overrides=[
                Parameter('tree_file', value=path), Parameter('tick_rate', value=0.1),
                Parameter('snapshot_keys', value=['x'])])
            runner = executive.tree.runner
            observers = list(runner.observers)
            assert executive.snapshots in observers  # snapshots on: the model observes

            def snapshots_off() -> None:
                executive.core.publish_snapshot = lambda: None
                runner.observers = [observer for observer in observers
                                    if observer is not executive.snapshots]
                try:
                    executive.tick_once()
                finally:
                    del executive.core.publish_snapshot
                    runner.observers = observers

            ours, bare = _paired(executive.tick_once, snapshots_off, toggles=False)
            rows.append((f'executive tick, snapshots on, 1000-node {label}',
                         f'{ours * 1e6:.0f} us', f'snapshots off {bare * 1e6:.0f} us',
                         f'{ours / bare:.3f}x'))
            executive.destroy_node()
    return rows


def run() -> list[tuple[str, str, str, str]]:
    """Measure the observer; return table rows."""
    cases = [
        ('snapshot, unchanged, 1000-node flat', flat_tree_yaml(1000), False, _observed),
        ('snapshot, unchanged, 1000-node bushy', bushy_tree_yaml(1000), False, _observed),
        ('snapshot, few change, 1000-node bushy', bushy_tree_yaml(1000), True, _observed),
        ('snapshot, all change, 1000 conditions', conditions_tree_yaml(1000), True,
         _observed),
        ('snapshot, sparse (2 ticked), 1000 nodes', sparse_tree_yaml(1000), False,
         _observed),
        ('  rejected design (compare all), sparse', sparse_tree_yaml(1000), False,
         _walk_all),
    ]
    rows = []
    for label, text, toggles, rival in cases:
        ours, bare = _compare(text, toggles, rival)
        rows.append((label, f'{ours * 1e6:.1f} us', f'bare tick_once {bare * 1e6:.1f} us',
                     f'{ours / bare:.3f}x'))
    try:
        rows.extend(_executive_rows())
    except ImportError as error:
        print(f'bench_snapshot: executive rows skipped ({error})', file=sys.stderr)
    return rows


if __name__ == '__main__':
    for row in run():
        print(' | '.join(row))
