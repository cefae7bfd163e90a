# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fifty executives stopped at once: every one ends within the exit bound.

Where the exit watchdog came from (RELIABILITY.md): 50 ROS processes stopping at once on
2 cores once left an executive ignoring SIGINT for 60 s. Here idle executives (a tree
that only runs, event ticking: one tick a second) are started in batches, each waited
for, then all are sent SIGTERM in the same instant and timed; the clean and the forced
exits are counted (the numbers: RELIABILITY.md). Too heavy for every run of
the suite: it runs with ``BT_EXECUTIVE_SOAK=1`` (``make soak`` sets it);
``BT_EXECUTIVE_STORM=N`` changes the count.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid

from bt_executive.ros.exit_guard import GUARD_MARGIN
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT, WATCHDOG_EXIT_STATUS
from executive_host import write_tree
from helpers import wait_for
import pytest
from test_exit_bounds import guards_of

pytestmark = [pytest.mark.ros, pytest.mark.slow, pytest.mark.skipif(
    not os.environ.get('BT_EXECUTIVE_SOAK'), reason='a soak test: BT_EXECUTIVE_SOAK=1')]

COUNT = int(os.environ.get('BT_EXECUTIVE_STORM', '50'))
BATCH = 10
SHUTDOWN_TIMEOUT = 3.0  # the default
BOUND = SHUTDOWN_TIMEOUT + CLEANUP_TIMEOUT + GUARD_MARGIN
#: Seconds beyond the bound for a machine loaded by the storm itself (a signal handler
#: ran up to 2 s late at a load average of 110 on 2 cores).
SLACK = 3.0
TREE = """
    trees:
      Main:
        Running wait: {}
    """


def test_fifty_executives_stopped_at_once_all_end_within_the_bound(tmp_path):
    tree = write_tree(tmp_path, 'idle.yaml', TREE)
    processes: list[subprocess.Popen] = []
    logs = [tmp_path / f'executive_{index}.log' for index in range(COUNT)]
    ended: dict[int, float] = {}
    try:
        for start in range(0, COUNT, BATCH):
            for index in range(start, min(start + BATCH, COUNT)):
                with open(logs[index], 'wb') as output:
                    processes.append(subprocess.Popen(
                        [sys.executable, '-m', 'bt_executive.ros.executive', '--ros-args',
                         '-r', f'__ns:=/storm_{uuid.uuid4().hex[:8]}', '-p',
                         f'tree_file:={tree}', '-p', 'tick_mode:=event'],
                        stdout=output, stderr=subprocess.STDOUT, start_new_session=True))
            for index in range(start, len(processes)):
                wait_for(lambda: 'running tree' in logs[index].read_text()
                         or processes[index].poll() is not None, 120.0,
                         f'executive {index} to run its tree')
                assert processes[index].poll() is None, logs[index].read_text()

        def timed_wait(index: int) -> None:
            processes[index].wait(BOUND + 60.0)
            ended[index] = time.monotonic()

        waiters = [threading.Thread(target=timed_wait, args=(index,))
                   for index in range(COUNT)]
        signalled = time.monotonic()
        for process in processes:
            os.kill(process.pid, signal.SIGTERM)
        for waiter in waiters:
            waiter.start()
        for waiter in waiters:
            waiter.join(BOUND + 60.0)
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10.0)
    times = sorted(ended[index] - signalled for index in ended)
    codes = [process.returncode for process in processes]
    forced = {code: codes.count(code) for code in set(codes) if code != 0}
    print(f'{COUNT} executives stopped at once: last exit {times[-1]:.2f} s after the '
          f'signal, median {statistics.median(times):.2f} s, first {times[0]:.2f} s; '
          f'{codes.count(0)} clean (status 0), forced: {forced or "none"}')
    assert len(times) == COUNT
    assert times[-1] <= BOUND + SLACK
    # a stop that did not end cleanly (on a loaded machine Fast DDS's teardown was seen to
    # block holding the GIL) took the documented forced path, never an undocumented one
    for index, code in enumerate(codes):
        text = logs[index].read_text()
        assert code in (0, WATCHDOG_EXIT_STATUS, -signal.SIGKILL), (code, text[-2000:])
        if code == WATCHDOG_EXIT_STATUS:
            assert 'Timeout (' in text, text[-2000:]
        elif code == -signal.SIGKILL:
            assert 'exit guard ends it with SIGKILL' in text, text[-2000:]
    parents = {process.pid for process in processes}
    wait_for(lambda: not guards_of(parents), 10.0, 'the exit guards to end')
