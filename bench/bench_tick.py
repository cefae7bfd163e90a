# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: the executive's full tick vs a bare py_trees ``root.tick_once()``.

All tick the same 1000-node trees (flat, and bushy: a selector of sequences), measured
side by side in one run. References: the bare ``tick_once()`` (the cost floor), py_trees'
own ``BehaviourTree.tick()``, and that with a ``SnapshotVisitor`` (what py_trees_ros runs
every tick). Ours: ``Executive.tick_once`` (feed, ``TreeRunner.tick_once()`` with every
observer the executive has: the snapshot model, the Groot2 server, py_trees_ros' stream
where its messages are installed; ~/status, ~/snapshot, ~/events, each with a
subscriber) in periodic and in event mode, and the tick record alone
(``TreeRunner.tick_once()`` without observers). Issue 18's goal: every observer on
<= 1.02x of the bare tick on both trees, and the tick record costs less than py_trees'
snapshot visitor adds to its tick.

Each round times every contender once, in an order rotated per round, and the ratio is
the median over rounds of the per-round ratio, so drift in machine load cancels out.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))

from bt_executive.core.builder import build  # noqa: E402, I100
from bt_executive.core.loader import Loader  # noqa: E402
from bt_executive.nodes.catalogue import default_registry  # noqa: E402
from common import ros_context, tree_files  # noqa: E402
import py_trees  # noqa: E402

TICKS = 20
ROUNDS = 51

#: Issue 18: the executive's tick with every observer on, at most this times a bare tick.
GOAL = 1.02


def _bare_root(text: str) -> py_trees.behaviour.Behaviour:
    registry = default_registry()
    document = Loader(registry).load_text(text, name='bench.yaml')
    py_trees.blackboard.Blackboard.set('/x', 1)
    return build(document, registry=registry).root


def _free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    import socket

    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def _subscribe(node: Any, executive: Any) -> list[Any]:
    """Subscribe ``node`` to the executive's published topics (so each has a reader)."""
    from std_msgs.msg import String

    from bt_executive.ros.subscriptions import qos_profile

    name = executive.get_fully_qualified_name()
    return [node.create_subscription(String, f'{name}/{topic}', lambda message: None,
                                     qos_profile('latched'))
            for topic in ('status', 'snapshot', 'events')]


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

    from bt_executive.observe.runner import TreeRunner

    rows = []
    verdicts = []
    with ros_context() as context, tree_files(1000) as trees:
        reader = rclpy_node(context, 'bench_tick_reader')
        for label, text, path in trees:
            executives = {}
            for mode in ('periodic', 'event'):
                executives[mode] = Executive(
                    context=context, node_name=f'bench_{mode}', parameter_overrides=[
                        Parameter('tree_file', value=path),
                        Parameter('tick_mode', value=mode), Parameter('tick_rate', value=0.1),
                        Parameter('heartbeat_period', value=3600.0),
                        Parameter('groot2_port', value=_free_port())])
                executive = executives[mode]
                # every observer on: the runner hands every record to each of them
                observers = executive.tree.runner.observers
                assert executive.snapshots in observers and executive.groot2 in observers
                _subscribe(reader, executive)
            names = '+'.join(type(observer).__name__.replace('Builder', '').replace(
                'Server', '') for observer in executives['periodic'].tree.runner.observers)
            bare = _bare_root(text)
            record = TreeRunner(build(Loader(default_registry()).load_text(
                text, name='bench.yaml'), registry=default_registry()))
            tree = py_trees.trees.BehaviourTree(_bare_root(text))
            visited = py_trees.trees.BehaviourTree(_bare_root(text))
            visited.visitors.append(py_trees.visitors.SnapshotVisitor())
            result = compare({
                'bare': bare.tick_once,
                'periodic': executives['periodic'].tick_once,
                'event': executives['event'].tick_once,
                'record': record.tick_once,
                'tree': tree.tick,
                'visitor': visited.tick,
            }, 'bare', rounds=5 if quick else ROUNDS)
            bare_t = result['bare'][0]
            reference = f'bare tick_once {bare_t * 1e6:.0f} us'
            for name, metric in (
                    ('periodic', f'executive tick, every observer on ({names}), '
                     f'1000-node {label}'),
                    ('event', f'  same, event mode, {label}'),
                    ('record', f'  tick record alone (TreeRunner, no observer), {label}'),
                    ('tree', f'  py_trees BehaviourTree.tick, {label}'),
                    ('visitor', f'  py_trees tick + SnapshotVisitor, {label}')):
                seconds, ratio = result[name]
                rows.append((metric, f'{seconds * 1e6:.0f} us', reference, f'{ratio:.3f}x'))
            worst = max(result['periodic'][1], result['event'][1])
            verdicts.append((label, worst, result['record'][1] - 1.0,
                             result['visitor'][1] - result['tree'][1]))
            for executive in executives.values():
                executive.destroy_node()
        reader.destroy_node()
    met = all(worst <= GOAL for _, worst, _, _ in verdicts)
    rows.append((f'  goal (issue 18): every observer on <= {GOAL:.2f}x bare, '
                 + ' / '.join(label for label, *_ in verdicts),
                 ' / '.join(f'{worst:.3f}x' for _, worst, _, _ in verdicts),
                 f'goal {GOAL:.2f}x', 'met' if met else 'not met'))
    cheaper = all(record_cost <= snapshot_cost for _, _, record_cost, snapshot_cost in verdicts)
    rows.append(('  goal (issue 18): tick record costs <= what SnapshotVisitor adds, '
                 + ' / '.join(label for label, *_ in verdicts),
                 ' / '.join(f'{record_cost * 100:+.1f} %' for _, _, record_cost, _ in verdicts),
                 ' / '.join(f'{snapshot_cost * 100:+.1f} %' for *_, snapshot_cost in verdicts),
                 'met' if cheaper else 'not met'))
    return rows


def rclpy_node(context: Any, name: str) -> Any:
    """Return a plain rclpy node in ``context``."""
    import rclpy

    return rclpy.create_node(name, context=context)


if __name__ == '__main__':
    for row in run('--quick' in sys.argv):
        print(' | '.join(row))
