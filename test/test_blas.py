# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""numpy's OpenBLAS keeps to one thread in bt_executive's programs (bt_executive/ros/blas.py)."""

import os
import pathlib
import subprocess
import sys

from bt_executive.ros import blas
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def no_numpy(monkeypatch):
    """Make the process look as a program does at start: no numpy, no variable."""
    monkeypatch.delenv(blas.BLAS_THREADS, raising=False)
    monkeypatch.delitem(sys.modules, 'numpy', raising=False)


def test_a_program_asks_for_one_thread(no_numpy):
    assert blas.one_blas_thread() is True
    assert os.environ[blas.BLAS_THREADS] == '1'


def test_the_users_value_wins(no_numpy, monkeypatch):
    monkeypatch.setenv(blas.BLAS_THREADS, '4')
    assert blas.one_blas_thread() is False
    assert os.environ[blas.BLAS_THREADS] == '4'


def test_nothing_once_numpy_is_imported(no_numpy, monkeypatch):
    monkeypatch.setitem(sys.modules, 'numpy', object())
    assert blas.one_blas_thread() is False
    assert blas.BLAS_THREADS not in os.environ


def test_the_command_line_asks_before_a_ros_check_imports_numpy():
    """``bt-executive validate`` on a tree with ROS leaves imports numpy, after the call."""
    environment = {name: value for name, value in os.environ.items()
                   if name != blas.BLAS_THREADS}
    done = subprocess.run(
        [sys.executable, '-c',
         'import os, sys\n'
         'from bt_executive.app.cli import main\n'
         'status = main(["validate", "-q", sys.argv[1]])\n'
         'print(status, "numpy" in sys.modules, os.environ.get("OPENBLAS_NUM_THREADS"))\n',
         str(ROOT / 'config' / 'patrol.yaml')],
        capture_output=True, text=True, env=environment, timeout=120, cwd=ROOT)
    assert done.stdout.split() == ['0', 'True', '1'], done.stdout + done.stderr
