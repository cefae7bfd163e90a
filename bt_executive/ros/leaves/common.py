# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What every ROS leaf shares: the :class:`LeafHost` seam, the :class:`RosLeaf` base, helpers.

A ROS leaf gets two things in ``setup()``: the rclpy node (``node=...``), on which it
makes its publishers, subscriptions and clients, and the executive it runs in
(``host=...``, a :class:`LeafHost`): whom to ask for a tick, where to note a decision,
the clock (and unique times from it, a goal's id), the back-off settings, whom to tell
about a send, and how to make a callback the executive's. A leaf set up on a plain node
(a test, a program of one's own) gets a :class:`NodeHost` over that node instead.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional, Protocol, Sequence, TYPE_CHECKING

import py_trees
from py_trees.common import Status
from rclpy.task import Future

if TYPE_CHECKING:
    from bt_executive.ros.leaves.backoff import Backoff

Lookup = Callable[[str], Any]

#: Messages WaitForMessage keeps between two ticks; older ones are dropped.
MAX_PENDING_MESSAGES = 100

#: Seconds between checks for an absent action or service server (event-driven ticking
#: has no event for a server appearing, so a waiting leaf asks to be ticked this often).
SERVER_POLL_PERIOD = 0.1

#: Seconds between two looks at the ROS graph while a goal or request is in flight (to
#: notice a server that went away; event-driven ticking is woken for them).
GRAPH_POLL_PERIOD = 0.5

#: Returns the gids of some endpoints of a server, as found in the ROS graph now.
Endpoints = Callable[[], frozenset[bytes]]


#: The back-off settings where the executive sets none (ros/leaves/backoff.py's DEFAULTS).
BACKOFF_DEFAULTS = (0.2, 10.0)


class LeafHost(Protocol):
    """What a ROS leaf may ask of the executive it runs in: ``setup(node=..., host=...)``.

    The executive core (:class:`~bt_executive.ros.core.ExecutiveCore`) is one; a leaf set
    up without one uses a :class:`NodeHost`. Plugin leaves take it from ``kwargs['host']``
    (docs/plugins.md).
    """

    def request_tick(self, source: Any = None) -> None:
        """Ask for a tick soon (event-driven ticking; ``source`` names the asker)."""

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Write a rate-limited debug line about what ``source`` (a leaf) just did."""

    def now_seconds(self) -> float:
        """Return the node clock in seconds (the tick's time during a tick)."""

    def unique_time_ns(self) -> int:
        """Return the node clock now in nanoseconds, later than any time given before.

        Identifies a goal by its stamp (:class:`UniqueTimes`): while simulated time stands
        still between two /clock messages, each call gets 1 ns more than the last.
        """

    def backoff_settings(self) -> tuple[float, float]:
        """Return the executive's ``backoff`` and ``backoff_max`` (seconds)."""

    def steady_seconds(self) -> float:
        """Return the clock of the discovery waits' wall-time floor (:class:`DiscoveryWait`).

        ``time.monotonic()`` in an executive; the scenario harness, whose peers are found
        before its simulated time starts, gives its simulated clock (deterministic runs).
        """

    def note_sent(self) -> None:
        """Note that a leaf just sent a goal, a cancel, a request or a message."""

    def own(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Return ``callback`` made to run as the executive's work (its blackboard)."""


class NodeHost:
    """The :class:`LeafHost` of a leaf set up on a plain rclpy node: no executive around.

    Tick requests, notes and sends go nowhere; the clock is the node's; the back-off
    settings are the node's ``backoff`` / ``backoff_max`` parameters if it declares them.

    Args:
        node: the rclpy node
    """

    def __init__(self, node: Any) -> None:
        self.node = node
        self._times = UniqueTimes(lambda: node.get_clock().now().nanoseconds)

    def request_tick(self, source: Any = None) -> None:
        """Drop the request: nothing ticks on request here."""

    def unique_time_ns(self) -> int:
        """Return the node clock in nanoseconds, unique among this host's times."""
        return self._times.take()

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Drop the note: no debug log here."""

    def now_seconds(self) -> float:
        """Return the node clock in seconds."""
        return self.node.get_clock().now().nanoseconds * 1e-9

    def backoff_settings(self) -> tuple[float, float]:
        """Return the node's backoff parameters where declared, else the defaults."""
        values = []
        for name, default in zip(('backoff', 'backoff_max'), BACKOFF_DEFAULTS):
            value = self.node.get_parameter(name).value \
                if self.node.has_parameter(name) else None
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            values.append(float(value) if ok else default)
        return values[0], values[1]

    def steady_seconds(self) -> float:
        """Return ``time.monotonic()``."""
        return time.monotonic()

    def note_sent(self) -> None:
        """Forget the send: nobody gives way here."""

    def own(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Return ``callback`` as it is."""
        return callback


#: Seconds: the soonest a :class:`DiscoveryWait` asks to look again (its end may fall
#: between the tick's check and its plan).
RECHECK = 0.001

#: Nanoseconds: a clock reading at most this far below the last unique time given is the
#: same instant (bumped past it); further back, the clock went back (a sim restarted): kept.
SAME_INSTANT_NS = 1_000_000_000


class UniqueTimes:
    """Clock readings made unique: each later than the last given, unless the clock went back.

    On simulated time the clock moves only when ``/clock`` arrives, so two goals sent
    between two clock messages (a halted goal and the next one in the same tick, or two
    leaves) would share a stamp; a later reading gets 1 ns more than the last instead. A
    reading more than :data:`SAME_INSTANT_NS` below the last is a clock that went back (a
    restarted sim) and is kept as it is. Thread-safe.

    Args:
        clock: returns the clock's time in nanoseconds
    """

    def __init__(self, clock: Callable[[], int]) -> None:
        self._clock = clock
        self._last: Optional[int] = None
        self._lock = threading.Lock()

    def take(self) -> int:
        """Return the clock's time in nanoseconds, made unique."""
        now = self._clock()
        with self._lock:
            last = self._last
            if last is not None and now <= last < now + SAME_INSTANT_NS:
                now = last + 1
            self._last = now
        return now


def seconds_text(value: float) -> str:
    """Format a configured duration: one decimal unless more are needed (2.0, 0.25)."""
    text = f'{value:.1f}'
    return text if abs(float(text) - value) < 1e-9 else f'{value:g}'


def store_result(key: str, value: Any) -> None:
    """Write a value to a root blackboard key (dots set a field of a stored value)."""
    py_trees.blackboard.Blackboard.set('/' + key, value)


def lookup_with(name: str, value: Any, lookup: Lookup) -> Lookup:
    """Return a lookup that maps ``name`` to ``value`` and everything else to ``lookup``."""
    def read(key: str) -> Any:
        if key == name:
            return value
        return lookup(key)
    return read


def publisher_gids(node: Any, topic: str, *, no_mangle: bool = False) -> frozenset[bytes]:
    """Return the gids of the publishers of ``topic`` in the ROS graph."""
    return frozenset(bytes(info.endpoint_gid) for info in
                     node.get_publishers_info_by_topic(topic, no_mangle=no_mangle))


def subscriber_gids(node: Any, topic: str) -> frozenset[bytes]:
    """Return the gids of the subscriptions of ``topic`` in the ROS graph."""
    return frozenset(bytes(info.endpoint_gid) for info in
                     node.get_subscriptions_info_by_topic(topic))


class DiscoveryWait:
    """A wait on DDS (a server to be discovered, a goal's answer, a lease): on two clocks.

    DDS discovers and answers in wall time whatever the node clock says: under a
    simulation ten times faster than real time, 10 s of the node clock are 1 s of wall
    time, less than discovering a new process may take. So a discovery wait is over only
    once its ``seconds`` have passed on the node clock *and* on the steady clock
    (``time.monotonic``) since :meth:`start`: never shorter than ``seconds`` of wall time
    (docs/ros_leaves.md: ``server_timeout``, ``server_lost_timeout``,
    ``answer_timeout``).

    Args:
        seconds: how long the wait lasts on each clock
        steady: the steady clock (seconds; tests give their own)
    """

    __slots__ = ('seconds', 'started', '_steady', '_clock')

    def __init__(self, seconds: float, steady: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.started: Optional[float] = None  # node clock
        self._steady = 0.0
        self._clock = steady

    def start(self, now: float) -> None:
        """Start waiting at ``now`` (node clock)."""
        self.started = now
        self._steady = self._clock()

    def clear(self) -> None:
        """Stop waiting."""
        self.started = None

    def over(self, now: float) -> bool:
        """Tell whether the wait has lasted ``seconds`` on both clocks at ``now``."""
        return (self.started is not None and now - self.started >= self.seconds
                and self._clock() - self._steady >= self.seconds)

    def wake_at(self, now: float) -> Optional[float]:
        """Return when (node clock) to look again: never later than the wait ends.

        Always after ``now`` (by :data:`RECHECK` at least): the steady clock read here is
        later than the one :meth:`over` read in the same tick, so the wait may have ended
        in between, and a wake-up at ``now`` itself is no wake-up (the executive plans
        only deadlines after the tick's time: with a long heartbeat the leaf then waited
        forever, its server gone).
        """
        if self.started is None:
            return None
        steady_left = max(0.0, self.seconds - (self._clock() - self._steady))
        return max(self.started + self.seconds, now + steady_left, now + RECHECK)


class ServerWatch:
    """Tell when the server of a goal or request in flight has left the ROS graph.

    :meth:`start` notes the server's endpoints (their gids) when the goal is sent. The
    server is *gone* when ``ready()`` is false or none of the endpoints of a group noted
    at the start is in the graph any more: a server restarted under the same name has
    new endpoints and does not know the goal. It is *lost* once gone for ``grace``
    seconds of the node clock and of wall time (:class:`DiscoveryWait`; a participant
    that DDS drops and finds again at once keeps its goal). The graph is read at most
    every :data:`GRAPH_POLL_PERIOD` seconds while the server is there, and on every check
    while it is gone.

    DDS removes a server that exits from the graph at once; one that crashes (SIGKILL,
    power loss) when its participant lease runs out: 20 s with Fast DDS defaults.

    Args:
        grace: seconds the server may be gone before it is lost
        ready: whether the server is available (the client's own test)
        endpoints: (what it is, a function returning its gids now) per group
        steady: the steady clock of the grace's wall-time floor (tests give their own)
    """

    def __init__(self, grace: float, ready: Callable[[], bool],
                 endpoints: Sequence[tuple[str, Endpoints]],
                 steady: Callable[[], float] = time.monotonic) -> None:
        self.grace = grace
        self._ready = ready
        self._endpoints = list(endpoints)
        # per group: what, gids at the start, gids()
        self._known: list[tuple[str, frozenset[bytes], Endpoints]] = []
        self._gone_for = DiscoveryWait(grace, steady)  # started when the server went
        self._next = 0.0
        self.active = False

    def start(self, now: float) -> None:
        """Note the server's endpoints now: a goal or request was just sent to it."""
        self._known = [(what, gids(), gids) for what, gids in self._endpoints]
        self._gone_for.clear()
        self._next = now + GRAPH_POLL_PERIOD
        self.active = True

    def stop(self) -> None:
        """Stop watching: the goal or request has ended."""
        self.active = False
        self._known = []

    def lost(self, now: float) -> Optional[str]:
        """Return what went missing once the server has been gone ``grace`` seconds."""
        going = self._gone_for.started is not None
        if not self.active or (not going and now < self._next):
            return None
        self._next = now + GRAPH_POLL_PERIOD
        gone = self._gone()
        if gone is None:
            self._gone_for.clear()
            return None
        if not going:
            self._gone_for.start(now)
        return gone if self._gone_for.over(now) else None

    def wake_at(self, now: float) -> Optional[float]:
        """Return when to look at the graph next (node clock), while watching."""
        if not self.active:
            return None
        if self._gone_for.started is not None:
            return self._gone_for.wake_at(now)
        return self._next

    def _gone(self) -> Optional[str]:
        """Return what of the server is missing from the graph now, or None."""
        if not self._ready():
            return self._endpoints[0][0] if self._endpoints else 'server'
        for what, known, gids in self._known:
            if known and not known & gids():
                return what
        return None


class RosLeaf(py_trees.behaviour.Behaviour):
    """Base of the ROS leaves: node handling, shutdown, the node clock.

    Subclasses implement :meth:`create` (make ROS entities on the node), :meth:`destroy`
    (release them) and :meth:`step` (the update once set up).

    A leaf with a :attr:`backoff` (the ones that send goals or requests; see
    :mod:`.backoff`) waits after a failure before its next run sends anything; when the
    wait ends its ``initialise()`` is called again, so that must be safe to repeat
    before anything was sent.

    Args:
        name: the behaviour's name
        kind: the node type, used in messages (``Action``, ``Service``, ...)
        lookup: reads a root blackboard key (KeyError when unset)
    """

    def __init__(self, name: str, *, kind: str, lookup: Lookup) -> None:
        super().__init__(name=name)
        self.kind = kind
        self.lookup = lookup
        self.node: Any = None
        #: the executive this leaf runs in (set in setup)
        self.host: LeafHost = _NO_HOST
        self.is_shut_down = False
        #: holds the next run after failures (set by the factory of leaves that send)
        self.backoff: Optional[Backoff] = None

    # -- lifecycle -----------------------------------------------------------------

    def setup(self, **kwargs: Any) -> None:
        """Create the leaf's ROS entities on ``kwargs['node']``; keep ``kwargs['host']``.

        Without a ``host`` (a :class:`LeafHost`) the leaf uses a :class:`NodeHost` over
        the node.

        Raises:
            RuntimeError: if no node is given.
        """
        node = kwargs.get('node')
        if node is None:
            raise RuntimeError(f"{self.kind} leaf '{self.name}' needs the ROS node: "
                               'call setup(node=<rclpy node>)')
        if self.node is not None:
            self.destroy()
        self.node = node
        host = kwargs.get('host')
        self.host = host if host is not None else NodeHost(node)
        self.is_shut_down = False
        self.create(node)

    def shutdown(self) -> None:
        """Destroy every ROS entity the leaf created (safe to call more than once)."""
        if self.node is not None:
            try:
                self.release()
            finally:
                self.destroy()
                self.node = None
        self.is_shut_down = True

    def update(self) -> Status:
        """Check the leaf can run, then do one step."""
        if self.is_shut_down:
            self.feedback_message = 'leaf shut down'
            return Status.FAILURE
        if self.node is None:
            self.feedback_message = (f'{self.kind} leaf not set up: call setup(node=...) '
                                     'before ticking')
            return Status.FAILURE
        if self.backoff is not None:
            return self.backoff.run()
        return self.step()

    def outstanding(self) -> list[Future]:
        """Return the futures the executive should await before destroying the tree."""
        return []

    def wake(self, *_: Any) -> None:
        """Ask the executive to tick soon: something this leaf waits for happened.

        Used by event-driven ticking (the host's ``request_tick``); a no-op without an
        executive. Accepts and ignores callback arguments.
        """
        self.host.request_tick(self)

    def note(self, text: str) -> None:
        """Write a rate-limited debug line about a decision (a goal sent, a cancel).

        Goes to the executive's debug log (the host's ``note_decision``).
        """
        self.host.note_decision(self, text)

    def note_sent(self) -> None:
        """Tell the host that this leaf just sent something (every send is followed by it)."""
        self.host.note_sent()

    def own(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Return ``callback`` made the executive's (give rclpy callbacks through this)."""
        return self.host.own(callback)

    def wake_at(self) -> Optional[float]:
        """Return the node-clock time at which this leaf must be ticked again, if any."""
        return None

    # -- for subclasses -------------------------------------------------------------

    def create(self, node: Any) -> None:
        """Create ROS entities on ``node``."""

    def destroy(self) -> None:
        """Destroy the ROS entities made by :meth:`create`."""

    def release(self) -> None:
        """Give up work in flight before the entities are destroyed (best effort)."""

    def step(self) -> Status:
        """Do the work of one tick (the node is set)."""
        raise NotImplementedError

    def now(self) -> float:
        """Return the node clock in seconds (ROS time when use_sim_time is set).

        On the executive this is its ``now_seconds()``: the tick's time during a tick.
        """
        return self.host.now_seconds()

    def steady(self) -> float:
        """Return the clock of the discovery waits' wall-time floor (the host's)."""
        return self.host.steady_seconds()

    def fail(self, reason: str) -> Status:
        """Return FAILURE with ``reason`` as feedback."""
        self.feedback_message = reason
        return Status.FAILURE

    def running(self, text: str) -> Status:
        """Return RUNNING with a progress text."""
        self.feedback_message = text
        return Status.RUNNING


class _Unset:
    """The host of a leaf not set up yet: asks go nowhere, the clock is wall time."""

    def request_tick(self, source: Any = None) -> None:
        """Drop the request."""

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Drop the note."""

    def now_seconds(self) -> float:
        """Return wall-clock seconds."""
        return time.time()

    def unique_time_ns(self) -> int:
        """Return wall-clock nanoseconds."""
        return time.time_ns()

    def backoff_settings(self) -> tuple[float, float]:
        """Return the defaults."""
        return BACKOFF_DEFAULTS

    def steady_seconds(self) -> float:
        """Return ``time.monotonic()``."""
        return time.monotonic()

    def note_sent(self) -> None:
        """Forget the send."""

    def own(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Return ``callback`` as it is."""
        return callback


_NO_HOST: LeafHost = _Unset()
