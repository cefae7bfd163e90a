# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""py_trees_ros' snapshot streams, so that its tools connect to the executive unmodified.

py_trees_ros' ``py-trees-tree-watcher`` and py_trees_ros_viewer find a tree by its
snapshot-stream services, open a stream of their own, read
``py_trees_ros_interfaces/msg/BehaviourTree`` snapshots from it and close it when they
leave. :class:`SnapshotStreams` serves that protocol on the executive's node:

- ``~/snapshot_streams/open`` (``OpenSnapshotStream``): makes a latched topic for the
  caller and answers its full name: the requested name (absolute as given, ``~/...``
  under the node, a relative name under ``~/snapshot_streams/``), or
  ``~/snapshot_streams/_snapshots_<n>`` when none is asked for. The parameters say what a
  snapshot carries (``blackboard_data``: the keys on the visited path with their values;
  ``blackboard_activity``: the tick's writes) and ``snapshot_period`` how often it is
  repeated while nothing changes (``inf``: only on changes).
- ``~/snapshot_streams/reconfigure`` and ``~/snapshot_streams/close``: change or end a
  stream by its topic name (``result`` false for an unknown one).
- ``~/snapshots``: the default stream, configured by the ROS parameters
  ``default_snapshot_stream`` (on), ``default_snapshot_period`` (2 s),
  ``default_snapshot_blackboard_data`` (true), ``default_snapshot_blackboard_activity``
  (false), as in py_trees_ros (whose default stream is off by default; here it stays on,
  as the executive always published it).

It is an observer of the tree host's tick records (``on_tick``), like every other
viewer: a snapshot is made from what the record says (ticked nodes, changes, writes,
timing) and the node table, at most once per tick however many streams there are
(:mod:`bt_executive.ros.stream_messages`). A stream publishes after a tick that changed a
status, a feedback message or the tree (``changed`` true), after a tick that wrote a key
it shows, after a stop (pause, reset, swap), and otherwise every ``snapshot_period``
seconds; and only while it has a subscriber. A subscriber that joins gets the current
snapshot at once (``changed`` true), also when the tree is paused or idle: the
subscriber counts are looked at after each tick and every :data:`JOIN_POLL` seconds.
The streams ask
the middleware for no events (bt_executive/ros/entities.py: a publisher with a
``matched`` handler crashed the executive when a viewer closed its stream).

A stream opened through ``~/snapshot_streams/open`` that has had no subscriber for
``snapshot_stream_timeout`` seconds (60) is closed, with one log line: its viewer was
killed without closing it (py_trees_ros' tools close theirs when they exit normally). The
default stream stays.

The message packages are optional (not on PyPI): :func:`start` imports them and makes
everything, and whatever goes wrong (not installed, a package whose type support cannot
be loaded, a missing type) leaves the executive running without the streams. Either way
it logs one line saying whether the streams are on, and why not.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Callable, Optional

from bt_executive.observe.record import TickRecord
from bt_executive.ros.stream_messages import Interfaces, TickStatistics, TreeMessages
from bt_executive.ros.subscriptions import qos_profile
import py_trees

#: The services, under the node's private namespace.
SERVICES = ('snapshot_streams/open', 'snapshot_streams/close',
            'snapshot_streams/reconfigure')

#: The default stream's topic (under the node's private namespace).
DEFAULT_TOPIC = '~/snapshots'

#: py_trees_ros publishes a periodic snapshot once this share of the period has passed.
PERIOD_SLACK = 0.98

#: Seconds between two looks at the streams' subscriber counts (a joining subscriber
#: gets the current snapshot; a stream nobody reads any more is closed).
JOIN_POLL = 0.25

#: Seconds an opened stream may go without a subscriber before it is closed (its viewer
#: went away without closing it): the default of ``snapshot_stream_timeout``. The default
#: stream is never closed this way.
ORPHAN_TIMEOUT = 60.0

#: The ROS parameters of the default stream: name -> (default, description).
PARAMETERS: dict[str, tuple[Any, str]] = {
    'default_snapshot_stream': (True, 'publish the default py_trees_ros snapshot stream '
                                'on ~/snapshots'),
    'default_snapshot_period': (2.0, 'seconds between ~/snapshots repeats while nothing '
                                'changes (inf: only on changes)'),
    'default_snapshot_blackboard_data': (True, '~/snapshots carries the blackboard keys '
                                         'on the visited path'),
    'default_snapshot_blackboard_activity': (False, '~/snapshots carries the blackboard '
                                             'writes of the tick'),
    'snapshot_stream_timeout': (60.0, 'seconds a stream opened through '
                                '~/snapshot_streams/open may go without a subscriber '
                                'before it is closed (its viewer left without closing it)'),
}


class Unavailable(Exception):
    """The streams cannot be served here; the message says why."""


@dataclasses.dataclass
class StreamParameters:
    """What a stream carries and how often (``SnapshotStreamParameters``).

    Attributes:
        blackboard_data: the keys on the visited path, with their values
        blackboard_activity: the tick's blackboard writes
        period: seconds between snapshots while nothing changes (inf: only on changes)
    """

    blackboard_data: bool = False
    blackboard_activity: bool = False
    period: float = math.inf

    @classmethod
    def from_message(cls, message: Any) -> StreamParameters:
        """Return the parameters of a request (a NaN or negative period: inf, 0)."""
        period = float(message.snapshot_period)
        if math.isnan(period):
            period = math.inf
        return cls(blackboard_data=bool(message.blackboard_data),
                   blackboard_activity=bool(message.blackboard_activity),
                   period=max(0.0, period))


@dataclasses.dataclass
class Stream:
    """One open snapshot stream."""

    topic: str
    publisher: Any
    parameters: StreamParameters
    last_publish: Optional[float] = None  # monotonic seconds
    published: int = 0
    subscribers: int = 0  # the subscriber count at the last look
    unread_since: Optional[float] = None  # monotonic seconds since it has had none


def load_interfaces() -> Interfaces:
    """Import py_trees_ros_interfaces and the packages it uses; load their type support.

    Raises:
        Unavailable: not installed, or installed but not usable (a failing import, a
            missing type, type support that cannot be loaded), with the reason.
    """
    try:
        import py_trees_ros_interfaces.msg as msg
    except ModuleNotFoundError as error:
        if error.name in ('py_trees_ros_interfaces', 'py_trees_ros_interfaces.msg'):
            raise Unavailable('py_trees_ros_interfaces is not installed') from None
        raise Unavailable(_failure('cannot import py_trees_ros_interfaces', error)) from None
    except Exception as error:  # noqa: B902 - a broken package must not stop the executive
        raise Unavailable(_failure('cannot import py_trees_ros_interfaces', error)) from None
    try:  # its own types first: a broken package is reported as such
        import py_trees_ros_interfaces.srv as srv
        from rclpy.type_support import check_for_type_support
        own = Interfaces(msg=msg, srv=srv, uuid=None, key_value=None, time=None)
        for message_type in own.message_types():
            if message_type is not None:
                check_for_type_support(message_type)
        from builtin_interfaces.msg import Time
        from diagnostic_msgs.msg import KeyValue
        from unique_identifier_msgs.msg import UUID
        for message_type in (Time, KeyValue, UUID):
            check_for_type_support(message_type)
        interfaces = Interfaces(msg=msg, srv=srv, uuid=UUID, key_value=KeyValue, time=Time)
    except Exception as error:  # noqa: B902 - e.g. UnsupportedTypeSupport, AttributeError
        raise Unavailable(_failure('py_trees_ros_interfaces cannot be used', error)) from None
    return interfaces


def _failure(what: str, error: BaseException) -> str:
    """Describe ``error`` on one line."""
    text = ' '.join(str(error).split()) or '(no message)'
    return f'{what}: {type(error).__name__}: {text}'


def start(node: Any, tree: Callable[[], Any], *,
          interfaces: Optional[Interfaces] = None) -> Optional[SnapshotStreams]:
    """Serve the snapshot streams on ``node`` if py_trees_ros_interfaces is usable.

    Logs one line: the streams are on (with the services and the default stream), or off
    and why. Never raises (but for BaseExceptions such as KeyboardInterrupt).

    Args:
        node: the executive's node
        tree: returns the tree host's current tree (a LoadedTree, or None)
        interfaces: the message classes (default: import the real packages)

    Returns:
        The streams (an observer to add to each new tree's runner), or None.
    """
    logger = node.get_logger()
    streams = None
    try:
        if interfaces is None:
            interfaces = load_interfaces()
        streams = SnapshotStreams(node, interfaces, tree)
    except Exception as error:  # noqa: B902 - whatever happened, run on without
        reason = str(error) if isinstance(error, Unavailable) else \
            _failure('cannot serve them', error)
        if reason.endswith('is not installed'):  # the usual case with pip-only installs
            logger.info(f'py_trees_ros snapshot streams: off ({reason})')
        else:
            logger.warning(f'py_trees_ros snapshot streams: off ({reason})')
        return None
    default = streams.default_topic if streams.default_stream() is not None else 'off'
    logger.info('py_trees_ros snapshot streams: on (services '
                f'{streams.service_prefix}/{{open,close,reconfigure}}; default stream '
                f'{default})')
    return streams


class SnapshotStreams:
    """Serve py_trees_ros' snapshot-stream services and publish the streams.

    Args:
        node: the node (publishers, services and parameters are made on it)
        interfaces: the message classes
        tree: returns the tree host's current tree (a LoadedTree, or None)
        clock: monotonic seconds, for the periods
        storage: returns the blackboard storage
    """

    def __init__(self, node: Any, interfaces: Interfaces, tree: Callable[[], Any], *,
                 clock: Callable[[], float] = time.monotonic,
                 storage: Callable[[], Any] = lambda: py_trees.blackboard.Blackboard.storage
                 ) -> None:
        self.node = node
        self.interfaces = interfaces
        self._tree = tree
        self._clock = clock
        self._storage = storage
        self.messages = TreeMessages(interfaces)
        self.statistics = TickStatistics(interfaces)
        self.streams: dict[str, Stream] = {}
        self._counter = 0
        self._last: Optional[TickRecord] = None
        self._last_keys: set[str] = set()
        self._structure: Optional[tuple[int, int]] = None
        self._services: list[Any] = []
        self._poll: Any = None
        self.orphan_timeout = ORPHAN_TIMEOUT
        self._parameters_callback: Any = None
        self.closed = False
        self.error: Optional[str] = None
        self.default_topic = self.expand(DEFAULT_TOPIC)
        self.service_prefix = self.expand('~/snapshot_streams')
        try:
            srv = interfaces.srv
            for name, kind, handler in (
                    (SERVICES[0], srv.OpenSnapshotStream, self._srv_open),
                    (SERVICES[1], srv.CloseSnapshotStream, self._srv_close),
                    (SERVICES[2], srv.ReconfigureSnapshotStream, self._srv_reconfigure)):
                self._services.append(node.create_service(kind, f'~/{name}', handler))
            from rclpy.clock import Clock, ClockType
            self._poll = node.create_timer(JOIN_POLL, self._on_poll,
                                           clock=Clock(clock_type=ClockType.STEADY_TIME))
            self._declare_parameters()
        except BaseException:
            self.destroy()
            raise

    # ---- the streams ---------------------------------------------------------------

    def expand(self, topic: str) -> str:
        """Return the full name of a requested topic, as py_trees_ros expands it.

        Raises:
            ValueError: the name is not a valid topic name.
        """
        from rclpy.expand_topic_name import expand_topic_name
        if not topic.startswith(('/', '~')):
            topic = '~/snapshot_streams/' + topic
        try:
            return str(expand_topic_name(topic, self.node.get_name(),
                                         self.node.get_namespace()))
        except Exception as error:  # noqa: B902 - rclpy's invalid-name exceptions
            raise ValueError(f"invalid topic name '{topic}': {error}") from None

    def open(self, topic: str, parameters: StreamParameters) -> str:  # noqa: A003
        """Open a stream (``''``: a new hidden name) and return its full topic name.

        A stream already open on that topic gets the new parameters.

        Raises:
            ValueError: the name is not a valid topic name.
        """
        if not topic:
            while True:
                topic = self.expand(f'~/snapshot_streams/_snapshots_{self._counter}')
                self._counter += 1
                if topic not in self.streams:
                    break
        else:
            topic = self.expand(topic)
        stream = self.streams.get(topic)
        if stream is not None:
            stream.parameters = parameters
            return topic
        from bt_executive.ros import entities
        stream = Stream(topic, None, parameters, unread_since=self._clock())
        stream.publisher = entities.publisher(self.node, self.interfaces.msg.BehaviourTree,
                                              topic, qos_profile('latched'))
        self.streams[topic] = stream
        return topic

    def close(self, topic: str) -> bool:
        """Close the stream on ``topic`` (a full name); False if there is none."""
        from bt_executive.ros import entities
        stream = self.streams.pop(topic, None)
        if stream is None:
            return False
        entities.destroy(self.node, stream.publisher)
        return True

    def reconfigure(self, topic: str, parameters: StreamParameters) -> bool:
        """Give the stream on ``topic`` new parameters; False if there is none."""
        stream = self.streams.get(topic)
        if stream is None:
            return False
        stream.parameters = parameters
        return True

    def default_stream(self) -> Optional[Stream]:
        """Return the default stream (``~/snapshots``) if it is open."""
        return self.streams.get(self.default_topic)

    def destroy(self) -> None:
        """Close every stream, remove the services and stop following the parameters."""
        self.closed = True
        if self._parameters_callback is not None:
            self.node.remove_on_set_parameters_callback(self._parameters_callback)
            self._parameters_callback = None
        from bt_executive.ros import entities
        for topic in list(self.streams):
            self.close(topic)
        for service in self._services:
            entities.destroy(self.node, service)
        self._services = []
        entities.destroy(self.node, self._poll)
        self._poll = None

    # ---- services ------------------------------------------------------------------

    def _srv_open(self, request: Any, response: Any) -> Any:
        try:
            response.topic_name = self.open(request.topic_name,
                                            StreamParameters.from_message(request.parameters))
        except ValueError as error:  # answered with an empty name
            self.node.get_logger().warning(f'snapshot_streams/open: {error}')
            response.topic_name = ''
        return response

    def _srv_close(self, request: Any, response: Any) -> Any:
        response.result = self.close(request.topic_name)
        return response

    def _srv_reconfigure(self, request: Any, response: Any) -> Any:
        response.result = self.reconfigure(
            request.topic_name, StreamParameters.from_message(request.parameters))
        return response

    # ---- parameters of the default stream ------------------------------------------

    def _declare_parameters(self) -> None:
        from rcl_interfaces.msg import ParameterDescriptor
        for name, (default, description) in PARAMETERS.items():
            if not self.node.has_parameter(name):
                self.node.declare_parameter(name, default,
                                            ParameterDescriptor(description=description))
        self._parameters_callback = self._on_set_parameters
        self.node.add_on_set_parameters_callback(self._parameters_callback)
        self._apply_parameters({name: self.node.get_parameter(name).value
                                for name in PARAMETERS})

    def _on_set_parameters(self, parameters: list[Any]) -> Any:
        from rcl_interfaces.msg import SetParametersResult
        changes = {parameter.name: parameter.value for parameter in parameters
                   if parameter.name in PARAMETERS}
        period = changes.get('default_snapshot_period')
        if period is not None and (math.isnan(period) or period < 0.0):
            return SetParametersResult(successful=False, reason='default_snapshot_period '
                                       f'must be at least 0 (inf: only on changes), got '
                                       f'{period}')
        timeout = changes.get('snapshot_stream_timeout')
        if timeout is not None and not timeout > 0.0:
            return SetParametersResult(successful=False, reason='snapshot_stream_timeout '
                                       f'must be more than 0 (inf: never), got {timeout}')
        if changes:
            values = {name: self.node.get_parameter(name).value for name in PARAMETERS}
            values.update(changes)
            self._guarded(lambda: self._apply_parameters(values))
        return SetParametersResult(successful=True)

    def _apply_parameters(self, values: dict[str, Any]) -> None:
        """Open, reconfigure or close the default stream after the parameters."""
        if self.closed:
            return
        self.orphan_timeout = float(values['snapshot_stream_timeout'])
        if not values['default_snapshot_stream']:
            self.close(self.default_topic)
            return
        period = float(values['default_snapshot_period'])
        parameters = StreamParameters(
            blackboard_data=bool(values['default_snapshot_blackboard_data']),
            blackboard_activity=bool(values['default_snapshot_blackboard_activity']),
            period=math.inf if math.isnan(period) else max(0.0, period))
        self.open(self.default_topic, parameters)

    # ---- publishing ----------------------------------------------------------------

    def on_tick(self, record: TickRecord) -> None:
        """Publish the streams that are due after ``record``'s tick (or stop)."""
        self._guarded(lambda: self._on_tick(record))

    def _on_tick(self, record: TickRecord) -> None:
        self.statistics.add(record)
        self._last = record
        tree = self._tree()
        if tree is None or not self.streams:
            return
        tracker = tree.runner.tracker
        structure = (id(tracker), tracker.structure_version)
        changed = bool(record.changes) or record.stopped or structure != self._structure
        self._structure = structure
        now = self._clock()
        due = [stream for stream in self.streams.values()
               if (self._joined(stream, now) or self._due(stream, record, changed, now))
               and stream.subscribers > 0]
        if due:
            self._publish(due, tree, record, changed)

    def _joined(self, stream: Stream, now: float) -> bool:
        """Look at ``stream``'s subscriber count; tell whether a subscriber joined."""
        count = stream.publisher.get_subscription_count()
        joined = count > stream.subscribers
        stream.subscribers = count
        if count > 0:
            stream.unread_since = None
        elif stream.unread_since is None:
            stream.unread_since = now
        return joined

    def _on_poll(self) -> None:
        """Publish to streams a subscriber joined; close the ones nobody reads any more."""
        self._guarded(self._poll_streams)

    def _poll_streams(self) -> None:
        now = self._clock()
        for stream in list(self.streams.values()):
            if self._joined(stream, now):
                self._publish_current(stream)
            elif stream.unread_since is not None and stream.topic != self.default_topic \
                    and now - stream.unread_since >= self.orphan_timeout:
                self.close(stream.topic)
                self.node.get_logger().info(
                    f'py_trees_ros snapshot stream {stream.topic} closed: no subscriber '
                    f'for {self.orphan_timeout:g} s (its viewer left without closing it)')

    def _due(self, stream: Stream, record: TickRecord, changed: bool, now: float) -> bool:
        """Tell whether ``stream`` publishes after this record."""
        parameters = stream.parameters
        if changed or stream.last_publish is None:
            return True
        if record.writes and (parameters.blackboard_data or parameters.blackboard_activity):
            return True
        return now - stream.last_publish >= PERIOD_SLACK * parameters.period

    def _publish_current(self, stream: Stream) -> None:
        """Publish the current snapshot on ``stream`` alone (a subscriber joined it)."""
        tree = self._tree()
        if tree is None:
            return
        record = self._last or TickRecord(tick=tree.runner.tick_count, time=0.0)
        self._publish([stream], tree, record, True)

    def _publish(self, streams: list[Stream], tree: Any, record: TickRecord,
                 changed: bool) -> None:
        """Make the snapshot once and publish it on ``streams``."""
        tracker = tree.runner.tracker
        if not tracker.order:
            return
        msg = self.interfaces.msg
        behaviours = self.messages.behaviours(tracker, record.ticked)
        statistics = self.statistics.message()
        storage = self._storage()
        keys: Optional[set[str]] = None
        now = self._clock()
        for stream in streams:
            message = msg.BehaviourTree()
            message.behaviours = behaviours
            message.changed = changed or stream.last_publish is None
            message.statistics = statistics
            if stream.parameters.blackboard_data:
                if keys is None:
                    keys = self.messages.visited_keys(tracker, record) \
                        if record.ticked or record.writes else self._last_keys
                    self._last_keys = keys
                message.blackboard_on_visited_path = self.messages.blackboard(keys, storage)
            if stream.parameters.blackboard_activity:
                message.blackboard_activity = self.messages.activity(record, storage,
                                                                     tree.name)
            stream.publisher.publish(message)
            stream.last_publish = now
            stream.published += 1

    def _guarded(self, action: Callable[[], None]) -> None:
        """Run ``action``; an error turns the streams off (logged once) instead of raising."""
        if self.error is not None:
            return
        try:
            action()
        except Exception as error:  # noqa: B902 - a viewer must never stop the tree
            self.error = _failure('error', error)
            self.node.get_logger().error(
                f'py_trees_ros snapshot streams: off after an {self.error}')
            try:
                self.destroy()
            except Exception:  # noqa: B902 - the node may be going away
                pass


__all__ = ['PARAMETERS', 'SERVICES', 'SnapshotStreams', 'Stream', 'StreamParameters',
           'Unavailable', 'load_interfaces', 'start']
