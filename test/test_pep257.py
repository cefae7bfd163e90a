# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Docstring style: ament_pep257 over the package and the tests."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Our docstrings use Google style (summary on the first line, 'Args:' / 'Returns:' /
# 'Raises:' sections without dashed underlines), as many ROS 2 Python packages do.
# On top of the default 'ament' convention, ignore the checks that only fit other
# styles: D213 (summary on the second line), D406 (section name without colon),
# D407 (dashed underline below a section name) and D413 (blank line after the last
# section).
GOOGLE_STYLE_IGNORES = ['D213', 'D406', 'D407', 'D413']


@pytest.mark.linter
def test_pep257():
    main = pytest.importorskip('ament_pep257.main')
    paths = [os.path.join(ROOT, name) for name in ('bt_executive', 'test', 'tools')]
    rc = main.main(argv=[*paths, '--add-ignore', *GOOGLE_STYLE_IGNORES])
    assert rc == 0, 'Found code style errors / warnings'
