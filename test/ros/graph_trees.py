# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Trees of every shape for the graph view's tests, as the snapshots the page is fed.

``patrol()`` and ``big()`` are real: the repository's patrol and a 500-node tree, built
and ticked offline (the real loader, builder and snapshot model; no ROS). The other
shapes are made up directly as snapshots (the page reads only the snapshot), so any
shape can be had at once: a deep chain, a flat row of hundreds of leaves, random trees.
"""

from __future__ import annotations

import json
import pathlib
import random
from typing import Any, Optional

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SCHEMA, SnapshotBuilder
import py_trees

ROOT = pathlib.Path(__file__).resolve().parents[2]
AREAS = 25
WORDS = ('check', 'battery', 'dock', 'go to waypoint', 'wait', 'retry navigation', 'undock',
         'lights', 'report status to the operator', 'arm', 'scan', 'is the door open?',
         'pick', 'place object on the conveyor', 'charge', 'x')
TYPES = {'composite': ('Sequence', 'Selector', 'Parallel', 'ReactiveSequence'),
         'decorator': ('Retry', 'Inverter', 'Timeout'),
         'leaf': ('Condition', 'Action', 'SetBlackboard', 'TopicAction', 'Wait')}


def big_tree() -> str:
    """Return a tree file of about 500 nodes: an alarm branch, 25 areas, a running leaf."""
    lines = ['blackboard: {x: 0, go: false}', 'trees:', '  Main:', '    Selector root:',
             '      - Sequence alarm:',
             '          - Condition alarm raised: go',
             '          - Sequence handle alarm:',
             '              - Success stop motors:',
             '              - Sequence notify:',
             '                  - Success beep:',
             '                  - Success flash lights:',
             '              - Running hold position:']
    for i in range(1, AREAS + 1):
        lines += [f'      - Selector area {i}:',
                  f'          - Sequence visit {i}:',
                  f'              - Condition reached {i}: x > {i}',
                  f'              - Sequence dock {i}:',
                  *[f'                  - Success {step} {i}:'
                    for step in ('undock', 'drive out', 'drive back', 'wait')],
                  f'          - Sequence fallback {i}:',
                  f'              - Condition never {i}: x > 100',
                  f'              - Sequence report {i}:',
                  *[f'                  - Success report {i} part {part}:'
                    for part in range(1, 10)]]
    lines.append('      - Running wait for work:')
    return '\n'.join(lines) + '\n'


class OfflineTree:
    """A tree file ticked offline; :meth:`tick` gives the JSON snapshot the executive sends."""

    def __init__(self, text: Optional[str] = None, *, name: str = 'big.yaml',
                 tree: str = 'Main', keys: tuple[str, ...] = ('x', 'go')) -> None:
        registry = default_registry()
        document = Loader(registry).load_text(text or big_tree(), name=name)
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(document)
        self.runner = TreeRunner(build(document, registry=registry))
        self.builder = SnapshotBuilder(self.runner.tracker, tree_name=tree,
                                       source_file=name, revision=1,
                                       blackboard_keys=list(keys), document=document)
        self.runner.add_observer(self.builder)

    def tick(self, **blackboard: Any) -> str:
        for key, value in blackboard.items():
            py_trees.blackboard.Blackboard.set(f'/{key}', value)
        self.runner.tick_once()
        self.builder.update()
        return self.builder.encode(self.builder.full())


def big() -> str:
    """Return a snapshot of the 500-node tree after its first tick."""
    return OfflineTree().tick()


def patrol(leaf_suffix: str = 'go to dock/Navigate/drive') -> str:
    """Return a snapshot of the repository's patrol, running towards the dock.

    The tree is the real one (config/patrol.yaml, built offline: its ROS leaves are not
    set up, so it is not ticked); the statuses say the branch to ``leaf_suffix`` runs.
    """
    registry = default_registry()
    document = Loader(registry).load(str(ROOT / 'config' / 'patrol.yaml'))
    py_trees.blackboard.Blackboard.storage.clear()
    apply_blackboard_defaults(document)
    runner = TreeRunner(build(document, registry=registry))
    builder = SnapshotBuilder(runner.tracker, tree_name='Patrol',
                              source_file='config/patrol.yaml', revision=1,
                              blackboard_keys=[], document=document)
    runner.add_observer(builder)
    builder.update()
    snapshot = json.loads(builder.encode(builder.full()))
    by_id = {node['id']: node for node in snapshot['nodes']}
    leaf = next(ident for ident in by_id if ident.endswith(leaf_suffix))
    return with_active_path(snapshot, leaf)


def with_active_path(snapshot: dict[str, Any], leaf: str) -> str:
    """Return the snapshot (JSON) with the path from the root to ``leaf`` RUNNING."""
    by_id = {node['id']: node for node in snapshot['nodes']}
    path = []
    ident: Optional[str] = leaf
    while ident:
        path.insert(0, ident)
        ident = by_id[ident]['parent']
    for ident in path:
        snapshot['state'][ident] = {'status': 'RUNNING', 'feedback': ''}
    snapshot['active_path'] = path
    snapshot['root_status'] = 'RUNNING'
    snapshot['seq'] = snapshot.get('seq', 0) + 1
    return json.dumps(snapshot)


def synthetic(parents: list[int], *, tree: str = 'Shape', seed: int = 0,
              running: Optional[int] = None, revision: int = 1) -> str:
    """Return a snapshot of the tree whose box ``i`` has parent ``parents[i]`` (-1: root).

    Names and types are drawn from short and long words (``seed``); the path to box
    ``running`` (default: the last leaf) is RUNNING, other boxes SUCCESS, FAILURE or
    INVALID.
    """
    chooser = random.Random(seed)
    children: list[list[int]] = [[] for _ in parents]
    for index, parent in enumerate(parents):
        if parent >= 0:
            children[parent].append(index)
    ids: list[str] = []
    depth = [0] * len(parents)
    names = []
    for index, parent in enumerate(parents):
        name = f'{chooser.choice(WORDS)} {index}'
        names.append(name)
        ids.append(name if parent < 0 else f'{ids[parent]}/{name}')
        depth[index] = 0 if parent < 0 else depth[parent] + 1
    nodes = []
    state = {}
    for index, parent in enumerate(parents):
        kind = 'leaf' if not children[index] else \
            'decorator' if len(children[index]) == 1 and chooser.random() < 0.4 else 'composite'
        nodes.append({'id': ids[index], 'parent': ids[parent] if parent >= 0 else None,
                      'name': names[index], 'type': chooser.choice(TYPES[kind]), 'kind': kind,
                      'depth': depth[index], 'loc': f'shape.yaml:{index + 1}:1', 'params': {},
                      'children': [ids[child] for child in children[index]]})
        state[ids[index]] = {'status': chooser.choice(('SUCCESS', 'FAILURE', 'INVALID',
                                                       'INVALID')), 'feedback': ''}
    if running is None:
        running = max(index for index in range(len(parents)) if not children[index])
    snapshot = {'schema': SCHEMA, 'session': f'shape{seed}', 'revision': revision, 'seq': 1,
                'stamp': 1.0, 'tree': tree, 'source_file': 'shape.yaml', 'root': ids[0],
                'root_status': 'RUNNING', 'active_path': [], 'why': [], 'last_failure': None,
                'blackboard': {}, 'unset': {}, 'tick': {'count': 1, 'duration_ms': 0.1,
                                                        'interval_ms': None},
                'executive': {}, 'state': state, 'nodes': nodes}
    return with_active_path(snapshot, ids[running])


def chain(count: int) -> list[int]:
    """Return the parents of a chain: every box the only child of the one before."""
    return [-1, *range(count - 1)]


def wide(leaves: int) -> list[int]:
    """Return the parents of a root with ``leaves`` leaves."""
    return [-1, *([0] * leaves)]


def bushy(branching: int, depth: int) -> list[int]:
    """Return the parents of a full tree (every inner box has ``branching`` children)."""
    parents = [-1]
    level = [0]
    for _ in range(depth):
        nxt = []
        for parent in level:
            for _ in range(branching):
                parents.append(parent)
                nxt.append(len(parents) - 1)
        level = nxt
    return parents


def random_tree(count: int, seed: int, *, spread: int = 12) -> list[int]:
    """Return the parents of a random tree of ``count`` boxes (depth first numbering)."""
    chooser = random.Random(seed)
    parents = [-1]
    open_boxes = [0]
    while len(parents) < count:
        parent = chooser.choice(open_boxes[-spread:])
        parents.append(parent)
        open_boxes.append(len(parents) - 1)
    # renumber depth first so that ids follow the drawing order
    kids: list[list[int]] = [[] for _ in parents]
    for index, parent in enumerate(parents[1:], 1):
        kids[parent].append(index)
    order, stack = [], [0]
    while stack:
        box = stack.pop()
        order.append(box)
        stack.extend(reversed(kids[box]))
    number = {box: index for index, box in enumerate(order)}
    return [-1 if parents[box] < 0 else number[parents[box]] for box in order]


def comb(teeth: int, length: int) -> list[int]:
    """Return the parents of a spine of ``teeth`` boxes each carrying a chain of ``length``."""
    parents = [-1]
    spine = 0
    for _ in range(teeth):
        parents.append(spine)  # the tooth, then its chain
        for _ in range(length):
            parents.append(len(parents) - 1)
        parents.append(spine)
        spine = len(parents) - 1
    return parents


#: The shapes the browser tests fit at every window size (name -> snapshot JSON maker).
SHAPES = {
    'patrol': patrol,
    'big500': big,
    'chain150': lambda: synthetic(chain(150), tree='Chain'),
    'wide300': lambda: synthetic(wide(300), tree='Wide'),
    'random100': lambda: synthetic(random_tree(100, 7), tree='Random', seed=7),
    'random600': lambda: synthetic(random_tree(600, 3, spread=30), tree='Random', seed=3),
    'bushy4x4': lambda: synthetic(bushy(4, 4), tree='Bushy', seed=4),
    'comb': lambda: synthetic(comb(12, 6), tree='Comb', seed=5),
}


__all__ = ['AREAS', 'OfflineTree', 'SHAPES', 'big', 'big_tree', 'bushy', 'chain', 'comb',
           'patrol', 'random_tree', 'synthetic', 'wide', 'with_active_path']
