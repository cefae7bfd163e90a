# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Terminate leaf, which stops the whole tree, and the termination helpers.

:class:`Terminate` asks the tree runner to stop the whole tree: while a runner ticks with
:data:`STOP_AT_TERMINATE` set, the leaf raises :class:`TreeTerminated` through the tick as
soon as it has its status, so nothing after it runs in that tick (not even its parent's
decision); the runner reads and clears the request with :func:`termination_requested`
and :func:`clear_termination`. The conventions every behaviour of this package follows
are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import contextvars
import dataclasses
from typing import Iterator, Literal, Optional, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = [
    'STOP_AT_TERMINATE',
    'Terminate',
    'TerminationRequest',
    'TreeTerminated',
    'clear_termination',
    'termination_requested',
]

_TERMINATION_ATTRIBUTE = 'bt_termination'


def _root_of(node: Behaviour) -> Behaviour:
    """Return the root of the tree ``node`` belongs to.

    Args:
        node: any behaviour in the tree.

    Returns:
        The ancestor without a parent (``node`` itself when it has no parent).
    """
    while node.parent is not None:
        node = node.parent
    return node


@dataclasses.dataclass(frozen=True)
class TerminationRequest:
    """A request, made by a :class:`Terminate` leaf, that the whole tree stop.

    Attributes:
        status: the final status the tree should report (SUCCESS or FAILURE).
        reason: why, as given to the leaf (may be empty).
        node_name: the name of the leaf that made the request.
        node: the leaf itself (not compared).
    """

    status: Status
    reason: str
    node_name: str
    node: Optional[Behaviour] = dataclasses.field(default=None, compare=False, repr=False)


class TreeTerminated(BaseException):
    """Raised through the tick by a :class:`Terminate` leaf when a runner asked for it.

    A ``BaseException`` (like ``GeneratorExit``): it ends every tick generator on its way
    up without being taken for a node's error (``except Exception``, the fault guard).
    Only a runner that set :data:`STOP_AT_TERMINATE` gets it, and catches it.
    """


STOP_AT_TERMINATE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    'bt_stop_at_terminate', default=False)
"""Set by a tree runner around its tick: a :class:`Terminate` leaf then stops the tick.

Without it (``root.tick_once()`` as plain py_trees code runs it), the leaf only records
its request and the rest of the tick runs.
"""


class Terminate(Behaviour):
    """Stop the whole tree at once with ``status``.

    When ticked, the leaf stores a :class:`TerminationRequest` on the root of its tree
    (attribute ``bt_termination``) unless one is already there (the first request wins)
    and takes the given status (SUCCESS or FAILURE) with the feedback ``terminating tree:
    <reason>``. When a runner ticks (:data:`STOP_AT_TERMINATE`), the leaf then raises
    :class:`TreeTerminated` instead of handing itself back to its parent, so nothing after
    it runs in that tick (no later sibling, no parent's decision).

    The tree runner (:class:`~bt_executive.observe.runner.TreeRunner`) catches it, halts
    the tree (running leaves are cancelled), clears the request, and sets the leaf and
    every ancestor up to the root to ``request.status``: the tree's status is the leaf's,
    whatever the parents would have made of it (an ``Inverter`` above it does not invert
    it), and the failure chain of a FAILURE leads to the leaf. Ancestors get the feedback
    ``terminated by '<leaf path>': <reason>``.
    """

    declaration = NodeType(
        name='Terminate',
        category=Category.LEAF,
        doc=('Ends the whole tree at once with `status`: nothing after it runs in that tick '
             '(no later sibling, no decision of the nodes above), every running node is '
             "halted (goals cancelled), the tree's status is `status` whatever the nodes "
             'above would have made of it (this node and its ancestors show it, and a '
             "FAILURE's why chain leads here), and the executive stops ticking (`~/status`: "
             'running false, `terminated` says who and why; `~/resume` or `~/reset` start '
             'the tree again).'),
        params=(
            Param('status', ParamType.ENUM, 'final status of the tree', default='failure',
                  choices=('success', 'failure')),
            Param('reason', ParamType.STRING, 'why (shown in status and viewers)', default=''),
        ),
        primary='reason',
        aliases=('Abort',),
    )

    def __init__(
        self,
        name: str,
        *,
        status: Literal['success', 'failure'] = 'failure',
        reason: str = '',
    ):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            status: the status to return and to request for the tree.
            reason: a human explanation shown by viewers and the runner.

        Raises:
            ValueError: if ``status`` is neither 'success' nor 'failure'.
        """
        if status not in ('success', 'failure'):
            raise ValueError(f"status must be 'success' or 'failure', got {status!r}")
        super().__init__(name)
        self.final_status = Status.SUCCESS if status == 'success' else Status.FAILURE
        self.reason = reason

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf with its status and reason."""
        return cls(name, status=params['status'], reason=params['reason'])

    def update(self) -> Status:
        """Record the request on the root and return the configured status."""
        root = _root_of(self)
        if getattr(root, _TERMINATION_ATTRIBUTE, None) is None:
            setattr(
                root,
                _TERMINATION_ATTRIBUTE,
                TerminationRequest(self.final_status, self.reason, self.name, self),
            )
        self.feedback_message = (
            f'terminating tree: {self.reason}' if self.reason else 'terminating tree')
        return self.final_status

    def tick(self) -> Iterator[Behaviour]:
        """Tick as a leaf; under a runner, raise :class:`TreeTerminated` once it has its status.

        Yields:
            This behaviour (only when no runner stops the tick).

        Raises:
            TreeTerminated: when :data:`STOP_AT_TERMINATE` is set.
        """
        for node in super().tick():
            if STOP_AT_TERMINATE.get():
                raise TreeTerminated(self.name)
            yield node


def termination_requested(root: Behaviour) -> TerminationRequest | None:
    """Return the pending termination request of the tree ``root`` belongs to.

    Args:
        root: the root of the tree (any node of it works: the root is looked up).

    Returns:
        The first request made by a :class:`Terminate` leaf since the last
        :func:`clear_termination`, or None.
    """
    request = getattr(_root_of(root), _TERMINATION_ATTRIBUTE, None)
    return request if isinstance(request, TerminationRequest) else None


def clear_termination(root: Behaviour) -> None:
    """Forget the termination request of the tree ``root`` belongs to.

    Args:
        root: the root of the tree (any node of it works: the root is looked up).
    """
    setattr(_root_of(root), _TERMINATION_ATTRIBUTE, None)
