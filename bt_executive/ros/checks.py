# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ROS checks of a loaded tree file: what the executive verifies before it builds.

The core loader knows no ROS. These checks add what only the ROS layer can judge: the
``subscriptions`` section (its shape, its message types and field paths) and every ROS
leaf (its topic, service or action name, its interface types, and the literal parts of
its goal, request or message fields against the installed message definitions).
:meth:`TreeHost.load <bt_executive.ros.host.TreeHost.load>` and ``bt-executive validate``
both run :func:`check_ros`, so ``validate`` finds what the executive finds at load.

An interface whose package is not installed on this machine cannot be checked; the
executive rejects such a file when it builds the tree. :func:`missing_packages` names
those packages, so that ``validate`` on a workstation can say what it could not check.
:func:`build_registry` gives ``validate`` the executive's real leaf factories (which
resolve every interface type and check the fields after tree arguments are
substituted), with the offline stub in place of a leaf whose package is missing.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Optional

from bt_executive.core.errors import Diagnostic, quoted, SourceLocation
from bt_executive.core.loader import DocumentCheck, Loader
from bt_executive.core.registry import Category, Factory, NodeType, ParamType, Registry
from bt_executive.core.spec import Document
from bt_executive.nodes.sections import subscription_keys
from bt_executive.ros import interfaces, leaves
from bt_executive.ros.subscriptions import check_fields, nested_class, \
    parse_subscriptions, SubscriptionSpec


def check_ros(document: Document,
              registry: Registry) -> tuple[list[SubscriptionSpec], list[Diagnostic]]:
    """Parse the subscriptions and check them and every ROS leaf of every tree.

    The document may be one the loader found errors in (:attr:`Document.complete`): each
    subscription and leaf that loaded is checked as usual. Only the fields expressions
    read of message-holding keys wait (they need every writer of every key and every
    subscription's type); a warning says so when there are such keys to check.

    Returns:
        The subscription specs and every problem found (empty when the file is fine).
    """
    specs, errors = parse_subscriptions(document.sections.get('subscriptions', []))
    for spec in specs:
        errors.extend(check_fields(spec))
    if not errors and document.complete:
        errors.extend(check_message_reads(document, registry, specs))
    elif _reads_messages(document, registry):
        errors.append(Diagnostic(
            SourceLocation(document.path), 'the fields expressions read of keys that hold '
            'a message were not checked: that check waits until the errors here are fixed',
            warning=True))
    for tree in document.trees.values():
        for node in tree.root.walk():
            node_type = registry.get(node.type)
            if node_type is not None and node_type.ros:
                errors.extend(Diagnostic(loc, message, node.path)
                              for loc, message in leaves.check_leaf(node))
    return specs, errors


def document_check(registry: Registry) -> DocumentCheck:
    """Return the ROS checks as a check the core loader runs (``Loader(checks=...)``).

    It returns :func:`check_ros`'s problems and :func:`missing_packages`'s warnings, so a
    file with loader errors still gets its ROS problems reported in the same run.
    """
    def check(document: Document) -> list[Diagnostic]:
        specs, problems = check_ros(document, registry)
        return problems + missing_packages(document, registry, specs)

    return check


def load(path: str, registry: Registry) -> tuple[Document, list[SubscriptionSpec]]:
    """Load a tree file with every check the executive runs before it builds.

    Raises:
        TreeError: with every problem of the loader and of the ROS checks, in file order.
    """
    document = Loader(registry, checks=[document_check(registry)]).load(path)
    specs, _ = parse_subscriptions(document.sections.get('subscriptions', []))
    return document, specs


def _reads_messages(document: Document, registry: Registry) -> bool:
    """Tell whether an expression reads a key a subscription or a ROS leaf may fill."""
    filled = {key for section in document.sections.get('subscriptions', [])
              for key in subscription_keys(section)}
    nodes = [node for tree in document.trees.values() for node in tree.root.walk()]
    for node in nodes:
        node_type = registry.get(node.type)
        if node_type is None or not node_type.ros:
            continue
        for param in node_type.params:
            value = node.params.get(param.name)
            if param.type is ParamType.KEY and param.writes and value is not None \
                    and isinstance(value.data, str):
                filled.add(value.data.partition('.')[0])
    return any(expression_names & filled for node in nodes for value in node.params.values()
               for expression_names in (d.expression.names for d in value.dynamics()))


def check_message_reads(document: Document, registry: Registry,
                        specs: list[SubscriptionSpec]) -> list[Diagnostic]:
    """Check the fields expressions read of blackboard keys that hold a known message.

    Such a key is fed a whole message by a subscription, or written by a ROS leaf's
    ``result_key``, ``feedback_key``, ``response_key``, ``key`` (WaitForMessage) or
    ``status_key``. ``odom.pose.pose.positon.x > 1``, with ``odom`` fed
    ``nav_msgs/Odometry``, would fail on every tick; it is reported where it is written.
    Only keys that hold that one type are checked: not those with an initial value in
    ``blackboard:``, written by another node or as a field (``out.result``), passed to a
    subtree (which may write them), or written with two types.
    """
    writers: dict[str, list[Optional[tuple[type, str]]]] = {}

    def wrote(key: str, held: Optional[type], source: str = '') -> None:
        writers.setdefault(key, []).append((held, source) if held is not None else None)

    for spec in specs:
        try:
            msg_class: Optional[type] = interfaces.resolve(spec.type, kind='msg')
        except interfaces.InterfaceError:
            msg_class = None  # not installed here (missing_packages says so)
        for key, path in spec.targets:
            held = msg_class
            for part in path.split('.') if path else ():
                held = nested_class(held, part) if held is not None else None
            wrote(key, held, f"the subscription to '{spec.topic}'")
    for key, value in document.blackboard.items():
        if value.data is not None:
            wrote(key, None)
    nodes = [(tree, node) for tree in document.trees.values() for node in tree.root.walk()]
    for tree, node in nodes:
        node_type = registry.get(node.type)
        call = node_type is None or node_type.category is Category.SUBTREE
        for name, value in node.params.items():
            param = node_type.param(name) if node_type is not None else None
            writes = call or param is not None and param.type is ParamType.KEY and param.writes
            if writes and isinstance(value.data, str):
                head, dot, _ = value.data.partition('.')
                if head in tree.params:
                    continue  # the caller's key: the call passes it ($key, below)
                held = None if call or dot else leaves.written_message(node, name)
                wrote(head, held, f'the {name} of {node.path}')
            elif writes:  # a key given as $key: a called tree may write it, or the node
                for key in value.names():
                    wrote(key, None)
    typed = {key: found[0] for key, found in writers.items()
             if found[0] is not None and all(
                 other is not None and other[0] is found[0][0] for other in found)}
    problems = []
    for tree, node in nodes:
        node_type = registry.get(node.type)
        for name, value in node.params.items():
            param = node_type.param(name) if node_type is not None else None
            bound = set(tree.params) | set(param.binds if param is not None else ())
            for dynamic in value.dynamics():
                expression = dynamic.expression
                for key in sorted(expression.names & typed.keys() - bound):
                    held, source = typed[key]
                    problems.extend(Diagnostic(
                        dynamic.loc, f'{name} {quoted(expression.text)}: {problem} '
                        f"('{key}' holds {interfaces.type_string_of(held)} from {source})",
                        node.path)
                        for problem in interfaces.check_field_paths(
                            held, dict.fromkeys(expression.field_paths(key)), path=key))
    return problems


def missing_packages(document: Document, registry: Registry,
                     specs: Optional[list[SubscriptionSpec]] = None) -> list[Diagnostic]:
    """Return one warning per interface package the file uses that is not installed here.

    Each names the first place the package is used and how many uses could not be checked.
    """
    uses: dict[str, list[tuple[SourceLocation, str, str]]] = {}

    def note(type_string: object, loc: SourceLocation, path: str) -> None:
        if not isinstance(type_string, str):
            return
        try:
            package = interfaces.parse_type_string(type_string).package
        except interfaces.InterfaceError:
            return  # a malformed type string is an error check_ros reports
        if importlib.util.find_spec(package) is None:
            uses.setdefault(package, []).append((loc, type_string, path))

    for spec in specs if specs is not None else []:
        note(spec.type, spec.loc, 'subscriptions')
    for tree in document.trees.values():
        for node in tree.root.walk():
            node_type = registry.get(node.type)
            if node_type is None or not node_type.ros:
                continue
            for name, value in node.params.items():
                param = node_type.param(name)
                if param is not None and param.type is ParamType.INTERFACE:
                    note(value.data, value.loc, node.path)
    warnings = []
    for package, places in uses.items():
        loc, type_string, path = places[0]
        more = f' (and {len(places) - 1} more use{"s" if len(places) > 2 else ""})' \
            if len(places) > 1 else ''
        warnings.append(Diagnostic(
            loc, f"package '{package}' is not installed here, so {type_string}{more} and "
            'the fields written for it were not checked; the executive rejects the file on '
            'a machine without the package', path, warning=True))
    return warnings


def build_registry(registry: Registry) -> Registry:
    """Return ``registry`` with the executive's ROS leaf factories, for a build check.

    A leaf whose interface package is not installed here keeps the registry's factory
    (the offline stub): :func:`missing_packages` reports it instead.
    """
    factories = {}
    for node_type in registry.types():
        real = leaves.FACTORIES.get(node_type.name)
        if real is not None and node_type.factory is not None:
            factories[node_type.name] = _unless_missing(node_type, real, node_type.factory)
    return registry.with_factories(factories)


def _unless_missing(node_type: NodeType, real: Factory, stub: Factory) -> Factory:
    names = [param.name for param in node_type.params if param.type is ParamType.INTERFACE]

    def factory(ctx: Any, name: str, params: Any, children: list) -> Any:
        for param in names:
            type_string = params.get(param)
            try:
                package = interfaces.parse_type_string(type_string).package \
                    if isinstance(type_string, str) else None
            except interfaces.InterfaceError:
                continue  # the real factory reports it
            if package is not None and importlib.util.find_spec(package) is None:
                return stub(ctx, name, params, children)
        return real(ctx, name, params, children)

    return factory


__all__ = ['build_registry', 'check_ros', 'document_check', 'load', 'missing_packages']
