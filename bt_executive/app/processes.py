# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The demo's node processes: started with a log file each, respawned or stopped in order.

What ``ros2 launch`` does for ``launch/patrol.launch.py`` and ``launch/fleet.launch.py``,
for ``bt-executive demo``: each node runs as a subprocess whose output goes to a log file;
with ``use_respawn`` a node that exits is started again after
:data:`~bt_executive.app.bringup.RESPAWN_DELAY` seconds; otherwise the first exit ends the
run. Stopping sends SIGINT to every executive first (they cancel their goals while the
sims and the clock still run), then to the sims, the clock owner last.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import time
from typing import Optional, TextIO


@dataclasses.dataclass
class NodeProcess:
    """One node of the demo.

    Attributes:
        label: ``robot1/bt_executive``, or the node name for the single patrol
        executable: ``executive`` or ``sim_robot``
        argv: the command line
        log: the log file path
        process: the running process (None before :meth:`start`)
        restarts: how many times it was respawned
        restart_at: monotonic time of a pending respawn, else None
    """

    label: str
    executable: str
    argv: list[str]
    log: str
    process: Optional[subprocess.Popen] = None
    restarts: int = 0
    restart_at: Optional[float] = None

    def start(self) -> None:
        """Start the process, appending its output to the log file."""
        with open(self.log, 'ab') as log:
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        self.restart_at = None

    def exited(self) -> Optional[int]:
        """Return the exit status if the process has ended, else None."""
        return None if self.process is None else self.process.poll()


def tail(path: str, lines: int = 20) -> str:
    """Return the last ``lines`` lines of a log file."""
    try:
        with open(path, 'rb') as stream:
            return b''.join(stream.readlines()[-lines:]).decode('utf-8', 'replace')
    except OSError:
        return '(no log)'


class Processes:
    """The demo's node processes, in start order."""

    def __init__(self, log_directory: str, respawn: bool, respawn_delay: float,
                 out: TextIO) -> None:
        """Keep logs in ``log_directory``; respawn exited nodes when ``respawn``."""
        self.log_directory = log_directory
        self.respawn = respawn
        self.respawn_delay = respawn_delay
        self.out = out
        self.nodes: list[NodeProcess] = []

    def start(self, label: str, executable: str, argv: list[str]) -> NodeProcess:
        """Start a node; its log is ``<label with / as _>.log`` in the log directory."""
        log = os.path.join(self.log_directory, label.replace('/', '_') + '.log')
        node = NodeProcess(label, executable, argv, log)
        node.start()
        self.nodes.append(node)
        return node

    def check(self, now: float) -> Optional[str]:
        """Respawn what is due; return why the run must end (a node exited), else None."""
        for node in self.nodes:
            if node.restart_at is not None:
                if now >= node.restart_at:
                    node.restarts += 1
                    print(f'demo: respawning {node.label} (restart {node.restarts})',
                          file=self.out, flush=True)
                    node.start()
                continue
            status = node.exited()
            if status is None:
                continue
            if self.respawn:
                print(f'demo: {node.label} exited with status {status}; respawning it in '
                      f'{self.respawn_delay:g} s (use_respawn)', file=self.out, flush=True)
                node.restart_at = now + self.respawn_delay
                continue
            return (f'demo: {node.label} exited with status {status}; the end of its log:\n'
                    f'{tail(node.log)}')
        return None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the executives, then the sims (the first, the clock owner, last)."""
        executives = [n for n in self.nodes if n.executable == 'executive']
        others = [n for n in self.nodes if n.executable != 'executive']
        for group in (executives[::-1], others[::-1]):
            running = [n for n in group if n.exited() is None]
            for node in running:
                node.process.send_signal(signal.SIGINT)
            deadline = time.monotonic() + timeout
            for node in running:
                try:
                    node.process.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    print(f'demo: {node.label} did not stop within {timeout:g} s; killing it',
                          file=self.out)
                    node.process.kill()
                    node.process.wait(timeout)
