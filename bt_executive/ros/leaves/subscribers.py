# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Leaves on one subscription: ``TopicCondition`` and ``WaitForMessage``.

Their declarations are :data:`~bt_executive.nodes.ros_leaf_types.TOPIC_CONDITION` and
:data:`~bt_executive.nodes.ros_leaf_types.WAIT_FOR_MESSAGE` (declared without ROS, so that
offline tools know them); their behaviour, how they are built and their load checks are
here.
"""

from __future__ import annotations

import collections
from typing import Any, Optional

from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.expressions import EvaluationError, Expression
from bt_executive.core.spec import NodeSpec
from bt_executive.nodes.ros_leaf_types import TOPIC_CONDITION, WAIT_FOR_MESSAGE
from bt_executive.ros import entities, interfaces
from bt_executive.ros.leaves.common import Lookup, lookup_with, MAX_PENDING_MESSAGES, RosLeaf, \
    seconds_text, store_result
from bt_executive.ros.leaves.interface_checks import check_interface, checked_expression, \
    LeafInterface, Problem, Written
from bt_executive.ros.subscriptions import qos_profile, STALE_MARGIN
from py_trees.behaviour import Behaviour
from py_trees.common import Status


class _TopicLeaf(RosLeaf):
    """A leaf with one subscription; subclasses decide what to keep of each message.

    ROS Subscribers:
        <topic> (the message ``type``, ``qos``): each message goes to ``_on_message``
    """

    #: the parameters that name the topic and test its messages, for the load checks
    interface = LeafInterface(kind='msg', type_param='type', name_param='topic',
                              test_param='expr', test_binds='msg')
    backs_off = False

    @classmethod
    def check(cls, spec: NodeSpec) -> list[Problem]:
        """Check the leaf's node when the file loads (:func:`check_interface`)."""
        return check_interface(spec, cls.interface)

    @staticmethod
    def message_type_and_test(params: Params) -> tuple[type, Expression]:
        """Return the message type and the ``expr`` test, checked against it.

        Raises:
            ValueError: if the type is unknown or the test reads fields it does not have.
        """
        msg_type = interfaces.resolve(params['type'], kind='msg')
        return msg_type, checked_expression(params, 'expr', {'msg': msg_type})

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
        self.subscription = entities.subscription(
            node, self.msg_type, self.topic, self.own(self._on_message),
            qos_profile(self.qos))
        self.topic_name = self.subscription.topic_name

    def destroy(self) -> None:
        """Destroy the subscription."""
        entities.destroy(self.node, self.subscription)
        self.subscription = None

    def _on_message(self, msg: Any) -> None:
        raise NotImplementedError

    def test(self, msg: Any) -> tuple[bool, str]:
        """Evaluate the expression on a message: (passed, reason when it did not)."""
        try:
            if self.expression.evaluate(lookup_with('msg', msg, self.lookup)):
                return True, ''
        except EvaluationError as error:
            return False, f'cannot evaluate {self.expression}: {error.message}'
        return False, f'{self.expression} is false'


class TopicConditionLeaf(_TopicLeaf):
    """SUCCESS if the latest message on a topic is fresh and satisfies the expression.

    ROS Subscribers:
        <topic> (the message ``type``, ``qos``): the latest message is kept, with the
        node-clock time it arrived (for ``max_age``)
    """

    declaration = TOPIC_CONDITION

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf on its topic, with the test checked against the message type."""
        msg_type, expression = cls.message_type_and_test(params)
        leaf = cls(name, msg_type=msg_type, topic=params['topic'], qos=params['qos'],
                   expression=expression, lookup=ctx.lookup,
                   max_age=float(params['max_age']))
        ctx.declare(leaf, reads=expression.names - {'msg'})
        return leaf

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
                                 f'(max_age {seconds_text(self.max_age)} s)')
        passed, reason = self.test(self.latest)
        if not passed:
            return self.fail(reason)
        self.feedback_message = ''
        return Status.SUCCESS


class WaitForMessageLeaf(_TopicLeaf):
    """RUNNING until a message that arrives after the start satisfies the expression.

    ROS Subscribers:
        <topic> (the message ``type``, ``qos``): messages are kept while the leaf runs
        (at most :data:`MAX_PENDING_MESSAGES` between two ticks); the first that passes
        is stored to ``key``
    """

    declaration = WAIT_FOR_MESSAGE
    interface = LeafInterface(kind='msg', type_param='type', name_param='topic',
                              test_param='expr', test_binds='msg',
                              writes={'key': Written('type', 'msg')})

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf on its topic, with the test checked against the message type."""
        msg_type, expression = cls.message_type_and_test(params)
        leaf = cls(name, msg_type=msg_type, topic=params['topic'], qos=params['qos'],
                   expression=expression, lookup=ctx.lookup, key=params.get('key'))
        ctx.declare(leaf, reads=expression.names - {'msg'})
        return leaf

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
                        store_result(self.key, msg)
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
