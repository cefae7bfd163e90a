# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The typed interfaces of bt_executive_interfaces: finding them, and the typed topics.

``bt_executive_interfaces`` (the folder of that name beside the Python package: built by
colcon, or by ``make env`` into the venv) is optional. :func:`load_interfaces` imports
it once per executive and says in one log line when it is not there; the executive then
works as before, with its JSON topics and without ``~/execute_tree``, ``~/list_trees``
and the typed topics.

:class:`TypedTopics` publishes, beside the JSON topics (which stay):

- ``~/tree_status`` (``TreeStatus``, latched): the same state as ``~/status``, with
  every time ``~/status`` goes out;
- ``~/transitions`` (``TransitionLog``, reliable, transient local, the last 20): the
  status changes of each tick that changed something, as ``~/events``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any, Callable, Optional

from bt_executive.observe.record import TickRecord
from bt_executive.ros import entities
from bt_executive.ros.snapshot_topics import EVENTS_HISTORY, history_qos
from py_trees.common import Status

#: The package the typed interfaces come from.
PACKAGE = 'bt_executive_interfaces'

#: py_trees' statuses as the messages' ``uint8`` constants (INVALID 0 ... FAILURE 3).
STATUS_CODES = {Status.INVALID: 0, Status.RUNNING: 1, Status.SUCCESS: 2, Status.FAILURE: 3}


@dataclasses.dataclass(frozen=True)
class Interfaces:
    """The types of bt_executive_interfaces the executive uses."""

    ExecuteTree: Any  # noqa: N815 - the interfaces' own names
    ListTrees: Any  # noqa: N815
    TreeStatus: Any  # noqa: N815
    TransitionLog: Any  # noqa: N815
    StatusChange: Any  # noqa: N815
    TreeInfo: Any  # noqa: N815
    KeyValue: Any  # noqa: N815


def load_interfaces(logger: Any) -> Optional[Interfaces]:
    """Import bt_executive_interfaces with its type support; None (logged once) if absent.

    The source folder alone (a checkout on ``sys.path``) imports as an empty namespace
    package, so the types themselves are asked for; a package whose type support does not
    load (a partial install) counts as absent too.
    """
    try:
        action = importlib.import_module(f'{PACKAGE}.action')
        msg = importlib.import_module(f'{PACKAGE}.msg')
        srv = importlib.import_module(f'{PACKAGE}.srv')
        types = Interfaces(ExecuteTree=action.ExecuteTree, ListTrees=srv.ListTrees,
                           TreeStatus=msg.TreeStatus, TransitionLog=msg.TransitionLog,
                           StatusChange=msg.StatusChange, TreeInfo=msg.TreeInfo,
                           KeyValue=msg.KeyValue)
        from rclpy.type_support import check_for_type_support
        for kind in (types.ExecuteTree, types.ListTrees, types.TreeStatus, types.TransitionLog):
            check_for_type_support(kind)
    except Exception as error:  # noqa: B902 - ImportError, AttributeError, a broken build
        reason = 'is not installed' if isinstance(error, (ImportError, AttributeError)) \
            else f'does not load ({type(error).__name__}: {error})'
        logger.info(f'typed interfaces: off ({PACKAGE} {reason}; make env or colcon builds '
                    'it): no ~/execute_tree, ~/list_trees, ~/tree_status, ~/transitions')
        return None
    return types


def key_values(types: Interfaces, values: dict[str, Any]) -> list[Any]:
    """Return ``KeyValue`` messages of JSON-safe values (the value as JSON text)."""
    return [types.KeyValue(key=str(key), value=json.dumps(value)) for key, value in
            values.items()]


class TypedTopics:
    """Publish ``~/tree_status`` and ``~/transitions`` (module docstring).

    Args:
        node: the executive's node
        types: the loaded interfaces
    """

    def __init__(self, node: Any, types: Interfaces) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        self.node = node
        self.types = types
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.status_publisher = entities.publisher(node, types.TreeStatus, '~/tree_status',
                                                   latched)
        self.transition_publisher = entities.publisher(
            node, types.TransitionLog, '~/transitions', history_qos(EVENTS_HISTORY))

    def publish_status(self, status: dict[str, Any], *, goal_tree: str = '') -> None:
        """Publish ``status`` (the dict of ``~/status``) as a ``TreeStatus``."""
        types = self.types
        message = types.TreeStatus(
            stamp=self.node.get_clock().now().to_msg(), tree=status.get('tree') or '',
            file=status.get('file') or '',
            root_status=STATUS_CODES.get(Status[status.get('root_status', 'INVALID')], 0),
            tick_count=int(status.get('tick_count', 0)), running=bool(status.get('running')),
            paused=bool(status.get('paused')), terminated=status.get('terminated') or '',
            last_failure=status.get('last_failure') or '',
            active_path=list(status.get('active', [])),
            tick_duration_ms=float(status.get('tick_duration_ms', 0.0)),
            callback_errors=int(status.get('callback_errors', 0)), goal_tree=goal_tree,
            blackboard=key_values(types, status.get('blackboard', {})))
        self.status_publisher.publish(message)

    def observer(self, tree_name: str, node_type: Callable[[Any], str]
                 ) -> TransitionObserver:
        """Return the post-tick handler that publishes a tree's transitions.

        Args:
            tree_name: the tree's name
            node_type: the node type of a behaviour (the tree's node table)
        """
        return TransitionObserver(self, tree_name, node_type)


class TransitionObserver:
    """A post-tick handler: one ``TransitionLog`` per tick that changed a status."""

    def __init__(self, topics: TypedTopics, tree_name: str,
                 node_type: Callable[[Any], str]) -> None:
        self.topics = topics
        self.tree_name = tree_name
        self.node_type = node_type

    def on_tick(self, record: TickRecord) -> None:
        """Publish the record's status changes, if it has any."""
        moved = record.transitions
        if not moved:
            return
        types = self.topics.types
        changes = [status_change(types, change, self.node_type(change.behaviour))
                   for change in moved]
        self.topics.transition_publisher.publish(types.TransitionLog(
            stamp=self.topics.node.get_clock().now().to_msg(), tree=self.tree_name,
            tick=record.tick, changes=changes))


def status_change(types: Interfaces, change: Any, node_type: str) -> Any:
    """Return a ``StatusChange`` message of a tick record's transition."""
    return types.StatusChange(node_path=change.id, node_type=node_type,
                              previous_status=STATUS_CODES[change.old],
                              status=STATUS_CODES[change.new], reason=change.reason or '')


class TypedInterfaces:
    """What bt_executive_interfaces adds to one executive core; nothing when not installed.

    The typed topics (parameter ``typed_topics``) and the ExecuteTree server
    (:mod:`bt_executive.ros.execute_tree`), made once with the core for the node's life:
    the action server is a Waitable, which must not come and go while the executor spins.

    Args:
        core: the executive core
        action: serve ExecuteTree (False: the core makes no services)

    Attributes:
        types: the interfaces (None when not installed)
        topics: the typed topics (None when off)
        server: the ExecuteTree server (None without the interfaces or ``action``)
    """

    def __init__(self, core: Any, *, action: bool = True) -> None:
        self.types = load_interfaces(core.logger)
        self.topics: Optional[TypedTopics] = None
        self.server: Any = None
        if self.types is None:
            return
        if core.param('typed_topics'):
            self.topics = TypedTopics(core.node, self.types)
        if action:
            from bt_executive.ros.execute_tree import ExecuteTreeServer  # imports this module
            self.server = ExecuteTreeServer(core, self.types)

    def idle_note(self, tree_file: str) -> str:
        """Return the log line of an executive started idle (parameter ``idle``)."""
        return ('idle: trees run only for ExecuteTree goals on ~/execute_tree'
                + (f" (from '{tree_file}' unless a goal names a file)" if tree_file else '')
                + ('' if self.server is not None else
                   f'; but {PACKAGE} is not installed: nothing will run'))

    def on_install(self, tree: Any) -> None:
        """Publish the new tree's transitions; end a goal whose tree it replaced."""
        if self.topics is not None:
            tree.runner.add_observer(self.topics.observer(tree.name,
                                                          tree.built.nodes.type_name))
        if self.server is not None:
            self.server.on_install(tree)

    def publish_status(self, status: dict[str, Any]) -> None:
        """Publish ``~/tree_status`` (when the typed topics are on)."""
        if self.topics is not None:
            self.topics.publish_status(
                status, goal_tree='' if self.server is None else self.server.goal_tree)

    def close(self) -> None:
        """Destroy the action server (the node is being destroyed; idempotent)."""
        server, self.server = self.server, None
        if server is not None:
            server.destroy()


__all__ = ['Interfaces', 'PACKAGE', 'STATUS_CODES', 'TransitionObserver', 'TypedInterfaces',
           'TypedTopics', 'key_values', 'load_interfaces', 'status_change']
