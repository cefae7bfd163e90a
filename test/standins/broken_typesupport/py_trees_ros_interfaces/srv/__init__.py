# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: service classes whose type support cannot be loaded."""

from py_trees_ros_interfaces._standin import service

CloseSnapshotStream = service('CloseSnapshotStream')
OpenSnapshotStream = service('OpenSnapshotStream')
ReconfigureSnapshotStream = service('ReconfigureSnapshotStream')
