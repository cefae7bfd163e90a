# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive core: tree host, ticking, observers, services and status, handed a node.

:class:`ExecutiveCore` is everything the executive does, built on a node it is given
(as py_trees_ros' ``setup(node=...)``). The node classes are thin adapters that hold
one: :class:`~bt_executive.ros.executive.Executive` (a plain ``Node``),
:class:`~bt_executive.ros.lifecycle.LifecycleExecutive` (a lifecycle node: its
transitions call :meth:`ExecutiveCore.load`, :meth:`~ExecutiveCore.install`,
:meth:`~ExecutiveCore.start_ticking`, :meth:`~ExecutiveCore.hold` and
:meth:`~ExecutiveCore.release`) and :class:`~bt_executive.ros.fleet.FleetExecutive`
(N cores in one process, each with its own
:class:`~bt_executive.ros.blackboards.BlackboardSpace`).

The core is also the :class:`~bt_executive.ros.leaves.common.LeafHost` the ROS leaves
get in ``setup(node=..., host=...)``.

Data flow: a subscription's callback stores into the blackboard feed and asks for a
tick; the ticker calls :meth:`ExecutiveCore.tick_once`; the tree host ticks through the
tree's runner, whose observers (snapshot model, delta tracker, Groot2, py_trees_ros
streams) get the tick record; then :meth:`ExecutiveCore.publish_status` hands what
changed to the outputs (ROS topics, recording, Foxglove: ros/snapshot_topics.py).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import time
from typing import Any, Callable, Optional

from bt_executive.core.errors import SourceLocation, TreeError
from bt_executive.core.registry import Registry
from bt_executive.nodes.plugins import installed_registry
from bt_executive.observe.checkpoint import Checkpointer, read_state, tree_hash
from bt_executive.observe.debugger import DebugController, DebugNote, DebugRefused
from bt_executive.observe.record import TickRecord
from bt_executive.observe.snapshot import executive_state, new_session, plain_json, \
    SnapshotBuilder
from bt_executive.ros import entities, interfaces, leaves
from bt_executive.ros.blackboards import BlackboardSpace
from bt_executive.ros.debug_services import DEBUG_OFF, DebugServices, Groot2Requests
from bt_executive.ros.debuglog import DebugLog
from bt_executive.ros.host import LoadedTree, TreeHost
from bt_executive.ros.leaves.backoff import DEFAULTS as BACKOFF_DEFAULTS
from bt_executive.ros.leaves.common import UniqueTimes
from bt_executive.ros.parameters import GOAL_POLICIES, parameter_values, TICK_MODES, \
    TICK_PARAMETERS, TREE_PARAMETERS
from bt_executive.ros.simclock import NodeSeconds, SimClockCheck
from bt_executive.ros.snapshot_topics import open_outputs, SnapshotTopics, start_groot2
from bt_executive.ros.spin import CallbackFaults, GiveWayAfterSend
from bt_executive.ros.ticking import EventTicker, IdleTicker, PeriodicTicker, process_age, \
    Ticker, TickTiming
from bt_executive.ros.typed_topics import TypedInterfaces
import py_trees
from py_trees.common import Status
from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter
from std_srvs.srv import Trigger

#: Seconds from process start to the end of this module's imports (None off Linux).
IMPORTED_AT = process_age()

#: The runtime controls a variant may refuse (``check``): the ~/pause ... services.
CONTROLS = ('pause', 'resume', 'reset', 'reload')


def ros_registry(*, logger: Any = None) -> Registry:
    """Return the node catalogue with the real ROS leaves, plus the installed plugins' types.

    Plugin problems go to ``logger`` (default: stderr); see bt_executive/nodes/plugins.py.
    """
    return installed_registry(offline=False, logger=logger).with_factories(leaves.FACTORIES)


def start_streams(node: Any, tree: Callable[[], Any]) -> Any:
    """Start py_trees_ros' snapshot streams (ros/streams.py); None when they are off.

    Without py_trees_ros_interfaces (the usual pip-only install) the streams module is
    not even imported (issue 18: memory per executive).
    """
    try:
        installed = importlib.util.find_spec('py_trees_ros_interfaces') is not None
    except (ImportError, ValueError):
        installed = True  # broken: streams.start reports why
    if not installed:
        node.get_logger().info('py_trees_ros snapshot streams: off (py_trees_ros_interfaces '
                               'is not installed)')
        return None
    from bt_executive.ros import streams
    return streams.start(node, tree)


def json_safe(value: Any) -> Any:
    """Render a blackboard value as JSON data, ROS messages as dicts."""
    return plain_json(value, convert=message_dict)


def message_dict(value: Any) -> Optional[dict[str, Any]]:
    """Return a ROS message as a dict (None for anything else)."""
    if hasattr(value, 'get_fields_and_field_types'):
        return interfaces.to_dict(value)
    return None


class ExecutiveCore:
    """Load, tick, observe and control a behaviour tree on a node it is handed.

    The node must have the executive's parameters declared
    (:func:`~bt_executive.ros.parameters.declare_parameters`); the core makes the
    ``~/pause``, ``~/resume``, ``~/reset``, ``~/reload`` services, the JSON topics and the
    ticker on it. The adapter registers :meth:`on_set_parameters` and calls
    :meth:`load_first_tree` (or lets its lifecycle load later).

    Args:
        node: the rclpy node (a ``Node`` or a lifecycle node)
        registry: the node types (default: :func:`ros_registry`)
        blackboard: this executive's own blackboard, entered around everything the core
            runs (None: py_trees' one blackboard of the process)
        tick_phase: where in the period periodic ticks fall (fleet.py), None: from now
        give_way_after_send: pause briefly after a tick that sent something
            (:class:`~bt_executive.ros.spin.GiveWayAfterSend`; off in a shared process)
        ticking: make a real ticker at once (False: idle until :meth:`start_ticking`)
        check: called with a control's name (:data:`CONTROLS`) before it runs; raises
            :class:`~bt_executive.core.errors.TreeError` to refuse it
        status_extra: returns fields added to ~/status
        services: make the services and the ExecuteTree action (False: a program in the
            same process drives the core through its methods, as the scenario harness
            does; nothing outside the process can reach it, and the node's executor has
            fewer entities to look at on each wait)
    """

    def __init__(self, node: Any, *, registry: Optional[Registry] = None,
                 blackboard: Optional[BlackboardSpace] = None,
                 tick_phase: Optional[float] = None, give_way_after_send: bool = True,
                 ticking: bool = True, check: Optional[Callable[[str], None]] = None,
                 status_extra: Optional[Callable[[], dict[str, Any]]] = None,
                 services: bool = True) -> None:
        self.node = node
        self.services = services
        self.blackboard = blackboard
        self._board: Any = blackboard if blackboard is not None else contextlib.nullcontext()
        self.tick_phase = tick_phase
        self.give_way_after_send = give_way_after_send
        self.ticking = ticking
        self._check = check
        self._status_extra = status_extra
        logger = node.get_logger()
        self.logger = logger
        self.callback_faults = CallbackFaults(logger)
        self.ticker: Ticker = IdleTicker()
        #: the ticker made by configure_ticking, with the mode and values it was made for
        self._made_ticker: tuple[Any, str, dict[str, Any]] = (None, '', {})
        self.groot2: Any = None
        self.groot2_requests: Optional[Groot2Requests] = None
        self.outputs: list[Any] = []
        self.host: Optional[TreeHost] = None
        self.snapshot_topics: Optional[SnapshotTopics] = None
        #: the debugger of the running tree revision (None: the 'debug' parameter is off)
        self.debugger: Optional[DebugController] = None
        #: the clock of the discovery waits' wall-time floor (:meth:`steady_seconds`)
        self.steady_clock: Callable[[], float] = time.monotonic
        self._times = UniqueTimes(lambda: node.get_clock().now().nanoseconds)
        self._sent = False
        #: writes the persistent keys to state_file (None: no state file or no such keys)
        self.checkpointer: Optional[Checkpointer] = None
        self._may_restore = True  # the first tree of the process may resume a state file
        with self._board:
            self._make(registry)

    def _make(self, registry: Optional[Registry]) -> None:
        node = self.node
        self.registry = registry or ros_registry(logger=self.logger)
        self.debug_log = DebugLog(self.logger)  # --log-level bt_executive:=debug
        self._clock_seconds = NodeSeconds(node)  # before the host: the feed stamps with it
        self.host = TreeHost(node, self.registry, clock=self.now_seconds, logger=self.logger,
                             on_install=self._on_install, leaf_host=self, own=self.own)
        self.sim_clock = SimClockCheck(node, self.debug_log)  # warns when /clock is missing
        self.tick_duration = 0.0
        self.timing = TickTiming()
        self._tick_time: Optional[float] = None
        self._first_tick_at: Optional[float] = None
        self._timed: list[Callable[[], Optional[float]]] = []
        self._last_status_publish = -1.0
        self.outputs = open_outputs(node, parameter_values(node))  # recording, Foxglove
        self.snapshot_topics = SnapshotTopics(node, outputs=self.outputs)
        # ~/execute_tree, typed topics: when installed
        self.typed = TypedInterfaces(self, action=self.services)
        self.snapshots: Optional[SnapshotBuilder] = None
        self._executive_state: tuple[Any, ...] = ()  # what set_executive was last given
        self._session = new_session()
        self._revision = 0
        self._py_trees_ros_stream: Any = None
        self.debug_enabled = bool(self.param('debug'))
        #: ~/debug/...: they refuse unless debug_enabled (None: no services)
        self.debug_services: Optional[DebugServices] = None
        if self.services:
            self._py_trees_ros_stream = start_streams(node, lambda: self.host.tree)  # or None
            for name in CONTROLS:
                node.create_service(Trigger, f'~/{name}',
                                    self.own(self._service(name), faults=False))
            self.debug_services = DebugServices(self)
        values = parameter_values(node)
        #: Groot2's hook requests, carried to the executor's thread (None: no Groot2)
        self.groot2_requests = Groot2Requests(self) if values.get('groot2_port') else None
        self.groot2_hooks: Any = None  # made by the first hook request (no import before)
        self.groot2 = start_groot2(values, logger=self.logger,  # or None
                                   render_value=json_safe, storage=self.blackboard_storage,
                                   hooks=self.groot2_requests)
        if self.groot2 is None and self.groot2_requests is not None:
            self.groot2_requests.close()
            self.groot2_requests = None
        self.configure_ticking(self.param('tick_mode'))

    def load_first_tree(self) -> None:
        """Load the first tree (``tree_file``), publish the status; raise TreeError if invalid."""
        tree_file = self.param('tree_file')
        with self._board:
            if self.param('idle'):
                self.logger.info(self.typed.idle_note(tree_file))
            elif tree_file:
                try:
                    self.install(self.load(tree_file, self.param('tree_name')))
                except TreeError as error:
                    self.logger.error(f'cannot load {tree_file}:\n{error}')
                    raise
            else:
                self.logger.warning('no tree_file parameter set; waiting for one')
            self.publish_status(force=True)

    # ---- the one blackboard of this executive ------------------------------------------

    def own(self, callback: Callable[..., Any], *, faults: bool = True
            ) -> Callable[..., Any]:
        """Return ``callback`` made this executive's: run on its blackboard, faults counted.

        With a blackboard of its own (several executives share the process) the callback
        runs with that blackboard in place, and (``faults``) what it raises is logged and
        counted in this executive's ``callback_errors`` (the executor could not say whose
        it was). Otherwise the callback is returned as it is (the spin loop reports
        faults). Leaves pass the callbacks they give rclpy through this (LeafHost).
        """
        space = self.blackboard
        if space is None:
            return callback
        report = self.callback_faults.report if faults else None

        @functools.wraps(callback)  # rclpy reads a timer callback's signature
        def owned(*args: Any, **kwargs: Any) -> Any:
            previous = space.enter()
            try:
                return callback(*args, **kwargs)
            except Exception as error:  # noqa: B902 - logged and counted; keep spinning
                if report is None:
                    raise
                report(error)
                return None
            finally:
                space.leave(previous)
        return owned

    def blackboard_storage(self) -> dict[str, Any]:
        """Return this executive's blackboard storage (``/key -> value``)."""
        if self.blackboard is not None:
            return self.blackboard.storage
        return py_trees.blackboard.Blackboard.storage

    # ---- parameters -----------------------------------------------------------------

    def param(self, name: str) -> Any:
        """Return the value of the executive's ROS parameter ``name``."""
        return self.node.get_parameter(name).value

    def backoff_settings(self) -> tuple[float, float]:
        """Return the executive's ``backoff`` and ``backoff_max`` parameters (LeafHost)."""
        values = []
        for name in ('backoff', 'backoff_max'):
            value = self.param(name)
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            values.append(float(value) if ok else BACKOFF_DEFAULTS[name])
        return values[0], values[1]

    def steady_seconds(self) -> float:
        """Return the clock of the leaves' discovery waits' wall-time floor.

        ``time.monotonic()`` unless :attr:`steady_clock` was given another (the scenario
        harness gives its simulated clock: its peers are found before time starts).
        """
        return self.steady_clock()

    def now_seconds(self) -> float:
        """Return the node clock in seconds (ROS time when use_sim_time is set).

        During a tick every caller gets the time the tick started: one clock read per
        tick, and every node of the tree sees the same time.
        """
        now = self._tick_time
        if now is None:
            now = self._clock_seconds()  # time.time() unless use_sim_time (simclock.py)
        return now

    def on_set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        """Apply new parameter values: re-make the ticker, swap the tree (or refuse)."""
        with self._board:
            return self._set_parameters(parameters)

    def _set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters}
        mode = changes.get('tick_mode', self.param('tick_mode'))
        if mode not in TICK_MODES:
            return SetParametersResult(successful=False, reason='tick_mode must be one of '
                                       f"{', '.join(TICK_MODES)}, got '{mode}'")
        if changes.get('execute_tree_policy', GOAL_POLICIES[0]) not in GOAL_POLICIES:
            return SetParametersResult(successful=False, reason='execute_tree_policy must be '
                                       f"one of {', '.join(GOAL_POLICIES)}")
        if any(name in changes for name in TICK_PARAMETERS):
            self.configure_ticking(mode, changes)
        if not any(name in changes for name in TREE_PARAMETERS) or self.param('idle'):
            return SetParametersResult(successful=True)  # idle: the file goals come from
        tree_file = changes.get('tree_file', self.param('tree_file'))
        tree_name = changes.get('tree_name', self.param('tree_name'))
        if not tree_file:
            return SetParametersResult(successful=False, reason='tree_file is empty')
        try:
            candidate = self.load(tree_file, tree_name)
        except TreeError as error:
            self.logger.error(f'rejected tree {tree_file}:\n{error}')
            return SetParametersResult(successful=False, reason=str(error))
        self.install(candidate)
        return SetParametersResult(successful=True)

    # ---- when to tick ----------------------------------------------------------------

    def configure_ticking(self, mode: str, changes: Optional[dict[str, Any]] = None) -> None:
        """(Re)create the ticker for ``mode``; ``changes`` are parameters being set.

        While not ticking (:meth:`hold`) only ``mode`` is checked. The values in use
        again only restart the timing statistics: re-creating a timer would disturb the
        ticks of every executive of a fleet process.
        """
        values = {name: self.param(name) for name in TICK_PARAMETERS}
        values.update(changes or {})
        values['tick_mode'] = mode
        if mode not in TICK_MODES:
            error = TreeError.single(SourceLocation('<parameters>'), 'tick_mode must be one '
                                     f"of {', '.join(TICK_MODES)}, got '{mode}'")
            self.logger.error(str(error))
            raise error
        if not self.ticking:
            return
        if self._made_ticker == (self.ticker, mode, values):
            self.timing.restart(self.timing.period)
            return
        self.ticker.destroy()
        tick = self.own(self.tick_once)
        if mode == 'event':
            self.ticker = EventTicker(self.node, tick, max_rate=values['max_tick_rate'],
                                      heartbeat=values['heartbeat_period'])
            self.timing.restart(None)
            self.ticker.request('tick_mode event')
        else:
            self.ticker = PeriodicTicker(self.node, tick, rate=values['tick_rate'],
                                         phase=self.tick_phase)
            self.timing.restart(self.ticker.interval)
        self._made_ticker = (self.ticker, mode, values)

    def use_ticker(self, ticker: Ticker) -> None:
        """Tick by ``ticker`` from now on (the scenario harness's); the old one is destroyed."""
        self.ticker.destroy()
        self.ticker, self._made_ticker = ticker, (None, '', {})

    def start_ticking(self) -> None:
        """Tick from now on (the lifecycle's activate): make the ticker, resume the tree."""
        assert self.host is not None
        with self._board:
            self.host.held = False
            self.host.resume()
            self.ticking = True
            self.configure_ticking(self.param('tick_mode'))
            self.request_tick('activate')

    def hold(self, why: str) -> None:
        """Stop ticking and halt the tree (its goals are cancelled); idempotent."""
        assert self.host is not None
        with self._board:
            self.ticking = False
            if type(self.ticker) is not IdleTicker:  # a PeriodicTicker is one too
                self.ticker.destroy()
                self.ticker, self._made_ticker = IdleTicker(), (None, '', {})
            self.host.held = True
            if self.host.running:
                self.host.halt(why)

    def release(self) -> None:
        """Halt and release every tree and forget its state (the lifecycle's cleanup)."""
        assert self.host is not None
        with self._board:
            self.hold('released')
            host = self.host
            host.release_all()
            host.last_status = Status.INVALID
            host.last_failure = ''
            host.terminated = None
            host.paused = False
            self.snapshots = None
            self._timed = []
            py_trees.blackboard.Blackboard.storage.clear()

    def tick_interval(self) -> Optional[float]:
        """Return the seconds between ticks: the period, or ``1 / max_tick_rate`` (event)."""
        return self.ticker.interval

    def request_tick(self, source: Any = None) -> None:
        """Ask for a tick soon (``source``, the leaf asking, is named in the debug log).

        Event mode ticks at the next moment ``max_tick_rate`` allows; periodic mode
        ignores the request (the next tick comes anyway).
        """
        self.ticker.request(source)

    def request_tick_now(self, source: Any = None) -> None:
        """Tick at once if ``max_tick_rate`` allows (the feed; ``EventTicker.request_now``)."""
        self.ticker.request_now(source)

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Write a rate-limited debug line about what ``source`` (a leaf) just did."""
        self.debug_log(topic, lambda: f'{self.describe(source)}: {text}')

    def note_sent(self) -> None:
        """Note that a leaf just sent a goal, a cancel, a request or a message (LeafHost)."""
        self._sent = True

    def unique_time_ns(self) -> int:
        """Return the node clock in nanoseconds, later than any given before (LeafHost)."""
        return self._times.take()

    def take_sent(self) -> bool:
        """Tell whether a leaf sent something since the last call, and forget it."""
        sent, self._sent = self._sent, False
        return sent

    def describe(self, source: Any) -> str:
        """Name a leaf or a tick requester for the debug log: a node path, a topic, text."""
        assert self.host is not None
        if isinstance(source, py_trees.behaviour.Behaviour):
            for tree in [self.host.tree, *self.host.retiring]:  # stopped trees too
                if tree is not None and tree.built.nodes.get(source.id) is not None:
                    return tree.built.nodes.path(source)
            return source.name
        topic = getattr(source, 'topic', None)  # a subscription of the blackboard feed
        return f'a new message on {topic}' if topic else str(source)

    def _next_deadline(self) -> Optional[float]:
        """Return the earliest future ``wake_at`` of the tree (node-clock seconds)."""
        now = self.now_seconds()
        return min((when for when in (wake_at() for wake_at in self._timed)
                    if when is not None and when > now), default=None)

    # ---- loading and swapping --------------------------------------------------------

    def load(self, tree_file: str, tree_name: str = '', *,
             arguments: Optional[dict[str, Any]] = None) -> LoadedTree:
        """Load, validate, build and set up a tree (``arguments``: for its ``params``).

        Raises:
            TreeError: with every problem found; nothing is left behind on the node.
        """
        assert self.host is not None
        with self._board:
            return self.host.load(tree_file, tree_name, arguments=arguments,
                                  setup_timeout=self.param('setup_timeout'))

    def install(self, new: LoadedTree) -> None:
        """Stop the running tree (cancelling its goals) and start ``new``."""
        assert self.host is not None
        with self._board:
            self.host.install(new, shutdown_timeout=self.param('shutdown_timeout'))
            self.publish_status(force=True)
            self.request_tick(f"tree '{new.name}' installed")

    def _on_install(self, new: LoadedTree) -> None:
        """Attach the observers to a new tree's runner (before its first tick)."""
        self._revision += 1
        if self.give_way_after_send:  # first: receivers of goals, cancels
            new.runner.add_observer(GiveWayAfterSend(self.tick_interval, sent=self.take_sent))
        self.snapshots = SnapshotBuilder(
            new.runner.tracker, tree_name=new.name, source_file=new.file,
            revision=self._revision, blackboard_keys=self.param('snapshot_keys'),
            lookup=new.feed.lookup, render_value=json_safe, document=new.document,
            session=self._session, clock=self.now_seconds)
        new.runner.add_observer(self.snapshots)
        assert self.snapshot_topics is not None
        self.snapshot_topics.install(new.runner)
        if self.groot2 is not None:  # a new tree UUID: connected viewers follow the swap
            self.groot2.on_install(new.built, tree_name=new.name, document=new.document,
                                   registry=self.registry)
            new.runner.add_observer(self.groot2)
        if self._py_trees_ros_stream is not None:
            new.runner.add_observer(self._py_trees_ros_stream)
        self.typed.on_install(new)  # the typed transitions; a goal whose tree was replaced
        self._timed = new.timed()
        self._new_debugger(new)
        self._persist(new)
        new.feed.watch(new.readers(), self.request_tick_now,
                       wanted=lambda: self.ticker.event_driven)

    def _new_debugger(self, new: LoadedTree) -> None:
        """Give the new tree revision a debugger; the old one's rules end here (and say so)."""
        old = self.debugger
        if not self.debug_enabled:
            return
        self.debugger = DebugController(new.built, new.runner, lookup=new.feed.lookup,
                                        storage=self.blackboard_storage,
                                        revision=self._revision)
        if old is None:
            return
        cleared = old.rules()
        old.close()
        if cleared or old.paused:
            text = (f'tree swapped: {cleared} breakpoints and substitutions of revision '
                    f'{old.revision} cleared' + (', its pause ended' if old.paused else ''))
            self.logger.warning(text)
            new.runner.notes.append(DebugNote('cleared', '', 'swap', text))

    def debug_request(self, request: dict[str, Any]) -> tuple[bool, str]:
        """Carry out one debug request (the fields of DebugCommand); return (done, message).

        Refused with the reason when the ``debug`` parameter is off, without a tree, or
        when the debugger refuses it (bt_executive/observe/debugger.py).
        """
        if not self.debug_enabled:
            return False, DEBUG_OFF
        command = str(request.get('command', '')).strip().lower()
        if command == 'state':
            return True, 'state'
        debugger = self.debugger
        if debugger is None:
            return False, 'no tree loaded'
        origin = str(request.get('origin') or 'operator')
        node = str(request.get('node', ''))
        with self._board:
            try:
                text = _dispatch(debugger, command, node, origin, request)
            except DebugRefused as error:
                return False, str(error)
            self.publish_status(force=True)
            if command in ('step', 'continue'):
                self.request_tick(f'debug {command} by {origin}')
        self.logger.info(f'debug: {text}')
        return True, text

    def groot2_hook_request(self, kind: str, payload: Optional[bytes]) -> Optional[bytes]:
        """Carry out one of Groot2's hook requests (on the executor's thread, as debug_request).

        Returns:
            the reply's payload (None: none)

        Raises:
            DebugRefused: refused, with the reason (debugging off, no tree, a hook that
                cannot be mapped: bt_executive/observe/groot2_hooks.py).
        """
        if not self.debug_enabled:
            raise DebugRefused(DEBUG_OFF)
        debugger = self.debugger
        if debugger is None:
            raise DebugRefused('no tree loaded')
        if self.groot2_hooks is None:
            from bt_executive.formats.btcpp import uid_map
            from bt_executive.observe.groot2_hooks import Groot2Hooks
            self.groot2_hooks = Groot2Hooks(uid_map)
        with self._board:
            version = debugger.version
            reply = self.groot2_hooks.answer(debugger, kind, payload)
            if debugger.version != version:
                self.publish_status(force=True)
                self.request_tick(f'Groot2 {kind}')
                self.logger.info(f'debug: Groot2 {kind} '
                                 f"{(payload or b'').decode('utf-8', 'replace')[:200]}")
        return reply

    def debug_state(self) -> dict[str, Any]:
        """Return the debugger's state as JSON data (``enabled`` false when off)."""
        if self.debugger is None:
            return {'enabled': self.debug_enabled}
        assert self.host is not None
        return {'enabled': True, 'tick': self.host.tick_count, **self.debugger.state()}

    def _persist(self, new: LoadedTree) -> None:
        """Restore the state file into a new tree's blackboard (at start), then checkpoint.

        Only the first tree of the process resumes: a swap or a reload starts the new
        tree from its own blackboard, and the next checkpoint makes the file its own.
        """
        if self.checkpointer is not None:  # the tree before a swap (its blackboard is gone)
            self.checkpointer.close(flush=False)
        self.checkpointer = None
        path = self.param('state_file')
        keys = {*new.document.persistent, *(k for k in self.param('persistent_keys') if k)}
        may_restore, self._may_restore = self._may_restore, False
        if not path or not keys:
            return
        content = tree_hash(new.name, new.document.files)
        if may_restore and self.param('resume'):
            found = read_state(path, tree=new.name, tree_hash=content, keys=keys)
            storage = self.blackboard_storage()
            for key, value in found.values.items():
                storage['/' + key] = value
            (self.logger.info if found.restored or 'none yet' in found.message
             else self.logger.warning)(found.message)
        elif may_restore:
            self.logger.info(f'state file {path}: resume is false, starting fresh')
        self.checkpointer = checkpointer = Checkpointer(
            path, keys, tree=new.name, tree_hash=content, storage=self.blackboard_storage,
            min_interval=self.param('checkpoint_interval'), log_error=self.logger.error,
            background=True)
        new.runner.add_observer(checkpointer)
        seconds = self.now_seconds
        self._timed.append(lambda: None if checkpointer.due_in() is None
                           else seconds() + checkpointer.due_in())  # type: ignore[operator]

    # ---- ticking ------------------------------------------------------------------

    def tick_once(self) -> Optional[TickRecord]:
        """Tick the tree once now and publish what changed (None: no tree, or paused).

        The ticker calls this; so may a caller that drives the executive by hand (with
        the ticker destroyed).
        """
        with self._board:
            return self._tick_once()

    def _tick_once(self) -> Optional[TickRecord]:
        host = self.host
        assert host is not None
        ticker = self.ticker
        latency = ticker.ticked(time.monotonic())
        host.retire(self.param('shutdown_timeout'))
        if host.tree is None or not host.running or (
                self.debugger is not None and not self.debugger.may_tick()):
            self.publish_snapshot()
            return None
        clock_start = self._tick_time = self.now_seconds()
        try:
            previous = host.last_status
            record = host.tick_once(clock_start)
            assert record is not None
            self.tick_duration = record.duration
            self.timing.record(clock_start, record.duration, latency)
            if self._first_tick_at is None:
                self._first_tick_at = process_age()
            changed = record.root_status is not previous or not host.running \
                or bool(record.debug)
            self.publish_status(force=changed)
            if ticker.event_driven and ticker is self.ticker and host.running:
                # not settled yet (a status moved or the tree wrote the blackboard): the next
                # tick may go further, e.g. a loop's next iteration; else sleep until an event
                settled = not record.transitions and not record.writes
                deadline = self._next_deadline()
                ticker.plan(again=not settled, deadline=deadline)
                self.debug_log('tick', lambda: ticker.explain(
                    record, self.describe, settled=settled, deadline=deadline))
            return record
        finally:
            self._tick_time = None

    # ---- status and snapshots ------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Return the status published on ~/status."""
        host = self.host
        assert host is not None
        tree = host.tree
        with self._board:
            status = {
                'tree': tree.name if tree else None,
                'file': tree.file if tree else None,
                'root_status': host.last_status.name,
                'tick_count': host.tick_count,
                'running': host.running,
                'paused': host.paused,
                'terminated': host.terminated,
                'last_failure': host.last_failure,
                'backing_off': host.backing_off(),
                'tick_duration_ms': round(self.tick_duration * 1000.0, 3),
                'tick_mode': self.param('tick_mode'),
                'timing': self.timing.summary(),
                'callback_errors': self.callback_faults.count,
                'ros_entities': entities.counts(self.node),
                'startup': {'imports_s': _ms(IMPORTED_AT),
                            'first_tick_s': _ms(self._first_tick_at)},
                'active': host.active(),
                'blackboard': self._blackboard_selection(),
            }
        if self._status_extra is not None:
            status.update(self._status_extra())
        status['state'] = executive_state(status)  # what an operator reads
        return status

    def _blackboard_selection(self) -> dict[str, Any]:
        selection = {}
        storage = self.blackboard_storage()
        for key in self.param('status_keys'):
            if key and '/' + key in storage:
                selection[key] = json_safe(storage['/' + key])
        return selection

    def publish_status(self, *, force: bool = False) -> None:
        """Publish ~/snapshot and ~/events on change, ~/status on change or heartbeat."""
        assert self.snapshot_topics is not None
        with self._board:
            self.publish_snapshot()
            now = time.monotonic()
            if not force and now - self._last_status_publish < self.param('status_period'):
                return
            self._last_status_publish = now
            self.snapshot_topics.publish_status(json.dumps(status := self.status()))
            self.typed.publish_status(status)

    def publish_snapshot(self) -> None:
        """Publish new transitions, the delta of a change, the snapshot when due."""
        builder = self.snapshots
        if builder is None:
            return
        assert self.host is not None and self.snapshot_topics is not None
        heartbeat = self.param('snapshot_heartbeat')
        keepalive = self.param('snapshot_keepalive')
        host = self.host
        debugger = self.debugger
        state = (builder, host.running, host.paused, host.terminated, host.last_failure,
                 keepalive or heartbeat, debugger.version if debugger is not None else None)
        if state != self._executive_state:  # a dict per tick only when something moved
            self._executive_state = state
            executive = {'node': self.node.get_fully_qualified_name(),
                         'running': state[1], 'paused': state[2],
                         'terminated': state[3], 'last_failure': state[4],
                         'heartbeat': state[5]}
            if debugger is not None:
                executive['debug'] = {'enabled': True, **debugger.state()}
            builder.set_executive(executive)
        self.snapshot_topics.publish(builder, heartbeat=heartbeat, keepalive=keepalive,
                                     on_change=self.param('snapshot_on_change'))

    # ---- runtime control -----------------------------------------------------------

    def allowed(self, control: str) -> None:
        """Raise TreeError if the variant refuses ``control`` now (e.g. 'execute')."""
        if self._check is not None:
            self._check(control)

    def idle(self, why: str) -> None:
        """Halt the tree (goal cancels sent), stop ticking; not paused (a goal's end)."""
        with self._board:
            self.host.halt(why)  # type: ignore[union-attr]
            self.publish_status(force=True)

    def pause(self) -> str:
        """Halt the tree (cancelling its goals) and stop ticking."""
        self.allowed('pause')
        with self._board:
            self.host.pause()  # type: ignore[union-attr]
            self.publish_status(force=True)
        return 'paused: tree halted, goals cancelled'

    def resume(self) -> str:
        """Start ticking again (the tree restarts from its root; the blackboard is kept)."""
        self.allowed('resume')
        with self._board:
            self.host.resume()  # type: ignore[union-attr]
            self.publish_status(force=True)
            self.request_tick('resume')
        return 'resumed'

    def reset(self) -> str:
        """Halt the tree, restore the initial blackboard and limits, and tick again."""
        self.allowed('reset')
        assert self.host is not None
        with self._board:
            if not self.host.reset():
                return 'no tree loaded'
            if self.checkpointer is not None:  # the initial values are the state now
                self.checkpointer.mark()
            self.publish_status(force=True)
            self.request_tick('reset')
        return 'reset'

    def reload(self) -> str:
        """Reload the current tree file (rejected, old tree kept, if it became invalid)."""
        self.allowed('reload')
        tree_file = self.param('tree_file')
        if not tree_file:
            raise TreeError.single(SourceLocation('<parameters>'), 'tree_file is empty')
        self.install(self.load(tree_file, self.param('tree_name')))
        return f'reloaded {tree_file}'

    def _service(self, control: str) -> Callable[[Any, Any], Any]:
        """Return the Trigger handler of ``control`` (a name of :data:`CONTROLS`)."""
        def handle(request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
            try:
                response.message = getattr(self, control)()
                response.success = True
            except TreeError as error:
                response.success = False
                response.message = str(error)
            return response
        return handle

    # ---- stopping ------------------------------------------------------------------

    def cancels_in_flight(self) -> list[Any]:
        """Return the unanswered goal cancels (futures) of the tree and of swapped-out ones."""
        assert self.host is not None
        trees = [self.host.tree, *self.host.retiring]
        return [future for tree in trees if tree is not None for future in tree.outstanding()]

    def stop_tree(self, executor: Any, *, timeout: Optional[float] = None,
                  waited: float = 0.0) -> bool:
        """Halt every tree and spin until goal cancels are acknowledged (bounded).

        ``waited``: seconds already spent awaiting them (ros/serve.py halts several
        executives' trees, then awaits their cancels together).

        Returns:
            True if every cancel was acknowledged within the timeout.
        """
        assert self.host is not None
        if timeout is None:
            timeout = self.param('shutdown_timeout')
        with self._board:
            acknowledged = self.host.stop_all(executor, timeout, waited=waited)
            self.publish_status(force=True)
        return acknowledged

    def halt_all(self) -> None:
        """Halt every tree (goal cancels are sent) without awaiting; see ros/serve.py."""
        with self._board:
            self.host.halt_all()  # type: ignore[union-attr]

    def close(self) -> None:
        """Halt the trees (cancels sent; awaited if the node has an executor), release all.

        The adapter calls this from ``destroy_node`` before destroying the node; safe on
        a core whose construction failed half-way, and idempotent.
        """
        with self._board:
            host = self.host
            if host is not None and (host.tree is not None or host.retiring):
                executor = self.node.executor
                if executor is not None:
                    try:
                        self.stop_tree(executor)
                    except Exception as error:  # noqa: B902 - e.g. called from a callback
                        self.logger.warning(f'could not wait for goal cancels: {error}')
                host.release_all()
            if self.checkpointer is not None:  # a write held back or not yet on disk
                self.checkpointer.close()
            self.ticker.destroy()
            self.ticker = IdleTicker()
            self.typed.close()  # the node has left the executor: the action server goes
            if self.groot2_requests is not None:  # a request waiting is refused at once
                self.groot2_requests.close()
            if self.groot2 is not None:
                self.groot2.close()
                self.groot2 = None
            for output in self.outputs:  # a recording (record_file) is finalised
                output.close()
            self.outputs = []


def _dispatch(debugger: DebugController, command: str, node: str, origin: str,
              request: dict[str, Any]) -> str:
    """Call the debugger's method for ``command`` with the request's fields."""
    def text(name: str) -> str:
        return str(request.get(name) or '')
    if command == 'breakpoint':
        return debugger.add_breakpoint(node, when=text('when'), condition=text('condition'),
                                       policy=text('policy'), origin=origin)
    if command == 'remove_breakpoint':
        return debugger.remove_breakpoint(node, when=text('when'), origin=origin)
    if command == 'substitute':
        ticks = request.get('ticks') or 0
        if not isinstance(ticks, int) or isinstance(ticks, bool):
            raise DebugRefused(f'ticks must be a whole number, got {ticks!r}')
        return debugger.substitute(node, text('status'), ticks=ticks or None, origin=origin)
    if command == 'remove_substitution':
        return debugger.remove_substitution(node, origin=origin)
    if command == 'clear':
        return debugger.clear(origin=origin)
    if command == 'pause':
        return debugger.pause(policy=text('policy'), origin=origin)
    if command == 'step':
        return debugger.step(origin=origin)
    if command == 'continue':
        return debugger.resume(origin=origin)
    if command == 'set':
        return debugger.set_key(text('key'), text('value'), origin=origin)
    raise DebugRefused(f"unknown command '{command}' (one of: {', '.join(DEBUG_COMMANDS)})")


#: The commands of ~/debug/command (bt_executive_interfaces/srv/DebugCommand).
DEBUG_COMMANDS = ('breakpoint', 'remove_breakpoint', 'substitute', 'remove_substitution',
                  'clear', 'pause', 'step', 'continue', 'set', 'state')


def _ms(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 3)


__all__ = ['CONTROLS', 'DEBUG_COMMANDS', 'ExecutiveCore', 'IMPORTED_AT', 'json_safe',
           'message_dict', 'ros_registry', 'start_streams']
