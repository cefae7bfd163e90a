# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real-time mode: a real-time class for the threads that react, locked memory, a quiet GC.

Off by default (``realtime:=false``). When it is on, :func:`enter_realtime` runs once,
after start-up and before the executor spins (ros/serve.py), and gives:

- the **reacting threads** a real-time scheduling class (``SCHED_FIFO`` or ``SCHED_RR``,
  ``realtime_priority``): the thread that spins the executor (it receives every message,
  ticks the tree, sends goals and cancels, and runs the tick observers after the sends)
  and the middleware's reception threads (Fast DDS: ``dds.shm.<port>``,
  ``dds.udp.<port>``, ``dds.tcp.<port>``; Cyclone DDS: ``recv``, ``recvUC``, ``recvMC``,
  ``dq.user``), which hand a message to the executor. Threads the spinning thread
  starts later inherit the class: the EventsExecutor's timer thread (the event ticker's
  rate cap and heartbeat) and the signal waker. Every other thread keeps the normal
  class, below all of these: the viewers' servers (Groot2, Foxglove), the middleware's
  discovery, event, flow-control and shared-memory watchdog threads, logging, tracing;
- optionally (``realtime_cpus``) the reacting threads' CPU affinity;
- optionally (``realtime_lock_memory``, on by default in the mode) ``mlockall``: every page
  of the process, once touched, stays in memory (``MCL_ONFAULT``: pages never touched are
  not made resident), so no page fault of a reaction waits for the disk;
- the garbage collector between callbacks (:class:`QuietCollector`): the objects made
  while starting are frozen anyway (``freeze_startup_objects``, ros/spin.py); in the mode
  the automatic collections, which start at whichever allocation crosses a threshold
  (inside a reaction as often as not), make way for collections of the same
  generations run by the spin loop between two callbacks.

The observers stay on the spinning thread, after the tick's sends: a Python thread of
lower priority would hold the interpreter's lock (GIL) while the reacting thread waits
for it, the priority inversion the mode is there to avoid.

What each step needs from the OS: a real-time class needs ``CAP_SYS_NICE`` or an
``RLIMIT_RTPRIO`` (``ulimit -r``) of at least the priority; ``mlockall`` needs
``CAP_IPC_LOCK`` or an ``RLIMIT_MEMLOCK`` (``ulimit -l``) above the process's size; an
affinity needs only CPUs the process may use. When the OS refuses a step, one warning
line names every refused step and how to grant it; the rest is applied and the
executive runs on, at the normal class if that was refused (docs/realtime.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import gc
import os
import re
import threading
from typing import Any, Mapping, Optional

#: The real-time mode's ROS parameters, in the shape of the executive's ``PARAMETERS``:
#: name -> (default, description, (lowest, highest), read-only).
PARAMETERS: dict[str, tuple[Any, str, Optional[tuple[float, float]], bool]] = {
    'realtime': (False, 'real-time mode (docs/realtime.md): the thread that receives '
                 'messages and ticks, and the DDS reception threads, run at realtime_policy / '
                 'realtime_priority; memory locked; the garbage collector runs between '
                 'callbacks. Needs CAP_SYS_NICE or ulimit -r >= realtime_priority; if '
                 'refused, one warning and the executive runs at normal priority', None, True),
    'realtime_policy': ('fifo', "real-time mode: 'fifo' (SCHED_FIFO) or 'rr' (SCHED_RR)",
                        None, True),
    'realtime_priority': (10, 'real-time mode: the priority (1-99); below the interrupt '
                          'threads of a PREEMPT_RT kernel (50)', (1, 99), True),
    'realtime_cpus': ([-1], 'real-time mode: CPUs of the reacting threads, e.g. [1] or '
                      '[2, 3] ([-1] = any CPU)', None, True),
    'realtime_lock_memory': (True, 'real-time mode: mlockall (needs CAP_IPC_LOCK or ulimit -l '
                             'above the process size)', None, True),
}

#: ``realtime_policy`` values -> (os constant, name).
POLICIES = {'fifo': (os.SCHED_FIFO, 'SCHED_FIFO'), 'rr': (os.SCHED_RR, 'SCHED_RR')}

#: Names of the middleware threads that receive messages (Fast DDS, Cyclone DDS).
RECEPTION_THREAD = re.compile(r'dds\.(shm|udp|tcp)\.\d+|recv|recvUC|recvMC|dq\.user')

#: mlockall flags: the pages mapped now, those mapped later, each locked when first touched
#: (not all at once: a thread's whole 8 MiB stack, every shared-memory segment of the
#: middleware would be made resident; 346 MiB instead of 70 MiB for the patrol).
_MCL_CURRENT, _MCL_FUTURE, _MCL_ONFAULT = 1, 2, 4


class RealtimeSettingsError(ValueError):
    """A real-time parameter has a value the mode cannot use (the program exits with 2)."""


@dataclasses.dataclass(frozen=True)
class RealtimeSettings:
    """The real-time mode's parameter values (see :data:`PARAMETERS`)."""

    enabled: bool = False
    policy: str = 'fifo'
    priority: int = 10
    cpus: frozenset[int] = frozenset()
    lock_memory: bool = True

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> 'RealtimeSettings':
        """Read the parameter values (missing ones: defaults).

        Raises:
            RealtimeSettingsError: an unknown policy, a priority out of 1-99, a bad CPU list
        """
        policy = str(values.get('realtime_policy', 'fifo')).strip().lower()
        if policy not in POLICIES:
            raise RealtimeSettingsError(f"realtime_policy must be 'fifo' or 'rr', got "
                                        f"'{policy}'")
        priority = int(values.get('realtime_priority', 10))
        if not 1 <= priority <= 99:
            raise RealtimeSettingsError(f'realtime_priority must be 1 to 99, got {priority}')
        return cls(enabled=bool(values.get('realtime', False)), policy=policy,
                   priority=priority, cpus=parse_cpus(values.get('realtime_cpus', [-1])),
                   lock_memory=bool(values.get('realtime_lock_memory', True)))


def parse_cpus(value: Any) -> frozenset[int]:
    """Return the CPUs of ``realtime_cpus``: a list of CPU numbers (``[-1]``, ``[]``: any).

    Raises:
        RealtimeSettingsError: a negative number beside others, or not numbers
    """
    try:
        cpus = [int(cpu) for cpu in (value or [])]
    except (TypeError, ValueError):
        raise RealtimeSettingsError(f'realtime_cpus must be a list of CPU numbers such as '
                                    f'[1] or [2, 3], got {value!r}') from None
    if cpus == [-1]:
        return frozenset()
    if any(cpu < 0 for cpu in cpus):
        raise RealtimeSettingsError(f'realtime_cpus: CPU numbers are 0 or more ([-1]: any '
                                    f'CPU), got {cpus}')
    return frozenset(cpus)


def reception_threads() -> list[int]:
    """Return the native ids of this process's middleware reception threads."""
    found = []
    for name in os.listdir('/proc/self/task'):
        try:
            with open(f'/proc/self/task/{name}/comm') as stream:
                comm = stream.read().strip()
        except OSError:  # the thread ended
            continue
        if RECEPTION_THREAD.fullmatch(comm):
            found.append(int(name))
    return sorted(found)


class QuietCollector:
    """Collect garbage between callbacks, never in the middle of one.

    The automatic thresholds are raised ``reserve`` times (a safety net should the spin
    loop stop calling); :meth:`between_callbacks` collects what the interpreter's own
    rule would have collected by now: the youngest generation once ``threshold0``
    allocations are pending, the older ones after ``threshold1`` / ``threshold2``
    collections of the one below.
    """

    def __init__(self, *, reserve: int = 50) -> None:
        self.thresholds = gc.get_threshold()
        gc.set_threshold(self.thresholds[0] * reserve, *self.thresholds[1:])
        #: collections made, per generation
        self.collections = [0, 0, 0]

    def between_callbacks(self) -> None:
        """Collect if a collection is due (cheap when none is: one call into the GC)."""
        counts = gc.get_count()
        if counts[0] < self.thresholds[0]:
            return
        generation = 0
        if counts[1] >= self.thresholds[1]:
            generation = 2 if counts[2] >= self.thresholds[2] else 1
        gc.collect(generation)
        self.collections[generation] += 1

    def close(self) -> None:
        """Give the thresholds back."""
        gc.set_threshold(*self.thresholds)


@dataclasses.dataclass
class RealtimeState:
    """What :func:`enter_realtime` did."""

    #: the scheduling class was set: (policy name, priority, native thread ids)
    scheduled: Optional[tuple[str, int, list[int]]] = None
    #: the CPUs the reacting threads were pinned to
    cpus: frozenset[int] = frozenset()
    locked: bool = False
    #: each refused step, as the log line says it
    refused: list[str] = dataclasses.field(default_factory=list)
    collector: Optional[QuietCollector] = None

    def between_callbacks(self) -> None:
        """Run between two callbacks of the spin loop (the collector)."""
        if self.collector is not None:
            self.collector.between_callbacks()


def enter_realtime(settings: RealtimeSettings, logger: Any, *,
                   libc: Any = None) -> Optional[RealtimeState]:
    """Apply the real-time mode from the spinning thread; None when it is off.

    Logs exactly one line: what was applied (info), or what the OS refused, how to grant
    it, and what was applied anyway (warning).

    Args:
        settings: the mode's parameter values
        logger: the executive's logger
        libc: the C library (tests), default: this process's
    """
    if not settings.enabled:
        return None
    state = RealtimeState()
    reacting = [threading.get_native_id(), *reception_threads()]
    policy, policy_name = POLICIES[settings.policy]
    try:
        os.sched_setscheduler(0, policy, os.sched_param(settings.priority))
    except OSError as error:
        state.refused.append(_refused_class(policy_name, settings.priority, error))
    else:
        for thread in reacting[1:]:
            try:
                os.sched_setscheduler(thread, policy, os.sched_param(settings.priority))
            except ProcessLookupError:  # ended meanwhile
                pass
        state.scheduled = (policy_name, settings.priority, reacting)
    if settings.cpus:
        allowed = frozenset(os.sched_getaffinity(0))
        try:
            os.sched_setaffinity(0, settings.cpus)
        except OSError as error:
            state.refused.append(f'CPU affinity {_cpu_text(settings.cpus)} ({error.strerror}: '
                                 f'this process may use CPUs {_cpu_text(allowed)})')
        else:
            for thread in reacting[1:]:
                with contextlib.suppress(ProcessLookupError):  # ended meanwhile
                    os.sched_setaffinity(thread, settings.cpus)
            state.cpus = settings.cpus
    if settings.lock_memory:
        libc = libc if libc is not None else ctypes.CDLL(None, use_errno=True)
        if libc.mlockall(_MCL_CURRENT | _MCL_FUTURE | _MCL_ONFAULT) == 0:
            state.locked = True
        elif ctypes.get_errno() == errno.EINVAL and libc.mlockall(
                _MCL_CURRENT | _MCL_FUTURE) == 0:  # a kernel before 4.4: no MCL_ONFAULT
            state.locked = True
        else:
            state.refused.append(_refused_lock(ctypes.get_errno()))
    state.collector = QuietCollector()
    logger_line = describe(state)
    if state.refused:
        logger.warning(logger_line)
    else:
        logger.info(logger_line)
    return state


def describe(state: RealtimeState) -> str:
    """Return the one log line of :func:`enter_realtime`."""
    applied = []
    if state.scheduled is not None:
        name, priority, threads = state.scheduled
        applied.append(f'{name} priority {priority} for the spinning thread and '
                       f'{len(threads) - 1} DDS reception thread(s)')
    if state.cpus:
        applied.append(f'CPUs {_cpu_text(state.cpus)}')
    if state.locked:
        applied.append('memory locked')
    applied.append('garbage collected between callbacks')
    if not state.refused:
        return f"real-time mode: {', '.join(applied)}"
    tail = '; the executive runs at normal priority' if state.scheduled is None else ''
    return (f"real-time mode: refused {'; refused '.join(state.refused)}; applied "
            f"{', '.join(applied)}{tail}")


def _refused_class(name: str, priority: int, error: OSError) -> str:
    import resource  # only when refused
    soft, _ = resource.getrlimit(resource.RLIMIT_RTPRIO)
    limit = 'unlimited' if soft == resource.RLIM_INFINITY else str(soft)
    flag = '-f' if name == 'SCHED_FIFO' else '-r'
    return (f'{name} priority {priority} ({error.strerror}: needs CAP_SYS_NICE or '
            f'RLIMIT_RTPRIO >= {priority}, now {limit}; grant it with `ulimit -r {priority}` '
            f"(limits.conf: '<user> - rtprio {priority}'), CAP_SYS_NICE (systemd "
            f'AmbientCapabilities=CAP_SYS_NICE), or a launch prefix such as '
            f"prefix:='prlimit --rtprio={priority}' within the hard limit; check with "
            f'`chrt {flag} {priority} true`)')


def _refused_lock(code: int) -> str:
    if code == errno.ENOSYS:
        return 'mlockall (not supported here; set realtime_lock_memory:=false)'
    import resource  # only when refused
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    limit = 'unlimited' if soft == resource.RLIM_INFINITY else f'{soft // 1024} KiB'
    return (f'mlockall ({os.strerror(code) if code else "failed"}: needs CAP_IPC_LOCK or '
            f'RLIMIT_MEMLOCK above the process size, now {limit}; grant it with '
            "`ulimit -l unlimited` (limits.conf: '<user> - memlock unlimited') or "
            'CAP_IPC_LOCK, or set realtime_lock_memory:=false)')


def _cpu_text(cpus: frozenset[int]) -> str:
    return ','.join(str(cpu) for cpu in sorted(cpus))


def leave_realtime(state: Optional[RealtimeState]) -> None:
    """Give the collector its thresholds back (the stop; the class is kept to the end)."""
    if state is not None and state.collector is not None:
        state.collector.close()


__all__ = ['describe', 'enter_realtime', 'leave_realtime', 'PARAMETERS', 'parse_cpus', 'POLICIES',
           'QuietCollector', 'RealtimeSettings', 'RealtimeSettingsError', 'RealtimeState',
           'reception_threads', 'RECEPTION_THREAD']
