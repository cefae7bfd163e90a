# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real ROS leaves: py_trees behaviours for actions, services and topics.

:data:`FACTORIES` maps the ROS node types of the catalogue (``Action``, ``Service``,
``TopicCondition``, ``WaitForMessage``, ``Publish``) to factories with the builder's
signature; the executive builds trees with
``default_registry().with_factories(FACTORIES)``.

Rules every leaf here follows:

* The interface type is resolved when the leaf is built, so a wrong or missing type is a
  build error; nothing else touches ROS before :meth:`setup`, which takes the node as
  ``setup(node=...)`` and creates the leaf's client, subscription or publisher.
* A leaf never blocks: servers are polled with ``server_is_ready()`` /
  ``service_is_ready()``, requests are asynchronous and answered through futures whose
  callbacks run on the executor that also ticks the tree (single-threaded).
* Timeouts use the node's clock, so ``use_sim_time`` applies.
* Every FAILURE leaves the reason in ``feedback_message``; RUNNING a short progress text.
* :meth:`RosLeaf.outstanding` lists the futures the executive should await before it
  destroys the tree (goal cancels in flight); :meth:`RosLeaf.shutdown` destroys every ROS
  entity the leaf created and may be called more than once.

:func:`check_leaf` validates a ROS leaf's spec when the file loads: names, the interface
type and the literal parts of goals, requests and published fields.

The modules, one per ROS primitive:

* :mod:`.common`: the :class:`RosLeaf` base and shared helpers
* :mod:`.templates`: :class:`MessageTemplate` (goals, requests, fields)
* :mod:`.actions`: ``Action`` (action client)
* :mod:`.services`: ``Service`` (service client)
* :mod:`.subscribers`: ``TopicCondition`` and ``WaitForMessage`` (subscriptions)
* :mod:`.publishers`: ``Publish`` (publisher)
* :mod:`.topic_actions`: ``TopicAction`` (goal over plain topics)
* :mod:`.factories`: :data:`FACTORIES` and :func:`check_leaf`
* :mod:`.backoff`: the back-off of the leaves that send goals or requests and keep failing
"""

from bt_executive.ros.leaves.actions import ActionLeaf
from bt_executive.ros.leaves.common import Lookup, MAX_PENDING_MESSAGES, RosLeaf, \
    SERVER_POLL_PERIOD
from bt_executive.ros.leaves.factories import check_leaf, FACTORIES, Factory
from bt_executive.ros.leaves.publishers import PublishLeaf
from bt_executive.ros.leaves.services import ServiceLeaf
from bt_executive.ros.leaves.subscribers import TopicConditionLeaf, WaitForMessageLeaf
from bt_executive.ros.leaves.templates import MessageTemplate
from bt_executive.ros.leaves.topic_actions import TopicActionLeaf

__all__ = ['ActionLeaf', 'FACTORIES', 'Factory', 'Lookup', 'MAX_PENDING_MESSAGES',
           'MessageTemplate', 'PublishLeaf', 'RosLeaf', 'SERVER_POLL_PERIOD', 'ServiceLeaf',
           'TopicActionLeaf', 'TopicConditionLeaf', 'WaitForMessageLeaf', 'check_leaf']
