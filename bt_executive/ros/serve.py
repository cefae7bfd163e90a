# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run executives in this process until a signal: start, spin, stop cleanly, exit status.

One path for ``executive`` (one executive, bt_executive/ros/executive.py) and
``fleet_executive`` (several on one executor, bt_executive/ros/fleet.py): a signal
while the first trees load gives up at once (exit 0: nothing ticked, no goal was
sent); afterwards it ends the spin, every tree is halted (goal cancels sent), the
cancels of all executives are awaited together (up to the longest
``shutdown_timeout``), and everything is released under the exit watchdog.

The exit is bounded twice: the exit watchdog (ros/watchdog.py), armed by the signal
handler (or when a stop that came another way begins), ends the process with status 1
and every thread's stack ``shutdown_timeout`` + ``CLEANUP_TIMEOUT`` after the signal;
the exit guard (ros/exit_guard.py), a process of its own that hears the signal even when
no Python code can run here, kills it ``GUARD_MARGIN`` later if it is still there.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any, Callable, Optional

from bt_executive.core.errors import TreeError
from bt_executive.ros.dds_profile import in_effect, use_dds_profile
from bt_executive.ros.exit_guard import ExitGuard, GUARD_MARGIN, hang_point
from bt_executive.ros.parameters import PARAMETERS
from bt_executive.ros.spin import (freeze_startup_objects, make_executor, SignalWaker,
                                   StartInterrupted)
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT, ExitWatchdog
import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException

#: Starts the executives, appending each to the list as soon as it exists.
Start = Callable[[list[Any]], None]


def serve(program: str, start: Start, args: Optional[list[str]] = None,
          *, started: Optional[Callable[[list[Any]], None]] = None,
          finished: Optional[Callable[[], bool]] = None, linger: float = 0.0) -> int:
    """Start executives with ``start``, spin them until a signal, stop them; exit status.

    Args:
        program: the command's name, for messages
        start: makes the executives (appending each to its list argument)
        args: command-line arguments for rclpy (default: ``sys.argv``)
        started: called with the executives once they are all made, before spinning
        finished: also ends the spin when it returns True (a lifecycle executive's
            shutdown transition); the executor then spins ``linger`` seconds more so
            the answers already made (the transition's response) go out
        linger: see ``finished``

    Each executive's ``stop_tree`` halts its tree; an executive whose ``clean`` is False
    (an earlier stop left cancels unacknowledged) makes the status 1; ``finish()`` runs
    before it is destroyed (the lifecycle executive's shutdown transition).

    Returns:
        0 after a clean stop (a signal or a ROS shutdown); 1 when a first tree could not
        be loaded or a goal cancel was not acknowledged within ``shutdown_timeout`` (a
        stop that hangs is ended by the exit watchdog, also with 1, ``shutdown_timeout``
        + ``CLEANUP_TIMEOUT`` after the signal; if even that cannot run, the exit guard
        kills the process ``GUARD_MARGIN`` later: SIGKILL); 2 for a bad parameter value.
    """
    applied = use_dds_profile()  # before ROS starts: histories per message (ros/dds_profile.py)
    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    received: list[int] = []
    starting = [True]
    status = 0
    executives: list[Any] = []
    watchdogs: list[ExitWatchdog] = []
    grace = [float(PARAMETERS['shutdown_timeout'][0])]  # until the executives say theirs
    guard = _start_guard(program, grace[0])

    arming = threading.Lock()

    def arm(what: str) -> None:
        """Arm the exit watchdog (once) and tell the guard the current bound.

        Called by the signal handler (main thread), by the signal waker's thread (when a
        callback blocked in a wait keeps the handler from running) and when stopping.
        """
        if watchdogs or not arming.acquire(blocking=False):
            return
        try:
            grace[0] = max((_shutdown_timeout(e) for e in executives), default=grace[0])
        except Exception:  # noqa: B902 - an executive half made or gone: keep the last
            pass
        watchdogs.append(ExitWatchdog(grace[0] + CLEANUP_TIMEOUT, what))
        if guard is not None:
            guard.set_bound(grace[0] + CLEANUP_TIMEOUT + GUARD_MARGIN)
            guard.stopping('the stop')  # armed already if a signal came first

    def on_signal(signum: int, frame: Any) -> None:
        received.append(signum)
        arm('stopping the tree and releasing ROS entities')
        if starting:  # loading or setting up the first trees: give that up at once
            starting.clear()
            raise StartInterrupted()

    added: list[Any] = []
    executor = make_executor()
    waker = None
    try:
        try:
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, on_signal)
            start(executives)
            if started is not None:
                started(executives)
        except TreeError:
            rclpy.logging.get_logger(program).info(in_effect(applied))
            return 1
        except ParameterException as error:
            print(f'{program}: {error} ({program} --help lists the parameters)',
                  file=sys.stderr)
            return 2
        except StartInterrupted:  # nothing ticked yet, so no goal was sent: a clean stop
            return 0
        finally:
            starting.clear()
        # said once the parameters were taken: a bad parameter's exit stays one line
        rclpy.logging.get_logger(program).info(in_effect(applied))
        for executive in executives:
            executor.add_node(executive)
            added.append(executive)
        grace[0] = max((_shutdown_timeout(e) for e in executives), default=grace[0])
        if guard is not None:
            guard.set_bound(grace[0] + CLEANUP_TIMEOUT + GUARD_MARGIN)
        freeze_startup_objects()  # shorter collector pauses in reactions (ros/spin.py)
        waker = SignalWaker(executor, source=guard.signals if guard is not None else None,
                            on_stop=lambda: arm('stopping the tree and releasing ROS '
                                                'entities'))
        done = finished or (lambda: False)
        _spin(executor, executives[0], lambda: bool(received) or done())
        if done() and not received:  # let the answers already made go out
            deadline = time.monotonic() + linger
            _spin(executor, executives[0], lambda: bool(received)
                  or time.monotonic() >= deadline, step=max(linger / 5, 0.01))
    except ExternalShutdownException:
        pass
    finally:
        # Under heavy load (50 ROS processes stopping at once) rclpy's EventsExecutor
        # shutdown was seen to block for good, in C code holding the GIL: the watchdog
        # bounds the whole exit whatever the interpreter does (ros/watchdog.py), and the
        # guard what the watchdog cannot (ros/exit_guard.py).
        arm('stopping the tree and releasing ROS entities')
        if waker is not None:
            waker.close()
        if executives and not stop_executives(executor, executives):
            status = 1  # a goal may still be active on the robot: not a clean stop
        if not all(executive.clean for executive in executives):
            status = 1  # an earlier stop (a lifecycle transition) was not clean
        for executive in executives:
            executive.finish()
            if executive in added:
                executor.remove_node(executive)
        # The executor lets go of the nodes' entities before they are destroyed: the
        # other order had rclpy's EventsExecutor tear down the listeners of destroyed
        # entities in shutdown(), where 32 of 50 executives stopped at once on a loaded
        # machine blocked holding the GIL (test/ros/test_exit_storm.py).
        hang_point('executor.shutdown')  # test-only fault injection (ros/exit_guard.py)
        executor.shutdown()
        for executive in executives:
            hang_point('destroy_node')
            executive.destroy_node()
        rclpy.try_shutdown()
        for watchdog in watchdogs:
            watchdog.cancel()
        if guard is not None:
            guard.detach()
    return status


def _start_guard(program: str, grace: float) -> Optional[ExitGuard]:
    """Start the exit guard; None (said on stderr) if no process can be started."""
    try:
        return ExitGuard(program, grace + CLEANUP_TIMEOUT + GUARD_MARGIN)
    except (OSError, ValueError) as error:  # ValueError: not the main thread
        print(f'{program}: no exit guard ({error}): a stop that hangs in C code holding '
              'the GIL is not bounded', file=sys.stderr)
        return None


def _spin(executor: Any, executive: Any, until: Callable[[], bool], *,
          step: float = 1.0) -> None:
    """Spin until ``until()`` or rclpy shuts down; a signal wakes the executor at once.

    The timeout is only a safety net (SignalWaker); an exception of a callback is
    counted in ``executive``'s callback faults and the executor carries on.
    """
    while rclpy.ok() and not until():
        try:
            executor.spin_once(timeout_sec=step)
        except ExternalShutdownException:
            raise
        except Exception as error:  # a callback raised; the executor carries on
            executive.callback_faults.report(error)


def _shutdown_timeout(executive: Any) -> float:
    return float(executive.get_parameter('shutdown_timeout').value)


def stop_executives(executor: Any, executives: list[Any]) -> bool:
    """Halt every executive's trees, await all their goal cancels together, release them.

    Each executive waits at most its own ``shutdown_timeout`` from the moment all were
    halted. Returns True if every cancel was acknowledged in time.
    """
    if len(executives) == 1:
        return bool(executives[0].stop_tree(executor))
    for executive in executives:
        executive.halt_all()
    start = time.monotonic()
    deadline = start + max(_shutdown_timeout(e) for e in executives)
    while time.monotonic() < deadline:
        pending = [e for e in executives if e.host.outstanding()
                   and time.monotonic() - start < _shutdown_timeout(e)]
        if not pending:
            break
        executor.spin_once(timeout_sec=min(0.05, max(0.0, deadline - time.monotonic())))
    waited = time.monotonic() - start
    results = [executive.stop_tree(executor, waited=min(waited, _shutdown_timeout(executive)))
               for executive in executives]
    return all(results)


__all__ = ['serve', 'stop_executives']
