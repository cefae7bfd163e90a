# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Diagnostics shared by every layer: one error type, always with a source location."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

#: Longest piece of source text (an expression, a key, a name) quoted in a message.
QUOTE_LIMIT = 80
#: Longest message and node path a diagnostic prints; longer ones lose their middle.
MESSAGE_LIMIT = 1000
PATH_LIMIT = 200
_ELLIPSIS = '\u2026'


def printable(text: str) -> str:
    """Return ``text`` as one safe line: control characters escaped as in Python strings."""
    if text.isprintable():
        return text
    return ''.join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    if char in _ESCAPES:
        return _ESCAPES[char]
    if code < 0x100:
        return f'\\x{code:02x}'
    return f'\\u{code:04x}' if code < 0x10000 else f'\\U{code:08x}'


_ESCAPES = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}


def excerpt(text: str, column: Optional[int] = None, limit: int = QUOTE_LIMIT) -> str:
    """Return source text fit to quote in a message: one line, at most about ``limit`` chars.

    Long text keeps a window of ``limit`` characters around ``column`` (1-based, in
    ``text``; the start when None), and says what it left out with '…' and the length,
    e.g. ``…x + x + (… (10000 characters)``: the location's column still points at the
    problem, and the window shows its neighbourhood.
    """
    text = str(text)
    if len(text) <= limit:
        return printable(text)
    position = 0 if column is None else max(0, min(len(text), column - 1))
    start = max(0, min(position - limit // 2, len(text) - limit))
    window = text[start:start + limit]
    head = _ELLIPSIS if start > 0 else ''
    tail = _ELLIPSIS if start + limit < len(text) else ''
    return f'{head}{printable(window)}{tail} ({len(text)} characters)'


def quoted(text: str) -> str:
    """Return :func:`excerpt` of ``text`` in quotes it does not contain ('...' or "...")."""
    shown = excerpt(text)
    return f'"{shown}"' if "'" in shown else f"'{shown}'"


def clip(text: str, limit: int) -> str:
    """Return ``text`` as one printable line; beyond ``limit`` characters its middle goes."""
    text = printable(text)
    if len(text) <= limit:
        return text
    keep = (limit - 1) // 2
    return text[:keep] + _ELLIPSIS + text[len(text) - keep:]


@dataclasses.dataclass(frozen=True)
class SourceLocation:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f'{self.file}:{self.line}:{self.column}'

    def shifted(self, columns: int) -> 'SourceLocation':
        """Return the location moved right by ``columns`` on the same line."""
        return dataclasses.replace(self, column=self.column + columns)


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One problem found in a tree file: where, in which node, and what was expected.

    A warning (``warning=True``) is printed with ``warning:`` after the location and never
    fails a load.
    """

    location: SourceLocation
    message: str
    node_path: str = ''
    warning: bool = False

    def __str__(self) -> str:
        message = clip(self.message, MESSAGE_LIMIT)
        where = f'{self.location}: warning' if self.warning else f'{self.location}'
        if self.node_path:
            return f'{where}: {clip(self.node_path, PATH_LIMIT)}: {message}'
        return f'{where}: {message}'


class ParameterError(ValueError):
    """Raised by a node factory for parameter values that do not fit; names each one.

    The builder reports each problem at the value of the parameter it names (at the node
    when the node does not set it), not at the node.

    Attributes:
        problems: ``(parameter name, message)`` for each problem
    """

    def __init__(self, problems: Iterable[tuple[str, str]]):
        self.problems: list[tuple[str, str]] = list(problems)
        super().__init__('; '.join(message for _, message in self.problems))


class TreeError(Exception):
    """Raised when tree files cannot be loaded or built; carries every diagnostic found.

    ``warnings`` holds the warnings found beside the errors (a tool prints them too, so a
    file with errors is not checked again to see them).
    """

    def __init__(self, diagnostics: Iterable[Diagnostic], *,
                 warnings: Iterable[Diagnostic] = ()):
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        self.warnings: list[Diagnostic] = list(warnings)
        super().__init__('\n'.join(str(d) for d in self.diagnostics))

    @classmethod
    def single(cls, location: SourceLocation, message: str,
               node_path: str = '') -> 'TreeError':
        """Build an error holding one diagnostic."""
        return cls([Diagnostic(location, message, node_path)])

    def first(self) -> Optional[Diagnostic]:
        """Return the first diagnostic, if any."""
        return self.diagnostics[0] if self.diagnostics else None
