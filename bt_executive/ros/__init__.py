# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ROS layer of bt_executive: everything that imports rclpy or ROS interface packages.

Modules:
    interfaces: the one resolver from type strings such as ``'std_msgs/msg/String'`` to
        interface classes, and the one converter between plain data (dicts, lists, scalars)
        and ROS messages.

The tree core never imports this package; it is only loaded when a tree uses ROS leaves.
"""
