# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The factories of the ROS node types (:data:`FACTORIES`) and :func:`check_leaf`."""

from __future__ import annotations

import functools
import importlib.util
from typing import Any, Callable, Optional

from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.errors import quoted, SourceLocation
from bt_executive.core.expressions import Expression, parse
from bt_executive.core.spec import Dynamic, NodeSpec, Value
from bt_executive.ros import interfaces
from bt_executive.ros.leaves.actions import ActionLeaf
from bt_executive.ros.leaves.backoff import backing_off
from bt_executive.ros.leaves.publishers import PublishLeaf
from bt_executive.ros.leaves.services import ServiceLeaf
from bt_executive.ros.leaves.subscribers import TopicConditionLeaf, WaitForMessageLeaf
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.leaves.topic_actions import _check_time_field, _Named, TopicActionLeaf
import py_trees
from rclpy.exceptions import InvalidServiceNameException, InvalidTopicNameException
from rclpy.validate_topic_name import validate_topic_name

Factory = Callable[[BuildContext, str, Params, list], py_trees.behaviour.Behaviour]


def _expression(params: Params, name: str) -> Expression:
    """Return an expression parameter, parsing the catalogue default when it is absent."""
    expression = params.expression(name)
    if expression is None:
        expression = parse(str(params[name]))
    return expression


def _checked_expression(params: Params, name: str, roots: dict[str, type]) -> Expression:
    """Return an expression parameter whose reads of ``roots`` name fields of their types.

    ``roots`` maps the names the leaf binds (``msg``, ``response``, ``goal``) to the
    message class each stands for.

    Raises:
        ValueError: if a read names no field (every one listed), e.g. ``response.sucess``.
    """
    expression = _expression(params, name)
    problems = _read_problems(expression, roots)
    if problems:
        raise ValueError(f'{name} {quoted(expression.text)}: ' + '; '.join(problems))
    return expression


def _read_problems(expression: Expression, roots: dict[str, type]) -> list[str]:
    """Return one problem per read of a name in ``roots`` that is not a field path."""
    return [str(problem) for root, msg_class in roots.items()
            for problem in interfaces.check_field_paths(
                msg_class, dict.fromkeys(expression.field_paths(root)), path=root)]


def _each(*parts: Callable[[], Any]) -> list[Any]:
    """Return what each part builds; raise one ValueError listing every part's problems."""
    built, problems = [], []
    for part in parts:
        try:
            built.append(part())
        except ValueError as error:
            problems.append(str(error))
    if problems:
        raise ValueError('; '.join(problems))
    return built


def _template(params: Params, name: str, msg_class: type) -> MessageTemplate:
    """Return the message template of a mapping parameter, checked against the type.

    Raises:
        ValueError: if a literal part does not fit the message (every problem listed).
    """
    template = MessageTemplate(msg_class, params.values.get(name), name)
    problems = template.check()
    if problems:
        raise ValueError('; '.join(str(problem) for problem in problems))
    return template


def _declare_reads(ctx: BuildContext, behaviour: py_trees.behaviour.Behaviour,
                   names: frozenset[str]) -> Any:
    """Record the blackboard keys a leaf reads in the node table (viewers show them)."""
    ctx.declare(behaviour, reads=frozenset(names))
    return behaviour


def _action(ctx: BuildContext, name: str, params: Params,
            children: list) -> py_trees.behaviour.Behaviour:
    action_type = interfaces.resolve(params['type'], kind='action')
    goal = _template(params, 'goal', interfaces.goal_class(action_type))
    leaf = ActionLeaf(name, action_type=action_type, server=params['server'], goal=goal,
                      lookup=ctx.lookup, result_key=params.get('result_key'),
                      feedback_key=params.get('feedback_key'),
                      server_timeout=float(params['server_timeout']),
                      timeout=float(params['timeout']),
                      lost_timeout=float(params['server_lost_timeout']),
                      answer_timeout=float(params['answer_timeout']))
    return _declare_reads(ctx, leaf, goal.names())


def _service(ctx: BuildContext, name: str, params: Params,
             children: list) -> py_trees.behaviour.Behaviour:
    service_type = interfaces.resolve(params['type'], kind='srv')
    request, success = _each(
        lambda: _template(params, 'request', interfaces.request_class(service_type)),
        lambda: _checked_expression(
            params, 'success', {'response': interfaces.response_class(service_type)}))
    leaf = ServiceLeaf(name, service_type=service_type, service=params['service'],
                       request=request, success=success, lookup=ctx.lookup,
                       response_key=params.get('response_key'),
                       server_timeout=float(params['server_timeout']),
                       timeout=float(params['timeout']),
                       lost_timeout=float(params['server_lost_timeout']))
    return _declare_reads(ctx, leaf, request.names() | (success.names - {'response'}))


def _topic_condition(ctx: BuildContext, name: str, params: Params,
                     children: list) -> py_trees.behaviour.Behaviour:
    msg_type = interfaces.resolve(params['type'], kind='msg')
    expression = _checked_expression(params, 'expr', {'msg': msg_type})
    leaf = TopicConditionLeaf(name, msg_type=msg_type,
                              topic=params['topic'], qos=params['qos'], expression=expression,
                              lookup=ctx.lookup, max_age=float(params['max_age']))
    return _declare_reads(ctx, leaf, expression.names - {'msg'})


def _wait_for_message(ctx: BuildContext, name: str, params: Params,
                      children: list) -> py_trees.behaviour.Behaviour:
    msg_type = interfaces.resolve(params['type'], kind='msg')
    expression = _checked_expression(params, 'expr', {'msg': msg_type})
    leaf = WaitForMessageLeaf(name, msg_type=msg_type,
                              topic=params['topic'], qos=params['qos'],
                              expression=expression, lookup=ctx.lookup,
                              key=params.get('key'))
    return _declare_reads(ctx, leaf, expression.names - {'msg'})


def _publish(ctx: BuildContext, name: str, params: Params,
             children: list) -> py_trees.behaviour.Behaviour:
    msg_type = interfaces.resolve(params['type'], kind='msg')
    fields = _template(params, 'fields', msg_type)
    leaf = PublishLeaf(name, msg_type=msg_type, topic=params['topic'], qos=params['qos'],
                       fields=fields, lookup=ctx.lookup)
    return _declare_reads(ctx, leaf, fields.names())


def _topic_action(ctx: BuildContext, name: str, params: Params,
                  children: list) -> py_trees.behaviour.Behaviour:
    goal = _template(params, 'goal', interfaces.resolve(params['goal_type'], kind='msg'))
    cancel = None
    if params.get('cancel_topic'):
        cancel = _template(params, 'cancel',
                           interfaces.resolve(params['cancel_type'], kind='msg'))
    stamp_field = params.get('stamp_field') or None
    if stamp_field:
        _check_time_field(goal.msg_class, stamp_field)
    status_type = interfaces.resolve(params['status_type'], kind='msg')
    roots = {'msg': status_type, 'goal': goal.msg_class}
    expressions = _each(*(functools.partial(_checked_expression, params, key, roots)
                          for key in ('match', 'succeeded', 'failed')))
    leaf = TopicActionLeaf(
        name, goal=goal, goal_topic=params['goal_topic'],
        status_type=status_type,
        status_topic=params['status_topic'], status_qos=params['status_qos'],
        match=_Named(expressions[0]), succeeded=_Named(expressions[1]),
        failed=_Named(expressions[2]), cancel=cancel,
        cancel_topic=params.get('cancel_topic') or None, stamp_field=stamp_field,
        status_key=params.get('status_key'), server_timeout=float(params['server_timeout']),
        timeout=float(params['timeout']), lookup=ctx.lookup,
        lost_timeout=float(params['server_lost_timeout']))
    names = goal.names() | ((cancel.names() - {'goal'}) if cancel else frozenset())
    for expression in expressions:
        names |= expression.names - {'msg', 'goal'}
    return _declare_reads(ctx, leaf, names)


#: The leaves that send goals or requests back off when they keep failing (.backoff).
FACTORIES: dict[str, Factory] = {
    'Action': backing_off(_action),
    'Service': backing_off(_service),
    'TopicCondition': _topic_condition,
    'WaitForMessage': _wait_for_message,
    'Publish': _publish,
    'TopicAction': backing_off(_topic_action),
}


# ---- load-time checks -------------------------------------------------------------------

#: node type -> (interface kind, name parameter, mapping parameter, part of the interface)
_LEAF_SHAPES: dict[str, tuple[str, str, Optional[str], Callable[[type], type]]] = {
    'Action': ('action', 'server', 'goal', interfaces.goal_class),
    'Service': ('srv', 'service', 'request', interfaces.request_class),
    'TopicCondition': ('msg', 'topic', None, lambda cls: cls),
    'WaitForMessage': ('msg', 'topic', None, lambda cls: cls),
    'Publish': ('msg', 'topic', 'fields', lambda cls: cls),
    'TopicAction': ('msg', 'goal_topic', 'goal', lambda cls: cls),
}


#: node type -> (expression parameter, the name it binds, the class of what it binds);
#: TopicAction's expressions are checked when it is built (its status type has a default)
_EXPRESSION_READS: dict[str, tuple[str, str, Callable[[type], type]]] = {
    'Service': ('success', 'response', interfaces.response_class),
    'TopicCondition': ('expr', 'msg', lambda cls: cls),
    'WaitForMessage': ('expr', 'msg', lambda cls: cls),
}


def check_leaf(spec: NodeSpec) -> list[tuple[SourceLocation, str]]:
    """Validate a ROS leaf's spec when the file loads.

    Checks the ROS name (server, service or topic), the interface type (its kind, and
    that it exists when its package is installed) and the literal parts of the goal,
    request or fields mapping against the message type, with field paths (references
    and expressions in them are only known at tick time and pass), and the fields that a
    ``success`` or ``expr`` test reads of the response or message. When the interface package is
    not installed nothing is reported about the type or the mapping (the caller decides
    whether that is an error).

    Args:
        spec: a node whose type is one of :data:`FACTORIES`

    Returns:
        ``(location of the parameter, message)`` for each problem; empty if none.
    """
    shape = _LEAF_SHAPES.get(spec.type)
    if shape is None:
        return []
    kind, name_param, mapping_param, part = shape
    problems: list[tuple[SourceLocation, str]] = []
    name_value = spec.params.get(name_param)
    if name_value is not None and isinstance(name_value.data, str):
        problem = _name_problem(name_value.data, service=kind == 'srv')
        if problem:
            problems.append((name_value.loc, f"{name_param} '{name_value.data}': {problem}"))
    type_value = spec.params.get('goal_type' if spec.type == 'TopicAction' else 'type')
    if type_value is None or not isinstance(type_value.data, str):
        return problems  # absent (the loader reports it) or a tree parameter
    try:
        parsed = interfaces.parse_type_string(type_value.data, kind=kind)
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    if importlib.util.find_spec(parsed.package) is None:
        return problems
    try:
        interface = interfaces.resolve(type_value.data, kind=kind)
        msg_class = part(interface)
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    read = _EXPRESSION_READS.get(spec.type)
    test = spec.params.get(read[0]) if read is not None else None
    if read is not None and isinstance(test, Value) and isinstance(test.data, Dynamic):
        problems.extend((test.loc, f'{read[0]} {quoted(test.data.expression.text)}: {problem}')
                        for problem in _read_problems(test.data.expression,
                                                      {read[1]: read[2](interface)}))
    if mapping_param is None:
        return problems
    value = spec.params.get(mapping_param)
    if value is not None:
        template = MessageTemplate(msg_class, value, mapping_param)
        problems.extend((value.loc, str(error)) for error in template.check())
    if spec.type == 'TopicAction':
        problems.extend(_topic_action_problems(spec, msg_class))
    return sorted(problems, key=lambda problem: (problem[0].line, problem[0].column))


def _topic_action_problems(spec: NodeSpec, goal_class: type) -> list[tuple[SourceLocation, str]]:
    """Check a TopicAction's ``stamp_field`` and ``cancel`` fields (literal parts)."""
    problems: list[tuple[SourceLocation, str]] = []
    stamp = spec.params.get('stamp_field')
    if stamp is not None and isinstance(stamp.data, str) and stamp.data:
        try:
            _check_time_field(goal_class, stamp.data)
        except ValueError as error:
            problems.append((stamp.loc, str(error)))
    problems.extend(_cancel_problems(spec))
    return sorted(problems, key=lambda problem: (problem[0].line, problem[0].column))


def _cancel_problems(spec: NodeSpec) -> list[tuple[SourceLocation, str]]:
    """Check a TopicAction's ``cancel_type`` and the literal parts of its ``cancel``."""
    cancel, cancel_type = spec.params.get('cancel'), spec.params.get('cancel_type')
    if cancel_type is None or not isinstance(cancel_type.data, str):
        return []  # the default, std_msgs/msg/Empty, or a tree parameter
    try:
        parsed = interfaces.parse_type_string(cancel_type.data, kind='msg')
        if importlib.util.find_spec(parsed.package) is None:
            return []
        cancel_class = interfaces.resolve(cancel_type.data, kind='msg')
    except interfaces.InterfaceError as error:
        return [(cancel_type.loc, str(error))]
    if cancel is None:
        return []
    template = MessageTemplate(cancel_class, cancel, 'cancel')
    return [(cancel.loc, str(error)) for error in template.check()]


def _name_problem(name: str, *, service: bool) -> str:
    """Return why a topic, service or action name is invalid, or ''."""
    try:
        validate_topic_name(name, is_service=service)
    except (InvalidTopicNameException, InvalidServiceNameException) as error:
        first = str(error).splitlines()[0].rstrip(':')
        return first.split(': ', 1)[-1]
    return ''
