# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: message classes whose type support cannot be loaded."""

from py_trees_ros_interfaces._standin import message

ActivityItem = message('ActivityItem')
Behaviour = message('Behaviour')
BehaviourTree = message('BehaviourTree')
KeyValue = message('KeyValue')
SnapshotStreamParameters = message('SnapshotStreamParameters')
Statistics = message('Statistics')
