# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""TEST STAND-IN: a py_trees_ros_interfaces that fails to import (see ../../README.md)."""
