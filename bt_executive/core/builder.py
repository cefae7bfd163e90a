"""Turn a validated :class:`~bt_executive.core.spec.Document` into a py_trees tree.

Subtrees are expanded in place (wrapped in a :class:`SubtreeBehaviour` so viewers see
the boundary); tree parameters are substituted into the called tree's values; every
behaviour gets ``bt_path`` (the stable node id) and ``bt_type`` attributes. A
:class:`FaultGuard` makes an exception raised while a behaviour is ticked or halted that
behaviour's FAILURE (the reason names the exception) instead of the end of the tick, and
logs its traceback once through :attr:`BuildContext.log_error`: plugin node types are
guarded when built, bt_executive's and py_trees' own when they first raise
(:func:`contain_fault`, which the executive calls), so an ordinary tick pays nothing.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import traceback
from typing import Any, Callable, Iterator, Mapping, Optional

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.expressions import Expression, literal
from bt_executive.core.loader import check_type
from bt_executive.core.registry import Category, NodeType, ParamType, Registry, REQUIRED
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value
import py_trees

#: Deepest subtree nesting when expanding (recursion is rejected at load time).
MAX_SUBTREE_DEPTH = 64

#: Distinct errors of one behaviour whose traceback is logged; later ones are only counted.
MAX_LOGGED_FAULTS = 5


def log_to_stderr(text: str) -> None:
    """Log an error through the ``bt_executive`` logger (stderr unless configured)."""
    logging.getLogger('bt_executive').error(text)


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
        log_error: receives the report (with traceback) of a behaviour that raised, once
            per behaviour and distinct error (the executive passes its ROS logger)
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

    def names(self) -> frozenset[str]:
        """Return every blackboard name the dynamic values read."""
        names: set[str] = set()
        for value in self.values.values():
            names |= value.names()
        return frozenset(names)


class SubtreeBehaviour(py_trees.decorators.Decorator):
    """Marks where a named tree was expanded; passes its child's status through."""

    def __init__(self, name: str, child: py_trees.behaviour.Behaviour, *, tree: str):
        super().__init__(name=name, child=child)
        self.tree_name = tree

    def update(self) -> py_trees.common.Status:
        """Reflect the subtree's status."""
        self.feedback_message = self.decorated.feedback_message
        return self.decorated.status


class FaultGuard:
    """Contain the exceptions of one behaviour: that behaviour fails, the tree goes on.

    Installed (as instance attributes replacing ``tick`` and ``terminate``) when a node is
    built from a node type outside bt_executive and py_trees, and on any other behaviour
    the first time it raises (:func:`contain_fault`): the guard's extra generator frame
    costs about a fifth of a tick, so trusted nodes run unguarded. When the behaviour's
    tick raises (its ``initialise()``, ``update()``
    or a composite's own logic; the children are guarded themselves) its running children
    are halted (INVALID: their goals are cancelled), it is stopped with FAILURE and its
    feedback message says which method raised what. An exception in ``terminate()`` is
    reported and the stop completes. Each distinct error (type and message) of a behaviour
    is logged with its traceback once, at most :data:`MAX_LOGGED_FAULTS` of them.

    Args:
        behaviour: the behaviour to guard
        path: its node path (named in reports)
        log_error: where reports go
    """

    def __init__(self, behaviour: py_trees.behaviour.Behaviour, path: str,
                 log_error: Callable[[str], None]) -> None:
        self.behaviour = behaviour
        self.path = path
        self.log_error = log_error
        #: how many exceptions the behaviour raised so far
        self.faults = 0
        self.logged: set[tuple[str, str]] = set()
        #: an error reported already that the next tick turns into FAILURE (contain_fault)
        self.pending: Optional[tuple[Exception, str]] = None
        self._tick = behaviour.tick
        self._terminate = behaviour.terminate
        behaviour.tick = self.tick
        behaviour.terminate = self.terminate
        behaviour.bt_guard = self

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick the behaviour; if that raises, stop it with FAILURE and yield it."""
        if self.pending is not None:  # it raised in the tick being run again: fail now
            (_, reason), self.pending = self.pending, None
            yield from self._fail(reason)
            return
        try:
            yield from self._tick()
        except Exception as error:  # noqa: B902 - whatever a node raises, it fails alone
            yield from self._fail(self.report(error))

    def _fail(self, reason: str) -> Iterator[py_trees.behaviour.Behaviour]:
        """Halt the running children, stop the behaviour with FAILURE, yield it."""
        behaviour = self.behaviour
        try:
            for child in behaviour.children:  # py_trees only halts them on INVALID
                if child.status is py_trees.common.Status.RUNNING:
                    child.stop(py_trees.common.Status.INVALID)
            behaviour.stop(py_trees.common.Status.FAILURE)
        except Exception as again:  # noqa: B902 - stopping raised as well
            self.report(again)
            behaviour.status = py_trees.common.Status.FAILURE
        behaviour.feedback_message = reason
        yield behaviour

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """Call the behaviour's own terminate; an exception is reported, not raised."""
        try:
            self._terminate(new_status)
        except Exception as error:  # noqa: B902 - the stop must complete
            self.behaviour.feedback_message = self.report(error)

    def report(self, error: Exception) -> str:
        """Count and (once per distinct error) log ``error``; return the failure reason."""
        self.faults += 1
        where = _raised_in(error, self.behaviour)
        reason = f'{where} raised {type(error).__name__}: {error}'.rstrip(': ')
        key = (type(error).__name__, str(error))
        if key not in self.logged and len(self.logged) < MAX_LOGGED_FAULTS:
            self.logged.add(key)
            lines = traceback.format_exception(type(error), error, error.__traceback__)
            more = ('; further distinct errors of this node are not logged'
                    if len(self.logged) == MAX_LOGGED_FAULTS else '')
            try:
                self.log_error(f'{self.path}: {reason} (the node fails; logged once{more})'
                               f'\n{"".join(lines).rstrip()}')
            except Exception:  # noqa: B902 - a broken log sink must not break the tick
                pass
        return reason


def contain_fault(error: BaseException, root: py_trees.behaviour.Behaviour, *,
                  in_tick: bool = True) -> bool:
    """Guard the unguarded behaviour that raised ``error`` during a tick or a stop.

    The behaviour is the innermost one of ``root``'s tree on the traceback. It gets a
    :class:`FaultGuard` (which logs the error once) holding the error as pending, so that
    when the caller runs the tick again the behaviour fails at once instead of raising:
    the tick in which a trusted node first raises is run a second time (what ran before
    the node in it runs twice, once); from then on the guard contains it in place. With
    ``in_tick=False`` (a stop raised) nothing is pending: the caller stops again and the
    guard's ``terminate`` reports instead of raising. The error is logged through the
    ``log_error`` the tree was built with.

    Returns:
        False if no unguarded behaviour of the tree raised it (the caller re-raises).
    """
    if not isinstance(error, Exception):
        return False
    members = {id(behaviour): behaviour for behaviour in root.iterate()}
    culprit = None
    trace = error.__traceback__
    while trace is not None:
        candidate = trace.tb_frame.f_locals.get('self')
        if candidate is not None and id(candidate) in members \
                and members[id(candidate)] is candidate:
            culprit = candidate
        trace = trace.tb_next
    if culprit is None or getattr(culprit, 'bt_guard', None) is not None:
        return False
    guard = FaultGuard(culprit, getattr(culprit, 'bt_path', culprit.name),
                       getattr(culprit, 'bt_log_error', log_to_stderr))
    reason = guard.report(error)
    if in_tick:
        guard.pending = (error, reason)
    else:
        culprit.feedback_message = reason
    return True


def _trusted(node_type: NodeType) -> bool:
    """Tell whether a node type is implemented by bt_executive or py_trees."""
    return node_type.source.startswith(('bt_executive.', 'py_trees.'))


def _raised_in(error: BaseException, behaviour: py_trees.behaviour.Behaviour) -> str:
    """Name the method of ``behaviour`` that raised: a lifecycle method, else ``tick()``."""
    trace = error.__traceback__
    while trace is not None:
        frame = trace.tb_frame
        if frame.f_code.co_name in _LIFECYCLE and frame.f_locals.get('self') is behaviour:
            return f'{frame.f_code.co_name}()'
        trace = trace.tb_next
    return 'tick()'


_LIFECYCLE = frozenset({'initialise', 'update', 'terminate'})


class Builder:
    """Instantiate trees of a document.

    Args:
        context: the build environment
    """

    def __init__(self, context: BuildContext):
        self.context = context
        self.errors: list[Diagnostic] = []
        self._calls: list[SourceLocation] = []

    def build(self, tree_name: Optional[str] = None) -> py_trees.behaviour.Behaviour:
        """Build the named (or main) tree and return its root behaviour.

        Raises:
            TreeError: when a value only known after substituting tree parameters is wrong.
        """
        tree = self.context.document.tree(tree_name)
        self.errors = []
        bindings = self._bindings(tree, {}, None, {}, tree.name)
        root = self._node(tree.root, bindings, prefix='', depth=0)
        if self.errors or root is None:
            raise TreeError(self.errors)
        return root

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
            value = value.substitute(outer)
            if isinstance(value.data, Dynamic):
                bindings[name] = value.data.expression
            elif value.is_static:
                bindings[name] = literal(value.data)
            else:
                self.errors.append(Diagnostic(
                    value.loc, f"argument '{name}' must be a literal, a single reference "
                    'or a single expression, not a structure holding references', path))
        return bindings

    def _node(self, spec: NodeSpec, bindings: Mapping[str, Expression], *, prefix: str,
              depth: int) -> Optional[py_trees.behaviour.Behaviour]:
        node_type = self.context.registry.get(spec.type)
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        values: dict[str, Value] = {}
        errors_before = len(self.errors)
        for name, value in spec.params.items():
            resolved = value.substitute(bindings)
            param = node_type.param(name)
            if param is not None and not resolved.is_static and _foldable(resolved):
                resolved = resolved.fold_constants()
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
            return self._subtree(spec, node_type, values, bindings, path, depth)
        children = []
        for child in spec.children:
            built = self._node(child, bindings, prefix=prefix, depth=depth)
            if built is not None:
                children.append(built)
        if len(children) != len(spec.children):
            return None
        params = Params(node_type, values, self.context.lookup)
        try:
            behaviour = node_type.factory(self.context, spec.name, params, children)
        except Exception as error:  # noqa: B902 - a factory must never crash loading
            self.errors.append(Diagnostic(spec.loc, f'cannot build {spec.type}: {error}',
                                          path))
            return None
        reads = params.names()
        if reads:  # every key a dynamic parameter reads (event-driven ticking watches them)
            behaviour.bt_reads = getattr(behaviour, 'bt_reads', frozenset()) | reads
        if not _trusted(node_type):  # plugins: contained from the start
            FaultGuard(behaviour, path, self.context.log_error)
        return self._register(behaviour, path, spec)

    def _fail(self, value: Value, message: str, path: str) -> None:
        """Record an error found after substituting tree arguments, naming the call."""
        via = f' (argument from the call at {self._calls[-1]})' if self._calls else ''
        self.errors.append(Diagnostic(value.loc, message + via, path))

    def _subtree(self, spec: NodeSpec, node_type: NodeType, values: dict[str, Value],
                 bindings: Mapping[str, Expression], path: str,
                 depth: int) -> Optional[py_trees.behaviour.Behaviour]:
        if depth >= MAX_SUBTREE_DEPTH:
            self.errors.append(Diagnostic(spec.loc, f'subtrees nested deeper than '
                                          f'{MAX_SUBTREE_DEPTH}', path))
            return None
        reserved = set(node_type.param_names())
        tree = self.context.document.tree(values['tree'].data)
        arguments = {k: v for k, v in values.items() if k not in reserved}
        inner = self._bindings(tree, arguments, spec, {}, path)
        self._calls.append(spec.loc)
        try:
            child = self._node(tree.root, inner, prefix=path, depth=depth + 1)
        finally:
            self._calls.pop()
        if child is None:
            return None
        return self._register(SubtreeBehaviour(spec.name, child, tree=tree.name), path, spec)

    def _register(self, behaviour: py_trees.behaviour.Behaviour, path: str,
                  spec: NodeSpec) -> py_trees.behaviour.Behaviour:
        behaviour.bt_path = path
        behaviour.bt_type = spec.type
        behaviour.bt_loc = spec.loc
        behaviour.bt_log_error = self.context.log_error
        self.context.nodes[path] = behaviour
        return behaviour


def _foldable(value: Value) -> bool:
    return all(dynamic.expression.is_constant for dynamic in value.dynamics())


def build(document: Document, tree_name: Optional[str] = None, *,
          context: Optional[BuildContext] = None,
          registry: Optional[Registry] = None) -> py_trees.behaviour.Behaviour:
    """Build a tree of ``document`` with the default catalogue (or ``context``).

    Raises:
        TreeError: when the tree cannot be built.
    """
    if context is None:
        if registry is None:
            from bt_executive.nodes.catalogue import default_registry
            registry = default_registry()
        context = BuildContext(registry=registry, document=document)
    return Builder(context).build(tree_name)


def apply_blackboard_defaults(document: Document, *, overwrite: bool = True) -> None:
    """Write the document's initial ``blackboard:`` values to the py_trees blackboard."""
    for key, value in document.blackboard.items():
        if overwrite or ('/' + key) not in py_trees.blackboard.Blackboard.storage:
            py_trees.blackboard.Blackboard.set('/' + key, value.data)


__all__ = ['BuildContext', 'Builder', 'FaultGuard', 'Params', 'SourceLocation', 'SubtreeBehaviour',
           'apply_blackboard_defaults', 'blackboard_lookup', 'build']
