# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Mutation operators: single realistic defects made on a loaded tree description.

A mutant is made on the :class:`~bt_executive.core.spec.Document` the loader produced
(the trees as written, every node and value with its ``file:line:col``), never by editing
text: an operator takes one node of a tree definition and returns the tree with one thing
changed, and says what changed (``before`` / ``after``) and where. The changed tree is
written back as YAML in the loader's explicit node form (``type``, ``name``, ``params``,
``children``; every node keeps its name, so node paths and the scenarios' expectations
still name the same nodes) by :func:`tree_data`; every other tree and section of the file
stays as written.

The operators (:data:`OPERATORS`, docs/testing.md says what a survivor of each usually
means) run in a fixed order over the trees the tree under test reaches (document order)
and their nodes (depth first), so the same file always gives the same mutants in the same
order. Mutants that cannot differ from the tree are not made: swapping two equal
children, a default every caller overrides, a result leaf replaced by itself, and a
mutant equal to an earlier one.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator, Optional

from bt_executive.core.errors import SourceLocation
from bt_executive.core.expressions import Expression, ExpressionError, parse
from bt_executive.core.expressions.nodes import BoolOp, Comparison, Literal, Not
from bt_executive.core.registry import Category, Registry
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value


@dataclasses.dataclass(frozen=True)
class Operator:
    """A kind of mutation.

    Attributes:
        name: as ``--operators`` and the reports name it
        summary: what it changes
        survivor: what a surviving mutant of this kind usually means
    """

    name: str
    summary: str
    survivor: str


#: The operators, in the order they are applied to each node.
OPERATORS: tuple[Operator, ...] = (
    Operator('swap', 'swap two neighbouring children of a composite',
             'no scenario depends on the order of the two: their priorities (a Selector) '
             'or their order of effects (a Sequence) are never tested'),
    Operator('delete', 'delete one child of a composite',
             'nothing checks what the child does: its effect, or its failure stopping '
             'the rest'),
    Operator('composite', 'Sequence <-> Selector, ReactiveSequence <-> ActiveSelector',
             'no scenario makes a child fail (or succeed) where the two differ'),
    Operator('memory', 'reactive <-> memory: memory flipped, ReactiveSequence -> '
             'Sequence, ActiveSelector -> Selector with memory',
             'no scenario changes a condition while a later child is running'),
    Operator('invert', 'invert a condition (Condition, WaitUntil, TopicCondition)',
             'the condition is never seen both true and false where it matters'),
    Operator('comparison', 'change a comparison operator at its boundary: < <=, > >=, '
             '== !=, in / not in',
             'no scenario puts the value exactly on the threshold'),
    Operator('logic', "and <-> or, drop a 'not'",
             'no scenario has the two operands disagree'),
    Operator('number', 'change a numeric constant: whole numbers +-1, others +-10 % '
             '(0 becomes +-0.1)',
             'no scenario puts a value (a threshold, a count, a timeout) between the old '
             'and the new constant'),
    Operator('decorator', 'drop a decorator (Retry, Timeout, Inverter, ...): it becomes '
             'a PassThrough of its child',
             'the decorator never changes anything a scenario checks: no second attempt, '
             'no timeout, ...'),
    Operator('blackboard', 'change the value a SetBlackboard writes: a boolean flipped, '
             'a number +-1, a string emptied, a computed value replaced by the old one',
             'nothing reads the written value back in a way a scenario checks'),
    Operator('result', 'replace a leaf by one that always returns SUCCESS, or FAILURE',
             "the leaf's work and its outcome are never checked"),
)
OPERATOR_NAMES: tuple[str, ...] = tuple(operator.name for operator in OPERATORS)

_FLIPPED_KIND = {'Sequence': 'Selector', 'Selector': 'Sequence',
                 'ReactiveSequence': 'ActiveSelector', 'ActiveSelector': 'ReactiveSequence'}
_BOUNDARY = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '==',
             'in': 'not in', 'not in': 'in'}
_CONDITION_LEAVES = ('Condition', 'WaitUntil', 'TopicCondition')
_RESULT_LEAVES = ('Success', 'Failure', 'Running')


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One mutant of one tree definition.

    Attributes:
        operator: the operator's name
        tree: the tree definition changed
        node: the node path of the changed node (``Recharge/Sequence/charged``)
        loc: where the changed thing is written
        site: where the node is written whose ticks the change needs (a scenario whose
            run never reaches it cannot tell the mutant from the tree)
        before: what was written, on one line
        after: what the mutant has instead
        mutated: the changed tree
    """

    operator: str
    tree: str
    node: str
    loc: SourceLocation
    site: SourceLocation
    before: str
    after: str
    mutated: TreeSpec = dataclasses.field(compare=False, repr=False)

    @property
    def key(self) -> str:
        """Return the name of the mutant in a scenario file's ``equivalent`` marks.

        It names no line, so it stays valid when lines move.
        """
        return f'{self.operator} {self.node}: {self.before} -> {self.after}'


# ---- writing a tree back as data ------------------------------------------------------

def _unvalue(data: Any) -> Any:
    """Return a parameter value as it must be written in YAML to load back the same."""
    if isinstance(data, Dynamic):
        return data.text
    if isinstance(data, str) and data.startswith('$'):
        return '$' + data  # a literal '$' is written '$$'
    if isinstance(data, dict):
        return {key: _unvalue(item) for key, item in data.items()}
    if isinstance(data, list):
        return [_unvalue(item) for item in data]
    return data


def node_data(node: NodeSpec) -> dict[str, Any]:
    """Return a node in the explicit form (``type``, ``name``, ``params``, ``children``)."""
    data: dict[str, Any] = {'type': node.type, 'name': node.name}
    if node.params:
        data['params'] = {name: _unvalue(value.data) for name, value in node.params.items()}
    if node.children:
        data['children'] = [node_data(child) for child in node.children]
    return data


def tree_data(tree: TreeSpec) -> Any:
    """Return a tree definition as YAML data that loads back to the same tree."""
    root = node_data(tree.root)
    if not tree.params and not tree.doc:
        return root
    data: dict[str, Any] = {}
    if tree.params:
        data['params'] = {name: None if value is None else _unvalue(value.data)
                          for name, value in tree.params.items()}
    if tree.doc:
        data['description'] = tree.doc
    data['root'] = root
    return data


# ---- which trees --------------------------------------------------------------------

def reachable_trees(document: Document, registry: Registry, name: str) -> list[str]:
    """Return the trees the tree ``name`` runs (itself included), in document order."""
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen or current not in document.trees:
            continue
        seen.add(current)
        for node in document.trees[current].root.walk():
            called = _called_tree(node, registry)
            if called is not None:
                pending.append(called)
    return [tree for tree in document.trees if tree in seen]


def _called_tree(node: NodeSpec, registry: Registry) -> Optional[str]:
    node_type = registry.get(node.type)
    if node_type is None or node_type.category is not Category.SUBTREE:
        return None
    value = node.params.get(node_type.primary or 'tree')
    return value.data if value is not None and isinstance(value.data, str) else None


# ---- generating -----------------------------------------------------------------------

class _Maker:
    """Apply the operators to the trees of one document."""

    def __init__(self, document: Document, registry: Registry, trees: list[str],
                 operators: tuple[str, ...]) -> None:
        self.document = document
        self.registry = registry
        self.trees = trees
        self.operators = operators
        # (tree, parameter) -> whether some call of the tree leaves it at its default
        self.defaulted: set[tuple[str, str]] = set()
        for name in trees:
            for node in document.trees[name].root.walk():
                called = _called_tree(node, registry)
                if called in document.trees:
                    for param in document.trees[called].params:
                        if param not in node.params:
                            self.defaulted.add((called, param))

    def mutants(self) -> Iterator[Mutant]:
        seen: set[tuple[str, str]] = set()
        for name in self.trees:
            tree = self.document.trees[name]
            original = repr(tree_data(tree))
            for mutant in self._tree_mutants(tree):
                if mutant.operator not in self.operators:
                    continue
                text = repr(tree_data(mutant.mutated))
                if text == original or (name, text) in seen:
                    continue
                seen.add((name, text))
                yield mutant

    def _tree_mutants(self, tree: TreeSpec) -> Iterator[Mutant]:
        for param, value in tree.params.items():
            if value is None or (tree.name, param) not in self.defaulted:
                continue
            for after in _numbers(value.data):
                params = dict(tree.params)
                params[param] = Value(after, value.loc)
                yield Mutant('number', tree.name, tree.root.path, value.loc, tree.root.loc,
                             f'{param}: {_show(value.data)}', f'{param}: {_show(after)}',
                             dataclasses.replace(tree, params=params))
        for node in tree.root.walk():
            for make in (self._swap, self._delete, self._composite, self._memory,
                         self._invert, self._expressions, self._number, self._decorator,
                         self._blackboard, self._result):
                for loc, before, after, operator, changed in make(node):
                    yield Mutant(operator, tree.name, node.path, loc, node.loc, before, after,
                                 dataclasses.replace(tree, root=_replaced(tree.root, node,
                                                                          changed)))

    # Each operator yields (loc, before, after, operator, the changed node).

    def _category(self, node: NodeSpec) -> Optional[Category]:
        node_type = self.registry.get(node.type)
        return None if node_type is None else node_type.category

    def _swap(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        if self._category(node) is not Category.COMPOSITE:
            return
        children = node.children
        for index in range(len(children) - 1):
            first, second = children[index], children[index + 1]
            if node_data(first) == node_data(second):
                continue
            swapped = list(children)
            swapped[index], swapped[index + 1] = second, first
            yield (first.loc, f'{first.name}, {second.name}', f'{second.name}, {first.name}',
                   'swap', dataclasses.replace(node, children=swapped))

    def _delete(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        node_type = self.registry.get(node.type)
        if node_type is None or node_type.category is not Category.COMPOSITE \
                or len(node.children) - 1 < max(node_type.min_children, 1):
            return
        for index, child in enumerate(node.children):
            kept = node.children[:index] + node.children[index + 1:]
            yield (child.loc, f'{child.name} ({child.type})', 'deleted', 'delete',
                   dataclasses.replace(node, children=kept))

    def _composite(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        flipped = _FLIPPED_KIND.get(node.type)
        if flipped is None:
            return
        new_type = self.registry.require(flipped)
        params = {k: v for k, v in node.params.items() if new_type.param(k) is not None}
        yield (node.loc, node.type, flipped, 'composite',
               dataclasses.replace(node, type=flipped, params=params))

    def _memory(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        node_type = self.registry.get(node.type)
        if node_type is None:
            return
        if node.type in ('Sequence', 'Selector'):
            param = node_type.param('memory')
            assert param is not None
            value = node.params.get('memory')
            current = value.data if value is not None else param.default
            if not isinstance(current, bool):
                return
            params = dict(node.params)
            params['memory'] = Value(not current, value.loc if value else node.loc)
            yield (value.loc if value else node.loc, f'memory: {_show(current)}',
                   f'memory: {_show(not current)}', 'memory',
                   dataclasses.replace(node, params=params))
        elif node.type in ('ReactiveSequence', 'ActiveSelector'):
            plain = 'Sequence' if node.type == 'ReactiveSequence' else 'Selector'
            yield (node.loc, node.type, f'{plain} with memory', 'memory',
                   dataclasses.replace(node, type=plain,
                                       params={'memory': Value(True, node.loc)}))

    def _invert(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        value = node.params.get('expr')
        if node.type not in _CONDITION_LEAVES or value is None \
                or not isinstance(value.data, Dynamic):
            return
        dynamic = value.data
        if isinstance(dynamic.expression.root, Not):
            return  # dropping the 'not' is the logic operator's
        inverted = _dynamic(dynamic, f'not ({dynamic.expression.text})')
        if inverted is not None:
            yield (value.loc, dynamic.text, inverted.text, 'invert',
                   _with_param(node, 'expr', inverted))

    def _expressions(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        for name, value in node.params.items():
            if not isinstance(value.data, Dynamic):
                continue
            dynamic = value.data
            root = dynamic.expression.root
            for operator, changed_root in _expression_mutants(root):
                try:
                    text = Expression(changed_root).text
                except (ExpressionError, ValueError):
                    continue
                changed = _dynamic(dynamic, text)
                if changed is not None:
                    yield (value.loc, f'{name}: {dynamic.text}', f'{name}: {changed.text}',
                           operator, _with_param(node, name, changed))

    def _number(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        for name, value in node.params.items():
            if node.type == 'SetBlackboard' and name == 'value':
                continue  # the blackboard operator's
            for after in _numbers(value.data):
                yield (value.loc, f'{name}: {_show(value.data)}', f'{name}: {_show(after)}',
                       'number', _with_param(node, name, after))

    def _decorator(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        if self._category(node) is not Category.DECORATOR or node.type == 'PassThrough':
            return
        yield (node.loc, node.type, 'PassThrough', 'decorator',
               dataclasses.replace(node, type='PassThrough', params={}))

    def _blackboard(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        value = node.params.get('value')
        key = node.params.get('key')
        if node.type != 'SetBlackboard' or value is None or key is None:
            return
        data = value.data
        options: list[Any] = []
        if isinstance(data, bool):
            options = [not data]
        elif isinstance(data, (int, float)):
            options = [data + 1, data - 1]
        elif isinstance(data, str):
            options = [''] if data else ['x']
        elif isinstance(data, Dynamic) and isinstance(key.data, str):
            kept = _dynamic(data, key.data, reference=True)
            options = [kept] if kept is not None else []
        for after in options:
            yield (value.loc, f'value: {_show(data)}', f'value: {_show(after)}', 'blackboard',
                   _with_param(node, 'value', after))

    def _result(self, node: NodeSpec) -> Iterator[tuple[Any, ...]]:
        if self._category(node) is not Category.LEAF or node.type in _RESULT_LEAVES:
            return
        for result in ('Success', 'Failure'):
            yield (node.loc, node.type, f'{result} (always {result.upper()})', 'result',
                   NodeSpec(type=result, name=node.name, params={}, children=[],
                            loc=node.loc, path=node.path))


def _replaced(root: NodeSpec, target: NodeSpec, new: NodeSpec) -> NodeSpec:
    """Return ``root`` with the node ``target`` (by identity) replaced by ``new``."""
    if root is target:
        return new
    if not any(child is target or target.path.startswith(child.path + '/')
               for child in root.children):
        return root
    return dataclasses.replace(root, children=[_replaced(child, target, new)
                                               for child in root.children])


def _with_param(node: NodeSpec, name: str, data: Any) -> NodeSpec:
    params = dict(node.params)
    params[name] = Value(data, node.params[name].loc)
    return dataclasses.replace(node, params=params)


def _dynamic(original: Dynamic, text: str, *, reference: bool = False) -> Optional[Dynamic]:
    """Return a dynamic value with the expression ``text``, written as ``original`` was."""
    try:
        expression = parse(text)
    except ExpressionError:
        return None
    if reference:
        written = f'${text}'
    elif original.text.startswith('$'):
        written = f'${{{text}}}'
    else:
        written = text
    return Dynamic(expression, original.loc, written)


def _numbers(data: Any) -> list[Any]:
    """Return the numbers a numeric constant is changed to (none for anything else)."""
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        return []
    if isinstance(data, int):
        return [data + 1, data - 1]
    if data == 0:
        return [0.1, -0.1]
    return [_round(data * 1.1), _round(data * 0.9)]


def _round(number: float) -> float:
    return float(f'{number:.6g}')


def _show(data: Any) -> str:
    if isinstance(data, Dynamic):
        return data.text
    if isinstance(data, bool):
        return 'true' if data else 'false'
    if data is None:
        return 'null'
    if isinstance(data, str):
        return repr(data) if not data or data != data.strip() else data
    return str(data)


# ---- inside expressions ---------------------------------------------------------------

def _is_node(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and hasattr(value, 'render')


def _preorder(node: Any) -> Iterator[Any]:
    yield node
    for child in node.children():
        yield from _preorder(child)


def _rebuilt(node: Any, target: Any, new: Any) -> Any:
    """Return the syntax tree ``node`` with ``target`` (by identity) replaced by ``new``."""
    if node is target:
        return new
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        changed = _rebuilt_value(value, target, new)
        if changed is not value:
            changes[field.name] = changed
    return dataclasses.replace(node, **changes) if changes else node


def _rebuilt_value(value: Any, target: Any, new: Any) -> Any:
    if _is_node(value):
        return _rebuilt(value, target, new)
    if isinstance(value, tuple):
        items = tuple(_rebuilt_value(item, target, new) for item in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def _expression_mutants(root: Any) -> Iterator[tuple[str, Any]]:
    """Yield (operator, changed syntax tree) for each comparison, logic and number change."""
    for node in _preorder(root):
        if isinstance(node, Comparison):
            for index, (op, operand) in enumerate(node.rest):
                rest = list(node.rest)
                rest[index] = (_BOUNDARY[op], operand)
                yield 'comparison', _rebuilt(root, node, Comparison(node.first, tuple(rest)))
        elif isinstance(node, BoolOp):
            other = 'or' if node.op == 'and' else 'and'
            yield 'logic', _rebuilt(root, node, BoolOp(other, node.operands))
        elif isinstance(node, Not):
            yield 'logic', _rebuilt(root, node, node.operand)
        elif isinstance(node, Literal):
            for number in _numbers(node.value):
                yield 'number', _rebuilt(root, node, Literal(number))


def make_mutants(document: Document, registry: Registry, tree: str, *,
                 operators: tuple[str, ...] = OPERATOR_NAMES) -> list[Mutant]:
    """Return the mutants of the tree ``tree`` and the trees it runs, in a fixed order.

    Args:
        document: the loaded tree file
        registry: the node types it was loaded with
        tree: the tree under test
        operators: the operators to apply (names from :data:`OPERATOR_NAMES`)
    """
    trees = reachable_trees(document, registry, tree)
    return list(_Maker(document, registry, trees, operators).mutants())


def mutated_file(mutant: Mutant, load_plain: Callable[[str], Any]) -> Any:
    """Return the YAML data of the file that holds the mutant's tree, with the tree changed.

    Args:
        mutant: the mutant
        load_plain: returns a file's data as written (dicts, lists, scalars)
    """
    data = load_plain(mutant.mutated.file)
    data['trees'][mutant.tree] = tree_data(mutant.mutated)
    return data


__all__ = ['Mutant', 'OPERATORS', 'OPERATOR_NAMES', 'Operator', 'make_mutants',
           'mutated_file', 'node_data', 'reachable_trees', 'tree_data']
