# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The tokenizer of the expression language: text to a list of tokens with columns."""

from __future__ import annotations

import math
import string
from typing import Any, NamedTuple

from bt_executive.core.expressions.rendering import quote_literal, shorten

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

KEYWORDS = frozenset(('and', 'or', 'not', 'in', 'if', 'else'))
CONSTANTS: dict[str, Any] = {
    'true': True, 'false': False, 'null': None, 'True': True, 'False': False, 'None': None,
}
RESERVED = {
    'is': "'is' is not supported (use '==' or '!=')",
    'lambda': 'lambda expressions are not supported',
}


class Token(NamedTuple):
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
                raise _ScanError(f"invalid number '{shorten(text[start:exponent])}'", column)
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
            raise _ScanError(f"number '{shorten(source)}' is too large", column)
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


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; a problem becomes a final error token."""
    tokens: list[Token] = []
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
                tokens.append(Token('num', number, column, text[position:end]))
            elif char in _IDENT_START:
                end = position + 1
                while end < size and text[end] in _IDENT_CHARS:
                    end += 1
                word = text[position:end]
                tokens.append(Token('name', word, column, word))
            elif char in ('"', "'"):
                value, end = _scan_string(text, position)
                tokens.append(Token('str', value, column, text[position:end]))
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
                    raise _ScanError(f'unexpected character {quote_literal(char)}', column)
                tokens.append(Token('op', text[position:end], column, text[position:end]))
            position = end
    except _ScanError as exc:
        tokens.append(Token('error', exc.message, exc.column, ''))
        return tokens
    tokens.append(Token('eof', None, size + 1, ''))
    return tokens
