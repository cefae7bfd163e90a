# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``python -m bt_executive.app.cli ARGS`` as a child forked from a warm interpreter.

The suite runs the command line well over a hundred times. Started fresh, each run spends
0.2-0.45 s of CPU on the interpreter and on imports (``validate`` pulls in the ROS leaves,
hence rclpy and numpy) before it reads its first file. :func:`run_cli` instead asks a
helper process (the *zygote*, one per test process, started on first use) that has
imported the command line and the ROS leaves once, to fork a child for each run. The
child is a real process of its own: its own pid, its standard streams, current directory
and environment as given, ``sys.argv`` as ``-m`` sets it, ``__main__`` run afresh, exit
status from ``sys.exit``; only the interpreter's start and the imports are shared.

What a fork cannot show is kept on real subprocesses: tests of the interpreter start
itself (the ``bt-executive`` entry point, import laziness, ``OPENBLAS_NUM_THREADS``,
test_fuzz_commands' traceback check) call ``subprocess`` directly. ``PYTHONPATH`` is
followed (the child's ``sys.path`` is built from it as a fresh interpreter's would be),
and :func:`run_cli` falls back to a real ``subprocess.run`` when a folder on it holds
another copy of a module the zygote imported, when the environment given differs in
something else Python reads only at start-up (``PYTHON*``, ``LD_*``, ``OPENBLAS_*``), or
when the zygote could not start or has a thread that is not asleep (a fork must not copy a
lock that a running thread holds; the only threads, LTTng-UST's listeners started by
rclpy's import, wait on a futex for a session daemon that never comes). A child is not
traced by LTTng.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Any, Mapping, Optional, Sequence

MODULE = 'bt_executive.app.cli'
#: environment variables read at interpreter start: a run that changes one is not forked
_START_ONLY = ('PYTHON', 'LD_', 'OPENBLAS_')

ZYGOTE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cli_zygote.py')


class _Zygote:
    """The helper process of this test process, and the socket to it."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, ZYGOTE, str(theirs.fileno())], pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=dict(os.environ))
        theirs.close()
        self.channel = ours
        self.env = dict(os.environ)
        started = self._receive(120.0, 'its start')
        self.settled: bool = started['settled']
        self.modules: dict[str, Optional[str]] = started['modules']

    def _receive(self, timeout: Optional[float], what: str) -> dict[str, Any]:
        self.channel.settimeout(timeout)
        message = self.channel.recv(1 << 22)
        if not message:
            self.log.seek(0)
            raise RuntimeError(f'the zygote ended before {what}:\n'
                               + self.log.read().decode(errors='replace')[-3000:])
        return json.loads(message)

    def usable(self, env: Mapping[str, str]) -> bool:
        """Return whether a run with ``env`` can be forked from this zygote."""
        if not self.settled or self.process.poll() is not None:
            return False
        keys = set(env) | set(self.env)
        if any(env.get(key) != self.env.get(key) for key in keys
               if key.startswith(_START_ONLY) and key != 'PYTHONPATH'):
            return False
        # the child's sys.path follows PYTHONPATH; what the zygote imported stays, so a
        # folder on it that holds another copy of an imported module is not forked
        return not any(_shadows(os.path.abspath(entry), self.modules)
                       for entry in env.get('PYTHONPATH', '').split(os.pathsep) if entry)

    def run(self, args: Sequence[str], cwd: str, env: Mapping[str, str],
            streams: Sequence[int], timeout: Optional[float]) -> tuple[int, bool]:
        """Fork a child running the command line; return (its wait status, timed out)."""
        request = {'module': MODULE, 'args': list(args), 'cwd': cwd, 'env': dict(env)}
        self.channel.settimeout(30.0)
        socket.send_fds(self.channel, [json.dumps(request).encode()], list(streams))
        pid = self._receive(30.0, 'forking')['pid']
        try:
            return self._receive(timeout, 'the child ended')['status'], False
        except (socket.timeout, TimeoutError):
            os.kill(pid, 9)
            return self._receive(30.0, 'the killed child ended')['status'], True

    def close(self) -> None:
        """Close the socket: the zygote ends; wait for it."""
        self.channel.close()
        try:
            self.process.wait(timeout=30.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def _shadows(folder: str, modules: Mapping[str, Optional[str]]) -> bool:
    """Return whether ``folder`` holds another copy of a module the zygote imported.

    ``modules`` maps the zygote's top-level module names to their files.
    """
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        if name.endswith('.py'):
            name = name[:-3]
        elif not os.path.exists(os.path.join(folder, name, '__init__.py')):
            continue  # at most a namespace portion: a module found later still wins
        origin = modules.get(name)
        if origin and not os.path.realpath(origin).startswith(os.path.realpath(folder) + os.sep):
            return True
    return False


_lock = threading.Lock()
_zygote: Optional[_Zygote] = None
_failed = False
#: how the runs of this process went: forked from the zygote, or real subprocesses
RUNS = {'forked': 0, 'subprocess': 0}


def _get_zygote() -> Optional[_Zygote]:
    global _zygote, _failed
    if _zygote is None and not _failed:
        try:
            _zygote = _Zygote()
            atexit.register(_zygote.close)
        except (OSError, RuntimeError, ValueError, KeyError) as error:
            print(f'cli_process: no zygote ({error}); running the command line as '
                  f'subprocesses', file=sys.stderr)
            _failed = True
    return _zygote


def run_cli(*args: str, cwd: Any = None, env: Optional[Mapping[str, str]] = None,
            timeout: Optional[float] = 60.0) -> subprocess.CompletedProcess:
    """Run ``python -m bt_executive.app.cli ARGS`` as ``subprocess.run`` would.

    Output is captured as text (``capture_output=True, text=True``); stdin is
    ``/dev/null``. Raises ``subprocess.TimeoutExpired`` after ``timeout`` seconds, the
    child killed.
    """
    command = [sys.executable, '-m', MODULE, *args]
    environment = dict(os.environ if env is None else env)
    with _lock:
        zygote = _get_zygote()
        if zygote is None or not zygote.usable(environment):
            RUNS['subprocess'] += 1
            return subprocess.run(command, cwd=cwd, env=environment, capture_output=True,
                                  stdin=subprocess.DEVNULL, text=True, timeout=timeout)
        RUNS['forked'] += 1
        with open(os.devnull, 'rb') as stdin, tempfile.TemporaryFile() as stdout, \
                tempfile.TemporaryFile() as stderr:
            status, timed_out = zygote.run(
                args, os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd(),
                environment, [stdin.fileno(), stdout.fileno(), stderr.fileno()], timeout)
            outputs = []
            for stream in (stdout, stderr):
                stream.seek(0)
                data = stream.read()
                outputs.append(data.decode(errors='replace').replace('\r\n', '\n'))
    if timed_out:
        raise subprocess.TimeoutExpired(command, timeout or 0.0, outputs[0], outputs[1])
    return subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status),
                                       outputs[0], outputs[1])
