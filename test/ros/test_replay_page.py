# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view --replay``: the page's timeline in headless Chromium.

The recording is made without ROS (test_replay.record); the page is the live view's,
driven by timeline.js: each state it shows must be the recorded snapshot of that frame,
with the transitions of the ticks up to it and none after (a tick's ``~/events`` batch
is recorded before the delta that shows it). ``#tick=N`` in the address moves a loaded
page, and the address follows the state shown. The graph view works in the replay and
is laid out once for the whole recording.
"""

from __future__ import annotations

import json
import pathlib
import threading

from bt_executive.observe.bag import read_bag
from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from bt_executive.viewers.replay_web import close, recorded_trees, ReplayService, serve
from devtools import assert_no_machine_paths, PAGE_STATE
from helpers import wait_for
import pytest
from test_groot2 import ask, header
from test_replay import record
from test_webview import assert_page_matches

pytestmark = pytest.mark.ros


def test_the_timeline_steps_and_jumps_through_the_recorded_states(browser, tmp_path):
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


def recorded_events(path: str, node: str) -> list[dict]:
    """Return every transition of the recording, in recorded order."""
    return [event for message in read_bag(path).messages if message.topic == node + '/events'
            for event in json.loads(message.text)['events']]


def test_each_frame_has_the_transitions_of_the_ticks_up_to_it(tmp_path):
    path = str(tmp_path / 'run.mcap')
    record(path)
    timeline = Timeline.load(path)
    service = ReplayService(timeline, path, trees=recorded_trees(read_bag(path), timeline.node))
    events = recorded_events(path, timeline.node)
    assert events
    for index in range(len(timeline)):
        code, data = service.answer('/replay/frame', f'i={index}')
        assert code == 200
        tick = timeline.tick(index)
        shown = data['events']
        assert all(event['tick'] <= tick for event in shown), (index, tick)
        assert shown == [event for event in events if event['tick'] <= tick][-50:], index
    # without the batches' trees (a timeline alone) the rule is the same in one session
    alone = ReplayService(timeline)
    for index in range(len(timeline)):
        assert alone.events_at(index) == service.events_at(index)


def test_the_address_moves_the_page_and_follows_it(browser, tmp_path):
    path = str(tmp_path / 'run.mcap')
    record(path)
    timeline = Timeline.load(path)
    server = serve(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        target = timeline.tick(len(timeline) // 2)
        page = browser.open_page(f'http://127.0.0.1:{server.port}/?view=both#tick={target}')
        expected = timeline.at_tick(target)
        page.wait_until(f"document.body.dataset.replayIndex === '{expected}'",
                        f'the state at tick {target} from the address')
        # a new #tick= moves the loaded page (no reload)
        page.evaluate('window.notReloaded = true')
        for tick in (timeline.tick(3), timeline.tick(len(timeline) - 1), 0):
            index = timeline.at_tick(tick)
            page.evaluate(f"window.location.hash = '#tick={tick}'")
            page.wait_until(f"document.body.dataset.replayIndex === '{index}'",
                            f'the state at tick {tick} after the address changed')
        assert page.evaluate('window.notReloaded') is True
        # a bad one says so and stays where it is
        page.evaluate("window.location.hash = '#tick=soon'")
        page.wait_until("document.getElementById('replay-note').textContent.includes("
                        "\"'soon' is not a tick count\")", 'the note on a bad #tick')
        assert page.evaluate('document.body.dataset.replayIndex') == str(timeline.at_tick(0))
        # stepping: the address says the tick shown; the transitions stop at that tick
        for step in range(len(timeline) - 1):
            page.evaluate("document.getElementById('replay-next').click()")
            index = timeline.at_tick(0) + step + 1
            if index >= len(timeline):
                break
            page.wait_until(f"document.body.dataset.replayIndex === '{index}'",
                            f'state {index}')
            tick = timeline.tick(index)
            assert page.evaluate('window.location.hash') == f'#tick={tick}'
            ticks = page.evaluate("[...document.querySelectorAll('#transitions li .tick')]"
                                  '.map((e) => Number(e.textContent.slice(1)))')
            assert ticks and max(ticks) <= tick, (index, tick, ticks)
        # the graph of the recording: laid out once, statuses from each frame
        page.wait_until("document.getElementById('graph').dataset.layout === 'ready'",
                        'the graph of the replay')
        requests = page.evaluate('window.btGraph.state.requests')
        page.evaluate("document.getElementById('replay-first').click()")
        page.wait_until("document.body.dataset.replayIndex === '0'", 'the first state')
        statuses = page.evaluate('Object.fromEntries([...window.btGraph.state.items].map('
                                 '([id, item]) => [id, item.g.dataset.status]))')
        assert statuses == {ident: state['status']
                            for ident, state in timeline.frames[0]['state'].items()}
        assert page.evaluate('window.btGraph.state.requests') == requests
        assert_no_machine_paths(page, tmp_path)
    finally:
        server.shutdown()
        close(server)
