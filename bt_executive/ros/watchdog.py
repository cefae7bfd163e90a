"""End a ROS process that hangs while releasing its ROS entities at exit.

Under heavy load (50 ROS processes stopping at once on 2 cores) rclpy was seen to block
for good in the last steps of a shutdown: rclpy's EventsExecutor ``shutdown()`` in the
executive, Fast DDS deleting a data writer (``destroy_publisher``) in the sim. By then
the executive has cancelled its goals (the sim's robot stops with its process), so the
processes start an :class:`ExitWatchdog` before those steps: if they block, the process
still ends, with the exit status it was going to return, instead of staying behind.
"""

from __future__ import annotations

import os
import sys
import threading

#: Seconds allowed for releasing ROS entities at exit.
CLEANUP_TIMEOUT = 10.0


class ExitWatchdog:
    """End the process with ``status`` if :meth:`cancel` is not called within ``seconds``.

    For the last steps of shutdown (releasing ROS entities): if they block, the process
    still exits, with the status it was going to return.
    """

    def __init__(self, seconds: float, status: int) -> None:
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(seconds, status),
                                        name='exit-watchdog', daemon=True)
        self._thread.start()

    def _run(self, seconds: float, status: int) -> None:
        if not self._done.wait(seconds):
            sys.stderr.write(f'{os.path.basename(sys.argv[0]) or "python"}: releasing ROS '
                             f'entities took longer than {seconds:g} s at exit; exiting '
                             f'with status {status}\n')
            sys.stderr.flush()
            os._exit(status)

    def cancel(self) -> None:
        """Shutdown finished in time."""
        self._done.set()
