# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ROS leaves as the offline tools see them: their node types, declared without ROS.

Each ROS leaf lives in one module per ROS primitive of :mod:`bt_executive.ros.leaves`
(``actions``, ``services``, ``subscribers``, ``publishers``, ``topic_actions``): its
behaviour, how it is built from its parameters, its load checks, and its
``declaration``, which is the node type declared here. The declarations alone are here
because the offline tools (``bt-executive validate``, ``show``, ``tick``, ``schema``,
``nodes``, ``export``) validate, render and tick trees with ROS leaves on machines without
ROS: the catalogue (a layer below ``ros/``) registers these node types with a stub
factory (:mod:`~bt_executive.nodes.stubs`), and a leaf's own module needs rclpy
(it would be loaded with it). The ROS layer registers the same node types with the leaves' own
factories (``Registry.with_factories``). Each declaration's ``source`` names the class
that carries it.
"""

from __future__ import annotations

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from bt_executive.nodes.sections import QOS_PROFILES

__all__ = ['ACTION', 'DEFAULT_STUBS', 'PUBLISH', 'ROS_LEAF_TYPES', 'SERVER_TIMEOUT', 'SERVICE',
           'TOPIC_ACTION', 'TOPIC_CONDITION', 'WAIT_FOR_MESSAGE']

#: Seconds a leaf waits for its server by default: DDS discovery of a new process took
#: up to 2.7 s here on loopback (one periodic announcement of Fast DDS, every 3 s, when
#: the first ones are missed: a third of 60 fresh processes), so 10 s leaves margin for
#: a loaded machine.
SERVER_TIMEOUT = 10.0

_SERVER = (
    Param('server_timeout', ParamType.FLOAT,
          'seconds to wait for the server (DDS discovery of a new process takes up to ~3 s) '
          'before FAILURE; at least as many seconds of wall time under a fast sim clock',
          default=SERVER_TIMEOUT, minimum=0.0),
    Param('server_lost_timeout', ParamType.FLOAT,
          'seconds the server may be gone from the ROS graph while a goal or request is in '
          'flight before FAILURE '
          '(DDS drops a crashed server after its lease: 20 s with Fast DDS defaults); at '
          'least as many seconds of wall time', default=1.0, minimum=0.0),
)
#: The back-off of the leaves that send goals or requests (bt_executive/ros/leaves/backoff.py).
_BACKOFF = (
    Param('backoff', ParamType.FLOAT, 'seconds the next run waits after a failure, doubled '
          "per further failure (0: off); unset: the executive's `backoff` parameter (0.2)",
          default=None, minimum=0.0),
    Param('backoff_max', ParamType.FLOAT, 'the longest back-off wait in seconds; unset: the '
          "executive's `backoff_max` parameter (10)", default=None, minimum=0.0),
)
_QOS = Param('qos', ParamType.ENUM, 'QoS profile', default='reliable', choices=QOS_PROFILES)
_MSG_EXPR = Param('expr', ParamType.EXPRESSION, 'expression over `msg` and the blackboard',
                  default='true', binds=('msg',))

ACTION = NodeType(
    name='Action',
    category=Category.LEAF,
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
        Param('type', ParamType.INTERFACE, 'action type, e.g. nav2_msgs/action/NavigateToPose'),
        Param('server', ParamType.STRING, 'action name, e.g. /navigate_to_pose'),
        Param('goal', ParamType.MAPPING, 'goal fields', default={}, dynamic=True),
        Param('result_key', ParamType.KEY, 'blackboard key for the result', default=None,
              writes=True),
        Param('feedback_key', ParamType.KEY, 'blackboard key for the latest feedback',
              default=None, writes=True),
        *_SERVER,
        Param('timeout', ParamType.FLOAT, 'seconds until the result; 0 waits forever',
              default=0.0, minimum=0.0),
        Param('answer_timeout', ParamType.FLOAT,
              'seconds the server may take to accept or reject the goal before FAILURE '
              '(a lost answer leaves the goal unknown: it is cancelled by its id); at least '
              'as many seconds of wall time; 0 waits forever', default=10.0, minimum=0.0),
        *_BACKOFF,
    ),
    ros=True,
    source='bt_executive.ros.leaves.actions.ActionLeaf',
)

SERVICE = NodeType(
    name='Service',
    category=Category.LEAF,
    doc=('Calls a ROS service; SUCCESS when the response satisfies `success` (an '
         'expression over `response`), FAILURE otherwise, and when the service is '
         'absent, does not answer in time or goes away while the request is in '
         'flight.'),
    params=(
        Param('type', ParamType.INTERFACE, 'service type, e.g. std_srvs/srv/Trigger'),
        Param('service', ParamType.STRING, 'service name'),
        Param('request', ParamType.MAPPING, 'request fields', default={}, dynamic=True),
        Param('response_key', ParamType.KEY, 'blackboard key for the response', default=None,
              writes=True),
        Param('success', ParamType.EXPRESSION, 'success test over `response`', default='true',
              binds=('response',)),
        *_SERVER,
        Param('timeout', ParamType.FLOAT, 'seconds until the response', default=5.0,
              minimum=0.0),
        *_BACKOFF,
    ),
    ros=True,
    source='bt_executive.ros.leaves.services.ServiceLeaf',
)

TOPIC_CONDITION = NodeType(
    name='TopicCondition',
    category=Category.LEAF,
    doc=('SUCCESS if the latest message on a topic (as `msg`) satisfies the '
         'expression and is not older than max_age; FAILURE otherwise (no message '
         'yet, stale, or false).'),
    params=(
        Param('topic', ParamType.STRING, 'topic name'),
        Param('type', ParamType.INTERFACE, 'message type, e.g. std_msgs/msg/Bool'),
        _MSG_EXPR,
        Param('max_age', ParamType.FLOAT, 'seconds; 0 accepts any age', default=0.0,
              minimum=0.0),
        _QOS,
    ),
    ros=True,
    source='bt_executive.ros.leaves.subscribers.TopicConditionLeaf',
)

WAIT_FOR_MESSAGE = NodeType(
    name='WaitForMessage',
    category=Category.LEAF,
    doc=('RUNNING until a message arrives on the topic that satisfies the expression '
         '(if given), then SUCCESS.'),
    params=(
        Param('topic', ParamType.STRING, 'topic name'),
        Param('type', ParamType.INTERFACE, 'message type'),
        _MSG_EXPR,
        Param('key', ParamType.KEY, 'blackboard key to store the message', default=None,
              writes=True),
        _QOS,
    ),
    ros=True,
    source='bt_executive.ros.leaves.subscribers.WaitForMessageLeaf',
)

PUBLISH = NodeType(
    name='Publish',
    category=Category.LEAF,
    doc=('Publishes one message built from literals, $references and '
         '${expressions}; SUCCESS.'),
    params=(
        Param('topic', ParamType.STRING, 'topic name'),
        Param('type', ParamType.INTERFACE, 'message type, e.g. geometry_msgs/msg/Twist'),
        Param('fields', ParamType.MAPPING, 'message fields', default={}, dynamic=True),
        _QOS,
    ),
    ros=True,
    source='bt_executive.ros.leaves.publishers.PublishLeaf',
)

TOPIC_ACTION = NodeType(
    name='TopicAction',
    category=Category.LEAF,
    doc=('Runs a goal over plain topics (for robots without a ROS action): publishes '
         'the goal, follows a status topic (SUCCESS/FAILURE by the '
         '`succeeded`/`failed` expressions over `msg`; `match` picks the status '
         'messages of this goal, `goal` is the sent goal), and publishes `cancel` on '
         'cancel_topic when halted or timed out. FAILURE also when the server goes '
         'away (its goal subscriber or status publisher leaves the ROS graph). With '
         '`resend_timeout`, a goal no status message speaks of is published again.'),
    params=(
        Param('goal_topic', ParamType.STRING, 'topic the goal is published on'),
        Param('goal_type', ParamType.INTERFACE, 'goal message type'),
        Param('goal', ParamType.MAPPING, 'goal fields', default={}, dynamic=True),
        Param('stamp_field', ParamType.STRING,
              'Time field of the goal set to now (identifies the goal; while simulated '
              'time stands still each goal gets 1 ns more than the last)', default=''),
        Param('status_topic', ParamType.STRING, 'topic of the status messages'),
        Param('status_type', ParamType.INTERFACE, 'status message type'),
        Param('status_qos', ParamType.ENUM, 'QoS of the status subscription',
              default='reliable', choices=QOS_PROFILES),
        Param('match', ParamType.EXPRESSION, 'is `msg` about the sent `goal`?', default='true',
              binds=('msg', 'goal')),
        Param('succeeded', ParamType.EXPRESSION, 'success test over `msg`', binds=('msg',)),
        Param('failed', ParamType.EXPRESSION, 'failure test over `msg`', default='false',
              binds=('msg',)),
        Param('status_key', ParamType.KEY, 'blackboard key for the latest status',
              default=None, writes=True),
        Param('cancel_topic', ParamType.STRING, 'topic for the cancel message', default=''),
        Param('cancel_type', ParamType.INTERFACE, 'cancel message type',
              default='std_msgs/msg/Empty'),
        Param('cancel', ParamType.MAPPING, 'cancel message fields (may read `goal`)',
              default={}, dynamic=True, binds=('goal',)),
        *_SERVER,
        Param('timeout', ParamType.FLOAT, 'seconds until a result; 0 waits forever',
              default=0.0, minimum=0.0),
        Param('resend_timeout', ParamType.FLOAT,
              'seconds without a status message about the sent goal (one `match` accepts) '
              'after which the same goal is published again, then after twice as long, up '
              'to 10 s apart (a goal sent while the server is still discovering the goal '
              'publisher can be lost); the server must take a repeated goal as the same '
              'goal (e.g. by `stamp_field`); 0: never', default=0.0, minimum=0.0),
        *_BACKOFF,
    ),
    ros=True,
    source='bt_executive.ros.leaves.topic_actions.TopicActionLeaf',
)

#: The ROS leaf node types, in catalogue order.
ROS_LEAF_TYPES = (ACTION, SERVICE, TOPIC_CONDITION, WAIT_FOR_MESSAGE, PUBLISH, TOPIC_ACTION)

#: Default offline behaviour of each ROS leaf: (status, ticks RUNNING first).
DEFAULT_STUBS: dict[str, tuple[str, int]] = {
    'Action': ('success', 1),
    'Service': ('success', 0),
    'Publish': ('success', 0),
    'TopicAction': ('success', 1),
    'TopicCondition': ('failure', 0),
    'WaitForMessage': ('running', 0),
}
