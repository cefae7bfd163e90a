# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The recursive-descent parser of the expression language: tokens to a syntax tree.

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
from typing import Any, Callable, Iterator, Optional

from bt_executive.core.expressions.errors import ExpressionError
from bt_executive.core.expressions.lexer import _CONSTANTS, _KEYWORDS, _RESERVED, _Token, _tokenize
from bt_executive.core.expressions.limits import MAX_NESTING
from bt_executive.core.expressions.nodes import (
    _make_unary, _Node, _P_AND, _P_COMPARISON, _P_NOT, _P_OR, _P_SUM, _P_TERM, Arithmetic,
    BoolOp, Call, Comparison, Conditional, DictDisplay, Field, Index, ListDisplay, Literal,
    Name, Not,
)
from bt_executive.core.expressions.rendering import _quote, _short

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
        return f'number {_short(token.source)}'
    if token.kind == 'str':
        source = token.source if len(token.source) <= 30 else token.source[:27] + '...'
        return f'string {source}'
    if token.kind == 'name' and token.value not in _KEYWORDS:
        return f"name '{_short(token.value)}'"
    return f"'{_short(token.source)}'"


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
        self._after = f"'{_short(token.source)}'"
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
                f"unknown function '{_short(name.value)}' (known: {known})", name.column)
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
