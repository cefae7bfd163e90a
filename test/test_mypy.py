# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Type checking: mypy over the package, strict on the tree core and the observers."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.linter
def test_mypy(tmp_path):
    pytest.importorskip('mypy', reason='mypy is in requirements-test.txt')
    result = subprocess.run(
        [sys.executable, '-m', 'mypy', '--config-file', os.path.join(ROOT, 'setup.cfg'),
         '--cache-dir', str(tmp_path / 'mypy-cache'), '-p', 'bt_executive.core',
         '-p', 'bt_executive.observe'],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f'mypy found problems:\n{result.stdout}{result.stderr}'
