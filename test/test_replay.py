# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Replays (observe/replay.py, watch --replay, view --replay), without ROS.

The recording is a ticked tree's snapshots and deltas written with BagWriter.
"""

from __future__ import annotations

import json
import sys
import urllib.request

from bt_executive.observe.bag import BagWriter
from bt_executive.observe.replay import Timeline
from bt_executive.observe.snapshot import to_json
from bt_executive.viewers import replay_watch
from bt_executive.viewers.replay_web import serve
import pytest

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from test_delta import BUSY_TREE, runner_for  # noqa: E402, I100

NODE = '/r/bt_executive'
TOPICS = {f'{NODE}/snapshot': True, f'{NODE}/snapshot_delta': False, f'{NODE}/events': False}


def record(path: str, ticks: int = 40, *, full_every_change: bool = False):
    """Tick BUSY_TREE; write its first snapshot, deltas and events; return the snapshots."""
    runner, builder, tracker = runner_for(BUSY_TREE, ['n', 'flag'])
    clock = iter(range(10 ** 9, 10 ** 13, 10 ** 8)).__next__
    live = []
    with BagWriter(path, TOPICS, clock=clock) as writer:
        previous = builder.update()
        tracker.reset()
        writer.write_text(f'{NODE}/snapshot', builder.encode(previous))
        live.append(json.loads(to_json(previous)))
        for _ in range(ticks):
            runner.tick_once()
            snapshot = builder.update()
            events = builder.events()
            if events:
                writer.write_text(f'{NODE}/events', to_json(builder.event_batch(events)))
            if snapshot is None:
                continue
            writer.write_text(f'{NODE}/snapshot_delta',
                              to_json(tracker.delta(previous, snapshot)))
            if full_every_change:
                writer.write_text(f'{NODE}/snapshot', builder.encode(snapshot))
            live.append(json.loads(to_json(snapshot)))
            previous = snapshot
    return live


def test_the_replayed_state_at_each_tick_is_the_live_one(tmp_path):
    path = str(tmp_path / 'run.mcap')
    live = record(path)
    timeline = Timeline.load(path)
    assert timeline.node == NODE and not timeline.notes
    assert timeline.frames == live
    for snapshot in live:
        tick = snapshot['tick']['count']
        assert timeline.frames[timeline.at_tick(tick)] == snapshot
    assert timeline.events and all(at < len(timeline) for at, _ in timeline.events)


def test_jumps_to_changes_and_failures(tmp_path):
    path = str(tmp_path / 'run.mcap')
    record(path)
    timeline = Timeline.load(path)
    node = 'Main/root/count/every3'
    first = timeline.next_change(0, node)
    assert first is not None
    assert timeline.status(first, node) != timeline.status(first - 1, node)
    back = timeline.next_change(first, node, -1)
    assert back is not None and back < first
    failure = timeline.next_failure(0)
    assert failure is not None
    before, after = timeline.frames[failure - 1]['state'], timeline.frames[failure]['state']
    assert any(after[i]['status'] == 'FAILURE' and before[i]['status'] != 'FAILURE'
               for i in after)
    assert timeline.next_failure(len(timeline) - 1) is None
    assert timeline.next_failure(failure, step=-1) in (None, *range(failure))


def test_watch_replay_prints_the_state_at_a_tick(tmp_path, capsys):
    path = str(tmp_path / 'run.mcap')
    live = record(path)
    target = live[len(live) // 2]
    tick = target['tick']['count']
    assert replay_watch.run(path, tick=tick, once=True, color=False) == 0
    out = capsys.readouterr().out
    assert f'tick {tick}' in out and 'replay' in out
    assert f"n: {target['blackboard']['n']}" in out.replace('=', ':') or \
        str(target['blackboard']['n']) in out


def test_watch_replay_keys_step_and_jump(tmp_path):
    path = str(tmp_path / 'run.mcap')
    record(path)
    player = replay_watch.Player(Timeline.load(path))
    assert player.act('next') and player.index == 1
    assert player.act('previous') and player.index == 0
    player.act('failure')
    assert player.timeline.frames[player.index]['state'] and player.index > 0
    player.act('node')
    assert 'choose a node' in player.message
    player.act('choose')
    assert player.node is not None
    player.act('last')
    assert player.index == len(player.timeline) - 1
    player.act('faster')
    assert player.speed == 2.0 and 'x2' not in player.header()
    assert not player.act('quit')


def test_watch_replay_of_a_missing_or_foreign_file_says_why(tmp_path, capsys):
    assert replay_watch.run(str(tmp_path / 'none.mcap'), once=True) == 1
    assert 'cannot open' in capsys.readouterr().err
    empty = tmp_path / 'empty.mcap'
    with BagWriter(str(empty), TOPICS):
        pass
    assert replay_watch.run(str(empty), once=True) == 1
    assert 'no ~/snapshot recorded' in capsys.readouterr().err


def test_view_replay_serves_the_timeline_and_frames(tmp_path):
    import threading

    path = str(tmp_path / 'run.mcap')
    live = record(path, full_every_change=True)
    server = serve(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f'http://127.0.0.1:{server.port}'

    def get(route: str):
        with urllib.request.urlopen(base + route, timeout=10) as answer:
            return json.loads(answer.read())

    try:
        timeline = get('/replay/timeline')
        assert timeline['count'] == len(live) and timeline['node'] == NODE
        middle = len(live) // 2
        frame = get(f'/replay/frame?i={middle}')
        assert frame['snapshot'] == live[middle]
        tick = live[middle]['tick']['count']
        assert get(f'/replay/find?tick={tick}')['index'] == middle
        found = get('/replay/find?from=0&failure=1')['index']
        assert found is not None and found > 0
        change = get('/replay/find?from=0&node=Main/root/count/every3')['index']
        assert change is not None
        with pytest.raises(urllib.error.HTTPError) as error:
            get('/replay/frame?i=99999')
        assert error.value.code == 400
        with urllib.request.urlopen(base + '/timeline.js', timeout=10) as answer:
            assert b'replay/timeline' in answer.read()
        with urllib.request.urlopen(base + '/', timeout=10) as answer:
            assert b'timeline.js' in answer.read()
    finally:
        server.shutdown()
        server.server_close()


def test_each_split_replays_on_its_own_with_keyframes_only_now_and_then(tmp_path):
    """The executive's default: one full snapshot, then deltas (and heartbeats).

    A split starts as a late joiner would (the latched snapshot and the deltas' history),
    so a split whose only full snapshot is from an earlier split still replays every
    state it recorded, without a gap.
    """
    from bt_executive.observe.bag import KEPT, read_bag
    from bt_executive.observe.delta import heartbeat_delta

    runner, builder, tracker = runner_for(BUSY_TREE, ['n', 'flag'])
    clock = iter(range(10 ** 9, 10 ** 13, 10 ** 8)).__next__
    path = str(tmp_path / 'run.mcap')
    live = []
    kept = {f'{NODE}/{name}': count for name, count in KEPT.items()}
    with BagWriter(path, TOPICS, clock=clock, max_size=6000, kept=kept,
                   flush_period=0.0, min_split=0.0) as writer:
        previous = builder.update()
        tracker.reset()
        writer.write_text(f'{NODE}/snapshot', builder.encode(previous))
        live.append(json.loads(to_json(previous)))
        for tick in range(60):
            runner.tick_once()
            snapshot = builder.update()
            if snapshot is None:
                writer.write_text(f'{NODE}/snapshot_delta',
                                  to_json(heartbeat_delta(builder.full())))
                continue
            writer.write_text(f'{NODE}/snapshot_delta',
                              to_json(tracker.delta(previous, snapshot)))
            live.append(json.loads(to_json(snapshot)))
            previous = snapshot
    assert len(writer.files) >= 3
    by_seq = {snapshot['seq']: snapshot for snapshot in live}
    for file in writer.files:
        timeline = Timeline.from_bag(read_bag(file))
        assert not timeline.notes, (file, timeline.notes)
        for frame in timeline.frames:
            expected = by_seq[frame['seq']]
            assert {k: v for k, v in frame.items() if k not in ('stamp', 'tick')} == \
                {k: v for k, v in expected.items() if k not in ('stamp', 'tick')}
    last = Timeline.from_bag(read_bag(writer.files[-1]))
    assert last.frames[-1]['seq'] == live[-1]['seq']


def stream(ticks: int = 30) -> tuple[list[tuple[str, int, str]], list[dict]]:
    """Return BUSY_TREE's messages with a keyframe on every change, and the live states."""
    runner, builder, tracker = runner_for(BUSY_TREE, ['n', 'flag'])
    previous = builder.update()
    tracker.reset()
    messages = [(f'{NODE}/snapshot', 0, builder.encode(previous))]
    live = [json.loads(to_json(previous))]
    for tick in range(1, ticks + 1):
        runner.tick_once()
        snapshot = builder.update()
        if snapshot is None:
            continue
        messages.append((f'{NODE}/snapshot_delta', tick * 10,
                         to_json(tracker.delta(previous, snapshot))))
        messages.append((f'{NODE}/snapshot', tick * 10 + 1, builder.encode(snapshot)))
        live.append(json.loads(to_json(snapshot)))
        previous = snapshot
    return messages, live


def test_a_keyframe_recorded_before_the_deltas_it_skips_loses_no_state():
    """The recorder's two subscriptions may write a keyframe before earlier deltas."""
    messages, live = stream()
    assert len(live) > 8
    # only the first keyframe and the deltas, but keyframe 6 taken before deltas 4, 5, 6
    kept = [messages[0]] + [m for m in messages[1:] if m[0].endswith('_delta')]
    keyframe = next(m for m in messages[1:] if m[0].endswith('/snapshot')
                    and json.loads(m[2])['seq'] == live[6]['seq'])
    at = next(i for i, m in enumerate(kept) if json.loads(m[2]).get('seq') == live[4]['seq'])
    reordered = kept[:at] + [keyframe] + kept[at:]
    timeline = Timeline(reordered)
    assert not timeline.notes
    assert [frame['seq'] for frame in timeline.frames] == [state['seq'] for state in live]
    assert timeline.frames == live
    assert timeline.log_times == sorted(timeline.log_times)


def test_a_keyframe_whose_deltas_were_lost_is_still_a_frame():
    messages, live = stream()
    kept = [messages[0]] + [m for m in messages[1:] if m[0].endswith('_delta')
                            and json.loads(m[2])['seq'] not in (live[4]['seq'], live[5]['seq'])]
    keyframe = next(m for m in messages[1:] if m[0].endswith('/snapshot')
                    and json.loads(m[2])['seq'] == live[5]['seq'])
    at = next(i for i, m in enumerate(kept) if json.loads(m[2]).get('seq') == live[6]['seq'])
    timeline = Timeline(kept[:at] + [keyframe] + kept[at:])
    assert [frame['seq'] for frame in timeline.frames] == \
        [state['seq'] for state in live[:4] + live[5:]]
    # and at the end of the file, a keyframe ahead with nothing after it
    tail = Timeline(kept[:at - 1] + [keyframe])
    assert tail.frames[-1] == live[5]
