# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Serve a recording to Groot2: the Groot2 server fed from a replay's states (no ROS).

:class:`Groot2Replay` makes, for each state (frame) of a
:class:`~bt_executive.observe.replay.Timeline`, the
:class:`~bt_executive.observe.groot2.TreeView` the executive's Groot2 server served after
the tick of that state, and publishes it on a
:class:`~bt_executive.observe.groot2.Groot2Server` when a viewer shows that state
(:meth:`Groot2Replay.show`): Groot2 follows the scrubbing. One protocol implementation
serves both; only the views come from elsewhere.

- **The tree.** Each structure of the recording (``session``, ``revision``: the first
  tree, a swap or reload, a restart) is served under a tree UUID of its own, so a
  connected viewer fetches the tree again when the replay crosses a swap, as it does
  live. Its XML is the live server's when the tree file named in the snapshot
  (``source_file``, as given or next to the recording) still builds the recorded tree
  (same node paths, types and parameters): the same export, the same uids. Otherwise it
  is rebuilt from the recorded structure: the same uids, names, nesting and subtree
  instances, every node under its bt_executive type (``bte_`` before a BT.CPP name)
  with its parameters as recorded; :attr:`Groot2Replay.notes` says why.
- **The statuses.** A :class:`~bt_executive.observe.groot2.StatusBuffer` (the live
  server's) fed with the structure's states from its first one, in order: the bytes the
  live server sent, "idle after" codes included. Every 64th state's buffer is kept, so a
  jump replays at most 64 states.
- **The blackboard.** The keys the snapshots hold (the executive's ``snapshot_keys``).
"""

from __future__ import annotations

import dataclasses
import operator
import os
import threading
from typing import Any, Optional
from xml.etree import ElementTree

from bt_executive.core.registry import Category, Registry
from bt_executive.observe.groot2 import (buffer_uids, Groot2Error, Groot2Server, grouped_order,
                                         new_tree_uuid, served_xml, StatusBuffer,
                                         tree_element, TreeView)
from bt_executive.observe.replay import Timeline
from bt_executive.observe.snapshot import spec_params, to_json
from py_trees.common import Status

#: States between two kept status buffers.
CHECKPOINT = 64
#: What the rebuilt XML is, for the notes.
REBUILT = ('the tree XML is rebuilt from the recording (bt_executive node types, parameters '
           'as recorded)')

_STATUSES = {status.name: status for status in Status}
_STATUS = operator.itemgetter('status')


@dataclasses.dataclass(frozen=True)
class ReplayedTree:
    """One structure of a recording as Groot2 is served it.

    Attributes:
        uuid: its tree UUID (one per structure)
        name: the tree's name (also its blackboard's)
        xml: the FULLTREE payload
        blackboards: the blackboard names BLACKBOARD requests may ask for
        paths: the node ids in status-buffer order
        uids: the uid of each of ``paths``
        origin: where the XML came from (the tree file, or the recording)
    """

    uuid: bytes
    name: str
    xml: bytes
    blackboards: frozenset[str]
    paths: tuple[str, ...]
    uids: tuple[int, ...]
    origin: str


def recorded_order(frame: dict[str, Any]) -> list[str]:
    """Return the node ids of a snapshot in depth-first pre-order from its root."""
    children = {node['id']: node['children'] for node in frame['nodes']}
    order, stack, seen = [], [frame['root']], set()
    while stack:
        ident = stack.pop()
        if ident in seen:
            raise ValueError(f'node {ident!r} is reached twice')
        seen.add(ident)
        order.append(ident)
        stack.extend(reversed(children[ident]))
    return order


def _is_subtree(registry: Registry, type_name: str) -> bool:
    node_type = registry.get(type_name)
    if node_type is None:
        return type_name == 'Subtree'
    return node_type.category is Category.SUBTREE


def replayed_tree(frame: dict[str, Any], registry: Registry, *,
                  directories: tuple[str, ...] = ()) -> tuple[ReplayedTree, str]:
    """Return how Groot2 is served the structure of a snapshot, and a note ('' if exact).

    Args:
        frame: a snapshot of the structure (any state)
        registry: the node types (the catalogue plus the installed plugins)
        directories: where else to look for a relative ``source_file`` (the recording's)

    Raises:
        Groot2Error: the tree cannot be served at all (more nodes than Groot2 shows, a
            structure that is not a tree).
    """
    name = str(frame.get('tree') or '')
    try:
        order = recorded_order(frame)
        uids = {ident: index + 1 for index, ident in enumerate(order)}
        nodes = {node['id']: node for node in frame['nodes']}
        paths = grouped_order(frame['root'], lambda ident: nodes[ident]['children'],
                              lambda ident: _is_subtree(registry, nodes[ident]['type']))
    except (KeyError, TypeError, ValueError) as error:
        what = f'no node {error}' if isinstance(error, KeyError) else str(error)
        raise Groot2Error(f'the recorded structure of tree {name!r} (revision '
                          f"{frame.get('revision')}) is not a tree: {what}") from None
    if len(order) != len(nodes):
        raise Groot2Error(f'the recorded structure of tree {name!r} (revision '
                          f"{frame.get('revision')}) is not a tree: "
                          f'{len(nodes) - len(order)} node(s) out of reach of its root')
    uid_list = tuple(buffer_uids(paths, uids))
    element, origin, note = _from_file(frame, order, registry, directories)
    if element is None:
        element, origin = recorded_element(frame, uids, registry), 'the recording'
    xml, blackboards = served_xml(element, name)
    return ReplayedTree(new_tree_uuid(), name, xml, blackboards, tuple(paths), uid_list,
                        origin), note


def _from_file(frame: dict[str, Any], order: list[str], registry: Registry,
               directories: tuple[str, ...]
               ) -> tuple[Optional[ElementTree.Element], str, str]:
    """Return the live server's tree element from the recorded tree file, or why not."""
    from bt_executive.core.loader import Loader
    from bt_executive.formats.btcpp.uids import spec_uid_map

    source = str(frame.get('source_file') or '')
    if not source:
        return None, '', f'Groot2: the recording names no tree file: {REBUILT}'
    candidates = [source] + ([os.path.join(d, source) for d in directories]
                             if not os.path.isabs(source) else [])
    path = next((p for p in dict.fromkeys(candidates) if os.path.isfile(p)), None)
    if path is None:
        where = ' or '.join(dict.fromkeys(os.path.abspath(p) for p in candidates))
        return None, '', f'Groot2: tree file {source} not found ({where}): {REBUILT}'
    name = str(frame.get('tree') or '')
    try:
        document = Loader(registry).load(path)
        uids = spec_uid_map(document, name, registry)
        difference = _difference(frame, order, document, uids, registry)
        if difference:
            return None, '', (f'Groot2: {path} no longer holds the recorded tree {name!r} '
                              f'({difference}): {REBUILT}')
        return tree_element(uids, document=document, tree_name=name,
                            registry=registry), path, ''
    except Exception as error:  # noqa: B902 - TreeError, a computed subtree, ...
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        return None, '', f'Groot2: {path} cannot be loaded ({text}): {REBUILT}'


def _difference(frame: dict[str, Any], order: list[str], document: Any,
                uids: dict[str, int], registry: Registry) -> str:
    """Return the first difference between the file's tree and the recorded one ('')."""
    if list(uids) != order:
        at = next((i for i, (a, b) in enumerate(zip(uids, order)) if a != b),
                  min(len(uids), len(order)))
        found = list(uids)[at] if at < len(uids) else 'nothing'
        wanted = order[at] if at < len(order) else 'nothing'
        return f'node {at + 1} is {found}, recorded: {wanted}'
    params = spec_params(document)
    recorded = {node['id']: node for node in frame['nodes']}
    specs: dict[str, Any] = {}

    def visit(spec: Any, prefix: str) -> None:
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        specs[path] = spec
        if _is_subtree(registry, spec.type):
            visit(document.trees[spec.params['tree'].data].root, path)
        for child in spec.children:
            visit(child, prefix)

    visit(document.tree(frame.get('tree') or None).root, '')
    for ident in order:
        spec, node = specs[ident], recorded[ident]
        if spec.type != node['type']:
            return f"{ident} is a {spec.type}, recorded: {node['type']}"
        if params.get(str(spec.loc), {}) != node.get('params', {}):
            return f'the parameters of {ident} differ'
    return ''


def recorded_element(frame: dict[str, Any], uids: dict[str, int],
                     registry: Registry) -> ElementTree.Element:
    """Return a ``<root>`` element of the recorded structure, as the publisher sends trees.

    One ``<BehaviorTree ID=... _fullpath=...>`` per subtree instance (main first, then
    the instances in call order), ``_uid`` and ``name`` on every node, parameters as
    recorded, the node types declared in ``<TreeNodesModel>``.
    """
    from bt_executive.formats.btcpp.export import model_tag, own_id

    nodes = {node['id']: node for node in frame['nodes']}
    root = ElementTree.Element('root', {'BTCPP_format': '4'})
    models: dict[str, tuple[str, set[str]]] = {}
    taken: set[str] = set()

    def model(node: dict[str, Any]) -> str:
        node_type = registry.get(node['type'])
        if node_type is not None:
            return model_tag(node_type)
        return {'composite': 'Control', 'decorator': 'Decorator'}.get(node['kind'], 'Action')

    def element(ident: str, calls: list[tuple[str, str, str]],
                fullpaths: dict[str, str]) -> ElementTree.Element:
        node = nodes[ident]
        params = {key: str(value) for key, value in (node.get('params') or {}).items()}
        if _is_subtree(registry, node['type']):
            called = called_tree(ident)
            attrs = {'ID': called, '_fullpath': fullpaths[ident], '_uid': str(uids[ident])}
            attrs.update((key, value) for key, value in params.items()
                         if key not in ('tree', 'ID', 'name'))
            calls.append((node['children'][0], called, fullpaths[ident]))
            return ElementTree.Element('SubTree', attrs)
        tag = own_id(node['type'])
        attrs = {'name': node['name'] if node['name'] != node['type'] else tag,
                 '_uid': str(uids[ident])}
        attrs.update((key, value) for key, value in params.items()
                     if key not in ('name', '_uid'))
        models.setdefault(tag, (model(node), set()))[1].update(params)
        result = ElementTree.Element(tag, attrs)
        result.extend(element(child, calls, fullpaths) for child in node['children'])
        return result

    def called_tree(ident: str) -> str:
        children = nodes[ident]['children']
        if not children:
            return str((nodes[ident].get('params') or {}).get('tree', ''))
        return str(children[0][len(ident) + 1:].split('/')[0])

    def instance_nodes(start: str) -> list[str]:
        found, stack = [], [start]
        while stack:
            ident = stack.pop()
            found.append(ident)
            if not _is_subtree(registry, nodes[ident]['type']):
                stack.extend(reversed(nodes[ident]['children']))
        return found

    def emit(start: str, tree: str, fullpath: str) -> None:
        behaviour_tree = ElementTree.SubElement(root, 'BehaviorTree',
                                                {'ID': tree, '_fullpath': fullpath})
        fullpaths = {}
        for ident in instance_nodes(start):
            node = nodes[ident]
            if not _is_subtree(registry, node['type']):
                continue
            segment = node['name'] if node['name'] != node['type'] else \
                f'{called_tree(ident)}::{uids[ident]}'
            full = f'{fullpath}/{segment}' if fullpath else segment
            if full in taken:
                full = f'{full}::{uids[ident]}'
            taken.add(full)
            fullpaths[ident] = full
        calls: list[tuple[str, str, str]] = []
        behaviour_tree.append(element(start, calls, fullpaths))
        for child, called, full in calls:
            if child in nodes:
                emit(child, called, full)

    emit(frame['root'], str(frame.get('tree') or ''), '')
    declared = ElementTree.SubElement(root, 'TreeNodesModel')
    for tag, (kind, ports) in sorted(models.items()):
        entry = ElementTree.SubElement(declared, kind, {'ID': tag})
        for port in sorted(ports):
            ElementTree.SubElement(entry, 'input_port', {'name': port})
    ElementTree.indent(root, '  ')
    return root


class Groot2Replay:
    """Serve the states of a replay to Groot2, one at a time (thread-safe).

    Args:
        timeline: the replay
        server: the Groot2 server to publish on (None: only make views, e.g. in tests)
        registry: the node types (default: the catalogue plus the installed plugins)
        recording: the recording's path (a relative tree file is also looked for there)

    Raises:
        Groot2Error: a tree of the recording cannot be served at all.

    Attributes:
        notes: what a viewer should say (a tree XML rebuilt from the recording, and why)
        shown: the index of the state served (None before :meth:`show`)
    """

    def __init__(self, timeline: Timeline, server: Optional[Groot2Server] = None, *,
                 registry: Optional[Registry] = None, recording: str = '') -> None:
        if registry is None:
            from bt_executive.nodes.plugins import installed_registry
            registry = installed_registry()
        self.timeline = timeline
        self.server = server
        self.notes: list[str] = []
        self.shown: Optional[int] = None
        directories = (os.path.dirname(os.path.abspath(recording)),) if recording else ()
        #: frame index -> index of the first frame of its structure
        self._starts: list[int] = []
        self._trees: dict[int, ReplayedTree] = {}
        previous: Any = None
        made: dict[tuple[str, str, str], tuple[ReplayedTree, str]] = {}
        for index, frame in enumerate(timeline.frames):
            key = (frame.get('session'), frame.get('revision'))
            if index == 0 or key != previous:
                same = (str(frame.get('source_file')), str(frame.get('tree')),
                        to_json(frame['nodes']))  # e.g. reloads of one file: made once
                if same not in made:
                    made[same] = replayed_tree(frame, registry, directories=directories)
                tree, note = made[same]
                self._trees[index] = dataclasses.replace(tree, uuid=new_tree_uuid())
                if note and note not in self.notes:
                    self.notes.append(note)
            self._starts.append(self._starts[-1] if index and key == previous else index)
            previous = key
        self._checkpoints: dict[int, StatusBuffer] = {}
        self._last: Optional[tuple[int, StatusBuffer]] = None
        self._lock = threading.RLock()
        self._wake = threading.Condition()
        self._wanted: Optional[int] = None
        self._worker: Optional[threading.Thread] = None
        self._closed = False

    def tree(self, index: int) -> ReplayedTree:
        """Return the tree served at state ``index``."""
        return self._trees[self._starts[index]]

    def status(self, index: int) -> bytes:
        """Return the STATUS payload served at state ``index``."""
        with self._lock:
            return self._buffer(index).buffer

    def view(self, index: int) -> TreeView:
        """Return what Groot2 is served at state ``index``."""
        tree = self.tree(index)
        frame = self.timeline.frames[index]
        return TreeView(uuid=tree.uuid, name=tree.name, xml=tree.xml, status=self.status(index),
                        blackboards=tree.blackboards,
                        blackboard=dict(frame.get('blackboard') or {}))

    def show(self, index: int) -> None:
        """Serve state ``index`` (a viewer now shows it); nothing to do if it already is."""
        with self._lock:  # viewers may call from several threads (HTTP handlers)
            if index == self.shown:
                return
            view = self.view(index)
            self.shown = index
            if self.server is not None:
                self.server.publish(view)

    def follow(self, index: int) -> None:
        """Serve state ``index`` soon, from a thread of its own; never waits.

        For viewers: a jump far from the states computed so far may take a while (about
        0.1 to 0.3 ms per state of a 1000-node tree, from the structure's first state);
        the viewer goes on and the latest request wins. When idle the thread computes
        the kept buffers of the whole replay ahead, so later jumps are quick.
        """
        with self._wake:
            if self._closed:
                return
            self._wanted = index
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, daemon=True,
                                                name='groot2-replay')
                self._worker.start()
            self._wake.notify()

    def _work(self) -> None:
        ahead = 0  # the next state to compute ahead
        count = len(self.timeline)
        while True:
            with self._wake:
                while self._wanted is None and not self._closed and ahead >= count:
                    self._wake.wait()
                if self._closed:
                    return
                wanted, self._wanted = self._wanted, None
            if wanted is not None:
                self.show(wanted)
            else:  # idle: one more stretch of kept buffers
                self.status(min(ahead + CHECKPOINT - 1, count - 1))
                ahead += CHECKPOINT

    def close(self) -> None:
        """Stop the :meth:`follow` thread and the server (idempotent)."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        if self._worker is not None:
            self._worker.join(10.0)
        if self.server is not None:
            self.server.close()

    def _buffer(self, index: int) -> StatusBuffer:
        """Return the status buffer after state ``index`` (from a kept one, or its start)."""
        start = self._starts[index]
        begin, buffer = start, None
        last = self._last
        if last is not None and self._starts[last[0]] == start and last[0] <= index:
            begin, buffer = last[0] + 1, last[1].copy()
        checkpoint = start + (index - start) // CHECKPOINT * CHECKPOINT
        while checkpoint + 1 > begin:  # the nearest kept buffer, if nearer than the last
            if checkpoint in self._checkpoints:
                begin, buffer = checkpoint + 1, self._checkpoints[checkpoint].copy()
                break
            checkpoint -= CHECKPOINT
        if buffer is None:
            buffer = StatusBuffer(self.tree(index).uids)
        paths = self.tree(index).paths
        entries = operator.itemgetter(*paths) if len(paths) > 1 else \
            (lambda state: (state[paths[0]],))
        frames = self.timeline.frames
        for at in range(begin, index + 1):
            state: dict[str, Any] = frames[at]['state']
            try:  # in C: about 0.1 ms per state of 1000 nodes
                statuses = list(map(_STATUSES.__getitem__, map(_STATUS, entries(state))))
            except KeyError:  # a node or a status the recording lacks: INVALID
                statuses = [_status_of(state, path) for path in paths]
            buffer.set_all(statuses)
            if (at - start) % CHECKPOINT == 0 and at not in self._checkpoints:
                self._checkpoints[at] = buffer.copy()
        self._last = (index, buffer)
        return buffer


def _status_of(state: dict[str, Any], path: str) -> Status:
    entry = state.get(path)
    return Status.INVALID if entry is None else _STATUSES.get(entry['status'], Status.INVALID)


__all__ = ['CHECKPOINT', 'Groot2Replay', 'ReplayedTree', 'recorded_element', 'recorded_order',
           'replayed_tree']
