# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Send debug requests to a running executive's ``~/debug/...`` from a viewer's node.

The counterpart of :mod:`bt_executive.ros.debug_services`, for a viewer (the web view)
whose node is spun by someone else (a :class:`~bt_executive.ros.listener.SnapshotListener`
on its background thread): :meth:`DebugClient.request` is called from any other thread
and waits, bounded, for the answer.

A request goes to ``~/debug/command`` (bt_executive_interfaces/srv/DebugCommand) when
this process has the interface package and the executive serves it, else as JSON on
``~/debug/request`` with its answer on ``~/debug/reply`` (an executive without the
package); whichever the executive offers first is used. ``~/debug/state`` (Trigger) gives
the state.

ROS Clients:
    ~/debug/command (bt_executive_interfaces/srv/DebugCommand), when installed here
    ~/debug/state (std_srvs/srv/Trigger)

ROS Publishers and Subscribers:
    ~/debug/request (std_msgs/String), ~/debug/reply (std_msgs/String): the JSON fallback
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, NamedTuple, Optional
import uuid

from bt_executive.ros.debug_services import debug_command_type, FIELDS
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

#: Seconds between two looks for the executive's debug services (they have no event).
_POLL = 0.05
#: Replies of the JSON fallback kept for requests still waiting.
_REPLIES_KEPT = 64


class DebugUnreachable(RuntimeError):
    """The executive's debugger did not answer (not found, or no answer in time)."""


class DebugAnswer(NamedTuple):
    """The executive's answer to one debug request.

    Attributes:
        success: the request was carried out (False: refused, ``message`` says why)
        message: what was done, or why it was refused
        state: the debugger's state afterwards (JSON data; ``{}`` when not given)
    """

    success: bool
    message: str
    state: dict[str, Any]


class DebugClient:
    """The debug requests of one executive, from a node spun on another thread.

    Args:
        node: the viewer's node (spun by its owner)
        executive: the executive's fully qualified node name (``/robot1/bt_executive``)
    """

    def __init__(self, node: Any, executive: str) -> None:
        self.executive = executive.rstrip('/')
        prefix = f'{self.executive}/debug'
        self.command_type = debug_command_type()
        self._command = (node.create_client(self.command_type, f'{prefix}/command')
                         if self.command_type is not None else None)
        self._state = node.create_client(Trigger, f'{prefix}/state')
        qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self._requests = node.create_publisher(String, f'{prefix}/request', qos)
        self._replies: dict[str, dict[str, Any]] = {}
        self._replied = threading.Condition()
        self._reply = node.create_subscription(String, f'{prefix}/reply', self._on_reply, qos)

    def request(self, fields: dict[str, Any], *, timeout: float) -> DebugAnswer:
        """Send one request, the fields of DebugCommand, and wait for the answer.

        Raises:
            DebugUnreachable: no debug service of the executive within ``timeout``
                seconds, or no answer in that time.
        """
        deadline = time.monotonic() + timeout
        typed = self._route(deadline)
        if typed:
            assert self.command_type is not None and self._command is not None
            message = self.command_type.Request(**{
                name: int(value) if name == 'ticks' else str(value)
                for name, value in fields.items() if name in FIELDS})
            answer = self._call(self._command, message, deadline,
                                f'{self.executive}/debug/command')
            return DebugAnswer(bool(answer.success), answer.message,
                               _state_of(answer.state))
        ident = uuid.uuid4().hex
        self._requests.publish(String(data=json.dumps({**fields, 'id': ident})))
        with self._replied:
            if not self._replied.wait_for(lambda: ident in self._replies,
                                          max(0.0, deadline - time.monotonic())):
                raise DebugUnreachable(f'no reply on {self.executive}/debug/reply within '
                                       f'{timeout:g} s')
            reply = self._replies.pop(ident)
        state = reply.get('state')
        return DebugAnswer(bool(reply.get('success')), str(reply.get('message', '')),
                           state if isinstance(state, dict) else {})

    def state(self, *, timeout: float) -> DebugAnswer:
        """Ask ``~/debug/state``: the state, or (refused) why there is none.

        Raises:
            DebugUnreachable: the service did not answer within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        name = f'{self.executive}/debug/state'
        self._wait(lambda: True if self._state.service_is_ready() else None, deadline, name)
        answer = self._call(self._state, Trigger.Request(), deadline, name)
        if answer.success:
            return DebugAnswer(True, 'state', _state_of(answer.message))
        return DebugAnswer(False, answer.message, {})

    # ---- helpers -------------------------------------------------------------------

    def _route(self, deadline: float) -> bool:
        """Wait for the typed service or the JSON topic; True: the typed service."""
        def found() -> Optional[bool]:
            if self._command is not None and self._command.service_is_ready():
                return True
            # both ways matched: a reply published before ours is matched would be lost
            if self._requests.get_subscription_count() > 0 \
                    and self._reply.get_publisher_count() > 0:
                return False
            return None
        return bool(self._wait(found, deadline, f'{self.executive}/debug/command or '
                                                f'{self.executive}/debug/request'))

    def _wait(self, found: Any, deadline: float, what: str) -> Any:
        """Return what ``found()`` returns once it is not None (bounded by ``deadline``)."""
        while True:
            value = found()
            if value is not None:
                return value
            if time.monotonic() >= deadline:
                raise DebugUnreachable(f'{what} not found: is the executive running?')
            time.sleep(_POLL)  # rclpy has no event for a service that appears

    def _call(self, client: Any, message: Any, deadline: float, name: str) -> Any:
        future = client.call_async(message)
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        if not done.wait(max(0.0, deadline - time.monotonic())):
            client.remove_pending_request(future)
            raise DebugUnreachable(f'{name} did not answer in time')
        answer = future.result()
        if answer is None:
            raise DebugUnreachable(f'{name} gave no answer')
        return answer

    def _on_reply(self, message: String) -> None:
        try:
            reply = json.loads(message.data)
        except ValueError:
            return
        if not isinstance(reply, dict) or not isinstance(reply.get('id'), str):
            return
        with self._replied:
            self._replies[reply['id']] = reply
            while len(self._replies) > _REPLIES_KEPT:
                del self._replies[next(iter(self._replies))]
            self._replied.notify_all()


def _state_of(text: str) -> dict[str, Any]:
    try:
        state = json.loads(text)
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


__all__ = ['DebugAnswer', 'DebugClient', 'DebugUnreachable']
