#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real executive as it runs where bt_executive_interfaces is not installed.

Usage: exactly like the executive. Only the lookup of the DebugCommand service type is
made to find nothing, so ``~/debug/...`` serves its JSON fallback (``~/debug/request``,
``~/debug/reply``); everything else is the unmodified executive.
"""

import sys

import bt_executive.ros.debug_services as debug_services
import bt_executive.ros.executive as executive

debug_services.debug_command_type = lambda logger=None: None  # as if not installed

if __name__ == '__main__':
    sys.exit(executive.main())
