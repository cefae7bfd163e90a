# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Warn about blackboard keys that a tree reads but nothing in the document sets.

A key is *set* by the document when it has an initial value (``blackboard:``), when a
section of another layer feeds it (the ROS executive's ``subscriptions``, through
:attr:`Registry.section_keys`), or when a node writes it (a ``KEY`` parameter declared
with ``writes=True``: ``SetBlackboard.key``, ``Action.result_key``, ...). A key read by an
expression, a ``$reference`` or a reading ``KEY`` parameter (``WaitForBlackboard``) that is
set by none of these is most likely a typo (``batery``); the check returns a warning for
each such read, with its location and the closest key that is set. Warnings never fail a
load: something outside the file (a plugin, ``bt-executive tick --set``) may set the key.
"""

from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple

from bt_executive.core.errors import Diagnostic, SourceLocation
from bt_executive.core.registry import Category, hint, ParamType, Registry
from bt_executive.core.spec import Document, Dynamic, NodeSpec, Value
from bt_executive.core.values import is_key


class _Read(NamedTuple):
    key: str
    loc: SourceLocation
    path: str


def check_reads(document: Document, registry: Registry,
                also_set: Iterable[str] = ()) -> list[Diagnostic]:
    """Return a warning for every read of a blackboard key that nothing sets.

    Args:
        document: a loaded document (every tree, included files too)
        registry: the node types it was loaded with
        also_set: keys set from outside the document (e.g. ``tick --set``)
    """
    written = set(document.blackboard) | set(also_set)
    for section, feeds in registry.section_keys.items():
        for node in document.sections.get(section, []):
            written.update(feeds(node))
    outputs = _output_params(document, registry)
    reads: list[_Read] = []
    for tree in document.trees.values():
        local = frozenset(tree.params)  # tree parameters are not blackboard keys
        for default in tree.params.values():
            if default is not None:
                reads.extend(_value_reads(default, local, tree.name))
        for node in tree.root.walk():
            reads.extend(_node_reads(node, registry, local, written, outputs))
    candidates = sorted(written)
    warnings = []
    for read in reads:
        if read.key not in written:
            warnings.append(Diagnostic(
                read.loc, f"blackboard key '{read.key}' is read but nothing sets it (not in "
                "'blackboard:', fed by no subscription, written by no node)"
                f'{hint(read.key, candidates)}', read.path, warning=True))
    return warnings


def _head(value: Value) -> str:
    """Return the key a key-like value names first (``out`` of ``$out.pose``), or ''."""
    data = value.data
    text = str(data.expression) if isinstance(data, Dynamic) else data
    if isinstance(text, str) and is_key(text):
        return text.split('.')[0]
    return ''


def _called(node: NodeSpec) -> str:
    tree = node.params.get('tree')
    return tree.data if tree is not None and isinstance(tree.data, str) else ''


def _output_params(document: Document, registry: Registry) -> dict[str, set[str]]:
    """Return, per tree, the tree parameters it writes through (subtree output keys).

    A parameter is an output when a writing key parameter names it, or when it is passed
    on as the argument of a called tree's output parameter (found to a fixed point).
    """
    outputs: dict[str, set[str]] = {name: set() for name in document.trees}
    changed = True
    while changed:
        changed = False
        for tree in document.trees.values():
            for node in tree.root.walk():
                node_type = registry.get(node.type)
                if node_type is None:
                    continue
                if node_type.category is Category.SUBTREE:
                    inner = outputs.get(_called(node), set())
                    heads = [_head(v) for name, v in node.params.items() if name in inner]
                else:
                    heads = [_head(v) for name, v in node.params.items()
                             if (param := node_type.param(name)) is not None
                             and param.type is ParamType.KEY and param.writes]
                for head in heads:
                    if head in tree.params and head not in outputs[tree.name]:
                        outputs[tree.name].add(head)
                        changed = True
    return outputs


def _node_reads(node: NodeSpec, registry: Registry, local: frozenset[str],
                written: set[str], outputs: dict[str, set[str]]) -> Iterator[_Read]:
    """Yield the keys ``node`` reads; add the keys it writes to ``written``."""
    node_type = registry.get(node.type)
    if node_type is not None and node_type.category is Category.SUBTREE:
        inner = outputs.get(_called(node), set())
        for name, value in node.params.items():
            if name in inner:  # an output argument: the called tree writes this key
                head = _head(value)
                if head and head not in local:
                    written.add(head)
            else:
                yield from _value_reads(value, local, node.path)
        return
    for name, value in node.params.items():
        param = node_type.param(name) if node_type is not None else None
        if param is not None and param.type is ParamType.KEY:
            if isinstance(value.data, str):
                key = value.data.split('.')[0]
                if param.writes:
                    written.add(key)
                elif key not in local:
                    yield _Read(key, value.loc, node.path)
            continue
        binds = local | frozenset(param.binds if param is not None else ())
        yield from _value_reads(value, binds, node.path)


def _value_reads(value: Value, bound: frozenset[str], path: str) -> Iterator[_Read]:
    for dynamic in value.dynamics():
        for key in sorted(dynamic.expression.names - bound):
            yield _Read(key, dynamic.loc, path)


__all__ = ['check_reads']
