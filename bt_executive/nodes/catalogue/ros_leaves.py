# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ROS leaf node types of the catalogue, built as offline stubs.

The declarations let files that use ROS leaves validate and render without ROS; the ROS
layer replaces the stub factories with the real ones (:meth:`Registry.with_factories`).
This module imports no ROS code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bt_executive.core.registry import Category, Factory, NodeType, Param
from bt_executive.nodes.catalogue.shared import P, STATUSES, T
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['DEFAULT_STUBS', 'StubLeaf', 'ros_leaf_types']

#: Default offline behaviour of ROS leaves: (status, ticks RUNNING first).
DEFAULT_STUBS: dict[str, tuple[str, int]] = {
    'Action': ('success', 1),
    'Service': ('success', 0),
    'Publish': ('success', 0),
    'TopicAction': ('success', 1),
    'TopicCondition': ('failure', 0),
    'WaitForMessage': ('running', 0),
}

#: Seconds a leaf waits for its server by default: DDS discovery of a new process took
#: up to 2.7 s here on loopback (one periodic announcement of Fast DDS, every 3 s, when
#: the first ones are missed: a third of 60 fresh processes), so 10 s leaves margin for
#: a loaded machine.
SERVER_TIMEOUT = 10.0

_COMMON_ROS = (
    P('server_timeout', T.FLOAT,
      'seconds to wait for the server (DDS discovery of a new process takes up to ~3 s) '
      'before FAILURE', SERVER_TIMEOUT, minimum=0.0),
    P('server_lost_timeout', T.FLOAT,
      'seconds the server may be gone from the ROS graph while a goal or request is in '
      'flight before FAILURE '
      '(DDS drops a crashed server after its lease: 20 s with Fast DDS defaults)', 1.0,
      minimum=0.0),
)
#: The back-off of the leaves that send goals or requests (bt_executive/ros/leaves/backoff.py).
_BACKOFF = (
    P('backoff', T.FLOAT, 'seconds the next run waits after a failure, doubled per further '
      "failure (0: off); unset: the executive's `backoff` parameter (0.2)", None,
      minimum=0.0),
    P('backoff_max', T.FLOAT, "the longest back-off wait in seconds; unset: the executive's "
      '`backoff_max` parameter (10)', None, minimum=0.0),
)
_QOS_CHOICES = ('reliable', 'sensor_data', 'latched')
_QOS = P('qos', T.ENUM, 'QoS profile', 'reliable', choices=_QOS_CHOICES)
_MSG_EXPR = P('expr', T.EXPRESSION, 'expression over `msg` and the blackboard', 'true',
              binds=('msg',))


class StubLeaf(Behaviour):
    """An offline stand-in for a ROS leaf: RUNNING for some ticks, then a fixed status."""

    def __init__(self, name: str, *, node_type: str, status: Status, running_ticks: int):
        """Create the stub.

        Args:
            name: the behaviour name.
            node_type: the ROS node type it stands in for.
            status: the status to return once the RUNNING ticks are over.
            running_ticks: how many ticks of a run return RUNNING first.
        """
        super().__init__(name=name)
        self.node_type = node_type
        self.final = status
        self.running_ticks = running_ticks
        self.count = 0
        self.feedback_message = f'stub for {node_type}'

    def initialise(self) -> None:
        """Restart the count."""
        self.count = 0

    def update(self) -> Status:
        """Return RUNNING until the configured tick count, then the final status."""
        self.count += 1
        if self.count <= self.running_ticks:
            return Status.RUNNING
        return self.final


def _ros_stub(type_name: str) -> Factory:
    """Build a :class:`StubLeaf` as the build context's stubs (or the defaults) say."""
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        path_key = None
        for key in (name, type_name):
            if key in ctx.stubs:
                path_key = key
                break
        status, ticks = ctx.stubs.get(path_key, DEFAULT_STUBS[type_name])
        return StubLeaf(name, node_type=type_name, status=STATUSES[status],
                        running_ticks=ticks)
    return factory


def _ros_leaf(*, name: str, doc: str, params: tuple[Param, ...]) -> NodeType:
    """Declare a ROS leaf: an offline stub until the ROS layer supplies its factory."""
    return NodeType(
        name=name,
        category=Category.LEAF,
        doc=doc,
        params=params,
        factory=_ros_stub(name),
        ros=True,
        source='bt_executive.ros.leaves',
    )


def ros_leaf_types() -> list[NodeType]:
    """Declare the ROS leaf node types, in catalogue order."""
    return [
        _ros_leaf(
            name='Action',
            doc=('Sends a ROS action goal (built from literals, $references and '
                 '${expressions}); RUNNING while active, SUCCESS on a succeeded result; '
                 'FAILURE when the server is absent, does not answer the goal, rejects, '
                 'aborts or times out, or goes '
                 'away (leaves the ROS graph) while the goal runs; the goal is cancelled when '
                 "the node is halted (halted before the server's answer arrived, it is "
                 'cancelled by its id at once, since the answer may be lost, and again once '
                 'answered unless that cancel was acknowledged). A result that does not come '
                 "although the server's status says the goal ended (a lost response) is "
                 'asked for again after 1 s, then backing off up to 30 s.'),
            params=(
                P('type', T.INTERFACE, 'action type, e.g. nav2_msgs/action/NavigateToPose'),
                P('server', T.STRING, 'action name, e.g. /navigate_to_pose'),
                P('goal', T.MAPPING, 'goal fields', {}, dynamic=True),
                P('result_key', T.KEY, 'blackboard key for the result', None, writes=True),
                P('feedback_key', T.KEY, 'blackboard key for the latest feedback', None,
                  writes=True),
                *_COMMON_ROS,
                P('timeout', T.FLOAT, 'seconds until the result; 0 waits forever', 0.0,
                  minimum=0.0),
                P('answer_timeout', T.FLOAT,
                  'seconds the server may take to accept or reject the goal before FAILURE '
                  '(a lost answer leaves the goal unknown: it is cancelled by its id); '
                  '0 waits forever', 10.0, minimum=0.0),
                *_BACKOFF,
            ),
        ),
        _ros_leaf(
            name='Service',
            doc=('Calls a ROS service; SUCCESS when the response satisfies `success` (an '
                 'expression over `response`), FAILURE otherwise, and when the service is '
                 'absent, does not answer in time or goes away while the request is in '
                 'flight.'),
            params=(
                P('type', T.INTERFACE, 'service type, e.g. std_srvs/srv/Trigger'),
                P('service', T.STRING, 'service name'),
                P('request', T.MAPPING, 'request fields', {}, dynamic=True),
                P('response_key', T.KEY, 'blackboard key for the response', None, writes=True),
                P('success', T.EXPRESSION, 'success test over `response`', 'true',
                  binds=('response',)),
                *_COMMON_ROS,
                P('timeout', T.FLOAT, 'seconds until the response', 5.0, minimum=0.0),
                *_BACKOFF,
            ),
        ),
        _ros_leaf(
            name='TopicCondition',
            doc=('SUCCESS if the latest message on a topic (as `msg`) satisfies the '
                 'expression and is not older than max_age; FAILURE otherwise (no message '
                 'yet, stale, or false).'),
            params=(
                P('topic', T.STRING, 'topic name'),
                P('type', T.INTERFACE, 'message type, e.g. std_msgs/msg/Bool'),
                _MSG_EXPR,
                P('max_age', T.FLOAT, 'seconds; 0 accepts any age', 0.0, minimum=0.0),
                _QOS,
            ),
        ),
        _ros_leaf(
            name='WaitForMessage',
            doc=('RUNNING until a message arrives on the topic that satisfies the expression '
                 '(if given), then SUCCESS.'),
            params=(
                P('topic', T.STRING, 'topic name'),
                P('type', T.INTERFACE, 'message type'),
                _MSG_EXPR,
                P('key', T.KEY, 'blackboard key to store the message', None, writes=True),
                _QOS,
            ),
        ),
        _ros_leaf(
            name='Publish',
            doc=('Publishes one message built from literals, $references and '
                 '${expressions}; SUCCESS.'),
            params=(
                P('topic', T.STRING, 'topic name'),
                P('type', T.INTERFACE, 'message type, e.g. geometry_msgs/msg/Twist'),
                P('fields', T.MAPPING, 'message fields', {}, dynamic=True),
                _QOS,
            ),
        ),
        _ros_leaf(
            name='TopicAction',
            doc=('Runs a goal over plain topics (for robots without a ROS action): publishes '
                 'the goal, follows a status topic (SUCCESS/FAILURE by the '
                 '`succeeded`/`failed` expressions over `msg`; `match` picks the status '
                 'messages of this goal, `goal` is the sent goal), and publishes `cancel` on '
                 'cancel_topic when halted or timed out. FAILURE also when the server goes '
                 'away (its goal subscriber or status publisher leaves the ROS graph).'),
            params=(
                P('goal_topic', T.STRING, 'topic the goal is published on'),
                P('goal_type', T.INTERFACE, 'goal message type'),
                P('goal', T.MAPPING, 'goal fields', {}, dynamic=True),
                P('stamp_field', T.STRING,
                  'Time field of the goal set to now (identifies the goal; while simulated '
                  'time stands still each goal gets 1 ns more than the last)', ''),
                P('status_topic', T.STRING, 'topic of the status messages'),
                P('status_type', T.INTERFACE, 'status message type'),
                P('status_qos', T.ENUM, 'QoS of the status subscription', 'reliable',
                  choices=_QOS_CHOICES),
                P('match', T.EXPRESSION, 'is `msg` about the sent `goal`?', 'true',
                  binds=('msg', 'goal')),
                P('succeeded', T.EXPRESSION, 'success test over `msg`', binds=('msg',)),
                P('failed', T.EXPRESSION, 'failure test over `msg`', 'false', binds=('msg',)),
                P('status_key', T.KEY, 'blackboard key for the latest status', None, writes=True),
                P('cancel_topic', T.STRING, 'topic for the cancel message', ''),
                P('cancel_type', T.INTERFACE, 'cancel message type', 'std_msgs/msg/Empty'),
                P('cancel', T.MAPPING, 'cancel message fields (may read `goal`)', {},
                  dynamic=True, binds=('goal',)),
                *_COMMON_ROS,
                P('timeout', T.FLOAT, 'seconds until a result; 0 waits forever', 0.0,
                  minimum=0.0),
                *_BACKOFF,
            ),
        ),
    ]
