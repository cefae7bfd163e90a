# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Record two laps of the patrol demo, replay them: each tick shows what the live view did.

The sim, the executive and ``bt-executive record`` run as real processes (sim time x10,
with a docking in the two laps). The test's node is the live viewer: it rebuilds the
state from ``~/snapshot`` and ``~/snapshot_delta`` as every viewer of the package does
(``SnapshotState``) and keeps each state it showed. The recording is then replayed
(``Timeline``, the model behind ``view --replay`` and ``watch --replay``) and, in
headless Chromium, through the replay page itself at chosen ticks.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
from typing import Any, Optional
import uuid

from bt_executive.observe.bag import read_bag
from bt_executive.observe.delta import SnapshotState
from bt_executive.observe.replay import Timeline
from helpers import wait_for
import pytest
from test_webview import assert_page_matches, browser  # noqa: F401 - fixture

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / 'config'
TIMEOUT = 120.0


class LiveView:
    """The states a live viewer showed, rebuilt from the executive's two snapshot topics."""

    def __init__(self, node: Any, executive: str) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.state = SnapshotState()
        self.shown: list[dict[str, Any]] = []
        self.statuses: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        for suffix, depth in (('snapshot', 1), ('snapshot_delta', 100)):
            qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
            node.create_subscription(String, f'{executive}/{suffix}', self.take, qos)
        node.create_subscription(
            String, f'{executive}/status', lambda m: self.statuses.append(json.loads(m.data)),
            QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL))

    def take(self, message: Any) -> None:
        with self.lock:
            if self.state.feed_text(message.data) and self.state.snapshot is not None:
                self.shown.append(self.state.snapshot)

    def board(self) -> dict[str, Any]:
        return self.statuses[-1].get('blackboard', {}) if self.statuses else {}


def live_at(shown: list[dict[str, Any]], tick: int) -> Optional[dict[str, Any]]:
    """Return the state the live view showed at tick ``tick`` (its last up to it)."""
    found = None
    for state in shown:
        if tick_of(state) <= tick:
            found = state
    return found


def artefacts(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = os.environ.get('BT_EXECUTIVE_SCREENSHOTS')
    path = pathlib.Path(folder) if folder else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def start(args: list[str], log: pathlib.Path) -> subprocess.Popen:
    with open(log, 'wb') as output:
        return subprocess.Popen([sys.executable, *args], stdout=output,
                                stderr=subprocess.STDOUT, start_new_session=True)


def stop(process: subprocess.Popen, signum: int = signal.SIGINT) -> Optional[int]:
    if process.poll() is None:
        os.killpg(process.pid, signum)
        try:
            return process.wait(20.0)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5.0)
    return process.returncode


def tick_of(state: dict[str, Any]) -> int:
    return int((state.get('tick') or {}).get('count', 0))  # no tick yet: None


def key(state: dict[str, Any]) -> tuple[Any, Any, Any]:
    return state['session'], state['revision'], state['seq']


def test_two_recorded_laps_replay_as_they_were_shown_live(ros_node, browser, tmp_path):  # noqa
    namespace = f'/replay_{uuid.uuid4().hex[:8]}'
    executive_name = f'{namespace}/bt_executive'
    path = tmp_path / 'laps.mcap'
    live = LiveView(ros_node, executive_name)
    recorder = start(['-m', 'bt_executive.app.cli', 'record', '--ns', namespace,
                      '-o', str(path)], tmp_path / 'record.log')
    # the recording starts with the run: the recorder subscribes before the executive exists
    wait_for(lambda: len(ros_node.get_subscriptions_info_by_topic(
        f'{executive_name}/snapshot_delta')) >= 2 or recorder.poll() is not None, TIMEOUT,
        'the recorder to subscribe')
    assert recorder.poll() is None, (tmp_path / 'record.log').read_text()
    sim = start([str(ROOT / 'bt_executive' / 'sim' / 'robot.py'), '--ros-args',
                 '--params-file', str(CONFIG / 'sim_robot.yaml'), '-r', f'__ns:={namespace}',
                 '-p', 'publish_clock:=true', '-p', 'time_scale:=10.0', '-p', 'rate:=100.0',
                 '-p', 'initial_battery:=0.35', '-p', 'idle_drain:=0.0'],
                tmp_path / 'sim.log')
    executive = start(['-m', 'bt_executive.ros.executive', '--ros-args', '--params-file',
                       str(CONFIG / 'executive.yaml'), '-r', f'__ns:={namespace}',
                       '-p', f'tree_file:={CONFIG / "patrol.yaml"}',
                       '-p', 'use_sim_time:=true'], tmp_path / 'executive.log')
    processes = [recorder, sim, executive]
    try:
        def logs() -> str:
            return '\n'.join(f'--- {name}:\n{(tmp_path / name).read_text()[-3000:]}'
                             for name in ('record.log', 'sim.log', 'executive.log'))

        try:
            wait_for(lambda: live.board().get('laps', 0) >= 2
                     or any(p.poll() is not None for p in processes), TIMEOUT,
                     'two laps of the patrol')
        except AssertionError as error:
            raise AssertionError(f'{error}\nlast status: {live.statuses[-1:]}\n'
                                 f'{logs()}') from None
        assert all(p.poll() is None for p in processes), logs()
        assert live.board().get('dockings', 0) >= 1, live.board()
        # the last state the live view showed is in the file before the recording stops
        with live.lock:
            seen_live = list(live.shown)  # what the live view showed while both listened
        last = seen_live[-1]
        wait_for(lambda: path.exists() and key(last) in {
            key(frame) for frame in Timeline.from_bag(read_bag(str(path))).frames},
            TIMEOUT, f'the recorder to write seq {last["seq"]}')
        assert stop(recorder) == 0, logs()
    finally:
        for process in reversed(processes):
            stop(process)
    timeline = Timeline.load(str(path))
    assert timeline.node == executive_name and not timeline.notes, timeline.notes
    recorded = {key(frame): frame for frame in timeline.frames}
    # every state shown live from the recording's first one on is in the recording, equal
    first = key(timeline.frames[0])
    shown = [state for state in seen_live if key(state) >= first]
    assert len(shown) >= 50, (first, len(shown))
    missing = [key(state) for state in shown if key(state) not in recorded]
    assert not missing, f'{len(missing)} live states not recorded, e.g. {missing[:5]}'
    for state in shown:
        assert recorded[key(state)] == state, key(state)
    # and at each tick the replay shows the live view's state at that tick
    ticks = sorted({tick_of(state) for state in shown})
    for tick in ticks:
        assert timeline.frames[timeline.at_tick(tick)] == live_at(shown, tick), tick
    # the replay page, in the browser, at a few ticks: a docking, a failure, the end
    from bt_executive.viewers.replay_web import serve

    docking = next((i for i, frame in enumerate(timeline.frames) if any(
        'dock' in node['id'] and frame['state'][node['id']]['status'] == 'RUNNING'
        for node in frame['nodes'])), None)
    failure = timeline.next_failure(0)
    end = max(i for i, frame in enumerate(timeline.frames) if key(frame) <= key(last))
    by_key = {key(state): state for state in shown}
    # the states both the live view and the recording have (either may have missed the
    # first ones while discovery matched it)
    chosen = sorted({index for index in (docking, failure, end) if index is not None
                     and key(timeline.frames[timeline.at_tick(timeline.tick(index))]) in by_key})
    assert docking is not None and end in chosen, (docking, end, chosen)
    server = serve(str(path), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser.open_page(f'http://127.0.0.1:{server.port}/')
        page.wait_until("document.body.dataset.replayIndex === '0'", 'the first state')
        for index in chosen:
            tick = timeline.tick(index)
            expected = timeline.at_tick(tick)
            page.evaluate(f"(() => {{ const box = document.getElementById('replay-tick');"
                          f" box.value = '{tick}';"
                          f" box.dispatchEvent(new Event('change')); }})()")
            page.wait_until(f"document.body.dataset.replayIndex === '{expected}'",
                            f'the replay at tick {tick} (state {expected})')
            state = timeline.frames[expected]  # shown live (checked above), as it was
            live_state = by_key.get(key(state))
            assert live_state is not None, (index, tick, expected, key(state))
            assert_page_matches(page.evaluate('document.documentElement.outerHTML'),
                                live_state)
            if index == docking:  # the README's picture (make screenshots: in docs/)
                page.screenshot(artefacts(tmp_path) / 'replay_view.png')
    finally:
        server.shutdown()
        server.server_close()
