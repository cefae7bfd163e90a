"""Benchmark: the executive's full tick vs a bare py_trees ``root.tick_once()``.

Both tick the same 1000-node trees (flat and bushy), measured side by side in one run;
py_trees' own ``BehaviourTree.tick()`` is shown as a second reference.
"""

from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))

from bt_executive.builder import build  # noqa: E402, I100
from bt_executive.loader import Loader  # noqa: E402
from bt_executive.nodes import default_registry  # noqa: E402
from common import best_of, bushy_tree_yaml, flat_tree_yaml  # noqa: E402
import py_trees  # noqa: E402

TICKS = 200


def _bare_root(text: str) -> py_trees.behaviour.Behaviour:
    document = Loader(default_registry()).load_text(text, name='bench.yaml')
    py_trees.blackboard.Blackboard.set('/x', 1)
    return build(document)


def run() -> list[tuple[str, str, str, str]]:
    """Measure per-tick cost; return table rows."""
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter

    from bt_executive.ros.executive import Executive

    rows = []
    context = Context()
    rclpy.init(context=context)
    try:
        for label, text in (('flat', flat_tree_yaml(1000)), ('bushy', bushy_tree_yaml(1000))):
            with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as stream:
                stream.write(text)
            executive = Executive(context=context, parameter_overrides=[
                Parameter('tree_file', value=stream.name), Parameter('tick_rate', value=0.1)])
            bare = _bare_root(text)
            tree = py_trees.trees.BehaviourTree(_bare_root(text))

            def bare_ticks() -> None:
                for _ in range(TICKS):
                    bare.tick_once()

            def executive_ticks() -> None:
                for _ in range(TICKS):
                    executive._tick()

            def tree_ticks() -> None:
                for _ in range(TICKS):
                    tree.tick()

            # interleave the rounds so drift in machine load hits all three alike
            bare_s, exec_s, tree_s = [], [], []
            for _ in range(5):
                bare_s.append(best_of(bare_ticks, repeat=1))
                exec_s.append(best_of(executive_ticks, repeat=1))
                tree_s.append(best_of(tree_ticks, repeat=1))
            bare_t, exec_t, tree_t = (sorted(s)[len(s) // 2] / TICKS
                                      for s in (bare_s, exec_s, tree_s))
            rows.append((f'executive tick, 1000-node {label}', f'{exec_t * 1e6:.0f} us',
                         f'bare tick_once {bare_t * 1e6:.0f} us', f'{exec_t / bare_t:.3f}x'))
            rows.append((f'  py_trees BehaviourTree.tick, {label}', f'{tree_t * 1e6:.0f} us',
                         f'bare tick_once {bare_t * 1e6:.0f} us', f'{tree_t / bare_t:.3f}x'))
            executive.destroy_node()
            os.unlink(stream.name)
    finally:
        context.try_shutdown()
    return rows


if __name__ == '__main__':
    for row in run():
        print(' | '.join(row))
