# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Code style: ament_flake8 over the package, tests, benchmarks and setup.py."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.linter
def test_flake8():
    main = pytest.importorskip('ament_flake8.main')
    paths = [os.path.join(ROOT, name)
             for name in ('bt_executive', 'test', 'bench', 'launch', 'setup.py')
             if os.path.exists(os.path.join(ROOT, name))]
    rc, errors = main.main_with_errors(argv=paths)
    assert rc == 0, \
        'Found %d code style errors / warnings:\n' % len(errors) + '\n'.join(errors)
