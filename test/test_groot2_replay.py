# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Serving a recording to Groot2 (observe/groot2_replay.py, the replay viewers), no ROS.

A tree is ticked with the live Groot2 server observing it while its snapshots and deltas
are written to MCAP, as the executive does; after each change the test keeps what the
live server served. The replay of that recording must serve the same: at each state the
same status bytes and XML as the live server after that tick, a new UUID at a swap.
Requests go over real ZMQ sockets (and through btview's Groot2 client).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import socket
import sys
import textwrap
import threading
from typing import Any, Optional
import urllib.request

from bt_executive.app import cli
from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe import groot2
from bt_executive.observe.bag import BagWriter
from bt_executive.observe.delta import DeltaTracker
from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import SnapshotBuilder, to_json
from bt_executive.viewers import replay_web
from btview import client as btview_client
from helpers import free_port, SpawnedProcess, wait_for
import msgpack
import py_trees
import pytest

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from test_groot2 import ask, header, structure, TIMEOUT, uuid_is_v4  # noqa: E402, I100

NODE = '/r/bt_executive'
TOPICS = {f'{NODE}/snapshot': True, f'{NODE}/snapshot_delta': False, f'{NODE}/events': False}

# subtrees (named and unnamed calls, one called twice), memory, a counter: statuses move
# every tick and nodes go back to idle after each status (the "idle after" codes)
MISSION = """
    main: Mission
    blackboard: {n: 0, go: true}
    trees:
      Mission:
        Parallel root:
          success: all
          children:
            - Sequence count:
                - SetBlackboard: {key: n, value: '${n + 1}'}
                - SuccessEveryN every3: 3
            - Selector pick:
                memory: true
                children:
                  - Condition odd: n % 2 == 1
                  - Subtree step: {tree: Step}
            - Subtree: {tree: Step}
      Step:
        Sequence step root:
          - Condition gate: go
          - SuccessEveryN tock: 2
    """
OTHER = """
    main: Other
    blackboard: {m: 0}
    trees:
      Other:
        Sequence other root:
          - SetBlackboard: {key: m, value: '${m + 1}'}
          - SuccessEveryN blink: 2
    """


@dataclasses.dataclass
class Served:
    """What the live server served after a change (one recorded state)."""

    tick: int
    uuid: bytes
    xml: bytes
    status: bytes
    blackboard: dict[str, Any]


class Recording:
    """Tick trees observed by a live Groot2 server, recording them as the executive does."""

    def __init__(self, directory: pathlib.Path, name: str = 'run.mcap') -> None:
        self.directory = directory
        self.path = str(directory / name)
        clock = iter(range(10 ** 9, 10 ** 13, 10 ** 8)).__next__
        self.writer = BagWriter(self.path, TOPICS, clock=clock)
        self.live = groot2.Groot2Server(0)
        self.served: list[Served] = []
        self.revision = 0
        self.session = 's1'
        self.registry = default_registry()

    def install(self, file_name: str, text: str) -> None:
        """Load a tree file, install it (a new revision) and record its first snapshot."""
        file = self.directory / file_name
        file.write_text(textwrap.dedent(text))
        document = Loader(self.registry).load(str(file))
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(document)
        tree = build(document, registry=self.registry)
        name = document.tree().name
        self.revision += 1
        self.runner = TreeRunner(tree, track_writes=True)
        self.builder = SnapshotBuilder(self.runner.tracker, tree_name=name,
                                       source_file=str(file), revision=self.revision,
                                       blackboard_keys=['*'], document=document,
                                       session=self.session,
                                       clock=iter(range(1, 10 ** 6)).__next__)
        self.tracker = DeltaTracker()
        self.runner.add_observer(self.builder)
        self.runner.add_observer(self.tracker)
        self.live.on_install(tree, tree_name=name, document=document, registry=self.registry)
        self.runner.add_observer(self.live)
        self.previous = self.builder.update()
        self.tracker.reset()
        self.writer.write_text(f'{NODE}/snapshot', self.builder.encode(self.previous))
        self._keep(self.previous)

    def tick(self, ticks: int) -> None:
        """Tick; record each change's delta and what the live server serves after it."""
        for _ in range(ticks):
            self.runner.tick_once()
            snapshot = self.builder.update()
            events = self.builder.events()
            if events:
                self.writer.write_text(f'{NODE}/events',
                                       to_json(self.builder.event_batch(events)))
            if snapshot is None:
                continue
            self.writer.write_text(f'{NODE}/snapshot_delta',
                                   to_json(self.tracker.delta(self.previous, snapshot)))
            self.previous = snapshot
            self._keep(snapshot)

    def _keep(self, snapshot: dict[str, Any]) -> None:
        view = self.live.view
        assert view is not None
        self.served.append(Served(snapshot['tick']['count'], view.uuid, view.xml, view.status,
                                  json.loads(to_json(snapshot['blackboard']))))

    def close(self) -> None:
        self.writer.close()
        self.live.close()


def recorded(directory: pathlib.Path, *, swap: bool = False) -> Recording:
    """Record MISSION for 30 ticks (then OTHER for 10 with ``swap``)."""
    recording = Recording(directory)
    try:
        recording.install('mission.yaml', MISSION)
        recording.tick(30)
        if swap:
            recording.install('other.yaml', OTHER)
            recording.tick(10)
    finally:
        recording.close()
    return recording


@pytest.fixture
def replayed(tmp_path):
    """Yield (recording, replay served on a free port) of MISSION then OTHER."""
    recording = recorded(tmp_path, swap=True)
    server = groot2.Groot2Server(0)
    replay = Groot2Replay(Timeline.load(recording.path), server, recording=recording.path)
    yield recording, replay
    server.close()


def status_of(port: int, timeout: float = TIMEOUT) -> tuple[bytes, bytes]:
    """Ask for the statuses over ZMQ; return (tree UUID, payload)."""
    reply = ask(port, header('S'), timeout=timeout)
    assert reply[0][:6] == header('S'), reply
    return reply[0][6:], reply[1]


def served_status(port: int) -> Optional[bytes]:
    """Return the statuses served, or None while no tree is (a replay's thread not done)."""
    reply = ask(port, header('S'), timeout=TIMEOUT)
    if reply == [b'error', b'no tree is loaded']:
        return None
    assert reply[0][:6] == header('S'), reply
    return reply[1]


# ---- the replay serves what the live server served -------------------------------------

def test_each_state_serves_the_live_statuses_and_xml_of_its_tick(replayed):
    recording, replay = replayed
    port = replay.server.port
    frames = replay.timeline.frames
    assert len(frames) == len(recording.served) and not replay.notes, replay.notes
    uuids = {}
    for index, live in enumerate(recording.served):
        assert frames[index]['tick']['count'] == live.tick
        replay.show(index)
        uuid, status = status_of(port)
        assert status == live.status, f'state {index} (tick {live.tick})'
        uuids.setdefault(live.uuid, uuid)
        assert uuids[live.uuid] == uuid, 'one UUID per tree'
        if index == 0 or live.uuid != recording.served[index - 1].uuid:
            reply = ask(port, header('T'))
            assert reply[1] == live.xml  # the live export: same XML, same uids
    assert len(set(uuids.values())) == 2 and all(map(uuid_is_v4, uuids.values()))
    codes = {code for live in recording.served for _, code in groot2.parse_status(live.status)}
    assert {groot2.IDLE_AFTER + groot2.SUCCESS, groot2.IDLE_AFTER + groot2.FAILURE} <= codes


def test_stepping_back_and_jumping_serve_the_same_bytes_as_playing_forward(replayed):
    recording, replay = replayed
    count = len(recording.served)
    fresh = Groot2Replay(replay.timeline, recording=recording.path)
    order = [count - 1, 0, 17, 16, 3, count - 2, 31, 30, 5, 5]
    for index in order:
        assert fresh.status(index) == recording.served[index].status, f'state {index}'


def test_a_swap_gives_groot2_a_new_tree_and_stepping_back_the_first_again(replayed):
    recording, replay = replayed
    swap = next(i for i, live in enumerate(recording.served)
                if live.uuid != recording.served[0].uuid)
    client = btview_client.Groot2Client(port=replay.server.port,
                                        timeout_ms=int(TIMEOUT * 1000))
    try:
        replay.show(swap - 1)
        first = client.fetch_tree()
        first_uuid = client.tree_uuid
        assert first.name == 'Mission'
        replay.show(swap)
        polled = client.poll()
        assert client.tree_uuid != first_uuid  # a viewer notices the swap on its next poll
        second = client.fetch_tree()
        assert second.name == 'Other'
        assert {node.name for node in second.walk()} >= {'other root', 'blink'}
        assert {uid: state.status.name for uid, state in polled.statuses.items()} == \
            dict.fromkeys(range(1, 4), 'IDLE')
        replay.show(swap + 1)
        assert client.poll().statuses[1].status.name in ('RUNNING', 'SUCCESS', 'FAILURE')
        replay.show(0)
        client.poll()
        assert client.tree_uuid == first_uuid
        assert client.fetch_tree().name == 'Mission'
    finally:
        client.close()


def test_blackboard_requests_answer_the_recorded_blackboard_of_the_state(replayed):
    recording, replay = replayed
    for index in (3, 12, len(recording.served) - 1):
        replay.show(index)
        name = replay.tree(index).name
        reply = ask(replay.server.port, header('B'), f'{name};nothing'.encode())
        assert msgpack.unpackb(reply[1]) == {name: recording.served[index].blackboard}
    assert msgpack.unpackb(ask(replay.server.port, header('B'), b'nothing')[1]) is None


def test_a_reload_and_a_restart_are_new_trees_for_groot2(tmp_path):
    recording = Recording(tmp_path)
    try:
        recording.install('mission.yaml', MISSION)
        recording.tick(4)
        recording.install('mission.yaml', MISSION)  # ~/reload: revision 2
        recording.tick(4)
        recording.session, recording.revision = 's2', 0  # the executive restarted
        recording.install('mission.yaml', MISSION)
        recording.tick(4)
    finally:
        recording.close()
    replay = Groot2Replay(Timeline.load(recording.path), recording=recording.path)
    assert not replay.notes
    trees = [replay.tree(index) for index in range(len(replay.timeline))]
    assert len({tree.uuid for tree in trees}) == 3
    assert {tree.xml for tree in trees} == {recording.served[0].xml}
    for index, served in enumerate(recording.served):
        assert replay.status(index) == served.status, f'state {index}'


# ---- the tree file is gone or changed: the XML from the recording ------------------------

def shape(xml: bytes) -> list[Any]:
    """Return the uids, names, nesting and instances of a served tree (not node IDs)."""
    def strip(item: Any) -> Any:
        tag, attributes, children = item
        attributes = {key: value for key, value in attributes.items() if key != 'ID'}
        return (attributes, [strip(child) for child in children])

    return [strip(tree) for tree in structure(xml.decode())]


@pytest.mark.parametrize('change', ['removed', 'edited', 'broken'])
def test_without_the_tree_file_the_xml_is_rebuilt_from_the_recording(tmp_path, change):
    recording = recorded(tmp_path)
    mission = tmp_path / 'mission.yaml'
    if change == 'removed':
        mission.unlink()
    elif change == 'edited':
        mission.write_text(mission.read_text().replace('every3: 3', 'every3: 4'))
    else:
        mission.write_text('trees: [')
    replay = Groot2Replay(Timeline.load(recording.path), recording=recording.path)
    why = {'removed': 'not found', 'edited': 'the parameters of Mission/root/count/every3',
           'broken': 'cannot be loaded'}[change]
    assert len(replay.notes) == 1 and why in replay.notes[0], replay.notes
    assert 'rebuilt from the recording' in replay.notes[0]
    live = recording.served[0].xml
    ours = replay.tree(0).xml
    assert ours != live and shape(ours) == shape(live)
    assert structure(ours.decode())[1][1]['_fullpath'] == 'step'
    assert replay.tree(0).blackboards == groot2.blackboard_names(live.decode(), 'Mission')
    assert replay.tree(0).blackboards == {'Mission', 'step', 'Step::11'}
    for index, served in enumerate(recording.served):
        assert replay.status(index) == served.status, f'state {index}'
    root = groot2.ElementTree.fromstring(ours)
    assert root.find('BehaviorTree/bte_Parallel').get('success') == 'all'
    assert {model.get('ID') for model in root.find('TreeNodesModel')} >= {
        'bte_Parallel', 'bte_Sequence', 'SuccessEveryN', 'bte_Condition'}


def test_a_relative_tree_file_is_found_next_to_the_recording(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    recording = Recording(tmp_path)
    try:
        file = tmp_path / 'mission.yaml'
        recording.install('mission.yaml', MISSION)
        recording.tick(3)
    finally:
        recording.close()
    timeline = Timeline.load(recording.path)
    for frame in timeline.frames:
        frame['source_file'] = 'mission.yaml'  # as the executive was given it
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    replay = Groot2Replay(timeline, recording=recording.path)
    assert not replay.notes and replay.tree(0).origin == str(file)
    assert replay.tree(0).xml == recording.served[0].xml


# ---- the viewers and the command line ----------------------------------------------------

def test_the_web_replay_serves_groot2_the_frame_the_page_fetched(tmp_path):
    recording = recorded(tmp_path)
    server = replay_web.serve(recording.path, port=0, groot2_port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.groot2.server.port
        assert status_of(port)[1] == recording.served[0].status  # before a page opens
        for index in (7, 2, len(recording.served) - 1):
            url = f'http://127.0.0.1:{server.port}/replay/frame?i={index}'
            with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
                assert json.loads(answer.read())['index'] == index
            wait_for(lambda: served_status(port) == recording.served[index].status, TIMEOUT,
                     f'Groot2 to serve state {index}')  # served from a thread: no wait
    finally:
        server.shutdown()
        replay_web.close(server)
    assert groot2.Groot2Server(port).close()  # closing the viewer released the port


def busy_port() -> tuple[socket.socket, int]:
    """Return a listening socket on a loopback port (the port is in use)."""
    holder = socket.socket()
    holder.bind(('127.0.0.1', 0))
    holder.listen(1)
    return holder, holder.getsockname()[1]


@pytest.mark.parametrize('command', ['groot2', 'view', 'watch'])
def test_a_groot2_port_in_use_is_a_clear_error(tmp_path, capsys, command):
    recording = recorded(tmp_path)
    holder, port = busy_port()
    arguments = {'groot2': ['groot2', '--replay', recording.path, '--port', str(port)],
                 'view': ['view', '--replay', recording.path, '--port', '0',
                          '--groot2-port', str(port)],
                 'watch': ['watch', '--replay', recording.path, '--groot2-port', str(port)]}
    try:
        code = cli.main(arguments[command])
    finally:
        holder.close()
    error = capsys.readouterr().err
    if command == 'watch':  # no terminal here: the state shown never changes
        assert code == 2 and 'bt-executive groot2 --replay' in error
        return
    assert code == 1
    assert f'cannot serve Groot2 on 127.0.0.1:{port}: Address already in use' in error


def test_groot2_port_without_a_replay_is_refused(capsys):
    assert cli.main(['view', '--ns', 'x', '--groot2-port', '1667']) == cli.EXIT_USAGE
    assert "'groot2_port' parameter" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(['groot2', '--replay', 'x.mcap', '--port', '70000'])


def groot2_command(tmp_path: pathlib.Path, *arguments: str) -> tuple[SpawnedProcess, int]:
    port = free_port()
    process = SpawnedProcess([sys.executable, '-m', 'bt_executive.app.cli', 'groot2',
                              '--port', str(port), *arguments], directory=tmp_path,
                             name=f'groot2-{port}', env=dict(os.environ))
    return process, port


def test_the_groot2_command_holds_a_tick_or_plays_to_the_end(tmp_path):
    recording = recorded(tmp_path)
    served = recording.served
    middle = served[len(served) // 2]
    held, port = groot2_command(tmp_path, '--replay', recording.path, '--tick',
                                str(middle.tick), '--speed', '0')
    try:
        assert status_of(port, 60.0)[1] == middle.status  # (a loaded machine starts slowly)
        assert held.stop() == 0
        assert 'Groot2 on 127.0.0.1' in held.stdout_text()
    finally:
        held.stop()
    played, port = groot2_command(tmp_path, '--replay', recording.path, '--speed', '64')

    def at_the_end() -> Optional[bool]:
        return status_of(port, 60.0)[1] == served[-1].status or None

    try:
        wait_for(at_the_end, 60.0, 'the played replay to reach its last state')
        wait_for(lambda: f'the last state (tick {served[-1].tick})' in played.stdout_text(),
                 TIMEOUT, 'the line saying so')
        assert played.stop() == 0
    finally:
        played.stop()


def test_viewers_never_wait_for_groot2_and_the_latest_state_wins(replayed):
    recording, replay = replayed
    port = replay.server.port
    last = len(recording.served) - 1
    for index in [last, 0, 20, 3, last - 1, 9]:
        replay.follow(index)  # returns at once; computed and served from a thread
    wait_for(lambda: served_status(port) == recording.served[9].status, TIMEOUT,
             'Groot2 to serve the state asked for last')
    replay.close()
    assert not any(thread.name == 'groot2-replay' for thread in threading.enumerate())
    replay.follow(4)  # after close: ignored


def test_a_recorded_structure_that_is_not_a_tree_is_a_clear_error(tmp_path):
    recording = recorded(tmp_path)
    timeline = Timeline.load(recording.path)
    nodes = timeline.frames[0]['nodes']
    nodes[1]['children'] = [*nodes[1]['children'], 'Mission/root']
    with pytest.raises(groot2.Groot2Error, match="not a tree: node 'Mission/root' is reached"):
        Groot2Replay(timeline)
    nodes[1]['children'] = ['Mission/nowhere']
    with pytest.raises(groot2.Groot2Error, match="not a tree: no node 'Mission/nowhere'"):
        Groot2Replay(timeline)


def test_the_groot2_command_loops_and_refuses_a_negative_speed(tmp_path, capsys):
    from bt_executive.viewers import replay_groot2
    from bt_executive.viewers.replay_watch import Player

    recording = recorded(tmp_path)
    assert cli.main(['groot2', '--replay', recording.path, '--speed', '-1']) == 2
    assert '--speed must be >= 0' in capsys.readouterr().err
    timeline = Timeline.load(recording.path)
    replay = Groot2Replay(timeline, recording=recording.path)
    shown: list[int] = []
    stop = threading.Event()
    show = replay.show

    def noting(index: int) -> None:
        shown.append(index)
        if index == 0 and len(timeline) - 1 in shown:
            stop.set()  # came round again
        show(index)

    replay.show = noting
    player = Player(timeline, 0)
    player.speed, player.playing = 1000.0, True
    thread = threading.Thread(target=replay_groot2.play_states, args=(player, replay, stop),
                              kwargs={'loop': True, 'progress': None, 'out': print})
    thread.start()
    assert stop.wait(60.0), f'the replay did not start again (shown: {shown[-5:]})'
    thread.join(10.0)
    assert shown[0] == 0 and sorted(set(shown)) == list(range(len(timeline)))
