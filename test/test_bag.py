# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""MCAP recordings (bt_executive.observe.bag) without ROS: writing, rotation, reading back."""

from __future__ import annotations

import json
import pathlib

from bt_executive.observe.bag import BagError, BagWriter, read_bag, split_name
import pytest

TOPICS = {'/r/bt_executive/snapshot': True, '/r/bt_executive/snapshot_delta': False}
SNAPSHOT, DELTA = TOPICS


def write(path: str, count: int, **options) -> BagWriter:
    clock = iter(range(10 ** 9, 10 ** 12, 10 ** 7)).__next__
    with BagWriter(path, TOPICS, clock=clock, **options) as writer:
        for index in range(count):
            topic = SNAPSHOT if index % 20 == 0 else DELTA
            writer.write_text(topic, json.dumps({'i': index, 'pad': 'x' * 200}))
    return writer


def test_a_recording_reads_back_in_order_with_its_channels(tmp_path):
    path = str(tmp_path / 'run.mcap')
    writer = write(path, 100, metadata={'namespace': '/r'})
    assert writer.files == [path] and writer.counts == {SNAPSHOT: 5, DELTA: 95}
    bag = read_bag(path)
    assert not bag.truncated and bag.profile == 'ros2' and bag.skipped == 0
    assert bag.channels == {topic: ('cdr', 'std_msgs/msg/String', 'ros2msg') for topic in TOPICS}
    assert [json.loads(m.text)['i'] for m in bag.messages] == list(range(100))
    assert bag.counts == {SNAPSHOT: 5, DELTA: 95}
    assert bag.duration == pytest.approx(0.99)
    assert read_bag(path, topics=[SNAPSHOT]).counts == {SNAPSHOT: 5}


def test_rotation_by_size_repeats_the_latched_topics(tmp_path):
    path = str(tmp_path / 'run.mcap')
    writer = write(path, 400, max_size=8000, flush_period=0.0, min_split=0.0)
    assert len(writer.files) >= 3
    assert writer.files[:2] == [split_name(path, 0), split_name(path, 1)]
    seen = []
    for name in writer.files:
        bag = read_bag(name)
        assert not bag.truncated
        assert bag.messages[0].topic == SNAPSHOT  # each split starts with the snapshot
        seen += [json.loads(m.text)['i'] for m in bag.messages]
    assert sorted(set(seen)) == list(range(400))


def test_a_cut_file_is_reported_with_what_it_holds(tmp_path):
    path = tmp_path / 'run.mcap'
    write(str(path), 300, flush_period=0.0)
    data = path.read_bytes()
    cut = tmp_path / 'cut.mcap'
    cut.write_bytes(data[:len(data) // 3])
    bag = read_bag(str(cut))
    assert 'not finalised' in bag.truncated and str(cut) in bag.truncated
    assert 0 < len(bag.messages) < 300
    header_only = tmp_path / 'header.mcap'
    header_only.write_bytes(data[:40])
    assert read_bag(str(header_only)).truncated


def test_what_is_not_a_recording_is_an_error_naming_the_file(tmp_path):
    other = tmp_path / 'notes.txt'
    other.write_text('hello')
    with pytest.raises(BagError, match='notes.txt: not an MCAP file'):
        read_bag(str(other))
    with pytest.raises(BagError, match='missing.mcap: cannot open'):
        read_bag(str(tmp_path / 'missing.mcap'))


def killed_copy(path: str, tmp_path, name: str = 'killed.mcap') -> str:
    """Return a copy of ``path`` as it is on disk now: what a SIGKILL would leave."""
    target = tmp_path / name
    target.write_bytes(pathlib.Path(path).read_bytes())
    return str(target)


def test_a_kill_loses_only_the_chunk_being_written(tmp_path):
    from bt_executive.observe.bag import CHUNK_SIZE, finalised, recover
    from mcap.reader import make_reader

    path = str(tmp_path / 'run.mcap')
    writer = BagWriter(path, TOPICS, flush_period=3600.0)
    for index in range(3000):  # several chunks of CHUNK_SIZE are written on their own
        writer.write_text(DELTA, json.dumps({'i': index, 'pad': 'x' * 200}), log_time=index)
    written_alone = read_bag(killed_copy(path, tmp_path, 'alone.mcap'))
    assert 0 < len(written_alone.messages) < 3000  # the rest is in the chunk being written
    assert sum(len(m.text) for m in written_alone.messages[-5:]) < CHUNK_SIZE
    writer.flush()
    writer.write_text(DELTA, json.dumps({'i': 'after the flush'}), log_time=3000)
    killed = killed_copy(path, tmp_path)  # no close: the file as a kill leaves it
    assert not finalised(killed)
    result = recover(killed, str(tmp_path / 'copy.mcap'))
    assert (result.messages, result.lost_bytes, result.reason) == (3000, 0, '')
    with open(tmp_path / 'copy.mcap', 'rb') as stream:
        assert [json.loads(message.data[8:-1])['i'] for _, _, message in
                make_reader(stream).iter_messages()] == list(range(3000))
    # a record cut in two: everything before it is kept, the rest is counted as lost
    data = open(killed, 'rb').read()
    (tmp_path / 'torn.mcap').write_bytes(data[:-50])
    torn = recover(str(tmp_path / 'torn.mcap'), str(tmp_path / 'torn_copy.mcap'))
    assert torn.reason and torn.lost_bytes > 0 and torn.messages <= 3000
    assert finalised(str(tmp_path / 'torn_copy.mcap'))
    writer.close()
    assert finalised(path)


def test_a_new_recording_sets_a_killed_one_aside_instead_of_overwriting_it(tmp_path):
    path = str(tmp_path / 'run.mcap')
    first = BagWriter(path, TOPICS)
    first.write_text(SNAPSHOT, '{"i": 0}')
    first.flush()  # and then the process dies: no close
    second = BagWriter(path, TOPICS)
    assert second.set_aside == [(path, str(tmp_path / 'run.unfinished.mcap'))]
    second.close()
    assert read_bag(str(tmp_path / 'run.unfinished.mcap')).counts == {SNAPSHOT: 1}
    third = BagWriter(path, TOPICS)  # a finalised file is replaced as before
    assert third.set_aside == []
    third.close()
