# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The two errors of the expression language: one for parsing, one for evaluating."""

from __future__ import annotations


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
