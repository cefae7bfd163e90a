# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ``Publish`` leaf: one message per tick on a topic.

Its declaration is :data:`~bt_executive.nodes.ros_leaf_types.PUBLISH` (declared without
ROS, so that offline tools know it); its behaviour, how it is built and its load checks
are here.
"""

from __future__ import annotations

from typing import Any

from bt_executive.core.builder import BuildContext, Params
from bt_executive.core.spec import NodeSpec
from bt_executive.nodes.ros_leaf_types import PUBLISH
from bt_executive.ros import entities, interfaces
from bt_executive.ros.leaves.common import Lookup, RosLeaf
from bt_executive.ros.leaves.interface_checks import check_interface, LeafInterface, \
    Problem, template
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.subscriptions import qos_profile
from py_trees.behaviour import Behaviour
from py_trees.common import Status


class PublishLeaf(RosLeaf):
    """Publish one message built from literals and blackboard values; SUCCESS.

    ROS Publishers:
        <topic> (the message ``type``, ``qos``): one message per tick
    """

    declaration = PUBLISH
    #: the parameters that name and fill the message, for the load checks
    interface = LeafInterface(kind='msg', type_param='type', name_param='topic',
                              mapping_param='fields')
    backs_off = False

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build the leaf: resolve the message type and check the fields' literal parts.

        Raises:
            ValueError: if the type is unknown or the fields do not fit it.
        """
        msg_type = interfaces.resolve(params['type'], kind='msg')
        fields = template(params, 'fields', msg_type)
        leaf = cls(name, msg_type=msg_type, topic=params['topic'], qos=params['qos'],
                   fields=fields, lookup=ctx.lookup)
        ctx.declare(leaf, reads=fields.names())
        return leaf

    @classmethod
    def check(cls, spec: NodeSpec) -> list[Problem]:
        """Check the leaf's node when the file loads (:func:`check_interface`)."""
        return check_interface(spec, cls.interface)

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
        self.publisher = entities.publisher(node, self.msg_type, self.topic,
                                            qos_profile(self.qos))
        self.topic_name = self.publisher.topic_name

    def destroy(self) -> None:
        """Destroy the publisher."""
        entities.destroy(self.node, self.publisher)
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
            self.note_sent()
        except Exception as error:  # noqa: B902 - rclpy raises several kinds
            return self.fail(f'publishing on {self.topic_name} failed: {error}')
        self.feedback_message = f'published on {self.topic_name}'
        return Status.SUCCESS
