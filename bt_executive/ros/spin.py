# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Spinning the executive's process: the executor, callback faults, signal wake-ups."""

from __future__ import annotations

import gc
import inspect
import math
import os
import signal
import threading
import time
import traceback
from typing import Any, Callable, Mapping, Optional

from bt_executive.ros.leaves.common import take_sent
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
    pass a ``TimerInfo`` to a callback that asks for one). For a bound method that is
    8-10 us on a quiet machine, about 60 us in a fleet process of 40 executives (400
    ticks a second, traced 2026-11-28); a plain function carrying its ``__signature__``
    answers at once. Wrappers made with :func:`functools.wraps` copy the attribute.
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
    needs a CPU. Without this the executive kept one for the other observers (snapshot,
    delta, Groot2, the py_trees_ros stream) and the topics' publishing, 0.3-0.8 ms; with
    a CPU-bound neighbour holding the other core the receiver waited for it
    (BENCHMARKS.md, reaction latency). A :data:`SEND_PAUSE` sleep leaves the CPU free for
    the receiver, and costs no CPU. ``os.sched_yield``, tried first, does not do that
    under the kernel's EEVDF scheduler: it hands the CPU to whatever else is runnable, the
    busy neighbour included, for a whole time slice (about 1 ms here).

    The pause covers the receiver's side: its DDS thread wakes its executor, which runs
    the callback, 0.5-0.7 ms at the median and 1.3-1.5 ms at p99 on this 2-core machine
    (the plain-rclpy floor's cancel -> server callback). A 0.5 ms pause ended before that
    chain had run in one reaction out of ten, quiet machine or not. At 1 ms, beside a
    CPU-bound neighbour, the chain had not run by the pause's end in 6-18 reactions per
    1000, and then it waited for the CPU until the observers were done: 4-5 ms reactions,
    which made the p99.9. At 2-2.5 ms it was 0-2 per 1000. The sleep costs no CPU, and
    in event mode it falls inside the rate cap's interval anyway (10 ms at the default
    ``max_tick_rate``), so the next tick comes no later; the pause never takes more than
    :data:`PAUSE_SHARE` of the tick interval. Pausing only when no CPU was free (by the
    kernel's count of runnable tasks) was measured too, and was worse on the quiet
    machine: in the reactions it did not pause, a CPU free by the count, the receiver
    still waited behind the observers (return half p50 1.2 against 0.6 ms).

    The leaves note their sends (``note_sent`` in ros/leaves/common.py), inside a tick
    or out of it (a halt's cancels); the next record, of a tick or a halt, pays the
    pause once. Ticks that sent nothing (every tick of a tree without ROS leaves) pay
    nothing. What the viewers get is unchanged, and in the same order.

    ``BT_EXECUTIVE_GIVE_WAY=off`` (:data:`GIVE_WAY_SWITCH`, read when the observer is
    made) turns the pause off; BENCHMARKS.md has the reaction latencies with and without.

    Args:
        interval: returns the current tick interval in seconds (None: not known)
        environ: where the switch is read (default: ``os.environ``)
    """

    def __init__(self, interval: Optional[Callable[[], Optional[float]]] = None,
                 environ: Optional[Mapping[str, str]] = None) -> None:
        self._interval = interval
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
        if take_sent() and self.enabled:
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
    handler runs as ``spin_once`` returns.
    """

    def __init__(self, executor: Any) -> None:
        self._executor = executor
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._thread = threading.Thread(target=self._run, name='signal-waker', daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                data = os.read(self._read, 64)
            except OSError:
                return
            if not data:
                return
            if data.strip(b'\xff'):  # signal numbers
                self._executor.wake()
            if b'\xff' in data:  # close() asks the thread to end
                return

    def close(self) -> None:
        """Restore the previous wakeup fd and end the thread."""
        signal.set_wakeup_fd(self._previous)
        os.write(self._write, b'\xff')
        self._thread.join(timeout=1.0)
        os.close(self._read)
        os.close(self._write)


class StartInterrupted(BaseException):
    """A signal arrived while the executive was starting (not an Exception: never caught)."""


__all__ = ['CallbackFaults', 'GIVE_WAY_SWITCH', 'GiveWayAfterSend', 'make_executor', 'PAUSE_SHARE', 'SEND_PAUSE',
           'SignalWaker', 'StartInterrupted', 'timer_callback']
