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
from bt_executive.core.expressions.lexer import CONSTANTS, KEYWORDS, RESERVED, Token, tokenize
from bt_executive.core.expressions.limits import MAX_NESTING
from bt_executive.core.expressions.nodes import (
    Arithmetic, BoolOp, Call, Comparison, Conditional, DictDisplay, ExprNode, Field, Index,
    ListDisplay, Literal, make_unary, Name, Not, P_AND, P_COMPARISON, P_NOT, P_OR, P_SUM,
    P_TERM,
)
from bt_executive.core.expressions.rendering import quote_literal, shorten

_COMPARISON_OPS = frozenset(('==', '!=', '<', '<=', '>', '>='))
_SUM_OPS = frozenset(('+', '-'))
_TERM_OPS = frozenset(('*', '/', '//', '%'))
_LOGICAL_OPS = {'||': 'or', '&&': 'and'}


def _is_op(token: Token, *values: str) -> bool:
    """Return whether ``token`` is one of the operator tokens ``values``."""
    return token.kind == 'op' and token.value in values


def _is_keyword(token: Token, *words: str) -> bool:
    """Return whether ``token`` is one of the keywords ``words``."""
    return token.kind == 'name' and token.value in words


def _describe(token: Token) -> str:
    """Describe a token for an error message."""
    if token.kind == 'eof':
        return 'end of expression'
    if token.kind == 'num':
        return f'number {shorten(token.source)}'
    if token.kind == 'str':
        source = token.source if len(token.source) <= 30 else token.source[:27] + '...'
        return f'string {source}'
    if token.kind == 'name' and token.value not in KEYWORDS:
        return f"name '{shorten(token.value)}'"
    return f"'{shorten(token.source)}'"


class Parser:
    """A recursive-descent parser over the token list of one expression."""

    def __init__(self, text: str, functions: Mapping[str, Callable[..., Any]]) -> None:
        self._text = text
        self._functions = functions
        self._tokens = tokenize(text)
        self._position = 0
        self._nesting = 0
        self._after = ''

    def error(self, message: str, column: int) -> ExpressionError:
        """Build an ExpressionError for this text."""
        return ExpressionError(message, column, self._text)

    def current_column(self) -> int:
        """Return the column of the token being looked at."""
        return self._tokens[min(self._position, len(self._tokens) - 1)].column

    def parse(self) -> ExprNode:
        """Parse the whole text as one expression."""
        if self._peek().kind == 'eof':
            raise self.error('empty expression', 1)
        node = self._expr()
        token = self._peek()
        if token.kind != 'eof':
            message = f'unexpected {_describe(token)}'
            if token.kind in ('name', 'num', 'str') and token.value not in KEYWORDS:
                message += ' (expected an operator)'
            raise self.error(message, token.column)
        return node

    # -- token access

    def _peek(self, offset: int = 0) -> Token:
        token = self._tokens[min(self._position + offset, len(self._tokens) - 1)]
        if token.kind == 'error':
            raise self.error(token.value, token.column)
        return token

    def _advance(self) -> Token:
        token = self._peek()
        self._position += 1
        self._after = f"'{shorten(token.source)}'"
        return token

    def _expect(self, value: str, message: str) -> Token:
        token = self._peek()
        if not _is_op(token, value):
            raise self.error(message, token.column)
        return self._advance()

    def _enter(self, token: Token) -> None:
        self._nesting += 1
        if self._nesting > MAX_NESTING:
            raise self.error(
                f'expression is nested too deeply (more than {MAX_NESTING} levels)',
                token.column)

    def _leave(self) -> None:
        self._nesting -= 1

    @contextlib.contextmanager
    def _nested(self, token: Token) -> Iterator[None]:
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

    def _node(self, node: ExprNode, column: int) -> ExprNode:
        if node.depth > MAX_NESTING:
            raise self.error(
                f'expression is nested too deeply (more than {MAX_NESTING} levels)', column)
        return node

    # -- grammar rules, lowest precedence first
    #
    # ``or``, ``and``, ``not``, the comparisons, ``+ -`` and ``* / // %`` are parsed by
    # one loop with an explicit stack of pending chains (rather than one Python call per
    # precedence level), so that each level of brackets costs few interpreter frames.

    def _expr(self) -> ExprNode:
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
                level = P_COMPARISON
            elif token.value in _SUM_OPS:
                level = P_SUM
            elif token.value in _TERM_OPS:
                level = P_TERM
            elif token.value in _LOGICAL_OPS:
                op = _LOGICAL_OPS[token.value]
                self._advance()
                return op, P_OR if op == 'or' else P_AND
            else:
                return None
            self._advance()
            return token.value, level
        if token.kind != 'name':
            return None
        if token.value in ('or', 'and'):
            self._advance()
            return token.value, P_OR if token.value == 'or' else P_AND
        if token.value == 'in':
            self._advance()
            return 'in', P_COMPARISON
        if token.value == 'not' and _is_keyword(self._peek(1), 'in'):
            self._advance()
            self._advance()
            self._after = "'not in'"
            return 'not in', P_COMPARISON
        if token.value == 'is':
            raise self.error(RESERVED['is'], token.column)
        return None

    def _operators(self) -> ExprNode:
        """Parse an ``or_expr``: binary operators and ``not`` over unary operands."""
        # Each pending entry is [level, column, operands, ops]; level P_NOT is a 'not'.
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
                    pending.append([P_NOT, token.column, None, None])
                    token = self._peek()
                column = token.column
                value = self._unary()
                found = self._binary_operator()
                level = -1 if found is None else found[1]
                while pending and pending[-1][0] > level:
                    entry = pending.pop()
                    if entry[0] == P_NOT:
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
                allow_not = level <= P_AND
        finally:
            self._nesting -= nots

    def _reduce(self, entry: list[Any], value: ExprNode) -> ExprNode:
        """Complete a pending chain (or 'not') whose last operand is ``value``."""
        level, column, operands, ops = entry
        if level == P_NOT:
            return self._node(Not(value), column)
        operands.append(value)
        if level in (P_OR, P_AND):
            node: ExprNode = BoolOp(ops[0], tuple(operands))
        elif level == P_COMPARISON:
            node = Comparison(operands[0], tuple(zip(ops, operands[1:])))
        else:
            node = Arithmetic(operands[0], tuple(zip(ops, operands[1:])))
        return self._node(node, column)

    def _unary(self) -> ExprNode:
        signs: list[Token] = []
        try:
            while _is_op(self._peek(), '-', '+'):
                token = self._advance()
                self._enter(token)
                signs.append(token)
            node = self._postfix()
        finally:
            self._nesting -= len(signs)
        for token in reversed(signs):
            node = self._node(make_unary(token.value, node), token.column)
        return node

    def _postfix(self) -> ExprNode:
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

    def _primary(self) -> ExprNode:
        token = self._peek()
        if token.kind in ('num', 'str'):
            self._advance()
            return Literal(token.value)
        if token.kind == 'name' and token.value not in KEYWORDS:
            word = token.value
            if word in CONSTANTS:
                self._advance()
                return Literal(CONSTANTS[word])
            if word in RESERVED:
                raise self.error(RESERVED[word], token.column)
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

    def _call(self, name: Token) -> ExprNode:
        function = self._functions.get(name.value)
        if function is None:
            known = ', '.join(sorted(self._functions)) or 'none'
            raise self.error(
                f"unknown function '{shorten(name.value)}' (known: {known})", name.column)
        open_token = self._peek()
        with self._nested(open_token):
            args = self._sequence(open_token, ')')
        return self._node(Call(name.value, function, tuple(args)), name.column)

    def _sequence(self, open_token: Token, closer: str) -> list[ExprNode]:
        items: list[ExprNode] = []
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

    def _dict(self, open_token: Token) -> ExprNode:
        items: list[tuple[str, ExprNode]] = []
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
                raise self.error(f'duplicate dict key {quote_literal(key.value)}', key.column)
            seen.add(key.value)
            self._expect(':', f"expected ':' after the dict key {_describe(key)}")
            items.append((key.value, self._expr()))
            token = self._peek()
            if _is_op(token, ','):
                self._advance()
            elif not _is_op(token, '}'):
                raise self.error(message, token.column)
