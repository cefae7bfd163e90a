# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ``Action`` leaf: a ROS action client that follows one goal per run.

Its declaration is :data:`~bt_executive.nodes.ros_leaf_types.ACTION` (declared without ROS,
so that offline tools know it); its behaviour, how it is built and its load checks are
here.
"""

from __future__ import annotations

import functools
from typing import Any, Optional
import uuid

from action_msgs.msg import GoalStatus
from action_msgs.srv import CancelGoal
from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.spec import NodeSpec
from bt_executive.nodes.ros_leaf_types import ACTION
from bt_executive.ros import interfaces
from bt_executive.ros.action_client import ActionClient, ENDED
from bt_executive.ros.leaves.common import DiscoveryWait, Lookup, publisher_gids, RosLeaf, \
    seconds_text, SERVER_POLL_PERIOD, ServerWatch, store_result
from bt_executive.ros.leaves.interface_checks import check_interface, LeafInterface, \
    Problem, template, Written
from bt_executive.ros.leaves.templates import MessageTemplate
from py_trees.behaviour import Behaviour
from py_trees.common import Status
from rclpy.task import Future
from unique_identifier_msgs.msg import UUID


_STATUS_NAMES = {
    GoalStatus.STATUS_UNKNOWN: 'unknown',
    GoalStatus.STATUS_ACCEPTED: 'accepted',
    GoalStatus.STATUS_EXECUTING: 'executing',
    GoalStatus.STATUS_CANCELING: 'canceling',
    GoalStatus.STATUS_SUCCEEDED: 'succeeded',
    GoalStatus.STATUS_CANCELED: 'canceled',
    GoalStatus.STATUS_ABORTED: 'aborted',
}
_ENDED = ENDED
#: Seconds the result may lag behind the server's status saying the goal ended before it
#: is asked for again (then twice as long after each ask, up to RESULT_ASK_MAX).
RESULT_GRACE = 1.0
RESULT_ASK_MAX = 30.0


class ActionLeaf(RosLeaf):
    """Send a goal to a ROS action server and wait for the result.

    RUNNING while waiting for the server, the goal response and the result; SUCCESS when
    the goal succeeded (the result is stored to ``result_key``); FAILURE when the server
    stays absent for ``server_timeout``, does not answer the goal within ``answer_timeout``
    (the goal, which it may be running, is then cancelled by its id), the goal is rejected,
    aborted or canceled by the server, no result arrived within ``timeout`` (the goal is
    then cancelled), or the server that got the goal left the ROS graph for ``lost_timeout`` (see
    :class:`ServerWatch`; no cancel is sent: nobody would answer it).

    A result that does not come although the server's status topic says the goal ended
    (its response lost, as a goal's answer can be) is asked for again after
    :data:`RESULT_GRACE`, then after twice as long each time, up to :data:`RESULT_ASK_MAX`.

    When the leaf is halted (terminate with INVALID) the active goal is cancelled. A goal
    whose response has not arrived yet is cancelled by its id at once (the server may have
    accepted it and lost the answer: Fast DDS drops a response to a client it has not
    matched yet) and again as soon as it is accepted, unless the first cancel was
    acknowledged. Each run
    has a generation number: callbacks of earlier runs never touch the current run.

    ROS Action Clients:
        <server> (the action ``type``): one goal per run; its feedback is stored to
        ``feedback_key``, its result to ``result_key``; cancelled when the leaf is halted
    """

    declaration = ACTION
    #: the parameters that name and fill the action, for the load checks
    interface = LeafInterface(
        kind='action', type_param='type', name_param='server', mapping_param='goal',
        mapping_part=interfaces.goal_class,
        writes={'result_key': Written('type', 'action', interfaces.result_class),
                'feedback_key': Written('type', 'action', interfaces.feedback_class)})
    #: a run that fails holds the next one back (bt_executive/ros/leaves/backoff.py)
    backs_off = True

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf: resolve the action type and check the goal's literal parts.

        Raises:
            ValueError: if the type is unknown or the goal does not fit it.
        """
        action_type = interfaces.resolve(params['type'], kind='action')
        goal = template(params, 'goal', interfaces.goal_class(action_type))
        leaf = cls(name, action_type=action_type, server=params['server'], goal=goal,
                   lookup=ctx.lookup, result_key=params.get('result_key'),
                   feedback_key=params.get('feedback_key'),
                   server_timeout=float(params['server_timeout']),
                   timeout=float(params['timeout']),
                   lost_timeout=float(params['server_lost_timeout']),
                   answer_timeout=float(params['answer_timeout']))
        ctx.declare(leaf, reads=goal.names())
        return leaf

    @classmethod
    def check(cls, spec: NodeSpec) -> list[Problem]:
        """Check the leaf's node when the file loads (:func:`check_interface`)."""
        return check_interface(spec, cls.interface)

    def __init__(self, name: str, *, action_type: type, server: str,
                 goal: MessageTemplate, lookup: Lookup, result_key: Optional[str] = None,
                 feedback_key: Optional[str] = None, server_timeout: float = 10.0,
                 timeout: float = 0.0, lost_timeout: float = 1.0,
                 answer_timeout: float = 10.0) -> None:
        super().__init__(name, kind='Action', lookup=lookup)
        self.action_type = action_type
        self.server = server
        self.server_name = server
        self.goal = goal
        self.result_key = result_key
        self.feedback_key = feedback_key
        self.server_timeout = server_timeout
        self.timeout = timeout
        self.lost_timeout = lost_timeout
        self.answer_timeout = answer_timeout
        self.client: Optional[ActionClient] = None
        self._watch: Optional[ServerWatch] = None
        self.generation = 0
        # cancel responses awaited, each with its goal's handle
        self._cancels: list[tuple[Future, Any]] = []
        # goal futures to cancel once answered, each with a future of ours that completes
        # when that has been done (the goal future itself completes before its callback)
        # or the cancel sent by the goal's id was acknowledged
        self._doomed: list[tuple[Future, Future]] = []
        # ids (bytes) of doomed goals whose cancel by id the server acknowledged
        self._cancelled_ids: set[bytes] = set()
        self._reset()

    def _reset(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        self._active = False
        self._started: Optional[float] = None
        self._sent_at: Optional[float] = None
        self._server_wait = DiscoveryWait(self.server_timeout, self.steady)
        self._answer_wait = DiscoveryWait(self.answer_timeout, self.steady)
        self._goal_future: Optional[Future] = None
        self._goal_id: Optional[UUID] = None
        self._goal_handle: Any = None
        self._result_future: Optional[Future] = None
        self._outcome: Optional[tuple[Status, str, Any]] = None
        self._ended_at: Optional[float] = None  # when the status said the goal ended
        self._next_ask: Optional[float] = None  # when to ask for the result again
        self._asks = 0

    def create(self, node: Any) -> None:
        """Create the action client."""
        self.client = ActionClient(node, self.action_type, self.server)
        self.server_name = self.client.name
        status_topic = self.server_name + '/_action/status'
        self._watch = ServerWatch(self.lost_timeout, self.client.server_is_ready, [
            ('status publisher', lambda: publisher_gids(node, status_topic))],
            steady=self.steady)

    def destroy(self) -> None:
        """Destroy the action client."""
        if self.client is not None:
            self.client.destroy()
            self.client = None
        self._watch = None
        self._cancels.clear()
        self._doomed.clear()
        self._cancelled_ids.clear()

    def release(self) -> None:
        """Cancel the active goal (best effort: the request is sent, not awaited)."""
        self._abandon()

    def outstanding(self) -> list[Future]:
        """Return pending cancel responses and goal responses that await a cancel.

        A goal halted before its response arrived is represented by a future that
        completes once the response has been handled (and the cancel sent if the goal
        was accepted) or its cancel by id was acknowledged; so keep asking until the
        list is empty. A cancel whose goal the server's status says has ended is not
        awaited (its response may be lost, as a goal's answer can be).
        """
        self._cancels = [(future, handle) for future, handle in self._cancels
                         if _pending(future) and handle.status not in _ENDED]
        return [*(future for future, _handle in self._cancels),
                *(handled for _goal, handled in self._doomed if not handled.done())]

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
        if self._watch is not None:
            self._watch.stop()

    def step(self) -> Status:
        """Wait for the server, send the goal, then follow it to its result."""
        now = self.now()
        if self._started is None:
            self._started = now
            self._server_wait.start(now)
        if self._goal_future is None:
            return self._send(now)
        if self._outcome is not None:
            status, reason, result = self._outcome
            self._active = False
            if status == Status.SUCCESS and self.result_key:
                try:
                    store_result(self.result_key, result)
                except Exception as error:  # noqa: B902 - py_trees raises several kinds
                    return self.fail(f"cannot store the result in '{self.result_key}': "
                                     f'{error}')
            self.feedback_message = reason
            return status
        if self.timeout > 0 and now - self._sent_at >= self.timeout:
            self._abandon()
            return self.fail(f'no result after {seconds_text(self.timeout)} s')
        if self._goal_handle is None and self.answer_timeout > 0 \
                and self._answer_wait.over(now):
            return self._unanswered()
        if self._watch.lost(now) is not None:
            return self._lost()
        if self._goal_handle is None:
            return self.running(f'goal sent to {self.server_name}')
        if self._goal_handle.status in _ENDED:
            return self._result_overdue(now)
        return self.running(f'goal active on {self.server_name}')

    def _result_overdue(self, now: float) -> Status:
        """Ask again for a result the status says is there (backing off)."""
        ended = _STATUS_NAMES[self._goal_handle.status]
        if self._ended_at is None:
            self._ended_at = now
            self._next_ask = now + RESULT_GRACE
        elif self._next_ask is not None and now >= self._next_ask:
            self._asks += 1
            future = self._goal_handle.get_result_async()
            self.note_sent()
            future.add_done_callback(functools.partial(self._on_result, self.generation))
            goal = bytes(self._goal_handle.goal_id.uuid).hex()[:8]
            self.note(f'result of goal {goal} asked again from {self.server_name} (it '
                      f'{ended} {seconds_text(now - self._ended_at)} s ago; ask {self._asks})')
            self._next_ask = now + min(RESULT_GRACE * 2 ** self._asks, RESULT_ASK_MAX)
        return self.running(f'goal {ended} on {self.server_name}, waiting for its result')

    def wake_at(self) -> Optional[float]:
        """Return the next server check or the result deadline while the leaf runs."""
        if self.status is not Status.RUNNING or self.node is None or self._started is None:
            return None
        now = self.now()
        if self._goal_future is None:
            return min(self._server_wait.wake_at(now) or now, now + SERVER_POLL_PERIOD)
        if self._outcome is not None:
            return None
        unanswered = self._goal_handle is None and self.answer_timeout > 0
        times = [self._watch.wake_at(now) if self._watch is not None else None,
                 self._sent_at + self.timeout if self.timeout > 0 else None,
                 self._answer_wait.wake_at(now) if unanswered else None,
                 self._next_ask]
        return min((when for when in times if when is not None), default=None)

    def _send(self, now: float) -> Status:
        if not self.client.server_is_ready():
            if self._server_wait.over(now):
                return self.fail(f"action server '{self.server_name}' not available after "
                                 f'{seconds_text(self.server_timeout)} s')
            return self.running(f'waiting for action server {self.server_name}')
        try:
            goal = self.goal.build(self.lookup)
        except ValueError as error:
            return self.fail(str(error))
        generation = self.generation
        self._goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        future = self.client.send_goal_async(
            goal, feedback_callback=self.own(functools.partial(self._on_feedback, generation)),
            goal_uuid=self._goal_id)
        self.note_sent()
        self._goal_future = future
        self._sent_at = now
        self._answer_wait.start(now)
        self._active = True
        self._watch.start(now)
        future.add_done_callback(functools.partial(self._on_goal_response, generation))
        self.note(f'goal sent to {self.server_name}')
        return self.running(f'goal sent to {self.server_name}')

    def _lost(self) -> Status:
        """End the run whose server went away: FAILURE, and no cancel (nobody answers)."""
        self._active = False
        self._watch.stop()
        where = f"action server '{self.server_name}'"
        if self._goal_handle is None:
            return self.fail(f'{where} went away before answering the goal (it left the '
                             'ROS graph)')
        goal = bytes(self._goal_handle.goal_id.uuid).hex()[:8]
        return self.fail(f'{where} went away while goal {goal} was running (it left the '
                         'ROS graph)')

    def _unanswered(self) -> Status:
        """End the run whose goal got no answer: cancel it by id, in case it runs; FAILURE.

        The server may have accepted the goal and lost its answer (Fast DDS drops a
        response to a client it has not matched yet), so the goal could be running on the
        robot: a cancel request names it. An answer that still comes is an orphan's
        (the run's generation has moved on), and an accepted orphan is cancelled too.
        """
        self._active = False
        self._watch.stop()
        goal = bytes(self._goal_id.uuid).hex()[:8] if self._goal_id is not None else '?'
        if self._cancel_by_id() is not None:  # best effort: nobody may answer this either
            self.note(f'cancel requested from {self.server_name} for unanswered goal {goal}')
        return self.fail(f"action server '{self.server_name}' did not answer goal {goal} "
                         f'within {seconds_text(self.answer_timeout)} s (a cancel was sent in '
                         'case it runs)')

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
            handled = Future()
            self._doomed.append((self._goal_future, handled))
            by_id = self._cancel_by_id()
            if by_id is not None:
                goal_id = bytes(self._goal_id.uuid)
                by_id.add_done_callback(
                    functools.partial(self._on_cancel_by_id, goal_id, handled))
            self.note('halted before the goal response: cancel requested by goal id, and '
                      'again once answered unless acknowledged')

    def _cancel_by_id(self) -> Optional[Future]:
        """Request a cancel of the run's goal by its id, answer or not; its future."""
        if self.client is None or self._goal_id is None:
            return None
        future = self.client.cancel_goal_async(self._goal_id)
        self.note_sent()
        return future

    def _cancel(self, goal_handle: Any, *, follow: bool = False) -> None:
        """Request a cancel; with ``follow``, also request the result nobody asked for.

        Asking for the result lets the client drop the goal's feedback callback once the
        goal ends (a client forgets a goal when its result arrives).
        """
        if self.client is None:
            return
        future = goal_handle.cancel_goal_async()
        self.note_sent()
        self.note(f'cancel requested from {self.server_name}')
        self._cancels.append((future, goal_handle))
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
                goal_id = bytes(goal_handle.goal_id.uuid)
                if goal_id in self._cancelled_ids:  # the cancel by id was acknowledged
                    self._cancelled_ids.discard(goal_id)
                    goal_handle.get_result_async()  # lets the client forget the goal
                else:
                    self._cancel(goal_handle, follow=True)
            if not handled[0][1].done():
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
            self._outcome = (Status.FAILURE, 'goal aborted' + error_detail(response.result),
                             response.result)
        elif status == GoalStatus.STATUS_CANCELED:
            self._outcome = (Status.FAILURE, 'goal canceled by the server'
                             + error_detail(response.result), response.result)
        elif status == GoalStatus.STATUS_UNKNOWN and self._goal_handle is not None:
            # A server answers "unknown" for a goal it never had: the one that accepted
            # it is gone (e.g. restarted under the same name before DDS dropped it).
            goal = bytes(self._goal_handle.goal_id.uuid).hex()[:8]
            self._outcome = (Status.FAILURE, f"action server '{self.server_name}' does not "
                             f'know goal {goal} any more (the server that accepted it was '
                             'restarted or dropped it)', None)
        else:
            name = _STATUS_NAMES.get(status, str(status))
            self._outcome = (Status.FAILURE, f'goal ended with status {name}', None)

    def _on_feedback(self, generation: int, message: Any) -> None:
        if generation != self.generation or not self.feedback_key:
            return
        try:
            store_result(self.feedback_key, message.feedback)
            self.wake()
        except Exception as error:  # noqa: B902 - a bad key must not break the executor
            if self.node is not None:
                self.node.get_logger().warning(
                    f"{self.name}: cannot store feedback in '{self.feedback_key}': {error}")

    def _on_cancel_by_id(self, goal_id: bytes, handled: Future, future: Future) -> None:
        """Release a doomed goal whose cancel by id the server acknowledged."""
        if self.node is None or future.exception() is not None:
            return
        response = future.result()
        if response.return_code == CancelGoal.Response.ERROR_NONE and any(
                bytes(info.goal_id.uuid) == goal_id for info in response.goals_canceling):
            if any(entry[1] is handled for entry in self._doomed):  # not answered yet
                self._cancelled_ids.add(goal_id)
            if not handled.done():
                handled.set_result(None)  # a lost answer no longer holds up the stop
        # anything else (the goal unknown yet: the cancel overtook it) waits for the answer

    def _on_cancel_response(self, future: Future) -> None:
        if self.node is None or future.exception() is not None:
            return
        code = future.result().return_code
        if code not in (CancelGoal.Response.ERROR_NONE,
                        CancelGoal.Response.ERROR_GOAL_TERMINATED):
            self.node.get_logger().warning(
                f'{self.name}: {self.server_name} refused to cancel a goal (code {code})')


def error_detail(result: Any) -> str:
    """Return ``': <error_msg> (error_code <n>)'`` from a result that has them (Nav2's)."""
    message = getattr(result, 'error_msg', '')
    code = getattr(result, 'error_code', 0)
    parts = [str(message)] if isinstance(message, str) and message else []
    if isinstance(code, int) and not isinstance(code, bool) and code:
        parts.append(f'(error_code {code})')
    return ': ' + ' '.join(parts) if parts else ''


def _pending(future: Future) -> bool:
    """Tell whether a future is still waiting for its answer."""
    return not future.done() and not future.cancelled()
