# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The composite node types of the catalogue, with their factories."""

from __future__ import annotations

from typing import Any, Callable, Optional, TYPE_CHECKING

from bt_executive.core.registry import Category, Factory, NodeType
from bt_executive.nodes.catalogue.shared import P, T
from bt_executive.nodes.composites import (
    ActiveSelector,
    Marathon,
    Race,
    RandomSelector,
    RandomSequence,
)
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
import py_trees
from py_trees.behaviour import Behaviour

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['composite_types']

_SEED = P('seed', T.INT, 'random seed (default: derived from the run seed)', None)
_CONDITIONS = P('conditions', T.INT, 'how many leading children are conditions', 1,
                minimum=1)


def _composite(cls: Callable[..., Any], **fixed: Any) -> Factory:
    """Build ``cls(name=, children=, **fixed)``."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        return cls(name=name, children=children, **fixed)
    return factory


def _sequence(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a py_trees Sequence with the ``memory`` parameter."""
    return py_trees.composites.Sequence(name=name, memory=params['memory'], children=children)


def _reactive_sequence(ctx: BuildContext, name: str, params: Params,
                       children: list[Behaviour]) -> Behaviour:
    """Build a py_trees Sequence without memory."""
    return py_trees.composites.Sequence(name=name, memory=False, children=children)


def _selector(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a py_trees Selector with the ``memory`` parameter."""
    return py_trees.composites.Selector(name=name, memory=params['memory'], children=children)


def _parallel(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a py_trees Parallel with the policy the parameters choose."""
    synchronise = params['synchronise']
    if params['success'] == 'all':
        policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=synchronise)
    else:
        policy = py_trees.common.ParallelPolicy.SuccessOnOne()
    return py_trees.composites.Parallel(name=name, policy=policy, children=children)


def _marathon(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a Marathon."""
    return Marathon(name, children=children, require_success=params['require_success'])


def _monitor(ctx: BuildContext, name: str, params: Params,
             children: list[Behaviour]) -> Behaviour:
    """Build a Monitor."""
    return Monitor(name, children=children, num_conditions=params['conditions'])


def _filter(ctx: BuildContext, name: str, params: Params,
            children: list[Behaviour]) -> Behaviour:
    """Build a Filter."""
    return Filter(name, children=children, num_conditions=params['conditions'])


def _random_selector(ctx: BuildContext, name: str, params: Params,
                     children: list[Behaviour]) -> Behaviour:
    """Build a RandomSelector, checking that there is one weight per child."""
    weights = params.get('weights')
    if weights is not None and len(weights) != len(children):
        raise ValueError(f'{len(weights)} weights for {len(children)} children')
    return RandomSelector(name, children=children, weights=weights, seed=_seed(ctx, params))


def _random_sequence(ctx: BuildContext, name: str, params: Params,
                     children: list[Behaviour]) -> Behaviour:
    """Build a RandomSequence."""
    return RandomSequence(name, children=children, seed=_seed(ctx, params))


def _seed(ctx: BuildContext, params: Params) -> Optional[int]:
    """Return the ``seed`` parameter, or the next seed of the run when it is not given."""
    seed = params.get('seed')
    return seed if seed is not None else ctx.next_seed()


def composite_types() -> list[NodeType]:
    """Declare the composite node types, in catalogue order."""
    return [
        NodeType(
            name='Sequence',
            category=Category.COMPOSITE,
            doc=('Ticks children in order; FAILURE on the first failure, SUCCESS when all '
                 'succeeded. With memory (default) a RUNNING child is resumed on the next '
                 'tick; without, earlier children are re-checked.'),
            params=(
                P('memory', T.BOOL, 'resume the running child instead of restarting', True),
            ),
            factory=_sequence,
            min_children=1,
            max_children=None,
            btcpp='Sequence',
            source='py_trees.composites.Sequence',
        ),
        NodeType(
            name='ReactiveSequence',
            category=Category.COMPOSITE,
            doc=('Sequence without memory: every tick re-checks all earlier children, so a '
                 'failing precondition aborts the running child.'),
            factory=_reactive_sequence,
            min_children=1,
            max_children=None,
            btcpp='ReactiveSequence',
            source='py_trees.composites.Sequence(memory=False)',
        ),
        NodeType(
            name='Selector',
            category=Category.COMPOSITE,
            doc=('Priority selector (fallback): the first child that does not fail wins. '
                 'Without memory (default) higher priorities are re-checked every tick and a '
                 'running lower-priority child is aborted (INVALID) when one of them succeeds '
                 'or runs; with memory the running child is resumed.'),
            params=(
                P('memory', T.BOOL,
                  'resume the running child without re-checking higher priorities', False),
            ),
            factory=_selector,
            min_children=1,
            max_children=None,
            aliases=('Fallback',),
            btcpp='ReactiveFallback',
            source='py_trees.composites.Selector',
        ),
        NodeType(
            name='ActiveSelector',
            category=Category.COMPOSITE,
            doc=('Selector that re-evaluates every higher priority each tick and aborts the '
                 "running lower one (the seeds' ActiveSelector)."),
            factory=_composite(ActiveSelector),
            min_children=1,
            max_children=None,
            btcpp='ReactiveFallback',
            source='bt_executive.nodes.composites.ActiveSelector',
        ),
        NodeType(
            name='Parallel',
            category=Category.COMPOSITE,
            doc=('Ticks all children every tick. FAILURE as soon as one fails (RequireOne '
                 'failure policy); SUCCESS when all (success: all, RequireAll) or one '
                 '(success: one, RequireOne) succeeded.'),
            params=(
                P('success', T.ENUM, 'success policy', 'all', choices=('all', 'one')),
                P('synchronise', T.BOOL,
                  'with success: all, do not re-tick children that already succeeded', True),
            ),
            factory=_parallel,
            min_children=1,
            max_children=None,
            btcpp='Parallel',
            source='py_trees.composites.Parallel',
        ),
        NodeType(
            name='Race',
            category=Category.COMPOSITE,
            doc=('Runs all children at once; the first to succeed wins and the others are '
                 'aborted; FAILURE only when every child failed.'),
            factory=_composite(Race),
            min_children=1,
            max_children=None,
            source='bt_executive.nodes.composites.Race',
        ),
        NodeType(
            name='Marathon',
            category=Category.COMPOSITE,
            doc=('Runs all children at once and waits for every one to finish; SUCCESS when '
                 'all finished (or FAILURE if any failed and require_success is set).'),
            params=(
                P('require_success', T.BOOL, 'fail if any child failed', False),
            ),
            factory=_marathon,
            min_children=1,
            max_children=None,
            source='bt_executive.nodes.composites.Marathon',
        ),
        NodeType(
            name='Monitor',
            category=Category.COMPOSITE,
            doc=('The first `conditions` children are checked every tick while the remaining '
                 'children run as a sequence; a failing condition aborts the actions and '
                 'fails.'),
            params=(_CONDITIONS,),
            factory=_monitor,
            min_children=2,
            max_children=None,
            source='bt_executive.nodes.conditionals.Monitor',
        ),
        NodeType(
            name='Filter',
            category=Category.COMPOSITE,
            doc=('The first `conditions` children are checked once when the node starts; if '
                 'all pass the remaining children run as a sequence.'),
            params=(_CONDITIONS,),
            factory=_filter,
            min_children=2,
            max_children=None,
            source='bt_executive.nodes.conditionals.Filter',
        ),
        NodeType(
            name='RandomSelector',
            category=Category.COMPOSITE,
            doc=('Selector over a random order chosen at each start; optional weights make it '
                 "the seeds' weighted RandomPriority."),
            params=(
                P('weights', T.LIST, 'one non-negative weight per child', None),
                _SEED,
            ),
            factory=_random_selector,
            min_children=1,
            max_children=None,
            aliases=('RandomPriority',),
            source='bt_executive.nodes.composites.RandomSelector',
        ),
        NodeType(
            name='RandomSequence',
            category=Category.COMPOSITE,
            doc='Sequence over a random order chosen at each start.',
            params=(_SEED,),
            factory=_random_sequence,
            min_children=1,
            max_children=None,
            source='bt_executive.nodes.composites.RandomSequence',
        ),
        NodeType(
            name='IfThenElse',
            category=Category.COMPOSITE,
            doc=('Children: condition, then-branch, optional else-branch. The condition is '
                 "checked when the node starts; the chosen branch's result is the result (no "
                 'else and false condition: FAILURE).'),
            factory=_composite(IfThenElse),
            min_children=2,
            max_children=3,
            aliases=('If',),
            btcpp='IfThenElse',
            source='bt_executive.nodes.conditionals.IfThenElse',
        ),
        NodeType(
            name='While',
            category=Category.COMPOSITE,
            doc=('Children: condition, body. Repeats the body while the condition holds '
                 '(checked every tick, aborting the body when it turns false); a failing '
                 'body fails the loop.'),
            factory=_composite(While),
            min_children=2,
            max_children=2,
            btcpp='WhileDoElse',
            source='bt_executive.nodes.conditionals.While',
        ),
    ]
