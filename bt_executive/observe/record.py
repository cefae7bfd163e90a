# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""One record per tick: what ran, what moved and why, what was written (no ROS in here).

The tree host ticks the tree and hands the behaviours the tick generator yielded to a
:class:`StatusTracker`, which finds what changed and returns a :class:`TickRecord`;
every observer (snapshot model, Groot2 server, py_trees_ros stream, status, a recorder)
is a post-tick handler over that record (:class:`Observer`). Observers never tick the
tree, and they do not walk it: the record says what changed.

How changes are found without walking the tree every tick: a behaviour's status only
changes when it is ticked, or when it is stopped by its parent (always to INVALID). The
tick generator yields every behaviour it ticks; the tracker compares those, plus their
children that are not INVALID and were not ticked (a parent may stop those), descending
further only below children that changed. The cost per tick is proportional to the
behaviours ticked, not to the tree's size.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from typing import Any, Iterable, Mapping, NamedTuple, Optional, Protocol, Sequence

from bt_executive.core.table import BuiltTree, NodeTable
from bt_executive.nodes.terminate import TerminationRequest
import py_trees
from py_trees.common import Status

_INVALID = Status.INVALID


class Transition(NamedTuple):
    """A node whose status or feedback message changed (a tuple: cheap to make).

    Attributes:
        id: the node's id (its node path; unique in the tree)
        behaviour: the behaviour itself
        old: its status before
        new: its status now (equal to ``old`` when only the feedback changed)
        reason: its feedback message now (for FAILURE: why)
    """

    id: str  # noqa: A003 - the node id, as in snapshots
    behaviour: py_trees.behaviour.Behaviour
    old: Status
    new: Status
    reason: str

    @property
    def moved(self) -> bool:
        """Tell whether the status changed (not only the feedback message)."""
        return self.old is not self.new


@dataclasses.dataclass(slots=True)
class TickRecord:
    """What one tick (or a stop between ticks) did.

    Attributes:
        tick: the tick count after this tick (unchanged for a stop)
        time: the clock time of the tick (seconds; the ROS clock in the executive)
        duration: seconds the tick took (wall clock; 0 for a stop)
        interval: seconds since the previous tick started (None for the first)
        ticked: the behaviours the tick ran, in the order they were ticked ([] for a stop)
        changes: status and feedback changes, in the order they were found
        writes: root blackboard keys the tick wrote or removed (when the host tracks them)
        before: the blackboard storage as it was before the tick (``'/key' -> value``;
            when the host tracks writes, else None): the old values of ``writes``
        root_status: the root's status after the tick (a Terminate leaf's status when
            one ended the tick)
        stopped: True for a record of a stop (pause, reset, swap), not a tick
        terminated: the request of the Terminate leaf that ended this tick (the tree was
            halted), else None
        debug: what the debugger did since the last record (breakpoints hit, results
            substituted, operator requests: bt_executive/observe/debugger.py), oldest first
    """

    tick: int
    time: float
    duration: float = 0.0
    interval: Optional[float] = None
    ticked: Sequence[py_trees.behaviour.Behaviour] = ()
    changes: list[Transition] = dataclasses.field(default_factory=list)
    writes: frozenset[str] = frozenset()
    before: Optional[Mapping[str, Any]] = None
    root_status: Status = Status.INVALID
    stopped: bool = False
    terminated: Optional[TerminationRequest] = None
    debug: tuple[Any, ...] = ()

    @property
    def transitions(self) -> list[Transition]:
        """Return the changes that moved a status (events), oldest first."""
        return [change for change in self.changes if change.old is not change.new]


class Observer(Protocol):
    """A post-tick handler: gets every record of the tree host's tree."""

    def on_tick(self, record: TickRecord) -> None:
        """Take the record of a tick (or of a stop)."""


class StatusTracker:
    """Find the status changes of one built tree, tick after tick (see module docstring).

    Every behaviour gets an id: its node path from the node table, else ``parent/name``
    (``#2``, ``#3`` ... for duplicates).

    Args:
        tree: the built tree (its node table gives the ids)
    """

    def __init__(self, tree: BuiltTree):
        self.tree = tree
        self.root = tree.root
        self.nodes: NodeTable = tree.nodes
        self.tick_count = 0
        self._visited: list[py_trees.behaviour.Behaviour] = []
        self._last_visited: list[py_trees.behaviour.Behaviour] = []
        self._last_statuses: list[Status] = []
        self._last_feedback: list[Any] = []
        self._last_pending: list[py_trees.behaviour.Behaviour] = []
        #: the records of the behaviours in _last_visited equal _last_statuses and
        #: _last_feedback
        self._in_sync = False
        self._changes: list[Transition] = []
        #: bumped whenever the structure is described again
        self.structure_version = 0
        self._index()

    # ---- structure -----------------------------------------------------------------

    def _index(self) -> None:
        """Give every behaviour an id and note parents and recorded states.

        On a structure change (not the first index) the behaviours known before keep the
        state recorded for them, and new ones are recorded as INVALID, so that comparing
        afterwards reports what the tick that found the change did.
        """
        before: Optional[dict[py_trees.behaviour.Behaviour, tuple[Status, str]]] = \
            getattr(self, 'state', None)
        self.ids: dict[py_trees.behaviour.Behaviour, str] = {}
        self.parents: dict[py_trees.behaviour.Behaviour, Any] = {}
        #: (behaviour, id, parent id, depth) in depth-first pre-order
        self.order: list[tuple[py_trees.behaviour.Behaviour, str, Optional[str], int]] = []
        #: behaviour -> its children whose recorded status is not INVALID
        self._live: dict[py_trees.behaviour.Behaviour, set[Any]] = {}
        self.state: dict[py_trees.behaviour.Behaviour, tuple[Status, str]] = {}
        taken: set[str] = set()
        stack: list[tuple[Any, Optional[str], int, Any]] = [(self.root, None, 0, None)]
        while stack:
            node, parent, depth, parent_node = stack.pop()
            info = self.nodes.info(node)
            ident = info.path if info is not None else (
                f'{parent}/{node.name}' if parent else node.name)
            base, count = ident, 1
            while ident in taken:
                count += 1
                ident = f'{base}#{count}'
            taken.add(ident)
            self.ids[node] = ident
            self.parents[node] = parent_node
            self.order.append((node, ident, parent, depth))
            if before is None:
                self._live[node] = {child for child in node.children
                                    if child.status is not Status.INVALID}
                self.state[node] = (node.status, _text(node.feedback_message))
            else:
                self.state[node] = before.get(node, (Status.INVALID, ''))
            stack.extend((child, ident, depth + 1, node) for child in reversed(node.children))
        if before is not None:  # children live as recorded (compare() descends into them)
            for node in self.state:
                self._live[node] = {child for child in node.children
                                    if self.state[child][0] is not Status.INVALID}
        self._last_visited = []
        self._in_sync = False
        self.structure_version += 1

    # ---- finding changes -------------------------------------------------------------

    def after_tick(self, ticked: list[py_trees.behaviour.Behaviour]) -> list[Transition]:
        """Return the changes made by a tick that ticked ``ticked`` (in that order).

        The list is kept by the tracker for comparing the next tick: do not change it.
        """
        self._changes = []
        self._visited = ticked
        if not self._scan_ticked():
            return self.compare_all()
        self._last_visited = ticked
        return self._changes

    def compare_all(self) -> list[Transition]:
        """Return the changes found by comparing every behaviour (after a stop, say)."""
        self._changes = []
        self._compare(list(self.state))
        self._in_sync = False
        return self._changes

    def compare_root(self) -> list[Transition]:
        """Return the changes of the root and below each live child that changed."""
        self._changes = []
        self._compare([self.root])
        if self._changes:
            self._in_sync = False  # e.g. a stop: records moved away from the last read
        return self._changes

    def _change(self, node: py_trees.behaviour.Behaviour, old: Status, status: Status,
                feedback: Any) -> None:
        """Record a new status/feedback of ``node``."""
        if feedback.__class__ is not str:
            feedback = str(feedback)
        self.state[node] = (status, feedback)
        if status is not old:
            parent = self.parents[node]
            if parent is not None:
                if status is _INVALID:
                    self._live[parent].discard(node)
                else:
                    self._live[parent].add(node)
        self._changes.append(Transition(self.ids[node], node, old, status, feedback))

    def _scan_ticked(self) -> bool:
        """Compare the behaviours ticked, then the children their parents may have stopped.

        Only children that are not INVALID can change without being ticked (a stop turns
        them INVALID), so only those are compared, and below them only where one changed.
        When the same behaviours were ticked as last time (the usual case), the ticked
        ones are compared with what they read last time by C loops over the whole list,
        and only those that differ are looked at one by one.

        Returns:
            False if the tree's structure changed (it has been described again).
        """
        visited = self._visited
        # two comprehensions read every ticked behaviour's state: cheaper than a list of
        # (status, feedback) tuples (no tuple per behaviour, specialised attribute reads)
        statuses = [node.status for node in visited]
        feedback = [node.feedback_message for node in visited]
        record = self.state
        if self._in_sync and visited == self._last_visited:
            # records of the ticked behaviours equal the last lists read (see _in_sync)
            if statuses != self._last_statuses or feedback != self._last_feedback:
                # by identity in C (a superset: _compare_at compares the texts)
                moved = map(operator.or_, map(operator.is_not, statuses, self._last_statuses),
                            map(operator.is_not, feedback, self._last_feedback))
                self._compare_at(itertools.compress(itertools.count(), moved), statuses,
                                 feedback)
            # a superset of the children to check: with the same behaviours ticked, the
            # live children of ticked parents only lose members that were not ticked
            pending = list(self._last_pending)
        else:
            try:
                recorded = list(map(record.__getitem__, visited))
            except KeyError:  # the tree was changed under us: describe it again
                self._index()
                return False
            if list(zip(statuses, feedback)) != recorded:
                self._compare_at(itertools.compress(itertools.count(), map(
                    operator.ne, zip(statuses, feedback), recorded)), statuses, feedback)
            seen = set(visited)
            pending = list(set().union(*filter(None, map(self._live.__getitem__, seen))) - seen)
            self._last_pending = list(pending)
        self._last_statuses = statuses
        self._last_feedback = feedback
        self._in_sync = True
        self._compare(pending)
        return True

    def _compare_at(self, indexes: Iterable[int], statuses: list[Status],
                    feedback: list[Any]) -> None:
        """Compare the ticked behaviours at ``indexes`` with their records."""
        visited = self._visited
        record = self.state
        for index in indexes:
            node = visited[index]
            status, text = statuses[index], feedback[index]
            old, old_text = record[node]  # again: a behaviour may be listed twice
            if status is not old or text != old_text:
                self._change(node, old, status, text)

    def _compare(self, pending: list[Any]) -> None:
        """Compare ``pending`` behaviours; below each that changed, its live children."""
        record = self.state
        live = self._live
        change = self._change
        while pending:
            node = pending.pop()
            old, feedback = record[node]
            status = node.status
            if status is not old or node.feedback_message != feedback:
                pending.extend(live[node])
                change(node, old, status, node.feedback_message)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


__all__ = ['Observer', 'StatusTracker', 'TickRecord', 'Transition']
