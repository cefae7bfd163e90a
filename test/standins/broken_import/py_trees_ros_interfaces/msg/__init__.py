# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: importing these messages fails with an AttributeError, not ImportError."""

raise AttributeError("module 'py_trees_ros_interfaces.msg' has no attribute "
                     "'_behaviour' (test stand-in: a broken package)")
