# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive watch --replay`` on a pseudo-terminal: keys step, jump and quit."""

from __future__ import annotations

import os

from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from helpers import free_port, wait_for
import pytest
from test_groot2 import ask, header
from test_replay import record
from test_watch import terminal  # noqa: F401 - the fixture

pytestmark = pytest.mark.ros


def test_keys_step_jump_and_quit(terminal, tmp_path):  # noqa: F811
    path = str(tmp_path / 'run.mcap')
    record(path)
    timeline = Timeline.load(path)
    count = len(timeline)
    term = terminal('--replay', path)
    term.wait_for(lambda screen: f'replay 1/{count}' in screen, 'the first state')
    os.write(term.master, b'l')
    term.wait_for(lambda screen: f'replay 2/{count}' in screen, 'the second state')
    failure = timeline.next_failure(1)
    os.write(term.master, b'f')
    screen = term.wait_for(lambda screen: f'replay {failure + 1}/{count}' in screen,
                           'the next FAILURE')
    assert f'tick {timeline.tick(failure)}' in screen and 'FAILURE' in screen
    os.write(term.master, b'G')
    term.wait_for(lambda screen: f'replay {count}/{count}' in screen, 'the last state')
    os.write(term.master, b'q')
    term.process.wait(20.0)
    assert term.process.returncode == 0


def test_groot2_follows_the_state_the_keys_show(terminal, tmp_path):  # noqa: F811
    path = str(tmp_path / 'run.mcap')
    record(path)
    timeline = Timeline.load(path)
    expected = Groot2Replay(timeline, recording=path)
    count, port = len(timeline), free_port()

    def served() -> bytes:
        return ask(port, header('S'))[1]

    term = terminal('--replay', path, '--groot2-port', str(port))
    screen = term.wait_for(lambda screen: f'replay 1/{count}' in screen, 'the first state')
    assert f'Groot2 127.0.0.1:{port}' in screen
    assert served() == expected.status(0)
    failure = timeline.next_failure(0)
    os.write(term.master, b'f')
    term.wait_for(lambda screen: f'replay {failure + 1}/{count}' in screen, 'the next FAILURE')
    wait_for(lambda: served() == expected.status(failure), 20.0,
             f'Groot2 to serve state {failure}')
    os.write(term.master, b'h')
    term.wait_for(lambda screen: f'replay {failure}/{count}' in screen, 'one state back')
    wait_for(lambda: served() == expected.status(failure - 1), 20.0,
             f'Groot2 to serve state {failure - 1}')
    os.write(term.master, b'q')
    term.process.wait(20.0)
    assert term.process.returncode == 0
    with pytest.raises(AssertionError, match='timed out'):
        ask(port, header('S'), timeout=0.5)  # the port is closed with the replay
