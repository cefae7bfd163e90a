# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Probes and tick helpers shared by the tick-by-tick behaviour tests."""

from __future__ import annotations

from typing import Callable

from py_trees.behaviour import Behaviour
from py_trees.behaviours import Failure, Running, StatusQueue, Success
from py_trees.common import Status

S = Status.SUCCESS
F = Status.FAILURE
R = Status.RUNNING
INVALID = Status.INVALID


##############################################################################
# Helpers
##############################################################################


class Probe(Behaviour):
    """A leaf returning ``result`` (settable between ticks) that records its lifecycle."""

    def __init__(self, name: str = 'probe', result: Status = R):
        """Create the probe.

        Args:
            name: the behaviour name.
            result: what ``update()`` returns until changed.
        """
        super().__init__(name)
        self.result = result
        self.initialised = 0
        self.updates = 0
        self.terminated: list[Status] = []

    def initialise(self) -> None:
        """Count the start of a run."""
        self.initialised += 1

    def update(self) -> Status:
        """Return the configured result."""
        self.updates += 1
        return self.result

    def terminate(self, new_status: Status) -> None:
        """Record the status the probe is stopped with."""
        self.terminated.append(new_status)


class FakeClock:
    """A settable time source."""

    def __init__(self, now: float = 0.0):
        """Start at ``now`` seconds.

        Args:
            now: the initial time.
        """
        self.now = now

    def __call__(self) -> float:
        """Return the current fake time."""
        return self.now


def queue(name: str, *statuses: Status, eventually: Status | None = None) -> StatusQueue:
    """Build a StatusQueue that returns ``statuses`` and then ``eventually``."""
    return StatusQueue(name=name, queue=list(statuses), eventually=eventually)


def tick(node: Behaviour, times: int = 1) -> Status:
    """Tick ``node`` ``times`` times and return its status."""
    for _ in range(times):
        node.tick_once()
    return node.status


def trace(node: Behaviour, ticks: int) -> list[Status]:
    """Tick ``node`` ``ticks`` times and return the status after each tick."""
    return [tick(node) for _ in range(ticks)]


def assert_aborted(probe: Probe) -> None:
    """Assert that a probe was stopped with INVALID (as an abandoned RUNNING child is)."""
    assert probe.status == INVALID
    assert probe.terminated and probe.terminated[-1] == INVALID


LEAF: dict[Status, Callable[[str], Behaviour]] = {
    S: lambda name: Success(name=name),
    F: lambda name: Failure(name=name),
    R: lambda name: Running(name=name),
}


def leaves(*statuses: Status) -> list[Behaviour]:
    """Build constant leaves named a, b, c, ... returning ``statuses``."""
    return [LEAF[status]('abcdefgh'[i]) for i, status in enumerate(statuses)]
