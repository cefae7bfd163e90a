# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Code style: ament_flake8 over the package, tests, benchmarks and setup.py.

flake8 checks files in a pool of forked processes. It runs in a fresh interpreter here:
forked from the test process, which other tests leave with DDS threads running, its
workers were seen to crash (SIGSEGV) and the pool to respawn them for ever.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN = """
import sys
from ament_flake8.main import main_with_errors
rc, errors = main_with_errors(argv=sys.argv[1:])
print('\\n'.join(errors))
sys.exit(rc)
"""


@pytest.mark.linter
def test_flake8():
    pytest.importorskip('ament_flake8.main')
    paths = [os.path.join(ROOT, name)
             for name in ('bt_executive', 'test', 'bench', 'launch', 'tools', 'setup.py')
             if os.path.exists(os.path.join(ROOT, name))]
    done = subprocess.run([sys.executable, '-c', RUN, *paths], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, \
        f'flake8 found code style errors (exit {done.returncode}):\n{done.stdout}\n' \
        f'{done.stderr[-2000:]}'
