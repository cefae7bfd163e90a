# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive: a ROS 2 node that loads a YAML tree, ticks it and controls it at runtime.

``ros2 run bt_executive executive --ros-args -p tree_file:=config/patrol.yaml``
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from typing import Any, Callable, Optional

from bt_executive.core.errors import SourceLocation, TreeError
from bt_executive.core.registry import Registry
from bt_executive.nodes.plugins import installed_registry
from bt_executive.observe.record import TickRecord
from bt_executive.observe.snapshot import new_session, plain_json, SnapshotBuilder
from bt_executive.ros import entities, interfaces, leaves
from bt_executive.ros.debuglog import DebugLog
from bt_executive.ros.host import LoadedTree, TreeHost
from bt_executive.ros.memory import defer_for_programs
from bt_executive.ros.parameters import (declare_parameters, PARAMETERS, TICK_MODES,
                                         TICK_PARAMETERS, TREE_PARAMETERS)
from bt_executive.ros.serve import serve
from bt_executive.ros.simclock import NodeSeconds, SimClockCheck
from bt_executive.ros.snapshot_topics import SnapshotTopics
from bt_executive.ros.spin import CallbackFaults, GiveWayAfterSend
from bt_executive.ros.ticking import EventTicker, PeriodicTicker, process_age, TickTiming
from bt_executive.ros.usage import handle_arguments
import py_trees
from py_trees.common import Status
from rcl_interfaces.msg import SetParametersResult
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.utilities import remove_ros_args
from std_srvs.srv import Trigger

#: Seconds from process start to the end of this module's imports (None off Linux).
IMPORTED_AT = process_age()


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
    return plain_json(value, convert=_message_dict)


def _message_dict(value: Any) -> Optional[dict[str, Any]]:
    if hasattr(value, 'get_fields_and_field_types'):
        return interfaces.to_dict(value)
    return None


class Executive(Node):
    """Tick a behaviour tree described in YAML and control it at runtime.

    ROS Parameters:
        tree_file (string): the tree file; setting it swaps the tree (rejected if invalid)
        tree_name (string): the tree to run ('' = the file's main tree)
        tick_mode (string): 'periodic' (tick_rate ticks per second) or 'event' (tick
        when something the tree depends on happens; bt_executive/ros/ticking.py)
        tick_rate (double): ticks per second in periodic mode (0.1 .. 1000)
        max_tick_rate (double): event mode: the highest tick rate (Hz)
        heartbeat_period (double): event mode: seconds between ticks when nothing happens
        setup_timeout (double): seconds allowed for setting up the tree's leaves
        shutdown_timeout (double): seconds to wait for goal cancels to be acknowledged
        status_period (double): seconds between status heartbeats
        snapshot_keys (string[]): blackboard keys included in ~/snapshot ('*' = all)
        snapshot_heartbeat (double): seconds between full ~/snapshot keyframes (10; 0 =
        only on a structure change and every 50 deltas)
        snapshot_keepalive (double): seconds of silence after which a heartbeat delta
        goes out on ~/snapshot_delta (1; 0 = off)
        snapshot_on_change (bool): also publish ~/snapshot on every change (default off)
        record_file, record_max_size: record the topics below to MCAP (docs/recording.md)
        groot2_port (int): serve the Groot2 monitoring protocol on this TCP port (0 = off;
        read at start; docs/groot2.md)
        groot2_address (string): the address the Groot2 server binds ('127.0.0.1')
        backoff, backoff_max (double): a failed ROS leaf's next goal waits backoff s,
        doubled per further failure up to backoff_max (bt_executive/ros/leaves/backoff.py)

    ROS Publishers:
        ~/status (std_msgs/String, latched): JSON with tree, file, root status, tick
        count, running (being ticked), paused and terminated (who ended the tree and
        why), last failure reason, tick timing and the number of exceptions raised by
        ROS callbacks (``callback_errors``; see CallbackFaults)
        ~/snapshot (std_msgs/String, latched): the tree snapshot (docs/snapshots.md), on
        a structure change, every snapshot_heartbeat s, after 50 deltas, and on every
        change with snapshot_on_change
        ~/snapshot_delta (std_msgs/String, transient local, depth 100): each change's
        delta; a heartbeat delta after snapshot_keepalive s without one
        ~/events (std_msgs/String, reliable, transient local, depth 20): status
        transitions, one message per tick that moved something (late joiners get the last 20)
        ~/snapshots (py_trees_ros_interfaces/BehaviourTree, latched): the default
        py_trees_ros snapshot stream

    ROS Services:
        ~/pause, ~/resume, ~/reset, ~/reload (std_srvs/Trigger); py_trees_ros' snapshot
        streams where py_trees_ros_interfaces is installed (bt_executive/ros/streams.py)
    """

    clean = True  # no stop left a goal cancel unacknowledged (the lifecycle's can)
    host: Any = None  # the parts destroy_node() ends, until __init__ has made them
    tick_phase: Optional[float] = None  # periodic ticks' place in the period (fleet.py)
    ticker: Any = None
    groot2: Any = None

    #: After a tick that sent something, sleep briefly so the receiver gets the CPU first
    #: (:class:`~bt_executive.ros.spin.GiveWayAfterSend`).
    give_way_after_send = True

    def __init__(self, *, node_name: str = 'bt_executive', namespace: Optional[str] = None,
                 parameter_overrides: Optional[list[Parameter]] = None,
                 registry: Optional[Registry] = None, context: Any = None):
        kwargs: dict[str, Any] = {}
        if namespace is not None:
            kwargs['namespace'] = namespace
        if context is not None:
            kwargs['context'] = context
        super().__init__(node_name, parameter_overrides=parameter_overrides or [], **kwargs)
        try:
            self._declare_parameters()
        except ParameterException:  # a value of the wrong type or out of range
            super().destroy_node()  # nothing of ours exists yet
            raise
        try:
            self._start(registry)
        except BaseException:  # never leave a half-built node (rclpy would destroy it later)
            self.destroy_node()
            raise

    def _start(self, registry: Optional[Registry]) -> None:
        """Make the node's parts and load the first tree (__init__ cleans up on errors)."""
        self.registry = registry or ros_registry(logger=self.get_logger())
        self.debug_log = DebugLog(self.get_logger())  # --log-level bt_executive:=debug
        self._clock_seconds = NodeSeconds(self)  # before the host: the feed stamps with it
        self.host = TreeHost(self, self.registry, clock=self.now_seconds,
                             logger=self.get_logger(), on_install=self._on_install)
        self.callback_faults = CallbackFaults(self.get_logger())
        self.sim_clock = SimClockCheck(self, self.debug_log)  # warns when /clock is missing
        self.tick_duration = 0.0
        self.timing = TickTiming()
        self._tick_time: Optional[float] = None
        self._first_tick_at: Optional[float] = None
        self._timed: list[Callable[[], Optional[float]]] = []
        self._last_status_publish = -1.0
        self.snapshot_topics = SnapshotTopics(self)  # ~/status, ~/snapshot(_delta), ~/events
        self.snapshots: Optional[SnapshotBuilder] = None
        self._executive_state: tuple[Any, ...] = ()  # what set_executive was last given
        self._session = new_session()
        self._revision = 0
        self._py_trees_ros_stream = start_streams(self, lambda: self.host.tree)  # or None
        for name, handler in (('pause', self._srv_pause), ('resume', self._srv_resume),
                              ('reset', self._srv_reset), ('reload', self._srv_reload)):
            self.create_service(Trigger, f'~/{name}', handler)
        self.groot2: Any = self._start_groot2()
        self.ticker: Any = None
        #: the ticker made by _configure_ticking, with the mode and values it was made for
        self._made_ticker: tuple[Any, str, dict[str, Any]] = (None, '', {})
        self._configure_ticking(self._param('tick_mode'))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._load_first_tree()

    def _load_first_tree(self) -> None:
        """Load the first tree (``tree_file``), publish the status; raise TreeError if invalid."""
        tree_file = self._param('tree_file')
        if tree_file:
            try:
                self._install(self.load(tree_file, self._param('tree_name')))
            except TreeError as error:
                self.get_logger().error(f'cannot load {tree_file}:\n{error}')
                raise
        else:
            self.get_logger().warning('no tree_file parameter set; waiting for one')
        self.publish_status(force=True)

    def _start_groot2(self) -> Any:
        """Start the Groot2 server if groot2_port is set (docs/groot2.md), else None.

        A port in use or pyzmq/msgpack missing is logged as an error and the executive
        runs on without it; pyzmq and msgpack are imported only here.
        """
        port, address = self._param('groot2_port'), self._param('groot2_address')
        if not port:
            return None
        try:
            from bt_executive.observe.groot2 import Groot2Server
            server = Groot2Server(port, address, logger=self.get_logger(),
                                  render_value=json_safe, storage=self.blackboard_storage)
        except Exception as error:  # noqa: B902 - ImportError, Groot2Error: run on without
            self.get_logger().error(f'Groot2 monitoring is off: {error}')
            return None
        self.get_logger().info(f'Groot2 monitoring on {server.endpoint}')
        return server

    # ---- parameters -----------------------------------------------------------------

    def _declare_parameters(self) -> None:
        declare_parameters(self, PARAMETERS)

    def _param(self, name: str) -> Any:
        return self.get_parameter(name).value

    def now_seconds(self) -> float:
        """Return the node clock in seconds (ROS time when use_sim_time is set).

        During a tick every caller gets the time the tick started: one clock read per
        tick, and every node of the tree sees the same time.
        """
        now = self._tick_time
        if now is None:
            now = self._clock_seconds()  # time.time() unless use_sim_time (simclock.py)
        return now

    def _on_set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        changes = {p.name: p.value for p in parameters}
        mode = changes.get('tick_mode', self._param('tick_mode'))
        if mode not in TICK_MODES:
            return SetParametersResult(successful=False, reason='tick_mode must be one of '
                                       f"{', '.join(TICK_MODES)}, got '{mode}'")
        if any(name in changes for name in TICK_PARAMETERS):
            self._configure_ticking(mode, changes)
        if not any(name in changes for name in TREE_PARAMETERS):
            return SetParametersResult(successful=True)
        tree_file = changes.get('tree_file', self._param('tree_file'))
        tree_name = changes.get('tree_name', self._param('tree_name'))
        if not tree_file:
            return SetParametersResult(successful=False, reason='tree_file is empty')
        try:
            candidate = self.load(tree_file, tree_name)
        except TreeError as error:
            self.get_logger().error(f'rejected tree {tree_file}:\n{error}')
            return SetParametersResult(successful=False, reason=str(error))
        self._install(candidate)
        return SetParametersResult(successful=True)

    # ---- when to tick ----------------------------------------------------------------

    def _configure_ticking(self, mode: str, changes: Optional[dict[str, Any]] = None) -> None:
        """(Re)create the ticker for ``mode``; ``changes`` are parameters being set.

        Setting the tick parameters to the values in use only restarts the tick timing
        statistics: the ticker and its timer stay (a fleet process re-creating a timer
        disturbs the ticks of every executive it hosts).
        """
        values = {name: self._param(name) for name in TICK_PARAMETERS}
        values.update(changes or {})
        values['tick_mode'] = mode
        if mode not in TICK_MODES:
            error = TreeError.single(SourceLocation('<parameters>'), 'tick_mode must be one '
                                     f"of {', '.join(TICK_MODES)}, got '{mode}'")
            self.get_logger().error(str(error))
            raise error
        if self.ticker is not None and self._made_ticker == (self.ticker, mode, values):
            self.timing.restart(self.timing.period)
            return
        if self.ticker is not None:
            self.ticker.destroy()
        if mode == 'event':
            self.ticker = EventTicker(self, self.tick_once, max_rate=values['max_tick_rate'],
                                      heartbeat=values['heartbeat_period'])
            self.timing.restart(None)
            self.ticker.request('tick_mode event')
        else:
            self.ticker = PeriodicTicker(self, self.tick_once, rate=values['tick_rate'],
                                         phase=self.tick_phase)
            self.timing.restart(self.ticker.period)
        self._made_ticker = (self.ticker, mode, values)

    def tick_interval(self) -> Optional[float]:
        """Return the seconds between ticks: the period, or ``1 / max_tick_rate`` (event)."""
        ticker = self.ticker
        if isinstance(ticker, EventTicker):
            return ticker.min_interval
        return ticker.period if isinstance(ticker, PeriodicTicker) else None

    def request_tick(self, source: Any = None) -> None:
        """Ask for a tick soon (leaves and the blackboard feed call this from callbacks).

        Event mode ticks at the next moment ``max_tick_rate`` allows; periodic mode
        ignores the request (the next tick comes anyway). ``source`` (the leaf asking)
        names the requester in the debug log.
        """
        self.ticker.request(source)

    def request_tick_now(self, source: Any = None) -> None:
        """Tick at once if ``max_tick_rate`` allows (the blackboard feed, after storing).

        See :meth:`bt_executive.ros.ticking.EventTicker.request_now`.
        """
        self.ticker.request_now(source)

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Write a rate-limited debug line about what ``source`` (a leaf) just did."""
        self.debug_log(topic, lambda: f'{self._describe(source)}: {text}')

    def _describe(self, source: Any) -> str:
        """Name a leaf or a tick requester for the debug log: a node path, a topic, text."""
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
        earliest = None
        for wake_at in self._timed:
            when = wake_at()
            if when is not None and when > now and (earliest is None or when < earliest):
                earliest = when
        return earliest

    # ---- the tree host's state -------------------------------------------------------

    @property
    def tree(self) -> Optional[LoadedTree]:
        """Return the tree being run (None before one is loaded)."""
        return self.host.tree

    @property
    def retiring(self) -> list[LoadedTree]:
        """Return the trees stopped by a swap whose cancels are still awaited."""
        return self.host.retiring

    @property
    def tick_count(self) -> int:
        """Return the ticks of the current tree since it was installed or reset."""
        return self.host.tick_count

    @property
    def running(self) -> bool:
        """Tell whether the tree is being ticked (not paused, stopped or terminated)."""
        return self.host.running

    @property
    def terminated(self) -> Optional[str]:
        """Return what a Terminate node said, if one ended the tree."""
        return self.host.terminated

    @property
    def last_failure(self) -> str:
        """Return why the root last failed ('' if it has not)."""
        return self.host.last_failure

    @property
    def last_status(self) -> Status:
        """Return the root's status after the last tick."""
        return self.host.last_status

    # ---- loading and swapping --------------------------------------------------------

    def load(self, tree_file: str, tree_name: str = '') -> LoadedTree:
        """Load, validate, build and set up a tree without touching the running one.

        Raises:
            TreeError: with every problem found; nothing is left behind on the node.
        """
        return self.host.load(tree_file, tree_name,
                              setup_timeout=self._param('setup_timeout'))

    def _install(self, new: LoadedTree) -> None:
        """Stop the running tree (cancelling its goals) and start ``new``."""
        self.host.install(new, shutdown_timeout=self._param('shutdown_timeout'))
        self.publish_status(force=True)
        self.request_tick(f"tree '{new.name}' installed")

    def _on_install(self, new: LoadedTree) -> None:
        """Attach this node's observers to a new tree's runner (before its first tick)."""
        self._revision += 1
        if self.give_way_after_send:  # first: receivers of goals, cancels
            new.runner.add_observer(GiveWayAfterSend(self.tick_interval))
        self.snapshots = SnapshotBuilder(
            new.runner.tracker, tree_name=new.name, source_file=new.file,
            revision=self._revision, blackboard_keys=self._param('snapshot_keys'),
            lookup=new.feed.lookup, render_value=json_safe, document=new.document,
            session=self._session, clock=self.now_seconds)
        new.runner.add_observer(self.snapshots)
        self.snapshot_topics.install(new.runner)
        if self.groot2 is not None:  # a new tree UUID: connected viewers follow the swap
            self.groot2.on_install(new.built, tree_name=new.name, document=new.document,
                                   registry=self.registry)
            new.runner.add_observer(self.groot2)
        if self._py_trees_ros_stream is not None:
            new.runner.add_observer(self._py_trees_ros_stream)
        self._timed = new.timed()
        new.feed.watch(new.readers(), self.request_tick_now,
                       wanted=lambda: self.ticker is not None and self.ticker.event_driven)

    # ---- ticking ------------------------------------------------------------------

    def tick_once(self) -> Optional[TickRecord]:
        """Tick the tree once now and publish what changed (None: no tree, or paused).

        The ticker calls this; so may a caller that drives the executive by hand (with
        the ticker destroyed).
        """
        ticker = self.ticker
        latency = ticker.ticked(time.monotonic()) if ticker is not None else None
        self.host.retire(self._param('shutdown_timeout'))
        if self.host.tree is None or not self.host.running:
            self._publish_snapshot()
            return None
        clock_start = self._tick_time = self.now_seconds()
        try:
            previous = self.host.last_status
            record = self.host.tick_once(clock_start)
            assert record is not None
            self.tick_duration = record.duration
            self.timing.record(clock_start, record.duration, latency)
            if self._first_tick_at is None:
                self._first_tick_at = process_age()
            changed = record.root_status is not previous or not self.host.running
            self.publish_status(force=changed)
            if ticker is not None and ticker.event_driven and ticker is self.ticker \
                    and self.host.running:
                # not settled yet (a status moved or the tree wrote the blackboard): the next
                # tick may go further, e.g. a loop's next iteration; else sleep until an event
                settled = not record.transitions and not record.writes
                deadline = self._next_deadline()
                ticker.plan(again=not settled, deadline=deadline)
                self.debug_log('tick', lambda: ticker.explain(
                    record, self._describe, settled=settled, deadline=deadline))
            return record
        finally:
            self._tick_time = None

    def status(self) -> dict[str, Any]:
        """Return the status published on ~/status."""
        tree = self.tree
        return {
            'tree': tree.name if tree else None,
            'file': tree.file if tree else None,
            'root_status': self.last_status.name,
            'tick_count': self.tick_count,
            'running': self.running,
            'paused': self.host.paused,
            'terminated': self.terminated,
            'last_failure': self.last_failure,
            'backing_off': self.host.backing_off(),
            'tick_duration_ms': round(self.tick_duration * 1000.0, 3),
            'tick_mode': self._param('tick_mode'),
            'timing': self.timing.summary(),
            'callback_errors': self.callback_faults.count,
            'ros_entities': entities.counts(self),
            'startup': {'imports_s': _rounded(IMPORTED_AT),
                        'first_tick_s': _rounded(self._first_tick_at)},
            'active': self.host.active(),
            'blackboard': self._blackboard_selection(),
        }

    def blackboard_storage(self) -> dict[str, Any]:
        """Return this executive's blackboard storage (``/key -> value``; fleet.py)."""
        return py_trees.blackboard.Blackboard.storage

    def _blackboard_selection(self) -> dict[str, Any]:
        selection = {}
        storage = self.blackboard_storage()
        for key in self._param('status_keys'):
            if key and '/' + key in storage:
                selection[key] = json_safe(storage['/' + key])
        return selection

    def publish_status(self, *, force: bool = False) -> None:
        """Publish ~/snapshot and ~/events on change, ~/status on change or heartbeat."""
        self._publish_snapshot()
        now = time.monotonic()
        if not force and now - self._last_status_publish < self._param('status_period'):
            return
        self._last_status_publish = now
        self.snapshot_topics.publish_status(json.dumps(self.status()))

    def _publish_snapshot(self) -> None:
        """Publish new transitions, the delta of a change, the snapshot when due."""
        builder = self.snapshots
        if builder is None:
            return
        heartbeat = self._param('snapshot_heartbeat')
        keepalive = self._param('snapshot_keepalive')
        host = self.host
        state = (builder, host.running, host.paused, host.terminated, host.last_failure,
                 keepalive or heartbeat)
        if state != self._executive_state:  # a dict per tick only when something moved
            self._executive_state = state
            builder.set_executive({'node': self.get_fully_qualified_name(),
                                   'running': state[1], 'paused': state[2],
                                   'terminated': state[3], 'last_failure': state[4],
                                   'heartbeat': state[5]})
        self.snapshot_topics.publish(builder, heartbeat=heartbeat, keepalive=keepalive,
                                     on_change=self._param('snapshot_on_change'))

    # ---- runtime control -----------------------------------------------------------

    def pause(self) -> str:
        """Halt the tree (cancelling its goals) and stop ticking."""
        self.host.pause()
        self.publish_status(force=True)
        return 'paused: tree halted, goals cancelled'

    def resume(self) -> str:
        """Start ticking again (the tree restarts from its root; the blackboard is kept)."""
        self.host.resume()
        self.publish_status(force=True)
        self.request_tick('resume')
        return 'resumed'

    def reset(self) -> str:
        """Halt the tree, restore the initial blackboard and limits, and tick again."""
        if not self.host.reset():
            return 'no tree loaded'
        self.publish_status(force=True)
        self.request_tick('reset')
        return 'reset'

    def reload(self) -> str:
        """Reload the current tree file (rejected, old tree kept, if it became invalid)."""
        tree_file = self._param('tree_file')
        if not tree_file:
            raise TreeError.single(SourceLocation('<parameters>'), 'tree_file is empty')
        self._install(self.load(tree_file, self._param('tree_name')))
        return f'reloaded {tree_file}'

    def _service(self, action: Callable[[], str], response: Trigger.Response
                 ) -> Trigger.Response:
        try:
            response.message = action()
            response.success = True
        except TreeError as error:
            response.success = False
            response.message = str(error)
        return response

    def _srv_pause(self, request: Trigger.Request, response: Trigger.Response):
        return self._service(self.pause, response)

    def _srv_resume(self, request: Trigger.Request, response: Trigger.Response):
        return self._service(self.resume, response)

    def _srv_reset(self, request: Trigger.Request, response: Trigger.Response):
        return self._service(self.reset, response)

    def _srv_reload(self, request: Trigger.Request, response: Trigger.Response):
        return self._service(self.reload, response)

    # ---- stopping ------------------------------------------------------------------

    def stop_tree(self, executor: Any, *, timeout: Optional[float] = None,
                  waited: float = 0.0) -> bool:
        """Halt every tree and spin until goal cancels are acknowledged (bounded).

        ``waited``: seconds already spent awaiting them (ros/serve.py halts several
        executives' trees, then awaits their cancels together).

        Returns:
            True if every cancel was acknowledged within the timeout.
        """
        if timeout is None:
            timeout = self._param('shutdown_timeout')
        acknowledged = self.host.stop_all(executor, timeout, waited=waited)
        self.publish_status(force=True)
        return acknowledged

    def halt_all(self) -> None:
        """Halt every tree (goal cancels are sent) without awaiting; see ros/serve.py."""
        self.host.halt_all()

    def finish(self) -> None:
        """End the node's own life before it is destroyed (nothing here; see lifecycle.py)."""

    def destroy_node(self) -> None:
        """Halt the tree (goal cancels are sent) and release everything, then destroy.

        ``main()`` calls :meth:`stop_tree` first. Destroying the node directly does the
        same when the node has an executor to spin (bounded by ``shutdown_timeout``);
        without one the cancels are sent but their delivery is not awaited.
        """
        if self.host is not None and (self.host.tree is not None or self.host.retiring):
            if self.executor is not None:
                try:
                    self.stop_tree(self.executor)
                except Exception as error:  # noqa: B902 - e.g. called from a callback
                    self.get_logger().warning(f'could not wait for goal cancels: {error}')
            self.host.release_all()
        if self.ticker is not None:
            self.ticker.destroy()
            self.ticker = None
        if self.groot2 is not None:
            self.groot2.close()
            self.groot2 = None
        if getattr(self, 'snapshot_topics', None) is not None:
            self.snapshot_topics.close()  # a recording (record_file) is finalised
        super().destroy_node()


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 3)


def main(args: Optional[list[str]] = None, *, registry: Optional[Registry] = None) -> int:
    """Run the executive until SIGINT/SIGTERM/SIGHUP; cancel goals before exiting.

    Args:
        args: command-line arguments for rclpy (default: ``sys.argv``)
        registry: the node types (default: :func:`ros_registry`); a launcher of its own
            passes e.g. ``ros_registry()`` plus its types here and keeps the safe stop
            (docs/plugins.md)

    Returns:
        0 after a clean stop (a signal or a ROS shutdown), as ROS nodes do, and after
        ``--help`` (which starts no node); 1 when the first tree could not be loaded or a
        goal cancel was not acknowledged within ``shutdown_timeout`` (a stop that hangs is
        ended by the exit watchdog, also with 1); 2 for a bad parameter value.
    """
    done = handle_arguments(remove_ros_args(sys.argv if args is None else args)[1:],
                            PARAMETERS)
    if done is not None:
        return done
    defer_for_programs()  # messages one by one as used, no code generator (ros/memory.py)
    return serve('executive', lambda made: made.append(Executive(registry=registry)), args)


if __name__ == '__main__':
    sys.exit(main())
