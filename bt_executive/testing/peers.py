# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The simulated ROS peers of a scenario, and recorders of what the tree publishes.

The peers: scripted action servers, services, the sim's topic goal protocol, topic
publishers.

Every peer is an rclpy entity on the harness's peer node, in the same process and on the
same executor as the executive, so a message or request reaches its receiver within the
same spin (Fast DDS delivers within one participant synchronously). Nothing here sleeps:
whatever a script says happens "after" some time is put on the :class:`Schedule`, in
simulated time, and the harness runs it when the simulated clock gets there. Their
publishers and subscriptions carry no event handlers (:mod:`bt_executive.ros.entities`):
the harness's executor looks at every Waitable on each of its many waits per simulated
step, and nothing in the process needs a QoS-incompatibility event.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from typing import Any, Callable, Optional

from action_msgs.msg import GoalInfo, GoalStatus
from bt_executive.ros import entities, interfaces
from bt_executive.ros.subscriptions import qos_profile
from bt_executive.testing.spec import GoalScript, Peer
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.qos import QoSProfile, ReliabilityPolicy


class Schedule:
    """Things to do at simulated times (ns), run in time order, then in the order added."""

    def __init__(self) -> None:
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.now = 0

    def at(self, when: int, action: Callable[[], None]) -> None:
        """Run ``action`` at ``when`` (not before the current time)."""
        heapq.heappush(self._queue, (max(when, self.now), next(self._order), action))

    def after(self, delay: int, action: Callable[[], None]) -> None:
        """Run ``action`` ``delay`` ns from now."""
        self.at(self.now + delay, action)

    def next_time(self) -> Optional[int]:
        """Return the time of the next thing to do, or None."""
        return self._queue[0][0] if self._queue else None

    def pop_due(self) -> Optional[Callable[[], None]]:
        """Return the next thing due now (its time <= now), or None."""
        if self._queue and self._queue[0][0] <= self.now:
            return heapq.heappop(self._queue)[2]
        return None


@dataclasses.dataclass
class Sent:
    """A goal, a call or a message a peer got (or a recorder saw).

    Attributes:
        index: 0 for the first
        time: when it arrived (ns of simulated time)
        fields: the message as plain data
        cancelled: when a cancel for it arrived (ns), None: never
        outcome: what the script made of it
    """

    index: int
    time: int
    fields: dict[str, Any]
    cancelled: Optional[int] = None
    outcome: str = ''


def pick(scripts: list[GoalScript], fields: dict[str, Any], taken: int) -> tuple[GoalScript,
                                                                                 bool]:
    """Return the script for a goal or call, and whether it was taken in order.

    Scripts with ``match`` apply to every goal whose fields they fit; the goals no
    ``match`` took use the other scripts in order, the last repeating.
    """
    for script in scripts:
        if script.match is not None and subset(script.match, fields):
            return script, False
    ordered = [script for script in scripts if script.match is None]
    if not ordered:
        return GoalScript(loc=scripts[0].loc, outcome='succeed'), True
    return ordered[min(taken, len(ordered) - 1)], True


def subset(expected: Any, actual: Any, tolerance: float = 1e-6) -> bool:
    """Tell whether ``actual`` has ``expected``: mappings by key (dotted keys descend)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        for key, value in expected.items():
            found, inner = field(actual, str(key))
            if not found or not subset(value, inner, tolerance):
                return False
        return True
    if isinstance(expected, list):
        return isinstance(actual, (list, tuple)) and len(actual) == len(expected) and all(
            subset(e, a, tolerance) for e, a in zip(expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual or (isinstance(actual, bool) and expected == actual)
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return abs(float(expected) - float(actual)) <= tolerance * max(1.0, abs(expected))
    return bool(expected == actual)


def field(data: Any, path: str) -> tuple[bool, Any]:
    """Return (found, value) of a dotted path in plain data (mappings, lists by index)."""
    current = data
    for part in path.split('.'):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, (list, tuple)) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        elif not isinstance(current, (dict, list, tuple)) and hasattr(current, part):
            current = getattr(current, part)
        else:
            return False, None
    return True, current


class _Peer:
    """A peer that exists from ``spec.start`` until ``spec.stop`` or a script kills it."""

    def __init__(self, spec: Peer, node: Any, schedule: Schedule,
                 log: Callable[[str], None]) -> None:
        self.spec = spec
        self.node = node
        self.schedule = schedule
        self.log = log
        self.records: list[Sent] = []
        self.alive = False
        self._taken = 0
        if spec.start <= 0:
            self._appear()
        else:
            schedule.at(spec.start, self._appear)
        if spec.stop is not None:
            schedule.at(spec.stop, lambda: self.die('its stop time'))

    def _appear(self) -> None:
        self.alive = True
        self.create()
        self.log(f"{self.spec.kind} '{self.spec.name}' appears")

    def die(self, why: str) -> None:
        """Leave the ROS graph (destroy every entity)."""
        if self.alive:
            self.alive = False
            self.destroy()
            self.log(f"{self.spec.kind} '{self.spec.name}' leaves the ROS graph ({why})")

    def script_for(self, fields: dict[str, Any]) -> GoalScript:
        script, ordered = pick(self.spec.scripts, fields, self._taken)
        self._taken += 1 if ordered else 0
        return script

    def record(self, fields: dict[str, Any], outcome: str) -> Sent:
        sent = Sent(index=len(self.records), time=self.schedule.now, fields=fields,
                    outcome=outcome)
        self.records.append(sent)
        return sent

    def create(self) -> None:
        """Make the ROS entities."""

    def destroy(self) -> None:
        """Release the ROS entities."""


class ActionPeer(_Peer):
    """A ROS action server answering each goal as its script says."""

    def create(self) -> None:
        """Create the action server."""
        self.action = interfaces.resolve(self.spec.type_string, kind='action')
        self._next: Optional[tuple[GoalScript, Sent]] = None
        self._goals: dict[bytes, tuple[GoalScript, Sent, Any]] = {}
        self.server = ActionServer(
            self.node, self.action, self.spec.name, self._never,
            goal_callback=self._on_goal, handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel)

    def destroy(self) -> None:
        """Destroy the action server (goals in flight never end)."""
        self.server.destroy()

    def _never(self, goal_handle: Any) -> Any:  # pragma: no cover - executions are ours
        goal_handle.abort()
        return self.action.Result()

    def _on_goal(self, goal: Any) -> GoalResponse:
        fields = interfaces.to_dict(goal)
        script = self.script_for(fields)
        sent = self.record(fields, script.outcome)
        if script.outcome == 'reject':
            self.log(f"action '{self.spec.name}': goal #{sent.index} rejected")
            return GoalResponse.REJECT
        self._next = (script, sent)
        return GoalResponse.ACCEPT

    def _on_accepted(self, handle: Any) -> None:
        assert self._next is not None
        script, sent = self._next
        self._next = None
        key = bytes(handle.goal_id.uuid)
        self._goals[key] = (script, sent, handle)
        self.log(f"action '{self.spec.name}': goal #{sent.index} accepted")
        for delay, data in script.feedback:
            self.schedule.after(delay, lambda data=data: self._feedback(handle, data))
        if script.outcome == 'die':
            self.schedule.after(script.after, lambda: self.die(f'goal #{sent.index} script'))
        elif script.outcome in ('succeed', 'abort'):
            self.schedule.after(script.after, lambda: self._finish(key, script.outcome))

    def _feedback(self, handle: Any, data: dict[str, Any]) -> None:
        if self.alive and handle.is_active:
            feedback = interfaces.to_message(interfaces.feedback_class(self.action), data)
            handle.publish_feedback(feedback)

    def _finish(self, key: bytes, outcome: str) -> None:
        entry = self._goals.pop(key, None)
        if entry is None or not self.alive:
            return
        script, sent, handle = entry
        result = interfaces.to_message(interfaces.result_class(self.action), script.result)

        def end(goal_handle: Any) -> Any:
            {'succeed': goal_handle.succeed, 'abort': goal_handle.abort,
             'canceled': goal_handle.canceled}[outcome]()
            return result
        done = {'succeed': 'succeeded', 'abort': 'aborted'}.get(outcome, outcome)
        self.log(f"action '{self.spec.name}': goal #{sent.index} {done}")
        handle.execute(end)

    def _on_cancel(self, handle: Any) -> CancelResponse:
        key = bytes(handle.goal_id.uuid)
        entry = self._goals.get(key)
        if entry is None:
            return CancelResponse.REJECT
        script, sent, _ = entry
        if sent.cancelled is None:
            sent.cancelled = self.schedule.now
        if script.cancel == 'reject':
            self.log(f"action '{self.spec.name}': cancel of goal #{sent.index} refused")
            return CancelResponse.REJECT
        self.schedule.after(0, lambda: self._finish(key, 'canceled'))
        return CancelResponse.ACCEPT


class TopicActionPeer(_Peer):
    """A goal server over topics, the protocol of the built-in sim (docs/sim_robot.md).

    A goal on the goal topic is identified by its ``stamp_field``; statuses
    (``action_msgs/GoalStatus``, ``goal_info.stamp`` = the goal's stamp) go out on the
    status topic: 2 at once, then 4 (succeed) or 6 (abort, and at once for reject);
    an ``action_msgs/GoalInfo`` naming the goal's stamp (zero: the active goal) on the
    cancel topic cancels it (status 5). A goal equal to an earlier one, its non-zero stamp
    included, is that goal sent again (a leaf's ``resend_timeout``): it is not a new goal,
    and its latest status goes out again, as the sim does.
    """

    def create(self) -> None:
        """Create the goal and cancel subscriptions and the status publisher."""
        options = self.spec.options
        goal_class = interfaces.resolve(self.spec.type_string, kind='msg')
        self.goal_sub = entities.subscription(
            self.node, goal_class, self.spec.name, self._on_goal, qos_profile('reliable'))
        self.cancel_sub = entities.subscription(
            self.node, GoalInfo, options['cancel_topic'], self._on_cancel,
            qos_profile('reliable'))
        self.status_pub = entities.publisher(
            self.node, GoalStatus, options['status_topic'], qos_profile('latched'))
        self._active: dict[tuple[int, int], tuple[GoalScript, Sent]] = {}
        #: every goal's fields and latest status (number, status), by stamp
        self._latest: dict[tuple[int, int], tuple[dict[str, Any], int, int]] = {}

    def destroy(self) -> None:
        """Destroy the subscriptions and the publisher."""
        self.node.destroy_subscription(self.goal_sub)
        self.node.destroy_subscription(self.cancel_sub)
        self.node.destroy_publisher(self.status_pub)

    def _stamp(self, goal: Any) -> tuple[int, int]:
        found, stamp = field(goal, self.spec.options['stamp_field'])
        return (stamp.sec, stamp.nanosec) if found and hasattr(stamp, 'sec') else (0, 0)

    def _status(self, stamp: tuple[int, int], number: int, status: int) -> None:
        known = self._latest.get(stamp)
        if known is not None and known[1] == number:
            self._latest[stamp] = (known[0], number, status)
        message = GoalStatus(status=status)
        message.goal_info.stamp.sec, message.goal_info.stamp.nanosec = stamp
        message.goal_info.goal_id.uuid = list(number.to_bytes(16, 'big'))
        self.status_pub.publish(message)

    def _on_goal(self, goal: Any) -> None:
        fields = interfaces.to_dict(goal)
        stamp = self._stamp(goal)
        known = self._latest.get(stamp) if stamp != (0, 0) else None
        if known is not None and known[0] == fields:
            _fields, number, status = known
            self.log(f"topic action '{self.spec.name}': goal #{number - 1} sent again")
            self._status(stamp, number, status)
            return
        script = self.script_for(fields)
        sent = self.record(fields, script.outcome)
        number = sent.index + 1
        self._latest[stamp] = (fields, number, GoalStatus.STATUS_EXECUTING)
        if script.outcome == 'reject':
            self.log(f"topic action '{self.spec.name}': goal #{sent.index} refused")
            self._status(stamp, number, GoalStatus.STATUS_ABORTED)
            return
        self._active[stamp] = (script, sent)
        self._status(stamp, number, GoalStatus.STATUS_EXECUTING)
        self.log(f"topic action '{self.spec.name}': goal #{sent.index} executing")
        if script.outcome == 'die':
            self.schedule.after(script.after, lambda: self.die(f'goal #{sent.index} script'))
        elif script.outcome in ('succeed', 'abort'):
            self.schedule.after(script.after, lambda: self._finish(stamp, sent, script.outcome))

    def _finish(self, stamp: tuple[int, int], sent: Sent, outcome: str) -> None:
        if not self.alive or self._active.get(stamp, (None, None))[1] is not sent:
            return
        del self._active[stamp]
        status = {'succeed': GoalStatus.STATUS_SUCCEEDED, 'abort': GoalStatus.STATUS_ABORTED,
                  'canceled': GoalStatus.STATUS_CANCELED}[outcome]
        self.log(f"topic action '{self.spec.name}': goal #{sent.index} "
                 f"{ {'succeed': 'succeeded', 'abort': 'aborted'}.get(outcome, outcome)}")
        self._status(stamp, sent.index + 1, status)

    def _on_cancel(self, info: Any) -> None:
        stamp = (info.stamp.sec, info.stamp.nanosec)
        if stamp == (0, 0) and self._active:
            stamp = next(reversed(self._active))
        entry = self._active.get(stamp)
        if entry is None:
            return
        script, sent = entry
        if sent.cancelled is None:
            sent.cancelled = self.schedule.now
        if script.cancel == 'reject':
            self.log(f"topic action '{self.spec.name}': cancel of goal #{sent.index} ignored")
            return
        self._finish(stamp, sent, 'canceled')


class ServicePeer(_Peer):
    """A ROS service answering each call as its script says (at once, later, never)."""

    def create(self) -> None:
        """Create the service."""
        self.srv = interfaces.resolve(self.spec.type_string, kind='srv')
        self.service = self.node.create_service(self.srv, self.spec.name, self._on_call)
        send = self.service.send_response

        def send_response(response: Any, header: Any) -> None:
            # a deferred answer: sent later by the schedule, or never
            if isinstance(response, _Later):
                response.header = header
                return
            send(response, header)
        self.service.send_response = send_response
        self._send = send

    def destroy(self) -> None:
        """Destroy the service (requests in flight are never answered)."""
        self.node.destroy_service(self.service)

    def _on_call(self, request: Any, response: Any) -> Any:
        fields = interfaces.to_dict(request)
        script = self.script_for(fields)
        sent = self.record(fields, script.outcome)
        answer = interfaces.to_message(type(response), script.result)
        if script.outcome == 'respond' and script.after == 0:
            self.log(f"service '{self.spec.name}': call #{sent.index} answered")
            return answer
        later = _Later()
        if script.outcome == 'respond':
            service = self.service

            def respond() -> None:
                if self.alive and self.service is service and later.header is not None:
                    self.log(f"service '{self.spec.name}': call #{sent.index} answered")
                    self._send(answer, later.header)
            self.schedule.after(script.after, respond)
        elif script.outcome == 'die':
            self.schedule.after(script.after, lambda: self.die(f'call #{sent.index} script'))
        return later


class _Later:
    """A service answer given later (or never): the request header is kept here."""

    header: Any = None


class PublisherPeer(_Peer):
    """Publish scripted messages at their times; with ``every``, repeat the latest one."""

    def create(self) -> None:
        """Create the publisher and schedule the messages."""
        self.msg_class = interfaces.resolve(self.spec.type_string, kind='msg')
        self.publisher = entities.publisher(self.node, self.msg_class, self.spec.name,
                                            qos_profile(self.spec.qos))
        times = [at for at, _ in self.spec.messages]
        for position, (at, data) in enumerate(self.spec.messages):
            until = times[position + 1] if position + 1 < len(times) else None
            self.schedule.at(at, lambda data=data, until=until, at=at:
                             self._publish(data, at, until))

    def destroy(self) -> None:
        """Destroy the publisher."""
        self.node.destroy_publisher(self.publisher)

    def _publish(self, data: dict[str, Any], at: int, until: Optional[int]) -> None:
        if not self.alive:
            return
        self.publisher.publish(interfaces.to_message(self.msg_class, data))
        self.record(data, 'published')
        every = self.spec.every
        if every is not None and (until is None or at + every < until):
            self.schedule.at(at + every, lambda: self._publish(data, at + every, until))


class Recorder:
    """Record what the tree publishes on a topic (for ``published`` expectations)."""

    def __init__(self, node: Any, topic: str, msg_class: type, schedule: Schedule) -> None:
        self.topic = topic
        self.schedule = schedule
        self.records: list[Sent] = []
        # best effort, volatile: matches every publisher, whatever its QoS
        self.subscription = entities.subscription(
            node, msg_class, topic, self._on_message,
            QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT))

    def _on_message(self, message: Any) -> None:
        self.records.append(Sent(index=len(self.records), time=self.schedule.now,
                                 fields=interfaces.to_dict(message), outcome='published'))


PEER_CLASSES: dict[str, type[_Peer]] = {
    'action': ActionPeer, 'service': ServicePeer, 'topic_action': TopicActionPeer,
    'publish': PublisherPeer,
}


__all__ = ['ActionPeer', 'PEER_CLASSES', 'PublisherPeer', 'Recorder', 'Schedule',
           'ServicePeer', 'Sent', 'TopicActionPeer', 'field', 'pick', 'subset']
