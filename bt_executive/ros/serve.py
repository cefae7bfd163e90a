# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run executives in this process until a signal: start, spin, stop cleanly, exit status.

One path for ``executive`` (one executive, bt_executive/ros/executive.py) and
``fleet_executive`` (several on one executor, bt_executive/ros/fleet.py): a signal
while the first trees load gives up at once (exit 0: nothing ticked, no goal was
sent); afterwards it ends the spin, every tree is halted (goal cancels sent), the
cancels of all executives are awaited together (up to the longest
``shutdown_timeout``), and everything is released under the exit watchdog.
"""

from __future__ import annotations

import signal
import sys
import time
from typing import Any, Callable, Optional

from bt_executive.core.errors import TreeError
from bt_executive.ros.dds_profile import in_effect, use_dds_profile
from bt_executive.ros.parameters import parameter_values
from bt_executive.ros.realtime import enter_realtime, leave_realtime, PARAMETERS as REALTIME, \
    RealtimeSettings, RealtimeSettingsError
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
        stop that hangs is ended by the exit watchdog, also with 1); 2 for a bad
        parameter value.
    """
    applied = use_dds_profile()  # before ROS starts: histories per message (ros/dds_profile.py)
    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    received: list[int] = []
    starting = [True]
    status = 0

    def on_signal(signum: int, frame: Any) -> None:
        received.append(signum)
        if starting:  # loading or setting up the first trees: give that up at once
            starting.clear()
            raise StartInterrupted()

    executives: list[Any] = []
    added: list[Any] = []
    executor = make_executor()
    waker = realtime = None
    try:
        try:
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, on_signal)
            start(executives)
            if started is not None:
                started(executives)
            settings = realtime_settings(executives)
        except TreeError:
            rclpy.logging.get_logger(program).info(in_effect(applied))
            return 1
        except (ParameterException, RealtimeSettingsError) as error:
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
        freeze_startup_objects()  # shorter collector pauses in reactions (ros/spin.py)
        # off by default; from the thread that spins, before it spins (ros/realtime.py)
        realtime = enter_realtime(settings, executives[0].get_logger())
        between = realtime.between_callbacks if realtime is not None else None
        waker = SignalWaker(executor)
        done = finished or (lambda: False)
        _spin(executor, executives[0], lambda: bool(received) or done(), between=between)
        if done() and not received:  # let the answers already made go out
            deadline = time.monotonic() + linger
            _spin(executor, executives[0], lambda: bool(received)
                  or time.monotonic() >= deadline, step=max(linger / 5, 0.01))
    except ExternalShutdownException:
        pass
    finally:
        # Under heavy load (50 ROS processes stopping at once) rclpy's EventsExecutor
        # shutdown was seen to block for good, in C code holding the GIL: the watchdog
        # bounds the whole exit whatever the interpreter does (ros/watchdog.py).
        grace = max((_shutdown_timeout(e) for e in executives), default=0.0)
        watchdog = ExitWatchdog(grace + CLEANUP_TIMEOUT, 'stopping the tree and releasing '
                                'ROS entities')
        if waker is not None:
            waker.close()
        leave_realtime(realtime)
        if executives and not stop_executives(executor, executives):
            status = 1  # a goal may still be active on the robot: not a clean stop
        if not all(executive.clean for executive in executives):
            status = 1  # an earlier stop (a lifecycle transition) was not clean
        for executive in executives:
            executive.finish()
            if executive in added:
                executor.remove_node(executive)
            executive.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
        watchdog.cancel()
    return status


def _spin(executor: Any, executive: Any, until: Callable[[], bool], *,
          step: float = 1.0, between: Optional[Callable[[], None]] = None) -> None:
    """Spin until ``until()`` or rclpy shuts down; a signal wakes the executor at once.

    The timeout is only a safety net (SignalWaker); an exception of a callback is
    counted in ``executive``'s callback faults and the executor carries on.
    ``between`` runs after each callback (the real-time mode's collector).
    """
    while rclpy.ok() and not until():
        try:
            executor.spin_once(timeout_sec=step)
        except ExternalShutdownException:
            raise
        except Exception as error:  # a callback raised; the executor carries on
            executive.callback_faults.report(error)
        if between is not None:
            between()


def realtime_settings(executives: list[Any]) -> RealtimeSettings:
    """Return the real-time mode's settings: the first executive's (the process's) values.

    The mode is one for the process; a fleet takes the first executive's parameters.
    Raises RealtimeSettingsError for a value the mode cannot use (exit status 2).
    """
    if not executives:
        return RealtimeSettings()
    return RealtimeSettings.from_values(parameter_values(executives[0], REALTIME))


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
