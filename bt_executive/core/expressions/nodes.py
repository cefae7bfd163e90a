# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The syntax tree of the expression language: small immutable nodes that evaluate.

Each node evaluates itself against a lookup of root names, renders its canonical text
(in parentheses where precedence needs them) and substitutes nodes for root names.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
from typing import Any, Callable, Iterator

from bt_executive.core.expressions.errors import EvaluationError
from bt_executive.core.expressions.operations import (
    arithmetic, checked, compare, is_number, is_plain_number, read_field, read_index,
    truth,
)
from bt_executive.core.expressions.rendering import quote_literal, type_name

Lookup = Callable[[str], Any]
"""Returns the value of a root name, or raises KeyError."""

# Binding strengths, from the weakest: a child binding less tightly than its parent
# needs parentheses.
_P_CONDITIONAL = 0
P_OR = 1
P_AND = 2
P_NOT = 3
P_COMPARISON = 4
P_SUM = 5
P_TERM = 6
_P_UNARY = 7
_P_POSTFIX = 8

Bindings = Mapping[str, 'ExprNode']


class ExprNode:
    """Base class of the syntax tree nodes; subclasses are frozen dataclasses."""

    __slots__ = ('depth',)

    depth: int

    def __reduce__(self) -> tuple[Any, ...]:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        return (type(self), tuple(getattr(self, field.name) for field in fields))

    def __post_init__(self) -> None:
        depth = max((child.depth + 1 for child in self.children()), default=0)
        object.__setattr__(self, 'depth', depth)

    @property
    def precedence(self) -> int:
        """Return the binding strength of this node, for rendering."""
        return _P_POSTFIX

    def children(self) -> Iterator[ExprNode]:
        """Yield the direct child nodes."""
        return iter(())

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the node; ``lookup`` reads root names."""
        raise NotImplementedError

    def render(self) -> str:
        """Return the canonical text of the node."""
        raise NotImplementedError

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Return the node with root names replaced by the nodes in ``bindings``."""
        return self

    def wrap(self, precedence: int) -> str:
        """Render the node, in parentheses if it binds less tightly than ``precedence``."""
        text = self.render()
        if self.precedence < precedence:
            return f'({text})'
        return text


def _literal_key(value: Any) -> tuple[str, Any]:
    """Return a comparison key that tells 1, 1.0 and true apart."""
    if isinstance(value, float):
        return ('float', repr(value))
    return (type(value).__name__, value)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Literal(ExprNode):
    """A constant: null, a boolean, a number or a string."""

    value: None | bool | int | float | str

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Literal):
            return NotImplemented
        return _literal_key(self.value) == _literal_key(other.value)

    def __hash__(self) -> int:
        return hash(_literal_key(self.value))

    @property
    def precedence(self) -> int:
        """Return the binding strength (negative numbers bind like a unary minus)."""
        if is_plain_number(self.value) and self.render().startswith('-'):
            return _P_UNARY
        return _P_POSTFIX

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the constant."""
        return self.value

    def render(self) -> str:
        """Return the canonical text of the constant."""
        value = self.value
        if value is None:
            return 'null'
        if value is True:
            return 'true'
        if value is False:
            return 'false'
        if isinstance(value, str):
            return quote_literal(value)
        return repr(value)


@dataclasses.dataclass(frozen=True, slots=True)
class Name(ExprNode):
    """A root name: a blackboard key."""

    name: str

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the value of the name from ``lookup``."""
        try:
            return lookup(self.name)
        except KeyError:
            raise EvaluationError(f"no blackboard key '{self.name}'") from None
        except EvaluationError:
            raise
        except Exception as exc:  # noqa: BLE001 - the lookup is caller code
            raise EvaluationError(
                f"cannot read blackboard key '{self.name}': {exc}") from exc

    def render(self) -> str:
        """Return the name."""
        return self.name

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Return the bound node for this name, or the name itself."""
        return bindings.get(self.name, self)


@dataclasses.dataclass(frozen=True, slots=True)
class ListDisplay(ExprNode):
    """A list display: ``[a, b, c]``."""

    items: tuple[ExprNode, ...]

    def children(self) -> Iterator[ExprNode]:
        """Yield the items."""
        return iter(self.items)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return a new list of the evaluated items."""
        return [item.evaluate(lookup) for item in self.items]

    def render(self) -> str:
        """Return ``[a, b]``."""
        return '[' + ', '.join(item.wrap(_P_CONDITIONAL) for item in self.items) + ']'

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the items."""
        items = tuple(item.substitute(bindings) for item in self.items)
        return self if items == self.items else ListDisplay(items)


@dataclasses.dataclass(frozen=True, slots=True)
class DictDisplay(ExprNode):
    """A dict display with string keys: ``{'a': 1}``."""

    items: tuple[tuple[str, ExprNode], ...]

    def children(self) -> Iterator[ExprNode]:
        """Yield the values."""
        return iter(value for _, value in self.items)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return a new dict of the evaluated values."""
        return {key: value.evaluate(lookup) for key, value in self.items}

    def render(self) -> str:
        """Return ``{'a': 1}``."""
        parts = (f'{quote_literal(key)}: {value.wrap(_P_CONDITIONAL)}'
                 for key, value in self.items)
        return '{' + ', '.join(parts) + '}'

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the values."""
        items = tuple((key, value.substitute(bindings)) for key, value in self.items)
        return self if items == self.items else DictDisplay(items)


@dataclasses.dataclass(frozen=True, slots=True)
class Field(ExprNode):
    """A field access: ``base.name``."""

    base: ExprNode
    name: str

    def children(self) -> Iterator[ExprNode]:
        """Yield the base."""
        yield self.base

    def evaluate(self, lookup: Lookup) -> Any:
        """Read the field of the evaluated base."""
        return read_field(self.base.evaluate(lookup), self.name)

    def render(self) -> str:
        """Return ``base.name`` (a number base is parenthesised: ``(5).x``)."""
        base = self.base.wrap(_P_POSTFIX)
        if isinstance(self.base, Literal) and is_plain_number(self.base.value):
            base = f'({self.base.render()})'
        return f'{base}.{self.name}'

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the base."""
        base = self.base.substitute(bindings)
        return self if base is self.base else Field(base, self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Index(ExprNode):
    """A subscript: ``base[index]``."""

    base: ExprNode
    index: ExprNode

    def children(self) -> Iterator[ExprNode]:
        """Yield the base and the index."""
        yield self.base
        yield self.index

    def evaluate(self, lookup: Lookup) -> Any:
        """Index the evaluated base."""
        return read_index(self.base.evaluate(lookup), self.index.evaluate(lookup))

    def render(self) -> str:
        """Return ``base[index]``."""
        return f'{self.base.wrap(_P_POSTFIX)}[{self.index.wrap(_P_CONDITIONAL)}]'

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the base and the index."""
        base = self.base.substitute(bindings)
        index = self.index.substitute(bindings)
        if base is self.base and index is self.index:
            return self
        return Index(base, index)


@dataclasses.dataclass(frozen=True, slots=True)
class Call(ExprNode):
    """A call of a registered function: ``name(args)``."""

    name: str
    function: Callable[..., Any]
    args: tuple[ExprNode, ...]

    def children(self) -> Iterator[ExprNode]:
        """Yield the arguments."""
        return iter(self.args)

    def evaluate(self, lookup: Lookup) -> Any:
        """Call the function on the evaluated arguments."""
        args = [arg.evaluate(lookup) for arg in self.args]
        try:
            return self.function(*args)
        except EvaluationError:
            raise
        except Exception as exc:  # noqa: BLE001 - wrap every failure of the function
            raise EvaluationError(f'{self.name}() failed: {exc}') from exc

    def render(self) -> str:
        """Return ``name(a, b)``."""
        return f'{self.name}(' + ', '.join(arg.wrap(_P_CONDITIONAL) for arg in self.args) + ')'

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the arguments."""
        args = tuple(arg.substitute(bindings) for arg in self.args)
        return self if args == self.args else Call(self.name, self.function, args)


@dataclasses.dataclass(frozen=True, slots=True)
class Unary(ExprNode):
    """A unary minus or plus on a non-constant operand."""

    op: str
    operand: ExprNode

    @property
    def precedence(self) -> int:
        """Return the unary binding strength."""
        return _P_UNARY

    def children(self) -> Iterator[ExprNode]:
        """Yield the operand."""
        yield self.operand

    def evaluate(self, lookup: Lookup) -> Any:
        """Negate (or keep) the evaluated number."""
        value = self.operand.evaluate(lookup)
        if not is_number(value):
            raise EvaluationError(f"unary '{self.op}' needs a number, got {type_name(value)}")
        return checked(self.op, -value if self.op == '-' else +value, value)

    def render(self) -> str:
        """Return ``-operand``."""
        return self.op + self.operand.wrap(_P_UNARY)

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the operand (folding a resulting number constant)."""
        operand = self.operand.substitute(bindings)
        return self if operand is self.operand else make_unary(self.op, operand)


def make_unary(op: str, operand: ExprNode) -> ExprNode:
    """Build a unary node, folding a sign applied to a number constant."""
    if isinstance(operand, Literal) and is_plain_number(operand.value):
        value: Any = operand.value  # a plain number (checked above)
        return Literal(-value if op == '-' else value)
    return Unary(op, operand)


@dataclasses.dataclass(frozen=True, slots=True)
class Not(ExprNode):
    """A logical negation: ``not operand``."""

    operand: ExprNode

    @property
    def precedence(self) -> int:
        """Return the ``not`` binding strength."""
        return P_NOT

    def children(self) -> Iterator[ExprNode]:
        """Yield the operand."""
        yield self.operand

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the negated truth value of the operand."""
        return not truth(self.operand.evaluate(lookup))

    def render(self) -> str:
        """Return ``not operand``."""
        return 'not ' + self.operand.wrap(P_NOT)

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the operand."""
        operand = self.operand.substitute(bindings)
        return self if operand is self.operand else Not(operand)


@dataclasses.dataclass(frozen=True, slots=True)
class _Chain(ExprNode):
    """A chain of binary operations on one precedence level: ``first op operand op ...``.

    Every operand, the first included, binds more tightly than the chain itself: a nested
    chain of the same level is an operand only in parentheses.
    """

    first: ExprNode
    rest: tuple[tuple[str, ExprNode], ...]

    def children(self) -> Iterator[ExprNode]:
        """Yield the operands."""
        yield self.first
        for _, operand in self.rest:
            yield operand

    def render(self) -> str:
        """Return ``a + b - c`` or ``a < b <= c``."""
        inner = self.precedence + 1
        parts = [self.first.wrap(inner)]
        for op, operand in self.rest:
            parts.append(f' {op} {operand.wrap(inner)}')
        return ''.join(parts)

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the operands."""
        first = self.first.substitute(bindings)
        rest = tuple((op, operand.substitute(bindings)) for op, operand in self.rest)
        if first is self.first and rest == self.rest:
            return self
        return type(self)(first, rest)


@dataclasses.dataclass(frozen=True, slots=True)
class Arithmetic(_Chain):
    """A left-associative chain of ``+ -`` or of ``* / // %`` operations."""

    @property
    def precedence(self) -> int:
        """Return the sum or term binding strength."""
        return P_SUM if self.rest[0][0] in ('+', '-') else P_TERM

    def evaluate(self, lookup: Lookup) -> Any:
        """Apply the operations from left to right."""
        value = self.first.evaluate(lookup)
        for op, operand in self.rest:
            value = arithmetic(op, value, operand.evaluate(lookup))
        return value


@dataclasses.dataclass(frozen=True, slots=True)
class Comparison(_Chain):
    """A chain of comparisons, ``a < b <= c``, with Python's chaining semantics."""

    @property
    def precedence(self) -> int:
        """Return the comparison binding strength."""
        return P_COMPARISON

    def evaluate(self, lookup: Lookup) -> Any:
        """Compare pairwise, stopping at the first false comparison."""
        left = self.first.evaluate(lookup)
        result: Any = True
        for op, operand in self.rest:
            right = operand.evaluate(lookup)
            result = compare(op, left, right)
            if not truth(result):
                return result
            left = right
        return result


@dataclasses.dataclass(frozen=True, slots=True)
class BoolOp(ExprNode):
    """A short-circuit chain of ``and`` or of ``or``, with Python semantics."""

    op: str
    operands: tuple[ExprNode, ...]

    @property
    def precedence(self) -> int:
        """Return the ``and`` or ``or`` binding strength."""
        return P_AND if self.op == 'and' else P_OR

    def children(self) -> Iterator[ExprNode]:
        """Yield the operands."""
        return iter(self.operands)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the deciding operand's value, evaluating no further operand."""
        stop_when = self.op == 'or'
        value: Any = None
        for operand in self.operands:
            value = operand.evaluate(lookup)
            if truth(value) == stop_when:
                return value
        return value

    def render(self) -> str:
        """Return ``a and b``."""
        inner = self.precedence + 1
        return f' {self.op} '.join(operand.wrap(inner) for operand in self.operands)

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the operands."""
        operands = tuple(operand.substitute(bindings) for operand in self.operands)
        return self if operands == self.operands else BoolOp(self.op, operands)


@dataclasses.dataclass(frozen=True, slots=True)
class Conditional(ExprNode):
    """A conditional expression: ``body if condition else orelse``."""

    body: ExprNode
    condition: ExprNode
    orelse: ExprNode

    @property
    def precedence(self) -> int:
        """Return the conditional binding strength (the weakest)."""
        return _P_CONDITIONAL

    def children(self) -> Iterator[ExprNode]:
        """Yield the body, the condition and the alternative."""
        yield self.body
        yield self.condition
        yield self.orelse

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the condition, then only the chosen branch."""
        if truth(self.condition.evaluate(lookup)):
            return self.body.evaluate(lookup)
        return self.orelse.evaluate(lookup)

    def render(self) -> str:
        """Return ``a if c else b``."""
        return (f'{self.body.wrap(P_OR)} if {self.condition.wrap(P_OR)} '
                f'else {self.orelse.wrap(_P_CONDITIONAL)}')

    def substitute(self, bindings: Bindings) -> ExprNode:
        """Substitute inside the three parts."""
        parts = (self.body.substitute(bindings), self.condition.substitute(bindings),
                 self.orelse.substitute(bindings))
        if parts == (self.body, self.condition, self.orelse):
            return self
        return Conditional(*parts)
