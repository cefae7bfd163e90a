# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A recording whose executive is SIGKILLed: bounded loss, a finalised copy, a direct replay.

The executive records itself (``record_file``) as a real process and is killed outright
at a moment the test does not choose by any event; the file it leaves is then recovered
with ``bt-executive record --recover`` and the copy read by the independent readers: the
``mcap`` library's default (seeking) reader and ``rosbags``. What may be lost is the chunk
that was being written (docs/recording.md, crash guarantees): at most ``flush_period``
(1 s) of messages before the kill, measured here from the kill to the last message kept.
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

from bt_executive.observe.bag import finalised, foxglove_name, read_bag
from bt_executive.observe.replay import Timeline
from cli_process import run_cli
from executive_host import write_tree
from helpers import wait_for
import pytest
from test_record import BLINK, grown, rosbags_reads, stop, TIMEOUT

pytestmark = pytest.mark.ros

#: Seconds of messages a kill may lose: the flush period (1 s), plus the timer's lateness
#: on a loaded machine.
LOSS_BOUND = 1.0 + 1.0


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, timeout=TIMEOUT)


def default_reader_messages(path: str) -> list[tuple[str, int, bytes]]:
    """Read ``path`` with the mcap library's default reader (it needs the summary)."""
    from mcap.reader import make_reader

    with open(path, 'rb') as stream:
        return [(channel.topic, message.log_time, message.data)
                for _, channel, message in make_reader(stream).iter_messages()]


@pytest.mark.parametrize('recorded_for', [2.3, 4.1])
def test_a_sigkilled_recording_loses_at_most_the_chunk_being_written(tmp_path, recorded_for):
    namespace = f'/kill_{uuid.uuid4().hex[:8]}'
    node = f'{namespace}/bt_executive'
    path = tmp_path / 'run.mcap'
    tree = write_tree(tmp_path, 'blink.yaml', BLINK)
    log = tmp_path / 'executive.log'
    with open(log, 'wb') as output:
        executive = subprocess.Popen(
            [sys.executable, '-m', 'bt_executive.ros.executive', '--ros-args', '-r',
             f'__ns:={namespace}', '-p', f'tree_file:={tree}', '-p', 'tick_rate:=20.0',
             '-p', "snapshot_keys:=['n']", '-p', f'record_file:={path}'],
            stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: grown(str(path), 2000) or executive.poll() is not None, TIMEOUT * 2,
                 'the executive to write its first chunk')
        assert executive.poll() is None, log.read_text()
        time.sleep(recorded_for)  # no event to wait for: the kill comes at any moment
        killed_at = time.time_ns()
        os.killpg(executive.pid, signal.SIGKILL)
        executive.wait(TIMEOUT)
    finally:
        stop(executive)
    assert not finalised(str(path))
    killed = read_bag(str(path))
    assert 'not finalised' in killed.truncated

    # --replay plays the killed file as it is
    replay = cli('watch', '--replay', str(path), '--once')
    assert replay.returncode == 0 and 'Traceback' not in replay.stderr, replay.stderr
    assert 'blink' in replay.stdout

    result = cli('record', '--recover', str(path))
    assert result.returncode == 0, result.stderr
    copy = tmp_path / 'run.recovered.mcap'
    assert f'recovered to {copy}' in result.stdout
    assert finalised(str(copy)) and finalised(foxglove_name(str(copy)))
    recovered = read_bag(str(copy))
    assert not recovered.truncated
    # every complete message, in the same order, with the same times
    assert [(m.topic, m.log_time, m.text) for m in recovered.messages] == \
        [(m.topic, m.log_time, m.text) for m in killed.messages]
    # the loss is bounded: from the last message kept to the kill
    lost = (killed_at - recovered.log_times[1]) / 1e9
    print(f'killed after {recorded_for} s: {sum(recovered.counts.values())} messages kept, '
          f'last {lost:.3f} s before the kill; {result.stdout.strip()}')
    assert lost <= LOSS_BOUND, f'{lost:.2f} s of messages lost'
    # no gap inside: the deltas chain from the first snapshot to the end
    timeline = Timeline.from_bag(recovered)
    assert not timeline.notes and len(timeline) >= 20, timeline.notes
    assert timeline.frames[-1]['seq'] == max(
        json.loads(m.text)['seq'] for m in recovered.messages
        if m.topic == f'{node}/snapshot_delta')

    # the independent readers open the copy and find every message
    kept = default_reader_messages(str(copy))
    assert len(kept) == len(recovered.messages) == sum(recovered.counts.values())
    rosbags_reads(str(copy), recovered)
    companion = default_reader_messages(foxglove_name(str(copy)))
    assert len(companion) >= 20
    # the killed file itself is what they refuse (the reason for --recover)
    with pytest.raises(Exception):  # noqa: B017 - whichever error the reader raises
        default_reader_messages(str(path))


def test_recover_says_what_it_cannot_read_and_leaves_finalised_files_alone(tmp_path):
    junk = tmp_path / 'junk.mcap'
    junk.write_bytes(b'not a recording')
    result = cli('record', '--recover', str(junk))
    assert result.returncode == 1 and 'not an MCAP file' in result.stderr, result.stderr
    assert 'Traceback' not in result.stderr
    from bt_executive.observe.bag import BagWriter
    good = tmp_path / 'good.mcap'
    with BagWriter(str(good), {'/bt_executive/status': True}) as writer:
        writer.write_text('/bt_executive/status', '{}')
    result = cli('record', '--recover', str(good), '-o', str(tmp_path / 'copy.mcap'))
    assert result.returncode == 0 and 'nothing to recover' in result.stdout
    assert not pathlib.Path(tmp_path / 'copy.mcap').exists()
