"""A small, safe expression language for conditions and values in tree files.

Tree files hold expressions such as ``battery.percentage < 0.2 and not estop``. This
module reads them with a hand-written tokenizer and recursive-descent parser into a tree
of small immutable node classes, and evaluates that tree against the blackboard.

Nothing here hands text to Python: there is no ``eval``, ``exec``, ``compile`` or
``ast``, attributes are only read when they are declared data fields (dict keys, ROS
message fields, dataclass fields, namedtuple fields), and every operation that could
allocate without bound is refused (sequence repetition, ``**``, string formatting) or
capped (concatenation length, number size).

Grammar, from the lowest precedence to the highest::

    expr       := or_expr ['if' or_expr 'else' expr]
    or_expr    := and_expr (('or' | '||') and_expr)*
    and_expr   := not_expr (('and' | '&&') not_expr)*
    not_expr   := ('not' | '!') not_expr | comparison
    comparison := sum (('==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in') sum)*
    sum        := term (('+' | '-') term)*
    term       := unary (('*' | '/' | '//' | '%') unary)*
    unary      := ('-' | '+') unary | postfix
    postfix    := primary ('.' NAME | '[' expr ']')*
    primary    := NUMBER | STRING | true | false | null | NAME | NAME '(' args ')'
                | '(' expr ')' | '[' [expr (',' expr)* [',']] ']'
                | '{' [STRING ':' expr (',' STRING ':' expr)* [',']] '}'

Columns in errors are 1-based character offsets into the expression text.
"""

from __future__ import annotations

from collections.abc import Mapping
import contextlib
import dataclasses
import math
import numbers
import operator
import string
import types
from typing import Any, Callable, Iterator, NamedTuple, Optional

__all__ = [
    'DEFAULT_FUNCTIONS',
    'EvaluationError',
    'Expression',
    'ExpressionError',
    'MAX_LENGTH',
    'MAX_NESTING',
    'literal',
    'parse',
    'referenced_names',
]

MAX_LENGTH = 2000
"""The longest expression text accepted by :func:`parse`, in characters."""

MAX_NESTING = 64
"""The deepest nesting accepted by :func:`parse` (brackets, unary chains, operators)."""

MAX_SEQUENCE_LENGTH = 100_000
"""The longest string or list that ``+`` may produce."""

MAX_MAGNITUDE = 1e300
"""Arithmetic results above this magnitude are refused (unless an operand already was)."""

MAX_INT_DIGITS = 4300
"""Integer results with more decimal digits than this are always refused."""

_MAX_SUBSTITUTED_DEPTH = 2 * MAX_NESTING
_INT_LIMIT = 10 ** MAX_INT_DIGITS
_INT_LIMIT_BITS = _INT_LIMIT.bit_length()
_MAX_ROUND_DIGITS = 400
_MAX_INT_TEXT = MAX_INT_DIGITS

Lookup = Callable[[str], Any]


# --------------------------------------------------------------------------- errors


class ExpressionError(ValueError):
    """A syntax error in an expression, with the 1-based column of the problem."""

    def __init__(self, message: str, column: int, text: str = '') -> None:
        """Create the error.

        Args:
            message: What went wrong and, where possible, what was expected.
            column: 1-based column in ``text`` where the problem is.
            text: The expression text.
        """
        super().__init__(message, column, text)
        self.message = message
        self.column = column
        self.text = text

    def __str__(self) -> str:
        return f'column {self.column}: {self.message}'


class EvaluationError(Exception):
    """A failure while evaluating an expression (missing key, type mismatch, ...)."""

    def __init__(self, message: str) -> None:
        """Create the error.

        Args:
            message: A readable description of the failure.
        """
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------- helpers


def _type_name(value: Any) -> str:
    """Return a short, readable name for the type of ``value``."""
    if value is None:
        return 'null'
    return type(value).__name__


def _preview(value: Any, limit: int = 40) -> str:
    """Return a short representation of ``value`` that never raises."""
    try:
        if isinstance(value, str):
            text = _quote(value)
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001 - repr of arbitrary data must not escape
        return f'<{_type_name(value)}>'
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return text


def _names_preview(names: Any, limit: int = 10) -> str:
    """Return a comma-separated, sorted, truncated list of names."""
    shown = sorted(str(name) for name in names)
    text = ', '.join(shown[:limit])
    if len(shown) > limit:
        text += ', ...'
    return text or 'none'


_QUOTE_ESCAPES = {'\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r'}


def _quote(text: str) -> str:
    """Return ``text`` as a single-quoted string literal of this language."""
    parts = ["'"]
    for char in text:
        escaped = _QUOTE_ESCAPES.get(char)
        if escaped is not None:
            parts.append(escaped)
        elif char.isprintable():
            parts.append(char)
        else:
            code = ord(char)
            if code < 0x100:
                parts.append(f'\\x{code:02x}')
            elif code < 0x10000:
                parts.append(f'\\u{code:04x}')
            else:
                parts.append(f'\\U{code:08x}')
    parts.append("'")
    return ''.join(parts)


def _is_number(value: Any) -> bool:
    """Return whether ``value`` takes part in arithmetic (bool and numpy numbers too)."""
    return isinstance(value, numbers.Real)


def _is_plain_number(value: Any) -> bool:
    """Return whether ``value`` is a Python int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _exceeds(value: Any) -> bool:
    """Return whether a number is beyond :data:`MAX_MAGNITUDE` (or not finite)."""
    if isinstance(value, int):
        return abs(value) > MAX_MAGNITUDE
    try:
        return not abs(float(value)) <= MAX_MAGNITUDE
    except OverflowError:
        return True
    except Exception:  # noqa: BLE001 - exotic numbers: do not judge them
        return False


def _checked(op: str, result: Any, *operands: Any) -> Any:
    """Return an arithmetic result, or raise if it grew too large."""
    if isinstance(result, int) and not -_INT_LIMIT < result < _INT_LIMIT:
        raise EvaluationError(
            f"result of '{op}' is too large (more than {MAX_INT_DIGITS} digits)")
    if _exceeds(result) and not any(_exceeds(value) for value in operands):
        raise EvaluationError(
            f"result of '{op}' is too large (magnitude above {MAX_MAGNITUDE:g})")
    return result


def _truth(value: Any) -> bool:
    """Return the truth value of ``value``, raising EvaluationError when it has none."""
    try:
        return bool(value)
    except Exception as exc:  # noqa: BLE001 - e.g. numpy arrays
        raise EvaluationError(
            f'cannot use {_type_name(value)} as a condition: {exc}') from exc


def _arithmetic(op: str, left: Any, right: Any) -> Any:
    """Apply a binary arithmetic operator with the language's safety rules."""
    if op == '+':
        if _is_number(left) and _is_number(right):
            return _checked(op, left + right, left, right)
        for kind in (str, list, tuple):
            if isinstance(left, kind) and isinstance(right, kind):
                length = len(left) + len(right)
                if length > MAX_SEQUENCE_LENGTH:
                    raise EvaluationError(
                        f"result of '+' is too long ({length} items; "
                        f'the limit is {MAX_SEQUENCE_LENGTH})')
                return left + right
        raise EvaluationError(f'cannot add {_type_name(left)} and {_type_name(right)}')
    if not (_is_number(left) and _is_number(right)):
        raise EvaluationError(
            f"'{op}' needs two numbers, got {_type_name(left)} and {_type_name(right)}")
    if op == '-':
        return _checked(op, left - right, left, right)
    if op == '*':
        if (isinstance(left, int) and isinstance(right, int)
                and left.bit_length() + right.bit_length() > _INT_LIMIT_BITS + 1):
            raise EvaluationError(
                f"result of '*' is too large (more than {MAX_INT_DIGITS} digits)")
        return _checked(op, left * right, left, right)
    if right == 0:
        raise EvaluationError(f"division by zero in '{op}'")
    try:
        if op == '/':
            result = left / right
        elif op == '//':
            result = left // right
        else:
            result = left % right
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise EvaluationError(f"'{op}' failed: {exc}") from exc
    return _checked(op, result, left, right)


def _is_container(value: Any) -> bool:
    """Return whether ``in`` may be used with ``value`` on its right."""
    return not isinstance(value, type) and hasattr(type(value), '__contains__')


def _compare(op: str, left: Any, right: Any) -> Any:
    """Apply one comparison operator."""
    if op == '==':
        return left == right
    if op == '!=':
        return left != right
    if op in ('in', 'not in'):
        if not _is_container(right):
            raise EvaluationError(
                f"'{op}' needs a string, list, tuple, dict or set on the right, "
                f'got {_type_name(right)}')
        try:
            found = left in right
        except TypeError as exc:
            raise EvaluationError(
                f'cannot look for {_type_name(left)} in {_type_name(right)}: {exc}') from exc
        return found if op == 'in' else not _truth(found)
    function = _ORDERINGS[op]
    try:
        return function(left, right)
    except TypeError as exc:
        raise EvaluationError(
            f"cannot compare {_type_name(left)} and {_type_name(right)} with '{op}'"
        ) from exc


_ORDERINGS: dict[str, Callable[[Any, Any], Any]] = {
    '<': operator.lt,
    '<=': operator.le,
    '>': operator.gt,
    '>=': operator.ge,
}


def _declared_fields(value: Any) -> Optional[frozenset[str]]:
    """Return the data field names that may be read from ``value``, or None if none may."""
    if isinstance(value, type):
        return None
    cls = type(value)
    getter = getattr(cls, 'get_fields_and_field_types', None)
    if getter is not None and callable(getter):
        fields = value.get_fields_and_field_types()
        return frozenset(name for name in fields if isinstance(name, str))
    if dataclasses.is_dataclass(value):
        return frozenset(field.name for field in dataclasses.fields(value))
    tuple_fields = getattr(cls, '_fields', None)
    if isinstance(value, tuple) and isinstance(tuple_fields, tuple):
        return frozenset(name for name in tuple_fields if isinstance(name, str))
    return None


def _read_field(value: Any, name: str) -> Any:
    """Read the data field ``name`` of ``value`` (a mapping or a declared-field object)."""
    if isinstance(value, Mapping):
        try:
            present = name in value
        except TypeError:
            present = False
        if present:
            return value[name]
        raise EvaluationError(
            f"no field '{name}' in {_type_name(value)} "
            f'(keys: {_names_preview(value.keys())})')
    fields = _declared_fields(value)
    if fields is None:
        raise EvaluationError(f"cannot read field '{name}' of {_type_name(value)}")
    if name.startswith('_') or name not in fields:
        raise EvaluationError(
            f"no field '{name}' in {_type_name(value)} (fields: {_names_preview(fields)})")
    return getattr(value, name)


def _read_index(value: Any, key: Any) -> Any:
    """Read ``value[key]`` for mappings (by key) and sequences (by integer index)."""
    if isinstance(value, Mapping):
        try:
            return value[key]
        except KeyError:
            raise EvaluationError(
                f'no key {_preview(key)} in {_type_name(value)}') from None
        except TypeError as exc:
            raise EvaluationError(
                f'cannot use {_type_name(key)} as a key of {_type_name(value)}') from exc
    cls = type(value)
    if isinstance(value, type) or not (hasattr(cls, '__getitem__') and hasattr(cls, '__len__')):
        raise EvaluationError(f'cannot index {_type_name(value)}')
    if isinstance(key, bool):
        raise EvaluationError('index must be an integer, got bool')
    try:
        index = operator.index(key)
    except TypeError:
        raise EvaluationError(f'index must be an integer, got {_type_name(key)}') from None
    try:
        return value[index]
    except IndexError:
        raise EvaluationError(
            f'index {index} is out of range for {_type_name(value)} '
            f'of length {len(value)}') from None


# --------------------------------------------------------------------------- nodes

_P_CONDITIONAL = 0
_P_OR = 1
_P_AND = 2
_P_NOT = 3
_P_COMPARISON = 4
_P_SUM = 5
_P_TERM = 6
_P_UNARY = 7
_P_POSTFIX = 8

Bindings = Mapping[str, '_Node']


class _Node:
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

    def children(self) -> Iterator[_Node]:
        """Yield the direct child nodes."""
        return iter(())

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the node; ``lookup`` reads root names."""
        raise NotImplementedError

    def render(self) -> str:
        """Return the canonical text of the node."""
        raise NotImplementedError

    def substitute(self, bindings: Bindings) -> _Node:
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
class Literal(_Node):
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
        if _is_plain_number(self.value) and self.render().startswith('-'):
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
            return _quote(value)
        return repr(value)


@dataclasses.dataclass(frozen=True, slots=True)
class Name(_Node):
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

    def substitute(self, bindings: Bindings) -> _Node:
        """Return the bound node for this name, or the name itself."""
        return bindings.get(self.name, self)


@dataclasses.dataclass(frozen=True, slots=True)
class ListDisplay(_Node):
    """A list display: ``[a, b, c]``."""

    items: tuple[_Node, ...]

    def children(self) -> Iterator[_Node]:
        """Yield the items."""
        return iter(self.items)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return a new list of the evaluated items."""
        return [item.evaluate(lookup) for item in self.items]

    def render(self) -> str:
        """Return ``[a, b]``."""
        return '[' + ', '.join(item.wrap(_P_CONDITIONAL) for item in self.items) + ']'

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the items."""
        items = tuple(item.substitute(bindings) for item in self.items)
        return self if items == self.items else ListDisplay(items)


@dataclasses.dataclass(frozen=True, slots=True)
class DictDisplay(_Node):
    """A dict display with string keys: ``{'a': 1}``."""

    items: tuple[tuple[str, _Node], ...]

    def children(self) -> Iterator[_Node]:
        """Yield the values."""
        return iter(value for _, value in self.items)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return a new dict of the evaluated values."""
        return {key: value.evaluate(lookup) for key, value in self.items}

    def render(self) -> str:
        """Return ``{'a': 1}``."""
        parts = (f'{_quote(key)}: {value.wrap(_P_CONDITIONAL)}' for key, value in self.items)
        return '{' + ', '.join(parts) + '}'

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the values."""
        items = tuple((key, value.substitute(bindings)) for key, value in self.items)
        return self if items == self.items else DictDisplay(items)


@dataclasses.dataclass(frozen=True, slots=True)
class Field(_Node):
    """A field access: ``base.name``."""

    base: _Node
    name: str

    def children(self) -> Iterator[_Node]:
        """Yield the base."""
        yield self.base

    def evaluate(self, lookup: Lookup) -> Any:
        """Read the field of the evaluated base."""
        return _read_field(self.base.evaluate(lookup), self.name)

    def render(self) -> str:
        """Return ``base.name`` (a number base is parenthesised: ``(5).x``)."""
        base = self.base.wrap(_P_POSTFIX)
        if isinstance(self.base, Literal) and _is_plain_number(self.base.value):
            base = f'({self.base.render()})'
        return f'{base}.{self.name}'

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the base."""
        base = self.base.substitute(bindings)
        return self if base is self.base else Field(base, self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Index(_Node):
    """A subscript: ``base[index]``."""

    base: _Node
    index: _Node

    def children(self) -> Iterator[_Node]:
        """Yield the base and the index."""
        yield self.base
        yield self.index

    def evaluate(self, lookup: Lookup) -> Any:
        """Index the evaluated base."""
        return _read_index(self.base.evaluate(lookup), self.index.evaluate(lookup))

    def render(self) -> str:
        """Return ``base[index]``."""
        return f'{self.base.wrap(_P_POSTFIX)}[{self.index.wrap(_P_CONDITIONAL)}]'

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the base and the index."""
        base = self.base.substitute(bindings)
        index = self.index.substitute(bindings)
        if base is self.base and index is self.index:
            return self
        return Index(base, index)


@dataclasses.dataclass(frozen=True, slots=True)
class Call(_Node):
    """A call of a registered function: ``name(args)``."""

    name: str
    function: Callable[..., Any]
    args: tuple[_Node, ...]

    def children(self) -> Iterator[_Node]:
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

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the arguments."""
        args = tuple(arg.substitute(bindings) for arg in self.args)
        return self if args == self.args else Call(self.name, self.function, args)


@dataclasses.dataclass(frozen=True, slots=True)
class Unary(_Node):
    """A unary minus or plus on a non-constant operand."""

    op: str
    operand: _Node

    @property
    def precedence(self) -> int:
        """Return the unary binding strength."""
        return _P_UNARY

    def children(self) -> Iterator[_Node]:
        """Yield the operand."""
        yield self.operand

    def evaluate(self, lookup: Lookup) -> Any:
        """Negate (or keep) the evaluated number."""
        value = self.operand.evaluate(lookup)
        if not _is_number(value):
            raise EvaluationError(f"unary '{self.op}' needs a number, got {_type_name(value)}")
        return _checked(self.op, -value if self.op == '-' else +value, value)

    def render(self) -> str:
        """Return ``-operand``."""
        return self.op + self.operand.wrap(_P_UNARY)

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the operand (folding a resulting number constant)."""
        operand = self.operand.substitute(bindings)
        return self if operand is self.operand else _make_unary(self.op, operand)


def _make_unary(op: str, operand: _Node) -> _Node:
    """Build a unary node, folding a sign applied to a number constant."""
    if isinstance(operand, Literal) and _is_plain_number(operand.value):
        return Literal(-operand.value if op == '-' else operand.value)
    return Unary(op, operand)


@dataclasses.dataclass(frozen=True, slots=True)
class Not(_Node):
    """A logical negation: ``not operand``."""

    operand: _Node

    @property
    def precedence(self) -> int:
        """Return the ``not`` binding strength."""
        return _P_NOT

    def children(self) -> Iterator[_Node]:
        """Yield the operand."""
        yield self.operand

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the negated truth value of the operand."""
        return not _truth(self.operand.evaluate(lookup))

    def render(self) -> str:
        """Return ``not operand``."""
        return 'not ' + self.operand.wrap(_P_NOT)

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the operand."""
        operand = self.operand.substitute(bindings)
        return self if operand is self.operand else Not(operand)


@dataclasses.dataclass(frozen=True, slots=True)
class _Chain(_Node):
    """A chain of binary operations on one precedence level: ``first op operand op ...``.

    Every operand, the first included, binds more tightly than the chain itself: a nested
    chain of the same level is an operand only in parentheses.
    """

    first: _Node
    rest: tuple[tuple[str, _Node], ...]

    def children(self) -> Iterator[_Node]:
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

    def substitute(self, bindings: Bindings) -> _Node:
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
        return _P_SUM if self.rest[0][0] in ('+', '-') else _P_TERM

    def evaluate(self, lookup: Lookup) -> Any:
        """Apply the operations from left to right."""
        value = self.first.evaluate(lookup)
        for op, operand in self.rest:
            value = _arithmetic(op, value, operand.evaluate(lookup))
        return value


@dataclasses.dataclass(frozen=True, slots=True)
class Comparison(_Chain):
    """A chain of comparisons, ``a < b <= c``, with Python's chaining semantics."""

    @property
    def precedence(self) -> int:
        """Return the comparison binding strength."""
        return _P_COMPARISON

    def evaluate(self, lookup: Lookup) -> Any:
        """Compare pairwise, stopping at the first false comparison."""
        left = self.first.evaluate(lookup)
        result: Any = True
        for op, operand in self.rest:
            right = operand.evaluate(lookup)
            result = _compare(op, left, right)
            if not _truth(result):
                return result
            left = right
        return result


@dataclasses.dataclass(frozen=True, slots=True)
class BoolOp(_Node):
    """A short-circuit chain of ``and`` or of ``or``, with Python semantics."""

    op: str
    operands: tuple[_Node, ...]

    @property
    def precedence(self) -> int:
        """Return the ``and`` or ``or`` binding strength."""
        return _P_AND if self.op == 'and' else _P_OR

    def children(self) -> Iterator[_Node]:
        """Yield the operands."""
        return iter(self.operands)

    def evaluate(self, lookup: Lookup) -> Any:
        """Return the deciding operand's value, evaluating no further operand."""
        stop_when = self.op == 'or'
        value: Any = None
        for operand in self.operands:
            value = operand.evaluate(lookup)
            if _truth(value) == stop_when:
                return value
        return value

    def render(self) -> str:
        """Return ``a and b``."""
        inner = self.precedence + 1
        return f' {self.op} '.join(operand.wrap(inner) for operand in self.operands)

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the operands."""
        operands = tuple(operand.substitute(bindings) for operand in self.operands)
        return self if operands == self.operands else BoolOp(self.op, operands)


@dataclasses.dataclass(frozen=True, slots=True)
class Conditional(_Node):
    """A conditional expression: ``body if condition else orelse``."""

    body: _Node
    condition: _Node
    orelse: _Node

    @property
    def precedence(self) -> int:
        """Return the conditional binding strength (the weakest)."""
        return _P_CONDITIONAL

    def children(self) -> Iterator[_Node]:
        """Yield the body, the condition and the alternative."""
        yield self.body
        yield self.condition
        yield self.orelse

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the condition, then only the chosen branch."""
        if _truth(self.condition.evaluate(lookup)):
            return self.body.evaluate(lookup)
        return self.orelse.evaluate(lookup)

    def render(self) -> str:
        """Return ``a if c else b``."""
        return (f'{self.body.wrap(_P_OR)} if {self.condition.wrap(_P_OR)} '
                f'else {self.orelse.wrap(_P_CONDITIONAL)}')

    def substitute(self, bindings: Bindings) -> _Node:
        """Substitute inside the three parts."""
        parts = (self.body.substitute(bindings), self.condition.substitute(bindings),
                 self.orelse.substitute(bindings))
        if parts == (self.body, self.condition, self.orelse):
            return self
        return Conditional(*parts)


# --------------------------------------------------------------------------- tokenizer

_IDENT_START = frozenset(string.ascii_letters + '_')
_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + '_')
_DIGITS = frozenset(string.digits)
_HEX_DIGITS = frozenset(string.hexdigits)
_WHITESPACE = frozenset(' \t\r\n\f\v')
_TWO_CHAR_OPS = frozenset(('//', '==', '!=', '<=', '>=', '&&', '||'))
_ONE_CHAR_OPS = frozenset('+-*/%<>()[]{},:.!')
_BASES = {'x': (16, _HEX_DIGITS), 'o': (8, frozenset('01234567')), 'b': (2, frozenset('01'))}
_SIMPLE_ESCAPES = {'\\': '\\', "'": "'", '"': '"', 'n': '\n', 't': '\t', 'r': '\r'}
_HEX_ESCAPES = {'x': 2, 'u': 4, 'U': 8}
_BAD_OPERATORS = {
    '=': "unknown operator '=' (did you mean '==')",
    '&': "unknown operator '&' (did you mean '&&' or 'and')",
    '|': "unknown operator '|' (did you mean '||' or 'or')",
}

_KEYWORDS = frozenset(('and', 'or', 'not', 'in', 'if', 'else'))
_CONSTANTS: dict[str, Any] = {
    'true': True, 'false': False, 'null': None, 'True': True, 'False': False, 'None': None,
}
_RESERVED = {
    'is': "'is' is not supported (use '==' or '!=')",
    'lambda': 'lambda expressions are not supported',
}


class _Token(NamedTuple):
    """One token: ``kind`` is num, str, name, op, eof or error (value = message)."""

    kind: str
    value: Any
    column: int
    source: str


class _ScanError(Exception):
    """A tokenizer problem at a column (turned into an error token)."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


def _scan_number(text: str, start: int) -> tuple[int | float, int]:
    """Scan a number literal starting at ``start``; return its value and end offset."""
    size = len(text)
    column = start + 1
    position = start
    value: int | float
    if (text[start] == '0' and start + 1 < size and text[start + 1] in 'xXoObB'):
        base, allowed = _BASES[text[start + 1].lower()]
        position = start + 2
        while position < size and text[position] in allowed:
            position += 1
        if position == start + 2:
            raise _ScanError(f"invalid number '{text[start:start + 2]}'", column)
        value = int(text[start + 2:position], base)
    else:
        is_float = False
        while position < size and text[position] in _DIGITS:
            position += 1
        if position < size and text[position] == '.':
            is_float = True
            position += 1
            while position < size and text[position] in _DIGITS:
                position += 1
        if position < size and text[position] in 'eE':
            exponent = position + 1
            if exponent < size and text[exponent] in '+-':
                exponent += 1
            if exponent >= size or text[exponent] not in _DIGITS:
                raise _ScanError(f"invalid number '{text[start:exponent]}'", column)
            while exponent < size and text[exponent] in _DIGITS:
                exponent += 1
            position = exponent
            is_float = True
        source = text[start:position]
        try:
            value = float(source) if is_float else int(source)
        except ValueError:
            raise _ScanError(f"number '{source[:20]}...' is too long", column) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise _ScanError(f"number '{source}' is too large", column)
    if position < size and text[position] in _IDENT_CHARS:
        end = position
        while end < size and text[end] in _IDENT_CHARS and end - start < 30:
            end += 1
        raise _ScanError(f"invalid number '{text[start:end]}'", column)
    return value, position


def _scan_string(text: str, start: int) -> tuple[str, int]:
    """Scan a quoted string starting at ``start``; return its value and end offset."""
    quote = text[start]
    size = len(text)
    position = start + 1
    chars: list[str] = []
    while True:
        if position >= size:
            raise _ScanError('unterminated string', start + 1)
        char = text[position]
        if char == quote:
            return ''.join(chars), position + 1
        if char != '\\':
            chars.append(char)
            position += 1
            continue
        if position + 1 >= size:
            raise _ScanError('unterminated string', start + 1)
        escape = text[position + 1]
        if escape in _SIMPLE_ESCAPES:
            chars.append(_SIMPLE_ESCAPES[escape])
            position += 2
        elif escape in _HEX_ESCAPES:
            width = _HEX_ESCAPES[escape]
            digits = text[position + 2:position + 2 + width]
            if len(digits) < width or not all(digit in _HEX_DIGITS for digit in digits):
                raise _ScanError(
                    f"invalid escape '\\{escape}' (expected {width} hex digits)", position + 1)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise _ScanError(f"invalid escape '\\{escape}{digits}'", position + 1)
            chars.append(chr(code))
            position += 2 + width
        else:
            raise _ScanError(
                "unknown escape '\\" + escape + "' (known: \\\\ \\' \\\" \\n \\t \\r "
                '\\xHH \\uHHHH \\UHHHHHHHH)', position + 1)


def _tokenize(text: str) -> list[_Token]:
    """Split ``text`` into tokens; a problem becomes a final error token."""
    tokens: list[_Token] = []
    size = len(text)
    position = 0
    try:
        while position < size:
            char = text[position]
            if char in _WHITESPACE:
                position += 1
                continue
            column = position + 1
            if char in _DIGITS or (char == '.' and position + 1 < size
                                   and text[position + 1] in _DIGITS):
                number, end = _scan_number(text, position)
                tokens.append(_Token('num', number, column, text[position:end]))
            elif char in _IDENT_START:
                end = position + 1
                while end < size and text[end] in _IDENT_CHARS:
                    end += 1
                word = text[position:end]
                tokens.append(_Token('name', word, column, word))
            elif char in ('"', "'"):
                value, end = _scan_string(text, position)
                tokens.append(_Token('str', value, column, text[position:end]))
            else:
                pair = text[position:position + 2]
                if pair == '**':
                    raise _ScanError("'**' is not supported", column)
                if pair in _TWO_CHAR_OPS:
                    end = position + 2
                elif char in _ONE_CHAR_OPS:
                    end = position + 1
                elif char in _BAD_OPERATORS:
                    raise _ScanError(_BAD_OPERATORS[char], column)
                else:
                    raise _ScanError(f'unexpected character {_quote(char)}', column)
                tokens.append(_Token('op', text[position:end], column, text[position:end]))
            position = end
    except _ScanError as exc:
        tokens.append(_Token('error', exc.message, exc.column, ''))
        return tokens
    tokens.append(_Token('eof', None, size + 1, ''))
    return tokens


# --------------------------------------------------------------------------- parser

_COMPARISON_OPS = frozenset(('==', '!=', '<', '<=', '>', '>='))
_SUM_OPS = frozenset(('+', '-'))
_TERM_OPS = frozenset(('*', '/', '//', '%'))
_LOGICAL_OPS = {'||': 'or', '&&': 'and'}


def _is_op(token: _Token, *values: str) -> bool:
    """Return whether ``token`` is one of the operator tokens ``values``."""
    return token.kind == 'op' and token.value in values


def _is_keyword(token: _Token, *words: str) -> bool:
    """Return whether ``token`` is one of the keywords ``words``."""
    return token.kind == 'name' and token.value in words


def _describe(token: _Token) -> str:
    """Describe a token for an error message."""
    if token.kind == 'eof':
        return 'end of expression'
    if token.kind == 'num':
        return f'number {token.source}'
    if token.kind == 'str':
        source = token.source if len(token.source) <= 30 else token.source[:27] + '...'
        return f'string {source}'
    if token.kind == 'name' and token.value not in _KEYWORDS:
        return f"name '{token.value}'"
    return f"'{token.source}'"


class _Parser:
    """A recursive-descent parser over the token list of one expression."""

    def __init__(self, text: str, functions: Mapping[str, Callable[..., Any]]) -> None:
        self._text = text
        self._functions = functions
        self._tokens = _tokenize(text)
        self._position = 0
        self._nesting = 0
        self._after = ''

    def error(self, message: str, column: int) -> ExpressionError:
        """Build an ExpressionError for this text."""
        return ExpressionError(message, column, self._text)

    def current_column(self) -> int:
        """Return the column of the token being looked at."""
        return self._tokens[min(self._position, len(self._tokens) - 1)].column

    def parse(self) -> _Node:
        """Parse the whole text as one expression."""
        if self._peek().kind == 'eof':
            raise self.error('empty expression', 1)
        node = self._expr()
        token = self._peek()
        if token.kind != 'eof':
            message = f'unexpected {_describe(token)}'
            if token.kind in ('name', 'num', 'str') and token.value not in _KEYWORDS:
                message += ' (expected an operator)'
            raise self.error(message, token.column)
        return node

    # -- token access

    def _peek(self, offset: int = 0) -> _Token:
        token = self._tokens[min(self._position + offset, len(self._tokens) - 1)]
        if token.kind == 'error':
            raise self.error(token.value, token.column)
        return token

    def _advance(self) -> _Token:
        token = self._peek()
        self._position += 1
        self._after = f"'{token.source}'"
        return token

    def _expect(self, value: str, message: str) -> _Token:
        token = self._peek()
        if not _is_op(token, value):
            raise self.error(message, token.column)
        return self._advance()

    def _enter(self, token: _Token) -> None:
        self._nesting += 1
        if self._nesting > MAX_NESTING:
            raise self.error(
                f'expression is nested too deeply (more than {MAX_NESTING} levels)',
                token.column)

    def _leave(self) -> None:
        self._nesting -= 1

    @contextlib.contextmanager
    def _nested(self, token: _Token) -> Iterator[None]:
        """Consume ``token`` (a bracket or ``else``) and parse the block one level deeper.

        A context manager rather than a call around the parse, so that the nesting costs
        no interpreter frame while the inner expression is parsed.
        """
        self._advance()
        self._enter(token)
        try:
            yield
        finally:
            self._leave()

    def _node(self, node: _Node, column: int) -> _Node:
        if node.depth > MAX_NESTING:
            raise self.error(
                f'expression is nested too deeply (more than {MAX_NESTING} levels)', column)
        return node

    # -- grammar rules, lowest precedence first
    #
    # ``or``, ``and``, ``not``, the comparisons, ``+ -`` and ``* / // %`` are parsed by
    # one loop with an explicit stack of pending chains (rather than one Python call per
    # precedence level), so that each level of brackets costs few interpreter frames.

    def _expr(self) -> _Node:
        start = self._peek()
        body = self._operators()
        if_token = self._peek()
        if not _is_keyword(if_token, 'if'):
            return body
        self._advance()
        condition = self._operators()
        else_token = self._peek()
        if not _is_keyword(else_token, 'else'):
            raise self.error(
                f"expected 'else' to complete the 'if' at column {if_token.column}",
                else_token.column)
        with self._nested(else_token):
            orelse = self._expr()
        return self._node(Conditional(body, condition, orelse), start.column)

    def _binary_operator(self) -> Optional[tuple[str, int]]:
        """Consume the binary operator at the current token; return it and its level."""
        token = self._peek()
        if token.kind == 'op':
            if token.value in _COMPARISON_OPS:
                level = _P_COMPARISON
            elif token.value in _SUM_OPS:
                level = _P_SUM
            elif token.value in _TERM_OPS:
                level = _P_TERM
            elif token.value in _LOGICAL_OPS:
                op = _LOGICAL_OPS[token.value]
                self._advance()
                return op, _P_OR if op == 'or' else _P_AND
            else:
                return None
            self._advance()
            return token.value, level
        if token.kind != 'name':
            return None
        if token.value in ('or', 'and'):
            self._advance()
            return token.value, _P_OR if token.value == 'or' else _P_AND
        if token.value == 'in':
            self._advance()
            return 'in', _P_COMPARISON
        if token.value == 'not' and _is_keyword(self._peek(1), 'in'):
            self._advance()
            self._advance()
            self._after = "'not in'"
            return 'not in', _P_COMPARISON
        if token.value == 'is':
            raise self.error(_RESERVED['is'], token.column)
        return None

    def _operators(self) -> _Node:
        """Parse an ``or_expr``: binary operators and ``not`` over unary operands."""
        # Each pending entry is [level, column, operands, ops]; level _P_NOT is a 'not'.
        pending: list[list[Any]] = []
        nots = 0
        allow_not = True
        try:
            while True:
                token = self._peek()
                while allow_not and (_is_keyword(token, 'not') or _is_op(token, '!')):
                    self._advance()
                    self._enter(token)
                    nots += 1
                    pending.append([_P_NOT, token.column, None, None])
                    token = self._peek()
                column = token.column
                value = self._unary()
                found = self._binary_operator()
                level = -1 if found is None else found[1]
                while pending and pending[-1][0] > level:
                    entry = pending.pop()
                    if entry[0] == _P_NOT:
                        nots -= 1
                        self._leave()
                    value = self._reduce(entry, value)
                    column = entry[1]
                if found is None:
                    return value
                op = found[0]
                if pending and pending[-1][0] == level:
                    pending[-1][2].append(value)
                    pending[-1][3].append(op)
                else:
                    pending.append([level, column, [value], [op]])
                allow_not = level <= _P_AND
        finally:
            self._nesting -= nots

    def _reduce(self, entry: list[Any], value: _Node) -> _Node:
        """Complete a pending chain (or 'not') whose last operand is ``value``."""
        level, column, operands, ops = entry
        if level == _P_NOT:
            return self._node(Not(value), column)
        operands.append(value)
        if level in (_P_OR, _P_AND):
            node: _Node = BoolOp(ops[0], tuple(operands))
        elif level == _P_COMPARISON:
            node = Comparison(operands[0], tuple(zip(ops, operands[1:])))
        else:
            node = Arithmetic(operands[0], tuple(zip(ops, operands[1:])))
        return self._node(node, column)

    def _unary(self) -> _Node:
        signs: list[_Token] = []
        try:
            while _is_op(self._peek(), '-', '+'):
                token = self._advance()
                self._enter(token)
                signs.append(token)
            node = self._postfix()
        finally:
            self._nesting -= len(signs)
        for token in reversed(signs):
            node = self._node(_make_unary(token.value, node), token.column)
        return node

    def _postfix(self) -> _Node:
        node = self._primary()
        while True:
            token = self._peek()
            if _is_op(token, '.'):
                self._advance()
                name = self._peek()
                if name.kind != 'name':
                    raise self.error("expected a field name after '.'", name.column)
                self._advance()
                if name.value.startswith('_'):
                    raise self.error(
                        "field names starting with '_' are not accessible", name.column)
                node = self._node(Field(node, name.value), name.column)
            elif _is_op(token, '['):
                with self._nested(token):
                    index = self._expr()
                    self._expect(']', f"expected ']' to close '[' at column {token.column}")
                node = self._node(Index(node, index), token.column)
            elif _is_op(token, '('):
                raise self.error(
                    "only functions can be called: '(' must follow a function name",
                    token.column)
            else:
                return node

    def _primary(self) -> _Node:
        token = self._peek()
        if token.kind in ('num', 'str'):
            self._advance()
            return Literal(token.value)
        if token.kind == 'name' and token.value not in _KEYWORDS:
            word = token.value
            if word in _CONSTANTS:
                self._advance()
                return Literal(_CONSTANTS[word])
            if word in _RESERVED:
                raise self.error(_RESERVED[word], token.column)
            if word.startswith('_'):
                raise self.error("names starting with '_' are not accessible", token.column)
            self._advance()
            if _is_op(self._peek(), '('):
                return self._call(token)
            return Name(word)
        if _is_op(token, '('):
            with self._nested(token):
                node = self._expr()
                self._expect(')', f"expected ')' to close '(' at column {token.column}")
            return node
        if _is_op(token, '['):
            with self._nested(token):
                items = self._sequence(token, ']')
            return self._node(ListDisplay(tuple(items)), token.column)
        if _is_op(token, '{'):
            with self._nested(token):
                node = self._dict(token)
            return self._node(node, token.column)
        if self._position == 0:
            raise self.error(f'unexpected {_describe(token)}', token.column)
        raise self.error(f'expected an operand after {self._after}', token.column)

    def _call(self, name: _Token) -> _Node:
        function = self._functions.get(name.value)
        if function is None:
            known = ', '.join(sorted(self._functions)) or 'none'
            raise self.error(
                f"unknown function '{name.value}' (known: {known})", name.column)
        open_token = self._peek()
        with self._nested(open_token):
            args = self._sequence(open_token, ')')
        return self._node(Call(name.value, function, tuple(args)), name.column)

    def _sequence(self, open_token: _Token, closer: str) -> list[_Node]:
        items: list[_Node] = []
        message = (f"expected ',' or '{closer}' to close '{open_token.value}' "
                   f'at column {open_token.column}')
        while True:
            if _is_op(self._peek(), closer):
                self._advance()
                return items
            items.append(self._expr())
            token = self._peek()
            if _is_op(token, ','):
                self._advance()
            elif not _is_op(token, closer):
                raise self.error(message, token.column)

    def _dict(self, open_token: _Token) -> _Node:
        items: list[tuple[str, _Node]] = []
        seen: set[str] = set()
        message = f"expected ',' or '}}' to close '{{' at column {open_token.column}"
        while True:
            key = self._peek()
            if _is_op(key, '}'):
                self._advance()
                return DictDisplay(tuple(items))
            if key.kind != 'str':
                if key.kind == 'eof':
                    raise self.error(message, key.column)
                raise self.error(
                    f'dict keys must be strings, got {_describe(key)}', key.column)
            self._advance()
            if key.value in seen:
                raise self.error(f'duplicate dict key {_quote(key.value)}', key.column)
            seen.add(key.value)
            self._expect(':', f"expected ':' after the dict key {_describe(key)}")
            items.append((key.value, self._expr()))
            token = self._peek()
            if _is_op(token, ','):
                self._advance()
            elif not _is_op(token, '}'):
                raise self.error(message, token.column)


# --------------------------------------------------------------------------- functions


def _round(value: Any, ndigits: Any = None) -> Any:
    """Round like Python's ``round``, with a bounded ``ndigits``."""
    if ndigits is None:
        return round(value)
    digits = operator.index(ndigits)
    if not -_MAX_ROUND_DIGITS <= digits <= _MAX_ROUND_DIGITS:
        raise ValueError(
            f'ndigits must be between {-_MAX_ROUND_DIGITS} and {_MAX_ROUND_DIGITS}')
    return round(value, digits)


def _int(value: Any) -> int:
    """Convert to int, refusing very long digit strings."""
    if isinstance(value, (str, bytes, bytearray)) and len(value) > _MAX_INT_TEXT:
        raise ValueError(f'text is too long to convert ({len(value)} characters)')
    return int(value)


def _float(value: Any) -> float:
    """Convert to float."""
    return float(value)


def _str(value: Any) -> str:
    """Convert to str, refusing integers too large to print cheaply."""
    if isinstance(value, int) and not -_INT_LIMIT < value < _INT_LIMIT:
        raise ValueError(f'integer is too large to convert (more than {MAX_INT_DIGITS} digits)')
    return str(value)


def _bool(value: Any) -> bool:
    """Convert to bool."""
    return bool(value)


def _clamp(value: Any, low: Any, high: Any) -> Any:
    """Return ``value`` limited to the range ``[low, high]``."""
    if high < low:
        raise ValueError(f'low ({_preview(low)}) is above high ({_preview(high)})')
    if value < low:
        return low
    if value > high:
        return high
    return value


DEFAULT_FUNCTIONS: Mapping[str, Callable[..., Any]] = types.MappingProxyType({
    'abs': abs,
    'bool': _bool,
    'clamp': _clamp,
    'float': _float,
    'int': _int,
    'len': len,
    'max': max,
    'min': min,
    'round': _round,
    'str': _str,
})
"""The functions available to expressions unless :func:`parse` is given others."""


# --------------------------------------------------------------------------- public API


def _collect_names(root: _Node) -> frozenset[str]:
    """Return the root names referenced anywhere under ``root``."""
    names: set[str] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, Name):
            names.add(node.name)
        else:
            pending.extend(node.children())
    return frozenset(names)


class Expression:
    """A parsed, immutable expression; build one with :func:`parse` or :func:`literal`."""

    __slots__ = ('_root', '_text', '_names')

    _root: _Node
    _text: str
    _names: frozenset[str]

    def __init__(self, root: _Node, text: Optional[str] = None) -> None:
        """Wrap a syntax tree.

        Args:
            root: The root node.
            text: The source text; None uses the canonical rendering of ``root``.
        """
        object.__setattr__(self, '_root', root)
        object.__setattr__(self, '_text', root.render() if text is None else text)
        object.__setattr__(self, '_names', _collect_names(root))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError('Expression is immutable')

    def __delattr__(self, name: str) -> None:
        raise AttributeError('Expression is immutable')

    def __copy__(self) -> Expression:
        return self

    def __deepcopy__(self, memo: Any) -> Expression:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Expression, (self._root, self._text))

    @property
    def text(self) -> str:
        """Return the original source text, or the canonical text for built expressions."""
        return self._text

    @property
    def names(self) -> frozenset[str]:
        """Return the root names read by the expression: its blackboard keys."""
        return self._names

    @property
    def is_constant(self) -> bool:
        """Return whether the expression reads no names."""
        return not self._names

    @property
    def root(self) -> _Node:
        """Return the root node of the syntax tree."""
        return self._root

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the expression.

        Args:
            lookup: Returns the value of a root name, or raises KeyError.

        Returns:
            The value of the expression.

        Raises:
            EvaluationError: Whatever went wrong; no other exception escapes.
        """
        try:
            return self._root.evaluate(lookup)
        except EvaluationError:
            raise
        except RecursionError:
            raise EvaluationError('expression is nested too deeply to evaluate') from None
        except Exception as exc:  # noqa: BLE001 - the contract: only EvaluationError
            try:
                detail = str(exc)
            except Exception:  # noqa: BLE001
                detail = ''
            raise EvaluationError(f'{type(exc).__name__}: {detail}') from exc

    def substitute(self, bindings: Mapping[str, Expression]) -> Expression:
        """Replace root names by other expressions (names not bound stay).

        Args:
            bindings: Expressions by root name.

        Returns:
            The new expression, whose text is its canonical rendering (or ``self`` when
            no bound name is referenced).

        Raises:
            TypeError: A binding is not an Expression.
            ExpressionError: The result would be nested too deeply to evaluate safely.
        """
        roots: dict[str, _Node] = {}
        for name, expression in bindings.items():
            if not isinstance(expression, Expression):
                raise TypeError(
                    f"binding for '{name}' must be an Expression, "
                    f'not {type(expression).__name__}')
            if name in self._names:
                roots[name] = expression.root
        if not roots:
            return self
        limit = _MAX_SUBSTITUTED_DEPTH
        if self._root.depth + max(node.depth for node in roots.values()) > limit:
            raise ExpressionError(
                f'substitution would nest the expression more than {limit} levels deep',
                1, self._text)
        return Expression(self._root.substitute(roots))

    def __str__(self) -> str:
        return self._root.render()

    def __repr__(self) -> str:
        return f'Expression({self._text!r})'

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expression):
            return NotImplemented
        return self._root == other._root

    def __hash__(self) -> int:
        return hash(self._root)


def parse(text: str, *, functions: Optional[Mapping[str, Callable[..., Any]]] = None
          ) -> Expression:
    """Parse expression text.

    Args:
        text: The expression, at most :data:`MAX_LENGTH` characters.
        functions: Callable functions by name; None means :data:`DEFAULT_FUNCTIONS`.

    Returns:
        The parsed expression.

    Raises:
        ExpressionError: The text is not a valid expression (with the column).
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f'expression text must be a str, not {type(text).__name__}')
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f'expression is too long ({len(text)} characters; the limit is {MAX_LENGTH})',
            MAX_LENGTH + 1, text)
    parser = _Parser(text, DEFAULT_FUNCTIONS if functions is None else functions)
    try:
        root = parser.parse()
    except RecursionError:
        raise ExpressionError('expression is nested too deeply',
                              parser.current_column(), text) from None
    return Expression(root, text)


def literal(value: Any) -> Expression:
    """Build a constant expression from a Python value.

    Args:
        value: None, a bool, int, float or str, or a list, tuple or dict (with str keys)
            of those; tuples become lists.

    Returns:
        The constant expression; its ``str()`` parses back to an equal expression.

    Raises:
        TypeError: The value (or a part of it) has an unsupported type.
        ValueError: A float is not finite, an int is too large, or the value is nested
            more than :data:`MAX_NESTING` levels deep.
    """
    return Expression(_literal_node(value, 1))


def _literal_node(value: Any, depth: int) -> _Node:
    """Build the node for one literal value."""
    if depth > MAX_NESTING:
        raise ValueError(f'value is nested more than {MAX_NESTING} levels deep')
    if value is None or isinstance(value, bool):
        return Literal(None if value is None else bool(value))
    if isinstance(value, numbers.Integral):
        number = int(value)
        if not -_INT_LIMIT < number < _INT_LIMIT:
            raise ValueError(f'integer has more than {MAX_INT_DIGITS} digits')
        return Literal(number)
    if isinstance(value, numbers.Real):
        real = float(value)
        if not math.isfinite(real):
            raise ValueError(f'cannot write the non-finite float {real!r} as a literal')
        return Literal(real)
    if isinstance(value, str):
        return Literal(str(value))
    if isinstance(value, (list, tuple)):
        return ListDisplay(tuple(_literal_node(item, depth + 1) for item in value))
    if isinstance(value, Mapping):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f'dict keys must be strings, got {_type_name(key)}')
            items.append((str(key), _literal_node(item, depth + 1)))
        return DictDisplay(tuple(items))
    raise TypeError(f'cannot make a literal from {_type_name(value)}')


def referenced_names(text: str, *,
                     functions: Optional[Mapping[str, Callable[..., Any]]] = None
                     ) -> frozenset[str]:
    """Return the root names (blackboard keys) that expression text reads.

    Args:
        text: The expression text.
        functions: As for :func:`parse`.

    Returns:
        The root names.

    Raises:
        ExpressionError: The text is not a valid expression.
    """
    return parse(text, functions=functions).names
