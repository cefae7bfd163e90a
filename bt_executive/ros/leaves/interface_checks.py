# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A ROS leaf's parameters checked against its ROS interface, at load and at build.

Every ROS leaf class says which of its parameters name and fill its interface
(:class:`LeafInterface`). When the file loads, :func:`check_interface` checks them as
written (``bt-executive validate`` and the executive run the same checks,
``bt_executive/ros/checks.py``): the ROS name, the interface type (its kind, and that it
exists when its package is installed), the literal parts of the goal, request or fields
mapping against the message type, with field paths, and the fields a test expression
(``success``, ``expr``) reads of the response or message. References and expressions in a
mapping are only known at tick time and pass.

When a leaf is built (tree arguments substituted), its ``build`` makes the mappings into
:class:`~bt_executive.ros.leaves.templates.MessageTemplate` objects with :func:`template`
and its test expressions with :func:`checked_expression`, which raise ``ValueError`` for
what does not fit the interface (the builder reports it at the node's line).
"""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any, Callable, Mapping, Optional

from bt_executive.core.builder import Params
from bt_executive.core.errors import ParameterError, quoted, SourceLocation
from bt_executive.core.expressions import Expression, parse
from bt_executive.core.spec import Dynamic, NodeSpec, Value
from bt_executive.ros import interfaces
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.names import name_problem

__all__ = ['LeafInterface', 'Problem', 'Written', 'check_interface', 'checked_expression',
           'each', 'expression', 'name_problem', 'read_problems', 'template', 'written_type']

#: A problem found at load: where (the parameter's value) and what.
Problem = tuple[SourceLocation, str]


def _whole(interface: type) -> type:
    """Return a message type itself (the part of a ``msg`` interface a leaf uses)."""
    return interface


@dataclasses.dataclass(frozen=True)
class Written:
    """A message a ROS leaf writes to a blackboard key parameter (``result_key``, ...).

    Attributes:
        type_param: the parameter naming the interface the message is part of
        kind: that interface's kind (``action``, ``srv``, ``msg``)
        part: the message class of that part of the interface (the action's result, ...)
    """

    type_param: str
    kind: str
    part: Callable[[type], type] = _whole


@dataclasses.dataclass(frozen=True)
class LeafInterface:
    """Which parameters of a ROS leaf name and fill the ROS interface it talks through.

    Attributes:
        kind: the interface kind of ``type_param`` (``action``, ``srv``, ``msg``)
        type_param: the parameter holding the interface type string
        name_param: the parameter holding the action, service or topic name
        mapping_param: the parameter holding the goal, request or message fields, if any
        mapping_part: the message class those fields build, from the interface
        test_param: an expression parameter over what the leaf receives, if any
        test_binds: the name the test reads that (``response``, ``msg``)
        test_part: the message class of that, from the interface
        writes: the messages the leaf writes to its key parameters, by parameter
        more_names: more parameters holding topic names (checked like ``name_param``
            when not empty)
    """

    kind: str
    type_param: str
    name_param: str
    mapping_param: Optional[str] = None
    mapping_part: Callable[[type], type] = _whole
    test_param: Optional[str] = None
    test_binds: str = ''
    test_part: Callable[[type], type] = _whole
    writes: Mapping[str, Written] = dataclasses.field(default_factory=dict)
    more_names: tuple[str, ...] = ()


def check_interface(spec: NodeSpec, interface: LeafInterface, *,
                    more: Optional[Callable[[type], list[Problem]]] = None) -> list[Problem]:
    """Check a ROS leaf's parameters as written against its interface (see the module).

    When the interface package is not installed nothing is reported about the type or
    the mapping (the caller decides whether that is an error).

    Args:
        spec: the leaf's node
        interface: which of its parameters to check
        more: the leaf's own checks, given the message class its mapping builds (called
            when the interface is installed and the leaf has a mapping)

    Returns:
        ``(location of the parameter, message)`` for each problem; in file order when the
        leaf has a mapping parameter.
    """
    problems: list[Problem] = []
    for param in (interface.name_param, *interface.more_names):
        name_value = spec.params.get(param)
        if name_value is not None and isinstance(name_value.data, str) \
                and (name_value.data or param == interface.name_param):
            problem = name_problem(name_value.data, service=interface.kind == 'srv')
            if problem:
                problems.append((name_value.loc,
                                 f'{param} {quoted(name_value.data)}: {problem}'))
    type_value = spec.params.get(interface.type_param)
    if type_value is None or not isinstance(type_value.data, str):
        return problems  # absent (the loader reports it) or a tree parameter
    try:
        parsed = interfaces.parse_type_string(type_value.data, kind=interface.kind)
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    if importlib.util.find_spec(parsed.package) is None:
        return problems
    try:
        resolved = interfaces.resolve(type_value.data, kind=interface.kind)
        msg_class = interface.mapping_part(resolved)
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    test = spec.params.get(interface.test_param) if interface.test_param else None
    if isinstance(test, Value) and isinstance(test.data, Dynamic):
        roots = {interface.test_binds: interface.test_part(resolved)}
        problems.extend((test.loc, f'{interface.test_param} '
                                   f'{quoted(test.data.expression.text)}: {problem}')
                        for problem in read_problems(test.data.expression, roots))
    if interface.mapping_param is None:
        return problems
    value = spec.params.get(interface.mapping_param)
    if value is not None:
        problems.extend((value.loc, str(error))
                        for error in MessageTemplate(msg_class, value,
                                                     interface.mapping_param).check())
    if more is not None:
        problems.extend(more(msg_class))
    return sorted(problems, key=lambda problem: (problem[0].line, problem[0].column))


def written_type(spec: NodeSpec, param: str, interface: LeafInterface) -> Optional[type]:
    """Return the message class a ROS leaf writes to its key parameter, None if unknown."""
    written = interface.writes.get(param)
    if written is None:
        return None
    value = spec.params.get(written.type_param)
    if value is None or not isinstance(value.data, str):
        return None  # a default or a tree parameter
    try:
        return written.part(interfaces.resolve(value.data, kind=written.kind))
    except interfaces.InterfaceError:
        return None


def expression(params: Params, name: str) -> Expression:
    """Return an expression parameter, parsing the declared default when it is absent."""
    found = params.expression(name)
    if found is None:
        found = parse(str(params[name]))
    return found


def checked_expression(params: Params, name: str, roots: dict[str, type]) -> Expression:
    """Return an expression parameter whose reads of ``roots`` name fields of their types.

    ``roots`` maps the names the leaf binds (``msg``, ``response``, ``goal``) to the
    message class each stands for.

    Raises:
        ParameterError: if a read names no field (every one listed), e.g.
            ``response.sucess``.
    """
    checked = expression(params, name)
    problems = read_problems(checked, roots)
    if problems:
        raise ParameterError([(name, f'{name} {quoted(checked.text)}: '
                               + '; '.join(problems))])
    return checked


def read_problems(checked: Expression, roots: dict[str, type]) -> list[str]:
    """Return one problem per read of a name in ``roots`` that is not a field path."""
    return [str(problem) for root, msg_class in roots.items()
            for problem in interfaces.check_field_paths(
                msg_class, dict.fromkeys(checked.field_paths(root)), path=root)]


def each(*parts: Callable[[], Any]) -> list[Any]:
    """Return what each part builds; raise one error listing every part's problems.

    Raises:
        ParameterError: with each part's problems, under the parameter it names (a plain
            ValueError's under '', the node).
    """
    built, problems = [], []
    for part in parts:
        try:
            built.append(part())
        except ParameterError as error:
            problems.extend(error.problems)
        except ValueError as error:
            problems.append(('', str(error)))
    if problems:
        raise ParameterError(problems)
    return built


def template(params: Params, name: str, msg_class: type) -> MessageTemplate:
    """Return the message template of a mapping parameter, checked against the type.

    Raises:
        ParameterError: if a literal part does not fit the message (every problem listed).
    """
    built = MessageTemplate(msg_class, params.values.get(name), name)
    problems = built.check()
    if problems:
        raise ParameterError([(name, '; '.join(str(problem) for problem in problems))])
    return built
