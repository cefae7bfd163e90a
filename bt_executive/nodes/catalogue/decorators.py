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
from bt_executive.nodes.reused import (
    ForceFailure,
    Inverter,
    OneShot,
    PassThrough,
    Repeat,
    Retry,
    RunningIsFailure,
    RunningIsSuccess,
    SuccessIsRunning,
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
    return OneShot(name=name, child=children[0], policy=policy)


def _status_decorator(*, name: str, cls: type, doc: str, **extra: Any) -> NodeType:
    """Declare a parameterless py_trees decorator that only maps its child's status."""
    return NodeType(
        name=name,
        category=Category.DECORATOR,
        doc=doc,
        factory=_decorator(cls),
        min_children=1,
        max_children=1,
        source=f'{cls.__module__}.{cls.__name__}',
        **extra,
    )


def decorator_types() -> list[NodeType]:
    """Declare the decorator node types, in catalogue order."""
    return [
        _status_decorator(
            name='Inverter',
            cls=Inverter,
            doc=("SUCCESS becomes FAILURE (\"'<child>' succeeded (inverted to FAILURE)\") and "
                 'FAILURE becomes SUCCESS; RUNNING passes through.'),
            aliases=('Not',),
            btcpp='Inverter',
        ),
        _status_decorator(
            name='ForceSuccess',
            cls=py_trees.decorators.FailureIsSuccess,
            doc='FAILURE becomes SUCCESS; SUCCESS and RUNNING pass through. Never FAILURE.',
            aliases=('ReturnSuccess', 'FailureIsSuccess'),
            btcpp='ForceSuccess',
        ),
        _status_decorator(
            name='ForceFailure',
            cls=ForceFailure,
            doc=("SUCCESS becomes FAILURE (\"'<child>' succeeded (forced to FAILURE)\"); FAILURE "
                 'and RUNNING pass through. Never SUCCESS.'),
            aliases=('ReturnFailure', 'SuccessIsFailure'),
            btcpp='ForceFailure',
        ),
        _status_decorator(
            name='RunningIsFailure',
            cls=RunningIsFailure,
            doc=("RUNNING becomes FAILURE (\"'<child>' is still running (RUNNING is FAILURE)\") "
                 'and the child is halted; SUCCESS and FAILURE pass through. Never RUNNING.'),
        ),
        _status_decorator(
            name='RunningIsSuccess',
            cls=RunningIsSuccess,
            doc=('RUNNING becomes SUCCESS and the child is halted; SUCCESS and FAILURE pass '
                 'through. Never RUNNING.'),
        ),
        _status_decorator(
            name='FailureIsRunning',
            cls=py_trees.decorators.FailureIsRunning,
            doc=('FAILURE becomes RUNNING (the child starts again on the next tick); SUCCESS and '
                 'RUNNING pass through. Never FAILURE.'),
        ),
        _status_decorator(
            name='SuccessIsRunning',
            cls=SuccessIsRunning,
            doc=('SUCCESS becomes RUNNING (the child starts again on the next tick); FAILURE and '
                 'RUNNING pass through. Never SUCCESS.'),
        ),
        _status_decorator(
            name='PassThrough',
            cls=PassThrough,
            doc="Returns the child's status and feedback unchanged.",
        ),
        NodeType(
            name='Repeat',
            category=Category.DECORATOR,
            doc=('Runs the child until it has succeeded `times` times in this run, at most one '
                 'run per tick: RUNNING meanwhile, SUCCESS at the `times`-th success, FAILURE as '
                 'soon as the child fails.'),
            params=(
                P('times', T.INT, 'successful runs needed', minimum=1),
            ),
            factory=_decorator(Repeat, num_success='times'),
            min_children=1,
            max_children=1,
            primary='times',
            btcpp='Repeat',
            source='bt_executive.nodes.reused.Repeat',
        ),
        NodeType(
            name='Retry',
            category=Category.DECORATOR,
            doc=('Runs the child up to `attempts` times in all: SUCCESS as soon as it succeeds; '
                 'after a failure with attempts left RUNNING (the next attempt starts on the '
                 "next tick); FAILURE at the `attempts`-th failure, with the last attempt's "
                 'reason.'),
            params=(
                P('attempts', T.INT, 'runs allowed before FAILURE', minimum=1),
            ),
            factory=_decorator(Retry, num_failures='attempts'),
            min_children=1,
            max_children=1,
            primary='attempts',
            btcpp='RetryUntilSuccessful',
            source='bt_executive.nodes.reused.Retry',
        ),
        NodeType(
            name='UntilSuccess',
            category=Category.DECORATOR,
            doc=('Restarts the child until it succeeds: RUNNING while it runs and after each '
                 'failure (it starts again on the next tick), SUCCESS when it succeeds. With '
                 "max_attempts, FAILURE at the max_attempts-th failure ('gave up after N "
                 "attempts')."),
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
            doc=('Restarts the child until it fails, then SUCCESS: RUNNING while it runs and '
                 "after each success (the seeds' RepeatUntilFailed / UntilFail). With "
                 "max_attempts, FAILURE at the max_attempts-th success ('still succeeding after "
                 "N attempts')."),
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
            doc=("Passes the child's status through, but the child may start at most max_runs "
                 "times over the tree's life (the seeds' Counter/Limit; `~/reset` clears the "
                 "count): after that FAILURE ('limit of N runs reached') without ticking it."),
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
            doc=("Passes the child's status through until `seconds` after the start of the run "
                 "(the seeds' TimeLimit); from then on the running child is halted and the "
                 "result is FAILURE ('timed out after N s') without ticking it."),
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
            doc=('RUNNING without ticking the child for `seconds` after the start of a run (the '
                 "seeds' Timer), then ticks the child and passes its status through."),
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
            doc=("Passes the child's status through. After the child finished (SUCCESS or "
                 'FAILURE; a halt does not count), FAILURE for `seconds` without ticking it '
                 "('cooling down, N s left')."),
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
            doc=('Runs the child to completion once and then keeps returning that result without '
                 'ticking it again (on: completion). With on: success only a SUCCESS is kept: a '
                 'FAILURE is returned and the child runs again the next time.'),
            params=(
                P('on', T.ENUM, 'completion: any result sticks; success: failures re-run',
                  'completion', choices=('completion', 'success')),
            ),
            factory=_oneshot,
            min_children=1,
            max_children=1,
            source='bt_executive.nodes.reused.OneShot',
        ),
    ]
