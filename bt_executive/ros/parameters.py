# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's ROS parameters: names, defaults, descriptions, ranges, and declaring them.

`executive --help` (ros/usage.py), the lifecycle executive and the scenario harness read
the same table.
"""

from __future__ import annotations

from typing import Any, Optional

from bt_executive.ros.leaves.backoff import PARAMETERS as BACKOFF_PARAMETERS
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

#: Parameters that select the tree; setting either swaps the running tree.
TREE_PARAMETERS = ('tree_file', 'tree_name')

#: Parameters that change when the tree is ticked.
TICK_PARAMETERS = ('tick_mode', 'tick_rate', 'max_tick_rate', 'heartbeat_period')

#: The values of the tick_mode parameter (bt_executive/ros/ticking.py).
TICK_MODES = ('periodic', 'event')

#: The values of the execute_tree_policy parameter (bt_executive/ros/execute_tree.py).
GOAL_POLICIES = ('reject', 'preempt')

#: The executive's ROS parameters: name -> (default, description, (lowest, highest) for
#: numbers or None, read-only).
PARAMETERS: dict[str, tuple[Any, str, Optional[tuple[float, float]], bool]] = {
    'tree_file': ('', 'YAML tree file; setting it swaps the tree at runtime', None, False),
    'tree_name': ('', "tree to run ('' = the file's main tree)", None, False),
    'tick_mode': ('periodic', "'periodic': tick_rate ticks per second; 'event': tick when "
                  'something the tree depends on happens (plus heartbeat_period)', None,
                  False),
    'tick_rate': (10.0, 'ticks per second in periodic mode', (0.1, 1000.0), False),
    'max_tick_rate': (100.0, 'event mode: the highest tick rate (Hz)', (0.1, 10000.0),
                      False),
    'heartbeat_period': (1.0, 'event mode: seconds from one tick to the next when nothing '
                         'happens', (0.001, 3600.0), False),
    'setup_timeout': (5.0, 'seconds allowed for setting up the leaves', (0.0, 600.0), False),
    'shutdown_timeout': (3.0, 'seconds to wait for goal cancels to be acknowledged on stop',
                         (0.0, 600.0), False),
    'status_period': (1.0, 'seconds between ~/status heartbeats', (0.05, 3600.0), False),
    'status_keys': ([''], 'blackboard keys included in ~/status (JSON-safe rendering)', None,
                    False),
    'snapshot_keys': ([''], "blackboard keys included in ~/snapshot ('*' = every key)", None,
                      False),
    'snapshot_heartbeat': (10.0, 'seconds between full ~/snapshot keyframes (one also goes '
                           'out after 50 deltas and on a tree swap; 0 = only those)',
                           (0.0, 3600.0), False),
    'snapshot_keepalive': (1.0, 'seconds without a ~/snapshot or ~/snapshot_delta message '
                           'after which a heartbeat delta (seq, stamp, tick) goes out; '
                           "viewers' stale detection (0 = off)", (0.0, 3600.0), False),
    'snapshot_on_change': (False, 'also publish the full ~/snapshot on every change (besides '
                           '~/snapshot_delta: the whole tree on each change)', None, False),
    'record_file': ('', 'record ~/snapshot, ~/snapshot_delta, ~/events, ~/status to this MCAP '
                    "file ('' = off; docs/recording.md)", None, True),
    'record_max_size': (0, 'bytes per record_file split (0 = one file)', (0, 1 << 50), True),
    'record_foxglove': (True, 'also write the Foxglove companion of record_file (run.mcap -> '
                        'run.foxglove.mcap: the channels bt-executive foxglove serves)', None,
                        True),
    'foxglove_port': (0, 'serve the tree to the Foxglove app on this WebSocket port (0 = off; '
                      'the channels of bt-executive foxglove)', (0, 65535), True),
    'foxglove_address': ('127.0.0.1', 'address the Foxglove server binds (default loopback; '
                         "only an explicit '0.0.0.0' opens every interface)", None, True),
    'groot2_port': (0, 'serve Groot2 monitoring on this TCP port (0 = off)', (0, 65535),
                    True),
    'groot2_address': ('127.0.0.1', 'address the Groot2 server binds (default loopback; only '
                       "an explicit '0.0.0.0' opens every interface)", None, True),
    'idle': (False, 'start without running a tree: trees run only for ExecuteTree goals '
             "(~/execute_tree), taken from tree_file or the goal's file; docs/execute_tree.md",
             None, True),
    'execute_tree_policy': ('reject', "an ExecuteTree goal while another runs: 'reject' the "
                            "new one or 'preempt' the running one", None, False),
    'typed_topics': (True, 'publish ~/tree_status and ~/transitions (bt_executive_interfaces) '
                     'beside the JSON topics, when that package is installed', None, True),
    'debug': (False, 'allow debugging the live tree through ~/debug/... (breakpoints, '
              'stepping, substituted results, blackboard edits; docs/debugging.md); off: '
              'every debug request is refused', None, True),
    'state_file': ('', "the state file of the persistent blackboard keys ('' = off): written "
                   'after each tick that wrote one, restored at start when it belongs to the '
                   'same tree (README: Crash and resume)', None, True),
    'persistent_keys': ([''], "blackboard keys persisted besides the tree file's "
                        "'persistent' ones", None, True),
    'resume': (True, 'restore the state file at start (false: start fresh; the file is '
               'overwritten by the next checkpoint)', None, True),
    'checkpoint_interval': (0.1, 'seconds between two writes of the state file at least (a '
                            'write held back goes out after it)', (0.0, 60.0), True),
    **BACKOFF_PARAMETERS,  # backoff, backoff_max: failing ROS leaves wait before resending
}


def declare_parameters(node: Any, table: dict[str, Any]) -> None:
    """Declare every parameter of ``table`` on ``node`` with its descriptor (range, read-only)."""
    for name, (default, description, bounds, read_only) in table.items():
        descriptor = ParameterDescriptor(description=description, read_only=read_only)
        if bounds is not None and isinstance(default, float):
            descriptor.floating_point_range = [
                FloatingPointRange(from_value=bounds[0], to_value=bounds[1], step=0.0)]
        elif bounds is not None:
            descriptor.integer_range = [
                IntegerRange(from_value=int(bounds[0]), to_value=int(bounds[1]), step=1)]
        node.declare_parameter(name, default, descriptor)


def parameter_values(node: Any, table: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """Return the current values of ``table``'s parameters (default: :data:`PARAMETERS`).

    The one way the executive's parts read their settings: the core reads the table and
    hands each part its values (the outputs of ros/snapshot_topics.py, for instance).
    A parameter the node does not declare is left out.
    """
    return {name: node.get_parameter(name).value for name in (table or PARAMETERS)
            if node.has_parameter(name)}
