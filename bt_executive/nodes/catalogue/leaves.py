# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The leaf node types of the catalogue (ROS leaves aside), with their factories."""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

from bt_executive.core.registry import Category, Factory, NodeType
from bt_executive.nodes.blackboard import (
    BlackboardExists,
    KeyPath,
    SetBlackboard,
    UnsetBlackboard,
    WaitForBlackboard,
)
from bt_executive.nodes.catalogue.shared import P, SECONDS, STATUSES, T
from bt_executive.nodes.leaves import Condition, Log, Terminate, Wait, WaitUntil
from bt_executive.nodes.reused import Periodic, TickCounter
import py_trees
from py_trees.behaviour import Behaviour

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['leaf_types']

_KEY_PATH = P('key', T.KEY, 'blackboard key (dots for nested fields)')


def _status_leaf(cls: Callable[..., Any]) -> Factory:
    """Build ``cls(name=)``."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        return cls(name=name)
    return factory


def _wait(ctx: BuildContext, name: str, params: Params,
          children: list[Behaviour]) -> Behaviour:
    """Build a Wait on the clock of the build context."""
    return Wait(name, seconds=params['seconds'], clock=ctx.clock)


def _log(ctx: BuildContext, name: str, params: Params, children: list[Behaviour]) -> Behaviour:
    """Build a Log whose message is evaluated on each tick, written to the context's log."""
    level = params['level']
    message = params.getter('message')
    return Log(name, message=lambda: str(message()), level=level, sink=ctx.log)


def _terminate(ctx: BuildContext, name: str, params: Params,
               children: list[Behaviour]) -> Behaviour:
    """Build a Terminate."""
    return Terminate(name, status=params['status'], reason=params['reason'])


def _condition(ctx: BuildContext, name: str, params: Params,
               children: list[Behaviour]) -> Behaviour:
    """Build a Condition over the ``expr`` expression, declaring the keys it reads."""
    expression = params.expression('expr')
    lookup = ctx.lookup
    behaviour = Condition(name, predicate=lambda: expression.evaluate(lookup),
                          description=str(expression))
    _register_reads(ctx, behaviour, expression.names, probe=expression.evaluate)
    return behaviour


def _wait_until(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
    """Build a WaitUntil over the ``expr`` expression, declaring the keys it reads."""
    expression = params.expression('expr')
    behaviour = WaitUntil(name, expression=expression, lookup=ctx.lookup)
    _register_reads(ctx, behaviour, expression.names, probe=expression.evaluate)
    return behaviour


def _set_blackboard(ctx: BuildContext, name: str, params: Params,
                    children: list[Behaviour]) -> Behaviour:
    """Build a SetBlackboard, declaring the keys its value (and a dotted key) reads."""
    key = params['key']
    behaviour = SetBlackboard(name, key=key, value=params.getter('value'),
                              overwrite=params['overwrite'], lookup=ctx.lookup)
    reads = set(params.names())
    if '.' in key or not params['overwrite']:
        reads.add(KeyPath(key).key)  # the outcome depends on the value already there
    _register_reads(ctx, behaviour, frozenset(reads))
    return behaviour


def _unset_blackboard(ctx: BuildContext, name: str, params: Params,
                      children: list[Behaviour]) -> Behaviour:
    """Build an UnsetBlackboard."""
    return UnsetBlackboard(name, key=params['key'], lookup=ctx.lookup)


def _blackboard_exists(ctx: BuildContext, name: str, params: Params,
                       children: list[Behaviour]) -> Behaviour:
    """Build a BlackboardExists whose outcome probe is the existence of the path."""
    path = KeyPath(params['key'])
    behaviour = BlackboardExists(name, key=params['key'], lookup=ctx.lookup)
    _register_reads(ctx, behaviour, frozenset({path.key}), probe=path.exists)
    return behaviour


def _wait_for_blackboard(ctx: BuildContext, name: str, params: Params,
                         children: list[Behaviour]) -> Behaviour:
    """Build a WaitForBlackboard whose outcome probe is the existence of the path."""
    path = KeyPath(params['key'])
    behaviour = WaitForBlackboard(name, key=params['key'], lookup=ctx.lookup)
    _register_reads(ctx, behaviour, frozenset({path.key}), probe=path.exists)
    return behaviour


def _tick_counter(ctx: BuildContext, name: str, params: Params,
                  children: list[Behaviour]) -> Behaviour:
    """Build a TickCounter."""
    return TickCounter(name=name, duration=params['ticks'],
                       completion_status=STATUSES[params['then']])


def _success_every_n(ctx: BuildContext, name: str, params: Params,
                     children: list[Behaviour]) -> Behaviour:
    """Build a py_trees SuccessEveryN."""
    return py_trees.behaviours.SuccessEveryN(name=name, n=params['n'])


def _periodic(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a Periodic."""
    return Periodic(name=name, n=params['n'])


def _register_reads(ctx: BuildContext, behaviour: Behaviour, names: frozenset[str], *,
                    probe: Any = None) -> None:
    """Declare the blackboard keys a node reads (viewers and event ticking use this).

    A node whose outcome is a pure function of the keys it reads also declares a probe
    (``lookup -> value``, kept in the node table): event-driven ticking then wakes the
    tree for a new value only when the probe's truth changes (a battery level crossing a
    threshold, not every reading).
    """
    ctx.declare(behaviour, reads=frozenset(names), probe=probe)
    if not names:
        return
    client = behaviour.attach_blackboard_client(name=behaviour.name)
    for key in sorted(names):
        client.register_key(key=key, access=py_trees.common.Access.READ)


def leaf_types() -> list[NodeType]:
    """Declare the leaf node types that do not talk to ROS, in catalogue order."""
    return [
        NodeType(
            name='Success',
            category=Category.LEAF,
            doc='Always SUCCESS.',
            factory=_status_leaf(py_trees.behaviours.Success),
            aliases=('AlwaysSuccess',),
            btcpp='AlwaysSuccess',
            source='py_trees.behaviours.Success',
        ),
        NodeType(
            name='Failure',
            category=Category.LEAF,
            doc="Always FAILURE (reason 'failure').",
            factory=_status_leaf(py_trees.behaviours.Failure),
            aliases=('AlwaysFailure',),
            btcpp='AlwaysFailure',
            source='py_trees.behaviours.Failure',
        ),
        NodeType(
            name='Running',
            category=Category.LEAF,
            doc='Always RUNNING.',
            factory=_status_leaf(py_trees.behaviours.Running),
            source='py_trees.behaviours.Running',
        ),
        NodeType(
            name='Wait',
            category=Category.LEAF,
            doc=("RUNNING ('N s left') until `seconds` have passed on the node clock since the "
                 'start of the run, then SUCCESS (`seconds: 0`: SUCCESS on the first tick). '
                 'Never FAILURE.'),
            params=(SECONDS,),
            factory=_wait,
            primary='seconds',
            aliases=('Sleep',),
            btcpp='Sleep',
            source='bt_executive.nodes.leaves.Wait',
        ),
        NodeType(
            name='Log',
            category=Category.LEAF,
            doc=('Logs the message (evaluated on each tick) and returns SUCCESS; FAILURE, with '
                 'the reason, when the message cannot be evaluated (e.g. it reads a missing '
                 "key). In the executive the line goes to the node's ROS logger at `level` "
                 '(console, /rosout, rqt_console); offline to the Python logger '
                 '`bt_executive.tree`.'),
            params=(
                P('message', T.ANY, 'text, $reference or ${expression}', dynamic=True),
                P('level', T.ENUM, 'log level', 'info',
                  choices=('debug', 'info', 'warning', 'error')),
            ),
            factory=_log,
            primary='message',
            source='bt_executive.nodes.leaves.Log',
        ),
        NodeType(
            name='Terminate',
            category=Category.LEAF,
            doc=('Ends the whole tree at once with `status`: nothing after it runs in that tick '
                 '(no later sibling, no decision of the nodes above), every running node is '
                 "halted (goals cancelled), the tree's status is `status` whatever the nodes "
                 'above would have made of it (this node and its ancestors show it, and a '
                 "FAILURE's why chain leads here), and the executive stops ticking (`~/status`: "
                 'running false, `terminated` says who and why; `~/resume` or `~/reset` start '
                 'the tree again).'),
            params=(
                P('status', T.ENUM, 'final status of the tree', 'failure',
                  choices=('success', 'failure')),
                P('reason', T.STRING, 'why (shown in status and viewers)', ''),
            ),
            factory=_terminate,
            primary='reason',
            aliases=('Abort',),
            source='bt_executive.nodes.leaves.Terminate',
        ),
        NodeType(
            name='Condition',
            category=Category.LEAF,
            doc=('SUCCESS if the expression over the blackboard is true; FAILURE if it is false '
                 "('<expr> is false') or cannot be evaluated (the reason, e.g. a missing key)."),
            params=(
                P('expr', T.EXPRESSION, 'expression, e.g. battery.percentage < 0.2'),
            ),
            factory=_condition,
            primary='expr',
            aliases=('Check',),
            btcpp='ScriptCondition',
            source='bt_executive.nodes.leaves.Condition',
        ),
        NodeType(
            name='WaitUntil',
            category=Category.LEAF,
            doc=('RUNNING until the expression is true, then SUCCESS. An expression that cannot '
                 'be evaluated yet counts as false (the reason is the feedback). Never FAILURE.'),
            params=(
                P('expr', T.EXPRESSION, 'expression over the blackboard'),
            ),
            factory=_wait_until,
            primary='expr',
            source='bt_executive.nodes.leaves.WaitUntil',
        ),
        NodeType(
            name='SetBlackboard',
            category=Category.LEAF,
            doc=('Writes `value` (literal, $reference or ${expression}, computed on each tick) '
                 'to `key` and returns SUCCESS. A dotted key writes a field inside the '
                 "key's value (`pose.x`: entry `x` of the mapping in `pose`, or field `x` "
                 'of a ROS message or dataclass); the value is copied, never changed in '
                 'place, and the last field may be a new mapping entry. With `overwrite: '
                 'false` nothing is written when the key (or field) is already set, and the '
                 'result is SUCCESS too. FAILURE, with the reason, when the value cannot be '
                 "computed (its expression reads a missing key) or a dotted key's root is "
                 'not set, a field before the last is missing, or the field does not exist '
                 'or refuses the value (a ROS message field of another type).'),
            params=(
                P('key', T.KEY, _KEY_PATH.doc, writes=True),
                P('value', T.ANY, 'the value', dynamic=True),
                P('overwrite', T.BOOL,
                  'replace a value already set (false: keep it; SUCCESS either way)', True),
            ),
            factory=_set_blackboard,
            btcpp='SetBlackboard',
            source='bt_executive.nodes.blackboard.SetBlackboard',
        ),
        NodeType(
            name='UnsetBlackboard',
            category=Category.LEAF,
            doc=('Removes `key` and returns SUCCESS, also when it was not set. A dotted key '
                 "removes an entry of the mapping inside the key's value (copied, not "
                 'changed in place); FAILURE, with the reason, if that last field is a '
                 'field of an object (a ROS message field cannot be removed).'),
            params=(
                P('key', T.KEY, 'blackboard key (dots for a mapping entry inside it)'),
            ),
            factory=_unset_blackboard,
            primary='key',
            source='bt_executive.nodes.blackboard.UnsetBlackboard',
        ),
        NodeType(
            name='BlackboardExists',
            category=Category.LEAF,
            doc=('SUCCESS if `key` (or the field path inside its value) is set, else FAILURE '
                 "naming what is missing (`no blackboard key 'pose'`, `pose: no field 'y' in "
                 'dict (keys: x)`); a stale subscription value (`max_age`) is not set.'),
            params=(_KEY_PATH,),
            factory=_blackboard_exists,
            primary='key',
            source='bt_executive.nodes.blackboard.BlackboardExists',
        ),
        NodeType(
            name='WaitForBlackboard',
            category=Category.LEAF,
            doc=('RUNNING (feedback: what is missing) until `key` (or the field path inside '
                 'its value) is set, then SUCCESS. Never FAILURE.'),
            params=(_KEY_PATH,),
            factory=_wait_for_blackboard,
            primary='key',
            source='bt_executive.nodes.blackboard.WaitForBlackboard',
        ),
        NodeType(
            name='TickCounter',
            category=Category.LEAF,
            doc=('RUNNING for `ticks` ticks, then the `then` status on the next tick; the count '
                 'restarts with each run.'),
            params=(
                P('ticks', T.INT, 'ticks to run', minimum=0),
                P('then', T.ENUM, 'final status', 'success', choices=('success', 'failure')),
            ),
            factory=_tick_counter,
            primary='ticks',
            source='bt_executive.nodes.reused.TickCounter',
        ),
        NodeType(
            name='SuccessEveryN',
            category=Category.LEAF,
            doc=("SUCCESS on every n-th tick (counted over the node's life), FAILURE ('not yet') "
                 'on the others.'),
            params=(
                P('n', T.INT, 'period in ticks', minimum=1),
            ),
            factory=_success_every_n,
            primary='n',
            source='py_trees.behaviours.SuccessEveryN',
        ),
        NodeType(
            name='Periodic',
            category=Category.LEAF,
            doc=("Cycles RUNNING, SUCCESS, FAILURE, exactly n ticks each, over the node's life "
                 '(a new run does not restart the cycle).'),
            params=(
                P('n', T.INT, 'ticks per status', minimum=1),
            ),
            factory=_periodic,
            primary='n',
            source='bt_executive.nodes.reused.Periodic',
        ),
    ]
