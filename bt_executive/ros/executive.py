# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive: a ROS 2 node that loads a YAML tree, ticks it and controls it at runtime.

``ros2 run bt_executive executive --ros-args -p tree_file:=config/patrol.yaml``

The node is a thin adapter: everything it does is its
:class:`~bt_executive.ros.core.ExecutiveCore`'s (``self.core``), which it makes on
itself; :class:`CoreAccess` gives the node the core's public face.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

from bt_executive.core.registry import Registry
from bt_executive.ros.core import ExecutiveCore, IMPORTED_AT, json_safe, ros_registry, \
    start_streams
from bt_executive.ros.host import LoadedTree, TreeHost
from bt_executive.ros.memory import defer_for_programs
from bt_executive.ros.parameters import declare_parameters, PARAMETERS
from bt_executive.ros.serve import serve
from bt_executive.ros.usage import handle_arguments
from py_trees.common import Status
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.utilities import remove_ros_args


def node_options(namespace: Optional[str], context: Any) -> dict[str, Any]:
    """Return rclpy Node keyword arguments for the namespace and context given (if any)."""
    options: dict[str, Any] = {}
    if namespace is not None:
        options['namespace'] = namespace
    if context is not None:
        options['context'] = context
    return options


class CoreAccess:
    """The executive core's public face on a node that holds one (``self.core``).

    The node classes (plain, lifecycle, fleet) hold a core and forward to it; nothing
    here overrides anything of rclpy's.
    """

    core: Optional[ExecutiveCore] = None
    clean = True  # no stop left a goal cancel unacknowledged (the lifecycle's can)

    def _core(self) -> ExecutiveCore:
        assert self.core is not None, 'the executive core is not made yet'
        return self.core

    @property
    def host(self) -> Optional[TreeHost]:
        """Return the tree host."""
        return self.core.host if self.core is not None else None

    @property
    def ticker(self) -> Any:
        """Return what decides when to tick: periodic, event, idle or the harness's."""
        return self._core().ticker

    @property
    def timing(self) -> Any:
        """Return the tick timing statistics."""
        return self._core().timing

    @property
    def snapshots(self) -> Any:
        """Return the current tree's snapshot model (None before a tree)."""
        return self._core().snapshots

    @property
    def snapshot_topics(self) -> Any:
        """Return the JSON topics' publisher (ros/snapshot_topics.py)."""
        return self._core().snapshot_topics

    @property
    def groot2(self) -> Any:
        """Return the Groot2 server (None when off)."""
        return self._core().groot2

    @property
    def callback_faults(self) -> Any:
        """Return the counter of exceptions raised by ROS callbacks."""
        return self._core().callback_faults

    @property
    def registry(self) -> Registry:
        """Return the node types."""
        return self._core().registry

    @property
    def tick_phase(self) -> Optional[float]:
        """Return where in the period periodic ticks fall (fleet.py)."""
        return self._core().tick_phase

    @property
    def tree(self) -> Optional[LoadedTree]:
        """Return the tree being run (None before one is loaded)."""
        return self._core().host.tree  # type: ignore[union-attr]

    @property
    def retiring(self) -> list[LoadedTree]:
        """Return the trees stopped by a swap whose cancels are still awaited."""
        return self._core().host.retiring  # type: ignore[union-attr]

    @property
    def tick_count(self) -> int:
        """Return the ticks of the current tree since it was installed or reset."""
        return self._core().host.tick_count  # type: ignore[union-attr]

    @property
    def running(self) -> bool:
        """Tell whether the tree is being ticked (not paused, stopped or terminated)."""
        return self._core().host.running  # type: ignore[union-attr]

    @property
    def terminated(self) -> Optional[str]:
        """Return what a Terminate node said, if one ended the tree."""
        return self._core().host.terminated  # type: ignore[union-attr]

    @property
    def last_failure(self) -> str:
        """Return why the root last failed ('' if it has not)."""
        return self._core().host.last_failure  # type: ignore[union-attr]

    @property
    def last_status(self) -> Status:
        """Return the root's status after the last tick."""
        return self._core().host.last_status  # type: ignore[union-attr]

    def load(self, tree_file: str, tree_name: str = '') -> LoadedTree:
        """Load, validate, build and set up a tree (:meth:`ExecutiveCore.load`)."""
        return self._core().load(tree_file, tree_name)

    def tick_once(self) -> Any:
        """Tick the tree once now (:meth:`ExecutiveCore.tick_once`)."""
        return self._core().tick_once()

    def tick_interval(self) -> Optional[float]:
        """Return the seconds between ticks (None: not known)."""
        return self._core().tick_interval()

    def status(self) -> dict[str, Any]:
        """Return the status published on ~/status."""
        return self._core().status()

    def publish_status(self, *, force: bool = False) -> None:
        """Publish ~/snapshot and ~/events on change, ~/status on change or heartbeat."""
        self._core().publish_status(force=force)

    def blackboard_storage(self) -> dict[str, Any]:
        """Return this executive's blackboard storage (``/key -> value``)."""
        return self._core().blackboard_storage()

    def now_seconds(self) -> float:
        """Return the node clock in seconds (the tick's time during a tick)."""
        return self._core().now_seconds()

    def request_tick(self, source: Any = None) -> None:
        """Ask for a tick soon (:meth:`ExecutiveCore.request_tick`)."""
        self._core().request_tick(source)

    def request_tick_now(self, source: Any = None) -> None:
        """Tick at once if ``max_tick_rate`` allows (:meth:`ExecutiveCore.request_tick_now`)."""
        self._core().request_tick_now(source)

    def note_decision(self, source: Any, text: str, topic: str = 'goal') -> None:
        """Write a rate-limited debug line about what ``source`` (a leaf) just did."""
        self._core().note_decision(source, text, topic)

    def pause(self) -> str:
        """Halt the tree (cancelling its goals) and stop ticking."""
        return self._core().pause()

    def resume(self) -> str:
        """Start ticking again (the tree restarts from its root; the blackboard is kept)."""
        return self._core().resume()

    def reset(self) -> str:
        """Halt the tree, restore the initial blackboard and limits, and tick again."""
        return self._core().reset()

    def reload(self) -> str:
        """Reload the current tree file (rejected, old tree kept, if it became invalid)."""
        return self._core().reload()

    def stop_tree(self, executor: Any, *, timeout: Optional[float] = None,
                  waited: float = 0.0) -> bool:
        """Halt every tree and spin until goal cancels are acknowledged (bounded)."""
        return self._core().stop_tree(executor, timeout=timeout, waited=waited)

    def halt_all(self) -> None:
        """Halt every tree (goal cancels are sent) without awaiting; see ros/serve.py."""
        self._core().halt_all()

    def finish(self) -> None:
        """End the node's own life before it is destroyed (nothing here; see lifecycle.py)."""

    def close_core(self) -> None:
        """Halt and release everything of the core (the node's ``destroy_node`` calls it)."""
        if self.core is not None:
            self.core.close()


class Executive(CoreAccess, Node):
    """Tick a behaviour tree described in YAML and control it at runtime.

    ROS Parameters:
        tree_file (string): the tree file; setting it swaps the tree (rejected if invalid)
        tree_name (string): the tree to run ('' = the file's main tree)
        tick_mode (string): 'periodic' (tick_rate ticks per second) or 'event' (tick
        when something the tree depends on happens; bt_executive/ros/ticking.py)
        tick_rate (double): ticks per second in periodic mode (0.1 .. 1000)
        max_tick_rate (double): event mode: the highest tick rate (Hz)
        heartbeat_period (double): event mode: seconds between ticks when nothing happens
        setup_timeout (double): seconds allowed for setting up the tree's leaves
        shutdown_timeout (double): seconds to wait for goal cancels to be acknowledged
        status_period (double): seconds between status heartbeats
        snapshot_keys (string[]): blackboard keys included in ~/snapshot ('*' = all)
        snapshot_heartbeat (double): seconds between full ~/snapshot keyframes (10; 0 =
        only on a structure change and every 50 deltas)
        snapshot_keepalive (double): seconds of silence after which a heartbeat delta
        goes out on ~/snapshot_delta (1; 0 = off)
        snapshot_on_change (bool): also publish ~/snapshot on every change (default off)
        record_file, record_max_size: record the topics below to MCAP (docs/recording.md)
        groot2_port (int): serve the Groot2 monitoring protocol on this TCP port (0 = off;
        read at start; docs/groot2.md)
        groot2_address (string): the address the Groot2 server binds ('127.0.0.1')
        backoff, backoff_max (double): a failed ROS leaf's next goal waits backoff s,
        doubled per further failure up to backoff_max (bt_executive/ros/leaves/backoff.py)
        idle (bool): start without a tree; run trees only for ExecuteTree goals (read at
        start; docs/execute_tree.md)
        execute_tree_policy (string): a goal while one runs: 'reject' or 'preempt'
        typed_topics (bool): publish ~/tree_status and ~/transitions (read at start)

    ROS Publishers:
        ~/status (std_msgs/String, latched): JSON with tree, file, root status, tick
        count, running (being ticked), paused and terminated (who ended the tree and
        why), last failure reason, tick timing and the number of exceptions raised by
        ROS callbacks (``callback_errors``; see CallbackFaults)
        ~/snapshot (std_msgs/String, latched): the tree snapshot (docs/snapshots.md), on
        a structure change, every snapshot_heartbeat s, after 50 deltas, and on every
        change with snapshot_on_change
        ~/snapshot_delta (std_msgs/String, transient local, depth 100): each change's
        delta; a heartbeat delta after snapshot_keepalive s without one
        ~/events (std_msgs/String, reliable, transient local, depth 20): status
        transitions, one message per tick that moved something (late joiners get the last 20)
        ~/snapshots (py_trees_ros_interfaces/BehaviourTree, latched): the default
        py_trees_ros snapshot stream
        ~/tree_status (bt_executive_interfaces/TreeStatus, latched), ~/transitions
        (TransitionLog): typed, where bt_executive_interfaces is installed

    ROS Action Servers:
        ~/execute_tree (bt_executive_interfaces/action/ExecuteTree): run a tree, get its
        result (bt_executive/ros/execute_tree.py), where bt_executive_interfaces is
        installed

    ROS Services:
        ~/pause, ~/resume, ~/reset, ~/reload (std_srvs/Trigger); ~/list_trees
        (bt_executive_interfaces/srv/ListTrees) where that package is installed;
        py_trees_ros' snapshot streams where py_trees_ros_interfaces is installed
        (bt_executive/ros/streams.py); ~/debug/... (bt_executive/ros/debug_services.py);
        rclpy's parameter services. None of these, nor ~/execute_tree, with
        ``services=False``: the scenario harness drives the executive through its methods,
        nothing outside its process can reach it, and every entity less makes each of its
        executor's waits cheaper. ``give_way_after_send=False`` drops the short pause after
        a tick that sent a goal or a message (:class:`~bt_executive.ros.spin.GiveWayAfterSend`,
        for receivers in other processes; the harness has every receiver in its executor)
    """

    def __init__(self, *, node_name: str = 'bt_executive', namespace: Optional[str] = None,
                 parameter_overrides: Optional[list[Parameter]] = None,
                 registry: Optional[Registry] = None, context: Any = None,
                 services: bool = True, give_way_after_send: bool = True):
        kwargs = node_options(namespace, context)
        super().__init__(node_name, parameter_overrides=parameter_overrides or [],
                         start_parameter_services=services, **kwargs)
        try:
            declare_parameters(self, PARAMETERS)
        except ParameterException:  # a value of the wrong type or out of range
            super().destroy_node()  # nothing of ours exists yet
            raise
        try:
            self.core = ExecutiveCore(self, registry=registry, services=services,
                                      give_way_after_send=give_way_after_send)
            self.add_on_set_parameters_callback(self.core.on_set_parameters)
            self.core.load_first_tree()
        except BaseException:  # never leave a half-built node (rclpy would destroy it later)
            self.destroy_node()
            raise

    def destroy_node(self) -> None:
        """Halt the tree (goal cancels are sent) and release everything, then destroy.

        ``main()`` calls :meth:`stop_tree` first. Destroying the node directly does the
        same when the node has an executor to spin (bounded by ``shutdown_timeout``);
        without one the cancels are sent but their delivery is not awaited.
        """
        self.close_core()
        super().destroy_node()


def main(args: Optional[list[str]] = None, *, registry: Optional[Registry] = None) -> int:
    """Run the executive until SIGINT/SIGTERM/SIGHUP; cancel goals before exiting.

    Args:
        args: command-line arguments for rclpy (default: ``sys.argv``)
        registry: the node types (default: :func:`ros_registry`); a launcher of its own
            passes e.g. ``ros_registry()`` plus its types here and keeps the safe stop
            (docs/plugins.md)

    Returns:
        0 after a clean stop (a signal or a ROS shutdown), as ROS nodes do, and after
        ``--help`` (which starts no node); 1 when the first tree could not be loaded or a
        goal cancel was not acknowledged within ``shutdown_timeout`` (a stop that hangs is
        ended by the exit watchdog, also with 1); 2 for a bad parameter value.
    """
    done = handle_arguments(remove_ros_args(sys.argv if args is None else args)[1:],
                            PARAMETERS)
    if done is not None:
        return done
    defer_for_programs()  # messages one by one as used, no code generator (ros/memory.py)
    return serve('executive', lambda made: made.append(Executive(registry=registry)), args)


__all__ = ['CoreAccess', 'Executive', 'IMPORTED_AT', 'json_safe', 'main', 'node_options',
           'ros_registry', 'start_streams']

if __name__ == '__main__':
    sys.exit(main())
