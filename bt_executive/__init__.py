# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""bt_executive: a ROS 2 behaviour-tree executive driven by YAML trees.

The package has three layers: the tree core (no ROS import: ``spec``, ``loader``,
``expressions``, ``registry``, ``nodes``, ``behaviours``, ``builder``), the ROS layer
(``bt_executive.ros``) and the observers (snapshots and viewers).
"""

__version__ = '0.1.0'
