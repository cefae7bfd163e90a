# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Benchmark: loading and building a 1000-node tree from YAML (target < 0.2 s)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from bt_executive.core.builder import build  # noqa: E402
from bt_executive.core.loader import Loader  # noqa: E402
from bt_executive.nodes.catalogue import default_registry  # noqa: E402
from common import best_of, bushy_tree_yaml, flat_tree_yaml  # noqa: E402

TARGET_SECONDS = 0.2


def run() -> list[tuple[str, str, str, str]]:
    """Measure load+build of flat and bushy 1000-node trees; return table rows."""
    rows = []
    for label, text in (('flat', flat_tree_yaml(1000)), ('bushy', bushy_tree_yaml(1000))):
        registry = default_registry()

        def load_and_build() -> None:
            document = Loader(registry).load_text(text, name=f'{label}.yaml')
            build(document, registry=registry)

        def load_only() -> None:
            Loader(registry).load_text(text, name=f'{label}.yaml')

        total = best_of(load_and_build, repeat=5)
        loading = best_of(load_only, repeat=5)
        rows.append((f'load+build 1000-node {label} tree', f'{total * 1000:.1f} ms',
                     f'target {TARGET_SECONDS * 1000:.0f} ms',
                     f'{total / TARGET_SECONDS:.2f}x of target'))
        rows.append(('  of which YAML load+validate', f'{loading * 1000:.1f} ms', '', ''))
    return rows


if __name__ == '__main__':
    for row in run():
        print(' | '.join(row))
