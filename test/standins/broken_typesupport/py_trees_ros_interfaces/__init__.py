# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: a py_trees_ros_interfaces whose type support cannot load."""
