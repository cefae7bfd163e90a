# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Diagnostics shared by every layer: one error type, always with a source location."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional


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
    """One problem found in a tree file: where, in which node, and what was expected."""

    location: SourceLocation
    message: str
    node_path: str = ''

    def __str__(self) -> str:
        if self.node_path:
            return f'{self.location}: {self.node_path}: {self.message}'
        return f'{self.location}: {self.message}'


class TreeError(Exception):
    """Raised when tree files cannot be loaded or built; carries every diagnostic found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__('\n'.join(str(d) for d in self.diagnostics))

    @classmethod
    def single(cls, location: SourceLocation, message: str,
               node_path: str = '') -> 'TreeError':
        """Build an error holding one diagnostic."""
        return cls([Diagnostic(location, message, node_path)])

    def first(self) -> Optional[Diagnostic]:
        """Return the first diagnostic, if any."""
        return self.diagnostics[0] if self.diagnostics else None
