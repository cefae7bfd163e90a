# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The decorator node types of the catalogue, with their factories."""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

from bt_executive.core.registry import Category, Factory, NodeType
from bt_executive.nodes.catalogue.shared import P, SECONDS, T
from bt_executive.nodes.decorators import (
    Cooldown,
    Delay,
    Limit,
    Timeout,
    UntilFailure,
    UntilSuccess,
)
import py_trees
from py_trees.behaviour import Behaviour

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['decorator_types']


def _decorator(cls: Callable[..., Any], **mapping: str) -> Factory:
    """Build ``cls(name=, child=, <kw>=params[<param>])`` for each kw: param pair."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        kwargs = {kw: params[param] for kw, param in mapping.items()}
        return cls(name=name, child=children[0], **kwargs)
    return factory


def _timed_decorator(cls: Callable[..., Any]) -> Factory:
    """Build ``cls(name, child, seconds=, clock=)`` on the clock of the build context."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        return cls(name, children[0], seconds=params['seconds'], clock=ctx.clock)
    return factory


def _until(cls: Callable[..., Any]) -> Factory:
    """Build ``cls(name, child, max_attempts=)``."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        return cls(name, children[0], max_attempts=params.get('max_attempts'))
    return factory


def _limit(ctx: BuildContext, name: str, params: Params,
           children: list[Behaviour]) -> Behaviour:
    """Build a Limit."""
    return Limit(name, children[0], max_runs=params['max_runs'])


def _oneshot(ctx: BuildContext, name: str, params: Params,
             children: list[Behaviour]) -> Behaviour:
    """Build a py_trees OneShot with the policy the ``on`` parameter chooses."""
    policy = (py_trees.common.OneShotPolicy.ON_COMPLETION if params['on'] == 'completion'
              else py_trees.common.OneShotPolicy.ON_SUCCESSFUL_COMPLETION)
    return py_trees.decorators.OneShot(name=name, child=children[0], policy=policy)


def _status_decorator(*, name: str, cls: type, doc: str, **extra: Any) -> NodeType:
    """Declare a parameterless py_trees decorator that only maps its child's status."""
    return NodeType(
        name=name,
        category=Category.DECORATOR,
        doc=doc,
        factory=_decorator(cls),
        min_children=1,
        max_children=1,
        source=f'py_trees.decorators.{cls.__name__}',
        **extra,
    )


def decorator_types() -> list[NodeType]:
    """Declare the decorator node types, in catalogue order."""
    return [
        _status_decorator(
            name='Inverter',
            cls=py_trees.decorators.Inverter,
            doc='Swaps SUCCESS and FAILURE; RUNNING passes through.',
            aliases=('Not',),
            btcpp='Inverter',
        ),
        _status_decorator(
            name='ForceSuccess',
            cls=py_trees.decorators.FailureIsSuccess,
            doc='FAILURE becomes SUCCESS; RUNNING passes through.',
            aliases=('ReturnSuccess', 'FailureIsSuccess'),
            btcpp='ForceSuccess',
        ),
        _status_decorator(
            name='ForceFailure',
            cls=py_trees.decorators.SuccessIsFailure,
            doc='SUCCESS becomes FAILURE; RUNNING passes through.',
            aliases=('ReturnFailure', 'SuccessIsFailure'),
            btcpp='ForceFailure',
        ),
        _status_decorator(
            name='RunningIsFailure',
            cls=py_trees.decorators.RunningIsFailure,
            doc='RUNNING becomes FAILURE.',
        ),
        _status_decorator(
            name='RunningIsSuccess',
            cls=py_trees.decorators.RunningIsSuccess,
            doc='RUNNING becomes SUCCESS.',
        ),
        _status_decorator(
            name='FailureIsRunning',
            cls=py_trees.decorators.FailureIsRunning,
            doc='FAILURE becomes RUNNING.',
        ),
        _status_decorator(
            name='SuccessIsRunning',
            cls=py_trees.decorators.SuccessIsRunning,
            doc='SUCCESS becomes RUNNING.',
        ),
        _status_decorator(
            name='PassThrough',
            cls=py_trees.decorators.PassThrough,
            doc="Reflects the child's status unchanged.",
        ),
        NodeType(
            name='Repeat',
            category=Category.DECORATOR,
            doc=('Runs the child until it has succeeded `times` times; a failure fails at '
                 'once.'),
            params=(
                P('times', T.INT, 'successful runs needed', minimum=1),
            ),
            factory=_decorator(py_trees.decorators.Repeat, num_success='times'),
            min_children=1,
            max_children=1,
            primary='times',
            btcpp='Repeat',
            source='py_trees.decorators.Repeat',
        ),
        NodeType(
            name='Retry',
            category=Category.DECORATOR,
            doc=('Re-runs a failing child up to `attempts` times in all; SUCCESS as soon as '
                 'it succeeds.'),
            params=(
                P('attempts', T.INT, 'runs allowed before FAILURE', minimum=1),
            ),
            factory=_decorator(py_trees.decorators.Retry, num_failures='attempts'),
            min_children=1,
            max_children=1,
            primary='attempts',
            btcpp='RetryUntilSuccessful',
            source='py_trees.decorators.Retry',
        ),
        NodeType(
            name='UntilSuccess',
            category=Category.DECORATOR,
            doc=('Restarts the child until it succeeds (RUNNING meanwhile); optional '
                 'max_attempts.'),
            params=(
                P('max_attempts', T.INT, 'give up with FAILURE after this many failures',
                  None, minimum=1),
            ),
            factory=_until(UntilSuccess),
            min_children=1,
            max_children=1,
            source='bt_executive.nodes.decorators.UntilSuccess',
        ),
        NodeType(
            name='UntilFailure',
            category=Category.DECORATOR,
            doc=("Restarts the child until it fails, then SUCCESS (the seeds' "
                 'RepeatUntilFailed / UntilFail).'),
            params=(
                P('max_attempts', T.INT, 'give up with FAILURE after this many successes',
                  None, minimum=1),
            ),
            factory=_until(UntilFailure),
            min_children=1,
            max_children=1,
            aliases=('UntilFail', 'RepeatUntilFailure'),
            source='bt_executive.nodes.decorators.UntilFailure',
        ),
        NodeType(
            name='Limit',
            category=Category.DECORATOR,
            doc=('The child may start at most max_runs times; after that the node fails '
                 "without ticking it (the seeds' Counter/Limit)."),
            params=(
                P('max_runs', T.INT, 'how many runs are allowed', minimum=1),
            ),
            factory=_limit,
            min_children=1,
            max_children=1,
            primary='max_runs',
            source='bt_executive.nodes.decorators.Limit',
        ),
        NodeType(
            name='Timeout',
            category=Category.DECORATOR,
            doc=('FAILURE (and the child aborted) when the child runs longer than `seconds` '
                 "(the seeds' TimeLimit)."),
            params=(SECONDS,),
            factory=_timed_decorator(Timeout),
            min_children=1,
            max_children=1,
            primary='seconds',
            aliases=('TimeLimit',),
            btcpp='Timeout',
            source='bt_executive.nodes.decorators.Timeout',
        ),
        NodeType(
            name='Delay',
            category=Category.DECORATOR,
            doc="Waits `seconds` before starting the child (the seeds' Timer).",
            params=(SECONDS,),
            factory=_timed_decorator(Delay),
            min_children=1,
            max_children=1,
            primary='seconds',
            btcpp='Delay',
            source='bt_executive.nodes.decorators.Delay',
        ),
        NodeType(
            name='Cooldown',
            category=Category.DECORATOR,
            doc='After the child finishes, fails for `seconds` without ticking it.',
            params=(SECONDS,),
            factory=_timed_decorator(Cooldown),
            min_children=1,
            max_children=1,
            primary='seconds',
            source='bt_executive.nodes.decorators.Cooldown',
        ),
        NodeType(
            name='OneShot',
            category=Category.DECORATOR,
            doc='Runs the child to completion once, then keeps returning that result.',
            params=(
                P('on', T.ENUM, 'completion: any result sticks; success: failures re-run',
                  'completion', choices=('completion', 'success')),
            ),
            factory=_oneshot,
            min_children=1,
            max_children=1,
            source='py_trees.decorators.OneShot',
        ),
    ]
