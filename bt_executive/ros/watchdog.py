# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Bound the time a ROS process takes to exit, whatever its interpreter is doing.

Under heavy load (50 ROS processes stopping at once on 2 cores) rclpy was seen to block
for good in the last steps of a shutdown: rclpy's EventsExecutor ``shutdown()`` in the
executive, Fast DDS deleting a data writer (``destroy_publisher``) in the sim. Such a call
is C code that may hold the GIL, so no Python thread can run until it returns: a watchdog
thread waiting on an ``Event`` never wakes (an executive of the scale benchmark ignored
SIGINT for 60 s that way).

:class:`ExitWatchdog` therefore uses :func:`faulthandler.dump_traceback_later`, whose timer
is a C thread that never takes the GIL. When it fires it writes ``Timeout (0:00:13)!`` and
the stack of every Python thread to stderr (where the process was stuck) and ends the
process with ``_exit(1)``: exit status :data:`WATCHDOG_EXIT_STATUS`. It was chosen over
``setitimer`` with SIGALRM's default action (the kernel ends the process; status -14 in
``ros2 launch``) because it says where the process hung and leaves the process's signal
dispositions alone (SIGALRM stays free for plugins; rclpy's and our own handlers are not
touched). A Python thread also writes a one-line explanation when the deadline passes, if
the interpreter lets it run.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading

#: Seconds allowed for releasing ROS entities at exit (after the goals are cancelled).
CLEANUP_TIMEOUT = 10.0

#: The exit status of a process ended by the watchdog (faulthandler's ``_exit(1)``).
WATCHDOG_EXIT_STATUS = 1

#: Seconds between the explanation line and the end of the process.
_EXPLAIN_AHEAD = 0.2


class ExitWatchdog:
    """End the process if :meth:`cancel` is not called within ``seconds``.

    Arm it when exiting starts; if what follows blocks (even in C code holding the GIL),
    the process still ends, with the stack of every thread on stderr and exit status
    :data:`WATCHDOG_EXIT_STATUS`. One watchdog per process at a time (faulthandler has one
    timer).

    Args:
        seconds: the bound on the rest of the exit
        what: what is being waited for, for the explanation line
    """

    def __init__(self, seconds: float, what: str = 'releasing ROS entities') -> None:
        self._done = threading.Event()
        faulthandler.dump_traceback_later(seconds, exit=True, file=_stderr_fd())
        self._thread = threading.Thread(target=self._explain, args=(seconds, what),
                                        name='exit-watchdog', daemon=True)
        self._thread.start()

    def _explain(self, seconds: float, what: str) -> None:
        if self._done.wait(max(0.0, seconds - _EXPLAIN_AHEAD)):
            return
        name = os.path.basename(sys.argv[0]) or 'python'
        try:
            os.write(_stderr_fd(), f'{name}: {what} is taking too long at exit; the exit '
                     f'watchdog ends the process at {seconds:g} s with status '
                     f'{WATCHDOG_EXIT_STATUS} (the stacks follow)\n'.encode())
        except OSError:
            pass

    def cancel(self) -> None:
        """Disarm: exiting finished in time."""
        self._done.set()
        faulthandler.cancel_dump_traceback_later()


def _stderr_fd() -> int:
    """Return stderr's file descriptor (2 when sys.stderr has none, e.g. under capture)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return 2


__all__ = ['CLEANUP_TIMEOUT', 'ExitWatchdog', 'WATCHDOG_EXIT_STATUS']
