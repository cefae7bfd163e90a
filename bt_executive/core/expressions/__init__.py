# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A small, safe expression language for conditions and values in tree files.

Tree files hold expressions such as ``battery.percentage < 0.2 and not estop``. This
package reads them with a hand-written tokenizer and recursive-descent parser into a tree
of small immutable node classes, and evaluates that tree against the blackboard.

Nothing here hands text to Python: there is no ``eval``, ``exec``, ``compile`` or
``ast``, attributes are only read when they are declared data fields (dict keys, ROS
message fields, dataclass fields, namedtuple fields), and every operation that could
allocate without bound is refused (sequence repetition, ``**``, string formatting) or
capped (concatenation length, number size).

The modules, from the bottom layer up: ``limits`` (the safety limits), ``errors``,
``rendering`` (quoting and previews), ``operations`` (what the operators do to values),
``lexer``, ``nodes`` (the syntax tree, which evaluates itself), ``parser`` (with the
grammar), ``functions`` (callable by default) and ``expression`` (:class:`Expression`,
:func:`parse`, :func:`literal`, :func:`read_field`, :func:`referenced_names`). Import from
the package: only the names below are public.
"""

from bt_executive.core.expressions.errors import EvaluationError, ExpressionError
from bt_executive.core.expressions.expression import (
    Expression,
    literal,
    parse,
    referenced_names,
)
from bt_executive.core.expressions.functions import DEFAULT_FUNCTIONS
from bt_executive.core.expressions.limits import MAX_LENGTH, MAX_NESTING
from bt_executive.core.expressions.operations import read_field

__all__ = [
    'DEFAULT_FUNCTIONS',
    'EvaluationError',
    'Expression',
    'ExpressionError',
    'MAX_LENGTH',
    'MAX_NESTING',
    'literal',
    'parse',
    'read_field',
    'referenced_names',
]
