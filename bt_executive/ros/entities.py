# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Make and destroy the ROS entities that come and go while the executive spins.

The executive makes entities while it runs and destroys them again: a tree's leaves and
blackboard subscriptions on every swap, a py_trees_ros snapshot stream for each viewer
that opens one, the lifecycle node's tree on cleanup. Destroying an entity while the
executor may still be handling it is what crashed the executive when a viewer closed
its stream (issue 39). The rule, and how it is kept:

* **No Waitable comes and goes.** rclpy's EventsExecutor (the executive's executor,
  :func:`bt_executive.ros.spin.make_executor`) hands an event of a Waitable -- the event
  handlers rclpy attaches to every publisher and subscription, its ``ActionClient`` --
  to a callback that holds the executor's grip on the Waitable's wait set. When the
  middleware reports an event (a subscriber leaving, a feedback message) after the
  Waitable was removed from the node but before the executor noticed, that callback is
  dropped later without Python's GIL and releases the grip from C++: a segfault (seen
  with the py_trees_ros viewers closing their streams, and in a bare rclpy program
  creating and destroying action clients while feedback flows; rclpy issue #1644).
  Subscriptions, service clients, services and timers are not Waitables: the executor
  drops a late event of a removed one without touching Python. So the publishers and
  subscriptions made here carry no event handlers (``use_default_callbacks=False``),
  action goals go through :class:`bt_executive.ros.action_client.ActionClient` (built of
  plain clients and subscriptions), and nothing of the executive asks for ``matched``
  or other middleware events: a leaf that waits for a subscriber polls the count, as it
  polls for an action server. The cost: rclpy's default warning about a peer with
  incompatible QoS is not logged for these entities.
* **Destroyed on the executor's thread.** Every destroy in the executive happens in one
  of its callbacks (a service, a parameter change, a timer, a tick) or in the main loop
  between two spins, never on another thread (the Groot2 and Foxglove servers' threads
  only read). :func:`destroy` is the one way to destroy them; it is idempotent and never
  raises for an entity already gone.

rclpy's SingleThreadedExecutor (``BT_EXECUTIVE_EXECUTOR=single``) is safe with any
entity; the rule costs it nothing.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from rclpy.client import Client
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.publisher import Publisher
from rclpy.qos import qos_profile_services_default
from rclpy.service import Service
from rclpy.subscription import Subscription
from rclpy.timer import Timer


def publisher(node: Any, msg_type: Any, topic: str, qos: Any) -> Publisher:
    """Return a publisher on ``topic`` that carries no event handler (no Waitable)."""
    return node.create_publisher(
        msg_type, topic, qos,
        event_callbacks=PublisherEventCallbacks(use_default_callbacks=False))


def subscription(node: Any, msg_type: Any, topic: str, callback: Callable[[Any], None],
                 qos: Any) -> Subscription:
    """Return a subscription to ``topic`` that carries no event handler (no Waitable)."""
    return node.create_subscription(
        msg_type, topic, callback, qos,
        event_callbacks=SubscriptionEventCallbacks(use_default_callbacks=False))


def client(node: Any, srv_type: Any, name: str, *,
           qos: Any = qos_profile_services_default) -> Client:
    """Return a client of the service ``name`` (service clients are not Waitables)."""
    return node.create_client(srv_type, name, qos_profile=qos)


def destroy(node: Any, entity: Any) -> bool:
    """Destroy an entity made on ``node``; False if it was already gone (or is None).

    Call it on the executor's thread (module docstring). Anything with a ``destroy()``
    of its own (an :class:`~bt_executive.ros.action_client.ActionClient`) is destroyed
    by it.
    """
    if entity is None:
        return False
    if isinstance(entity, Publisher):
        return bool(node.destroy_publisher(entity))
    if isinstance(entity, Subscription):
        return bool(node.destroy_subscription(entity))
    if isinstance(entity, Client):
        return bool(node.destroy_client(entity))
    if isinstance(entity, Service):
        return bool(node.destroy_service(entity))
    if isinstance(entity, Timer):
        return bool(node.destroy_timer(entity))
    entity.destroy()
    return True


def waitables(node: Any) -> int:
    """Return how many Waitables ``node`` has (0 without a node: offline validation)."""
    return len(list(node.waitables)) if node is not None else 0


def waitables_unsafe() -> bool:
    """Tell whether the executive spins an executor that Waitables coming and going can crash.

    rclpy's EventsExecutor, the default (:func:`bt_executive.ros.spin.make_executor`);
    not the SingleThreadedExecutor of ``BT_EXECUTIVE_EXECUTOR=single``.
    """
    return os.environ.get('BT_EXECUTIVE_EXECUTOR', 'events') != 'single'


def waitables_warning(tree_file: str, added: int) -> str:
    """Return the warning for a tree whose leaves added ``added`` Waitables to the node."""
    return (f'{tree_file}: the leaves of this tree added {added} Waitable(s) to the node '
            "(rclpy's ActionClient, or a publisher or subscription made with event "
            'callbacks, in a plugin leaf?); destroying them when the tree is swapped or '
            "stopped can crash rclpy's EventsExecutor (rclpy issue #1644). Make them with "
            'bt_executive.ros.entities and bt_executive.ros.action_client (docs/plugins.md), '
            'or run with BT_EXECUTIVE_EXECUTOR=single')


def counts(node: Any) -> dict[str, int]:
    """Return how many entities of each kind ``node`` has (``~/status``: nothing leaks)."""
    return {'publishers': len(list(node.publishers)),
            'subscriptions': len(list(node.subscriptions)),
            'clients': len(list(node.clients)), 'services': len(list(node.services)),
            'timers': len(list(node.timers)), 'waitables': len(list(node.waitables))}


__all__ = ['client', 'counts', 'destroy', 'publisher', 'subscription', 'waitables',
           'waitables_unsafe', 'waitables_warning']
