# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Leaves that test an expression over the blackboard: Condition and WaitUntil.

Their outcome is a pure function of the keys the expression reads, so each declares those
keys with the expression as its probe: event-driven ticking wakes the tree only when the
expression's truth changes. Each class declares its node type (``declaration``). The
conventions every behaviour of this package follows are described in
:mod:`bt_executive.nodes`.
"""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

from bt_executive.core.expressions import EvaluationError, Expression
from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.support import declare_reads
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['Condition', 'WaitUntil']


class Condition(Behaviour):
    """SUCCESS if ``predicate()`` is truthy, else FAILURE; never raises.

    The predicate is called on every tick. When it is falsy the feedback is
    '<description> is false' (the name stands in for an empty description). A Condition
    built with tree arguments in its expression describes itself as written, then as
    compared: ``speed <= limit: 2.0 <= 1.5 is false``. When it raises an exception, the result is
    FAILURE with the error text as feedback; the exception does not propagate.
    """

    declaration = NodeType(
        name='Condition',
        category=Category.LEAF,
        doc=('SUCCESS if the expression over the blackboard is true; FAILURE if it is false '
             "('<expr> is false') or cannot be evaluated (the reason, e.g. a missing key)."),
        params=(
            Param('expr', ParamType.EXPRESSION, 'expression, e.g. battery.percentage < 0.2'),
        ),
        primary='expr',
        aliases=('Check',),
        btcpp='ScriptCondition',
    )

    def __init__(self, name: str, *, predicate: Callable[[], bool], description: str = ''):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            predicate: the check; its result is tested for truth.
            description: what the predicate checks, for the feedback (default: the name).
        """
        super().__init__(name)
        self.predicate = predicate
        self.description = description

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a condition over the ``expr`` expression, declaring the keys it reads."""
        expression = params.expression('expr')
        lookup = ctx.lookup
        written = params.written('expr')
        # with tree arguments in place the text written names parameters the reader of a
        # reason cannot see: say what is compared too (speed <= limit: 2.0 <= 1.5); the
        # blackboard's values stay out, so the reason changes only with the outcome
        description = written if written == expression.text else f'{written}: {expression}'
        behaviour = cls(name, predicate=lambda: expression.evaluate(lookup),
                        description=description)
        declare_reads(ctx, behaviour, expression.names, probe=expression.evaluate)
        return behaviour

    def update(self) -> Status:
        """Evaluate the predicate."""
        what = self.description or self.name
        try:
            holds = bool(self.predicate())
        except EvaluationError as error:  # the expression's own, readable reason
            self.feedback_message = f'{what}: {error}'
            return Status.FAILURE
        except Exception as error:  # noqa: B902 - a failed check is a FAILURE, not a crash
            self.feedback_message = f'{what}: {type(error).__name__}: {error}'
            return Status.FAILURE
        self.feedback_message = f'{what} is {"true" if holds else "false"}'
        return Status.SUCCESS if holds else Status.FAILURE


class WaitUntil(Behaviour):
    """RUNNING until an expression over the blackboard is true, then SUCCESS.

    An expression that cannot be evaluated yet (e.g. the key is not set) counts as
    false; the reason is shown as feedback.
    """

    declaration = NodeType(
        name='WaitUntil',
        category=Category.LEAF,
        doc=('RUNNING until the expression is true, then SUCCESS. An expression that cannot '
             'be evaluated yet counts as false (the reason is the feedback). Never FAILURE.'),
        params=(
            Param('expr', ParamType.EXPRESSION, 'expression over the blackboard'),
        ),
        primary='expr',
    )

    def __init__(self, name: str, *, expression: Expression, lookup: Callable[[str], Any]):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            expression: the expression to wait for.
            lookup: reads a blackboard key for the expression.
        """
        super().__init__(name=name)
        self.expression = expression
        self.lookup = lookup

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the wait over the ``expr`` expression, declaring the keys it reads."""
        expression = params.expression('expr')
        behaviour = cls(name, expression=expression, lookup=ctx.lookup)
        declare_reads(ctx, behaviour, expression.names, probe=expression.evaluate)
        return behaviour

    def update(self) -> Status:
        """Check the expression."""
        try:
            if self.expression.evaluate(self.lookup):
                self.feedback_message = ''
                return Status.SUCCESS
            self.feedback_message = f'waiting for {self.expression}'
        except Exception as error:  # noqa: B902 - expressions only raise EvaluationError
            self.feedback_message = f'waiting for {self.expression}: {error}'
        return Status.RUNNING
