# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The safety limits of the expression language: text size, nesting and value size."""

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

MAX_SUBSTITUTED_DEPTH = 2 * MAX_NESTING
INT_LIMIT = 10 ** MAX_INT_DIGITS
INT_LIMIT_BITS = INT_LIMIT.bit_length()
MAX_ROUND_DIGITS = 400
MAX_INT_TEXT = MAX_INT_DIGITS
