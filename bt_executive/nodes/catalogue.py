"""The node catalogue: every node type a tree file may use, with its factory.

py_trees' own composites, decorators and behaviours are used wherever they have the
semantics; ``bt_executive.nodes.behaviours`` adds the ones it lacks. ROS leaves are declared
here too (so files validate and render offline) and stand in as stubs until the ROS
layer supplies real factories with :meth:`Registry.with_factories`.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable, Optional

from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.nodes import behaviours
import py_trees
from py_trees.common import Status

P = Param
T = ParamType
_STATUS = {'success': Status.SUCCESS, 'failure': Status.FAILURE, 'running': Status.RUNNING}


# ---- factories -----------------------------------------------------------------------

def _composite(cls: Callable[..., Any], **fixed: Any):
    def factory(ctx, name, params, children):
        return cls(name=name, children=children, **fixed)
    return factory


def _sequence(ctx, name, params, children):
    return py_trees.composites.Sequence(name=name, memory=params['memory'], children=children)


def _reactive_sequence(ctx, name, params, children):
    return py_trees.composites.Sequence(name=name, memory=False, children=children)


def _selector(ctx, name, params, children):
    return py_trees.composites.Selector(name=name, memory=params['memory'], children=children)


def _parallel(ctx, name, params, children):
    synchronise = params['synchronise']
    if params['success'] == 'all':
        policy = py_trees.common.ParallelPolicy.SuccessOnAll(synchronise=synchronise)
    else:
        policy = py_trees.common.ParallelPolicy.SuccessOnOne()
    return py_trees.composites.Parallel(name=name, policy=policy, children=children)


def _monitor(ctx, name, params, children):
    return behaviours.Monitor(name, children=children, num_conditions=params['conditions'])


def _filter(ctx, name, params, children):
    return behaviours.Filter(name, children=children, num_conditions=params['conditions'])


def _random_selector(ctx, name, params, children):
    weights = params.get('weights')
    if weights is not None and len(weights) != len(children):
        raise ValueError(f'{len(weights)} weights for {len(children)} children')
    return behaviours.RandomSelector(name, children=children, weights=weights,
                                     seed=_seed(ctx, params))


def _random_sequence(ctx, name, params, children):
    return behaviours.RandomSequence(name, children=children, seed=_seed(ctx, params))


def _seed(ctx, params) -> Optional[int]:
    seed = params.get('seed')
    return seed if seed is not None else ctx.next_seed()


def _decorator(cls: Callable[..., Any], **mapping: str):
    """Build ``cls(name=, child=, <kw>=params[<param>])`` for each kw: param pair."""
    def factory(ctx, name, params, children):
        kwargs = {kw: params[param] for kw, param in mapping.items()}
        return cls(name=name, child=children[0], **kwargs)
    return factory


def _timed_decorator(cls: Callable[..., Any]):
    def factory(ctx, name, params, children):
        return cls(name, children[0], seconds=params['seconds'], clock=ctx.clock)
    return factory


def _until(cls: Callable[..., Any]):
    def factory(ctx, name, params, children):
        return cls(name, children[0], max_attempts=params.get('max_attempts'))
    return factory


def _limit(ctx, name, params, children):
    return behaviours.Limit(name, children[0], max_runs=params['max_runs'])


def _oneshot(ctx, name, params, children):
    policy = (py_trees.common.OneShotPolicy.ON_COMPLETION if params['on'] == 'completion'
              else py_trees.common.OneShotPolicy.ON_SUCCESSFUL_COMPLETION)
    return py_trees.decorators.OneShot(name=name, child=children[0], policy=policy)


def _status_leaf(cls: Callable[..., Any]):
    def factory(ctx, name, params, children):
        return cls(name=name)
    return factory


def _wait(ctx, name, params, children):
    return behaviours.Wait(name, seconds=params['seconds'], clock=ctx.clock)


def _log(ctx, name, params, children):
    level = params['level']
    message = params.getter('message')
    return behaviours.Log(name, message=lambda: str(message()), level=level)


def _terminate(ctx, name, params, children):
    return behaviours.Terminate(name, status=params['status'], reason=params['reason'])


def _condition(ctx, name, params, children):
    expression = params.expression('expr')
    lookup = ctx.lookup
    behaviour = behaviours.Condition(name, predicate=lambda: expression.evaluate(lookup),
                                     description=str(expression))
    _register_reads(behaviour, expression.names)
    behaviour.bt_probe = expression.evaluate
    return behaviour


def _wait_until(ctx, name, params, children):
    expression = params.expression('expr')
    behaviour = WaitUntil(name, expression=expression, lookup=ctx.lookup)
    _register_reads(behaviour, expression.names)
    behaviour.bt_probe = expression.evaluate
    return behaviour


def _set_blackboard(ctx, name, params, children):
    behaviour = py_trees.behaviours.SetBlackboardVariable(
        name=name, variable_name=params['key'], variable_value=params.getter('value'),
        overwrite=params['overwrite'])
    _register_reads(behaviour, params.names())
    return behaviour


def _unset_blackboard(ctx, name, params, children):
    return py_trees.behaviours.UnsetBlackboardVariable(name=name, key=params['key'])


def _blackboard_exists(ctx, name, params, children):
    return py_trees.behaviours.CheckBlackboardVariableExists(
        name=name, variable_name=params['key'])


def _wait_for_blackboard(ctx, name, params, children):
    return py_trees.behaviours.WaitForBlackboardVariable(
        name=name, variable_name=params['key'])


def _tick_counter(ctx, name, params, children):
    return py_trees.behaviours.TickCounter(name=name, duration=params['ticks'],
                                           completion_status=_STATUS[params['then']])


def _success_every_n(ctx, name, params, children):
    return py_trees.behaviours.SuccessEveryN(name=name, n=params['n'])


def _periodic(ctx, name, params, children):
    return py_trees.behaviours.Periodic(name=name, n=params['n'])


def _register_reads(behaviour: py_trees.behaviour.Behaviour, names) -> None:
    """Declare the blackboard keys a node reads (viewers and event ticking use this).

    A node whose outcome is a pure function of the keys it reads also gets ``bt_probe``
    (``lookup -> value``): event-driven ticking then wakes the tree for a new value only
    when the probe's truth changes (a battery level crossing a threshold, not every
    reading).
    """
    if not names:
        return
    client = behaviour.attach_blackboard_client(name=behaviour.name)
    for key in sorted(names):
        client.register_key(key=key, access=py_trees.common.Access.READ)
    behaviour.bt_reads = frozenset(names)


class WaitUntil(py_trees.behaviour.Behaviour):
    """RUNNING until an expression over the blackboard is true, then SUCCESS.

    An expression that cannot be evaluated yet (e.g. the key is not set) counts as
    false; the reason is shown as feedback.
    """

    def __init__(self, name: str, *, expression, lookup: Callable[[str], Any]):
        super().__init__(name=name)
        self.expression = expression
        self.lookup = lookup

    def update(self) -> Status:
        """Check the expression."""
        try:
            if self.expression.evaluate(self.lookup):
                self.feedback_message = ''
                return Status.SUCCESS
            self.feedback_message = f'waiting for {self.expression}'
        except Exception as error:  # noqa: B902 - expressions only raise EvaluationError
            self.feedback_message = f'waiting for {self.expression}: {error}'
        return Status.RUNNING


class StubLeaf(py_trees.behaviour.Behaviour):
    """An offline stand-in for a ROS leaf: RUNNING for some ticks, then a fixed status."""

    def __init__(self, name: str, *, node_type: str, status: Status, running_ticks: int):
        super().__init__(name=name)
        self.node_type = node_type
        self.final = status
        self.running_ticks = running_ticks
        self.count = 0
        self.feedback_message = f'stub for {node_type}'

    def initialise(self) -> None:
        """Restart the count."""
        self.count = 0

    def update(self) -> Status:
        """Return RUNNING until the configured tick count, then the final status."""
        self.count += 1
        if self.count <= self.running_ticks:
            return Status.RUNNING
        return self.final


#: Default offline behaviour of ROS leaves: (status, ticks RUNNING first).
DEFAULT_STUBS = {
    'Action': ('success', 1),
    'Service': ('success', 0),
    'Publish': ('success', 0),
    'TopicAction': ('success', 1),
    'TopicCondition': ('failure', 0),
    'WaitForMessage': ('running', 0),
}


def _ros_stub(type_name: str):
    def factory(ctx, name, params, children):
        path_key = None
        for key in (name, type_name):
            if key in ctx.stubs:
                path_key = key
                break
        status, ticks = ctx.stubs.get(path_key, DEFAULT_STUBS[type_name])
        return StubLeaf(name, node_type=type_name, status=_STATUS[status],
                        running_ticks=ticks)
    return factory


# ---- the catalogue ---------------------------------------------------------------------------

_SEED = P('seed', T.INT, 'random seed (default: derived from the run seed)', None)
_SECONDS = P('seconds', T.FLOAT, 'duration in seconds', minimum=0.0)
_CONDITIONS = P('conditions', T.INT, 'how many leading children are conditions', 1,
                minimum=1)
_KEY_PATH = P('key', T.KEY, 'blackboard key (dots for nested fields)')
_COMMON_ROS = (
    P('server_timeout', T.FLOAT, 'seconds to wait for the server before FAILURE', 2.0,
      minimum=0.0),
)
_QOS_CHOICES = ('reliable', 'sensor_data', 'latched')
_QOS = P('qos', T.ENUM, 'QoS profile', 'reliable', choices=_QOS_CHOICES)
_MSG_EXPR = P('expr', T.EXPRESSION, 'expression over `msg` and the blackboard', 'true')


def _status_decorator(name: str, cls: type, description: str, **extra: Any) -> NodeType:
    """Declare a parameterless py_trees decorator that only maps its child's status."""
    return NodeType(name, Category.DECORATOR, description, (), _decorator(cls), 1, 1,
                    source=f'py_trees.decorators.{cls.__name__}', **extra)


def _ros_leaf(name: str, description: str, params: tuple[Param, ...]) -> NodeType:
    """Declare a ROS leaf: an offline stub until the ROS layer supplies its factory."""
    return NodeType(name, Category.LEAF, description, params, _ros_stub(name), ros=True,
                    source='bt_executive.ros.leaves')


def _types() -> list[NodeType]:
    C, D, L, S = Category.COMPOSITE, Category.DECORATOR, Category.LEAF, Category.SUBTREE
    return [
        # -- composites
        NodeType('Sequence', C, 'Ticks children in order; FAILURE on the first failure, '
                 'SUCCESS when all succeeded. With memory (default) a RUNNING child is '
                 'resumed on the next tick; without, earlier children are re-checked.',
                 (P('memory', T.BOOL, 'resume the running child instead of restarting',
                    True),), _sequence, 1, None, btcpp='Sequence',
                 source='py_trees.composites.Sequence'),
        NodeType('ReactiveSequence', C, 'Sequence without memory: every tick re-checks all '
                 'earlier children, so a failing precondition aborts the running child.',
                 (), _reactive_sequence, 1, None, btcpp='ReactiveSequence',
                 source='py_trees.composites.Sequence(memory=False)'),
        NodeType('Selector', C, 'Priority selector (fallback): the first child that does not '
                 'fail wins. Without memory (default) higher priorities are re-checked every '
                 'tick and a running lower-priority child is aborted (INVALID) when one of '
                 'them succeeds or runs; with memory the running child is resumed.',
                 (P('memory', T.BOOL, 'resume the running child without re-checking '
                    'higher priorities', False),), _selector, 1, None,
                 aliases=('Fallback',), btcpp='ReactiveFallback',
                 source='py_trees.composites.Selector'),
        NodeType('ActiveSelector', C, 'Selector that re-evaluates every higher priority each '
                 "tick and aborts the running lower one (the seeds' ActiveSelector).",
                 (), _composite(behaviours.ActiveSelector), 1, None,
                 btcpp='ReactiveFallback', source='bt_executive.nodes.behaviours.ActiveSelector'),
        NodeType('Parallel', C, 'Ticks all children every tick. FAILURE as soon as one '
                 'fails (RequireOne failure policy); SUCCESS when all (success: all, '
                 'RequireAll) or one (success: one, RequireOne) succeeded.',
                 (P('success', T.ENUM, 'success policy', 'all', choices=('all', 'one')),
                  P('synchronise', T.BOOL, 'with success: all, do not re-tick children '
                    'that already succeeded', True)),
                 _parallel, 1, None, btcpp='Parallel', source='py_trees.composites.Parallel'),
        NodeType('Race', C, 'Runs all children at once; the first to succeed wins and the '
                 'others are aborted; FAILURE only when every child failed.',
                 (), _composite(behaviours.Race), 1, None,
                 source='bt_executive.nodes.behaviours.Race'),
        NodeType('Marathon', C, 'Runs all children at once and waits for every one to '
                 'finish; SUCCESS when all finished (or FAILURE if any failed and '
                 'require_success is set).',
                 (P('require_success', T.BOOL, 'fail if any child failed', False),),
                 lambda ctx, name, params, children: behaviours.Marathon(
                     name, children=children, require_success=params['require_success']),
                 1, None, source='bt_executive.nodes.behaviours.Marathon'),
        NodeType('Monitor', C, 'The first `conditions` children are checked every tick while '
                 'the remaining children run as a sequence; a failing condition aborts '
                 'the actions and fails.',
                 (_CONDITIONS,), _monitor, 2, None,
                 source='bt_executive.nodes.behaviours.Monitor'),
        NodeType('Filter', C, 'The first `conditions` children are checked once when the '
                 'node starts; if all pass the remaining children run as a sequence.',
                 (_CONDITIONS,), _filter, 2, None, source='bt_executive.nodes.behaviours.Filter'),
        NodeType('RandomSelector', C, 'Selector over a random order chosen at each start; '
                 "optional weights make it the seeds' weighted RandomPriority.",
                 (P('weights', T.LIST, 'one non-negative weight per child', None), _SEED),
                 _random_selector, 1, None, aliases=('RandomPriority',),
                 source='bt_executive.nodes.behaviours.RandomSelector'),
        NodeType('RandomSequence', C, 'Sequence over a random order chosen at each start.',
                 (_SEED,), _random_sequence, 1, None,
                 source='bt_executive.nodes.behaviours.RandomSequence'),
        NodeType('IfThenElse', C, 'Children: condition, then-branch, optional else-branch. '
                 "The condition is checked when the node starts; the chosen branch's "
                 'result is the result (no else and false condition: FAILURE).',
                 (), _composite(behaviours.IfThenElse), 2, 3, aliases=('If',),
                 btcpp='IfThenElse', source='bt_executive.nodes.behaviours.IfThenElse'),
        NodeType('While', C, 'Children: condition, body. Repeats the body while the '
                 'condition holds (checked every tick, aborting the body when it turns '
                 'false); a failing body fails the loop.',
                 (), _composite(behaviours.While), 2, 2, btcpp='WhileDoElse',
                 source='bt_executive.nodes.behaviours.While'),
        # -- decorators
        _status_decorator('Inverter', py_trees.decorators.Inverter,
                          'Swaps SUCCESS and FAILURE; RUNNING passes through.',
                          aliases=('Not',), btcpp='Inverter'),
        _status_decorator('ForceSuccess', py_trees.decorators.FailureIsSuccess,
                          'FAILURE becomes SUCCESS; RUNNING passes through.',
                          aliases=('ReturnSuccess', 'FailureIsSuccess'), btcpp='ForceSuccess'),
        _status_decorator('ForceFailure', py_trees.decorators.SuccessIsFailure,
                          'SUCCESS becomes FAILURE; RUNNING passes through.',
                          aliases=('ReturnFailure', 'SuccessIsFailure'), btcpp='ForceFailure'),
        _status_decorator('RunningIsFailure', py_trees.decorators.RunningIsFailure,
                          'RUNNING becomes FAILURE.'),
        _status_decorator('RunningIsSuccess', py_trees.decorators.RunningIsSuccess,
                          'RUNNING becomes SUCCESS.'),
        _status_decorator('FailureIsRunning', py_trees.decorators.FailureIsRunning,
                          'FAILURE becomes RUNNING.'),
        _status_decorator('SuccessIsRunning', py_trees.decorators.SuccessIsRunning,
                          'SUCCESS becomes RUNNING.'),
        _status_decorator('PassThrough', py_trees.decorators.PassThrough,
                          "Reflects the child's status unchanged."),
        NodeType('Repeat', D, 'Runs the child until it has succeeded `times` times; a '
                 'failure fails at once.',
                 (P('times', T.INT, 'successful runs needed', minimum=1),),
                 _decorator(py_trees.decorators.Repeat, num_success='times'), 1, 1,
                 primary='times', btcpp='Repeat', source='py_trees.decorators.Repeat'),
        NodeType('Retry', D, 'Re-runs a failing child up to `attempts` times in all; SUCCESS '
                 'as soon as it succeeds.',
                 (P('attempts', T.INT, 'runs allowed before FAILURE', minimum=1),),
                 _decorator(py_trees.decorators.Retry, num_failures='attempts'), 1, 1,
                 primary='attempts', btcpp='RetryUntilSuccessful',
                 source='py_trees.decorators.Retry'),
        NodeType('UntilSuccess', D, 'Restarts the child until it succeeds (RUNNING '
                 'meanwhile); optional max_attempts.',
                 (P('max_attempts', T.INT, 'give up with FAILURE after this many failures',
                    None, minimum=1),), _until(behaviours.UntilSuccess), 1, 1,
                 source='bt_executive.nodes.behaviours.UntilSuccess'),
        NodeType('UntilFailure', D, 'Restarts the child until it fails, then SUCCESS '
                 "(the seeds' RepeatUntilFailed / UntilFail).",
                 (P('max_attempts', T.INT, 'give up with FAILURE after this many successes',
                    None, minimum=1),), _until(behaviours.UntilFailure), 1, 1,
                 aliases=('UntilFail', 'RepeatUntilFailure'),
                 source='bt_executive.nodes.behaviours.UntilFailure'),
        NodeType('Limit', D, 'The child may start at most max_runs times; after that the '
                 "node fails without ticking it (the seeds' Counter/Limit).",
                 (P('max_runs', T.INT, 'how many runs are allowed', minimum=1),), _limit,
                 1, 1, primary='max_runs', source='bt_executive.nodes.behaviours.Limit'),
        NodeType('Timeout', D, 'FAILURE (and the child aborted) when the child runs longer '
                 "than `seconds` (the seeds' TimeLimit).",
                 (_SECONDS,), _timed_decorator(behaviours.Timeout), 1, 1,
                 primary='seconds', aliases=('TimeLimit',), btcpp='Timeout',
                 source='bt_executive.nodes.behaviours.Timeout'),
        NodeType('Delay', D, "Waits `seconds` before starting the child (the seeds' Timer).",
                 (_SECONDS,), _timed_decorator(behaviours.Delay), 1, 1, primary='seconds',
                 btcpp='Delay', source='bt_executive.nodes.behaviours.Delay'),
        NodeType('Cooldown', D, 'After the child finishes, fails for `seconds` without '
                 'ticking it.',
                 (_SECONDS,), _timed_decorator(behaviours.Cooldown), 1, 1,
                 primary='seconds', source='bt_executive.nodes.behaviours.Cooldown'),
        NodeType('OneShot', D, 'Runs the child to completion once, then keeps returning '
                 'that result.',
                 (P('on', T.ENUM, 'completion: any result sticks; success: failures '
                    're-run', 'completion', choices=('completion', 'success')),),
                 _oneshot, 1, 1, source='py_trees.decorators.OneShot'),
        # -- leaves
        NodeType('Success', L, 'Always SUCCESS.', (), _status_leaf(py_trees.behaviours.Success),
                 btcpp='AlwaysSuccess', aliases=('AlwaysSuccess',),
                 source='py_trees.behaviours.Success'),
        NodeType('Failure', L, 'Always FAILURE.', (), _status_leaf(py_trees.behaviours.Failure),
                 btcpp='AlwaysFailure', aliases=('AlwaysFailure',),
                 source='py_trees.behaviours.Failure'),
        NodeType('Running', L, 'Always RUNNING.', (), _status_leaf(py_trees.behaviours.Running),
                 source='py_trees.behaviours.Running'),
        NodeType('Wait', L, 'RUNNING for `seconds`, then SUCCESS.', (_SECONDS,), _wait,
                 primary='seconds', aliases=('Sleep',), btcpp='Sleep',
                 source='bt_executive.nodes.behaviours.Wait'),
        NodeType('Log', L, 'Logs a message (may be an expression) and succeeds.',
                 (P('message', T.ANY, 'text, $reference or ${expression}', dynamic=True),
                  P('level', T.ENUM, 'log level', 'info',
                    choices=('debug', 'info', 'warning', 'error'))),
                 _log, primary='message', source='bt_executive.nodes.behaviours.Log'),
        NodeType('Terminate', L, 'Stops the whole tree with the given final status.',
                 (P('status', T.ENUM, 'final status of the tree', 'failure',
                    choices=('success', 'failure')),
                  P('reason', T.STRING, 'why (shown in status and viewers)', '')),
                 _terminate, primary='reason', aliases=('Abort',),
                 source='bt_executive.nodes.behaviours.Terminate'),
        NodeType('Condition', L, 'SUCCESS if the expression over the blackboard is true, '
                 'FAILURE if false or not evaluable (missing key: the reason is shown).',
                 (P('expr', T.EXPRESSION, 'expression, e.g. battery.percentage < 0.2'),),
                 _condition, primary='expr', aliases=('Check',), btcpp='ScriptCondition',
                 source='bt_executive.nodes.behaviours.Condition'),
        NodeType('WaitUntil', L, 'RUNNING until the expression is true, then SUCCESS.',
                 (P('expr', T.EXPRESSION, 'expression over the blackboard'),),
                 _wait_until, primary='expr', source='bt_executive.nodes.catalogue.WaitUntil'),
        NodeType('SetBlackboard', L, 'Writes a value (literal, $reference or ${expression}) '
                 'to a blackboard key and succeeds.',
                 (_KEY_PATH,
                  P('value', T.ANY, 'the value', dynamic=True),
                  P('overwrite', T.BOOL, 'replace an existing value', True)),
                 _set_blackboard, btcpp='SetBlackboard',
                 source='py_trees.behaviours.SetBlackboardVariable'),
        NodeType('UnsetBlackboard', L, 'Removes a blackboard key and succeeds.',
                 (P('key', T.KEY, 'blackboard key'),), _unset_blackboard, primary='key',
                 source='py_trees.behaviours.UnsetBlackboardVariable'),
        NodeType('BlackboardExists', L, 'SUCCESS if the key is set, else FAILURE.',
                 (_KEY_PATH,), _blackboard_exists, primary='key',
                 source='py_trees.behaviours.CheckBlackboardVariableExists'),
        NodeType('WaitForBlackboard', L, 'RUNNING until the key is set, then SUCCESS.',
                 (_KEY_PATH,), _wait_for_blackboard, primary='key',
                 source='py_trees.behaviours.WaitForBlackboardVariable'),
        NodeType('TickCounter', L, 'RUNNING for `ticks` ticks, then the `then` status.',
                 (P('ticks', T.INT, 'ticks to run', minimum=0),
                  P('then', T.ENUM, 'final status', 'success',
                    choices=('success', 'failure'))),
                 _tick_counter, primary='ticks', source='py_trees.behaviours.TickCounter'),
        NodeType('SuccessEveryN', L, 'SUCCESS every n-th tick, FAILURE otherwise.',
                 (P('n', T.INT, 'period in ticks', minimum=1),), _success_every_n,
                 primary='n', source='py_trees.behaviours.SuccessEveryN'),
        NodeType('Periodic', L, 'Cycles RUNNING, SUCCESS, FAILURE, n ticks each.',
                 (P('n', T.INT, 'ticks per status', minimum=1),), _periodic, primary='n',
                 source='py_trees.behaviours.Periodic'),
        # -- subtrees
        NodeType('Subtree', S, 'Runs another tree of the document in place. Further keys '
                 "are arguments for the called tree's params (literals, $references "
                 'or ${expressions}).',
                 (P('tree', T.STRING, 'name of the tree to run'),), None, primary='tree',
                 aliases=('RunTree', 'SubTree'), btcpp='SubTree', source='bt_executive'),
        # -- ROS leaves (stubs offline; the ROS layer supplies the real factories)
        _ros_leaf('Action', 'Sends a ROS action goal (built from literals, $references '
                  'and ${expressions}); RUNNING while active, SUCCESS on a succeeded result; '
                  'FAILURE when the server is absent, rejects, aborts or times out; the goal '
                  'is cancelled when the node is halted.',
                  (P('type', T.INTERFACE, 'action type, e.g. nav2_msgs/action/NavigateToPose'),
                   P('server', T.STRING, 'action name, e.g. /navigate_to_pose'),
                   P('goal', T.MAPPING, 'goal fields', {}, dynamic=True),
                   P('result_key', T.KEY, 'blackboard key for the result', None),
                   P('feedback_key', T.KEY, 'blackboard key for the latest feedback', None),
                   *_COMMON_ROS,
                   P('timeout', T.FLOAT, 'seconds until the result; 0 waits forever', 0.0,
                     minimum=0.0))),
        _ros_leaf('Service', 'Calls a ROS service; SUCCESS when the response satisfies '
                  '`success` (an expression over `response`), FAILURE otherwise.',
                  (P('type', T.INTERFACE, 'service type, e.g. std_srvs/srv/Trigger'),
                   P('service', T.STRING, 'service name'),
                   P('request', T.MAPPING, 'request fields', {}, dynamic=True),
                   P('response_key', T.KEY, 'blackboard key for the response', None),
                   P('success', T.EXPRESSION, 'success test over `response`', 'true'),
                   *_COMMON_ROS,
                   P('timeout', T.FLOAT, 'seconds until the response', 5.0, minimum=0.0))),
        _ros_leaf('TopicCondition', 'SUCCESS if the latest message on a topic (as `msg`) '
                  'satisfies the expression and is not older than max_age; FAILURE '
                  'otherwise (no message yet, stale, or false).',
                  (P('topic', T.STRING, 'topic name'),
                   P('type', T.INTERFACE, 'message type, e.g. std_msgs/msg/Bool'),
                   _MSG_EXPR,
                   P('max_age', T.FLOAT, 'seconds; 0 accepts any age', 0.0, minimum=0.0),
                   _QOS)),
        _ros_leaf('WaitForMessage', 'RUNNING until a message arrives on the topic that '
                  'satisfies the expression (if given), then SUCCESS.',
                  (P('topic', T.STRING, 'topic name'),
                   P('type', T.INTERFACE, 'message type'),
                   _MSG_EXPR,
                   P('key', T.KEY, 'blackboard key to store the message', None),
                   _QOS)),
        _ros_leaf('Publish', 'Publishes one message built from literals, $references and '
                  '${expressions}; SUCCESS.',
                  (P('topic', T.STRING, 'topic name'),
                   P('type', T.INTERFACE, 'message type, e.g. geometry_msgs/msg/Twist'),
                   P('fields', T.MAPPING, 'message fields', {}, dynamic=True),
                   _QOS)),
        _ros_leaf('TopicAction', 'Runs a goal over plain topics (for robots without a '
                  'ROS action): publishes the goal, follows a status topic (SUCCESS/FAILURE '
                  'by the `succeeded`/`failed` expressions over `msg`; `match` picks the '
                  'status messages of this goal, `goal` is the sent goal), and publishes '
                  '`cancel` on cancel_topic when halted or timed out.',
                  (P('goal_topic', T.STRING, 'topic the goal is published on'),
                   P('goal_type', T.INTERFACE, 'goal message type'),
                   P('goal', T.MAPPING, 'goal fields', {}, dynamic=True),
                   P('stamp_field', T.STRING, 'Time field of the goal set to now (identifies '
                     'the goal)', ''),
                   P('status_topic', T.STRING, 'topic of the status messages'),
                   P('status_type', T.INTERFACE, 'status message type'),
                   P('status_qos', T.ENUM, 'QoS of the status subscription', 'reliable',
                     choices=_QOS_CHOICES),
                   P('match', T.EXPRESSION, 'is `msg` about the sent `goal`?', 'true'),
                   P('succeeded', T.EXPRESSION, 'success test over `msg`'),
                   P('failed', T.EXPRESSION, 'failure test over `msg`', 'false'),
                   P('status_key', T.KEY, 'blackboard key for the latest status', None),
                   P('cancel_topic', T.STRING, 'topic for the cancel message', ''),
                   P('cancel_type', T.INTERFACE, 'cancel message type', 'std_msgs/msg/Empty'),
                   P('cancel', T.MAPPING, 'cancel message fields (may read `goal`)', {},
                     dynamic=True),
                   *_COMMON_ROS,
                   P('timeout', T.FLOAT, 'seconds until a result; 0 waits forever', 0.0,
                     minimum=0.0))),
    ]


@functools.lru_cache(maxsize=1)
def _default_types() -> tuple[NodeType, ...]:
    return tuple(_types())


def default_registry() -> Registry:
    """Return a new registry holding the whole catalogue (ROS leaves as offline stubs)."""
    return Registry(_default_types())


logging.getLogger('bt_executive.tree').addHandler(logging.NullHandler())
