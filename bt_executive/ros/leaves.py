"""The real ROS leaves: py_trees behaviours for actions, services and topics.

:data:`FACTORIES` maps the ROS node types of the catalogue (``Action``, ``Service``,
``TopicCondition``, ``WaitForMessage``, ``Publish``) to factories with the builder's
signature; the executive builds trees with
``default_registry().with_factories(FACTORIES)``.

Rules every leaf here follows:

* The interface type is resolved when the leaf is built, so a wrong or missing type is a
  build error; nothing else touches ROS before :meth:`setup`, which takes the node as
  ``setup(node=...)`` and creates the leaf's client, subscription or publisher.
* A leaf never blocks: servers are polled with ``server_is_ready()`` /
  ``service_is_ready()``, requests are asynchronous and answered through futures whose
  callbacks run on the executor that also ticks the tree (single-threaded).
* Timeouts use the node's clock, so ``use_sim_time`` applies.
* Every FAILURE leaves the reason in ``feedback_message``; RUNNING a short progress text.
* :meth:`RosLeaf.outstanding` lists the futures the executive should await before it
  destroys the tree (goal cancels in flight); :meth:`RosLeaf.shutdown` destroys every ROS
  entity the leaf created and may be called more than once.

:func:`check_leaf` validates a ROS leaf's spec when the file loads: names, the interface
type and the literal parts of goals, requests and published fields.
"""

from __future__ import annotations

import collections
import functools
import importlib.util
from typing import Any, Callable, Optional

from action_msgs.msg import GoalStatus
from action_msgs.srv import CancelGoal
from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.errors import SourceLocation
from bt_executive.core.expressions import EvaluationError, Expression, parse
from bt_executive.core.spec import Dynamic, NodeSpec, Value
from bt_executive.ros import interfaces
from bt_executive.ros.subscriptions import qos_profile, STALE_MARGIN
import py_trees
from py_trees.common import Status
from rclpy.action import ActionClient
from rclpy.event_handler import PublisherEventCallbacks
from rclpy.exceptions import InvalidServiceNameException, InvalidTopicNameException
from rclpy.task import Future
from rclpy.validate_topic_name import validate_topic_name

Lookup = Callable[[str], Any]
Factory = Callable[[BuildContext, str, Params, list], py_trees.behaviour.Behaviour]

#: Messages WaitForMessage keeps between two ticks; older ones are dropped.
MAX_PENDING_MESSAGES = 100

#: Seconds between checks for an absent action or service server (event-driven ticking
#: has no event for a server appearing, so a waiting leaf asks to be ticked this often).
SERVER_POLL_PERIOD = 0.1

_STATUS_NAMES = {
    GoalStatus.STATUS_UNKNOWN: 'unknown',
    GoalStatus.STATUS_ACCEPTED: 'accepted',
    GoalStatus.STATUS_EXECUTING: 'executing',
    GoalStatus.STATUS_CANCELING: 'canceling',
}


def _seconds(value: float) -> str:
    """Format a configured duration: one decimal unless more are needed (2.0, 0.25)."""
    text = f'{value:.1f}'
    return text if abs(float(text) - value) < 1e-9 else f'{value:g}'


def _store(key: str, value: Any) -> None:
    """Write a value to a root blackboard key (dots set a field of a stored value)."""
    py_trees.blackboard.Blackboard.set('/' + key, value)


def _lookup_with(name: str, value: Any, lookup: Lookup) -> Lookup:
    """Return a lookup that maps ``name`` to ``value`` and everything else to ``lookup``."""
    def read(key: str) -> Any:
        if key == name:
            return value
        return lookup(key)
    return read


def _expression(params: Params, name: str) -> Expression:
    """Return an expression parameter, parsing the catalogue default when it is absent."""
    expression = params.expression(name)
    if expression is None:
        expression = parse(str(params[name]))
    return expression


# ---- building messages from values with blackboard references ----------------------


class _TickValue(interfaces.Deferred):
    """A reference or expression inside a goal/request/fields mapping."""

    def __init__(self, dynamic: Dynamic) -> None:
        """Wrap the dynamic part of a value."""
        super().__init__(description=dynamic.text)
        self.dynamic = dynamic


def _deferred(data: Any) -> Any:
    """Replace every :class:`Dynamic` in plain data by a :class:`_TickValue`."""
    if isinstance(data, Dynamic):
        return _TickValue(data)
    if isinstance(data, dict):
        return {key: _deferred(item) for key, item in data.items()}
    if isinstance(data, list):
        return [_deferred(item) for item in data]
    return data


def _resolve(data: Any, lookup: Lookup, path: str) -> Any:
    """Evaluate every :class:`_TickValue` in ``data`` (depth first, in field order).

    Raises:
        ValueError: ``'field <path>: <text>: <why>'`` for the first one that fails.
    """
    if isinstance(data, _TickValue):
        try:
            return data.dynamic.expression.evaluate(lookup)
        except EvaluationError as error:
            raise ValueError(f'field {path}: {data.description}: {error.message}') from error
    if isinstance(data, dict):
        return {key: _resolve(item, lookup, f'{path}.{key}' if path else str(key))
                for key, item in data.items()}
    if isinstance(data, list):
        return [_resolve(item, lookup, f'{path}[{index}]') for index, item in enumerate(data)]
    return data


class MessageTemplate:
    """A message written in YAML whose leaves may be blackboard references or expressions.

    Args:
        msg_class: the generated message class to build
        value: the parameter value (a mapping, possibly holding dynamic parts), or None
        what: the parameter name, used as the field path prefix in errors
    """

    def __init__(self, msg_class: type, value: Optional[Value], what: str) -> None:
        self.msg_class = msg_class
        self.what = what
        data = value.data if value is not None else {}
        #: a value that is one reference as a whole (``goal: $goal``)
        self.whole: Optional[Dynamic] = data if isinstance(data, Dynamic) else None
        self.template = None if self.whole is not None else _deferred(data)
        #: no blackboard reads: every build gives the same message
        self.is_static = self.whole is None and not self.names()

    def check(self) -> list[interfaces.InterfaceError]:
        """Check the literal parts against the message type (dynamic parts pass)."""
        if self.whole is not None:
            return []
        return interfaces.check_fields(self.msg_class, self.template, path=self.what)

    def build(self, lookup: Lookup) -> Any:
        """Evaluate the dynamic parts against ``lookup`` and build the message.

        The first value that cannot be evaluated is reported (with its field path)
        before any type problem; then the first type problem in field order.

        Raises:
            ValueError: with a readable reason (field path included) if it cannot be built.
        """
        try:
            data = _resolve(self.template if self.whole is None else _TickValue(self.whole),
                            lookup, self.what)
            return interfaces.to_message(self.msg_class, data, path=self.what)
        except ValueError as error:  # InterfaceError is a ValueError
            raise ValueError(f'cannot build the {self.what}: {error}') from error

    def names(self) -> frozenset[str]:
        """Return the blackboard names the dynamic parts read."""
        if self.whole is not None:
            return self.whole.expression.names
        names: set[str] = set()
        stack = [self.template]
        while stack:
            item = stack.pop()
            if isinstance(item, _TickValue):
                names |= item.dynamic.expression.names
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return frozenset(names)


# ---- the common base --------------------------------------------------------------------


class RosLeaf(py_trees.behaviour.Behaviour):
    """Base of the ROS leaves: node handling, shutdown, the node clock.

    Subclasses implement :meth:`create` (make ROS entities on the node), :meth:`destroy`
    (release them) and :meth:`step` (the update once set up).

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
        self.is_shut_down = False
        self._request_tick: Optional[Callable[[], None]] = None

    # -- lifecycle -----------------------------------------------------------------

    def setup(self, **kwargs: Any) -> None:
        """Create the leaf's ROS entities on ``kwargs['node']``.

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
        self.is_shut_down = False
        self._request_tick = getattr(node, 'request_tick', None)
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
        return self.step()

    def outstanding(self) -> list[Future]:
        """Return the futures the executive should await before destroying the tree."""
        return []

    def wake(self, *_: Any) -> None:
        """Ask the executive to tick soon: something this leaf waits for happened.

        Used by event-driven ticking (the node's ``request_tick``); a no-op on a node
        without one. Accepts and ignores callback arguments.
        """
        request = self._request_tick
        if request is not None:
            request()

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
        now_seconds = getattr(self.node, 'now_seconds', None)
        if now_seconds is not None:
            return now_seconds()
        return self.node.get_clock().now().nanoseconds * 1e-9

    def fail(self, reason: str) -> Status:
        """Return FAILURE with ``reason`` as feedback."""
        self.feedback_message = reason
        return Status.FAILURE

    def running(self, text: str) -> Status:
        """Return RUNNING with a progress text."""
        self.feedback_message = text
        return Status.RUNNING


# ---- Action -----------------------------------------------------------------------------


class ActionLeaf(RosLeaf):
    """Send a goal to a ROS action server and wait for the result.

    RUNNING while waiting for the server, the goal response and the result; SUCCESS when
    the goal succeeded (the result is stored to ``result_key``); FAILURE when the server
    stays absent for ``server_timeout``, the goal is rejected, aborted or canceled by the
    server, or no result arrived within ``timeout`` (the goal is then cancelled).

    When the leaf is halted (terminate with INVALID) the active goal is cancelled; a goal
    whose response has not arrived yet is cancelled as soon as it is accepted. Each run
    has a generation number: callbacks of earlier runs never touch the current run.
    """

    def __init__(self, name: str, *, action_type: type, server: str,
                 goal: MessageTemplate, lookup: Lookup, result_key: Optional[str] = None,
                 feedback_key: Optional[str] = None, server_timeout: float = 2.0,
                 timeout: float = 0.0) -> None:
        super().__init__(name, kind='Action', lookup=lookup)
        self.action_type = action_type
        self.server = server
        self.server_name = server
        self.goal = goal
        self.result_key = result_key
        self.feedback_key = feedback_key
        self.server_timeout = server_timeout
        self.timeout = timeout
        self.client: Optional[ActionClient] = None
        self.generation = 0
        self._cancels: list[Future] = []
        # goal futures to cancel once answered, each with a future of ours that completes
        # when that has been done (the goal future itself completes before its callback)
        self._doomed: list[tuple[Future, Future]] = []
        self._reset()

    def _reset(self) -> None:
        self._active = False
        self._started: Optional[float] = None
        self._sent_at: Optional[float] = None
        self._goal_future: Optional[Future] = None
        self._goal_handle: Any = None
        self._result_future: Optional[Future] = None
        self._outcome: Optional[tuple[Status, str, Any]] = None

    def create(self, node: Any) -> None:
        """Create the action client."""
        self.server_name = node.resolve_topic_name(self.server)
        self.client = ActionClient(node, self.action_type, self.server)

    def destroy(self) -> None:
        """Destroy the action client."""
        if self.client is not None:
            self.client.destroy()
            self.client = None
        self._cancels.clear()
        self._doomed.clear()

    def release(self) -> None:
        """Cancel the active goal (best effort: the request is sent, not awaited)."""
        self._abandon()

    def outstanding(self) -> list[Future]:
        """Return pending cancel responses and goal responses that await a cancel.

        A goal halted before its response arrived is represented by a future that
        completes once the response has been handled (and the cancel sent if the goal
        was accepted); so keep asking until the list is empty.
        """
        self._cancels = [future for future in self._cancels if _pending(future)]
        return [*self._cancels, *(handled for _goal, handled in self._doomed)]

    def initialise(self) -> None:
        """Start a new run: forget the previous one."""
        if self._active:
            self._abandon()
        self.generation += 1
        self._reset()

    def terminate(self, new_status: Status) -> None:
        """Cancel the goal when halted; callbacks of this run are ignored from now on."""
        if new_status == Status.INVALID:
            self._abandon()
        self._active = False
        self.generation += 1

    def step(self) -> Status:
        """Wait for the server, send the goal, then follow it to its result."""
        now = self.now()
        if self._started is None:
            self._started = now
        if self._goal_future is None:
            return self._send(now)
        if self._outcome is not None:
            status, reason, result = self._outcome
            self._active = False
            if status == Status.SUCCESS and self.result_key:
                try:
                    _store(self.result_key, result)
                except Exception as error:  # noqa: B902 - py_trees raises several kinds
                    return self.fail(f"cannot store the result in '{self.result_key}': "
                                     f'{error}')
            self.feedback_message = reason
            return status
        if self.timeout > 0 and now - self._sent_at >= self.timeout:
            self._abandon()
            return self.fail(f'no result after {_seconds(self.timeout)} s')
        if self._goal_handle is None:
            return self.running(f'goal sent to {self.server_name}')
        return self.running(f'goal active on {self.server_name}')

    def wake_at(self) -> Optional[float]:
        """Return the next server check or the result deadline while the leaf runs."""
        if self.status is not Status.RUNNING or self.node is None or self._started is None:
            return None
        if self._goal_future is None:
            return min(self._started + self.server_timeout, self.now() + SERVER_POLL_PERIOD)
        if self._outcome is None and self.timeout > 0:
            return self._sent_at + self.timeout
        return None

    def _send(self, now: float) -> Status:
        if not self.client.server_is_ready():
            if now - self._started >= self.server_timeout:
                return self.fail(f"action server '{self.server_name}' not available after "
                                 f'{_seconds(self.server_timeout)} s')
            return self.running(f'waiting for action server {self.server_name}')
        try:
            goal = self.goal.build(self.lookup)
        except ValueError as error:
            return self.fail(str(error))
        generation = self.generation
        future = self.client.send_goal_async(
            goal, feedback_callback=functools.partial(self._on_feedback, generation))
        self._goal_future = future
        self._sent_at = now
        self._active = True
        future.add_done_callback(functools.partial(self._on_goal_response, generation))
        return self.running(f'goal sent to {self.server_name}')

    def _abandon(self) -> None:
        """Cancel the run's goal now, or as soon as it is accepted; end the run."""
        if not self._active:
            return
        self._active = False
        if self.client is None:
            return
        if self._goal_handle is not None:
            if self._goal_handle.accepted and not (self._result_future is not None
                                                   and self._result_future.done()):
                self._cancel(self._goal_handle)
        elif self._goal_future is not None:
            self._doomed.append((self._goal_future, Future()))

    def _cancel(self, goal_handle: Any, *, follow: bool = False) -> None:
        """Request a cancel; with ``follow``, also request the result nobody asked for.

        Asking for the result lets the client drop the goal's feedback callback once the
        goal ends (rclpy only forgets it when a result arrives).
        """
        if self.client is None:
            return
        future = goal_handle.cancel_goal_async()
        self._cancels.append(future)
        future.add_done_callback(self._on_cancel_response)
        if follow:
            goal_handle.get_result_async()

    # -- callbacks (run on the executor thread, between ticks) ----------------------

    def _on_goal_response(self, generation: int, future: Future) -> None:
        error = future.exception()
        goal_handle = None if error is not None else future.result()
        handled = [entry for entry in self._doomed if entry[0] is future]
        if handled:
            self._doomed = [entry for entry in self._doomed if entry[0] is not future]
            if goal_handle is not None and goal_handle.accepted:
                self._cancel(goal_handle, follow=True)
            handled[0][1].set_result(goal_handle)
            return
        if generation != self.generation:
            # Every run that ends before its goal response dooms the goal, so this is an
            # orphan nobody follows: never leave it running on the robot.
            if goal_handle is not None and goal_handle.accepted:
                self._cancel(goal_handle, follow=True)
            return
        if goal_handle is None:
            self._outcome = (Status.FAILURE, f'sending the goal to {self.server_name} '
                             f'failed: {error}', None)
            self.wake()
            return
        self._goal_handle = goal_handle
        if not goal_handle.accepted:
            self._outcome = (Status.FAILURE, f'goal rejected by {self.server_name}', None)
            self.wake()
            return
        self._result_future = goal_handle.get_result_async()
        self._result_future.add_done_callback(functools.partial(self._on_result, generation))

    def _on_result(self, generation: int, future: Future) -> None:
        if generation != self.generation:
            return
        self.wake()
        error = future.exception()
        if error is not None:
            self._outcome = (Status.FAILURE, f'getting the result failed: {error}', None)
            return
        response = future.result()
        status = response.status
        if status == GoalStatus.STATUS_SUCCEEDED:
            self._outcome = (Status.SUCCESS, f'goal succeeded on {self.server_name}',
                             response.result)
        elif status == GoalStatus.STATUS_ABORTED:
            self._outcome = (Status.FAILURE, 'goal aborted', response.result)
        elif status == GoalStatus.STATUS_CANCELED:
            self._outcome = (Status.FAILURE, 'goal canceled by the server', response.result)
        else:
            name = _STATUS_NAMES.get(status, str(status))
            self._outcome = (Status.FAILURE, f'goal ended with status {name}', None)

    def _on_feedback(self, generation: int, message: Any) -> None:
        if generation != self.generation or not self.feedback_key:
            return
        try:
            _store(self.feedback_key, message.feedback)
            self.wake()
        except Exception as error:  # noqa: B902 - a bad key must not break the executor
            if self.node is not None:
                self.node.get_logger().warning(
                    f"{self.name}: cannot store feedback in '{self.feedback_key}': {error}")

    def _on_cancel_response(self, future: Future) -> None:
        if self.node is None or future.exception() is not None:
            return
        code = future.result().return_code
        if code not in (CancelGoal.Response.ERROR_NONE,
                        CancelGoal.Response.ERROR_GOAL_TERMINATED):
            self.node.get_logger().warning(
                f'{self.name}: {self.server_name} refused to cancel a goal (code {code})')


def _pending(future: Future) -> bool:
    """Tell whether a future is still waiting for its answer."""
    return not future.done() and not future.cancelled()


# ---- Service ----------------------------------------------------------------------------


class ServiceLeaf(RosLeaf):
    """Call a ROS service; SUCCESS when the response passes the ``success`` test.

    FAILURE when the service stays absent for ``server_timeout``, no response arrives
    within ``timeout`` (0 waits forever; the request is then dropped from the client, so
    late responses never pile up), the request cannot be built or the success test is
    false or cannot be evaluated. The response is stored to ``response_key`` before the
    success test, so the tree can inspect a failed response. Each run polls only its own
    request's future, so a late answer to an earlier run cannot affect it.
    """

    def __init__(self, name: str, *, service_type: type, service: str,
                 request: MessageTemplate, success: Expression, lookup: Lookup,
                 response_key: Optional[str] = None, server_timeout: float = 2.0,
                 timeout: float = 5.0) -> None:
        super().__init__(name, kind='Service', lookup=lookup)
        self.service_type = service_type
        self.service = service
        self.service_name = service
        self.request = request
        self.success = success
        self.response_key = response_key
        self.server_timeout = server_timeout
        self.timeout = timeout
        self.client: Any = None
        self._future: Optional[Future] = None
        self._started: Optional[float] = None
        self._sent_at: Optional[float] = None

    def create(self, node: Any) -> None:
        """Create the service client."""
        self.client = node.create_client(self.service_type, self.service)
        self.service_name = self.client.service_name

    def destroy(self) -> None:
        """Destroy the service client."""
        if self.client is not None:
            self._drop()
            self.node.destroy_client(self.client)
            self.client = None

    def initialise(self) -> None:
        """Start a new run."""
        self._drop()
        self._started = None
        self._sent_at = None

    def terminate(self, new_status: Status) -> None:
        """Drop a request still waiting for its response."""
        self._drop()

    def _drop(self) -> None:
        if self._future is not None and self.client is not None and not self._future.done():
            self.client.remove_pending_request(self._future)
        self._future = None

    def step(self) -> Status:
        """Wait for the service, call it, then check the response."""
        now = self.now()
        if self._started is None:
            self._started = now
        if self._future is None:
            if not self.client.service_is_ready():
                if now - self._started >= self.server_timeout:
                    return self.fail(f"service '{self.service_name}' not available after "
                                     f'{_seconds(self.server_timeout)} s')
                return self.running(f'waiting for service {self.service_name}')
            try:
                request = self.request.build(self.lookup)
            except ValueError as error:
                return self.fail(str(error))
            self._future = self.client.call_async(request)
            self._future.add_done_callback(self.wake)
            self._sent_at = now
            return self.running(f'called {self.service_name}')
        if not self._future.done():
            if self.timeout > 0 and now - self._sent_at >= self.timeout:
                self._drop()
                return self.fail(f"no response from '{self.service_name}' after "
                                 f'{_seconds(self.timeout)} s')
            return self.running(f'waiting for the response of {self.service_name}')
        future, self._future = self._future, None
        error = future.exception()
        if error is not None:
            return self.fail(f'calling {self.service_name} failed: {error}')
        response = future.result()
        if self.response_key:
            try:
                _store(self.response_key, response)
            except Exception as error:  # noqa: B902 - py_trees raises several kinds
                return self.fail(f"cannot store the response in '{self.response_key}': "
                                 f'{error}')
        try:
            passed = self.success.evaluate(_lookup_with('response', response, self.lookup))
        except EvaluationError as error:
            return self.fail(f'cannot evaluate the success test {self.success}: '
                             f'{error.message}')
        if not passed:
            return self.fail(f'response failed success test: {self.success}')
        self.feedback_message = f'{self.service_name} succeeded'
        return Status.SUCCESS

    def wake_at(self) -> Optional[float]:
        """Return the next service check or the response deadline while the leaf runs."""
        if self.status is not Status.RUNNING or self.node is None or self._started is None:
            return None
        if self._future is None:
            return min(self._started + self.server_timeout, self.now() + SERVER_POLL_PERIOD)
        if self.timeout > 0 and self._sent_at is not None:
            return self._sent_at + self.timeout
        return None


# ---- topics -----------------------------------------------------------------------------


class _TopicLeaf(RosLeaf):
    """A leaf with one subscription; subclasses decide what to keep of each message."""

    def __init__(self, name: str, *, kind: str, msg_type: type, topic: str, qos: str,
                 expression: Expression, lookup: Lookup) -> None:
        super().__init__(name, kind=kind, lookup=lookup)
        self.msg_type = msg_type
        self.topic = topic
        self.topic_name = topic
        self.qos = qos
        self.expression = expression
        self.subscription: Any = None

    def create(self, node: Any) -> None:
        """Subscribe to the topic."""
        self.subscription = node.create_subscription(
            self.msg_type, self.topic, self._on_message, qos_profile(self.qos))
        self.topic_name = self.subscription.topic_name

    def destroy(self) -> None:
        """Destroy the subscription."""
        if self.subscription is not None:
            self.node.destroy_subscription(self.subscription)
            self.subscription = None

    def _on_message(self, msg: Any) -> None:
        raise NotImplementedError

    def test(self, msg: Any) -> tuple[bool, str]:
        """Evaluate the expression on a message: (passed, reason when it did not)."""
        try:
            if self.expression.evaluate(_lookup_with('msg', msg, self.lookup)):
                return True, ''
        except EvaluationError as error:
            return False, f'cannot evaluate {self.expression}: {error.message}'
        return False, f'{self.expression} is false'


class TopicConditionLeaf(_TopicLeaf):
    """SUCCESS if the latest message on a topic is fresh and satisfies the expression."""

    def __init__(self, name: str, *, msg_type: type, topic: str, qos: str,
                 expression: Expression, lookup: Lookup, max_age: float = 0.0) -> None:
        super().__init__(name, kind='TopicCondition', msg_type=msg_type, topic=topic,
                         qos=qos, expression=expression, lookup=lookup)
        self.max_age = max_age
        self.latest: Any = None
        self.received: Optional[float] = None

    def destroy(self) -> None:
        """Destroy the subscription and forget the last message."""
        super().destroy()
        self.latest = None
        self.received = None

    def _on_message(self, msg: Any) -> None:
        now = self.now()
        before = self._outcome(now)
        self.latest = msg
        self.received = now
        if self._outcome(now) != before:  # event-driven ticking: only what changes the result
            self.wake()

    def _outcome(self, now: float) -> Any:
        """Return what a tick at ``now`` would decide from the latest message."""
        if self.latest is None:
            return None
        if self.max_age > 0 and now - self.received > self.max_age:
            return 'stale'
        return self.test(self.latest)[0]

    def wake_at(self) -> Optional[float]:
        """Return when the latest message becomes stale (``max_age``)."""
        if self.max_age > 0 and self.received is not None:
            return self.received + self.max_age + STALE_MARGIN
        return None

    def step(self) -> Status:
        """Check the latest message."""
        if self.latest is None:
            return self.fail(f'no message on {self.topic_name} yet')
        if self.max_age > 0:
            age = self.now() - self.received
            if age > self.max_age:
                return self.fail(f'stale: last message on {self.topic_name} {age:.1f} s ago '
                                 f'(max_age {_seconds(self.max_age)} s)')
        passed, reason = self.test(self.latest)
        if not passed:
            return self.fail(reason)
        self.feedback_message = ''
        return Status.SUCCESS


class WaitForMessageLeaf(_TopicLeaf):
    """RUNNING until a message that arrives after the start satisfies the expression."""

    def __init__(self, name: str, *, msg_type: type, topic: str, qos: str,
                 expression: Expression, lookup: Lookup, key: Optional[str] = None) -> None:
        super().__init__(name, kind='WaitForMessage', msg_type=msg_type, topic=topic,
                         qos=qos, expression=expression, lookup=lookup)
        self.key = key
        self._waiting = False
        self._pending: collections.deque = collections.deque(maxlen=MAX_PENDING_MESSAGES)
        self._last_problem = ''

    def _on_message(self, msg: Any) -> None:
        if self._waiting:
            self._pending.append(msg)
            self.wake()

    def initialise(self) -> None:
        """Only messages from now on count."""
        self._pending.clear()
        self._waiting = True
        self._last_problem = ''

    def terminate(self, new_status: Status) -> None:
        """Stop collecting messages."""
        self._waiting = False
        self._pending.clear()

    def step(self) -> Status:
        """Test the messages received since the last tick, oldest first."""
        while self._pending:
            msg = self._pending.popleft()
            passed, reason = self.test(msg)
            if passed:
                if self.key:
                    try:
                        _store(self.key, msg)
                    except Exception as error:  # noqa: B902 - py_trees raises several kinds
                        return self.fail(f"cannot store the message in '{self.key}': "
                                         f'{error}')
                self.feedback_message = f'message received on {self.topic_name}'
                return Status.SUCCESS
            self._last_problem = reason
        text = f'waiting for a message on {self.topic_name}'
        if self._last_problem:
            text += f' (last: {self._last_problem})'
        return self.running(text)


class PublishLeaf(RosLeaf):
    """Publish one message built from literals and blackboard values; SUCCESS."""

    def __init__(self, name: str, *, msg_type: type, topic: str, qos: str,
                 fields: MessageTemplate, lookup: Lookup) -> None:
        super().__init__(name, kind='Publish', lookup=lookup)
        self.msg_type = msg_type
        self.topic = topic
        self.topic_name = topic
        self.qos = qos
        self.fields = fields
        self.publisher: Any = None
        self._static_message: Any = None  # built once when the fields read nothing

    def create(self, node: Any) -> None:
        """Create the publisher."""
        self.publisher = node.create_publisher(self.msg_type, self.topic,
                                               qos_profile(self.qos))
        self.topic_name = self.publisher.topic_name

    def destroy(self) -> None:
        """Destroy the publisher."""
        if self.publisher is not None:
            self.node.destroy_publisher(self.publisher)
            self.publisher = None

    def step(self) -> Status:
        """Build and publish the message."""
        msg = self._static_message
        if msg is None:
            try:
                msg = self.fields.build(self.lookup)
            except ValueError as error:
                return self.fail(str(error))
            if self.fields.is_static:  # publishing never changes the message
                self._static_message = msg
        try:
            self.publisher.publish(msg)
        except Exception as error:  # noqa: B902 - rclpy raises several kinds
            return self.fail(f'publishing on {self.topic_name} failed: {error}')
        self.feedback_message = f'published on {self.topic_name}'
        return Status.SUCCESS


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
    so a cancel names the goal it is for.
    """

    def __init__(self, name: str, *, goal: MessageTemplate, goal_topic: str,
                 status_type: type, status_topic: str, status_qos: str,
                 match: '_Named', succeeded: '_Named', failed: '_Named',
                 cancel: Optional[MessageTemplate], cancel_topic: Optional[str],
                 stamp_field: Optional[str], status_key: Optional[str],
                 server_timeout: float, timeout: float, lookup: Lookup) -> None:
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
        self.goal_publisher: Any = None
        self.cancel_publisher: Any = None
        self.subscription: Any = None
        self._statuses: collections.deque = collections.deque(maxlen=MAX_PENDING_MESSAGES)
        self._sent: Any = None
        self._started = 0.0
        self._sent_at = 0.0

    def create(self, node: Any) -> None:
        """Create the goal and cancel publishers and the status subscription."""
        # a server appearing or going away is an event for event-driven ticking
        self.goal_publisher = node.create_publisher(
            self.goal.msg_class, self.goal_topic, qos_profile('reliable'),
            event_callbacks=PublisherEventCallbacks(matched=self.wake))
        if self.cancel is not None and self.cancel_topic:
            self.cancel_publisher = node.create_publisher(
                self.cancel.msg_class, self.cancel_topic, qos_profile('reliable'))
        self.subscription = node.create_subscription(
            self.status_type, self.status_topic, self._on_status,
            qos_profile(self.status_qos))

    def destroy(self) -> None:
        """Destroy the publishers and the subscription."""
        for entity, destroy in ((self.goal_publisher, self.node.destroy_publisher),
                                (self.cancel_publisher, self.node.destroy_publisher),
                                (self.subscription, self.node.destroy_subscription)):
            if entity is not None:
                destroy(entity)
        self.goal_publisher = self.cancel_publisher = self.subscription = None

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
            lookup = _lookup_with('goal', self._sent, _lookup_with('msg', msg, self.lookup))
            return bool(self.match(lookup) and (self.failed(lookup) or self.succeeded(lookup)))
        except EvaluationError:
            return True

    def wake_at(self) -> Optional[float]:
        """Return the subscriber-wait or result deadline while the leaf runs."""
        if self.status is not Status.RUNNING or self.node is None:
            return None
        if self._sent is None:
            return self._started + self.server_timeout
        if self.timeout > 0:
            return self._sent_at + self.timeout
        return None

    def initialise(self) -> None:
        """Start a new run."""
        self._sent = None
        self._statuses.clear()
        self._started = self.now() if self.node is not None else 0.0

    def terminate(self, new_status: Status) -> None:
        """Publish the cancel message when halted while the goal runs."""
        if new_status is Status.INVALID:
            self._send_cancel()
        self._sent = None
        self._statuses.clear()

    def _send_cancel(self) -> None:
        if self._sent is None or self.cancel_publisher is None:
            return
        try:
            self.cancel_publisher.publish(
                self.cancel.build(_lookup_with('goal', self._sent, self.lookup)))
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
            return self.fail(f'no result after {_seconds(self.timeout)} s')
        if not self._statuses and self.goal_publisher.get_subscription_count() == 0:
            self._sent = None
            return self.fail(f"lost the goal's subscriber on '{self.goal_publisher.topic_name}'"
                             ' (the server went away)')
        while self._statuses:
            msg = self._statuses.popleft()
            try:
                lookup = _lookup_with('goal', self._sent, _lookup_with('msg', msg, self.lookup))
                if not self.match(lookup):
                    continue
                if self.status_key:
                    _store(self.status_key, msg)
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
        return self.running(f'goal running on {self.goal_topic}')

    def _send(self, now: float) -> Status:
        if self.goal_publisher.get_subscription_count() == 0:
            if now - self._started >= self.server_timeout:
                return self.fail(f"nobody subscribes to '{self.goal_publisher.topic_name}' "
                                 f'after {_seconds(self.server_timeout)} s')
            return self.running(f'waiting for a subscriber on {self.goal_topic}')
        try:
            goal = self.goal.build(self.lookup)
            if self.stamp_field:
                _set_field(goal, self.stamp_field, self.node.get_clock().now().to_msg())
        except ValueError as error:
            return self.fail(str(error))
        self._statuses.clear()
        self._sent = goal
        self._sent_at = now
        self.goal_publisher.publish(goal)
        return self.running(f'goal sent on {self.goal_topic}')


def _set_field(message: Any, path: str, value: Any) -> None:
    """Set a nested field given as a dotted path (validated when the file loads)."""
    parts = path.split('.')
    for part in parts[:-1]:
        message = getattr(message, part)
    setattr(message, parts[-1], value)


def _describe_status(msg: Any) -> str:
    status = getattr(msg, 'status', None)
    return f'status {status}' if status is not None else type(msg).__name__


# ---- factories --------------------------------------------------------------------------


def _template(params: Params, name: str, msg_class: type) -> MessageTemplate:
    """Return the message template of a mapping parameter, checked against the type.

    Raises:
        ValueError: if a literal part does not fit the message (every problem listed).
    """
    template = MessageTemplate(msg_class, params.values.get(name), name)
    problems = template.check()
    if problems:
        raise ValueError('; '.join(str(problem) for problem in problems))
    return template


def _declare_reads(ctx: BuildContext, behaviour: py_trees.behaviour.Behaviour,
                   names: frozenset[str]) -> Any:
    """Record the blackboard keys a leaf reads in the node table (viewers show them)."""
    ctx.declare(behaviour, reads=frozenset(names))
    return behaviour


def _action(ctx: BuildContext, name: str, params: Params,
            children: list) -> py_trees.behaviour.Behaviour:
    action_type = interfaces.resolve(params['type'], kind='action')
    goal = _template(params, 'goal', interfaces.goal_class(action_type))
    leaf = ActionLeaf(name, action_type=action_type, server=params['server'], goal=goal,
                      lookup=ctx.lookup, result_key=params.get('result_key'),
                      feedback_key=params.get('feedback_key'),
                      server_timeout=float(params['server_timeout']),
                      timeout=float(params['timeout']))
    return _declare_reads(ctx, leaf, goal.names())


def _service(ctx: BuildContext, name: str, params: Params,
             children: list) -> py_trees.behaviour.Behaviour:
    service_type = interfaces.resolve(params['type'], kind='srv')
    request = _template(params, 'request', interfaces.request_class(service_type))
    success = _expression(params, 'success')
    leaf = ServiceLeaf(name, service_type=service_type, service=params['service'],
                       request=request, success=success, lookup=ctx.lookup,
                       response_key=params.get('response_key'),
                       server_timeout=float(params['server_timeout']),
                       timeout=float(params['timeout']))
    return _declare_reads(ctx, leaf, request.names() | (success.names - {'response'}))


def _topic_condition(ctx: BuildContext, name: str, params: Params,
                     children: list) -> py_trees.behaviour.Behaviour:
    expression = _expression(params, 'expr')
    leaf = TopicConditionLeaf(name, msg_type=interfaces.resolve(params['type'], kind='msg'),
                              topic=params['topic'], qos=params['qos'], expression=expression,
                              lookup=ctx.lookup, max_age=float(params['max_age']))
    return _declare_reads(ctx, leaf, expression.names - {'msg'})


def _wait_for_message(ctx: BuildContext, name: str, params: Params,
                      children: list) -> py_trees.behaviour.Behaviour:
    expression = _expression(params, 'expr')
    leaf = WaitForMessageLeaf(name, msg_type=interfaces.resolve(params['type'], kind='msg'),
                              topic=params['topic'], qos=params['qos'],
                              expression=expression, lookup=ctx.lookup,
                              key=params.get('key'))
    return _declare_reads(ctx, leaf, expression.names - {'msg'})


def _publish(ctx: BuildContext, name: str, params: Params,
             children: list) -> py_trees.behaviour.Behaviour:
    msg_type = interfaces.resolve(params['type'], kind='msg')
    fields = _template(params, 'fields', msg_type)
    leaf = PublishLeaf(name, msg_type=msg_type, topic=params['topic'], qos=params['qos'],
                       fields=fields, lookup=ctx.lookup)
    return _declare_reads(ctx, leaf, fields.names())


def _topic_action(ctx: BuildContext, name: str, params: Params,
                  children: list) -> py_trees.behaviour.Behaviour:
    goal = _template(params, 'goal', interfaces.resolve(params['goal_type'], kind='msg'))
    cancel = None
    if params.get('cancel_topic'):
        cancel = _template(params, 'cancel',
                           interfaces.resolve(params['cancel_type'], kind='msg'))
    stamp_field = params.get('stamp_field') or None
    if stamp_field:
        _check_time_field(goal.msg_class, stamp_field)
    expressions = [_expression(params, key) for key in ('match', 'succeeded', 'failed')]
    leaf = TopicActionLeaf(
        name, goal=goal, goal_topic=params['goal_topic'],
        status_type=interfaces.resolve(params['status_type'], kind='msg'),
        status_topic=params['status_topic'], status_qos=params['status_qos'],
        match=_Named(expressions[0]), succeeded=_Named(expressions[1]),
        failed=_Named(expressions[2]), cancel=cancel,
        cancel_topic=params.get('cancel_topic') or None, stamp_field=stamp_field,
        status_key=params.get('status_key'), server_timeout=float(params['server_timeout']),
        timeout=float(params['timeout']), lookup=ctx.lookup)
    names = goal.names() | ((cancel.names() - {'goal'}) if cancel else frozenset())
    for expression in expressions:
        names |= expression.names - {'msg', 'goal'}
    return _declare_reads(ctx, leaf, names)


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
        ValueError: if it does not.
    """
    current: Any = msg_class()
    for part in path.split('.'):
        if not hasattr(current, 'get_fields_and_field_types') \
                or part not in current.get_fields_and_field_types():
            raise ValueError(f"stamp_field '{path}': no field '{part}'")
        current = getattr(current, part)
    if type(current).__name__ != 'Time':
        raise ValueError(f"stamp_field '{path}' is not a builtin_interfaces/msg/Time field")


#: The real ROS leaves, by node type: ``default_registry().with_factories(FACTORIES)``.
FACTORIES: dict[str, Factory] = {
    'Action': _action,
    'Service': _service,
    'TopicCondition': _topic_condition,
    'WaitForMessage': _wait_for_message,
    'Publish': _publish,
    'TopicAction': _topic_action,
}


# ---- load-time checks -------------------------------------------------------------------

#: node type -> (interface kind, name parameter, mapping parameter, part of the interface)
_LEAF_SHAPES: dict[str, tuple[str, str, Optional[str], Callable[[type], type]]] = {
    'Action': ('action', 'server', 'goal', interfaces.goal_class),
    'Service': ('srv', 'service', 'request', interfaces.request_class),
    'TopicCondition': ('msg', 'topic', None, lambda cls: cls),
    'WaitForMessage': ('msg', 'topic', None, lambda cls: cls),
    'Publish': ('msg', 'topic', 'fields', lambda cls: cls),
    'TopicAction': ('msg', 'goal_topic', 'goal', lambda cls: cls),
}


def check_leaf(spec: NodeSpec) -> list[tuple[SourceLocation, str]]:
    """Validate a ROS leaf's spec when the file loads.

    Checks the ROS name (server, service or topic), the interface type (its kind, and
    that it exists when its package is installed) and the literal parts of the goal,
    request or fields mapping against the message type, with field paths; references
    and expressions are only known at tick time and pass. When the interface package is
    not installed nothing is reported about the type or the mapping (the caller decides
    whether that is an error).

    Args:
        spec: a node whose type is one of :data:`FACTORIES`

    Returns:
        ``(location of the parameter, message)`` for each problem; empty if none.
    """
    shape = _LEAF_SHAPES.get(spec.type)
    if shape is None:
        return []
    kind, name_param, mapping_param, part = shape
    problems: list[tuple[SourceLocation, str]] = []
    name_value = spec.params.get(name_param)
    if name_value is not None and isinstance(name_value.data, str):
        problem = _name_problem(name_value.data, service=kind == 'srv')
        if problem:
            problems.append((name_value.loc, f"{name_param} '{name_value.data}': {problem}"))
    type_value = spec.params.get('goal_type' if spec.type == 'TopicAction' else 'type')
    if type_value is None or not isinstance(type_value.data, str):
        return problems  # absent (the loader reports it) or a tree parameter
    try:
        parsed = interfaces.parse_type_string(type_value.data, kind=kind)
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    if importlib.util.find_spec(parsed.package) is None:
        return problems
    try:
        msg_class = part(interfaces.resolve(type_value.data, kind=kind))
    except interfaces.InterfaceError as error:
        return [*problems, (type_value.loc, str(error))]
    if mapping_param is None:
        return problems
    value = spec.params.get(mapping_param)
    if value is not None:
        template = MessageTemplate(msg_class, value, mapping_param)
        problems.extend((value.loc, str(error)) for error in template.check())
    if spec.type == 'TopicAction':
        problems.extend(_topic_action_problems(spec, msg_class))
    return problems


def _topic_action_problems(spec: NodeSpec, goal_class: type) -> list[tuple[SourceLocation, str]]:
    """Check a TopicAction's ``stamp_field`` and ``cancel`` fields (literal parts)."""
    problems: list[tuple[SourceLocation, str]] = []
    stamp = spec.params.get('stamp_field')
    if stamp is not None and isinstance(stamp.data, str) and stamp.data:
        try:
            _check_time_field(goal_class, stamp.data)
        except ValueError as error:
            problems.append((stamp.loc, str(error)))
    problems.extend(_cancel_problems(spec))
    return sorted(problems, key=lambda problem: (problem[0].line, problem[0].column))


def _cancel_problems(spec: NodeSpec) -> list[tuple[SourceLocation, str]]:
    """Check a TopicAction's ``cancel_type`` and the literal parts of its ``cancel``."""
    cancel, cancel_type = spec.params.get('cancel'), spec.params.get('cancel_type')
    if cancel_type is None or not isinstance(cancel_type.data, str):
        return []  # the default, std_msgs/msg/Empty, or a tree parameter
    try:
        parsed = interfaces.parse_type_string(cancel_type.data, kind='msg')
        if importlib.util.find_spec(parsed.package) is None:
            return []
        cancel_class = interfaces.resolve(cancel_type.data, kind='msg')
    except interfaces.InterfaceError as error:
        return [(cancel_type.loc, str(error))]
    if cancel is None:
        return []
    template = MessageTemplate(cancel_class, cancel, 'cancel')
    return [(cancel.loc, str(error)) for error in template.check()]


def _name_problem(name: str, *, service: bool) -> str:
    """Return why a topic, service or action name is invalid, or ''."""
    try:
        validate_topic_name(name, is_service=service)
    except (InvalidTopicNameException, InvalidServiceNameException) as error:
        first = str(error).splitlines()[0].rstrip(':')
        return first.split(': ', 1)[-1]
    return ''


__all__ = ['ActionLeaf', 'FACTORIES', 'MAX_PENDING_MESSAGES', 'MessageTemplate',
           'PublishLeaf', 'RosLeaf', 'ServiceLeaf', 'TopicConditionLeaf',
           'WaitForMessageLeaf', 'check_leaf']
