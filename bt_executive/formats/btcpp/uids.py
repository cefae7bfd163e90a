# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""BT.CPP uids of a tree's nodes, as BT.CPP numbers them (Groot2 addresses nodes by uid).

No ROS imports here.
"""

from __future__ import annotations

from typing import Optional

from bt_executive.core.registry import Category, Registry
from bt_executive.core.spec import Document, NodeSpec
from bt_executive.core.table import BuiltTree


def uid_map(tree: BuiltTree) -> dict[str, int]:
    """Return node path -> BT.CPP uid for a built tree.

    BT.CPP numbers nodes from 1 in the order it creates them: depth first, parents before
    children, a subtree's nodes right after its SubTree node. The builder wraps every
    subtree in a behaviour with its own path, whose child is the called tree's root, so a
    pre-order walk over the behaviours in the node table gives the same order.
    """
    uids: dict[str, int] = {}
    stack = [tree.root]
    while stack:
        behaviour = stack.pop()
        info = tree.nodes.info(behaviour)
        if info is not None and info.path not in uids:
            uids[info.path] = len(uids) + 1
        stack.extend(reversed(list(behaviour.children)))
    return uids


def spec_uid_map(document: Document, tree_name: Optional[str] = None,
                 registry: Optional[Registry] = None) -> dict[str, int]:
    """Return the uids :func:`uid_map` gives the built tree, computed from the spec alone."""
    if registry is None:
        from bt_executive.nodes.catalogue import default_registry
        registry = default_registry()
    uids: dict[str, int] = {}

    def visit(spec: NodeSpec, prefix: str) -> None:
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        uids[path] = len(uids) + 1
        if registry.get(spec.type).category is Category.SUBTREE:
            visit(document.trees[spec.params['tree'].data].root, path)
        for child in spec.children:
            visit(child, prefix)

    visit(document.tree(tree_name).root, '')
    return uids


__all__ = ['spec_uid_map', 'uid_map']
