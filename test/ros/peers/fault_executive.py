#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real executive (``bt_executive.ros.executive.main``) with the fault node types.

Usage: exactly like the executive, e.g. ``fault_executive.py --ros-args -p tree_file:=t.yaml``.
The catalogue gets the node types of ``test/ros/fault_nodes.py`` (``Raise``,
``RaisingSequence``, ``SlowSetup``); everything else is the unmodified executive, so its
signal handling, logging and exit codes are what the tests observe.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import bt_executive.ros.executive as executive  # noqa: E402, I100
from fault_nodes import fault_registry  # noqa: E402

if __name__ == '__main__':
    sys.exit(executive.main(registry=fault_registry(executive.ros_registry())))
