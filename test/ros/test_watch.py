# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive watch`` in a pseudo-terminal against an in-process executive.

The watcher is a real subprocess whose stdout is a pty (Python's ``pty`` module: no
tmux needed); a reader thread collects what it draws, and the tests look at the last
complete frame (rich's live view on the alternate screen starts each frame with the
cursor-home sequence: from one to the next), without escapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import fcntl
import os
import pathlib
import pty
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
from typing import Optional
import uuid

from bt_executive.viewers.watch import render_frame, strip_ansi
from cli_process import run_cli
from executive_host import Host, write_tree
from helpers import SELECTOR_TREE, wait_for
import pytest
from rich.cells import cell_len

pytestmark = pytest.mark.ros

TIMEOUT = 20.0
ROWS, COLUMNS = 40, 120


class Terminal:
    """A subprocess on a pty of ROWS x COLUMNS; collects everything it writes."""

    def __init__(self, args: list[str], directory: pathlib.Path):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', ROWS, COLUMNS, 0, 0))
        environment = dict(os.environ, TERM='xterm-256color')
        environment.pop('NO_COLOR', None)
        self.stderr_path = directory / 'watch.stderr'
        with open(self.stderr_path, 'wb') as stderr:
            self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=stderr,
                                            env=environment, start_new_session=True)
        os.close(slave)
        self.master = master
        self.output = ''
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the other side is closed
                data = b''
            with self._changed:
                if not data:
                    self._changed.notify_all()
                    return
                self.output += data.decode('utf-8', errors='replace')
                self._changed.notify_all()

    def screen(self) -> str:
        """Return the last complete frame, without escape sequences."""
        with self._changed:
            text = self.output
        end = text.rfind('\x1b[H')  # the next frame has begun: this one is complete
        start = text.rfind('\x1b[H', 0, end)
        return strip_ansi(text[start:end]) if start >= 0 else ''

    def wait_for(self, predicate: Callable[[str], bool], message: str,
                 pump: Optional[Callable[[], None]] = None, timeout: float = TIMEOUT) -> str:
        """Wait until the screen satisfies ``predicate`` (calling ``pump`` meanwhile)."""
        def shown() -> Optional[tuple[str]]:
            screen = self.screen()
            if predicate(screen):
                return (screen,)
            assert self.process.poll() is None, \
                f'the watch exited while waiting for {message}; {seen()}'
            return None

        def pause(seconds: float) -> None:
            if pump is not None:
                pump()  # spins the executive for up to 20 ms
            else:
                with self._changed:
                    self._changed.wait(seconds)

        def seen() -> str:
            return f'the screen:\n{self.screen()}\nstderr:\n{self.stderr_path.read_text()}'

        return wait_for(shown, timeout, message, interval=0.1, pause=pause, describe=seen)[0]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5.0)
        self._reader.join(5.0)
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        return self.process.returncode


@pytest.fixture
def terminal(tmp_path: pathlib.Path) -> Iterator[Callable[..., Terminal]]:
    started: list[Terminal] = []

    def start(*args: str) -> Terminal:
        created = Terminal([sys.executable, '-m', 'bt_executive.app.cli', 'watch', *args],
                           tmp_path)
        started.append(created)
        return created

    yield start
    for created in started:
        created.stop()


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    created: list[Host] = []
    yield created
    for host in created:
        host.close()


def watch_once(*args: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
    return run_cli('watch', '--once', *args, timeout=timeout)


@pytest.fixture
def short_path() -> Iterator[pathlib.Path]:
    """Yield a new folder with a short absolute path; remove it afterwards.

    The header line names the tree file by its absolute path: a long ``tmp_path`` (as
    under parallel workers, ``.../popen-gw0/...``) pushes the revision and the state out
    of the line's width.
    """
    folder = pathlib.Path(tempfile.mkdtemp(prefix='watch', dir='/tmp'))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_watch_follows_starts_swaps_and_restarts(terminal, hosts, short_path):
    tmp_path = short_path
    namespace = f'/watch_{uuid.uuid4().hex[:8]}'
    first = write_tree(tmp_path, 'first.yaml', SELECTOR_TREE)
    screen = terminal('--ns', namespace)
    screen.wait_for(lambda s: f'waiting for {namespace}/bt_executive/snapshot' in s,
                    'the waiting message')

    ex = Host(first, namespace=namespace, tick_rate=20.0, snapshot_keys=['x'])
    hosts.append(ex)
    shown = screen.wait_for(lambda s: '\u25b6 Running "busy"' in s, 'the running tree',
                            pump=lambda: ex.executor.spin_once(timeout_sec=0.02))
    assert '\u25b6 Selector "root"' in shown
    assert '\u2718 Condition "blocked" \u2014 x > 5 is false' in shown
    assert '\u2714 Success "ok"' in shown
    assert 'x = 1' in shown and 'rev 1' in shown and '[running]' in shown
    assert all(len(line) <= COLUMNS for line in shown.splitlines())

    result = ex.set_tree(tree_file=write_tree(tmp_path, 'second.yaml', """
        trees:
          Second:
            Sequence steps:
              - Success first
              - Failure broken
        """))
    assert result.successful, result.reason
    shown = screen.wait_for(lambda s: '\u2718 Failure "broken"' in s, 'the swapped tree',
                            pump=lambda: ex.executor.spin_once(timeout_sec=0.02))
    assert 'Second' in shown and 'rev 2' in shown and 'busy' not in shown
    assert 'why' in shown  # the root failed: the chain is shown

    ex.close()  # the executive goes away; a new one comes up in the same namespace
    hosts.remove(ex)
    again = Host(write_tree(tmp_path, 'third.yaml', """
        trees:
          Third:
            Running forever:
        """), namespace=namespace, tick_rate=20.0)
    hosts.append(again)
    shown = screen.wait_for(lambda s: '\u25b6 Running "forever"' in s, 'the restarted executive',
                            pump=lambda: again.executor.spin_once(timeout_sec=0.02))
    assert 'Third' in shown and 'rev 1' in shown and 'Second' not in shown
    assert screen.stop() == 0
    tail = screen.output[screen.output.rfind('\x1b[?25l'):]
    assert '\x1b[?25h' in tail and '\x1b[?1049l' in tail  # the cursor, the main screen back
    last = strip_ansi(screen.output[screen.output.rfind('\x1b[?1049l'):])
    assert '\u25b6 Running "forever"' in last and last.endswith('\r\n')  # the last frame stays


def test_watch_once_prints_one_plain_frame(hosts, tmp_path):
    ex = Host(write_tree(tmp_path, 'tree.yaml', SELECTOR_TREE), tick_rate=20.0)
    hosts.append(ex)
    ex.spin_until(lambda: ex.executive.tick_count > 2, 'a few ticks')
    done = watch_once('--ns', ex.namespace, '--timeout', '15')
    assert done.returncode == 0, done.stderr
    assert '\x1b' not in done.stdout  # not a terminal: no colours, no cursor movement
    assert '\u25b6 Running "busy"' in done.stdout
    assert '\u2718 Condition "blocked" \u2014 x > 5 is false' in done.stdout


def test_watch_once_without_an_executive_fails(tmp_path):
    done = watch_once('--ns', f'/nobody_{uuid.uuid4().hex[:8]}', '--timeout', '0.5')
    assert done.returncode == 1
    assert 'no snapshot on /nobody_' in done.stderr


def test_frames_measure_wide_characters_and_drop_control_characters():
    name = '\u5de1\u56de\u30ed\u30dc\u30c3\u30c8\U0001f916 \u306e\u9577\u3044\u540d\u524d'
    snapshot = {
        'schema': 'bt_executive/snapshot/1', 'tree': 'Main', 'source_file': 't.yaml',
        'revision': 1, 'seq': 1, 'root': 'Main', 'root_status': 'RUNNING',
        'active_path': ['Main', 'Main/a'], 'blackboard': {'name': name},
        'nodes': [{'id': 'Main', 'type': 'Sequence', 'name': 'Sequence', 'children': ['Main/a']},
                  {'id': 'Main/a', 'type': 'Running', 'name': name, 'children': []}],
        'state': {'Main': {'status': 'RUNNING'},
                  'Main/a': {'status': 'RUNNING', 'feedback': 'wait\x1b[2J\n\u23f3'}}}
    whole = render_frame(snapshot, color=False, width=None, height=None)
    assert f'\u25b6 Running "{name}" \u2014 wait [2J \u23f3' in whole  # control characters: spaces
    assert '\x1b' not in whole
    for width in range(12, 45):  # the node line needs 54 columns
        lines = strip_ansi(render_frame(snapshot, width=width, height=20)).splitlines()
        assert all(cell_len(line) <= width for line in lines), (width, lines)
        assert any(line.endswith('\u2026') for line in lines), (width, lines)


def test_a_backing_off_leaf_shows_its_reason_and_the_footer_its_last_failure():
    reason = 'backing off 0.8 s after 3 failures: goal rejected by /dock_robot'
    snapshot = {
        'schema': 'bt_executive/snapshot/1', 'tree': 'Main', 'source_file': 't.yaml',
        'revision': 1, 'seq': 1, 'root': 'Main', 'root_status': 'RUNNING',
        'active_path': ['Main', 'Main/dock'], 'why': [], 'last_failure': None,
        'executive': {'running': True, 'last_failure': 'Main/dock: goal rejected by /dock_robot'},
        'nodes': [{'id': 'Main', 'type': 'Selector', 'name': 'root', 'children': ['Main/dock']},
                  {'id': 'Main/dock', 'type': 'Action', 'name': 'dock', 'children': []}],
        'state': {'Main': {'status': 'RUNNING'},
                  'Main/dock': {'status': 'RUNNING', 'feedback': reason}}}
    frame = render_frame(snapshot, color=False, width=None, height=None)
    assert f'Action "dock" \u2014 {reason}' in frame
    assert 'last failure: Main/dock: goal rejected by /dock_robot' in frame
