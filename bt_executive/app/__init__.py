# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The applications: the command line, the demo and the bring-up of the patrol."""
