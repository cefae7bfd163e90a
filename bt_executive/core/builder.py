# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Turn a validated :class:`~bt_executive.core.spec.Document` into a py_trees tree.

Subtrees are expanded in place (wrapped in a :class:`SubtreeBehaviour` so viewers see
the boundary); tree parameters are substituted into the called tree's values, and a
parameter of type ``key`` that names a tree parameter becomes the key its argument
refers to (so writes land in the caller's key, as with remapped BT.CPP ports). The result
is a :class:`~bt_executive.core.table.BuiltTree`: the py_trees root plus a node table
(``behaviour.id -> NodeInfo``: node path, node type, source location, blackboard reads,
outcome probe, fault guard). Nothing is stamped on the behaviours. Nodes of plugin types
(outside bt_executive and py_trees) get a :class:`~bt_executive.core.faults.FaultGuard`
when built; the rest only when they first raise (:mod:`bt_executive.core.faults`).
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Any, Callable, Mapping, Optional

from bt_executive.core.document_checks import NOT_FINITE
from bt_executive.core.errors import Diagnostic, excerpt, ParameterError, SourceLocation, \
    TreeError
from bt_executive.core.expressions import EvaluationError, Expression, literal
from bt_executive.core.faults import FaultGuard
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry, \
    REQUIRED
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value
from bt_executive.core.table import BuiltTree, log_to_stderr, NodeInfo, NodeTable, Probe
from bt_executive.core.values import check_type, is_key
import py_trees

#: Deepest subtree nesting when expanding (recursion is rejected at load time).
MAX_SUBTREE_DEPTH = 64
#: Deepest node of a tree once its subtrees are expanded (ticking recurses per level).
MAX_TREE_DEPTH = 256
#: Most behaviours in one built tree (a tree calling another twice doubles it per level).
MAX_BUILT_NODES = 100_000


def blackboard_lookup(name: str) -> Any:
    """Read a root blackboard key from the py_trees blackboard (KeyError if unset)."""
    return py_trees.blackboard.Blackboard.storage['/' + name]


@dataclasses.dataclass
class BuildContext:
    """What factories get besides their node: the environment the tree will run in.

    Attributes:
        registry: node types (with the factories for this environment)
        document: the loaded document (for subtrees)
        lookup: reads a root blackboard key; raises KeyError when it is unset
        clock: seconds, used by every time-based node (the ROS layer passes the ROS clock)
        seed: base seed for random nodes (None: nondeterministic)
        stubs: how offline tools stand in for ROS leaves (node type or path -> spec)
        extras: anything a layer wants factories to see (e.g. the ROS node registry)
        nodes: every built behaviour by node path (filled while building)
        table: what is known of every built behaviour (filled while building)
        log_error: receives the report (with traceback) of a behaviour that raised, once
            per behaviour and distinct error (the executive passes its ROS logger)
        log: where ``Log`` nodes write, ``log(level, text)`` with level 'debug', 'info',
            'warning', 'error' or 'critical' (None: Python logging, logger
            'bt_executive.tree'; the executive passes its ROS logger)
    """

    registry: Registry
    document: Document
    lookup: Callable[[str], Any] = blackboard_lookup
    clock: Callable[[], float] = time.monotonic
    seed: Optional[int] = None
    stubs: dict[str, Any] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    nodes: dict[str, py_trees.behaviour.Behaviour] = dataclasses.field(default_factory=dict)
    log_error: Callable[[str], None] = log_to_stderr
    log: Optional[Callable[[str, str], None]] = None
    table: NodeTable = dataclasses.field(default_factory=NodeTable)
    declared: dict[Any, tuple[frozenset[str], Optional[Probe]]] = dataclasses.field(
        default_factory=dict)

    def declare(self, behaviour: py_trees.behaviour.Behaviour, *,
                reads: frozenset[str] = frozenset(), probe: Optional[Probe] = None) -> None:
        """Record what a factory knows of the behaviour it made (kept in the node table).

        Args:
            behaviour: the behaviour the factory returns (or one of its helpers)
            reads: root blackboard keys it reads besides its dynamic parameters
            probe: ``lookup -> outcome`` for a pure reader (event ticking wakes the tree
                only when that outcome changes)
        """
        old_reads, old_probe = self.declared.get(behaviour.id, (frozenset(), None))
        self.declared[behaviour.id] = (old_reads | reads, probe or old_probe)

    def next_seed(self) -> Optional[int]:
        """Return a seed for the next random node (derived from ``seed``)."""
        if self.seed is None:
            return None
        self.seed += 1
        return self.seed


class Params:
    """The parameters of one node, with defaults filled in.

    Static values are read with ``params['name']``; values that may change while the
    tree runs are read through ``params.getter('name')()``.
    """

    def __init__(self, node_type: NodeType, values: Mapping[str, Value],
                 lookup: Callable[[str], Any]):
        self.node_type = node_type
        self.values = dict(values)
        self._lookup = lookup

    def __getitem__(self, name: str) -> Any:
        value = self.values.get(name)
        if value is None:
            param = self.node_type.param(name)
            if param is None or param.default is REQUIRED:
                raise KeyError(name)
            return param.default
        if not value.is_static:
            raise ValueError(f"parameter '{name}' is dynamic; use getter()")
        return value.data

    def get(self, name: str, default: Any = None) -> Any:
        """Return a static value, or ``default`` when it is absent without a default."""
        try:
            return self[name]
        except KeyError:
            return default

    def is_dynamic(self, name: str) -> bool:
        """Tell whether the value is computed while the tree runs."""
        value = self.values.get(name)
        return value is not None and not value.is_static

    def getter(self, name: str) -> Callable[[], Any]:
        """Return a function that computes the current value (evaluates blackboard refs)."""
        value = self.values.get(name)
        if value is None or value.is_static:
            constant = self[name]
            return lambda: constant
        lookup = self._lookup
        return lambda: value.resolve(lookup)

    def expression(self, name: str) -> Optional[Expression]:
        """Return the expression of an expression-typed parameter."""
        value = self.values.get(name)
        if value is None:
            return None
        if isinstance(value.data, Dynamic):
            return value.data.expression
        return literal(value.data)

    def written(self, name: str) -> str:
        """Return an expression parameter as the file writes it (before tree arguments).

        ``speed <= limit`` stays that, where :meth:`expression` has the arguments in
        place (``speed <= 1.5``); ``${...}`` and ``$`` are left out. The default's text
        when the node does not set it.
        """
        value = self.values.get(name)
        if value is None or not isinstance(value.data, Dynamic):
            return str(self.expression(name) or self.get(name, ''))
        text = value.data.text
        if text.startswith('${') and text.endswith('}'):
            return text[2:-1]
        return text[1:] if text.startswith('$') else text

    def names(self) -> frozenset[str]:
        """Return every blackboard name the dynamic values read."""
        names: set[str] = set()
        for value in self.values.values():
            names |= value.names()
        return frozenset(names)


class SubtreeBehaviour(py_trees.decorators.Decorator):
    """Marks where a named tree was expanded; passes its child's status through.

    It declares the ``Subtree`` node type, which has no factory: :class:`Builder` expands
    it (the called tree's root, built with the call's arguments, becomes its child).
    """

    declaration = NodeType(
        name='Subtree',
        category=Category.SUBTREE,
        doc=('Runs another tree of the document in place. Further keys are arguments for '
             "the called tree's params (literals, $references or ${expressions})."),
        params=(
            Param('tree', ParamType.STRING, 'name of the tree to run'),
        ),
        primary='tree',
        aliases=('RunTree', 'SubTree'),
        btcpp='SubTree',
    )

    def __init__(self, name: str, child: py_trees.behaviour.Behaviour, *, tree: str):
        super().__init__(name=name, child=child)
        self.tree_name = tree

    def update(self) -> py_trees.common.Status:
        """Reflect the subtree's status."""
        self.feedback_message = self.decorated.feedback_message
        return self.decorated.status


def _trusted(node_type: NodeType) -> bool:
    """Tell whether a node type is implemented by bt_executive or py_trees."""
    return node_type.source.startswith(('bt_executive.', 'py_trees.'))


class Builder:
    """Instantiate trees of a document.

    Args:
        context: the build environment
    """

    def __init__(self, context: BuildContext):
        self.context = context
        self.errors: list[Diagnostic] = []
        self._calls: list[SourceLocation] = []
        self._count = 0
        #: where each tree parameter of the trees being expanded got its value (a stack)
        self._origins: list[dict[str, SourceLocation]] = []

    def build(self, tree_name: Optional[str] = None) -> BuiltTree:
        """Build the named (or main) tree: its root behaviour and its node table.

        Raises:
            TreeError: when a value only known after substituting tree parameters is wrong.
        """
        tree = self.context.document.tree(tree_name)
        self.errors = []
        self._count = 0
        bindings = self._bindings(tree, {}, None, {}, tree.name)
        self._origins = [self._argument_origins(tree, {})]
        root = self._node(tree.root, bindings, prefix='', depth=0, level=0)
        if self.errors or root is None:
            raise TreeError(self.errors)
        table = NodeTable((b.id, self.context.table[b.id]) for b in root.iterate()
                          if b.id in self.context.table)
        return BuiltTree(root=root, nodes=table, name=tree.name)

    def _bindings(self, tree: TreeSpec, arguments: Mapping[str, Value],
                  call: Optional[NodeSpec], outer: Mapping[str, Expression],
                  path: str) -> dict[str, Expression]:
        bindings: dict[str, Expression] = {}
        for name, default in tree.params.items():
            value = arguments.get(name, default)
            if value is None:
                loc = call.loc if call else tree.loc
                self.errors.append(Diagnostic(loc, f"tree '{tree.name}' needs argument "
                                              f"'{name}'", path))
                continue
            try:
                value = value.substitute(outer)
            except TreeError as error:
                self._relocated(error, path)
                continue
            if isinstance(value.data, Dynamic):
                bindings[name] = value.data.expression
            elif value.is_static:
                try:
                    bindings[name] = literal(value.data)
                except (TypeError, ValueError) as error:  # .inf, .nan, a value too large
                    problem = NOT_FINITE if 'non-finite' in str(error) else str(error)
                    self.errors.append(Diagnostic(value.loc, f"argument '{name}': {problem}",
                                                  path))
            else:
                self.errors.append(Diagnostic(
                    value.loc, f"argument '{name}' must be a literal, a single reference "
                    'or a single expression, not a structure holding references', path))
        return bindings

    @staticmethod
    def _argument_origins(tree: TreeSpec,
                          arguments: Mapping[str, Value]) -> dict[str, SourceLocation]:
        """Return where each tree parameter's value is written: the argument or default."""
        origins = {}
        for name, default in tree.params.items():
            value = arguments.get(name, default)
            if value is not None:
                origins[name] = value.loc
        return origins

    def _node(self, spec: NodeSpec, bindings: Mapping[str, Expression], *, prefix: str,
              depth: int, level: int) -> Optional[py_trees.behaviour.Behaviour]:
        node_type = self.context.registry.require(spec.type)
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        self._count += 1
        if self._count > MAX_BUILT_NODES:
            raise TreeError.single(spec.loc, f'the tree has more than {MAX_BUILT_NODES} '
                                   'nodes once its subtrees are expanded', path)
        if level >= MAX_TREE_DEPTH:
            self.errors.append(Diagnostic(spec.loc, f'the tree nests deeper than '
                                          f'{MAX_TREE_DEPTH} levels once its subtrees are '
                                          'expanded', path))
            return None
        values: dict[str, Value] = {}
        errors_before = len(self.errors)
        for name, value in spec.params.items():
            param = node_type.param(name)
            if param is not None and param.type is ParamType.KEY and bindings:
                key = self._key(name, value, bindings, spec, path)
                if key is None:
                    continue
                if key is not value:
                    values[name] = key
                    continue
            try:
                resolved = value.substitute(bindings)
                if param is not None and not resolved.is_static and _foldable(resolved):
                    folded = resolved.fold_constants()  # raises if it cannot be evaluated
                    if param.type is not ParamType.EXPRESSION:
                        resolved = folded  # an expression stays one: it explains itself
            except TreeError as error:
                self._relocated(error, path)
                continue
            if param is not None and param.type is not ParamType.EXPRESSION \
                    and resolved is not value:
                if not resolved.is_static and not param.dynamic:
                    self._fail(value, f"parameter '{name}' must be known when the tree is "
                               'built, but the tree argument reads the blackboard', path)
                    continue
                problem = check_type(param, resolved.data) if resolved.is_static else None
                if problem:
                    self._fail(value, f"parameter '{name}': {problem}", path)
                    continue
            values[name] = resolved
        if len(self.errors) > errors_before:
            return None
        if node_type.category is Category.SUBTREE:
            return self._subtree(spec, node_type, values, bindings, path, depth, level)
        children = []
        for child in spec.children:
            built = self._node(child, bindings, prefix=prefix, depth=depth, level=level + 1)
            if built is not None:
                children.append(built)
        if len(children) != len(spec.children):
            return None
        params = Params(node_type, values, self.context.lookup)
        try:
            if node_type.factory is None:
                raise TypeError(f'node type {node_type.name} has no factory')
            behaviour: py_trees.behaviour.Behaviour = node_type.factory(
                self.context, spec.name, params, children)
        except ParameterError as error:  # at each parameter's value
            self.errors.extend(Diagnostic(
                spec.params[name].loc if name in spec.params else spec.loc,
                f'cannot build {spec.type}: {message}', path)
                for name, message in error.problems)
            return None
        except Exception as error:  # noqa: B902 - a factory must never crash loading
            self.errors.append(Diagnostic(spec.loc, f'cannot build {spec.type}: {error}',
                                          path))
            return None
        info = self._register(behaviour, path, spec)
        # every key a dynamic parameter reads (event-driven ticking watches them)
        info.reads |= params.names()
        if not _trusted(node_type):  # plugins: contained from the start
            info.guard = FaultGuard(behaviour, path, self.context.log_error)
        return behaviour

    def _key(self, name: str, value: Value, bindings: Mapping[str, Expression],
             spec: NodeSpec, path: str) -> Optional[Value]:
        """Return a key parameter with a tree parameter at its head remapped.

        ``key: out`` (or ``$out``, ``out.pose``) in a tree whose parameter ``out`` is
        bound to ``$result`` names ``result`` (``result.pose``). Values that do not start
        with a tree parameter come back unchanged; so does a key computed by an
        expression (``${'count_' + name}``), which must fold to a literal as usual.
        Records an error and returns None when the tree parameter is bound to something
        that is not a key (a literal, an expression, an indexed reference).
        """
        data = value.data
        if isinstance(data, Dynamic):
            text = str(data.expression)
        elif isinstance(data, str):
            text = data
        else:
            return value
        if not is_key(text):
            return value
        head, dot, rest = text.partition('.')
        bound = bindings.get(head)
        if bound is None:
            return value
        target = str(bound)
        if not bound.is_constant and is_key(target):
            return Value(target + dot + rest, value.loc)
        if bound.is_constant:
            try:
                literal_value = bound.evaluate(_no_lookup)
            except EvaluationError:  # e.g. 1 / 0: show it as written
                literal_value = str(bound)
            shown = f'the literal {literal_value!r}'
            example = f'${literal_value}' if isinstance(literal_value, str) \
                and is_key(literal_value) else '$result'
        else:
            shown = f'${target}' if _REFERENCE_TEXT.match(target) else f'${{{target}}}'
            example = '$result'
        origins = self._origins[-1] if self._origins else {}
        where = origins.get(head, value.loc)
        what = 'argument' if self._calls else 'default'
        self.errors.append(Diagnostic(
            where, f"tree parameter '{head}' is used as a blackboard key ({spec.type} "
            f"'{name}' at {value.loc}), so its {what} must be a reference to a key "
            f'(names and .fields), like {example}, not {shown}', path))
        return None

    def _fail(self, value: Value, message: str, path: str) -> None:
        """Record an error found after substituting tree arguments, naming the call."""
        self.errors.append(Diagnostic(value.loc, message + self._via(), path))

    def _relocated(self, error: TreeError, path: str) -> None:
        """Record the diagnostics of a value's error at the node ``path``."""
        self.errors.extend(Diagnostic(d.location, d.message + self._via(), path)
                           for d in error.diagnostics)

    def _via(self) -> str:
        return f' (argument from the call at {self._calls[-1]})' if self._calls else ''

    def _subtree(self, spec: NodeSpec, node_type: NodeType, values: dict[str, Value],
                 bindings: Mapping[str, Expression], path: str,
                 depth: int, level: int) -> Optional[py_trees.behaviour.Behaviour]:
        if depth >= MAX_SUBTREE_DEPTH:
            self.errors.append(Diagnostic(spec.loc, f'subtrees nested deeper than '
                                          f'{MAX_SUBTREE_DEPTH}', path))
            return None
        reserved = set(node_type.param_names())
        target = values['tree']
        tree = self.context.document.trees.get(target.data) \
            if isinstance(target.data, str) else None
        if tree is None:
            self._fail(target, f"unknown tree '{excerpt(str(target.data))}' (trees: "
                       f"{', '.join(sorted(self.context.document.trees))})", path)
            return None
        arguments = {k: v for k, v in values.items() if k not in reserved}
        errors_before = len(self.errors)
        inner = self._bindings(tree, arguments, spec, {}, path)
        if len(self.errors) > errors_before:  # the called tree would miss an argument
            return None
        self._calls.append(spec.loc)
        self._origins.append(self._argument_origins(tree, arguments))
        try:
            child = self._node(tree.root, inner, prefix=path, depth=depth + 1,
                               level=level + 1)
        finally:
            self._calls.pop()
            self._origins.pop()
        if child is None:
            return None
        behaviour = SubtreeBehaviour(spec.name, child, tree=tree.name)
        self._register(behaviour, path, spec)
        return behaviour

    def _register(self, behaviour: py_trees.behaviour.Behaviour, path: str,
                  spec: NodeSpec) -> NodeInfo:
        """Enter ``behaviour`` in the node table with what its factory declared."""
        reads, probe = self.context.declared.pop(behaviour.id, (frozenset(), None))
        info = NodeInfo(path=path, type=spec.type, loc=spec.loc, reads=reads, probe=probe,
                        log_error=self.context.log_error)
        self.context.table[behaviour.id] = info
        self.context.nodes[path] = behaviour
        return info


#: A reference as written after ``$``: a name, then ``.field`` and ``[index]`` parts.
_REFERENCE_TEXT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*\Z')


def _no_lookup(name: str) -> Any:
    raise KeyError(name)


def _foldable(value: Value) -> bool:
    return all(dynamic.expression.is_constant for dynamic in value.dynamics())


def build(document: Document, tree_name: Optional[str] = None, *,
          context: Optional[BuildContext] = None,
          registry: Optional[Registry] = None) -> BuiltTree:
    """Build a tree of ``document`` with ``registry`` (or ``context``).

    Raises:
        TreeError: when the tree cannot be built.
    """
    if context is None:
        if registry is None:
            raise TypeError('build() needs a registry or a context')
        context = BuildContext(registry=registry, document=document)
    return Builder(context).build(tree_name)


def apply_blackboard_defaults(document: Document, *, overwrite: bool = True) -> None:
    """Write the document's initial ``blackboard:`` values to the py_trees blackboard."""
    for key, value in document.blackboard.items():
        if overwrite or ('/' + key) not in py_trees.blackboard.Blackboard.storage:
            py_trees.blackboard.Blackboard.set('/' + key, value.data)


__all__ = ['BuildContext', 'Builder', 'BuiltTree', 'NodeInfo', 'NodeTable', 'Params',
           'SourceLocation', 'SubtreeBehaviour', 'apply_blackboard_defaults', 'blackboard_lookup',
           'build']
