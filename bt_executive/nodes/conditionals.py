# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Composites driven by condition children: Monitor, Filter, IfThenElse, While.

They share :class:`~bt_executive.nodes.composites.BaseComposite` with the other composites;
each declares its node type (``declaration``). The conventions every behaviour of this
package follows are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

from typing import Iterator, Sequence, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.composites import BaseComposite
from bt_executive.nodes.support import check_count, failure_reason, plural
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'Filter',
    'IfThenElse',
    'Monitor',
    'While',
]

#: The ``conditions`` parameter of Monitor and Filter.
_CONDITIONS = Param('conditions', ParamType.INT, 'how many leading children are conditions',
                    default=1, minimum=1)


class _ConditionsThenActions(BaseComposite):
    """Base for composites whose first ``num_conditions`` children are conditions."""

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        num_conditions: int,
    ):
        """Create the composite.

        Args:
            name: the behaviour name.
            children: the conditions followed by the actions.
            num_conditions: how many of the first children are conditions.

        Raises:
            ValueError: if ``num_conditions`` is negative or exceeds the number of children.
        """
        check_count(num_conditions, 'num_conditions', minimum=0)
        super().__init__(name, children)
        self.num_conditions = num_conditions
        self._index = 0
        self._check_given_layout(children)

    @property
    def conditions(self) -> list[Behaviour]:
        """Return the condition children."""
        return self.children[:self.num_conditions]

    @property
    def actions(self) -> list[Behaviour]:
        """Return the action children."""
        return self.children[self.num_conditions:]

    def _layout_error(self) -> str | None:
        """Report more conditions than children."""
        if self.num_conditions > len(self.children):
            return (
                f'num_conditions is {self.num_conditions} but there are only '
                f'{plural(len(self.children), "child")}'
            )
        return None

    def _begin_run(self) -> None:
        """Start with the first child."""
        self._check_layout()
        self._index = 0

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that the actions succeeded."""
        return 'all actions succeeded'

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the composite with the ``conditions`` parameter."""
        return cls(name, children=children, num_conditions=params['conditions'])


class Monitor(_ConditionsThenActions):
    """Run actions while conditions keep holding (a parallel of conditions and a sequence).

    The first ``num_conditions`` children are conditions, the rest are actions. Every tick,
    the conditions are ticked first, in order; a condition that returns SUCCESS or RUNNING
    holds. As soon as one returns FAILURE, the monitor returns FAILURE without ticking the
    actions, and RUNNING actions (and conditions) are stopped with INVALID. While all
    conditions hold, the actions run as a sequence with memory on the same tick: RUNNING while
    the current action runs (resumed next tick), FAILURE when an action fails, SUCCESS when the
    last action succeeds (at once if there are no actions).

    Compare :class:`Filter`, which checks its conditions only at the start of a run.
    """

    declaration = NodeType(
        name='Monitor',
        category=Category.COMPOSITE,
        doc=('The first `conditions` children are conditions, ticked first on every tick; '
             'one that returns SUCCESS or RUNNING holds. When a condition fails: FAILURE at '
             "once (\"condition '<child>' failed: <reason>\"), the running actions halted. "
             'While all hold, the remaining children (actions) run as a sequence with memory '
             'in the same tick: RUNNING while an action runs, FAILURE when one fails, '
             'SUCCESS when the last one succeeded.'),
        params=(_CONDITIONS,),
        min_children=2,
        max_children=None,
    )

    def tick(self) -> Iterator[Behaviour]:
        """Check every condition, then advance the actions.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        self._check_layout()
        for condition in self.conditions:
            self.current_child = condition
            yield from condition.tick()
            if condition.status not in (Status.SUCCESS, Status.RUNNING):
                self._finish(Status.FAILURE, failure_reason(condition, 'condition'))
                yield self
                return
        yield from self._tick_in_order(self.actions, Status.SUCCESS, 'running')

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the failure of the action at ``index`` of the actions."""
        return failure_reason(children[index], 'action')


class Filter(_ConditionsThenActions):
    """Check conditions once at the start of a run, then run actions as a sequence.

    This is a sequence with memory over all children in which the first ``num_conditions``
    children are conditions: they are ticked in order at the start of a run, and if one
    returns FAILURE the filter returns FAILURE and no action runs. Once they have succeeded
    they are not ticked again in this run, and the actions run as a sequence with memory:
    RUNNING while the current action runs (resumed next tick), FAILURE when an action fails,
    SUCCESS when the last one succeeds. A condition that returns RUNNING is waited for (it is
    resumed on the next tick, like any child of a sequence with memory).

    Unlike :class:`Monitor`, a condition that becomes false while the actions run does not
    interrupt them.
    """

    declaration = NodeType(
        name='Filter',
        category=Category.COMPOSITE,
        doc=('A sequence with memory whose first `conditions` children are conditions, '
             'checked once at the start of a run: a condition that fails gives FAILURE and '
             'no action runs. Then the actions run as a sequence with memory: RUNNING while '
             'one runs, FAILURE when one fails, SUCCESS when the last one succeeded. A '
             'condition that becomes false later does not interrupt the actions (use Monitor '
             'for that).'),
        params=(_CONDITIONS,),
        min_children=2,
        max_children=None,
    )

    def tick(self) -> Iterator[Behaviour]:
        """Resume the sequence of conditions and actions.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        yield from self._tick_in_order(self.children, Status.SUCCESS, 'running')

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the failure of the condition or action at ``index``."""
        role = 'condition' if index < self.num_conditions else 'action'
        return failure_reason(children[index], role)


class IfThenElse(BaseComposite):
    """Choose a branch by a condition evaluated once at the start of a run.

    Children: ``condition``, ``then`` and optionally ``else``. At the start of a run the
    condition is ticked (while it returns RUNNING, so does this node, and the condition is
    ticked again next tick). SUCCESS selects ``then``, FAILURE selects ``else``; the chosen
    branch is ticked on the same tick and on following ticks, without re-checking the
    condition, until it finishes; its result is the result of this node. If the condition is
    false and there is no ``else`` branch, the result is FAILURE.
    """

    declaration = NodeType(
        name='IfThenElse',
        category=Category.COMPOSITE,
        doc=('Children: condition, then-branch, optional else-branch. The condition is '
             'ticked at the start of a run (RUNNING while it runs); SUCCESS picks the '
             'then-branch, FAILURE the else-branch, ticked in the same tick and on later '
             "ticks without checking the condition again. The branch's result is the result; "
             'a false condition without an else-branch is FAILURE.'),
        min_children=2,
        max_children=3,
        aliases=('If',),
        btcpp='IfThenElse',
    )

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
        """Create the node.

        Args:
            name: the behaviour name.
            children: ``[condition, then]`` or ``[condition, then, else]``.

        Raises:
            ValueError: if there are not 2 or 3 children.
        """
        super().__init__(name, children)
        self._branch: Behaviour | None = None
        self._check_given_layout(children)

    def _layout_error(self) -> str | None:
        """Require 2 or 3 children."""
        if len(self.children) not in (2, 3):
            return f'needs 2 or 3 children (condition, then, [else]), got {len(self.children)}'
        return None

    def _begin_run(self) -> None:
        """Forget the branch chosen in the previous run."""
        self._branch = None

    def tick(self) -> Iterator[Behaviour]:
        """Evaluate the condition if needed, then tick the chosen branch.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._check_layout()
        self._start_if_new_run()
        if self._branch is None:
            condition = self.children[0]
            self.current_child = condition
            yield from condition.tick()
            if condition.status == Status.RUNNING:
                self.status = Status.RUNNING
                self.feedback_message = f"evaluating '{condition.name}'"
                yield self
                return
            if condition.status == Status.SUCCESS:
                self._branch = self.children[1]
            elif len(self.children) == 3:
                self._branch = self.children[2]
            else:
                self._finish(
                    Status.FAILURE, f"'{condition.name}' is false and there is no else branch")
                yield self
                return
        branch = self._branch
        self.current_child = branch
        yield from branch.tick()
        which = 'then' if branch is self.children[1] else 'else'
        if branch.status == Status.RUNNING:
            self.status = Status.RUNNING
            self.feedback_message = f"running {which} branch '{branch.name}'"
        elif branch.status == Status.SUCCESS:
            self._finish(Status.SUCCESS, f"{which} branch '{branch.name}' succeeded")
        else:
            self._finish(Status.FAILURE, failure_reason(branch, f'{which} branch'))
        yield self


class While(BaseComposite):
    """Loop a body while a condition holds.

    Children: ``condition`` and ``body``. Every tick the condition is ticked first; SUCCESS or
    RUNNING means it holds. If it does not hold (FAILURE), a RUNNING body is stopped with
    INVALID (that iteration is aborted and does not count) and the loop ends: SUCCESS if at
    least one iteration finished (the body succeeded) in this run, FAILURE if none did, also
    when one was running and got aborted (the loop did not do its job once). While the
    condition holds, the body is ticked: SUCCESS finishes an iteration and the loop stays
    RUNNING (the body restarts on the next tick, so there is at most one iteration per tick),
    RUNNING keeps the loop RUNNING, and FAILURE ends the loop with FAILURE. Iterations are
    counted per run; a new run starts at 0.
    """

    declaration = NodeType(
        name='While',
        category=Category.COMPOSITE,
        doc=('Children: condition, body. Every tick the condition is ticked first (SUCCESS '
             "or RUNNING: it holds), then the body. The body's SUCCESS finishes an iteration "
             '(the loop stays RUNNING; the body restarts on the next tick), its RUNNING '
             'keeps the loop RUNNING, its FAILURE fails the loop. When the condition fails, '
             'a running body is halted (that iteration is aborted and does not count) and '
             'the loop ends: SUCCESS if at least one iteration finished in this run, FAILURE '
             'if none did, also when one was running and got aborted.'),
        min_children=2,
        max_children=2,
    )

    def __init__(self, name: str, *, children: Sequence[Behaviour] | None = None):
        """Create the loop.

        Args:
            name: the behaviour name.
            children: ``[condition, body]``.

        Raises:
            ValueError: if there are not exactly 2 children.
        """
        super().__init__(name, children)
        self.iterations = 0
        self._check_given_layout(children)

    def _layout_error(self) -> str | None:
        """Require exactly 2 children."""
        if len(self.children) != 2:
            return f'needs 2 children (condition, body), got {len(self.children)}'
        return None

    def _begin_run(self) -> None:
        """Reset the iteration count."""
        self.iterations = 0

    def tick(self) -> Iterator[Behaviour]:
        """Check the condition, then tick the body.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._check_layout()
        self._start_if_new_run()
        condition, body = self.children
        self.current_child = condition
        yield from condition.tick()
        if condition.status not in (Status.SUCCESS, Status.RUNNING):
            aborted = (f' (iteration {self.iterations + 1} aborted)'
                       if body.status == Status.RUNNING else '')
            if self.iterations:
                self._finish(
                    Status.SUCCESS, f"'{condition.name}' is false after "
                                    f"{plural(self.iterations, 'iteration')}{aborted}")
            elif aborted:
                self._finish(
                    Status.FAILURE, f"'{condition.name}' turned false before the first "
                                    f'iteration finished{aborted}')
            else:
                self._finish(
                    Status.FAILURE, f"'{condition.name}' is false before the first iteration")
            yield self
            return
        self.current_child = body
        yield from body.tick()
        if body.status == Status.SUCCESS:
            self.iterations += 1
            self.status = Status.RUNNING
            self.feedback_message = f'{plural(self.iterations, "iteration")} done'
        elif body.status == Status.RUNNING:
            self.status = Status.RUNNING
            self.feedback_message = f'iteration {self.iterations + 1} running'
        else:
            self._finish(Status.FAILURE, failure_reason(body, 'body'))
        yield self
