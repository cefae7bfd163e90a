# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Bound the exit of a ROS process from outside it: a stop signal ends it, whatever it does.

The exit watchdog (ros/watchdog.py) is armed by Python code: by the executive's signal
handler or when the stop begins. A process whose main thread is stuck in C code holding
the GIL (a callback deadlocked in a native library, Fast DDS in its own teardown) never
runs that code: Python runs a signal handler only between bytecodes, in the main thread.
What still happens in such a process is the C part of the interpreter's signal handler:
it writes the signal's number to the file descriptor given to ``signal.set_wakeup_fd``,
taking no lock and not the GIL.

:class:`ExitGuard` starts a small guard process (this file run as a script by the same
interpreter with ``-I -S``, in a session of its own so a terminal's Ctrl-C or a group
kill of the executive does not reach it; it imports nothing but the standard library)
and makes the write end of a pipe to it the process's wakeup fd. The guard:

- forwards every signal number to :attr:`ExitGuard.signals` (read by the executive's
  ``SignalWaker``, which wakes the executor as before);
- on SIGINT, SIGTERM or SIGHUP, or when the executive says its stop began (``stop``),
  arms a deadline: the bound (:meth:`ExitGuard.set_bound`: the longest
  ``shutdown_timeout`` plus :data:`~bt_executive.ros.watchdog.CLEANUP_TIMEOUT` plus
  :data:`GUARD_MARGIN`, so the in-process watchdog, which prints every thread's stack,
  fires first whenever it can);
- if the executive is still alive at the deadline, writes one line to stderr and sends
  it SIGKILL (exit status -9 in ``ros2 launch`` and Popen, 137 in a shell);
- ends as soon as the executive is gone (its ends of the pipes close).

The executive suspends the deadline when ``serve()`` returns (``pause``: a program that
calls ``main()`` and goes on is not killed) and restores it when the interpreter exits
(``resume``, from an ``atexit`` hook; at least :data:`EXIT_GRACE` from then), so the rest
of the exit (module teardown, the C++ static destructors of Fast DDS) stays bounded too.
One guard per process: a second ``serve()`` ends the first's.

Test-only fault injection (never set it in production): the environment variable
:data:`HANG_VARIABLE`, ``BT_EXECUTIVE_TEST_HANG=POINT:HOW``, makes :func:`hang_point`
block for ever at ``POINT`` (``executor.shutdown``, ``destroy_node``): with ``HOW`` =
``gil`` in C code holding the GIL (a normal mutex locked twice through ``ctypes.PyDLL``),
with ``wait`` in a wait that releases it. test/ros/test_exit_bounds.py uses it.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Optional

#: Seconds the guard waits beyond the in-process watchdog's bound before it kills.
GUARD_MARGIN = 2.0
#: The signals that stop an executive (the guard arms its deadline on each).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Seconds the interpreter's exit gets at least once ``main()`` has returned (see
#: :meth:`ExitGuard.detach`): a program that called it and went on has its own exit.
EXIT_GRACE = 10.0
#: Test-only: ``POINT:HOW`` makes :func:`hang_point` block (see the module docstring).
HANG_VARIABLE = 'BT_EXECUTIVE_TEST_HANG'


class ExitGuard:
    """Start the guard process and route the process's signals through it.

    Args:
        program: the command's name, for the guard's message
        bound: seconds from a stop signal to the kill (until :meth:`set_bound`)

    Raises:
        OSError: the guard process could not be started.
    """

    def __init__(self, program: str, bound: float) -> None:
        to_guard, self._wakeup = os.pipe()
        self.signals, from_guard = os.pipe()
        control, self._control = os.pipe()
        os.set_blocking(self._wakeup, False)
        try:
            self._process = subprocess.Popen(
                [sys.executable, '-I', '-S', os.path.abspath(__file__), str(os.getpid()),
                 str(to_guard), str(from_guard), str(control), program, f'{bound:.6f}'],
                pass_fds=(to_guard, from_guard, control), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        except OSError:
            for fd in (to_guard, self._wakeup, self.signals, from_guard, control,
                       self._control):
                os.close(fd)
            raise
        for fd in (to_guard, from_guard, control):
            os.close(fd)
        self._previous = signal.set_wakeup_fd(self._wakeup, warn_on_full_buffer=False)
        self._attached = True
        self._closed = False
        global _current
        if _current is not None:  # one guard per process: the newest serve()'s
            _current.close()
        _current = self
        atexit.register(self._say, f'resume {EXIT_GRACE:g}')

    def _say(self, line: str) -> None:
        if self._closed:
            return
        try:
            os.write(self._control, f'{line}\n'.encode())
        except OSError:
            pass  # the guard is gone: nothing left to tell

    def set_bound(self, seconds: float) -> None:
        """Make ``seconds`` the time from a stop signal to the kill (also when armed)."""
        self._say(f'bound {seconds:.6f}')

    def stopping(self, why: str) -> None:
        """Arm the deadline now if no signal armed it (a stop that came another way)."""
        self._say(f'stop {why}')

    def detach(self) -> None:
        """Give the wakeup fd back and suspend the deadline until the interpreter exits.

        ``main()`` has returned: the process should end now, but a program that calls it
        and goes on must not be killed. An ``atexit`` hook restores the deadline, or
        :data:`EXIT_GRACE` from then if that is later.
        """
        if self._attached:
            self._attached = False
            signal.set_wakeup_fd(self._previous)
        self._say('pause')

    def close(self) -> None:
        """End the guard process (a newer one takes over); idempotent."""
        self.detach()
        self._say('done')
        if not self._closed:
            self._closed = True
            for fd in (self._wakeup, self.signals, self._control):
                os.close(fd)


_current: Optional[ExitGuard] = None


def hang_point(point: str) -> None:
    """Block for ever here if the test-only :data:`HANG_VARIABLE` names ``point``."""
    wanted, _, how = os.environ.get(HANG_VARIABLE, '').partition(':')
    if wanted != point:
        return
    print(f'{HANG_VARIABLE}: blocking in {point} ({how or "wait"})', file=sys.stderr,
          flush=True)
    if how == 'gil':
        block_holding_the_gil()
    threading.Event().wait()


def block_holding_the_gil() -> None:
    """Block for ever in C code that keeps the GIL (test-only: a deadlocked native call).

    A default (normal) pthread mutex locked a second time by its owner deadlocks; through
    ``ctypes.PyDLL`` the call keeps the GIL, and a mutex wait is not ended by signals.
    """
    import ctypes  # test-only: not imported by a running executive

    libc = ctypes.PyDLL(None)
    mutex = ctypes.create_string_buffer(64)  # zeroed: PTHREAD_MUTEX_INITIALIZER (glibc)
    libc.pthread_mutex_lock(mutex)
    libc.pthread_mutex_lock(mutex)


def _guard(parent: int, signals: int, forward: int, control: int, program: str,
           bound: float) -> None:
    """Run the guard (see the module docstring) until the parent is gone or killed."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    os.set_blocking(forward, False)
    armed: Optional[float] = None  # when the stop began
    not_before = 0.0  # the exit after main() returned gets at least its own grace
    cause = ''
    paused = False
    while True:
        deadline = None if armed is None or paused else max(armed + bound, not_before)
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([signals, control], [], [], timeout)
        if not ready:
            _kill(parent, program, cause, bound)
            return
        for fd in ready:
            data = os.read(fd, 4096)
            if not data:
                return  # the parent is gone
            if fd == signals:
                try:
                    os.write(forward, data)
                except OSError:
                    pass  # nobody reads the signals now (after serve() returned)
                stops = [number for number in data if number in STOP_SIGNALS]
                if stops and armed is None:
                    armed, cause = time.monotonic(), signal.Signals(stops[0]).name
                continue
            for line in data.decode('ascii', 'replace').splitlines():
                word, _, value = line.partition(' ')
                if word == 'bound':
                    bound = float(value)
                elif word == 'stop' and armed is None:
                    armed, cause = time.monotonic(), value
                elif word == 'pause':
                    paused = True
                elif word == 'resume':  # the interpreter exits
                    paused = False
                    not_before = time.monotonic() + float(value)
                    if armed is None:
                        armed, cause = time.monotonic(), 'the exit began'
                elif word == 'done':
                    return


def _kill(parent: int, program: str, cause: str, bound: float) -> None:
    try:
        os.kill(parent, 0)
    except OSError:
        return
    os.write(2, f'{program}: still running {bound:g} s after {cause} (stuck where the exit '
             f'watchdog cannot run, e.g. in C code holding the GIL): the exit guard ends '
             f'it with SIGKILL\n'.encode())
    try:
        os.kill(parent, signal.SIGKILL)
    except OSError:
        pass


if __name__ == '__main__':
    _guard(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
           sys.argv[5], float(sys.argv[6]))
