# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``~/debug/...``: the executive's debugger for ``ros2 service call``, rqt and scripts.

ROS Services:
    ~/debug/command (bt_executive_interfaces/srv/DebugCommand): every request (set or
        remove a breakpoint or a substitution, clear, pause, step, continue, set a
        blackboard key, state); made when the interface package is installed.
    ~/debug/pause, ~/debug/step, ~/debug/continue, ~/debug/clear, ~/debug/state
        (std_srvs/srv/Trigger): the requests without arguments, always there; ``state``
        answers with the debugger's state as JSON in ``message``.

ROS Subscribers and Publishers (only without the interface package):
    ~/debug/request (std_msgs/String): a request as JSON, the fields of DebugCommand's
        request (and an ``id`` of the caller's choosing);
    ~/debug/reply (std_msgs/String, reliable, the last 10): ``{"id", "success",
        "message", "state"}`` for each request.

Groot2 (``groot2_port``): :class:`Groot2Requests` carries the hook requests Groot2 sends
to the Groot2 server's thread over to the executor's thread, where the executive
answers them (:mod:`bt_executive.observe.groot2_hooks`; docs/groot2.md, "Hooks").

Every request is refused, with the reason, unless the executive's ``debug`` parameter
is true (it is read-only: set when the executive starts). What the requests do is
:class:`~bt_executive.observe.debugger.DebugController`'s (docs/debugging.md).
"""

from __future__ import annotations

import collections
import importlib
import json
import threading
from typing import Any, Callable, Optional

from bt_executive.observe.debugger import DebugRefused
from bt_executive.ros import entities
from bt_executive.ros.spin import timer_callback
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

#: The requests served as std_srvs/Trigger at ``~/debug/<name>``.
TRIGGERS = ('pause', 'step', 'continue', 'clear', 'state')

#: The request fields of DebugCommand (the JSON fallback takes the same).
FIELDS = ('command', 'node', 'when', 'condition', 'policy', 'status', 'ticks', 'key',
          'value', 'origin')

#: Why every debug request is refused while the ``debug`` parameter is off.
DEBUG_OFF = ('debugging is off: start the executive with the parameter debug:=true to '
             'allow it (docs/debugging.md)')

#: Seconds between the executor's looks for Groot2 hook requests (a steady timer that
#: exists only with debug:=true and groot2_port set: rclpy's EventsExecutor has no
#: guard conditions and no thread-safe create_task to be woken with).
GROOT2_POLL = 0.05
#: Seconds a Groot2 hook request waits for the executor's answer before an error reply.
GROOT2_ANSWER_TIMEOUT = 5.0


def debug_command_type(logger: Any = None) -> Any:
    """Return ``bt_executive_interfaces/srv/DebugCommand``, or None if it is not installed."""
    try:
        kind = importlib.import_module('bt_executive_interfaces.srv').DebugCommand
        from rclpy.type_support import check_for_type_support
        check_for_type_support(kind)
        return kind
    except Exception as error:  # noqa: B902 - ImportError, AttributeError, a broken build
        if logger is not None:
            logger.info(f'~/debug/command: bt_executive_interfaces/srv/DebugCommand is not '
                        f'available ({type(error).__name__}); JSON requests on '
                        '~/debug/request instead')
        return None


class DebugServices:
    """Serve the debug requests of one executive core (see the module docstring).

    Args:
        core: the :class:`~bt_executive.ros.core.ExecutiveCore` (``debug_request``,
            ``debug_state``, ``own``)
        typed: use the typed service when installed (False: the JSON fallback)
    """

    def __init__(self, core: Any, *, typed: bool = True) -> None:
        self.core = core
        node = core.node
        for name in TRIGGERS:
            node.create_service(Trigger, f'~/debug/{name}',
                                core.own(self._trigger(name), faults=False))
        self.command_type = debug_command_type(core.logger) if typed else None
        self.reply: Optional[Any] = None
        if self.command_type is not None:
            node.create_service(self.command_type, '~/debug/command',
                                core.own(self._command, faults=False))
        else:
            qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
            self.reply = entities.publisher(node, String, '~/debug/reply', qos)
            entities.subscription(node, String, '~/debug/request',
                                  core.own(self._json_request), qos)

    def state_json(self) -> str:
        """Return the debugger's state as JSON text."""
        return json.dumps(self.core.debug_state(), sort_keys=True)

    def _trigger(self, name: str) -> Callable[[Any, Any], Any]:
        def handle(request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
            response.success, response.message = self.core.debug_request({'command': name})
            if name == 'state' and response.success:
                response.message = self.state_json()
            return response
        return handle

    def _command(self, request: Any, response: Any) -> Any:
        fields = {name: getattr(request, name) for name in FIELDS}
        response.success, response.message = self.core.debug_request(fields)
        response.state = self.state_json()
        return response

    def _json_request(self, message: String) -> None:
        try:
            fields = json.loads(message.data)
            if not isinstance(fields, dict):
                raise ValueError('expected a JSON object')
        except ValueError as error:
            done, text, ident = False, f'not a JSON request: {error}', None
        else:
            ident = fields.get('id')
            done, text = self.core.debug_request({name: fields.get(name) for name in FIELDS})
        assert self.reply is not None
        self.reply.publish(String(data=json.dumps(
            {'id': ident, 'success': done, 'message': text,
             'state': self.core.debug_state()})))


class _Call:
    """One Groot2 hook request waiting for the executor's answer."""

    def __init__(self, kind: str, payload: Optional[bytes]) -> None:
        self.kind = kind
        self.payload = payload
        self.done = threading.Event()
        self.reply: Optional[bytes] = None
        self.error = ''
        self.abandoned = False


class Groot2Requests:
    """Answer Groot2's hook requests on the executor's thread (the Groot2 server's handler).

    The Groot2 server calls this object from its own thread; the request waits (at most
    :data:`GROOT2_ANSWER_TIMEOUT` s) until a steady timer of the executive's node hands
    it to ``core.groot2_hook_request`` on the executor's thread, as every other debug
    request is carried out. With ``debug`` off every request but HOOKS_DUMP (``[]``: there
    are no hooks) is refused at once and no timer is made.

    Args:
        core: the :class:`~bt_executive.ros.core.ExecutiveCore` (``debug_enabled``,
            ``groot2_hook_request``, ``node``, ``own``)
    """

    def __init__(self, core: Any) -> None:
        self.core = core
        self._pending: collections.deque[_Call] = collections.deque()
        self._closed = False
        self._timer: Any = None
        if core.debug_enabled:
            from rclpy.clock import Clock, ClockType
            self._timer = core.node.create_timer(
                GROOT2_POLL, core.own(timer_callback(self.drain)),
                clock=Clock(clock_type=ClockType.STEADY_TIME))

    def __call__(self, kind: str, payload: Optional[bytes]) -> Optional[bytes]:
        """Answer one request (the Groot2 server's thread); raise ValueError to refuse it."""
        if not self.core.debug_enabled:
            if kind == 'hooks_dump':
                return b'[]'
            raise DebugRefused(DEBUG_OFF)
        if self._closed:
            raise DebugRefused('the executive is shutting down')
        call = _Call(kind, payload)
        self._pending.append(call)
        if not call.done.wait(GROOT2_ANSWER_TIMEOUT):
            call.abandoned = True
            raise DebugRefused(f'the executive did not answer within '
                               f'{GROOT2_ANSWER_TIMEOUT:g} s')
        if call.error:
            raise DebugRefused(call.error)
        return call.reply

    def drain(self) -> None:
        """Carry out the waiting requests (the executor's thread)."""
        while self._pending:
            call = self._pending.popleft()
            if call.abandoned:
                continue
            try:
                call.reply = self.core.groot2_hook_request(call.kind, call.payload)
            except DebugRefused as error:
                call.error = str(error) or 'refused'
            except Exception as error:  # noqa: B902 - the waiting client gets the reason
                call.error = f'internal error: {type(error).__name__}: {error}'
            call.done.set()

    def close(self) -> None:
        """Refuse what still waits and whatever comes (the executive stops)."""
        self._closed = True
        while self._pending:
            call = self._pending.popleft()
            call.error = 'the executive is shutting down'
            call.done.set()
        if self._timer is not None:
            self._timer.cancel()


__all__ = ['DEBUG_OFF', 'DebugServices', 'FIELDS', 'GROOT2_ANSWER_TIMEOUT', 'GROOT2_POLL',
           'Groot2Requests', 'TRIGGERS', 'debug_command_type']
