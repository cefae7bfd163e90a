# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Recordings and rosbag2, checked by an independent reader, and the Foxglove companion.

``rosbags`` (pure Python, its own MCAP reader and CDR deserialiser) reads our recording
as rosbag2 would: topics, types, the ``std_msgs/msg/String`` messages. A bag written by
``rosbags`` in rosbag2 layout (a directory: metadata.yaml + .mcap, as ``ros2 bag record
-s mcap`` makes) replays in our viewers like our own file. The Foxglove companion
(``run.foxglove.mcap``) holds what the live bridge serves, derived by the same code.
"""

from __future__ import annotations

import json
import pathlib
import sys
import threading
from unittest import mock
import urllib.request

from bt_executive.app.record_command import info
from bt_executive.observe.bag import (BagError, BagWriter, foxglove_name, read_bag,
                                      split_name)
from bt_executive.observe.foxglove import (FoxgloveView, nodes_message, SCHEMAS,
                                           TITLES)
from bt_executive.observe.replay import Timeline
from bt_executive.observe.snapshot import to_json
from cli_process import run_cli
import jsonschema
import pytest

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from test_delta import BUSY_TREE, runner_for  # noqa: E402, I100

NODE = '/r/bt_executive'
TOPICS = {f'{NODE}/snapshot': True, f'{NODE}/snapshot_delta': False,
          f'{NODE}/events': False, f'{NODE}/status': True}
ROOT = pathlib.Path(__file__).resolve().parents[1]


def run_messages(ticks: int = 40) -> tuple[list[tuple[str, int, str]], list[dict]]:
    """Tick BUSY_TREE; return its messages (topic, log time, text) and the live states."""
    runner, builder, tracker = runner_for(BUSY_TREE, ['n', 'flag'])
    stamps = iter(range(10 ** 18, 10 ** 19, 10 ** 8))
    previous = builder.update()
    tracker.reset()
    messages = [(f'{NODE}/snapshot', next(stamps), builder.encode(previous))]
    live = [json.loads(to_json(previous))]
    for tick in range(ticks):
        runner.tick_once()
        snapshot = builder.update()
        events = builder.events()
        if events:
            messages.append((f'{NODE}/events', next(stamps),
                             to_json(builder.event_batch(events))))
        if tick % 10 == 0:
            messages.append((f'{NODE}/status', next(stamps),
                             json.dumps({'tree': 'Main', 'tick_count': tick})))
        if snapshot is None:
            continue
        messages.append((f'{NODE}/snapshot_delta', next(stamps),
                         to_json(tracker.delta(previous, snapshot))))
        live.append(json.loads(to_json(snapshot)))
        previous = snapshot
    return messages, live


def write_ours(path: str, messages, **options) -> BagWriter:
    with BagWriter(path, TOPICS, foxglove=True, **options) as writer:
        for topic, stamp, text in messages:
            writer.write_text(topic, text, stamp)
    return writer


def write_rosbags(path: pathlib.Path, messages, storage: str = 'mcap') -> None:
    """Write ``messages`` as rosbag2 with ``rosbags`` (a directory, like ros2 bag record)."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import get_typestore, Stores

    store = get_typestore(Stores.ROS2_KILTED)
    string = store.types['std_msgs/msg/String']
    plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
    with Writer(path, version=9, storage_plugin=plugin) as writer:
        connections = {topic: writer.add_connection(topic, 'std_msgs/msg/String',
                                                    typestore=store) for topic in TOPICS}
        for topic, stamp, text in messages:
            writer.write(connections[topic], stamp,
                         store.serialize_cdr(string(data=text), 'std_msgs/msg/String'))


@pytest.fixture(scope='module')
def rosbags():
    return pytest.importorskip('rosbags.rosbag2',
                               reason='rosbags is in requirements-test.txt')


def test_rosbags_reads_our_recording_as_rosbag2(tmp_path, rosbags):
    from rosbags.typesys import get_typestore, Stores

    messages, _ = run_messages()
    path = tmp_path / 'run.mcap'
    write_ours(str(path), messages)
    store = get_typestore(Stores.ROS2_KILTED)
    with rosbags.Reader(path) as reader:
        assert {topic: info.msgtype for topic, info in reader.topics.items()} == \
            dict.fromkeys(TOPICS, 'std_msgs/msg/String')
        # one serialisation format in the bag, as rosbag2's reader requires to play it
        assert {c.ext.serialization_format for c in reader.connections} == {'cdr'}
        assert reader.message_count == len(messages)
        read = [(connection.topic, stamp,
                 store.deserialize_cdr(data, connection.msgtype).data)
                for connection, stamp, data in reader.messages()]
    assert read == messages
    assert [(m.topic, m.log_time, m.text) for m in read_bag(str(path)).messages] == messages


def test_a_rosbag2_directory_written_by_rosbags_replays_like_our_file(tmp_path, rosbags,
                                                                      capsys):
    from bt_executive.viewers import replay_watch
    from bt_executive.viewers.replay_web import serve

    messages, live = run_messages()
    bag = tmp_path / 'rosbag2_run'
    write_rosbags(bag, messages)
    assert (bag / 'metadata.yaml').is_file() and list(bag.glob('*.mcap'))
    for path in (str(bag), str(bag / 'metadata.yaml')):
        read = read_bag(path)
        assert [(m.topic, m.log_time, m.text) for m in read.messages] == messages
        assert not read.truncated and read.profile == 'ros2' and not read.notes
        assert set(read.channels) == set(TOPICS)
        assert Timeline.load(path).frames == live
    # record --info, watch --replay, view --replay: as with our own file
    assert info(str(bag)) == 0
    out = capsys.readouterr().out
    assert f'{NODE}/snapshot_delta  std_msgs/msg/String (ros2msg, cdr)' in out
    assert replay_watch.run(str(bag), tick=10, once=True, color=False) == 0
    assert 'tick 10' in capsys.readouterr().out
    server = serve(str(bag), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f'http://127.0.0.1:{server.port}/replay/timeline',
                                    timeout=30) as answer:
            assert json.loads(answer.read())['count'] == len(live)
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
    # the command line takes the directory too
    result = run_cli('watch', '--replay', str(bag), '--once', timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'Main' in result.stdout


def test_what_our_reader_cannot_take_is_said(tmp_path, rosbags):
    messages, live = run_messages(10)
    sqlite = tmp_path / 'sqlite_bag'
    write_rosbags(sqlite, messages, storage='sqlite3')
    with pytest.raises(BagError, match='sqlite3 storage: only MCAP storage is read; '
                                       'convert it with `ros2 bag convert`'):
        read_bag(str(sqlite))
    (sqlite / 'metadata.yaml').unlink()
    with pytest.raises(BagError, match=r'sqlite3 storage \(sqlite_bag\.db3\)'):
        read_bag(str(sqlite))
    # a recorder killed before it wrote metadata.yaml: the .mcap files are read, noted
    killed = tmp_path / 'killed'
    write_rosbags(killed, messages)
    (killed / 'metadata.yaml').unlink()
    bag = read_bag(str(killed))
    assert len(bag.messages) == len(messages) and 'no metadata.yaml' in bag.notes[0]
    timeline = Timeline.load(str(killed))
    assert timeline.frames == live and 'no metadata.yaml' in timeline.notes[0]
    compressed = tmp_path / 'compressed'
    write_rosbags(compressed, messages)
    metadata = (compressed / 'metadata.yaml').read_text()
    (compressed / 'metadata.yaml').write_text(
        metadata.replace("compression_mode: ''", 'compression_mode: file')
        .replace("compression_format: ''", 'compression_format: zstd'))
    with pytest.raises(BagError, match="compressed rosbag2 bag .compression_mode 'file'"):
        read_bag(str(compressed))
    other = tmp_path / 'other'
    other.mkdir()
    (other / 'metadata.yaml').write_text('just: text\n')
    with pytest.raises(BagError, match='not a rosbag2 metadata.yaml'):
        read_bag(str(other))
    with pytest.raises(BagError, match='no metadata.yaml and no .mcap file'):
        read_bag(str(tmp_path / 'other' / '..' / 'other' / '..'))


def schema_validators(path: str) -> tuple[dict, list]:
    """Return channel topic -> (encoding, schema name, schema) and every message."""
    from mcap.reader import make_reader

    channels, messages = {}, []
    with open(path, 'rb') as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        assert summary is not None, f'{path} not finalised'
        topics = [channel.topic for channel in summary.channels.values()]
        assert len(topics) == len(set(topics)), f'a topic advertised twice: {sorted(topics)}'
        for schema, channel, message in reader.iter_messages():
            channels.setdefault(channel.topic, set()).add(
                (channel.message_encoding, schema.name, schema.encoding))
            data = json.loads(message.data)
            jsonschema.Draft202012Validator(json.loads(schema.data)).validate(data)
            messages.append((channel.topic, message.log_time, data))
    return channels, messages


def test_the_foxglove_companion_holds_what_the_live_bridge_serves(tmp_path):
    messages, live = run_messages()
    path = str(tmp_path / 'run.mcap')
    writer = write_ours(path, messages)
    assert writer.foxglove_files == [foxglove_name(path)] == [str(tmp_path / 'run.foxglove.mcap')]
    # the bag itself: only the four ROS 2 topics
    assert {encoding for encoding, _, _ in read_bag(path).channels.values()} == {'cdr'}
    channels, recorded = schema_validators(foxglove_name(path))
    assert channels == {
        f'{NODE}/{name}': {('json', TITLES[name], 'jsonschema')}
        for name in ('nodes', 'blackboard', 'transitions', 'status')}
    # the same messages the live bridge's view makes from the same topic messages
    view = FoxgloveView()
    expected = [(f'{NODE}/{message.channel}', stamp, message.data)
                for topic, stamp, text in messages
                for message in view.put(topic, text, stamp / 1e9)]
    assert recorded == expected
    tables = [data for topic, _, data in recorded if topic == f'{NODE}/nodes']
    assert tables == [nodes_message(state) for state in live]  # one per change
    boards = [data for topic, _, data in recorded if topic == f'{NODE}/blackboard']
    assert boards[-1]['numbers'] == {'flag': int(live[-1]['blackboard']['flag']),
                                     'n': live[-1]['blackboard']['n']}
    logs = [data for topic, _, data in recorded if topic == f'{NODE}/transitions']
    assert logs and all(log['file'] == 't.yaml' and log['line'] > 0 for log in logs)
    assert any(log['level'] == 3 and 'FAILURE' in log['message'] for log in logs)
    # record --info lists the companion's channels too
    assert info(path) == 0


def test_each_split_has_its_companion_starting_with_the_current_state(tmp_path):
    messages, _ = run_messages(120)
    path = str(tmp_path / 'run.mcap')
    writer = write_ours(path, messages, max_size=6000, flush_period=0.0, min_split=0.0)
    assert len(writer.files) >= 3
    assert writer.foxglove_files == [foxglove_name(split_name(path, index))
                                     for index in range(len(writer.files))]
    for name in writer.foxglove_files[1:]:
        _, recorded = schema_validators(name)
        assert [topic for topic, _, _ in recorded[:3]] == [
            f'{NODE}/nodes', f'{NODE}/blackboard', f'{NODE}/status']


def test_a_size_below_the_state_a_split_starts_with_does_not_split_per_message(tmp_path):
    # every split starts with the current state again: with max_size 1 each message
    # would start a file; a file is written to for MIN_SPLIT seconds at least
    from bt_executive.observe.bag import MIN_SPLIT

    messages, _ = run_messages(120)
    now = [1000.0]
    path = str(tmp_path / 'run.mcap')
    with mock.patch('bt_executive.observe.bag.time.monotonic', lambda: now[0]):
        with BagWriter(path, TOPICS, max_size=1, flush_period=0.0) as writer:
            for index, (topic, stamp, text) in enumerate(messages):
                now[0] = 1000.0 + index * MIN_SPLIT / 10  # ten messages per MIN_SPLIT
                writer.write_text(topic, text, stamp)
    assert len(writer.files) == (len(messages) + 9) // 10, writer.files  # not 253


def test_no_companion_when_turned_off(tmp_path):
    messages, _ = run_messages(5)
    path = str(tmp_path / 'run.mcap')
    with BagWriter(path, TOPICS) as writer:
        for topic, stamp, text in messages:
            writer.write_text(topic, text, stamp)
    assert writer.foxglove_files == [] and not pathlib.Path(foxglove_name(path)).exists()
    assert SCHEMAS['nodes']  # the channels a live client is advertised
