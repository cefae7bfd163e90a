# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Composites that walk their children in a random order: RandomSelector, RandomSequence.

Each owns a ``random.Random``: seeded by its ``seed`` parameter, or else from the run's
seed (``bt-executive tick --seed N`` repeats a run), or else from the OS. The conventions
every behaviour of this package follows are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import math
import random
from typing import Iterator, Optional, Sequence, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.composites import BaseComposite
from bt_executive.nodes.support import failure_reason, plural
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['RandomSelector', 'RandomSequence']

#: The ``seed`` parameter of both.
_SEED = Param('seed', ParamType.INT, 'random seed (default: derived from the run seed)',
              default=None)


def _seed(ctx: BuildContext, params: Params) -> Optional[int]:
    """Return the ``seed`` parameter, or the next seed of the run when it is not given."""
    seed = params.get('seed')
    return seed if seed is not None else ctx.next_seed()


class _RandomOrder(BaseComposite):
    """Base for composites that walk their children in a new random order on each run.

    Subclasses may replace the uniform shuffle of :meth:`_draw_order`, and set
    :attr:`_advance_on` and :attr:`_running_verb` (see :meth:`BaseComposite._tick_in_order`);
    the walk has memory: a RUNNING child is resumed on the next tick instead of starting over.
    """

    _advance_on: Status
    _running_verb: str

    def __init__(
        self,
        name: str,
        children: Sequence[Behaviour] | None,
        seed: int | None,
    ):
        """Create the composite.

        Args:
            name: the behaviour name.
            children: the children.
            seed: seed of this composite's own random generator (None: from the OS).
        """
        super().__init__(name, children)
        self._random = random.Random(seed)
        self._order: list[Behaviour] = []
        self._index = 0

    @property
    def order(self) -> tuple[Behaviour, ...]:
        """Return the order drawn for the current (or last) run."""
        return tuple(self._order)

    def _draw_order(self) -> list[Behaviour]:
        """Return the children in the order to try them in this run: a uniform shuffle."""
        order = list(self.children)
        self._random.shuffle(order)
        return order

    def _begin_run(self) -> None:
        """Draw a new order and start at its first child."""
        self._check_layout()
        self._order = self._draw_order()
        self._index = 0

    def tick(self) -> Iterator[Behaviour]:
        """Walk the children in this run's order, with memory.

        Yields:
            This behaviour or one of its descendants.
        """
        self.logger.debug(f'{self.__class__.__name__}.tick()')
        self._start_if_new_run()
        yield from self._tick_in_order(self._order, self._advance_on, self._running_verb)


class RandomSelector(_RandomOrder):
    """A selector with memory over an order drawn at random at the start of each run.

    At the start of each run (the first tick after it finished or was stopped) the children
    are put in a random order: uniformly shuffled without ``weights``; with ``weights``, a
    weighted draw without replacement (each next child is picked with probability proportional
    to its weight among those not yet picked; children with weight 0 come last, in their given
    order). The selector then tries the children in that order with memory: SUCCESS as soon as
    one succeeds, RUNNING while the current child runs (it is resumed on the next tick, earlier
    children are not re-checked), the next child when one fails, FAILURE when all failed.

    The weights belong to the children given to the constructor, by position. If children are
    added later, the next run raises RuntimeError unless no weights were given.
    """

    declaration = NodeType(
        name='RandomSelector',
        category=Category.COMPOSITE,
        doc=('Selector with memory over an order drawn at the start of each run (uniform, or '
             'by `weights`: a child with weight 0 is tried last): RUNNING while the current '
             'child runs, SUCCESS when a child succeeds, FAILURE when every child failed '
             "(the seeds' weighted RandomPriority). Without `seed` the order comes from a "
             'fresh random seed each time the tree is loaded (`bt-executive tick --seed N` '
             'repeats a run).'),
        params=(
            Param('weights', ParamType.LIST, 'one non-negative weight per child', default=None),
            _SEED,
        ),
        min_children=1,
        max_children=None,
        aliases=('RandomPriority',),
    )

    _advance_on = Status.FAILURE
    _running_verb = 'trying'

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        weights: Sequence[float] | None = None,
        seed: int | None = None,
    ):
        """Create the selector.

        Args:
            name: the behaviour name.
            children: the children.
            weights: one non-negative weight per child, not all zero (None: uniform).
            seed: seed of this selector's own random generator (None: from the OS).

        Raises:
            ValueError: if the weights do not match the children or are invalid.
        """
        super().__init__(name, children, seed)
        self.weights: tuple[float, ...] | None = None
        if weights is not None:
            values: list[float] = []
            for weight in weights:
                if isinstance(weight, bool) or not isinstance(weight, (int, float)):
                    raise ValueError(f'weights must be numbers, got {weight!r}')
                if not math.isfinite(weight) or weight < 0:
                    raise ValueError(f'weights must be finite and >= 0, got {weight!r}')
                values.append(float(weight))
            if len(values) != len(self.children):
                raise ValueError(
                    f'got {len(values)} weights for {plural(len(self.children), "child")}'
                )
            if values and not any(value > 0 for value in values):
                raise ValueError('weights must not all be zero')
            self.weights = tuple(values)

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the selector, checking that there is one weight per child."""
        weights = params.get('weights')
        if weights is not None and len(weights) != len(children):
            raise ValueError(f'{len(weights)} weights for {len(children)} children')
        return cls(name, children=children, weights=weights, seed=_seed(ctx, params))

    def _layout_error(self) -> str | None:
        """Report weights that no longer match the children."""
        if self.weights is not None and len(self.weights) != len(self.children):
            return (
                f'{len(self.weights)} weights for {plural(len(self.children), "child")}'
            )
        return None

    def _draw_order(self) -> list[Behaviour]:
        """Draw a (weighted) random order of the children."""
        if self.weights is None:
            return super()._draw_order()
        pool = [(w, c) for w, c in zip(self.weights, self.children) if w > 0]
        order = []
        while pool:
            pick = self._random.random() * sum(w for w, _ in pool)
            chosen = len(pool) - 1  # guards against rounding at the top end
            for position, (weight, _) in enumerate(pool):
                if pick < weight:
                    chosen = position
                    break
                pick -= weight
            order.append(pool.pop(chosen)[1])
        order.extend(c for w, c in zip(self.weights, self.children) if w == 0)
        return order

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Name the child that succeeded."""
        return f"'{children[index].name}' succeeded"

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that every child failed."""
        count = len(self.children)
        return f'all {plural(count, "child")} failed' if count else 'no children'


class RandomSequence(_RandomOrder):
    """A sequence with memory over an order shuffled at the start of each run.

    At the start of each run (the first tick after it finished or was stopped) the children
    are shuffled uniformly. The sequence then runs them in that order with memory: the next
    child when one succeeds, RUNNING while the current child runs (it is resumed on the next
    tick), FAILURE as soon as one fails, SUCCESS when all succeeded (also with no children).
    """

    declaration = NodeType(
        name='RandomSequence',
        category=Category.COMPOSITE,
        doc=('Sequence with memory over an order shuffled at the start of each run: RUNNING '
             'while the current child runs, FAILURE when a child fails, SUCCESS when every '
             'child succeeded. Without `seed` the order comes from a fresh random seed each '
             'time the tree is loaded (`bt-executive tick --seed N` repeats a run).'),
        params=(_SEED,),
        min_children=1,
        max_children=None,
    )

    _advance_on = Status.SUCCESS
    _running_verb = 'running'

    def __init__(
        self,
        name: str,
        *,
        children: Sequence[Behaviour] | None = None,
        seed: int | None = None,
    ):
        """Create the sequence.

        Args:
            name: the behaviour name.
            children: the children.
            seed: seed of this sequence's own random generator (None: from the OS).
        """
        super().__init__(name, children, seed)

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the sequence with its seed."""
        return cls(name, children=children, seed=_seed(ctx, params))

    def _success_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Say that every child succeeded."""
        return f'all {plural(len(self.children), "child")} succeeded'

    def _failure_message(self, children: Sequence[Behaviour], index: int) -> str:
        """Explain the child's failure."""
        return failure_reason(children[index])
