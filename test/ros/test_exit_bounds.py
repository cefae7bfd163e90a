# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Exits that cannot hang: a stop signal ends the executive within a bound, whatever it does.

Each executive runs as a real process with a fault injected where a real one was seen or
feared: blocked inside ``destroy_node()`` in C code holding the GIL (a Fast DDS teardown
deadlock), blocked inside ``executor.shutdown()`` in a wait, a tick that never returns
while holding the GIL (the Python signal handler never runs) and one that never returns
in a wait. The faults at the exit come from the test-only ``BT_EXECUTIVE_TEST_HANG``
(bt_executive/ros/exit_guard.py), the stalled ticks from the ``Stall`` test node type.
All are signalled at once and timed: each must end within ``shutdown_timeout`` +
``CLEANUP_TIMEOUT`` + ``GUARD_MARGIN`` (README, safe stop), with status 1 from the exit
watchdog where Python can still arm it and SIGKILL from the exit guard where it cannot;
an executive without a fault stops cleanly with 0 at once.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
from typing import Optional
import uuid

from bt_executive.ros.exit_guard import GUARD_MARGIN, HANG_VARIABLE
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT, WATCHDOG_EXIT_STATUS
from conftest import PEERS
from executive_host import write_tree
from helpers import wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

SHUTDOWN_TIMEOUT = 0.5
BOUND = SHUTDOWN_TIMEOUT + CLEANUP_TIMEOUT + GUARD_MARGIN
#: Seconds beyond the bound allowed for a loaded machine to reap a process.
SLACK = 3.0
START_TIMEOUT = 60.0
RUNNING = """
    trees:
      Main:
        Running wait: {}
    """


@dataclasses.dataclass
class Case:
    name: str
    tree: str
    signum: int
    hang: str = ''
    ready: str = 'running tree'
    expected: Optional[int] = 0  # the exit status
    forced: bool = False
    process: Optional[subprocess.Popen] = None
    log: Optional[pathlib.Path] = None
    signalled: float = 0.0
    took: float = 0.0


STALL = """
    trees:
      Main:
        Stall stuck: {{after: 3, gil: {gil}}}
    """

CASES = [
    Case('clean', RUNNING, signal.SIGTERM),
    Case('destroy_node holds the GIL', RUNNING, signal.SIGTERM, hang='destroy_node:gil',
         expected=WATCHDOG_EXIT_STATUS, forced=True),
    Case('executor.shutdown waits', RUNNING, signal.SIGINT, hang='executor.shutdown:wait',
         expected=WATCHDOG_EXIT_STATUS, forced=True),
    Case('a tick holds the GIL', STALL.format(gil='true'), signal.SIGTERM, ready='STALLED',
         expected=-signal.SIGKILL, forced=True),
    Case('a tick waits', STALL.format(gil='false'), signal.SIGINT, ready='STALLED',
         expected=WATCHDOG_EXIT_STATUS, forced=True),
]


def start(case: Case, directory: pathlib.Path) -> None:
    tree = write_tree(directory, f'{uuid.uuid4().hex[:8]}.yaml', case.tree)
    env = dict(os.environ)
    env.pop(HANG_VARIABLE, None)
    if case.hang:
        env[HANG_VARIABLE] = case.hang
    case.log = directory / f'{case.name.replace(" ", "_")}.log'
    with open(case.log, 'wb') as output:
        case.process = subprocess.Popen(
            [sys.executable, str(PEERS / 'fault_executive.py'), '--ros-args', '-r',
             f'__ns:=/exit_{uuid.uuid4().hex[:8]}', '-p', f'tree_file:={tree}',
             '-p', f'shutdown_timeout:={SHUTDOWN_TIMEOUT}'],
            stdout=output, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def timed_wait(case: Case) -> None:
    """Wait for the case's process (each in its own thread: they end at the same time)."""
    case.process.wait(BOUND + SLACK + 30.0)
    case.took = time.monotonic() - case.signalled


def test_every_stop_ends_within_the_bound_whatever_the_process_is_stuck_in(tmp_path):
    cases = [dataclasses.replace(case) for case in CASES]
    try:
        for case in cases:
            start(case, tmp_path)
        for case in cases:
            wait_for(lambda: case.ready in case.log.read_text() or case.process.poll()
                     is not None, START_TIMEOUT, f'{case.name}: {case.ready!r} in its log')
            assert case.process.poll() is None, case.log.read_text()
        waiters = [threading.Thread(target=timed_wait, args=(case,)) for case in cases]
        for case, waiter in zip(cases, waiters):
            case.signalled = time.monotonic()
            os.kill(case.process.pid, case.signum)
            waiter.start()
        for waiter in waiters:
            waiter.join(BOUND + SLACK + 30.0)
    finally:
        for case in cases:
            if case.process is not None and case.process.poll() is None:
                os.killpg(case.process.pid, signal.SIGKILL)
                case.process.wait(10.0)
    report = '\n'.join(f'{case.name}: status {case.process.returncode} after '
                       f'{case.took:.2f} s' for case in cases)
    print(report)
    for case in cases:
        text = case.log.read_text()
        assert case.process.returncode == case.expected, f'{case.name}\n{report}\n{text}'
        assert case.took <= BOUND + SLACK, f'{case.name}\n{report}'
        if case.forced:  # it was stuck for real: ended by the watchdog or the guard
            assert case.took >= SHUTDOWN_TIMEOUT + CLEANUP_TIMEOUT - 0.5, report
            # the watchdog's stacks start with faulthandler's 'Timeout (0:00:10.5)!'
            assert ('exit guard ends it with SIGKILL' if case.expected == -signal.SIGKILL
                    else 'Timeout (') in text, text
        else:
            assert case.took < 5.0, report
    # no guard outlives its executive
    parents = {case.process.pid for case in cases}
    wait_for(lambda: not guards_of(parents), 10.0, 'the exit guards to end')


def guards_of(parents: set[int]) -> list[int]:
    """Return the pids of the exit guards still running for the processes ``parents``."""
    found = []
    for entry in pathlib.Path('/proc').iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / 'cmdline').read_bytes().split(b'\0')
        except OSError:
            continue
        # python -I -S .../exit_guard.py PARENT ...
        guard = [index for index, part in enumerate(command) if part.endswith(b'exit_guard.py')]
        if guard and len(command) > guard[0] + 1 and command[guard[0] + 1].isdigit() \
                and int(command[guard[0] + 1]) in parents:
            found.append(int(entry.name))
    return found
