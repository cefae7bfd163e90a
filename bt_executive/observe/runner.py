# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tick a built tree once, record what happened, hand the record to the observers.

:class:`TreeRunner` is the one place a tree is ticked (the ROS tree host, ``bt-executive
tick``, tests and benchmarks all use it): ``tick_once()`` ticks the root, contains the
exceptions of single nodes (:mod:`bt_executive.core.faults`), asks the
:class:`~bt_executive.observe.record.StatusTracker` what changed and passes one
:class:`~bt_executive.observe.record.TickRecord` to every observer. ``stop()`` halts the
tree and passes the record of that stop. No ROS in here.
"""

from __future__ import annotations

import time
from typing import Any, Callable, MutableMapping, Optional

from bt_executive.core.faults import contain_fault
from bt_executive.core.table import BuiltTree, log_to_stderr
from bt_executive.observe.record import Observer, StatusTracker, TickRecord
import py_trees
from py_trees.common import Status

#: Nodes that may raise for the first time in one tick before the tick is abandoned.
MAX_CONTAINED_PER_TICK = 16

_MISSING = object()


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
        self._last_start: Optional[float] = None

    def add_observer(self, observer: Observer) -> None:
        """Hand ``observer`` every record from now on (in the order observers were added)."""
        self.observers.append(observer)

    def remove_observer(self, observer: Observer) -> None:
        """Stop handing ``observer`` records."""
        self.observers.remove(observer)

    def tick_once(self, *, now: Optional[float] = None) -> TickRecord:
        """Tick the tree once, record it and hand the record to every observer.

        Args:
            now: the tick's clock time (default: read the clock)
        """
        start = time.perf_counter()
        interval = None if self._last_start is None else start - self._last_start
        self._last_start = start
        storage = self.storage() if self.track_writes else None
        before = dict(storage) if storage is not None else None
        ticked = self._contained_tick()
        duration = time.perf_counter() - start
        self.tick_count += 1
        changes = self.tracker.after_tick(ticked)
        writes = frozenset() if before is None else _writes(before, storage)
        record = TickRecord(tick=self.tick_count, time=self.clock() if now is None else now,
                            duration=duration, interval=interval, ticked=ticked,
                            changes=changes, writes=writes, root_status=self.root.status)
        self.publish(record)
        return record

    def _contained_tick(self) -> list[py_trees.behaviour.Behaviour]:
        """Tick once; a node raising for the first time is guarded and the tick run again."""
        ticked: list[py_trees.behaviour.Behaviour] = []
        for _ in range(MAX_CONTAINED_PER_TICK):
            try:
                ticked.extend(self.root.tick())  # consumed in C: cheaper than tick_once's loop
                return ticked
            except Exception as error:  # noqa: B902 - contained below or re-raised
                if not contain_fault(error, self.tree):
                    raise
        self.log_error(f'{MAX_CONTAINED_PER_TICK} nodes raised in one tick; the tick was '
                       'abandoned')
        return ticked

    def stop(self, status: Status = Status.INVALID) -> TickRecord:
        """Halt the tree (running leaves terminate: goals cancelled) and publish the record."""
        for _ in range(MAX_CONTAINED_PER_TICK):
            try:
                self.root.stop(status)
                break
            except Exception as error:  # noqa: B902 - a terminate() raised: guard, retry
                if not contain_fault(error, self.tree, in_tick=False):
                    raise
        return self.observe(stopped=True)

    def observe(self, *, stopped: bool = False) -> TickRecord:
        """Publish a record of whatever changed since the last one without ticking."""
        changes = self.tracker.compare_root()
        record = TickRecord(tick=self.tick_count, time=self.clock(), changes=changes,
                            root_status=self.root.status, stopped=stopped)
        self.publish(record)
        return record

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


__all__ = ['MAX_CONTAINED_PER_TICK', 'TreeRunner', 'blackboard_storage']
