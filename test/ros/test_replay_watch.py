# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive watch --replay`` on a pseudo-terminal: keys step, jump and quit."""

from __future__ import annotations

import os

from bt_executive.observe.replay import Timeline
import pytest
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
