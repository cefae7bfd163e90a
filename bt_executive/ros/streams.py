# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The py_trees_ros snapshot stream: an observer that publishes for py_trees_ros' viewers.

Only where py_trees_ros and py_trees_ros_interfaces are installed (they are not on PyPI,
so the pip-only setup has neither; :data:`AVAILABLE` says which).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from bt_executive.observe.record import TickRecord
from bt_executive.ros.subscriptions import qos_profile
from py_trees.common import Status

try:  # optional: py_trees_ros viewers
    from py_trees_ros import conversions as py_trees_ros_conversions
    from py_trees_ros_interfaces.msg import BehaviourTree as PyTreesRosTree
except ImportError:
    py_trees_ros_conversions = None

#: Whether py_trees_ros (and its interfaces) can be imported here.
AVAILABLE = py_trees_ros_conversions is not None


class PyTreesRosStream:
    """Publish the tree as py_trees_ros_interfaces/BehaviourTree after ticks that moved it.

    An observer of the tree's records; only made where py_trees_ros is installed.
    """

    def __init__(self, node: Any, tree: Callable[[], Optional[Any]]) -> None:
        self._tree = tree
        self._publisher = node.create_publisher(PyTreesRosTree, '~/snapshots',
                                                qos_profile('latched'))

    def on_tick(self, record: TickRecord) -> None:
        """Publish the whole tree when the record changed a status or a message."""
        tree = self._tree()
        if not record.changes or tree is None:
            return
        behaviours = []
        for behaviour in tree.root.iterate():
            message = py_trees_ros_conversions.behaviour_to_msg(behaviour)
            message.is_active = behaviour.status is not Status.INVALID
            behaviours.append(message)
        self._publisher.publish(PyTreesRosTree(behaviours=behaviours))


__all__ = ['AVAILABLE', 'PyTreesRosStream']
