# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The exit watchdog ends a process whose exit hangs, even inside C code holding the GIL.

In the scale benchmark an executive's main thread blocked inside rclpy's
``executor.shutdown()`` (C code holding the GIL) and the old watchdog, a Python thread,
could never run. Each test runs a real interpreter that arms the watchdog and then blocks;
the bound has to come from outside the interpreter (faulthandler's C thread).
"""

from bt_executive.ros.watchdog import WATCHDOG_EXIT_STATUS
from helpers import run_python

#: Seconds the subprocesses would block without the watchdog: far beyond every timeout.
BLOCK = 600
#: Seconds a test waits for its subprocess (the watchdog fires after 0.5 s).
TIMEOUT = 120


def arm_then(block: str, seconds: float = 0.5) -> str:
    return ('from bt_executive.ros.watchdog import ExitWatchdog\n'
            f'ExitWatchdog({seconds}, "the test shutdown")\n'
            f'{block}\n'
            'print("the block returned")\n')


def test_it_fires_while_the_main_thread_blocks_in_c_code_holding_the_gil():
    # ctypes.PyDLL calls keep the GIL: no Python thread can run during this sleep()
    process = run_python(arm_then(f'import ctypes\nctypes.PyDLL(None).sleep({BLOCK})'),
                         timeout=TIMEOUT)
    assert process.returncode == WATCHDOG_EXIT_STATUS == 1, process.stderr
    assert 'the block returned' not in process.stdout
    assert process.stderr.startswith('Timeout (0:00:00.500000)!'), process.stderr
    assert 'File "<string>", line 4 in <module>' in process.stderr  # where it hung
    # the Python thread that explains could not run: only the C thread's report is there
    assert 'is taking too long' not in process.stderr


def test_it_explains_itself_when_the_interpreter_lets_it():
    # time.sleep releases the GIL: the explaining thread writes its line before the end
    process = run_python(arm_then(f'import time\ntime.sleep({BLOCK})'), timeout=TIMEOUT)
    assert process.returncode == WATCHDOG_EXIT_STATUS, process.stderr
    first, second = process.stderr.splitlines()[:2]
    assert first == ('-c: the test shutdown is taking too long at exit; the exit watchdog '
                     'ends the process at 0.5 s with status 1 (the stacks follow)')
    assert second == 'Timeout (0:00:00.500000)!'
    assert 'File "<string>", line 4 in <module>' in process.stderr


def test_a_cancelled_watchdog_lets_the_process_run_and_exit_normally():
    script = ('import time\n'
              'from bt_executive.ros.watchdog import ExitWatchdog\n'
              'ExitWatchdog(0.3).cancel()\n'
              'time.sleep(1.0)\n'
              'ExitWatchdog(30.0).cancel()\n'  # armed again: one timer per process
              'print("still here")\n')
    process = run_python(script, timeout=TIMEOUT)
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == 'still here'
    assert process.stderr == ''
