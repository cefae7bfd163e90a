# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""File formats and renderings: BT.CPP XML, Graphviz dot, the text outline, reference docs."""
