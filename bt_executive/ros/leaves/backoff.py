# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Back-off of ROS leaves that keep failing: a behaviour executive never hammers a robot.

The leaves that send something to the robot (``Action`` goals, ``Service`` requests,
``TopicAction`` goals; :func:`backing_off` wraps their factories) each get a
:class:`Backoff`. After the leaf fails, its next run waits before it sends anything:
``backoff`` seconds after the first failure, twice as long after each further one, never
longer than ``backoff_max``. While it waits the leaf is RUNNING and says why::

    backing off 0.8 s after 3 failures: goal rejected by /dock_robot

and its :meth:`Backoff.wake_at` (collected by the tree host) has an event-driven tree
ticked when the wait is over. Then the run starts for real (the leaf's ``initialise()``
runs again, so its server wait and timeouts count from there) and sends. A success ends
the streak; a halted run (INVALID) neither counts nor ends it; a leaf that succeeds is
never delayed. The waits run on the node clock (``use_sim_time`` applies); if that
clock jumps back (a simulator restarted), the wait counts from the jump.

Why RUNNING while waiting, not FAILURE: a ``Retry`` keeps its meaning (each attempt
reaches the robot, instead of attempts burnt in one tick each), the tree settles while it
waits (no ticking at ``max_tick_rate``, no fallback branch or counter run hundreds of
times a second), and whatever guards the branch (a reactive ``Selector``'s conditions,
an emergency stop) still preempts it at once. A tree that wants another branch to take
over while a leaf backs off puts a ``Cooldown`` around it, which fails while cooling down.

Settings, the first one set wins: the leaf's own ``backoff`` / ``backoff_max`` in the
tree file, the executive's ROS parameters of the same names (read at each failure, so a
``ros2 param set`` applies from the next failure on), :data:`DEFAULTS`. 0 turns the
back-off off.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, Optional

from bt_executive.observe.record import TickRecord
from bt_executive.ros.leaves.common import BACKOFF_DEFAULTS, RosLeaf, seconds_text
import py_trees
from py_trees.common import Status

#: The built-in settings, used where neither the leaf nor the executive sets one.
DEFAULTS = dict(zip(('backoff', 'backoff_max'), BACKOFF_DEFAULTS))

#: The executive's ROS parameters for the back-off, in the shape of its ``PARAMETERS``:
#: name -> (default, description, (lowest, highest), read-only).
PARAMETERS: dict[str, tuple[Any, str, Optional[tuple[float, float]], bool]] = {
    'backoff': (DEFAULTS['backoff'], 'seconds a ROS leaf that failed waits before its next '
                'goal or request, doubled after each further failure (0 = off); a leaf '
                'with its own backoff parameter uses that', (0.0, 3600.0), False),
    'backoff_max': (DEFAULTS['backoff_max'], 'the longest back-off wait of a ROS leaf, in '
                    'seconds', (0.0, 86400.0), False),
}

#: Consecutive failures from which each new back-off is logged as a warning.
LOG_FROM = 2


def delay_after(failures: int, initial: float, limit: float) -> float:
    """Return the wait after ``failures`` consecutive failures (0 for none or when off)."""
    if failures <= 0 or initial <= 0.0 or limit <= 0.0:
        return 0.0
    # 2 ** 60 already exceeds any cap: no overflow however long the streak
    return min(limit, initial * 2.0 ** min(failures - 1, 60))


class Backoff:
    """The back-off of one leaf: counts its consecutive failures and holds its next run.

    Args:
        leaf: the leaf (its ``step()`` does the work; set up on the executive's node)
        initial: the leaf's ``backoff`` parameter, None when the file does not set it
        limit: the leaf's ``backoff_max`` parameter, None when the file does not set it
    """

    def __init__(self, leaf: RosLeaf, *, initial: Optional[float] = None,
                 limit: Optional[float] = None) -> None:
        self.leaf = leaf
        self.initial = initial
        self.limit = limit
        #: consecutive failures (0 after a success)
        self.failures = 0
        #: the reason of the last failure
        self.reason = ''
        #: node-clock seconds of the last failure
        self.failed_at = 0.0
        #: seconds the run after the last failure waits
        self.delay = 0.0
        self._holding = False

    def settings(self) -> tuple[float, float]:
        """Return (backoff, backoff_max): the leaf's, else the executive's, else defaults.

        The executive's come from its host (``LeafHost.backoff_settings``: its ROS
        parameters, read at each failure).
        """
        if self.initial is not None and self.limit is not None:
            return float(self.initial), float(self.limit)
        host_initial, host_limit = self.leaf.host.backoff_settings()
        return (float(self.initial) if self.initial is not None else host_initial,
                float(self.limit) if self.limit is not None else host_limit)

    @property
    def holding(self) -> bool:
        """Tell whether the leaf is waiting out a back-off right now."""
        return self._holding and self.leaf.status is Status.RUNNING

    def describe(self) -> str:
        """Return what a waiting leaf says: the wait, the failures and the last reason."""
        plural = '' if self.failures == 1 else 's'
        return (f'backing off {seconds_text(self.delay)} s after {self.failures} '
                f'failure{plural}: {self.reason}')

    def run(self) -> Status:
        """Do the leaf's tick: wait out the back-off at the start of a run, else step."""
        leaf = self.leaf
        now = leaf.now()
        if (self._holding or leaf.status is not Status.RUNNING) and self._waiting(now):
            self._holding = True
            leaf.feedback_message = self.describe()
            return Status.RUNNING
        if self._holding:
            self._holding = False
            leaf.initialise()  # the run starts now: its waits and timeouts count from here
        try:
            status = leaf.step()
        except Exception as error:  # noqa: B902 - counted, then the fault guard reports it
            self._failed(now, f'{type(error).__name__}: {error}')
            raise
        if status is Status.FAILURE:
            self._failed(now, leaf.feedback_message)
        elif status is Status.SUCCESS:
            self.reset()
        return status

    def wake_at(self) -> Optional[float]:
        """Return when the wait ends while the leaf waits (node-clock seconds), else None."""
        return self.failed_at + self.delay if self.holding else None

    def reset(self) -> None:
        """Forget the failures: the next run starts at once."""
        self.failures = 0
        self.reason = ''
        self.delay = 0.0
        self._holding = False

    def _waiting(self, now: float) -> bool:
        if self.delay <= 0.0:
            return False
        if now < self.failed_at:  # the clock went back (e.g. a restarted simulator)
            self.failed_at = now
        return now < self.failed_at + self.delay

    def _failed(self, now: float, reason: str) -> None:
        self.failures += 1
        self.reason = reason
        self.failed_at = now
        self.delay = delay_after(self.failures, *self.settings())


def backing_off(factory: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a leaf factory: the leaf it builds backs off (its ``backoff`` parameters)."""
    @functools.wraps(factory)
    def build(ctx: Any, name: str, params: Any, children: list) -> Any:
        leaf = factory(ctx, name, params, children)
        leaf.backoff = Backoff(leaf, initial=params.get('backoff'),
                               limit=params.get('backoff_max'))
        return leaf
    return build


# ---- what the tree host asks ------------------------------------------------------------

def backoffs(root: py_trees.behaviour.Behaviour) -> list[Backoff]:
    """Return the back-offs of the leaves of a tree."""
    return [behaviour.backoff for behaviour in root.iterate()
            if isinstance(getattr(behaviour, 'backoff', None), Backoff)]


def reset_backoffs(root: py_trees.behaviour.Behaviour) -> None:
    """Forget every leaf's failures (the tree is reset: the next runs start at once)."""
    for backoff in backoffs(root):
        backoff.reset()


def waiting(found: Iterable[Backoff], ident: Callable[[Any], str]) -> dict[str, str]:
    """Return ``node id -> what it says`` for the back-offs of ``found`` holding a leaf now.

    ``found``: the back-offs of a tree's leaves (:func:`backoffs`, found once per tree).
    """
    return {ident(backoff.leaf): backoff.describe() for backoff in found if backoff.holding}


def leaf_failure(record: TickRecord,
                 warn: Optional[Callable[[str], Any]] = None) -> Optional[str]:
    """Return ``node id: reason`` of the last leaf with a back-off that failed in a tick.

    These are the leaves that talk to the robot, so a branch that keeps failing shows in
    the executive's ``last_failure`` even when the root never fails (a fallback catches
    it). From the :data:`LOG_FROM`-th failure in a row, each failure's back-off is also
    passed to ``warn`` (``node id: backing off 0.4 s after 2 failures: reason``).
    """
    found = None
    for change in record.changes:
        backoff = getattr(change.behaviour, 'backoff', None)
        if change.new is not Status.FAILURE or not isinstance(backoff, Backoff):
            continue
        found = f'{change.id}: {change.reason}' if change.reason else change.id
        if warn is not None and backoff.failures >= LOG_FROM and backoff.delay > 0.0:
            warn(f'{change.id}: {backoff.describe()}')
    return found


__all__ = ['Backoff', 'DEFAULTS', 'PARAMETERS', 'backing_off', 'backoffs', 'delay_after',
           'leaf_failure', 'reset_backoffs', 'waiting']
