# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Record two laps of the patrol demo, replay them: each tick shows what the live view did.

The sim, the executive and ``bt-executive record`` run as real processes (sim time x10,
with a docking in the two laps), from a neutral working directory holding a copy of
config/ (relative paths only: no folder of this machine reaches a page or a picture).
The test's node is the live viewer: it rebuilds the state from ``~/snapshot`` and
``~/snapshot_delta`` as every viewer of the package does (``SnapshotState``) and keeps
each state it showed. Meanwhile the live web view's graph of the running patrol is
fitted at 1400x900 (every box inside the graph, labels legible; the README's picture).
The recording is then replayed (``Timeline``, the model behind ``view --replay`` and
``watch --replay``) and, in headless Chromium, through the replay page itself at chosen
ticks.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
from typing import Any, Optional
import uuid

from bt_executive.observe.bag import read_bag
from bt_executive.observe.delta import SnapshotState
from bt_executive.observe.replay import Timeline
from bt_executive.viewers.webview import WebView
from devtools import assert_no_machine_paths
from helpers import wait_for
import pytest
from test_webview import assert_page_matches
from test_webview_graph import check_fit, fit

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
            if self.state.feed_text(message.data):
                self.shown.extend(self.state.passed)

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


def start(args: list[str], log: pathlib.Path, cwd: pathlib.Path) -> subprocess.Popen:
    with open(log, 'wb') as output:
        return subprocess.Popen([sys.executable, *args], stdout=output, cwd=cwd,
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


def shown_part(state: dict[str, Any]) -> dict[str, Any]:
    """Return a state without its tick statistics and stamp.

    A heartbeat keyframe of an unchanged tree keeps its ``seq`` but carries the current
    tick counters and stamp (observe/snapshot.py, ``SnapshotBuilder.full``): the live view
    and the recording may hold the same state at two moments (seen on a loaded machine:
    tick count 1 and 3 for one seq).
    """
    return {name: value for name, value in state.items() if name not in ('tick', 'stamp')}


def key(state: dict[str, Any]) -> tuple[Any, Any, Any]:
    return state['session'], state['revision'], state['seq']


def test_two_recorded_laps_replay_as_they_were_shown_live(ros_node, browser, tmp_path):
    namespace = f'/replay_{uuid.uuid4().hex[:8]}'
    executive_name = f'{namespace}/bt_executive'
    neutral = tmp_path / 'patrol'  # the processes' working directory: relative paths only
    shutil.copytree(CONFIG, neutral / 'config')
    path = neutral / 'laps.mcap'
    live = LiveView(ros_node, executive_name)
    recorder = start(['-m', 'bt_executive.app.cli', 'record', '--ns', namespace,
                      '-o', 'laps.mcap'], tmp_path / 'record.log', neutral)
    # the recording starts with the run: the recorder subscribes before the executive exists
    wait_for(lambda: len(ros_node.get_subscriptions_info_by_topic(
        f'{executive_name}/snapshot_delta')) >= 2 or recorder.poll() is not None, TIMEOUT,
        'the recorder to subscribe')
    assert recorder.poll() is None, (tmp_path / 'record.log').read_text()
    sim = start(['-m', 'bt_executive.sim.robot', '--ros-args',
                 '--params-file', 'config/sim_robot.yaml', '-r', f'__ns:={namespace}',
                 '-p', 'publish_clock:=true', '-p', 'time_scale:=10.0', '-p', 'rate:=100.0',
                 '-p', 'initial_battery:=0.35', '-p', 'idle_drain:=0.0'],
                tmp_path / 'sim.log', neutral)
    executive = start(['-m', 'bt_executive.ros.executive', '--ros-args', '--params-file',
                       'config/executive.yaml', '-r', f'__ns:={namespace}',
                       '-p', 'tree_file:=config/patrol.yaml',
                       '-p', 'use_sim_time:=true'], tmp_path / 'executive.log', neutral)
    processes = [recorder, sim, executive]
    view = WebView(namespace=namespace.strip('/'), port=0).start()
    try:
        # the live web view of the running patrol, as a graph fitted at 1400x900, while
        # the robot drives to the dock (the README's picture; make screenshots: docs/)
        page = browser.open_page(view.url + '?view=graph')
        page.resize(1400, 900)
        drive = "#graph-world [data-graph-id$='go to dock/Navigate/drive']"
        try:
            page.wait_until(f"document.querySelector(\"{drive}\")?.dataset.active === 'leaf'",
                            'the robot to drive to the dock', timeout=TIMEOUT)
        except AssertionError:  # the docking came before the page: any running state
            page.wait_until("document.querySelector('#graph-world [data-active=leaf]')",
                            'a running leaf')
        fit(page)
        result = check_fit(page, 'the live patrol at 1400x900')
        nodes = page.evaluate('window.btGraph.state.items.size')
        assert result['shown'] == nodes and result['folds'] == 0, result['shown']
        assert page.evaluate("document.getElementById('source-file').textContent") == \
            'config/patrol.yaml'
        assert_no_machine_paths(page, tmp_path)
        page.screenshot(artefacts(tmp_path) / 'web_view.png')

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
        view.close()
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
        assert shown_part(recorded[key(state)]) == shown_part(state), key(state)
    # and at each tick the replay shows the live view's state at that tick
    ticks = sorted({tick_of(state) for state in shown})
    for tick in ticks:
        assert shown_part(timeline.frames[timeline.at_tick(tick)]) == \
            shown_part(live_at(shown, tick)), tick
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
        page = browser.open_page(f'http://127.0.0.1:{server.port}/?view=outline')
        page.resize(1400, 900)
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
                assert_no_machine_paths(page, tmp_path)
                page.screenshot(artefacts(tmp_path) / 'replay_view.png')
    finally:
        server.shutdown()
        server.server_close()
