# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The typed tree specification that the loader produces and the builder consumes.

Plain data with a source location on everything; no py_trees and no ROS here.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator, Mapping, Optional

from bt_executive.core.errors import Diagnostic, excerpt, SourceLocation, TreeError
from bt_executive.core.expressions import EvaluationError, Expression, ExpressionError


@dataclasses.dataclass(frozen=True)
class Dynamic:
    """A value computed while the tree runs: a blackboard reference or an expression.

    Attributes:
        expression: the parsed expression (a reference ``$a.b`` parses to ``a.b``)
        loc: where it is written
        text: the text as written in YAML (``$a.b`` or ``${...}``)
    """

    expression: Expression
    loc: SourceLocation
    text: str

    def substitute(self, bindings: Mapping[str, Expression]) -> 'Dynamic':
        """Replace subtree parameter names by the caller's arguments.

        Raises:
            TreeError: at this value, when the result would be nested too deeply.
        """
        if not bindings or not (self.expression.names & bindings.keys()):
            return self
        try:
            expression = self.expression.substitute(bindings)
        except ExpressionError as error:
            raise TreeError.single(self.loc, 'cannot pass the tree arguments into '
                                   f"'{excerpt(self.text)}': {error.message}") from None
        return dataclasses.replace(self, expression=expression)

    def fold(self) -> Any:
        """Return the value of an expression that reads nothing (else ``self``).

        Raises:
            TreeError: at this value, when the expression cannot be evaluated: it would
                fail every time the tree runs.
        """
        if not self.expression.is_constant:
            return self
        try:
            return self.expression.evaluate(_no_lookup)
        except EvaluationError as error:
            text = excerpt(self.expression.text)
            raise TreeError.single(self.loc, f"bad expression '{text}': {error.message} (it "
                                   'reads no blackboard key, so it is evaluated when the '
                                   'tree is built)') from None


@dataclasses.dataclass(frozen=True)
class Value:
    """A parameter value as written: plain data that may hold :class:`Dynamic` leaves."""

    data: Any
    loc: SourceLocation

    @property
    def is_static(self) -> bool:
        """Tell whether the value holds no dynamic part."""
        return next(iter(_dynamics(self.data)), None) is None

    def dynamics(self) -> list[Dynamic]:
        """Return every dynamic part, depth first."""
        return list(_dynamics(self.data))

    def names(self) -> frozenset[str]:
        """Return the blackboard names the dynamic parts read."""
        names: set[str] = set()
        for dynamic in _dynamics(self.data):
            names |= dynamic.expression.names
        return frozenset(names)

    def substitute(self, bindings: Mapping[str, Expression]) -> 'Value':
        """Replace subtree parameter names in every dynamic part.

        Raises:
            TreeError: located at the dynamic part, when a result is nested too deeply.
        """
        if not bindings:
            return self
        return dataclasses.replace(self, data=_map_dynamic(
            self.data, lambda dynamic: dynamic.substitute(bindings)))

    def fold_constants(self) -> 'Value':
        """Evaluate dynamic parts that read nothing (e.g. substituted literals).

        Raises:
            TreeError: located at the dynamic part, when one cannot be evaluated.
        """
        return dataclasses.replace(self, data=_map_dynamic(self.data, Dynamic.fold))

    def resolve(self, lookup: Callable[[str], Any]) -> Any:
        """Evaluate every dynamic part against ``lookup``.

        Raises:
            EvaluationError: if a dynamic part cannot be evaluated.
        """
        return _map_dynamic(self.data, lambda dynamic: dynamic.expression.evaluate(lookup))


def _no_lookup(name: str) -> Any:
    raise KeyError(name)


def _dynamics(data: Any) -> Iterator[Dynamic]:
    if isinstance(data, Dynamic):
        yield data
    elif isinstance(data, dict):
        for item in data.values():
            yield from _dynamics(item)
    elif isinstance(data, list):
        for item in data:
            yield from _dynamics(item)


def _map_dynamic(data: Any, function: Callable[[Dynamic], Any]) -> Any:
    if isinstance(data, Dynamic):
        return function(data)
    if isinstance(data, dict):
        return {key: _map_dynamic(item, function) for key, item in data.items()}
    if isinstance(data, list):
        return [_map_dynamic(item, function) for item in data]
    return data


@dataclasses.dataclass
class NodeSpec:
    """One node of a tree as written.

    Attributes:
        type: the canonical node type name
        name: the node's name (defaults to the type name)
        params: parameter values as written (defaults are not filled in here)
        children: child nodes in order
        loc: where the node starts
        path: the node path used in messages and as a stable id, e.g. ``Patrol/root/dock``
    """

    type: str  # noqa: A003
    name: str
    params: dict[str, Value]
    children: list['NodeSpec']
    loc: SourceLocation
    path: str

    def walk(self) -> Iterator['NodeSpec']:
        """Yield this node and all descendants, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclasses.dataclass
class TreeSpec:
    """A named tree: its parameters (with defaults) and its root node."""

    name: str
    root: NodeSpec
    loc: SourceLocation
    params: dict[str, Optional[Value]] = dataclasses.field(default_factory=dict)
    doc: str = ''

    @property
    def file(self) -> str:
        """Return the file the tree is defined in."""
        return self.loc.file


@dataclasses.dataclass
class Document:
    """Everything loaded from one tree file and its includes."""

    path: str
    trees: dict[str, TreeSpec]
    main: Optional[str] = None
    blackboard: dict[str, Value] = dataclasses.field(default_factory=dict)
    #: Blackboard keys the executive checkpoints and restores after a restart (the
    #: ``persistent`` section of every file), with where each was declared.
    persistent: dict[str, SourceLocation] = dataclasses.field(default_factory=dict)
    #: Extra top-level sections (e.g. ``subscriptions``) for the ROS layer, by file.
    sections: dict[str, list[Any]] = dataclasses.field(default_factory=dict)
    files: list[str] = dataclasses.field(default_factory=list)
    #: Problems that do not stop the file from loading (e.g. a key nothing writes).
    warnings: list[Diagnostic] = dataclasses.field(default_factory=list)
    #: False when some node or tree of the files did not load (the document has errors):
    #: a check that needs every node (what each blackboard key holds) waits for a fix.
    complete: bool = True

    @property
    def needs_tree_choice(self) -> bool:
        """Tell whether the file has several trees and no ``main``: a tool must name one."""
        return self.main is None and len(self.trees) > 1

    def tree(self, name: Optional[str] = None, *,
             choose: str = 'name the tree to run') -> TreeSpec:
        """Return the named tree, or the main tree when ``name`` is None.

        Args:
            name: the tree's name; None for ``main`` (or the only tree)
            choose: how the calling tool names a tree, for the message when the file has
                several trees and no ``main`` (``choose one with --tree NAME``)

        Raises:
            TreeError: if there is no such tree.
        """
        from bt_executive.core.registry import hint  # local: keeps spec free of cycles
        wanted = name or self.main
        if wanted is None:
            if len(self.trees) == 1:
                return next(iter(self.trees.values()))
            raise TreeError.single(
                SourceLocation(self.path),
                f"the file defines several trees and no 'main': add 'main: NAME' to the file "
                f"or {choose} (trees: {', '.join(sorted(self.trees))})")
        tree = self.trees.get(wanted)
        if tree is None:
            raise TreeError.single(
                SourceLocation(self.path),
                f"no tree named '{wanted}'{hint(wanted, list(self.trees))} "
                f"(trees: {', '.join(sorted(self.trees)) or 'none'})")
        return tree


__all__ = ['Document', 'Dynamic', 'EvaluationError', 'NodeSpec', 'TreeSpec', 'Value']
