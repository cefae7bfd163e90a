# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The node catalogue: every node type a tree file may use, as the list of its classes.

Each class carries its own declaration (``declaration = NodeType(...)``, with its
parameters, children and documentation) and builds itself from its parameters
(``build``); :meth:`NodeType.of <bt_executive.core.registry.NodeType.of>` reads them.
py_trees' own nodes are declared by thin subclasses that name them. The ROS leaves are
declared without ROS in :mod:`~bt_executive.nodes.ros_leaf_types` and stand in as stubs
(:mod:`~bt_executive.nodes.stubs`) until the ROS layer supplies their classes' factories
with :meth:`Registry.with_factories <bt_executive.core.registry.Registry.with_factories>`.

:data:`CATALOGUE` is in the order of ``bt-executive nodes`` and docs/nodes.md:
composites, decorators, leaves, subtrees, ROS leaves.
"""

from __future__ import annotations

import dataclasses
import functools

from bt_executive.core.builder import SubtreeBehaviour
from bt_executive.core.registry import NodeType, Registry
from bt_executive.nodes.blackboard_leaves import (
    BlackboardExists,
    SetBlackboard,
    UnsetBlackboard,
    WaitForBlackboard,
)
from bt_executive.nodes.composites import (
    ActiveSelector,
    Marathon,
    Parallel,
    Race,
    ReactiveSequence,
    Selector,
    Sequence,
)
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
from bt_executive.nodes.decorators import (
    Cooldown,
    Delay,
    Limit,
    OneShot,
    Repeat,
    Retry,
    Timeout,
    UntilFailure,
    UntilSuccess,
)
from bt_executive.nodes.log import Log
from bt_executive.nodes.predicates import Condition, WaitUntil
from bt_executive.nodes.random_composites import RandomSelector, RandomSequence
from bt_executive.nodes.ros_leaf_types import DEFAULT_STUBS, ROS_LEAF_TYPES
from bt_executive.nodes.sections import SECTION_SCHEMAS, SECTIONS, subscription_keys
from bt_executive.nodes.status_decorators import (
    FailureIsRunning,
    ForceFailure,
    ForceSuccess,
    Inverter,
    PassThrough,
    RunningIsFailure,
    RunningIsSuccess,
    SuccessIsRunning,
)
from bt_executive.nodes.status_leaves import (
    Failure,
    Periodic,
    Running,
    Success,
    SuccessEveryN,
    TickCounter,
    Wait,
)
from bt_executive.nodes.stubs import stub_factory
from bt_executive.nodes.terminate import Terminate

__all__ = ['CATALOGUE', 'DEFAULT_STUBS', 'default_registry']

#: Every node type's class but the ROS leaves', in catalogue order.
CATALOGUE: tuple[type, ...] = (
    # composites
    Sequence, ReactiveSequence, Selector, ActiveSelector, Parallel, Race, Marathon, Monitor,
    Filter, RandomSelector, RandomSequence, IfThenElse, While,
    # decorators
    Inverter, ForceSuccess, ForceFailure, RunningIsFailure, RunningIsSuccess, FailureIsRunning,
    SuccessIsRunning, PassThrough, Repeat, Retry, UntilSuccess, UntilFailure, Limit, Timeout,
    Delay, Cooldown, OneShot,
    # leaves
    Success, Failure, Running, Wait, Log, Terminate, Condition, WaitUntil, SetBlackboard,
    UnsetBlackboard, BlackboardExists, WaitForBlackboard, TickCounter, SuccessEveryN,
    Periodic,
    # subtrees
    SubtreeBehaviour,
)


@functools.lru_cache(maxsize=1)
def _default_types() -> tuple[NodeType, ...]:
    """Declare the catalogue once and keep it: the classes', then the stubbed ROS leaves."""
    return (
        *(NodeType.of(cls) for cls in CATALOGUE),
        *(dataclasses.replace(node_type,
                              factory=stub_factory(node_type.name, DEFAULT_STUBS[node_type.name]))
          for node_type in ROS_LEAF_TYPES),
    )


def default_registry() -> Registry:
    """Return a new registry holding the whole catalogue (ROS leaves as offline stubs)."""
    return Registry(_default_types(), sections=SECTIONS,
                    section_keys={'subscriptions': subscription_keys},
                    section_schemas=SECTION_SCHEMAS)
