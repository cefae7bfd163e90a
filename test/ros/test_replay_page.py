# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view --replay``: the page's timeline in headless Chromium.

The recording is made without ROS (test_replay.record); the page is the live view's,
driven by timeline.js: each state it shows must be the recorded snapshot of that frame.
"""

from __future__ import annotations

import pathlib
import threading

from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from bt_executive.viewers.replay_web import close, serve
from devtools import PAGE_STATE
from helpers import wait_for
import pytest
from test_groot2 import ask, header
from test_replay import record
from test_webview import assert_page_matches, browser  # noqa: F401 - fixture

pytestmark = pytest.mark.ros


def test_the_timeline_steps_and_jumps_through_the_recorded_states(browser, tmp_path):  # noqa
    path = str(tmp_path / 'run.mcap')
    live = record(path)
    timeline = Timeline.load(path)
    expected = Groot2Replay(timeline, recording=path)
    server = serve(path, port=0, groot2_port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def groot2_shows(index: int) -> None:
        port = server.groot2.server.port
        wait_for(lambda: ask(port, header('S'))[1] == expected.status(index), 20.0,
                 f'Groot2 to serve state {index}')

    try:
        page = browser.open_page(f'http://127.0.0.1:{server.port}/')
        page.wait_until("document.body.dataset.replayIndex === '0'", 'the first state')
        assert_page_matches(page.evaluate(PAGE_STATE)['html'], live[0])
        assert page.evaluate("document.getElementById('connection').textContent") == 'replay'
        # styled from style.css: the page's CSP refuses inline style (as it once was)
        assert page.evaluate("getComputedStyle(document.getElementById('replay-bar'))"
                             '.display') == 'flex'
        page.evaluate("document.getElementById('replay-next').click()")
        page.wait_until("document.body.dataset.replayIndex === '1'", 'the second state')
        assert_page_matches(page.evaluate(PAGE_STATE)['html'], live[1])
        groot2_shows(1)  # Groot2 follows the page
        failure = timeline.next_failure(1)
        page.evaluate("document.getElementById('replay-next-failure').click()")
        page.wait_until(f"document.body.dataset.replayIndex === '{failure}'",
                        f'the next FAILURE (state {failure})')
        assert_page_matches(page.evaluate(PAGE_STATE)['html'], live[failure])
        groot2_shows(failure)
        why = page.evaluate("document.getElementById('why').textContent")
        assert all(step['reason'] in why for step in live[failure]['why'])
        node = 'Main/root/count/every3'
        change = timeline.next_change(failure, node)
        page.evaluate(f"(() => {{ const s = document.getElementById('replay-node');"
                      f" s.value = '{node}'; }})()")
        page.evaluate("document.getElementById('replay-next-change').click()")
        page.wait_until(f"document.body.dataset.replayIndex === '{change}'",
                        f'the next change of {node}')
        last = len(live) - 1
        page.evaluate("document.getElementById('replay-play').click()")
        page.wait_until(f"document.body.dataset.replayIndex === '{last}'", 'play to the end',
                        timeout=60.0)
        assert_page_matches(page.evaluate(PAGE_STATE)['html'], live[last])
        groot2_shows(last)
        page.screenshot(pathlib.Path(tmp_path) / 'replay.png')
    finally:
        server.shutdown()
        close(server)
