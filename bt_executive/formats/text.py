# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Text renderings of trees: the spec as written, and a built tree with statuses."""

from __future__ import annotations

import json
from typing import Any, Collection, Iterable, Mapping, Optional

from bt_executive.core.registry import Registry
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value
from bt_executive.core.table import NodeTable
import py_trees
from py_trees.common import Status

STATUS_MARK = {
    Status.SUCCESS: '\u2714',  # heavy check mark
    Status.FAILURE: '\u2718',  # heavy ballot x
    Status.RUNNING: '\u25b6',  # play
    Status.INVALID: '\u00b7',  # middle dot
}
ASCII_STATUS_MARK = {Status.SUCCESS: '+', Status.FAILURE: 'x', Status.RUNNING: '>',
                     Status.INVALID: '-'}
#: Marks, in ``bt-executive tick`` output, the nodes ticked (and keys written) by the tick.
TICKED_MARK = '*'
_UNICODE_BRANCHES = ('\u251c\u2500 ', '\u2514\u2500 ', '\u2502  ', '   ')
_ASCII_BRANCHES = ('|- ', '`- ', '|  ', '   ')


def format_data(data: Any, *, limit: int = 60) -> str:
    """Render a parameter value compactly ($refs and ${exprs} as written)."""
    if isinstance(data, Dynamic):
        text = data.text
    elif isinstance(data, dict):
        text = '{' + ', '.join(f'{k}: {format_data(v, limit=limit)}'
                               for k, v in data.items()) + '}'
    elif isinstance(data, list):
        text = '[' + ', '.join(format_data(v, limit=limit) for v in data) + ']'
    elif isinstance(data, str):
        text = data
    elif data is None:
        text = 'null'
    elif isinstance(data, bool):
        text = 'true' if data else 'false'
    else:
        text = repr(data)
    return text if len(text) <= limit else text[:limit - 1] + '\u2026'


def describe_node(spec: NodeSpec, registry: Registry) -> str:
    """Render one node as ``Type "name"  primary  key=value ...``."""
    node_type = registry.get(spec.type)
    head = spec.type if spec.name == spec.type else f'{spec.type} "{spec.name}"'
    parts = [head]
    params: dict[str, Value] = dict(spec.params)
    primary = node_type.primary if node_type else None
    if primary and primary in params:
        value = params.pop(primary)
        text = format_data(value.data)
        parts.append(f'\u2192 {text}' if spec.type == 'Subtree' else text)
    for key, value in params.items():
        parts.append(f'{key}={format_data(value.data, limit=40)}')
    if node_type is not None and node_type.ros:
        parts.append('[ros]')
    return '  '.join(parts)


def _branches(ascii_only: bool) -> tuple[str, str, str, str]:
    return _ASCII_BRANCHES if ascii_only else _UNICODE_BRANCHES


def render_spec(tree: TreeSpec, registry: Registry, *, ascii_only: bool = False) -> str:
    """Render a tree as written, one node per line."""
    tee, last, pipe, blank = _branches(ascii_only)
    header = tree.name
    if tree.params:
        header += '(' + ', '.join(
            name if value is None else f'{name}={format_data(value.data, limit=30)}'
            for name, value in tree.params.items()) + ')'
    lines = [f'{header}  [{tree.loc}]']

    def walk(node: NodeSpec, prefix: str, is_last: bool) -> None:
        lines.append(prefix + (last if is_last else tee) + describe_node(node, registry))
        child_prefix = prefix + (blank if is_last else pipe)
        for index, child in enumerate(node.children):
            walk(child, child_prefix, index == len(node.children) - 1)

    walk(tree.root, '', True)
    return '\n'.join(lines)


def render_document(document: Document, registry: Registry, *,
                    tree: Optional[str] = None, ascii_only: bool = False) -> str:
    """Render the chosen tree, or every tree (main first) when ``tree`` is None."""
    if tree is not None:
        return render_spec(document.tree(tree), registry, ascii_only=ascii_only)
    names = list(document.trees)
    if document.main in names:
        names.remove(document.main)
        names.insert(0, document.main)
    return '\n\n'.join(render_spec(document.trees[name], registry, ascii_only=ascii_only)
                       for name in names)


def render_status(root: py_trees.behaviour.Behaviour, *, table: Optional[NodeTable] = None,
                  ascii_only: bool = False, stubs: Iterable[str] = (),
                  ticked: Optional[Collection[Any]] = None) -> str:
    """Render a built tree with each node's status mark and feedback.

    Args:
        root: the root behaviour
        table: the builder's node table (node types as written); else class names
        ascii_only: no box-drawing characters or symbols
        stubs: node types shown as offline stubs
        ticked: the ids of the behaviours the last tick ran: each line starts with a
            gutter, :data:`TICKED_MARK` for those and a space for the others (whose
            status is left from an earlier tick)
    """
    nodes = table if table is not None else NodeTable()
    tee, last, pipe, blank = _branches(ascii_only)
    marks = ASCII_STATUS_MARK if ascii_only else STATUS_MARK
    stub_types = set(stubs)
    lines: list[str] = []

    def gutter(node: py_trees.behaviour.Behaviour) -> str:
        if ticked is None:
            return ''
        return TICKED_MARK + ' ' if node.id in ticked else '  '

    def label(node: py_trees.behaviour.Behaviour) -> str:
        node_type = nodes.type_name(node)
        text = node_type if node.name == node_type else f'{node_type} "{node.name}"'
        text = f'{marks[node.status]} {text}'
        if node_type in stub_types:
            text += ' (stub)'
        if node.feedback_message and node.status is not Status.INVALID:
            text += f' \u2014 {node.feedback_message}' if not ascii_only \
                else f' -- {node.feedback_message}'
        return text

    def walk(node: py_trees.behaviour.Behaviour, prefix: str, is_last: bool,
             top: bool) -> None:
        if top:
            lines.append(gutter(node) + label(node))
            child_prefix = ''
        else:
            lines.append(gutter(node) + prefix + (last if is_last else tee) + label(node))
            child_prefix = prefix + (blank if is_last else pipe)
        children = list(node.children)
        for index, child in enumerate(children):
            walk(child, child_prefix, index == len(children) - 1, False)

    walk(root, '', True, True)
    return '\n'.join(lines)


def format_value(value: Any, *, limit: int = 200) -> str:
    """Render a blackboard value in YAML flow style (strings quoted, messages by repr)."""
    if value is None:
        text = 'null'
    elif isinstance(value, bool):
        text = 'true' if value else 'false'
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, Mapping):
        text = '{' + ', '.join(f'{key}: {format_value(item, limit=limit)}'
                               for key, item in value.items()) + '}'
    elif isinstance(value, (list, tuple)):
        text = '[' + ', '.join(format_value(item, limit=limit) for item in value) + ']'
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + '\u2026'


def render_blackboard(storage: Mapping[str, Any], *,
                      written: Optional[Collection[str]] = None) -> str:
    """Render the blackboard, one ``key: value`` line per key, sorted.

    Args:
        storage: py_trees' blackboard storage (``/key -> value``)
        written: the keys the last tick wrote or removed: each line starts with a gutter,
            :data:`TICKED_MARK` for those
    """
    lines = []
    keys = {key.lstrip('/'): key for key in storage}
    for key in sorted(set(keys) | set(written or ())):
        mark = '' if written is None else (TICKED_MARK + ' ' if key in written else '  ')
        value = format_value(storage[keys[key]]) if key in keys else '(removed)'
        lines.append(f'  {mark}{key}: {value}')
    return '\n'.join(['blackboard:'] + (lines or ['  (empty)']))
