# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""STAND-IN for Nav2's ``nav2_msgs`` in the tests: see test/standins/README.md."""

STANDIN = True
