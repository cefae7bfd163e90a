# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive record``: an executive's topics to MCAP, read back with the mcap reader.

The first test runs the executive and the recorder in this process (each on its own
context) so the counts can be compared exactly with what the executive published; the
others run both as real subprocesses and stop the recorder with a signal.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
import uuid

from bt_executive.observe.bag import BagWriter, foxglove_name, read_bag, split_name
from bt_executive.observe.foxglove import CHANNELS, TITLES
from bt_executive.observe.replay import Timeline
from cli_process import run_cli
from executive_host import write_tree
from helpers import wait_for
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 30.0
BLINK = """
    blackboard: {n: 0}
    trees:
      Blink:
        Sequence root:
          - SetBlackboard: {key: n, value: '${n + 1}'}
          - SuccessEveryN blink: 2
    """
SUFFIXES = ('snapshot', 'snapshot_delta', 'events', 'status')


def mcap_counts(path: str) -> tuple[dict[str, int], dict[str, tuple[str, str, str]]]:
    """Read ``path`` with the mcap reader (and the ROS 2 decoder); return counts, channels."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    counts: dict[str, int] = {}
    channels = {}
    with open(path, 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        assert summary is not None, f'{path} has no summary: not finalised'
        for channel in summary.channels.values():
            schema = summary.schemas[channel.schema_id]
            channels[channel.topic] = (channel.message_encoding, schema.name, schema.encoding)
        for _, channel, _, decoded in reader.iter_decoded_messages():
            json.loads(decoded.data)
            counts[channel.topic] = counts.get(channel.topic, 0) + 1
    return counts, channels


def test_recording_holds_every_message_published(host, tmp_path):
    from bt_executive.ros.recorder import Recorder, topics_of

    ex = host(write_tree(tmp_path, 'blink.yaml', BLINK), manual=True,
              snapshot_keys=['n'], snapshot_heartbeat=3600.0)
    path = str(tmp_path / 'run.mcap')
    topics = topics_of(ex.namespace)
    recorder = Recorder(BagWriter(path, topics), namespace=ex.namespace)
    try:
        ex.spin_until(lambda: all(ex.executive.count_subscribers(topic) for topic in topics),
                      'the recorder to subscribe to all four topics')
        published = ex.executive.snapshot_topics.counts
        snapshot_topic, delta_topic, events_topic = (
            f'{ex.topic}/snapshot', f'{ex.topic}/snapshot_delta', f'{ex.topic}/events')
        texts: list[tuple[str, dict]] = []
        write = recorder.writer.write

        def keep(topic: str, data: bytes, log_time=None) -> None:
            texts.append((topic, json.loads(data[8:-1].decode())))
            write(topic, data, log_time)

        recorder.writer.write = keep

        def matched() -> bool:  # every topic delivered once: both sides of each match done
            ex.executive.tick_once()
            recorder.spin_once(0.05)
            return all(recorder.writer.counts.values())

        ex.spin_until(matched, 'a message of every topic at the recorder')
        marker_tick = ex.executive.snapshots.tick_count
        marker_seq = ex.executive.snapshots.seq
        before = dict(published)
        live = {}  # the snapshot of each change, as built in the executive (the default
        # configuration publishes it in full only as a keyframe): what the replay must equal
        for tick in range(30):  # at a robot's pace: the latched topics keep only the last
            ex.executive.tick_once()
            snapshot = json.loads(json.dumps(ex.executive.snapshot_topics.previous))
            live[snapshot['seq']] = snapshot

            def taken(count: int = published['delta']) -> bool:
                recorder.spin_once(0.02)
                return recorder.writer.counts[delta_topic] >= count

            ex.spin_until(taken, f'the recorder to take the delta of tick {tick}')
        ex.executive.publish_status(force=True)
        last_seq, last_tick = ex.executive.snapshots.seq, ex.executive.snapshots.tick_count

        def after(topic: str) -> list[dict]:
            if topic == events_topic:
                return [m for t, m in texts if t == topic and m['events'][0]['tick'] > marker_tick]
            return [m for t, m in texts if t == topic and m['seq'] > marker_seq]

        def recorded() -> bool:
            recorder.spin_once(0.02)
            return after(delta_topic) and after(delta_topic)[-1]['seq'] == last_seq \
                and after(events_topic) and after(events_topic)[-1]['events'][0]['tick'] \
                == last_tick

        ex.spin_until(recorded, 'the recorder to take the last snapshot and events')
        expected = {snapshot_topic: published['snapshot'] - before['snapshot'],
                    delta_topic: published['delta'] - before['delta'],
                    events_topic: published['events'] - before['events']}
        assert expected[delta_topic] >= 30
        assert {topic: len(after(topic)) for topic in expected} == expected
        totals = dict(recorder.writer.counts)
    finally:
        recorder.close()
    counts, channels = mcap_counts(path)
    assert set(channels) == set(topics)
    assert all(value == ('cdr', 'std_msgs/msg/String', 'ros2msg') for value in channels.values())
    assert counts == {topic: count for topic, count in totals.items() if count}
    bag = read_bag(path)
    assert not bag.truncated and bag.profile == 'ros2'
    assert bag.counts == counts
    assert len(live) >= 30
    replay_equals_live(bag, ex.topic, live=live)


def replay_equals_live(bag, node: str, minimum: int = 30, live=None) -> None:
    """Replay the first snapshot + the deltas: each state is the live snapshot of its seq.

    ``live``: seq -> the snapshot the executive built; default: the recorded full ones.
    """
    full = [json.loads(m.text) for m in bag.messages if m.topic == f'{node}/snapshot']
    first_of_seq = dict(live or {})
    for snapshot in full if live is None else ():
        first_of_seq.setdefault(snapshot['seq'], snapshot)  # later ones: heartbeats
    start = full[0]
    messages = [(m.topic, m.log_time, m.text) for m in bag.messages
                if m.topic != f'{node}/snapshot' or json.loads(m.text) is start
                or json.loads(m.text)['seq'] == start['seq']]
    timeline = Timeline(messages, node=node)
    assert not timeline.notes, timeline.notes
    compared = 0
    ticks = [frame['tick']['count'] for frame in timeline.frames]
    for index, frame in enumerate(timeline.frames):
        live = first_of_seq.get(frame['seq'])
        if live is not None and frame['seq'] > start['seq']:
            assert frame == live, f"seq {frame['seq']}"
            if index + 1 == len(ticks) or ticks[index + 1] > ticks[index]:
                # the last state at its tick (a stop after it keeps the count)
                assert timeline.frames[timeline.at_tick(ticks[index])] == live
            compared += 1
    assert compared >= minimum


def executive_process(tmp_path: pathlib.Path, namespace: str) -> subprocess.Popen:
    tree = write_tree(tmp_path, 'blink.yaml', BLINK)
    log = open(tmp_path / 'executive.log', 'wb')
    return subprocess.Popen(
        [sys.executable, '-m', 'bt_executive.ros.executive', '--ros-args', '-r',
         f'__ns:={namespace}', '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
         '-p', "snapshot_keys:=['n']"], stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)


def record_process(tmp_path: pathlib.Path, namespace: str, *options: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, '-m', 'bt_executive.app.cli', 'record', '--ns', namespace, *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(15.0)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5.0)


def grown(path: str, size: int) -> bool:
    return os.path.exists(path) and os.path.getsize(path) > size


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM])
def test_a_signal_finalises_every_split(tmp_path, signum):
    namespace = f'/rec_{uuid.uuid4().hex[:8]}'
    path = str(tmp_path / 'run.mcap')
    executive = executive_process(tmp_path, namespace)
    recorder = None
    try:
        recorder = record_process(tmp_path, namespace, '-o', path, '--max-size', '20k')
        wait_for(lambda: grown(split_name(path, 1), 200) or recorder.poll() is not None,
                 TIMEOUT * 2, 'the recorder to start a second file (--max-size 20k)')
        assert recorder.poll() is None, recorder.communicate()
        os.killpg(recorder.pid, signum)
        out, err = recorder.communicate(timeout=TIMEOUT)
    finally:
        if recorder is not None:
            stop(recorder)
        stop(executive)
    assert recorder.returncode == 0, err
    assert 'Traceback' not in err and 'finalised' in err, err
    assert 'messages' in err and 'snapshot_delta' in err
    files = sorted(tmp_path.glob('run_*[0-9].mcap'))
    assert len(files) >= 2
    node = f'{namespace}/bt_executive'
    for file in files:  # each split with its Foxglove companion, which starts with a table
        companion = read_bag(str(foxglove_name(str(file))))
        assert not companion.truncated and companion.counts.get(f'{node}/nodes', 0) >= 1
        assert set(companion.channels) <= {f'{node}/{name}' for name in CHANNELS}
        counts, channels = mcap_counts(str(file))
        assert len(channels) == 4
        assert counts.get(f'{namespace}/bt_executive/snapshot', 0) >= 1, file  # repeated
        assert os.path.getsize(file) < 60 * 1024, file
        bag = read_bag(str(file))
        assert not bag.truncated
        # each split starts as a late joiner: the latched snapshot and the deltas after it
        timeline = Timeline.from_bag(bag)
        assert not timeline.notes and len(timeline) >= 2, (file, timeline.notes)


def test_a_killed_recording_is_reported_not_a_traceback(tmp_path):
    namespace = f'/rec_{uuid.uuid4().hex[:8]}'
    path = str(tmp_path / 'killed.mcap')
    executive = executive_process(tmp_path, namespace)
    recorder = None
    try:
        recorder = record_process(tmp_path, namespace, '-o', path)
        delta = f'{namespace}/bt_executive/snapshot_delta'
        # a delta in the file, not only bytes: on a loaded machine the events and status
        # flowed while the snapshot topics were still being discovered
        wait_for(lambda: (grown(path, 2000) and read_bag(path).counts.get(delta, 0) >= 1)
                 or recorder.poll() is not None, TIMEOUT * 2,
                 'the recorder to flush a snapshot delta to the file')
        time.sleep(0.1)  # nothing to wait for: any moment is a fair one to be killed
        os.killpg(recorder.pid, signal.SIGKILL)
        recorder.wait(TIMEOUT)
    finally:
        if recorder is not None:
            stop(recorder)
        stop(executive)
    bag = read_bag(path)
    assert bag.truncated and 'not finalised' in bag.truncated
    assert bag.counts.get(delta, 0) >= 1
    info = run_cli('record', '--info', path, timeout=TIMEOUT)
    assert info.returncode == 1
    assert 'not finalised' in info.stderr and 'Traceback' not in info.stderr, info.stderr
    assert 'snapshot_delta' in info.stdout


def test_the_executive_records_itself_and_finalises_on_sigint(tmp_path):
    namespace = f'/rec_{uuid.uuid4().hex[:8]}'
    path = tmp_path / 'self.mcap'
    tree = write_tree(tmp_path, 'blink.yaml', BLINK)
    log = tmp_path / 'executive.log'
    with open(log, 'wb') as output:
        executive = subprocess.Popen(
            [sys.executable, '-m', 'bt_executive.ros.executive', '--ros-args', '-r',
             f'__ns:={namespace}', '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
             # the full snapshot of every change: what the replay is compared with
             '-p', 'snapshot_on_change:=true',
             '-p', f'record_file:={path}'], stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        wait_for(lambda: grown(str(path), 2000) or executive.poll() is not None, TIMEOUT * 2,
                 'the executive to flush its recording')
        os.killpg(executive.pid, signal.SIGINT)
        executive.wait(TIMEOUT)
    finally:
        stop(executive)
    assert executive.returncode == 0, log.read_text()
    counts, channels = mcap_counts(str(path))
    node = f'{namespace}/bt_executive'
    assert set(channels) == {f'{node}/{suffix}' for suffix in SUFFIXES}
    assert counts[f'{node}/snapshot_delta'] >= 5 and counts[f'{node}/status'] >= 1
    assert 'recorded' in log.read_text()
    bag = read_bag(str(path))
    replay_equals_live(bag, node, minimum=5)
    # the Foxglove companion: the four channels of the live bridge, JSON with JSON schemas
    companion = read_bag(foxglove_name(str(path)))
    assert not companion.truncated and str(path.with_name('self.foxglove.mcap')) in \
        log.read_text()
    assert companion.channels == {f'{node}/{name}': ('json', TITLES[name], 'jsonschema')
                                  for name in CHANNELS}
    assert companion.counts[f'{node}/nodes'] >= 5
    rosbags_reads(str(path), bag)


def rosbags_reads(path: str, bag) -> None:
    """Read ``path`` with rosbags (an independent rosbag2 reader): the same as read_bag."""
    rosbag2 = pytest.importorskip('rosbags.rosbag2', reason='in requirements-test.txt')
    from rosbags.typesys import get_typestore, Stores

    store = get_typestore(Stores.ROS2_KILTED)
    with rosbag2.Reader(path) as reader:
        assert {topic: info.msgtype for topic, info in reader.topics.items()} == \
            dict.fromkeys(bag.channels, 'std_msgs/msg/String')
        read = [(connection.topic, stamp,
                 store.deserialize_cdr(data, connection.msgtype).data)
                for connection, stamp, data in reader.messages()]
    assert sorted(read) == sorted((m.topic, m.log_time, m.text) for m in bag.messages)
