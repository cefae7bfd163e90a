# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real ROS leaves: py_trees behaviours for actions, services and topics.

One module per ROS primitive, each holding its leaves whole: the behaviour, its
``declaration`` (the node type, declared without ROS in
:mod:`bt_executive.nodes.ros_leaf_types` so that offline tools know it), how it is built
from its parameters (``build``), the parameters that name and fill its interface
(``interface``) and its load checks (``check``):

* :mod:`.actions`: ``Action`` (action client, :class:`ActionLeaf`)
* :mod:`.services`: ``Service`` (service client, :class:`ServiceLeaf`)
* :mod:`.subscribers`: ``TopicCondition`` and ``WaitForMessage`` (subscriptions)
* :mod:`.publishers`: ``Publish`` (publisher, :class:`PublishLeaf`)
* :mod:`.topic_actions`: ``TopicAction`` (goal over plain topics, :class:`TopicActionLeaf`)

and what they share:

* :mod:`.common`: the :class:`RosLeaf` base and shared helpers
* :mod:`.templates`: :class:`MessageTemplate` (goals, requests, fields)
* :mod:`.interface_checks`: a leaf's parameters checked against its interface, at load
  and at build
* :mod:`.backoff`: the back-off of the leaves that send goals or requests and keep failing

:data:`LEAVES` lists the classes; :data:`FACTORIES` maps their node types to their
factories (with the back-off for the leaves that have one); the executive builds trees
with ``default_registry().with_factories(FACTORIES)``. :func:`check_leaf` runs a leaf's
load checks.

Rules every leaf here follows:

* The interface type is resolved when the leaf is built, so a wrong or missing type is a
  build error; nothing else touches ROS before :meth:`setup`, which takes the node as
  ``setup(node=...)`` and creates the leaf's client, subscription or publisher (through
  :mod:`bt_executive.ros.entities`; the ``Action`` leaf's client is
  :class:`bt_executive.ros.action_client.ActionClient`).
* A leaf never blocks: servers are polled with ``server_is_ready()`` /
  ``service_is_ready()``, requests are asynchronous and answered through futures whose
  callbacks run on the executor that also ticks the tree (single-threaded).
* Timeouts use the node's clock, so ``use_sim_time`` applies.
* Every FAILURE leaves the reason in ``feedback_message``; RUNNING a short progress text.
* :meth:`RosLeaf.outstanding` lists the futures the executive should await before it
  destroys the tree (goal cancels in flight); :meth:`RosLeaf.shutdown` destroys every ROS
  entity the leaf created and may be called more than once.
"""

from typing import Any, Callable, Optional

from bt_executive.core.spec import NodeSpec
from bt_executive.ros.leaves.actions import ActionLeaf
from bt_executive.ros.leaves.backoff import backing_off
from bt_executive.ros.leaves.common import Lookup, MAX_PENDING_MESSAGES, RosLeaf, \
    SERVER_POLL_PERIOD
from bt_executive.ros.leaves.interface_checks import Problem, written_type
from bt_executive.ros.leaves.publishers import PublishLeaf
from bt_executive.ros.leaves.services import ServiceLeaf
from bt_executive.ros.leaves.subscribers import TopicConditionLeaf, WaitForMessageLeaf
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.leaves.topic_actions import TopicActionLeaf

#: A factory with the builder's signature: ``factory(ctx, name, params, children)``.
Factory = Callable[..., Any]

#: The ROS leaves' classes, in catalogue order.
LEAVES = (ActionLeaf, ServiceLeaf, TopicConditionLeaf, WaitForMessageLeaf, PublishLeaf,
          TopicActionLeaf)

_BY_TYPE = {leaf.declaration.name: leaf for leaf in LEAVES}


def factory(leaf: Any) -> Factory:
    """Return the factory of a ROS leaf class: its ``build``, backing off if it does."""
    return backing_off(leaf.build) if leaf.backs_off else leaf.build


#: Node type -> the factory of its ROS leaf.
FACTORIES: dict[str, Factory] = {name: factory(leaf) for name, leaf in _BY_TYPE.items()}


def check_leaf(spec: NodeSpec) -> list[Problem]:
    """Run the load checks of a ROS leaf's node (none for a type that is not ours).

    Returns:
        ``(location of the parameter, message)`` for each problem; empty if none.
    """
    leaf = _BY_TYPE.get(spec.type)
    return leaf.check(spec) if leaf is not None else []


def written_message(spec: NodeSpec, param: str) -> Optional[type]:
    """Return the message class a ROS leaf's node writes to its key ``param``, if known."""
    leaf = _BY_TYPE.get(spec.type)
    return written_type(spec, param, leaf.interface) if leaf is not None else None


__all__ = ['ActionLeaf', 'FACTORIES', 'Factory', 'LEAVES', 'Lookup', 'MAX_PENDING_MESSAGES',
           'MessageTemplate', 'PublishLeaf', 'RosLeaf', 'SERVER_POLL_PERIOD', 'ServiceLeaf',
           'TopicActionLeaf', 'TopicConditionLeaf', 'WaitForMessageLeaf', 'check_leaf',
           'factory', 'written_message']
