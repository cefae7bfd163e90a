# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A topic the tree reads, flooded at 1 kHz from another process: the tick keeps its pace.

The executive runs as a real process; a peer publishes std_msgs/Int64 (a counter) at
1 kHz on a topic that feeds a blackboard key the tree reads, through a condition whose
outcome flips with every message (so in event mode every message is a reason to tick),
and that a TopicCondition leaf subscribes to as well. Over a window
of ~15 s of flood the executive must tick at its configured rate (a ratio, generous:
the machine is shared), keep seeing fresh values, and not grow its resident memory.
"""

from collections.abc import Callable
import pathlib
import time
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import collect_json, SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
TIMEOUT = 30.0
RATE = 1000
WINDOW = 15_000  # messages between the two samples (15 s at 1 kHz)
#: Resident memory the executive may gain over the window (DDS and Python warm up in
#: the first seconds, before the window starts; a leak of a few hundred bytes per
#: message would be 3+ MiB).
RSS_GROWTH_BOUND = 4 * 2**20


def rss(pid: int) -> int:
    """Return the resident set size of a process, in bytes (Linux /proc)."""
    for line in pathlib.Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) * 1024
    raise AssertionError(f'no VmRSS for pid {pid}')


@pytest.mark.parametrize('mode, parameters, expected_rate', [
    ('periodic', ('-p', 'tick_mode:=periodic', '-p', 'tick_rate:=20.0'), 20.0),
    ('event', ('-p', 'tick_mode:=event', '-p', 'max_tick_rate:=50.0'), 50.0),
])
def test_a_1khz_topic_does_not_starve_the_tick_or_grow_memory(
        mode: str, parameters: tuple[str, ...], expected_rate: float,
        spawn: Callable[..., SpawnedProcess], tmp_path: pathlib.Path, ros_node: Any) -> None:
    topic = f'/flood_{uuid.uuid4().hex[:8]}'
    namespace = f'/ex_{uuid.uuid4().hex[:8]}'
    tree = write_tree(tmp_path, 'flood.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Int64, field: data, key: seq}}
        blackboard: {{seq: 0}}
        trees:
          Main:
            ReactiveSequence:
              - Selector parity:  # its outcome changes with every message
                  - Condition even: seq % 2 == 0
                  - Success odd
              - TopicCondition direct: {{topic: {topic}, type: std_msgs/msg/Int64,
                                        expr: msg.data > 0}}
              - Running busy
        """)
    statuses = collect_json(ros_node, f'{namespace}/bt_executive/status')
    executive = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:={namespace}',
                      '-p', f'tree_file:={tree}', '-p', 'status_period:=0.2',
                      '-p', 'status_keys:=[seq]', *parameters)
    wait_for(lambda: statuses and statuses[-1]['tick_count'] > 0, TIMEOUT, 'the first tick')
    flood = spawn(PEERS / 'publisher.py', topic, 'count', '--rate', str(RATE))
    flood.wait_for_line('READY', timeout=TIMEOUT)
    warm = flood.wait_for_event(lambda e: e['sent'] >= 3 * RATE, timeout=TIMEOUT,
                                message='3 s of flood')
    wait_for(lambda: statuses[-1]['blackboard'].get('seq', 0) > 0, TIMEOUT,
             'the tree to see the flood')

    def sample() -> tuple[float, int, int, int]:
        status = statuses[-1]
        return time.monotonic(), status['tick_count'], rss(executive.pid), \
            status['blackboard']['seq']

    start_time, start_ticks, start_rss, _ = sample()
    sent_before = flood.events()[-1]['sent']
    end = flood.wait_for_event(lambda e: e['sent'] >= sent_before + WINDOW,
                               timeout=WINDOW / RATE * 4, message='the flood window')
    end_time, end_ticks, end_rss, end_seq = sample()
    elapsed = end_time - start_time
    flood_rate = (end['sent'] - sent_before) / elapsed
    tick_rate = (end_ticks - start_ticks) / elapsed
    report = (f'{mode}: {flood_rate:.0f} msg/s for {elapsed:.1f} s, {tick_rate:.1f} ticks/s '
              f'(configured {expected_rate:g}), RSS {start_rss / 2**20:.1f} -> '
              f'{end_rss / 2**20:.1f} MiB, warm-up sent {warm["sent"]}')
    print(report)
    assert flood_rate > RATE / 2, f'the flood was too slow to mean anything: {report}'
    assert 0.5 <= tick_rate / expected_rate <= 1.2, report
    assert end_seq >= sent_before, f'the tree saw stale values only: {end_seq}; {report}'
    assert end_rss - start_rss < RSS_GROWTH_BOUND, report
    assert executive.returncode is None
