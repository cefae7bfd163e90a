"""The executive: a ROS 2 node that loads a YAML tree, ticks it and controls it at runtime.

``ros2 run bt_executive executive --ros-args -p tree_file:=config/patrol.yaml``
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional

from bt_executive.core.builder import (apply_blackboard_defaults, BuildContext, Builder,
                                       contain_fault)
from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Registry
from bt_executive.core.spec import Document
from bt_executive.nodes.behaviours import clear_termination, reset_limits, termination_requested
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.snapshot import (  # noqa: F401
    active_path, failure_chain, failure_reason, new_session, SnapshotBuilder, to_json)
from bt_executive.ros import interfaces, leaves
from bt_executive.ros.subscriptions import (BlackboardFeed, check_fields, parse_subscriptions,
                                            qos_profile)
from bt_executive.ros.ticking import EventTicker, PeriodicTicker, process_age, TickTiming
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT, ExitWatchdog
import py_trees
from py_trees.common import Status
from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                SetParametersResult)
import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

try:  # optional: py_trees_ros viewers (not on PyPI, so absent in the pip-only setup)
    from py_trees_ros import conversions as py_trees_ros_conversions
    from py_trees_ros_interfaces.msg import BehaviourTree as PyTreesRosTree
except ImportError:
    py_trees_ros_conversions = None

#: Parameters that select the tree; setting either swaps the running tree.
TREE_PARAMETERS = ('tree_file', 'tree_name')

#: Nodes that may raise for the first time in one tick before the tick is abandoned.
MAX_CONTAINED_PER_TICK = 16

#: Parameters that change when the tree is ticked.
TICK_PARAMETERS = ('tick_mode', 'tick_rate', 'max_tick_rate', 'heartbeat_period')

#: The values of the tick_mode parameter (bt_executive/ros/ticking.py).
TICK_MODES = ('periodic', 'event')

#: Seconds from process start to the end of this module's imports (None off Linux).
IMPORTED_AT = process_age()


def ros_registry() -> Registry:
    """Return the node catalogue with the real ROS leaves."""
    return default_registry().with_factories(leaves.FACTORIES)


def json_safe(value: Any) -> Any:
    """Render a blackboard value as JSON-safe data (ROS messages as dicts)."""
    if hasattr(value, 'get_fields_and_field_types'):
        return interfaces.to_dict(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


@dataclasses.dataclass
class LoadedTree:
    """A built tree with everything it owns on the node."""

    document: Document
    name: str
    root: py_trees.behaviour.Behaviour
    feed: BlackboardFeed
    file: str
    retired_at: float = 0.0  # when a swap stopped it (monotonic seconds)

    def behaviours(self) -> list[py_trees.behaviour.Behaviour]:
        """Return every behaviour of the tree."""
        return list(self.root.iterate())

    def timed(self) -> list[Callable[[], Optional[float]]]:
        """Return the ``wake_at`` methods of the time-based behaviours (and the feed)."""
        methods = [behaviour.wake_at for behaviour in self.root.iterate()
                   if callable(getattr(behaviour, 'wake_at', None))]
        return methods + [self.feed.wake_at]

    def readers(self) -> dict[str, list[Optional[Callable[[Any], Any]]]]:
        """Return, per root blackboard key, the probes of the behaviours reading it.

        A probe (``bt_probe``) computes a pure reader's outcome from a lookup; None
        stands for a reader without one (any new value may matter to it).
        """
        readers: dict[str, list[Optional[Callable[[Any], Any]]]] = {}
        for behaviour in self.root.iterate():
            keys = set(getattr(behaviour, 'bt_reads', ()))
            for client in behaviour.blackboards:
                keys |= {key.lstrip('/').split('/')[0] for key in client.read}
            probe = getattr(behaviour, 'bt_probe', None)
            for key in keys:
                readers.setdefault(key, []).append(probe)
        return readers

    def outstanding(self) -> list[Any]:
        """Return the futures still in flight (cancels the robot must acknowledge)."""
        futures = []
        for behaviour in self.root.iterate():
            method = getattr(behaviour, 'outstanding', None)
            if method is not None:
                futures.extend(f for f in method() if not f.done())
        return futures

    def stop(self) -> None:
        """Halt the tree: running leaves are terminated with INVALID (goals cancelled)."""
        for _ in range(MAX_CONTAINED_PER_TICK):
            try:
                self.root.stop(Status.INVALID)
                return
            except Exception as error:  # noqa: B902 - a terminate() raised: guard, retry
                if not contain_fault(error, self.root, in_tick=False):
                    raise

    def destroy(self) -> None:
        """Release every subscription, client and publisher the tree created."""
        _release(self.root.iterate(), self.feed)


def _release(behaviours: Any, feed: BlackboardFeed) -> None:
    """Shut ``behaviours`` down, drop their blackboard clients and destroy ``feed``."""
    for behaviour in behaviours:
        try:
            behaviour.shutdown()
        except Exception as error:  # noqa: B902 - keep releasing the others
            print(f'bt_executive: shutting down {behaviour.name} failed: {error}',
                  file=sys.stderr)
        for client in behaviour.blackboards:
            try:
                client.unregister(clear=False)
            except KeyError:  # the blackboard was cleared under us (e.g. by a reset)
                pass
        behaviour.blackboards = []
    feed.destroy()


#: The executive's ROS parameters: name -> (default, description, (lowest, highest) for
#: numbers or None, read-only).
PARAMETERS: dict[str, tuple[Any, str, Optional[tuple[float, float]], bool]] = {
    'tree_file': ('', 'YAML tree file; setting it swaps the tree at runtime', None, False),
    'tree_name': ('', "tree to run ('' = the file's main tree)", None, False),
    'tick_mode': ('periodic', "'periodic': tick_rate ticks per second; 'event': tick when "
                  'something the tree depends on happens (plus heartbeat_period)', None,
                  False),
    'tick_rate': (10.0, 'ticks per second in periodic mode', (0.1, 1000.0), False),
    'max_tick_rate': (100.0, 'event mode: the highest tick rate (Hz)', (0.1, 10000.0),
                      False),
    'heartbeat_period': (1.0, 'event mode: seconds from one tick to the next when nothing '
                         'happens', (0.001, 3600.0), False),
    'setup_timeout': (5.0, 'seconds allowed for setting up the leaves', (0.0, 600.0), False),
    'shutdown_timeout': (3.0, 'seconds to wait for goal cancels to be acknowledged on stop',
                         (0.0, 600.0), False),
    'status_period': (1.0, 'seconds between ~/status heartbeats', (0.05, 3600.0), False),
    'status_keys': ([''], 'blackboard keys included in ~/status (JSON-safe rendering)', None,
                    False),
    'snapshot_keys': ([''], "blackboard keys included in ~/snapshot ('*' = every key)", None,
                      False),
    'snapshot_heartbeat': (1.0, 'seconds between ~/snapshot repeats while nothing changes '
                           '(0 = off)', (0.0, 3600.0), False),
    'groot2_port': (0, 'serve Groot2 monitoring on this TCP port (0 = off)', (0, 65535),
                    True),
    'groot2_address': ('127.0.0.1', 'address the Groot2 server binds (default loopback; only '
                       "an explicit '0.0.0.0' opens every interface)", None, True),
}


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
        snapshot_heartbeat (double): seconds between ~/snapshot repeats (0 = off)
        groot2_port (int): serve the Groot2 monitoring protocol on this TCP port (0 = off;
        read at start; docs/groot2.md)
        groot2_address (string): the address the Groot2 server binds ('127.0.0.1')

    ROS Publishers:
        ~/status (std_msgs/String, latched): JSON with tree, file, root status, tick
        count, running flag, last failure reason, tick timing and the number of
        exceptions raised by ROS callbacks (``callback_errors``; see CallbackFaults)
        ~/snapshot (std_msgs/String, latched): the tree snapshot (docs/snapshots.md), on
        every change and as a heartbeat
        ~/events (std_msgs/String, reliable, transient local, depth 100): status
        transitions, one message per tick that moved something (late joiners get the last 100)
        ~/snapshots (py_trees_ros_interfaces/BehaviourTree, latched): only when
        py_trees_ros is installed, for its viewers

    ROS Services:
        ~/pause, ~/resume, ~/reset, ~/reload (std_srvs/Trigger)
    """

    def __init__(self, *, node_name: str = 'bt_executive', namespace: Optional[str] = None,
                 parameter_overrides: Optional[list[Parameter]] = None,
                 registry: Optional[Registry] = None, context: Any = None):
        kwargs: dict[str, Any] = {}
        if namespace is not None:
            kwargs['namespace'] = namespace
        if context is not None:
            kwargs['context'] = context
        super().__init__(node_name, parameter_overrides=parameter_overrides or [], **kwargs)
        self.registry = registry or ros_registry()
        self._declare_parameters()
        self.tree: Optional[LoadedTree] = None
        self.retiring: list[LoadedTree] = []
        self.callback_faults = CallbackFaults(self.get_logger())
        self.tick_count = 0
        self.running = True
        self.terminated: Optional[str] = None
        self.last_failure = ''
        self.last_status = Status.INVALID
        self.tick_duration = 0.0
        self.timing = TickTiming()
        self._tick_time: Optional[float] = None
        self._first_tick_at: Optional[float] = None
        self._timed: list[Callable[[], Optional[float]]] = []
        self._moved = False
        self._last_status_publish = -1.0
        self._status_publisher = self.create_publisher(String, '~/status',
                                                       qos_profile('latched'))
        self.snapshots: Optional[SnapshotBuilder] = None
        self._session = new_session()
        self._revision = 0
        self._last_snapshot_publish = -1.0
        self._snapshot_publisher = self.create_publisher(String, '~/snapshot',
                                                         qos_profile('latched'))
        self._events_publisher = self.create_publisher(String, '~/events', QoSProfile(
            depth=100, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        self._py_trees_ros_publisher = None if py_trees_ros_conversions is None else \
            self.create_publisher(PyTreesRosTree, '~/snapshots', qos_profile('latched'))
        for name, handler in (('pause', self._srv_pause), ('resume', self._srv_resume),
                              ('reset', self._srv_reset), ('reload', self._srv_reload)):
            self.create_service(Trigger, f'~/{name}', handler)
        self.groot2: Any = self._start_groot2()
        self.ticker: Any = None
        self._configure_ticking(self._param('tick_mode'))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        tree_file = self._param('tree_file')
        if tree_file:
            try:
                self._install(self.load(tree_file, self._param('tree_name')))
            except TreeError as error:
                self.get_logger().error(f'cannot load {tree_file}:\n{error}')
                if self.groot2 is not None:
                    self.groot2.close()
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
                                  render_value=json_safe)
        except Exception as error:  # noqa: B902 - ImportError, Groot2Error: run on without
            self.get_logger().error(f'Groot2 monitoring is off: {error}')
            return None
        self.get_logger().info(f'Groot2 monitoring on {server.endpoint}')
        return server

    # ---- parameters -----------------------------------------------------------------

    def _declare_parameters(self) -> None:
        for name, (default, description, bounds, read_only) in PARAMETERS.items():
            descriptor = ParameterDescriptor(description=description, read_only=read_only)
            if bounds is not None and isinstance(default, float):
                descriptor.floating_point_range = [
                    FloatingPointRange(from_value=bounds[0], to_value=bounds[1], step=0.0)]
            elif bounds is not None:
                descriptor.integer_range = [
                    IntegerRange(from_value=int(bounds[0]), to_value=int(bounds[1]), step=1)]
            self.declare_parameter(name, default, descriptor)

    def _param(self, name: str) -> Any:
        return self.get_parameter(name).value

    def now_seconds(self) -> float:
        """Return the node clock in seconds (ROS time when use_sim_time is set).

        During a tick every caller gets the time the tick started: one clock read per
        tick, and every node of the tree sees the same time.
        """
        now = self._tick_time
        if now is None:
            now = self.get_clock().now().nanoseconds * 1e-9
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
        """(Re)create the ticker for ``mode``; ``changes`` are parameters being set."""
        values = {name: self._param(name) for name in TICK_PARAMETERS}
        values.update(changes or {})
        if mode not in TICK_MODES:
            error = TreeError.single(SourceLocation('<parameters>'), 'tick_mode must be one '
                                     f"of {', '.join(TICK_MODES)}, got '{mode}'")
            self.get_logger().error(str(error))
            raise error
        if self.ticker is not None:
            self.ticker.destroy()
        if mode == 'event':
            self.ticker = EventTicker(self, self._tick, max_rate=values['max_tick_rate'],
                                      heartbeat=values['heartbeat_period'])
            self.timing.restart(None)
            self.ticker.request()
        else:
            self.ticker = PeriodicTicker(self, self._tick, rate=values['tick_rate'])
            self.timing.restart(self.ticker.period)

    def request_tick(self) -> None:
        """Ask for a tick soon (leaves and the blackboard feed call this from callbacks).

        Event mode ticks at the next moment ``max_tick_rate`` allows; periodic mode
        ignores the request (the next tick comes anyway).
        """
        self.ticker.request()

    def request_tick_now(self) -> None:
        """Tick at once if ``max_tick_rate`` allows (the blackboard feed, after storing).

        See :meth:`bt_executive.ros.ticking.EventTicker.request_now`.
        """
        self.ticker.request_now()

    def _next_deadline(self) -> Optional[float]:
        """Return the earliest future ``wake_at`` of the tree (node-clock seconds)."""
        now = self.now_seconds()
        earliest = None
        for wake_at in self._timed:
            when = wake_at()
            if when is not None and when > now and (earliest is None or when < earliest):
                earliest = when
        return earliest

    # ---- loading and swapping --------------------------------------------------------

    def load(self, tree_file: str, tree_name: str = '') -> LoadedTree:
        """Load, validate, build and set up a tree without touching the running one.

        Raises:
            TreeError: with every problem found; nothing is left behind on the node.
        """
        document = Loader(self.registry).load(tree_file)
        specs, errors = parse_subscriptions(document.sections.get('subscriptions', []))
        for spec in specs:
            errors.extend(check_fields(spec))
        for tree in document.trees.values():
            for node in tree.root.walk():
                node_type = self.registry.get(node.type)
                if node_type is not None and node_type.ros:
                    errors.extend(Diagnostic(loc, message, node.path)
                                  for loc, message in leaves.check_leaf(node))
        if errors:
            raise TreeError(errors)
        feed = BlackboardFeed(self, specs, self.now_seconds)
        context = BuildContext(registry=self.registry, document=document,
                               lookup=feed.lookup, clock=self.now_seconds,
                               extras={'node': self}, log_error=self.get_logger().error)
        try:
            root = Builder(context).build(tree_name or None)
            name = document.tree(tree_name or None).name
            deadline = time.monotonic() + self._param('setup_timeout')
            for behaviour in root.iterate():
                behaviour.setup(node=self, timeout=max(0.0, deadline - time.monotonic()))
            if time.monotonic() > deadline:
                limit = self._param('setup_timeout')
                raise TreeError.single(SourceLocation(tree_file), 'setting up the leaves took '
                                       f'longer than setup_timeout {limit} s')
        except Exception as error:  # noqa: B902 - rejected: release what was made so far
            _release(context.nodes.values(), feed)
            if isinstance(error, TreeError):
                raise
            raise TreeError.single(SourceLocation(tree_file), f'setup failed: {error}') \
                from error
        return LoadedTree(document=document, name=name, root=root, feed=feed, file=tree_file)

    def _install(self, new: LoadedTree) -> None:
        """Stop the running tree (cancelling its goals) and start ``new``."""
        old = self.tree
        if old is not None:
            old.stop()
            self.retiring.append(old)
            self._retire()
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(new.document)
        self.tree = new
        self._revision += 1
        self.snapshots = SnapshotBuilder(
            new.root, tree_name=new.name, source_file=new.file, revision=self._revision,
            blackboard_keys=self._param('snapshot_keys'), lookup=new.feed.lookup,
            render_value=json_safe, document=new.document, session=self._session,
            clock=self.now_seconds)
        if self.groot2 is not None:  # a new tree UUID: connected viewers follow the swap
            self.groot2.on_install(new.root, tree_name=new.name, document=new.document,
                                   registry=self.registry)
        self.tick_count = 0
        self.terminated = None
        self.last_failure = ''
        self.last_status = Status.INVALID
        self._timed = new.timed()
        new.feed.watch(new.readers(), self.request_tick_now)
        self.get_logger().info(f"running tree '{new.name}' from {new.file}")
        self.publish_status(force=True)
        self.request_tick()

    def _retire(self) -> None:
        """Destroy stopped trees once their cancels are acknowledged (or shutdown_timeout)."""
        still, now = [], time.monotonic()
        for tree in self.retiring:
            tree.retired_at = tree.retired_at or now
            if tree.outstanding() and now - tree.retired_at < self._param('shutdown_timeout'):
                still.append(tree)
                continue
            if tree.outstanding():  # e.g. the server died: nobody will ever answer
                self.get_logger().error(f"tree '{tree.name}': goal cancels not acknowledged "
                                        'within shutdown_timeout; releasing it anyway')
            tree.destroy()
        self.retiring = still

    # ---- ticking ------------------------------------------------------------------

    def _tick(self) -> None:
        ticker = self.ticker
        latency = ticker.ticked(time.monotonic())
        if self.retiring:
            self._retire()
        tree = self.tree
        if tree is None or not self.running:
            self._publish_snapshot()
            return
        clock_start = self._tick_time = self.now_seconds()
        try:
            start = time.perf_counter()
            tree.feed.apply()
            storage = py_trees.blackboard.Blackboard.storage
            # event mode: what the tree writes this tick is progress too (see below)
            before = list(storage.items()) if ticker.event_driven else None
            self._contained_tick(tree)
            self.tick_count += 1
            self.tick_duration = time.perf_counter() - start
            self.timing.record(clock_start, self.tick_duration, latency)
            if self._first_tick_at is None:
                self._first_tick_at = process_age()
            status = tree.root.status
            changed = status is not self.last_status
            if status is Status.FAILURE and changed:
                self.last_failure = failure_reason(tree.root)
            self.last_status = status
            request = termination_requested(tree.root)
            if request is not None:
                tree.stop()
                clear_termination(tree.root)
                self.running = False
                self.terminated = f'{request.node_name}: {request.status.name.lower()} ' \
                    f'{request.reason}'.strip()
                self.get_logger().info(f'tree terminated by {self.terminated}')
                changed = True
            self.publish_status(force=changed)
            if before is not None and ticker is self.ticker and self.running:
                # not settled yet (a status moved or the tree wrote the blackboard): the next
                # tick may go further, e.g. a loop's next iteration; else sleep until an event
                settled = not self._moved and list(storage.items()) == before
                ticker.plan(again=not settled, deadline=self._next_deadline())
        finally:
            self._tick_time = None

    def _contained_tick(self, tree: LoadedTree) -> None:
        """Tick once; a node raising for the first time is guarded and the tick run again.

        Nodes of plugin types are guarded from the start; the rest only once they raise
        (bt_executive.core.builder.contain_fault), so an ordinary tick pays nothing for it.
        """
        for _ in range(MAX_CONTAINED_PER_TICK):
            try:
                self.snapshots.tick()  # tree.root.tick_once(), noting the behaviours ticked
                return
            except Exception as error:  # noqa: B902 - contained below or re-raised
                if not contain_fault(error, tree.root):
                    raise
        self.get_logger().error(f'{MAX_CONTAINED_PER_TICK} nodes raised in one tick; '
                                'the tick was abandoned')

    def status(self) -> dict[str, Any]:
        """Return the status published on ~/status."""
        tree = self.tree
        return {
            'tree': tree.name if tree else None,
            'file': tree.file if tree else None,
            'root_status': self.last_status.name,
            'tick_count': self.tick_count,
            'running': self.running,
            'terminated': self.terminated,
            'last_failure': self.last_failure,
            'tick_duration_ms': round(self.tick_duration * 1000.0, 3),
            'tick_mode': self._param('tick_mode'),
            'timing': self.timing.summary(),
            'callback_errors': self.callback_faults.count,
            'startup': {'imports_s': _rounded(IMPORTED_AT),
                        'first_tick_s': _rounded(self._first_tick_at)},
            'active': active_path(tree.root) if tree else [],
            'blackboard': self._blackboard_selection(),
        }

    def _blackboard_selection(self) -> dict[str, Any]:
        selection = {}
        storage = py_trees.blackboard.Blackboard.storage
        for key in self._param('status_keys'):
            if key and '/' + key in storage:
                selection[key] = json_safe(storage['/' + key])
        return selection

    def publish_status(self, *, force: bool = False) -> None:
        """Publish ~/status when something changed or the heartbeat is due."""
        if self.groot2 is not None:  # after every tick, pause, reset and swap
            self.groot2.after_tick()
        self._publish_snapshot()
        now = time.monotonic()
        if not force and now - self._last_status_publish < self._param('status_period'):
            return
        self._last_status_publish = now
        self._status_publisher.publish(String(data=json.dumps(self.status())))

    def _publish_snapshot(self) -> None:
        """Publish new transitions on ~/events; ~/snapshot on change or heartbeat."""
        builder = self.snapshots
        if builder is None:
            return
        heartbeat = self._param('snapshot_heartbeat')
        builder.tick_count = self.tick_count
        builder.set_executive({'node': self.get_fully_qualified_name(),
                               'running': self.running, 'terminated': self.terminated,
                               'last_failure': self.last_failure, 'heartbeat': heartbeat})
        snapshot = builder.update()
        events = builder.events(scan=False)  # update() just scanned
        self._moved = bool(events)
        if events:
            self._events_publisher.publish(String(data=to_json(builder.event_batch(events))))
        now = time.monotonic()
        if snapshot is None:
            if heartbeat <= 0.0 or now - self._last_snapshot_publish < heartbeat:
                return
            snapshot = builder.full()
        elif self._py_trees_ros_publisher is not None:
            behaviours = []
            for behaviour in builder.root.iterate():
                message = py_trees_ros_conversions.behaviour_to_msg(behaviour)
                message.is_active = behaviour.status is not Status.INVALID
                behaviours.append(message)
            self._py_trees_ros_publisher.publish(PyTreesRosTree(behaviours=behaviours))
        self._last_snapshot_publish = now
        self._snapshot_publisher.publish(String(data=builder.encode(snapshot)))

    # ---- runtime control -----------------------------------------------------------

    def pause(self) -> str:
        """Halt the tree (cancelling its goals) and stop ticking."""
        if self.tree is not None:
            self.tree.stop()
        self.running = False
        self.publish_status(force=True)
        return 'paused: tree halted, goals cancelled'

    def resume(self) -> str:
        """Start ticking again (the tree restarts from its root; the blackboard is kept)."""
        self.running = True
        self.terminated = None
        self.publish_status(force=True)
        self.request_tick()
        return 'resumed'

    def reset(self) -> str:
        """Halt the tree, restore the initial blackboard and limits, and tick again."""
        if self.tree is None:
            return 'no tree loaded'
        self.tree.stop()
        reset_limits(self.tree.root)
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(self.tree.document)
        self.tick_count = 0
        self.last_failure = ''
        self.terminated = None
        self.running = True
        self.publish_status(force=True)
        self.request_tick()
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

    def stop_tree(self, executor: Any, *, timeout: Optional[float] = None) -> bool:
        """Halt every tree and spin until goal cancels are acknowledged (bounded).

        Returns:
            True if every cancel was acknowledged within the timeout.
        """
        if timeout is None:
            timeout = self._param('shutdown_timeout')
        self.running = False
        if self.tree is not None:
            self.tree.stop()
            self.retiring.append(self.tree)
            self.tree = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pending = [f for tree in self.retiring for f in tree.outstanding()]
            if not pending:
                break
            executor.spin_once(timeout_sec=min(0.05, max(0.0, deadline - time.monotonic())))
        acknowledged = not any(tree.outstanding() for tree in self.retiring)
        if not acknowledged:
            self.get_logger().error('some goal cancels were not acknowledged within '
                                    f'{timeout} s')
        for tree in self.retiring:
            tree.destroy()
        self.retiring = []
        self.publish_status(force=True)
        return acknowledged

    def destroy_node(self) -> None:
        """Halt the tree (goal cancels are sent) and release everything, then destroy.

        ``main()`` calls :meth:`stop_tree` first. Destroying the node directly does the
        same when the node has an executor to spin (bounded by ``shutdown_timeout``);
        without one the cancels are sent but their delivery is not awaited.
        """
        if self.tree is not None or self.retiring:
            if self.executor is not None:
                try:
                    self.stop_tree(self.executor)
                except Exception as error:  # noqa: B902 - e.g. called from a callback
                    self.get_logger().warning(f'could not wait for goal cancels: {error}')
            for tree in ([self.tree] if self.tree is not None else []) + self.retiring:
                tree.stop()
                tree.destroy()
        self.tree = None
        self.retiring = []
        if self.ticker is not None:
            self.ticker.destroy()
            self.ticker = None
        if self.groot2 is not None:
            self.groot2.close()
            self.groot2 = None
        super().destroy_node()


def make_executor() -> Any:
    """Return the executor that spins the executive.

    rclpy's EventsExecutor (``rclpy.experimental``) where available: a wake-up costs about
    a third of the SingleThreadedExecutor's, which is most of an idle executive's CPU.
    ``BT_EXECUTIVE_EXECUTOR=single`` selects the SingleThreadedExecutor.
    """
    if os.environ.get('BT_EXECUTIVE_EXECUTOR', 'events') != 'single':
        try:
            from rclpy.experimental import EventsExecutor
        except ImportError:
            pass
        else:
            return EventsExecutor()
    return SingleThreadedExecutor()


class CallbackFaults:
    """Log exceptions raised by ROS callbacks (subscriptions, futures, timers, services).

    The executor hands a callback's exception to whoever spins it; the executive logs it and
    keeps spinning, so one broken callback (a plugin leaf's subscription, say) does not stop
    the tree or leave goals running. Each distinct error (type and raising line) is logged
    with its traceback once; repeats are counted, and logged again as one line at 10, 100,
    1000... occurrences. ``count`` (all of them) is in ~/status as ``callback_errors``.
    """

    def __init__(self, logger: Any) -> None:
        self._logger = logger
        self._seen: dict[tuple[str, str, int], int] = {}
        self.count = 0

    def report(self, error: BaseException) -> None:
        """Log ``error`` (just raised by a callback) as described above."""
        self.count += 1
        frames = traceback.extract_tb(error.__traceback__)
        last = frames[-1] if frames else None
        key = (type(error).__name__, last.filename if last else '', last.lineno if last else 0)
        times = self._seen[key] = self._seen.get(key, 0) + 1
        where = f'{key[1]}:{key[2]}' if last else 'unknown'
        if times == 1:
            text = ''.join(traceback.format_exception(error)).rstrip()
            self._logger.error(f'a ROS callback raised {key[0]}: {error} at {where}; the '
                               f'executive keeps running (logged once)\n{text}')
        elif math.log10(times).is_integer():
            self._logger.error(f'a ROS callback raised {key[0]} at {where} {times} times')


class SignalWaker:
    """Wake the executor when a signal arrives, so the main loop can block in spin_once.

    Python runs signal handlers only between bytecodes, never while ``spin_once`` waits
    in C. ``signal.set_wakeup_fd`` makes the interpreter write each signal to a pipe at
    once; a thread reading the pipe wakes the executor, which ends the wait, and the
    handler runs as ``spin_once`` returns.
    """

    def __init__(self, executor: Any) -> None:
        self._executor = executor
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._thread = threading.Thread(target=self._run, name='signal-waker', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                data = os.read(self._read, 64)
            except OSError:
                return
            if not data:
                return
            if data.strip(b'\xff'):  # signal numbers
                self._executor.wake()
            if b'\xff' in data:  # close() asks the thread to end
                return

    def close(self) -> None:
        """Restore the previous wakeup fd and end the thread."""
        signal.set_wakeup_fd(self._previous)
        os.write(self._write, b'\xff')
        self._thread.join(timeout=1.0)
        os.close(self._read)
        os.close(self._write)


class _StartInterrupted(BaseException):
    """A signal arrived while the executive was starting (not an Exception: never caught)."""


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 3)


def main(args: Optional[list[str]] = None) -> int:
    """Run the executive until SIGINT/SIGTERM/SIGHUP; cancel goals before exiting.

    Returns:
        0 on a normal end; 128 + the signal number when stopped by a signal.
    """
    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    received: list[int] = []
    starting = [True]

    def on_signal(signum: int, frame: Any) -> None:
        received.append(signum)
        if starting:  # loading or setting up the first tree: give that up at once
            starting.clear()
            raise _StartInterrupted()

    executive = None
    executor = make_executor()
    waker = None
    try:
        try:
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, on_signal)
            executive = Executive()
        except TreeError:
            return 1
        except _StartInterrupted:  # nothing ticked yet, so no goal was sent
            return 128 + received[0]
        finally:
            starting.clear()
        executor.add_node(executive)
        waker = SignalWaker(executor)
        while rclpy.ok() and not received:
            # a signal wakes this at once (SignalWaker); the timeout is only a safety net
            try:
                executor.spin_once(timeout_sec=1.0)
            except ExternalShutdownException:
                raise
            except Exception as error:  # a callback raised; the executor carries on
                executive.callback_faults.report(error)
    except ExternalShutdownException:
        pass
    finally:
        if waker is not None:
            waker.close()
        if executive is not None:
            executive.stop_tree(executor)  # goals cancelled: what matters is done
        # Under heavy load (50 ROS processes stopping at once) rclpy's EventsExecutor
        # shutdown was seen to block for good; nothing is left running on the robot by now,
        # so a bounded wait ends the process with its exit status instead of hanging.
        watchdog = ExitWatchdog(CLEANUP_TIMEOUT, 128 + received[0] if received else 0)
        if executive is not None:
            executor.remove_node(executive)
            executive.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
        watchdog.cancel()
    return 128 + received[0] if received else 0


if __name__ == '__main__':
    sys.exit(main())
