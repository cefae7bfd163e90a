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
    ParallelFailureOnAll,
    Race,
    RandomSelector,
    RandomSequence,
)
from bt_executive.nodes.conditionals import Filter, IfThenElse, Monitor, While
from bt_executive.nodes.reused import Parallel, Selector, Sequence
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
    """Build a Sequence with the ``memory`` parameter."""
    return Sequence(name=name, memory=params['memory'], children=children)


def _reactive_sequence(ctx: BuildContext, name: str, params: Params,
                       children: list[Behaviour]) -> Behaviour:
    """Build a Sequence without memory."""
    return Sequence(name=name, memory=False, children=children)


def _selector(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a Selector with the ``memory`` parameter."""
    return Selector(name=name, memory=params['memory'], children=children)


def _parallel(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a Parallel with the policies the parameters choose.

    The default failure policy (the first failure fails) is py_trees' Parallel; ``failure:
    all`` is :class:`~bt_executive.nodes.composites.ParallelFailureOnAll`.
    """
    synchronise = params['synchronise']
    if params['failure'] == 'all':
        return ParallelFailureOnAll(name, children=children, success=params['success'],
                                    synchronise=synchronise)
    if params['success'] == 'all':
        policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=synchronise)
    else:
        policy = py_trees.common.ParallelPolicy.SuccessOnOne()
    return Parallel(name=name, policy=policy, children=children)


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
            doc=("Ticks its children in order. A child's SUCCESS moves on to the next child in "
                 "the same tick; a child's RUNNING makes the sequence RUNNING; a child's FAILURE "
                 "makes it FAILURE at once (\"'<child>' failed: <its reason>\"). SUCCESS when the "
                 'last child succeeded. With memory (default) the next tick resumes at the '
                 'RUNNING child; without, every tick starts again from the first child (see '
                 'ReactiveSequence).'),
            params=(
                P('memory', T.BOOL, 'resume the running child instead of restarting', True),
            ),
            factory=_sequence,
            min_children=1,
            max_children=None,
            btcpp='Sequence',
            source='bt_executive.nodes.reused.Sequence',
        ),
        NodeType(
            name='ReactiveSequence',
            category=Category.COMPOSITE,
            doc=('Sequence without memory: every tick starts again from the first child, so a '
                 'precondition that fails (or runs) halts the child that was running after it. '
                 'RUNNING, SUCCESS and FAILURE as Sequence.'),
            factory=_reactive_sequence,
            min_children=1,
            max_children=None,
            btcpp='ReactiveSequence',
            source='bt_executive.nodes.reused.Sequence(memory=False)',
        ),
        NodeType(
            name='Selector',
            category=Category.COMPOSITE,
            doc=("Priority selector (fallback): ticks its children in order. A child's FAILURE "
                 'moves on to the next child in the same tick; the first child that succeeds or '
                 'runs gives the result (SUCCESS or RUNNING). FAILURE when every child failed '
                 "('all N children failed'). Without memory (default) every tick starts again "
                 'from the first child, and a running lower-priority child is halted (INVALID) '
                 'when a higher one succeeds or runs; with memory the next tick resumes at the '
                 'RUNNING child.'),
            params=(
                P('memory', T.BOOL,
                  'resume the running child without re-checking higher priorities', False),
            ),
            factory=_selector,
            min_children=1,
            max_children=None,
            aliases=('Fallback',),
            btcpp='ReactiveFallback',
            source='bt_executive.nodes.reused.Selector',
        ),
        NodeType(
            name='ActiveSelector',
            category=Category.COMPOSITE,
            doc=("Selector without memory (the seeds' ActiveSelector): every tick re-evaluates "
                 'the higher priorities and halts the running lower one when one of them '
                 'succeeds or runs. SUCCESS or RUNNING from the first child that does not fail; '
                 'FAILURE when every child failed.'),
            factory=_composite(ActiveSelector),
            min_children=1,
            max_children=None,
            btcpp='ReactiveFallback',
            source='bt_executive.nodes.composites.ActiveSelector',
        ),
        NodeType(
            name='Parallel',
            category=Category.COMPOSITE,
            doc=('Ticks its children in order, every tick. `success: all`: SUCCESS when every '
                 'child succeeded (with `synchronise`, a child that succeeded is not ticked '
                 'again); `success: one`: SUCCESS when a child succeeds. `failure: one` '
                 "(default, the seeds' RequireOne): FAILURE at the end of a tick in which a "
                 'child failed, even if another succeeded in that tick; the running children are '
                 'halted. `failure: all` (RequireAll): a child that fails is out of the run and '
                 'the others go on; FAILURE when every child failed, or, with `success: all`, '
                 'when none is running any more and one failed; with `success: one` the first '
                 'success wins at once and the children after it are not ticked (as Race). '
                 'RUNNING otherwise. FAILURE names the child that failed.'),
            params=(
                P('success', T.ENUM, 'success policy: how many children must succeed',
                  'all', choices=('all', 'one')),
                P('failure', T.ENUM, 'failure policy: how many children must fail', 'one',
                  choices=('one', 'all')),
                P('synchronise', T.BOOL,
                  'with success: all, do not re-tick children that already succeeded', True),
            ),
            factory=_parallel,
            min_children=1,
            max_children=None,
            btcpp='Parallel',
            source=('bt_executive.nodes.reused.Parallel (failure: all: '
                    'bt_executive.nodes.composites.ParallelFailureOnAll)'),
        ),
        NodeType(
            name='Race',
            category=Category.COMPOSITE,
            doc=('Ticks every child still in the race each tick, in order. The first child to '
                 "succeed wins: SUCCESS (\"'<child>' won\"); the children after it are not ticked "
                 'in that tick and the running ones are halted. A child that fails is out of the '
                 'race (not ticked again in this run); FAILURE when every child failed. RUNNING '
                 'otherwise.'),
            factory=_composite(Race),
            min_children=1,
            max_children=None,
            source='bt_executive.nodes.composites.Race',
        ),
        NodeType(
            name='Marathon',
            category=Category.COMPOSITE,
            doc=('Ticks every child that has not finished in this run, each tick; a failure does '
                 "not stop the others. RUNNING until every child finished, then SUCCESS ('all N "
                 "children finished (k failed)'), or, with require_success, FAILURE if any child "
                 "failed ('k of N children failed')."),
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
            doc=('The first `conditions` children are conditions, ticked first on every tick; '
                 'one that returns SUCCESS or RUNNING holds. When a condition fails: FAILURE at '
                 "once (\"condition '<child>' failed: <reason>\"), the running actions halted. "
                 'While all hold, the remaining children (actions) run as a sequence with memory '
                 'in the same tick: RUNNING while an action runs, FAILURE when one fails, '
                 'SUCCESS when the last one succeeded.'),
            params=(_CONDITIONS,),
            factory=_monitor,
            min_children=2,
            max_children=None,
            source='bt_executive.nodes.conditionals.Monitor',
        ),
        NodeType(
            name='Filter',
            category=Category.COMPOSITE,
            doc=('A sequence with memory whose first `conditions` children are conditions, '
                 'checked once at the start of a run: a condition that fails gives FAILURE and '
                 'no action runs. Then the actions run as a sequence with memory: RUNNING while '
                 'one runs, FAILURE when one fails, SUCCESS when the last one succeeded. A '
                 'condition that becomes false later does not interrupt the actions (use Monitor '
                 'for that).'),
            params=(_CONDITIONS,),
            factory=_filter,
            min_children=2,
            max_children=None,
            source='bt_executive.nodes.conditionals.Filter',
        ),
        NodeType(
            name='RandomSelector',
            category=Category.COMPOSITE,
            doc=('Selector with memory over an order drawn at the start of each run (uniform, or '
                 'by `weights`: a child with weight 0 is tried last): RUNNING while the current '
                 'child runs, SUCCESS when a child succeeds, FAILURE when every child failed '
                 "(the seeds' weighted RandomPriority). Without `seed` the order comes from a "
                 'fresh random seed each time the tree is loaded (`bt-executive tick --seed N` '
                 'repeats a run).'),
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
            doc=('Sequence with memory over an order shuffled at the start of each run: RUNNING '
                 'while the current child runs, FAILURE when a child fails, SUCCESS when every '
                 'child succeeded. Without `seed` the order comes from a fresh random seed each '
                 'time the tree is loaded (`bt-executive tick --seed N` repeats a run).'),
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
                 'ticked at the start of a run (RUNNING while it runs); SUCCESS picks the '
                 'then-branch, FAILURE the else-branch, ticked in the same tick and on later '
                 "ticks without checking the condition again. The branch's result is the result; "
                 'a false condition without an else-branch is FAILURE.'),
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
            doc=('Children: condition, body. Every tick the condition is ticked first (SUCCESS '
                 "or RUNNING: it holds), then the body. The body's SUCCESS finishes an iteration "
                 '(the loop stays RUNNING; the body restarts on the next tick), its RUNNING '
                 'keeps the loop RUNNING, its FAILURE fails the loop. When the condition fails, '
                 'a running body is halted (that iteration is aborted and does not count) and '
                 'the loop ends: SUCCESS if at least one iteration finished in this run, FAILURE '
                 'if none did, also when one was running and got aborted.'),
            factory=_composite(While),
            min_children=2,
            max_children=2,
            source='bt_executive.nodes.conditionals.While',
        ),
    ]
