# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The leaf node types of the catalogue (ROS leaves aside), with their factories."""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

from bt_executive.core.registry import Category, Factory, NodeType
from bt_executive.nodes.catalogue.shared import P, SECONDS, STATUSES, T
from bt_executive.nodes.leaves import Condition, Log, Terminate, Wait, WaitUntil
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
    """Build a py_trees SetBlackboardVariable, declaring the keys its value reads."""
    behaviour = py_trees.behaviours.SetBlackboardVariable(
        name=name, variable_name=params['key'], variable_value=params.getter('value'),
        overwrite=params['overwrite'])
    _register_reads(ctx, behaviour, params.names())
    return behaviour


def _unset_blackboard(ctx: BuildContext, name: str, params: Params,
                      children: list[Behaviour]) -> Behaviour:
    """Build a py_trees UnsetBlackboardVariable."""
    return py_trees.behaviours.UnsetBlackboardVariable(name=name, key=params['key'])


def _blackboard_exists(ctx: BuildContext, name: str, params: Params,
                       children: list[Behaviour]) -> Behaviour:
    """Build a py_trees CheckBlackboardVariableExists."""
    return py_trees.behaviours.CheckBlackboardVariableExists(
        name=name, variable_name=params['key'])


def _wait_for_blackboard(ctx: BuildContext, name: str, params: Params,
                         children: list[Behaviour]) -> Behaviour:
    """Build a py_trees WaitForBlackboardVariable."""
    return py_trees.behaviours.WaitForBlackboardVariable(
        name=name, variable_name=params['key'])


def _tick_counter(ctx: BuildContext, name: str, params: Params,
                  children: list[Behaviour]) -> Behaviour:
    """Build a py_trees TickCounter."""
    return py_trees.behaviours.TickCounter(name=name, duration=params['ticks'],
                                           completion_status=STATUSES[params['then']])


def _success_every_n(ctx: BuildContext, name: str, params: Params,
                     children: list[Behaviour]) -> Behaviour:
    """Build a py_trees SuccessEveryN."""
    return py_trees.behaviours.SuccessEveryN(name=name, n=params['n'])


def _periodic(ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
    """Build a py_trees Periodic."""
    return py_trees.behaviours.Periodic(name=name, n=params['n'])


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
            doc='Always FAILURE.',
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
            doc='RUNNING for `seconds`, then SUCCESS.',
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
            doc='Logs a message (may be an expression) and succeeds. In the executive the '
                "line goes to the node's ROS logger at `level` (console, /rosout, "
                'rqt_console); offline to the Python logger `bt_executive.tree`.',
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
            doc='Stops the whole tree with the given final status.',
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
            doc=('SUCCESS if the expression over the blackboard is true, FAILURE if false or '
                 'not evaluable (missing key: the reason is shown).'),
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
            doc='RUNNING until the expression is true, then SUCCESS.',
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
            doc=('Writes a value (literal, $reference or ${expression}) to a blackboard key '
                 'and succeeds.'),
            params=(
                _KEY_PATH,
                P('value', T.ANY, 'the value', dynamic=True),
                P('overwrite', T.BOOL, 'replace an existing value', True),
            ),
            factory=_set_blackboard,
            btcpp='SetBlackboard',
            source='py_trees.behaviours.SetBlackboardVariable',
        ),
        NodeType(
            name='UnsetBlackboard',
            category=Category.LEAF,
            doc='Removes a blackboard key and succeeds.',
            params=(
                P('key', T.KEY, 'blackboard key'),
            ),
            factory=_unset_blackboard,
            primary='key',
            source='py_trees.behaviours.UnsetBlackboardVariable',
        ),
        NodeType(
            name='BlackboardExists',
            category=Category.LEAF,
            doc='SUCCESS if the key is set, else FAILURE.',
            params=(_KEY_PATH,),
            factory=_blackboard_exists,
            primary='key',
            source='py_trees.behaviours.CheckBlackboardVariableExists',
        ),
        NodeType(
            name='WaitForBlackboard',
            category=Category.LEAF,
            doc='RUNNING until the key is set, then SUCCESS.',
            params=(_KEY_PATH,),
            factory=_wait_for_blackboard,
            primary='key',
            source='py_trees.behaviours.WaitForBlackboardVariable',
        ),
        NodeType(
            name='TickCounter',
            category=Category.LEAF,
            doc='RUNNING for `ticks` ticks, then the `then` status.',
            params=(
                P('ticks', T.INT, 'ticks to run', minimum=0),
                P('then', T.ENUM, 'final status', 'success', choices=('success', 'failure')),
            ),
            factory=_tick_counter,
            primary='ticks',
            source='py_trees.behaviours.TickCounter',
        ),
        NodeType(
            name='SuccessEveryN',
            category=Category.LEAF,
            doc='SUCCESS every n-th tick, FAILURE otherwise.',
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
            doc='Cycles RUNNING, SUCCESS, FAILURE, n ticks each.',
            params=(
                P('n', T.INT, 'ticks per status', minimum=1),
            ),
            factory=_periodic,
            primary='n',
            source='py_trees.behaviours.Periodic',
        ),
    ]
