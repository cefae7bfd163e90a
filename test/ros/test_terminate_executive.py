# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive with Terminate and pause: what a real peer sees and what ~/status says.

The executive runs in-process and is ticked by hand (``manual``); the subscriber is a
separate process (peers/subscriber.py) that reports every message it receives. The status
and snapshot subscribers are a separate node (``ros_node``) spun in a thread.
"""

from __future__ import annotations

import pathlib
from typing import Any

from executive_host import Host, write_tree
from helpers import collect_json, collect_states, SNAPSHOT_VALIDATOR
import py_trees
import pytest
from tree_runner import DISCOVERY_TIMEOUT, unique_name

pytestmark = pytest.mark.ros

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'

TREE = """\
blackboard: {{armed: true, run: 1}}
trees:
  Main:
    Sequence root:
      - Publish before: {{topic: {topic}, type: std_msgs/msg/String,
                         fields: {{data: '${{"before " + str(run)}}'}}}}
      - Selector gate:                     # without Terminate the gate would succeed
          - Condition disarmed: not armed
          - Terminate stop: {{status: failure, reason: estop held}}
          - Success pass
      - Publish after: {{topic: {topic}, type: std_msgs/msg/String,
                        fields: {{data: '${{"after " + str(run)}}'}}}}
      - Running hold
"""


def subscribers_of(ex: Host, path: str) -> int:
    """Return how many subscriptions the publisher of the Publish leaf ``path`` matched."""
    return ex.executive.tree.built.by_path(path).publisher.get_subscription_count()


def wait_status(ex: Host, received: list[dict[str, Any]], predicate: Any,
                message: str) -> dict[str, Any]:
    """Spin the executive until a received ~/status message satisfies ``predicate``."""
    return ex.spin_until(lambda: next((m for m in reversed(received) if predicate(m)), None),
                         message)


def test_a_peer_never_sees_the_publish_after_terminate(host, tmp_path, ros_node, spawn):
    from helpers import PeerEvents

    topic = '/' + unique_name('terminate')
    peer = spawn(PEERS / 'subscriber.py', topic)
    peer.wait_for_line('READY', timeout=DISCOVERY_TIMEOUT)
    seen = PeerEvents(ros_node, f'{topic}/events')
    ex = host(write_tree(tmp_path, 't.yaml', TREE.format(topic=topic)), manual=True)
    status = collect_json(ros_node, f'{ex.topic}/status')
    snapshots = collect_states(ros_node, ex.topic)
    for leaf in ('Main/root/before', 'Main/root/after'):
        ex.spin_until(lambda: subscribers_of(ex, leaf) >= 1, f'the peer to match {leaf}',
                      DISCOVERY_TIMEOUT)

    record = ex.executive.tick_once()
    assert record is not None and record.terminated is not None
    assert not ex.executive.running
    seen.wait_for_name('received', data='before 1')
    final = wait_status(ex, status, lambda m: m['terminated'] is not None,
                        'a ~/status saying terminated')
    assert final['root_status'] == 'FAILURE'
    assert final['running'] is False and final['paused'] is False
    assert final['terminated'] == 'Main/root/gate/stop: failure estop held'
    assert final['last_failure'] == 'Main/root/gate/stop: terminating tree: estop held'
    snapshot = wait_status(ex, snapshots, lambda m: m['executive']['terminated'],
                           'a snapshot saying terminated')
    SNAPSHOT_VALIDATOR.validate(snapshot)
    assert snapshot['root_status'] == 'FAILURE'
    assert snapshot['why'][-1]['id'] == 'Main/root/gate/stop'
    assert snapshot['state']['Main/root/after']['status'] == 'INVALID'
    assert ex.executive.tick_once() is None  # terminated: no more ticks

    # The fence: the same publisher sends 'after 2' once the gate opens. Its messages
    # arrive in order, so an 'after 1' published by the first tick would come first.
    py_trees.blackboard.Blackboard.set('/armed', False)
    py_trees.blackboard.Blackboard.set('/run', 2)
    ex.executive.resume()
    ex.executive.tick_once()
    seen.wait_for_name('received', data='after 2')
    received = [event['data'] for event in seen.all('received')]
    assert received == ['before 1', 'before 2', 'after 2'], received
    ticks = ex.executive.tick_count  # resume() publishes before that tick: wait for it
    running = wait_status(ex, status, lambda m: m['terminated'] is None and m['running']
                          and m['tick_count'] >= ticks, 'a ~/status saying running')
    assert running['root_status'] == 'RUNNING'


def test_status_and_snapshot_say_paused(host, tmp_path, ros_node):
    tree = write_tree(tmp_path, 'p.yaml', 'trees:\n  Main:\n    Running hold\n')
    ex = host(tree, manual=True)
    status = collect_json(ros_node, f'{ex.topic}/status')
    snapshots = collect_states(ros_node, ex.topic)
    ex.executive.tick_once()
    wait_status(ex, status, lambda m: m['root_status'] == 'RUNNING', 'a running ~/status')
    ex.executive.pause()
    paused = wait_status(ex, status, lambda m: m['paused'], 'a ~/status saying paused')
    assert paused['running'] is False and paused['terminated'] is None
    snapshot = wait_status(ex, snapshots, lambda m: m['executive'].get('paused'),
                           'a snapshot saying paused')
    assert snapshot['executive']['running'] is False
    SNAPSHOT_VALIDATOR.validate(snapshot)
    ex.executive.resume()
    resumed = wait_status(ex, status, lambda m: not m['paused'] and m['running'],
                          'a ~/status saying resumed')
    assert resumed['terminated'] is None
