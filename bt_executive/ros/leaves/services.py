# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ``Service`` leaf: a ROS service client, one call per run.

Its declaration is :data:`~bt_executive.nodes.ros_leaf_types.SERVICE` (declared without
ROS, so that offline tools know it); its behaviour, how it is built and its load checks
are here.
"""

from __future__ import annotations

from typing import Any, Optional

from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.expressions import EvaluationError, Expression
from bt_executive.core.spec import NodeSpec
from bt_executive.nodes.ros_leaf_types import SERVICE
from bt_executive.ros import entities, interfaces
from bt_executive.ros.leaves.common import DiscoveryWait, Lookup, lookup_with, publisher_gids, \
    RosLeaf, seconds_text, SERVER_POLL_PERIOD, ServerWatch, store_result
from bt_executive.ros.leaves.interface_checks import check_interface, checked_expression, \
    each, LeafInterface, Problem, template, Written
from bt_executive.ros.leaves.templates import MessageTemplate
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from rclpy.task import Future


class ServiceLeaf(RosLeaf):
    """Call a ROS service; SUCCESS when the response passes the ``success`` test.

    FAILURE when the service stays absent for ``server_timeout``, no response arrives
    within ``timeout`` (0 waits forever; the request is then dropped from the client, so
    late responses never pile up), the server that got the request left the ROS graph
    for ``lost_timeout`` (see :class:`ServerWatch`; the request is dropped too), the
    request cannot be built or the success test is false or cannot be evaluated. The
    response is stored to ``response_key`` before the success test, so the tree can
    inspect a failed response. Each run polls only its own request's future, so a late
    answer to an earlier run cannot affect it.

    ROS Service Clients:
        <service> (the service ``type``): one call per run; the response is stored to
        ``response_key``
    """

    declaration = SERVICE
    #: the parameters that name and fill the service, for the load checks
    interface = LeafInterface(
        kind='srv', type_param='type', name_param='service', mapping_param='request',
        mapping_part=interfaces.request_class, test_param='success', test_binds='response',
        test_part=interfaces.response_class,
        writes={'response_key': Written('type', 'srv', interfaces.response_class)})
    #: a run that fails holds the next one back (bt_executive/ros/leaves/backoff.py)
    backs_off = True

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf: resolve the service type, check the request and the test.

        Raises:
            ValueError: if the type is unknown, or the request or the fields the success
                test reads do not fit it (every problem listed).
        """
        service_type = interfaces.resolve(params['type'], kind='srv')
        request, success = each(
            lambda: template(params, 'request', interfaces.request_class(service_type)),
            lambda: checked_expression(
                params, 'success', {'response': interfaces.response_class(service_type)}))
        leaf = cls(name, service_type=service_type, service=params['service'],
                   request=request, success=success, lookup=ctx.lookup,
                   response_key=params.get('response_key'),
                   server_timeout=float(params['server_timeout']),
                   timeout=float(params['timeout']),
                   lost_timeout=float(params['server_lost_timeout']))
        ctx.declare(leaf, reads=request.names() | (success.names - {'response'}))
        return leaf

    @classmethod
    def check(cls, spec: NodeSpec) -> list[Problem]:
        """Check the leaf's node when the file loads (:func:`check_interface`)."""
        return check_interface(spec, cls.interface)

    def __init__(self, name: str, *, service_type: type, service: str,
                 request: MessageTemplate, success: Expression, lookup: Lookup,
                 response_key: Optional[str] = None, server_timeout: float = 10.0,
                 timeout: float = 5.0, lost_timeout: float = 1.0) -> None:
        super().__init__(name, kind='Service', lookup=lookup)
        self.service_type = service_type
        self.service = service
        self.service_name = service
        self.request = request
        self.success = success
        self.response_key = response_key
        self.server_timeout = server_timeout
        self.timeout = timeout
        self.lost_timeout = lost_timeout
        self.client: Any = None
        self._watch: Optional[ServerWatch] = None
        self._future: Optional[Future] = None
        self._started: Optional[float] = None
        self._server_wait = DiscoveryWait(self.server_timeout, self.steady)
        self._sent_at: Optional[float] = None

    def create(self, node: Any) -> None:
        """Create the service client."""
        self.client = entities.client(node, self.service_type, self.service)
        self.service_name = self.client.service_name
        # the server's reply writer, by the DDS name ROS gives it (rr/<service>Reply);
        # an rmw without such names finds none, and service_is_ready() decides alone
        reply_topic = f'rr{self.service_name}Reply'
        self._watch = ServerWatch(self.lost_timeout, self.client.service_is_ready, [
            ('reply writer', lambda: publisher_gids(node, reply_topic, no_mangle=True))],
            steady=self.steady)

    def destroy(self) -> None:
        """Destroy the service client."""
        if self.client is not None:
            self._drop()
            entities.destroy(self.node, self.client)
            self.client = None
        self._watch = None

    def initialise(self) -> None:
        """Start a new run."""
        self._drop()
        self._started = None
        self._sent_at = None

    def terminate(self, new_status: Status) -> None:
        """Drop a request still waiting for its response."""
        self._drop()

    def _drop(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        if self._future is not None and self.client is not None and not self._future.done():
            self.client.remove_pending_request(self._future)
        self._future = None

    def step(self) -> Status:
        """Wait for the service, call it, then check the response."""
        now = self.now()
        if self._started is None:
            self._started = now
            self._server_wait.start(now)
        if self._future is None:
            if not self.client.service_is_ready():
                if self._server_wait.over(now):
                    return self.fail(f"service '{self.service_name}' not available after "
                                     f'{seconds_text(self.server_timeout)} s')
                return self.running(f'waiting for service {self.service_name}')
            try:
                request = self.request.build(self.lookup)
            except ValueError as error:
                return self.fail(str(error))
            self._future = self.client.call_async(request)
            self.note_sent()
            self._future.add_done_callback(self.wake)
            self._sent_at = now
            self._watch.start(now)
            self.note(f'request sent to {self.service_name}')
            return self.running(f'called {self.service_name}')
        if not self._future.done():
            if self.timeout > 0 and now - self._sent_at >= self.timeout:
                self._drop()
                return self.fail(f"no response from '{self.service_name}' after "
                                 f'{seconds_text(self.timeout)} s')
            if self._watch.lost(now) is not None:
                self._drop()
                return self.fail(f"service '{self.service_name}' went away while a request "
                                 'was in flight (it left the ROS graph)')
            return self.running(f'waiting for the response of {self.service_name}')
        future, self._future = self._future, None
        self._watch.stop()
        error = future.exception()
        if error is not None:
            return self.fail(f'calling {self.service_name} failed: {error}')
        response = future.result()
        if self.response_key:
            try:
                store_result(self.response_key, response)
            except Exception as error:  # noqa: B902 - py_trees raises several kinds
                return self.fail(f"cannot store the response in '{self.response_key}': "
                                 f'{error}')
        try:
            passed = self.success.evaluate(lookup_with('response', response, self.lookup))
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
        now = self.now()
        if self._future is None:
            return min(self._server_wait.wake_at(now) or now, now + SERVER_POLL_PERIOD)
        times = [self._watch.wake_at(now) if self._watch is not None else None,
                 self._sent_at + self.timeout
                 if self.timeout > 0 and self._sent_at is not None else None]
        return min((when for when in times if when is not None), default=None)
