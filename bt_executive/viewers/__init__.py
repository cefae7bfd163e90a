# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Out-of-process viewers: the terminal watcher and the web page."""
