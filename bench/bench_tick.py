# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: the executive's full tick vs a bare py_trees ``root.tick_once()``.

All tick the same 1000-node trees (flat, and bushy: a selector of sequences), measured
side by side in one run. References: the bare ``tick_once()`` (the cost floor), py_trees'
own ``BehaviourTree.tick()``, and that with a ``SnapshotVisitor`` (what py_trees_ros runs
every tick). Ours: ``Executive.tick_once`` (feed, ``TreeRunner.tick_once()`` with the
snapshot observer, ~/status, ~/snapshot, ~/events) with snapshots on, in periodic and in
event mode.

Each round times every contender once, in an order rotated per round, and the ratio is
the median over rounds of the per-round ratio, so drift in machine load cancels out.
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

from bt_executive.core.builder import build  # noqa: E402, I100
from bt_executive.core.loader import Loader  # noqa: E402
from bt_executive.nodes.catalogue import default_registry  # noqa: E402
from common import ros_context, tree_files  # noqa: E402
import py_trees  # noqa: E402

TICKS = 20
ROUNDS = 31


def _bare_root(text: str) -> py_trees.behaviour.Behaviour:
    registry = default_registry()
    document = Loader(registry).load_text(text, name='bench.yaml')
    py_trees.blackboard.Blackboard.set('/x', 1)
    return build(document, registry=registry).root


def _timed(function: Callable[[], None]) -> float:
    start = time.perf_counter()
    for _ in range(TICKS):
        function()
    return (time.perf_counter() - start) / TICKS


def compare(contenders: dict[str, Callable[[], None]], reference: str,
            rounds: int = ROUNDS) -> dict[str, tuple[float, float]]:
    """Time each contender per round; return name -> (median seconds, median ratio)."""
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        order = names[index % len(names):] + names[:index % len(names)]
        for name in order:
            times[name].append(_timed(contenders[name]))
    result = {}
    for name in names:
        ratios = [ours / ref for ours, ref in zip(times[name], times[reference])]
        result[name] = (statistics.median(times[name]), statistics.median(ratios))
    return result


def run(quick: bool = False) -> list[tuple[str, str, str, str]]:
    """Measure per-tick cost; return table rows."""
    from rclpy.parameter import Parameter

    from bt_executive.ros.executive import Executive

    rows = []
    with ros_context() as context, tree_files(1000) as trees:
        for label, text, path in trees:
            executives = {}
            for mode in ('periodic', 'event'):
                executives[mode] = Executive(
                    context=context, node_name=f'bench_{mode}', parameter_overrides=[
                        Parameter('tree_file', value=path),
                        Parameter('tick_mode', value=mode), Parameter('tick_rate', value=0.1),
                        Parameter('heartbeat_period', value=3600.0)])
                executive = executives[mode]
                # snapshots on: the executive's runner hands every record to the model
                assert executive.snapshots in executive.tree.runner.observers
            bare = _bare_root(text)
            tree = py_trees.trees.BehaviourTree(_bare_root(text))
            visited = py_trees.trees.BehaviourTree(_bare_root(text))
            visited.visitors.append(py_trees.visitors.SnapshotVisitor())
            result = compare({
                'bare': bare.tick_once,
                'periodic': executives['periodic'].tick_once,
                'event': executives['event'].tick_once,
                'tree': tree.tick,
                'visitor': visited.tick,
            }, 'bare', rounds=5 if quick else ROUNDS)
            bare_t = result['bare'][0]
            reference = f'bare tick_once {bare_t * 1e6:.0f} us'
            for name, metric in (
                    ('periodic', f'executive tick (snapshots on), 1000-node {label}'),
                    ('event', f'  same, event mode, {label}'),
                    ('tree', f'  py_trees BehaviourTree.tick, {label}'),
                    ('visitor', f'  py_trees tick + SnapshotVisitor, {label}')):
                seconds, ratio = result[name]
                rows.append((metric, f'{seconds * 1e6:.0f} us', reference, f'{ratio:.3f}x'))
            for executive in executives.values():
                executive.destroy_node()
    return rows


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
