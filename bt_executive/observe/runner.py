# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick a built tree once, record what happened, hand the record to the observers.

:class:`TreeRunner` is the one place a tree is ticked (the ROS tree host, ``bt-executive
tick``, tests and benchmarks all use it): ``tick_once()`` ticks the root, contains the
exceptions of single nodes (:mod:`bt_executive.core.faults`), carries out a
:class:`~bt_executive.nodes.terminate.Terminate` leaf's request, asks the
:class:`~bt_executive.observe.record.StatusTracker` what changed and passes one
:class:`~bt_executive.observe.record.TickRecord` to every observer. ``stop()`` halts the
tree and passes the record of that stop. No ROS in here.
"""

from __future__ import annotations

import time
from typing import Any, Callable, MutableMapping, Optional

from bt_executive.core.faults import contain_fault
from bt_executive.core.table import BuiltTree, log_to_stderr
from bt_executive.nodes.terminate import (
    clear_termination,
    STOP_AT_TERMINATE,
    termination_requested,
    TerminationRequest,
    TreeTerminated,
)
from bt_executive.observe.record import Observer, StatusTracker, TickRecord
import py_trees
from py_trees.common import Status

#: Nodes that may raise for the first time in one tick before the tick is abandoned.
MAX_CONTAINED_PER_TICK = 16

_MISSING = object()


class TickPaused(BaseException):
    """Raised through the tick by a debugger breakpoint: the tick ends where it stands.

    A ``BaseException``, as :class:`~bt_executive.nodes.terminate.TreeTerminated`: it ends
    every tick generator on its way up without being taken for a node's error. The runner
    catches it; with ``halt`` it then halts the tree (running leaves cancel their goals),
    else the tree is left as the tick left it (goals keep running at their servers).

    Args:
        halt: halt the tree once the tick has ended
    """

    def __init__(self, *, halt: bool) -> None:
        super().__init__('paused at a breakpoint')
        self.halt = halt


def blackboard_storage() -> MutableMapping[str, Any]:
    """Return py_trees' blackboard storage (``/key -> value``)."""
    return py_trees.blackboard.Blackboard.storage


class TreeRunner:
    """Tick one built tree and hand a :class:`TickRecord` of every tick to observers.

    Args:
        tree: the built tree
        clock: seconds for record times (wall clock; the executive passes the ROS clock)
        track_writes: note which root blackboard keys each tick writes (a copy of the
            blackboard per tick; off by default)
        storage: returns the blackboard storage (py_trees' by default)
        log_error: receives the report when a tick is abandoned
    """

    def __init__(self, tree: BuiltTree, *, clock: Callable[[], float] = time.time,
                 track_writes: bool = False,
                 storage: Callable[[], MutableMapping[str, Any]] = blackboard_storage,
                 log_error: Callable[[str], None] = log_to_stderr):
        self.tree = tree
        self.root = tree.root
        self.clock = clock
        self.track_writes = track_writes
        self.storage = storage
        self.log_error = log_error
        self.tracker = StatusTracker(tree)
        self.observers: list[Observer] = []
        self.tick_count = 0
        self.last: Optional[TickRecord] = None
        #: what a debugger did since the last record; the next record carries it (debug)
        self.notes: list[Any] = []
        #: the breakpoint that ended the last tick (None: the tick ran to its end)
        self.paused: Optional[TickPaused] = None
        self._last_start: Optional[float] = None

    def add_observer(self, observer: Observer) -> None:
        """Hand ``observer`` every record from now on (in the order observers were added)."""
        self.observers.append(observer)

    def remove_observer(self, observer: Observer) -> None:
        """Stop handing ``observer`` records."""
        self.observers.remove(observer)

    def tick_once(self, *, now: Optional[float] = None) -> TickRecord:
        """Tick the tree once, record it and hand the record to every observer.

        When a ``Terminate`` leaf is ticked, nothing after it runs in this tick: the tree
        is halted (running leaves cancelled), the leaf and its ancestors up to the root
        take the leaf's status (see :class:`~bt_executive.nodes.terminate.Terminate`), and the
        record carries the request (``record.terminated``) and that status as the root's.

        Args:
            now: the tick's clock time (default: read the clock)
        """
        start = time.perf_counter()
        interval = None if self._last_start is None else start - self._last_start
        self._last_start = start
        storage = self.storage() if self.track_writes else None
        before = dict(storage) if storage is not None else None
        self.paused = None
        ticked = self._contained_tick()
        request = termination_requested(self.root)
        if request is not None:
            node = request.node
            while node is not None:  # it and its ancestors ran, but were never yielded
                ticked.append(node)
                node = node.parent
            self._terminate(request)
        duration = time.perf_counter() - start
        self.tick_count += 1
        changes = self.tracker.after_tick(ticked)
        if request is None and self.paused is not None and self.paused.halt:
            self._halt(Status.INVALID, everything=True)  # a breakpoint's halt policy
            request_halted = True
        else:
            request_halted = request is not None
        if request_halted:  # the halt moved nodes that were not ticked
            changes = changes + self.tracker.compare_all()
        writes = frozenset() if before is None else _writes(before, storage)
        record = TickRecord(tick=self.tick_count, time=self.clock() if now is None else now,
                            duration=duration, interval=interval, ticked=ticked,
                            changes=changes, writes=writes, before=before,
                            root_status=self.root.status,
                            terminated=request, debug=self._take_notes())
        self.publish(record)
        return record

    def _contained_tick(self) -> list[py_trees.behaviour.Behaviour]:
        """Tick once; a node raising for the first time is guarded and the tick run again.

        With :data:`~bt_executive.nodes.terminate.STOP_AT_TERMINATE` set, a ``Terminate``
        leaf ends the tick where it stands (it raises ``TreeTerminated``).
        """
        ticked: list[py_trees.behaviour.Behaviour] = []
        token = STOP_AT_TERMINATE.set(True)
        try:
            for _ in range(MAX_CONTAINED_PER_TICK):
                try:
                    ticked.extend(self.root.tick())  # consumed in C: cheaper than a loop
                    return ticked
                except TreeTerminated:  # the rest of the tick does not run
                    return ticked
                except TickPaused as paused:  # a breakpoint: nor here
                    self.paused = paused
                    return ticked
                except Exception as error:  # noqa: B902 - contained below or re-raised
                    if not contain_fault(error, self.tree):
                        raise
        finally:
            STOP_AT_TERMINATE.reset(token)
        self.log_error(f'{MAX_CONTAINED_PER_TICK} nodes raised in one tick; the tick was '
                       'abandoned')
        return ticked

    def _terminate(self, request: TerminationRequest) -> None:
        """Halt the tree and give the Terminate leaf's status to it and its ancestors."""
        self._halt(Status.INVALID, everything=True)
        clear_termination(self.root)
        leaf = request.node
        path = self.tree.nodes.path(leaf) if leaf is not None else request.node_name
        message = f"terminated by '{path}'" + (f': {request.reason}' if request.reason else '')
        if leaf is None:  # a request made outside a Terminate leaf: mark the root only
            self.root.status = request.status
            self.root.feedback_message = message
            return
        leaf.status = request.status
        node = leaf.parent
        while node is not None:
            node.status = request.status
            node.feedback_message = message
            node = node.parent

    def _halt(self, status: Status, *, everything: bool = False) -> None:
        """Stop the root with ``status``; a terminate() that raises is guarded and retried.

        Args:
            status: the root's new status (its children go INVALID)
            everything: then also stop every behaviour the root's stop did not reach (in
                the middle of a tick a parent may not have a status yet while a child runs)
        """
        for _ in range(MAX_CONTAINED_PER_TICK):
            try:
                self.root.stop(status)
                if everything:
                    for node in self.root.iterate():  # children before their parents
                        if node.status is not Status.INVALID and node is not self.root:
                            node.stop(Status.INVALID)
                return
            except Exception as error:  # noqa: B902 - a terminate() raised: guard, retry
                if not contain_fault(error, self.tree, in_tick=False):
                    raise

    def stop(self, status: Status = Status.INVALID) -> TickRecord:
        """Halt the tree (running leaves terminate: goals cancelled) and publish the record."""
        self._halt(status)
        return self.observe(stopped=True)

    def observe(self, *, stopped: bool = False) -> TickRecord:
        """Publish a record of whatever changed since the last one without ticking."""
        changes = self.tracker.compare_root()
        record = TickRecord(tick=self.tick_count, time=self.clock(), changes=changes,
                            root_status=self.root.status, stopped=stopped,
                            debug=self._take_notes())
        self.publish(record)
        return record

    def _take_notes(self) -> tuple[Any, ...]:
        """Return the debugger's notes since the last record, and forget them."""
        if not self.notes:
            return ()
        notes, self.notes = tuple(self.notes), []
        return notes

    def publish(self, record: TickRecord) -> None:
        """Hand ``record`` to every observer."""
        self.last = record
        for observer in self.observers:
            observer.on_tick(record)


def _writes(before: dict[str, Any], storage: Any) -> frozenset[str]:
    """Return the root keys whose value differs between ``before`` and ``storage``."""
    if len(before) == len(storage):
        same = True
        for key, value in storage.items():
            old = before.get(key, _MISSING)
            if old is not value and (old is _MISSING or not _equal(old, value)):
                same = False
                break
        if same:
            return frozenset()
    written = {key[1:] for key, value in storage.items()
               if not _equal(before.get(key, _MISSING), value)}
    written |= {key[1:] for key in before.keys() - storage.keys()}
    return frozenset(written)


def _equal(old: Any, new: Any) -> bool:
    if old is new:
        return True
    if old is _MISSING:
        return False
    try:
        return bool(old == new)
    except Exception:  # noqa: B902 - e.g. arrays: compare by identity
        return False


__all__ = ['MAX_CONTAINED_PER_TICK', 'TickPaused', 'TreeRunner', 'blackboard_storage']
