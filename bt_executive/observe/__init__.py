# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Observing a running tree: the tick record, the snapshot model, the Groot2 server (no ROS)."""
