# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ``TopicAction`` leaf: a goal run over plain topics (publish, follow, cancel).

Its declaration is :data:`~bt_executive.nodes.ros_leaf_types.TOPIC_ACTION` (declared without
ROS, so that offline tools know it); its behaviour, how it is built and its load checks
are here.
"""

from __future__ import annotations

import collections
import functools
import importlib.util
from typing import Any, Optional

from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.errors import ParameterError, quoted
from bt_executive.core.expressions import EvaluationError, Expression
from bt_executive.core.spec import Dynamic, NodeSpec
from bt_executive.nodes.ros_leaf_types import TOPIC_ACTION
from bt_executive.ros import entities, interfaces
from bt_executive.ros.leaves.backoff import delay_after
from bt_executive.ros.leaves.common import DiscoveryWait, LeafHost, Lookup, lookup_with, \
    MAX_PENDING_MESSAGES, publisher_gids, RosLeaf, seconds_text, SERVER_POLL_PERIOD, \
    ServerWatch, store_result, subscriber_gids
from bt_executive.ros.leaves.interface_checks import check_interface, checked_expression, \
    each, LeafInterface, Problem, read_problems, template, Written
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.subscriptions import qos_profile
from py_trees.behaviour import Behaviour
from py_trees.common import Status


class TopicActionLeaf(RosLeaf):
    """Run a goal over plain topics: publish it, follow a status topic, cancel on halt.

    For robots (and the built-in sim) whose goal interface is topics rather than a ROS
    action. The goal is published once a subscriber is connected (else FAILURE after
    ``server_timeout``); if ``stamp_field`` names a time field of the goal it is set to
    the node clock, which makes the goal identifiable in status messages. Each status
    message (``msg``) that satisfies ``match`` (may also read ``goal``, the sent goal) is
    tested: ``succeeded`` -> SUCCESS, ``failed`` -> FAILURE, otherwise RUNNING. When the
    leaf is halted while its goal runs, or ``timeout`` passes, the ``cancel`` message is
    published on ``cancel_topic``; the ``cancel`` fields may read ``goal`` (the sent goal),
    so a cancel names the goal it is for. The goal fails when its server goes away for
    ``lost_timeout``: the subscribers of the goal topic, or the publishers of the status
    topic, that were there when the goal was sent left the ROS graph (see
    :class:`ServerWatch`).

    A goal published as soon as the goal topic has a subscriber can still be lost: the
    publisher sees the server's subscription before that subscription has seen the
    publisher (DDS discovery runs on both sides), and a volatile sample sent in between
    reaches nobody. With ``resend_timeout`` > 0, the same goal (the same stamp) is
    published again while no status message about it (one ``match`` accepts) has arrived:
    after ``resend_timeout``, then twice as long each time, at most :data:`RESEND_MAX`
    seconds apart. The server must take a repeated goal as the goal it already has (the
    built-in sim does, by its stamp).

    ROS Publishers:
        <goal_topic> (``goal_type``, reliable): the goal, once per run (again while no
        status speaks of it, with ``resend_timeout``)
        <cancel_topic> (``cancel_type``, reliable): the cancel message; only when
        ``cancel_topic`` is set

    ROS Subscribers:
        <status_topic> (``status_type``, ``status_qos`` at least :data:`STATUS_DEPTH`
        deep): status messages, kept while a
        goal runs (at most :data:`MAX_PENDING_MESSAGES` between two ticks); each
        matching one is stored to ``status_key``
    """

    declaration = TOPIC_ACTION
    #: the parameters that name and fill the goal, for the load checks (the expressions
    #: are checked when the leaf is built: the status type may be a default)
    interface = LeafInterface(kind='msg', type_param='goal_type', name_param='goal_topic',
                              mapping_param='goal',
                              more_names=('status_topic', 'cancel_topic'),
                              writes={'status_key': Written('status_type', 'msg')})
    #: a run that fails holds the next one back (bt_executive/ros/leaves/backoff.py)
    backs_off = True

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf: resolve its message types, check the goal, cancel and tests.

        Raises:
            ValueError: if a type is unknown, or the goal, the cancel, the stamp field or
                the fields the tests read do not fit the types.
        """
        goal = template(params, 'goal', interfaces.resolve(params['goal_type'], kind='msg'))
        cancel = None
        if params.get('cancel_topic'):
            cancel = template(params, 'cancel',
                              interfaces.resolve(params['cancel_type'], kind='msg'))
        stamp_field = params.get('stamp_field') or None
        if stamp_field:
            _check_time_field(goal.msg_class, stamp_field)
        status_type = interfaces.resolve(params['status_type'], kind='msg')
        roots = {'msg': status_type, 'goal': goal.msg_class}
        expressions = each(*(functools.partial(checked_expression, params, key, roots)
                             for key in ('match', 'succeeded', 'failed')))
        leaf = cls(
            name, goal=goal, goal_topic=params['goal_topic'],
            status_type=status_type,
            status_topic=params['status_topic'], status_qos=params['status_qos'],
            match=_Named(expressions[0]), succeeded=_Named(expressions[1]),
            failed=_Named(expressions[2]), cancel=cancel,
            cancel_topic=params.get('cancel_topic') or None, stamp_field=stamp_field,
            status_key=params.get('status_key'), server_timeout=float(params['server_timeout']),
            timeout=float(params['timeout']), lookup=ctx.lookup,
            lost_timeout=float(params['server_lost_timeout']),
            resend_timeout=float(params['resend_timeout']))
        names = goal.names() | ((cancel.names() - {'goal'}) if cancel else frozenset())
        for expression in expressions:
            names |= expression.names - {'msg', 'goal'}
        ctx.declare(leaf, reads=names)
        return leaf

    @classmethod
    def check(cls, spec: NodeSpec) -> list[Problem]:
        """Check the leaf's node when the file loads: the goal, stamp field and cancel."""
        return check_interface(spec, cls.interface,
                               more=functools.partial(_stamp_and_cancel_problems, spec))

    def __init__(self, name: str, *, goal: MessageTemplate, goal_topic: str,
                 status_type: type, status_topic: str, status_qos: str,
                 match: '_Named', succeeded: '_Named', failed: '_Named',
                 cancel: Optional[MessageTemplate], cancel_topic: Optional[str],
                 stamp_field: Optional[str], status_key: Optional[str],
                 server_timeout: float, timeout: float, lookup: Lookup,
                 lost_timeout: float = 1.0, resend_timeout: float = 0.0) -> None:
        super().__init__(name, kind='TopicAction', lookup=lookup)
        self.goal = goal
        self.goal_topic = goal_topic
        self.status_type = status_type
        self.status_topic = status_topic
        self.status_qos = status_qos
        self.match = match
        self.succeeded = succeeded
        self.failed = failed
        self.cancel = cancel
        self.cancel_topic = cancel_topic
        self.stamp_field = stamp_field
        self.status_key = status_key
        self.server_timeout = server_timeout
        self.timeout = timeout
        self.lost_timeout = lost_timeout
        self.resend_timeout = resend_timeout
        self._watch: Optional[ServerWatch] = None
        self.goal_publisher: Any = None
        self.cancel_publisher: Any = None
        self.subscription: Any = None
        self._statuses: collections.deque = collections.deque(maxlen=MAX_PENDING_MESSAGES)
        self._sent: Any = None
        self._started = 0.0
        self._server_wait = DiscoveryWait(self.server_timeout, self.steady)
        self._sent_at = 0.0
        #: a status message about the sent goal has arrived (no resend from then on)
        self._heard = False
        self._resend_at = 0.0
        self._sends = 0  # of the goal in flight (resends included)

    def create(self, node: Any) -> None:
        """Create the goal and cancel publishers and the status subscription."""
        # no matched event (ros/entities.py): a leaf waiting for a subscriber polls
        self.goal_publisher = entities.publisher(
            node, self.goal.msg_class, self.goal_topic, qos_profile('reliable'))
        if self.cancel is not None and self.cancel_topic:
            self.cancel_publisher = entities.publisher(
                node, self.cancel.msg_class, self.cancel_topic, qos_profile('reliable'))
        self.subscription = entities.subscription(
            node, self.status_type, self.status_topic, self.own(self._on_status),
            status_qos(self.status_qos))
        goal_topic, status_topic = self.goal_publisher.topic_name, self.subscription.topic_name
        self._watch = ServerWatch(
            self.lost_timeout, lambda: self.goal_publisher.get_subscription_count() > 0,
            [(f"no subscriber on '{goal_topic}'", lambda: subscriber_gids(node, goal_topic)),
             (f"nobody publishes '{status_topic}'",
              lambda: publisher_gids(node, status_topic))],
            steady=self.steady)

    def destroy(self) -> None:
        """Destroy the publishers and the subscription."""
        for entity in (self.goal_publisher, self.cancel_publisher, self.subscription):
            entities.destroy(self.node, entity)
        self.goal_publisher = self.cancel_publisher = self.subscription = None
        self._watch = None

    def release(self) -> None:
        """Cancel a goal still running when the leaf is shut down."""
        self._send_cancel()

    def _on_status(self, msg: Any) -> None:
        if self._sent is not None:
            self._statuses.append(msg)
            if self.status_key or self._decides(msg):
                self.wake()

    def _decides(self, msg: Any) -> bool:
        """Tell whether a status message ends the goal (or cannot be evaluated)."""
        try:
            lookup = lookup_with('goal', self._sent, lookup_with('msg', msg, self.lookup))
            return bool(self.match(lookup) and (self.failed(lookup) or self.succeeded(lookup)))
        except EvaluationError:
            return True

    def wake_at(self) -> Optional[float]:
        """Return the subscriber-wait or result deadline while the leaf runs."""
        if self.status is not Status.RUNNING or self.node is None:
            return None
        now = self.now()
        if self._sent is None:  # waiting for a subscriber: look again soon
            return min(self._server_wait.wake_at(now) or now, now + SERVER_POLL_PERIOD)
        times = [self._watch.wake_at(now) if self._watch is not None else None,
                 self._sent_at + self.timeout if self.timeout > 0 else None,
                 self._resend_at if self._resending() else None]
        return min((when for when in times if when is not None), default=None)

    def initialise(self) -> None:
        """Start a new run."""
        self._sent = None
        self._statuses.clear()
        self._started = self.now() if self.node is not None else 0.0
        self._server_wait.start(self._started)

    def terminate(self, new_status: Status) -> None:
        """Publish the cancel message when halted while the goal runs."""
        if new_status is Status.INVALID:
            self._send_cancel()
        self._sent = None
        self._statuses.clear()
        if self._watch is not None:
            self._watch.stop()

    def _send_cancel(self) -> None:
        if self._sent is None or self.cancel_publisher is None:
            return
        try:
            self.cancel_publisher.publish(
                self.cancel.build(lookup_with('goal', self._sent, self.lookup)))
            self.note_sent()
            self.note(f'cancel sent on {self.cancel_topic}')
        except ValueError as error:
            self.node.get_logger().error(f'{self.name}: cannot cancel: {error}')
        self._sent = None

    def step(self) -> Status:
        """Send the goal, then follow the status messages."""
        now = self.now()
        if self._sent is None:
            return self._send(now)
        if self.timeout > 0 and now - self._sent_at >= self.timeout:
            self._send_cancel()
            return self.fail(f'no result after {seconds_text(self.timeout)} s')
        while self._statuses:
            msg = self._statuses.popleft()
            try:
                lookup = lookup_with('goal', self._sent, lookup_with('msg', msg, self.lookup))
                if not self.match(lookup):
                    continue
                self._heard = True
                if self.status_key:
                    store_result(self.status_key, msg)
                if self.failed(lookup):
                    self._sent = None
                    return self.fail(f'goal failed: {self.failed.text} '
                                     f'({_describe_status(msg)})')
                if self.succeeded(lookup):
                    self._sent = None
                    self.feedback_message = f'goal succeeded on {self.status_topic}'
                    return Status.SUCCESS
            except EvaluationError as error:
                return self.fail(f'cannot evaluate the status: {error.message}')
        gone = self._watch.lost(now)
        if gone is not None:
            self._sent = None
            return self.fail(f'the server went away while the goal was running ({gone}: '
                             'it left the ROS graph)')
        if self._resending() and now >= self._resend_at:
            return self._send_again(now)
        return self.running(f'goal running on {self.goal_topic}')

    def _resending(self) -> bool:
        return self.resend_timeout > 0 and not self._heard

    def _resend_delay(self, sends: int) -> float:
        """Return the wait after the ``sends``-th send: doubling, at most RESEND_MAX."""
        return delay_after(sends, self.resend_timeout, max(RESEND_MAX, self.resend_timeout))

    def _send_again(self, now: float) -> Status:
        """Publish the sent goal again: no status message has spoken of it yet."""
        waited = self._resend_delay(self._sends)
        self._sends += 1
        self._resend_at = now + self._resend_delay(self._sends)
        self.goal_publisher.publish(self._sent)
        self.note_sent()
        text = (f'goal sent again on {self.goal_topic}: no status about it after '
                f'{seconds_text(waited)} s')
        self.note(text)
        return self.running(text)

    def _send(self, now: float) -> Status:
        if self.goal_publisher.get_subscription_count() == 0:
            if self._server_wait.over(now):
                return self.fail(f"nobody subscribes to '{self.goal_publisher.topic_name}' "
                                 f'after {seconds_text(self.server_timeout)} s')
            return self.running(f'waiting for a subscriber on {self.goal_topic}')
        try:
            goal = self.goal.build(self.lookup)
            if self.stamp_field:
                _set_field(goal, self.stamp_field, goal_stamp(self.host))
        except ValueError as error:
            return self.fail(str(error))
        self._statuses.clear()
        self._sent = goal
        self._sent_at = now
        self._heard = False
        self._sends = 1
        self._resend_at = now + self._resend_delay(1)
        self._watch.start(now)
        self.goal_publisher.publish(goal)
        self.note_sent()
        self.note(f'goal sent on {self.goal_topic}')
        return self.running(f'goal sent on {self.goal_topic}')


#: Seconds: the longest wait between two sends of a goal no status message speaks of.
RESEND_MAX = 10.0

#: Status messages the status subscription keeps until they are taken: a status topic
#: carries several goals' statuses (a replaced goal's last right after its successor's
#: first), and a reader one deep (the ``latched`` profile) would keep only the later.
STATUS_DEPTH = 10


def status_qos(name: str) -> Any:
    """Return the QoS profile ``name`` for a status subscription: at least STATUS_DEPTH deep."""
    from rclpy.qos import QoSProfile

    profile = qos_profile(name)
    return QoSProfile(history=profile.history, depth=max(profile.depth, STATUS_DEPTH),
                      reliability=profile.reliability, durability=profile.durability)


def goal_stamp(host: LeafHost) -> Any:
    """Return the host's next unique time as a ``builtin_interfaces/Time`` (a goal's id).

    The stamp identifies a goal in the server's status messages; two goals sent while
    simulated time stands still still get two stamps (``LeafHost.unique_time_ns``).
    """
    from builtin_interfaces.msg import Time

    now = host.unique_time_ns()
    return Time(sec=now // 1_000_000_000, nanosec=now % 1_000_000_000)


def _set_field(message: Any, path: str, value: Any) -> None:
    """Set a nested field given as a dotted path (validated when the file loads)."""
    parts = path.split('.')
    for part in parts[:-1]:
        message = getattr(message, part)
    setattr(message, parts[-1], value)


def _describe_status(msg: Any) -> str:
    status = getattr(msg, 'status', None)
    return f'status {status}' if status is not None else type(msg).__name__


class _Named:
    """An expression callable on a lookup that remembers its text for messages."""

    def __init__(self, expression: Expression) -> None:
        self.expression = expression
        self.text = str(expression)

    def __call__(self, lookup: Lookup) -> Any:
        return self.expression.evaluate(lookup)


def _check_time_field(msg_class: type, path: str) -> None:
    """Check that ``path`` names a builtin_interfaces/Time field of the message.

    Raises:
        ParameterError: if it does not.
    """
    current: Any = msg_class()
    for part in path.split('.'):
        if not hasattr(current, 'get_fields_and_field_types') \
                or part not in current.get_fields_and_field_types():
            raise ParameterError([('stamp_field', f"stamp_field '{path}': no field '{part}'")])
        current = getattr(current, part)
    if type(current).__name__ != 'Time':
        raise ParameterError([('stamp_field', f"stamp_field '{path}' is not a "
                               'builtin_interfaces/msg/Time field')])


def _stamp_and_cancel_problems(spec: NodeSpec, goal_class: type) -> list[Problem]:
    """Check a TopicAction's ``stamp_field``, ``cancel`` and the fields its tests read."""
    problems: list[Problem] = []
    stamp = spec.params.get('stamp_field')
    if stamp is not None and isinstance(stamp.data, str) and stamp.data:
        try:
            _check_time_field(goal_class, stamp.data)
        except ValueError as error:
            problems.append((stamp.loc, str(error)))
    problems.extend(_cancel_problems(spec))
    problems.extend(_test_problems(spec, goal_class))
    return sorted(problems, key=lambda problem: (problem[0].line, problem[0].column))


def _test_problems(spec: NodeSpec, goal_class: type) -> list[Problem]:
    """Check the fields ``match``, ``succeeded`` and ``failed`` read of ``msg`` and ``goal``."""
    status_class, problems = _message_class(spec, 'status_type')
    if status_class is None:
        return problems
    roots = {'msg': status_class, 'goal': goal_class}
    for name in ('match', 'succeeded', 'failed'):
        test = spec.params.get(name)
        if test is not None and isinstance(test.data, Dynamic):
            problems.extend((test.loc, f'{name} {quoted(test.data.expression.text)}: {problem}')
                            for problem in read_problems(test.data.expression, roots))
    return problems


def _cancel_problems(spec: NodeSpec) -> list[Problem]:
    """Check a TopicAction's ``cancel_type`` and the literal parts of its ``cancel``."""
    cancel = spec.params.get('cancel')
    cancel_class, problems = _message_class(spec, 'cancel_type')
    if cancel_class is None or cancel is None:
        return problems
    template = MessageTemplate(cancel_class, cancel, 'cancel')
    return [(cancel.loc, str(error)) for error in template.check()]


def _message_class(spec: NodeSpec, param: str) -> tuple[Optional[type], list[Problem]]:
    """Return the message class a literal type parameter names, or None and why not.

    None without a problem when the parameter is not set (its default, or the loader
    reports it missing), is a tree parameter, or names a package not installed here.
    """
    value = spec.params.get(param)
    if value is None or not isinstance(value.data, str):
        return None, []
    try:
        parsed = interfaces.parse_type_string(value.data, kind='msg')
        if importlib.util.find_spec(parsed.package) is None:
            return None, []
        return interfaces.resolve(value.data, kind='msg'), []
    except interfaces.InterfaceError as error:
        return None, [(value.loc, str(error))]
