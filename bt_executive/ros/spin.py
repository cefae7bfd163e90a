# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Spinning the executive's process: the executor, callback faults, signal wake-ups."""

from __future__ import annotations

import gc
import inspect
import math
import os
import select
import signal
import threading
import time
import traceback
from typing import Any, Callable, Mapping, Optional

from bt_executive.ros.exit_guard import STOP_SIGNALS
from bt_executive.ros.memory import trim_heap
from rclpy.executors import SingleThreadedExecutor


def make_executor() -> Any:
    """Return the executor that spins the executive.

    rclpy's EventsExecutor (``rclpy.experimental``) where available: a wake-up costs about
    a third of the SingleThreadedExecutor's, which is most of an idle executive's CPU.
    ``BT_EXECUTIVE_EXECUTOR=single`` selects the SingleThreadedExecutor.
    """
    if os.environ.get('BT_EXECUTIVE_EXECUTOR', 'events') != 'single':
        try:
            from rclpy.experimental import EventsExecutor
        except ImportError:
            pass
        else:
            return EventsExecutor()
    return SingleThreadedExecutor()


#: The signature of a callback that takes nothing.
_NO_ARGUMENTS = inspect.Signature()


def timer_callback(function: Callable[[], Any]) -> Callable[[], Any]:
    """Return ``function`` as a timer callback whose signature is read at no cost.

    rclpy reads a timer callback's signature on every call (``inspect.signature``, to
    pass a ``TimerInfo`` to a callback that asks for one), which is slow for a bound
    method (BENCHMARKS.md, "Why the tricks are there"); a plain function carrying its
    ``__signature__`` answers at once. Wrappers made with :func:`functools.wraps` copy
    the attribute.
    """
    def call() -> Any:
        return function()
    call.__signature__ = _NO_ARGUMENTS  # type: ignore[attr-defined]
    call.__qualname__ = getattr(function, '__qualname__', call.__qualname__)
    call.__name__ = getattr(function, '__name__', call.__name__)
    return call


def freeze_startup_objects() -> None:
    """Move the objects made while starting out of the garbage collector's way.

    After start-up the process holds some 50,000 tracked objects (modules, the tree, the
    message types) that live until exit; a full collection walks them all, 5-9 ms on this
    machine, and may fall inside a reaction. Collected once (so no cycle of start-up
    garbage is kept) and frozen (:func:`gc.freeze`), they are never walked again; what
    the run allocates later is collected as before. Then the C heap's free pages go back
    to the system (:func:`~bt_executive.ros.memory.trim_heap`: about 0.4 MiB).
    """
    gc.collect()
    gc.freeze()
    trim_heap()


#: Set to ``off`` (or 0, false, no) to never pause after a send (:class:`GiveWayAfterSend`).
GIVE_WAY_SWITCH = 'BT_EXECUTIVE_GIVE_WAY'
#: Seconds the executive's thread sleeps after a tick that sent something to another
#: process, before the other tick observers run (:class:`GiveWayAfterSend`), unless a
#: quarter of the tick interval is shorter (:data:`PAUSE_SHARE`).
SEND_PAUSE = 2.5e-3
#: The largest share of the tick interval (``1 / max_tick_rate`` in event mode, the period
#: in periodic mode) that the pause may take.
PAUSE_SHARE = 0.25


class GiveWayAfterSend:
    """A tick observer, first of all: after a send, sleep briefly before the other observers.

    A tick that sent a goal, a cancel, a request or a message wakes the process receiving
    it, and the remote half of the reaction (the receiver's DDS thread, then its callback)
    needs a CPU. Without the pause the executive kept one for the other observers
    (snapshot, delta, Groot2, the py_trees_ros stream) and the topics' publishing; with a
    CPU-bound neighbour holding the other core the receiver waited for it. A
    :data:`SEND_PAUSE` sleep leaves the CPU free for the receiver, and costs no CPU; in
    event mode it falls inside the rate cap's interval anyway, and it never takes more
    than :data:`PAUSE_SHARE` of the tick interval. Why 2.5 ms, and the alternatives tried
    (``os.sched_yield``, shorter pauses, pausing only when no CPU was free), with their
    numbers: BENCHMARKS.md, "Why the tricks are there".

    The leaves note their sends (their host's ``note_sent``; ``sent`` takes them), inside
    a tick or out of it (a halt's cancels); the next record, of a tick or a halt, pays the
    pause once. Ticks that sent nothing (every tick of a tree without ROS leaves) pay
    nothing. What the viewers get is unchanged, and in the same order.

    ``BT_EXECUTIVE_GIVE_WAY=off`` (:data:`GIVE_WAY_SWITCH`, read when the observer is
    made) turns the pause off; BENCHMARKS.md has the reaction latencies with and without.

    Args:
        interval: returns the current tick interval in seconds (None: not known)
        sent: tells whether a leaf sent something since the last call, and forgets it
            (the executive core's ``take_sent``; default: never)
        environ: where the switch is read (default: ``os.environ``)
    """

    def __init__(self, interval: Optional[Callable[[], Optional[float]]] = None, *,
                 sent: Callable[[], bool] = lambda: False,
                 environ: Optional[Mapping[str, str]] = None) -> None:
        self._interval = interval
        self._sent = sent
        environ = os.environ if environ is None else environ
        self.enabled = environ.get(GIVE_WAY_SWITCH, '').strip().lower() not in (
            'off', '0', 'false', 'no')

    def pause(self) -> float:
        """Return the seconds a tick that sent something sleeps."""
        interval = self._interval() if self._interval is not None else None
        if interval is None:
            return SEND_PAUSE
        return min(SEND_PAUSE, PAUSE_SHARE * interval)

    def on_tick(self, record: Any) -> None:
        """Sleep :meth:`pause` seconds if a leaf sent something since the last record."""
        if self._sent() and self.enabled:
            _pause(self.pause())


def _pause(seconds: float) -> None:
    time.sleep(seconds)


class CallbackFaults:
    """Log exceptions raised by ROS callbacks (subscriptions, futures, timers, services).

    The executor hands a callback's exception to whoever spins it; the executive logs it and
    keeps spinning, so one broken callback (a plugin leaf's subscription, say) does not stop
    the tree or leave goals running. Each distinct error (type and raising line) is logged
    with its traceback once; repeats are counted, and logged again as one line at 10, 100,
    1000... occurrences. ``count`` (all of them) is in ~/status as ``callback_errors``.
    """

    def __init__(self, logger: Any) -> None:
        self._logger = logger
        self._seen: dict[tuple[str, str, int], int] = {}
        self.count = 0

    def report(self, error: BaseException) -> None:
        """Log ``error`` (just raised by a callback) as described above."""
        self.count += 1
        frames = traceback.extract_tb(error.__traceback__)
        last = frames[-1] if frames else None
        key = (type(error).__name__, last.filename if last else '', last.lineno if last else 0)
        times = self._seen[key] = self._seen.get(key, 0) + 1
        where = f'{key[1]}:{key[2]}' if last else 'unknown'
        if times == 1:
            text = ''.join(traceback.format_exception(error)).rstrip()
            self._logger.error(f'a ROS callback raised {key[0]}: {error} at {where}; the '
                               f'executive keeps running (logged once)\n{text}')
        elif math.log10(times).is_integer():
            self._logger.error(f'a ROS callback raised {key[0]} at {where} {times} times')


class SignalWaker:
    """Wake the executor when a signal arrives, so the main loop can block in spin_once.

    Python runs signal handlers only between bytecodes, never while ``spin_once`` waits
    in C. ``signal.set_wakeup_fd`` makes the interpreter write each signal to a pipe at
    once; a thread reading the pipe wakes the executor, which ends the wait, and the
    handler runs as ``spin_once`` returns. With ``source``, the thread reads that pipe
    instead: the exit guard's, which holds the wakeup fd and forwards the signals
    (ros/exit_guard.py). ``on_stop`` is called from the thread on SIGINT, SIGTERM and
    SIGHUP: the handler itself runs only when the main thread runs Python code, which a
    callback blocked in a wait may never do again.
    """

    def __init__(self, executor: Any, source: Optional[int] = None,
                 on_stop: Optional[Callable[[], None]] = None) -> None:
        self._executor = executor
        self._on_stop = on_stop
        self._stop_read, self._stop_write = os.pipe()  # close() ends the thread through it
        self._previous: Optional[int] = None
        self._own: tuple[int, ...] = ()
        if source is None:
            self._read, write = os.pipe()
            os.set_blocking(write, False)
            self._previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
            self._own = (self._read, write)
        else:  # the exit guard holds the wakeup fd and forwards the signals (exit_guard.py)
            self._read = source
        self._thread = threading.Thread(target=self._run, name='signal-waker', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._read, self._stop_read], [], [])
                data = b'' if self._stop_read in ready else os.read(self._read, 64)
            except OSError:
                return
            if not data:
                return
            self._executor.wake()  # signal numbers came
            if self._on_stop is not None and any(number in STOP_SIGNALS for number in data):
                self._on_stop()

    def close(self) -> None:
        """Restore the previous wakeup fd and end the thread."""
        if self._previous is not None:
            signal.set_wakeup_fd(self._previous)
        os.write(self._stop_write, b'x')
        self._thread.join(timeout=1.0)
        for fd in (*self._own, self._stop_read, self._stop_write):
            os.close(fd)


class StartInterrupted(BaseException):
    """A signal arrived while the executive was starting (not an Exception: never caught)."""


__all__ = ['CallbackFaults', 'GIVE_WAY_SWITCH', 'GiveWayAfterSend', 'make_executor',
           'PAUSE_SHARE', 'SEND_PAUSE', 'SignalWaker', 'StartInterrupted', 'timer_callback']
