# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The node catalogue: every node type a tree file may use, with its factory.

py_trees' own composites, decorators and behaviours are used wherever they have the
semantics; ``bt_executive.nodes.composites``, ``conditionals``, ``decorators`` and
``leaves`` add the ones it lacks. ROS leaves are declared here too (so files validate and
render offline) and stand in as stubs until the ROS layer supplies real factories with
:meth:`Registry.with_factories`.

The types are declared by category in the modules of this package and registered in this
order: composites, decorators, leaves, subtrees, ROS leaves.
"""

from __future__ import annotations

import functools
import logging

from bt_executive.core.registry import Category, NodeType, Registry
from bt_executive.nodes.catalogue.composites import composite_types
from bt_executive.nodes.catalogue.decorators import decorator_types
from bt_executive.nodes.catalogue.leaves import leaf_types
from bt_executive.nodes.catalogue.ros_leaves import DEFAULT_STUBS, ros_leaf_types
from bt_executive.nodes.catalogue.sections import SECTION_SCHEMAS, SECTIONS, subscription_keys
from bt_executive.nodes.catalogue.shared import P, T

__all__ = ['DEFAULT_STUBS', 'default_registry']


def _subtree_types() -> list[NodeType]:
    """Declare the subtree node type (the builder expands it; it has no factory)."""
    return [
        NodeType(
            name='Subtree',
            category=Category.SUBTREE,
            doc=('Runs another tree of the document in place. Further keys are arguments for '
                 "the called tree's params (literals, $references or ${expressions})."),
            params=(
                P('tree', T.STRING, 'name of the tree to run'),
            ),
            factory=None,
            primary='tree',
            aliases=('RunTree', 'SubTree'),
            btcpp='SubTree',
            source='bt_executive',
        ),
    ]


def _types() -> list[NodeType]:
    """Declare every node type, in registration order."""
    return [
        *composite_types(),
        *decorator_types(),
        *leaf_types(),
        *_subtree_types(),
        *ros_leaf_types(),
    ]


@functools.lru_cache(maxsize=1)
def _default_types() -> tuple[NodeType, ...]:
    """Declare the catalogue once and keep it."""
    return tuple(_types())


def default_registry() -> Registry:
    """Return a new registry holding the whole catalogue (ROS leaves as offline stubs)."""
    return Registry(_default_types(), sections=SECTIONS,
                    section_keys={'subscriptions': subscription_keys},
                    section_schemas=SECTION_SCHEMAS)


logging.getLogger('bt_executive.tree').addHandler(logging.NullHandler())
