# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The exit guard (bt_executive/ros/exit_guard.py) on its own: a process that only has it.

Each case runs a small Python program as a subprocess: it starts a guard with a short
bound, installs a signal handler that only notes the signal (as the executive's does),
sends itself SIGTERM and then does what the case says. test/ros/test_exit_bounds.py has
the guard at work in real executives.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

PROGRAM = textwrap.dedent("""
    import os, signal, sys, time
    from bt_executive.ros.exit_guard import ExitGuard
    guard = ExitGuard('guarded', 0.5)
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    os.kill(os.getpid(), signal.SIGTERM)
    if sys.argv[1] == 'detach':
        guard.detach()  # main() returned: the program goes on, and is not killed
    time.sleep(1.5)
    print('survived', flush=True)
""")


@pytest.mark.parametrize('case, status', [('stuck', -signal.SIGKILL), ('detach', 0)])
def test_the_guard_kills_what_outlives_its_bound_unless_main_returned(case, status):
    started = time.monotonic()
    result = subprocess.run([sys.executable, '-c', PROGRAM, case], capture_output=True,
                            text=True, timeout=30)
    took = time.monotonic() - started
    assert result.returncode == status, result.stderr
    if status:
        assert 'still running 0.5 s after SIGTERM' in result.stderr
        assert 'survived' not in result.stdout and took < 1.5
    else:
        assert 'survived' in result.stdout and result.stderr == ''
