# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A ROS 2 action client made of plain service clients and subscriptions.

An action is, on the wire, three services and two topics under ``<action>/_action/``:
``send_goal``, ``cancel_goal`` and ``get_result``, ``feedback`` and ``status``. rclpy's
``ActionClient`` bundles them into one *Waitable*, and a Waitable that leaves a node while
rclpy's EventsExecutor spins can crash the process (:mod:`bt_executive.ros.entities` says
how). The Action leaf makes a client per tree and destroys it when the tree is swapped,
so it uses this one instead: the same protocol, the same QoS as rclpy's client, built
from entities the executor adds and removes safely. Everything runs on the executor's
thread (service responses and messages arrive as its callbacks).

Only what the executive needs is here: send a goal (with its id, a feedback callback),
follow its status, ask for its result, cancel it (by handle or by id), and tell whether a
server is there.
"""

from __future__ import annotations

from collections import OrderedDict
import functools
from typing import Any, Callable, Optional
import uuid

from action_msgs.msg import GoalInfo, GoalStatus, GoalStatusArray
from action_msgs.srv import CancelGoal
from bt_executive.ros import entities
from rclpy.qos import qos_profile_action_status_default, qos_profile_services_default, \
    QoSProfile
from rclpy.task import Future
from unique_identifier_msgs.msg import UUID

#: The statuses after which a goal does nothing more.
ENDED = (GoalStatus.STATUS_SUCCEEDED, GoalStatus.STATUS_CANCELED, GoalStatus.STATUS_ABORTED)

#: Goals a client keeps following at most; the oldest one is forgotten beyond that
#: (a client forgets a goal once its result arrived, so this only bounds goals whose
#: result nobody asked for).
MAX_GOALS = 256

#: The feedback subscription's QoS (rclpy's client default: reliable, volatile, depth 10).
FEEDBACK_QOS = QoSProfile(depth=10)


class GoalHandle:
    """One goal sent by an :class:`ActionClient`: its answer, status and result.

    Attributes:
        goal_id: the goal's id (``unique_identifier_msgs/UUID``)
        accepted: whether the server accepted the goal
        status: the last status the server reported (``action_msgs/GoalStatus``
            constants; ``STATUS_UNKNOWN`` until a status or the result says more)
    """

    def __init__(self, client: ActionClient, goal_id: UUID, accepted: bool) -> None:
        self.client = client
        self.goal_id = goal_id
        self.accepted = accepted
        self.status = GoalStatus.STATUS_UNKNOWN
        self.result_future: Optional[Future] = None

    def get_result_async(self) -> Future:
        """Ask the server for the goal's result; the future's result is the response.

        The response has ``status`` and ``result``. Asking again sends a new request
        (a lost response is asked for again that way).
        """
        return self.client.get_result_async(self)

    def cancel_goal_async(self) -> Future:
        """Ask the server to cancel the goal; the future's result is the CancelGoal response."""
        return self.client.cancel_goal_async(self.goal_id)


class ActionClient:
    """Send goals to the server of one action and follow them (module docstring).

    Args:
        node: the node the entities are made on
        action_type: the action's class (e.g. ``nav2_msgs.action.NavigateToPose``)
        name: the action's name, resolved as a topic name (namespace and remapping apply
            to it, as for rclpy's client)

    Attributes:
        name: the action's full name
        goal_client, cancel_client, result_client: the service clients of
            ``send_goal``, ``cancel_goal`` and ``get_result``
        feedback_subscription, status_subscription: the subscriptions of ``feedback``
            and ``status``
    """

    def __init__(self, node: Any, action_type: Any, name: str) -> None:
        self.node = node
        self.action_type = action_type
        self.name = node.resolve_topic_name(name)
        impl = action_type.Impl
        self._feedback_type = impl.FeedbackMessage
        self._goals: OrderedDict[bytes, _Followed] = OrderedDict()
        self._made: list[Any] = []
        try:
            prefix = self.name + '/_action/'
            self.goal_client = self._make(entities.client(
                node, impl.SendGoalService, prefix + 'send_goal',
                qos=qos_profile_services_default))
            self.cancel_client = self._make(entities.client(
                node, impl.CancelGoalService, prefix + 'cancel_goal',
                qos=qos_profile_services_default))
            self.result_client = self._make(entities.client(
                node, impl.GetResultService, prefix + 'get_result',
                qos=qos_profile_services_default))
            self.feedback_subscription = self._make(entities.subscription(
                node, impl.FeedbackMessage, prefix + 'feedback', self._on_feedback,
                FEEDBACK_QOS))
            self.status_subscription = self._make(entities.subscription(
                node, impl.GoalStatusMessage, prefix + 'status', self._on_status,
                qos_profile_action_status_default))
        except BaseException:
            self.destroy()
            raise

    def _make(self, entity: Any) -> Any:
        self._made.append(entity)
        return entity

    def server_is_ready(self) -> bool:
        """Tell whether a server answers all three services and publishes both topics."""
        if not self._made:
            return False
        return (self.goal_client.service_is_ready() and self.cancel_client.service_is_ready()
                and self.result_client.service_is_ready()
                and self.feedback_subscription.get_publisher_count() > 0
                and self.status_subscription.get_publisher_count() > 0)

    def send_goal_async(self, goal: Any, *,
                        feedback_callback: Optional[Callable[[Any], None]] = None,
                        goal_uuid: Optional[UUID] = None) -> Future:
        """Send a goal; the future's result is its :class:`GoalHandle` once answered.

        Args:
            goal: the goal message
            feedback_callback: called with each feedback message of the goal (the
                ``FeedbackMessage``: ``goal_id`` and ``feedback``) until its result
                arrives
            goal_uuid: the goal's id (default: a new random one)
        """
        goal_id = goal_uuid if goal_uuid is not None else UUID(uuid=list(uuid.uuid4().bytes))
        request = self.action_type.Impl.SendGoalService.Request(goal_id=goal_id, goal=goal)
        followed = _Followed(feedback_callback)
        key = bytes(goal_id.uuid)
        self._goals[key] = followed
        while len(self._goals) > MAX_GOALS:
            self._goals.popitem(last=False)
        answer = Future()
        sent = self.goal_client.call_async(request)
        sent.add_done_callback(functools.partial(self._on_goal_response, goal_id, answer))
        return answer

    def get_result_async(self, handle: GoalHandle) -> Future:
        """Ask for the result of ``handle``'s goal (see :meth:`GoalHandle.get_result_async`)."""
        request = self.action_type.Impl.GetResultService.Request(goal_id=handle.goal_id)
        answer = Future()
        asked = self.result_client.call_async(request)
        asked.add_done_callback(functools.partial(self._on_result, handle, answer))
        handle.result_future = answer
        return answer

    def cancel_goal_async(self, goal_id: UUID) -> Future:
        """Ask the server to cancel the goal with ``goal_id`` (answered or not yet)."""
        request = CancelGoal.Request(goal_info=GoalInfo(goal_id=goal_id))
        answer = Future()
        asked = self.cancel_client.call_async(request)
        asked.add_done_callback(functools.partial(_forward, answer))
        return answer

    def destroy(self) -> None:
        """Destroy the clients and subscriptions (idempotent); pending futures stay pending."""
        made, self._made = self._made, []
        for entity in made:
            entities.destroy(self.node, entity)
        self._goals.clear()

    # -- callbacks (the executor's thread) --------------------------------------------

    def _on_goal_response(self, goal_id: UUID, answer: Future, sent: Future) -> None:
        error = sent.exception()
        if error is not None:
            self._goals.pop(bytes(goal_id.uuid), None)
            if not answer.done():
                answer.set_exception(error)
            return
        response = sent.result()
        handle = GoalHandle(self, goal_id, bool(response.accepted))
        followed = self._goals.get(bytes(goal_id.uuid))
        if not handle.accepted or followed is None:
            self._goals.pop(bytes(goal_id.uuid), None)
        else:
            followed.handle = handle
            if followed.status is not None:
                handle.status = followed.status
        if not answer.done():
            answer.set_result(handle)

    def _on_result(self, handle: GoalHandle, answer: Future, asked: Future) -> None:
        error = asked.exception()
        if error is None:
            response = asked.result()
            handle.status = response.status
            self._goals.pop(bytes(handle.goal_id.uuid), None)  # no more feedback wanted
        if not answer.done():
            if error is not None:
                answer.set_exception(error)
            else:
                answer.set_result(asked.result())

    def _on_feedback(self, message: Any) -> None:
        followed = self._goals.get(bytes(message.goal_id.uuid))
        if followed is not None and followed.feedback is not None:
            followed.feedback(message)

    def _on_status(self, message: GoalStatusArray) -> None:
        for entry in message.status_list:
            followed = self._goals.get(bytes(entry.goal_info.goal_id.uuid))
            if followed is None:
                continue
            followed.status = entry.status
            if followed.handle is not None:
                followed.handle.status = entry.status


class _Followed:
    """What a client keeps of a goal it follows: its feedback callback, handle, status."""

    __slots__ = ('feedback', 'handle', 'status')

    def __init__(self, feedback: Optional[Callable[[Any], None]]) -> None:
        self.feedback = feedback
        self.handle: Optional[GoalHandle] = None
        self.status: Optional[int] = None


def _forward(answer: Future, asked: Future) -> None:
    """Complete ``answer`` as ``asked`` completed."""
    if answer.done():
        return
    error = asked.exception()
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(asked.result())


__all__ = ['ActionClient', 'ENDED', 'FEEDBACK_QOS', 'GoalHandle', 'MAX_GOALS']
