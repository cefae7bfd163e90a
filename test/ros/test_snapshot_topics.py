# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's ~/snapshot and ~/events topics.

The executive runs in-process on its own context; most tests tick it by hand
(``Executive._tick`` with the timer cancelled) so that the number of ticks is exact. The
subscriber is a separate node (``ros_node``) whose executor spins in a thread.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import threading
from typing import Any

from executive_host import Host, write_tree
from helpers import EVENTS_VALIDATOR, SELECTOR_TREE, SNAPSHOT_VALIDATOR, wait_on
import jsonschema
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 15.0


class Collector:
    """Every JSON message received on a std_msgs/String topic (reliable, transient local)."""

    def __init__(self, node: Any, topic: str, *, depth: int = 100):
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.topic = topic
        self.messages: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self.subscription = node.create_subscription(String, topic, self._on_message, qos)

    def _on_message(self, message: Any) -> None:
        with self._changed:
            self.messages.append(json.loads(message.data))
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], message: str,
                 timeout: float = TIMEOUT) -> dict[str, Any]:
        return self._wait_in(self.messages, predicate, message, timeout)

    def _wait_in(self, received: list[dict[str, Any]],
                 predicate: Callable[[dict[str, Any]], bool], message: str,
                 timeout: float) -> dict[str, Any]:
        """Wait until ``received`` (a list the callbacks fill) holds one ``predicate`` takes."""
        return wait_on(self._changed,
                       lambda: next((m for m in received if predicate(m)), None), timeout,
                       lambda: f'timed out after {timeout}s waiting for {message} on '
                               f'{self.topic}; got {len(received)} messages')

    def seqs(self) -> list[int]:
        with self._changed:
            return [received['seq'] for received in self.messages]


#: two leaves that succeed every 2nd and 3rd tick: a change on most ticks
BLINK_TWO = """
    trees:
      Blink:
        Sequence root:
          - SuccessEveryN blink: 2
          - SuccessEveryN blank: 3
    """


def snapshots(ros_node: Any, ex: Host) -> Collector:
    return Collector(ros_node, f'{ex.topic}/snapshot')


class StateCollector(Collector):
    """The states a viewer rebuilds from ~/snapshot and ~/snapshot_delta (SnapshotState)."""

    def __init__(self, node: Any, topic: str):
        from bt_executive.observe.delta import SnapshotState

        self.state = SnapshotState()
        self.raw: list[dict[str, Any]] = []
        super().__init__(node, f'{topic}/snapshot')
        self.deltas = Collector.__new__(Collector)
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String
        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.delta_subscription = node.create_subscription(
            String, f'{topic}/snapshot_delta', self._on_message, qos)

    def _on_message(self, message: Any) -> None:
        with self._changed:
            data = json.loads(message.data)
            self.raw.append(data)
            if self.state.feed(data):
                self.messages.append(self.state.snapshot)
            self._changed.notify_all()

    def wait_for_raw(self, predicate: Callable[[dict[str, Any]], bool], message: str,
                     timeout: float = TIMEOUT) -> dict[str, Any]:
        """Wait for a received message (snapshot or delta, as sent) that ``predicate`` takes."""
        return self._wait_in(self.raw, predicate, message, timeout)


def states(ros_node: Any, ex: Host) -> StateCollector:
    return StateCollector(ros_node, ex.topic)


def validate_all(collector: Collector, validator: jsonschema.Validator) -> None:
    for message in collector.messages:
        validator.validate(message)


def test_published_on_change_only(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'still.yaml', SELECTOR_TREE), manual=True,
              snapshot_keys=['x'], snapshot_heartbeat=3600.0, snapshot_on_change=True)
    received = snapshots(ros_node, ex)
    first = received.wait_for(lambda m: True, 'the snapshot of the new tree')
    assert (first['seq'], first['root_status'], first['tree']) == (1, 'INVALID', 'Main')
    ex.executive.tick_once()
    received.wait_for(lambda m: m['seq'] == 2, 'the first tick (everything moved)')
    for _ in range(20):
        ex.executive.tick_once()  # an unchanging tree: nothing to publish
    import py_trees
    py_trees.blackboard.Blackboard.set('/x', 2)  # a selected key changes: one more
    ex.executive.tick_once()
    last = received.wait_for(lambda m: m['seq'] == 3, 'the blackboard change')
    assert received.seqs() == [1, 2, 3]
    assert last['blackboard'] == {'x': 2} and last['tick']['count'] == 22
    assert last['executive']['running'] is True
    assert last['executive']['node'] == ex.topic
    validate_all(received, SNAPSHOT_VALIDATOR)


def test_a_changing_tree_publishes_every_tick(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'blink.yaml', """
        trees:
          Blink:
            SuccessEveryN blink: 2
        """), manual=True, snapshot_heartbeat=3600.0, snapshot_on_change=True)
    received = snapshots(ros_node, ex)
    received.wait_for(lambda m: m['seq'] == 1, 'the first snapshot')
    for tick in range(1, 11):
        ex.executive.tick_once()
        received.wait_for(lambda m, seq=tick + 1: m['seq'] == seq, f'the snapshot of tick {tick}')
    assert received.seqs() == list(range(1, 12))
    assert [m['root_status'] for m in received.messages[1:3]] in (
        ['FAILURE', 'SUCCESS'], ['SUCCESS', 'FAILURE'])
    validate_all(received, SNAPSHOT_VALIDATOR)


def test_heartbeat_repeats_the_current_snapshot(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'still.yaml', SELECTOR_TREE), tick_rate=50.0,
              snapshot_heartbeat=0.2)
    received = snapshots(ros_node, ex)

    def repeated() -> bool:
        seqs = received.seqs()
        return len(seqs) >= 3 and seqs[-1] == seqs[-2] == seqs[-3]

    ex.spin_until(repeated, 'heartbeats repeating one seq')
    beats = received.messages[-3:]
    assert beats[0]['stamp'] < beats[1]['stamp'] < beats[2]['stamp']
    assert beats[0]['tick']['count'] < beats[2]['tick']['count']
    assert beats[0]['state'] == beats[2]['state']
    validate_all(received, SNAPSHOT_VALIDATOR)


def test_late_subscriber_rebuilds_the_current_snapshot(host, tmp_path, ros_node):
    tree = write_tree(tmp_path, 'blink.yaml', """
        blackboard: {x: 1}
        trees:
          Main:
            Selector root:
              - Condition blocked: x > 5
              - Sequence work:
                  - Success ok
                  - SuccessEveryN busy: 3
        """)
    ex = host(tree, manual=True, snapshot_heartbeat=3600.0, snapshot_keys=['x'],
              snapshot_on_change=False)
    import py_trees
    for tick in range(7):
        py_trees.blackboard.Blackboard.set('/x', tick)
        ex.executive.tick_once()
    current = json.loads(json.dumps(ex.executive.snapshots.full()))
    late = states(ros_node, ex)
    got = late.wait_for(lambda m: m['seq'] == current['seq'],
                        'the latched snapshot and the deltas after it')
    assert [m['schema'] for m in late.raw].count('bt_executive/snapshot/1') == 1
    assert next(m for m in late.raw if m['schema'] == 'bt_executive/snapshot/1')['seq'] == 1
    for key in ('state', 'blackboard', 'active_path', 'why', 'root_status', 'tick',
                'last_failure', 'executive', 'nodes'):
        assert got[key] == current[key], key
    assert got['state']['Main/root/blocked'] == {'status': 'SUCCESS',
                                                 'feedback': 'x > 5 is true'}
    assert got['blackboard'] == {'x': 6}
    SNAPSHOT_VALIDATOR.validate(got)


def test_deltas_reproduce_every_full_snapshot(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'blink.yaml', BLINK_TWO), manual=True,
              snapshot_heartbeat=3600.0, snapshot_on_change=True)
    full = snapshots(ros_node, ex)
    rebuilt = states(ros_node, ex)
    full.wait_for(lambda m: m['seq'] == 1, 'the first snapshot')
    for tick in range(1, 13):
        ex.executive.tick_once()
    last = ex.executive.snapshots.full()['seq']
    full.wait_for(lambda m: m['seq'] == last, 'the last full snapshot')
    # the full snapshots also bring the rebuilt state to ``last``: wait for the delta itself
    rebuilt.wait_for_raw(lambda m: m['schema'] == 'bt_executive/delta/1' and m['seq'] == last,
                         'the last delta')
    by_seq = {m['seq']: m for m in full.messages}
    from bt_executive.observe.delta import apply_delta
    state = by_seq[1]
    deltas = sorted((m for m in rebuilt.raw if m['schema'] == 'bt_executive/delta/1'),
                    key=lambda m: m['seq'])
    assert [m['seq'] for m in deltas] == list(range(2, last + 1))
    for delta in deltas:
        state = apply_delta(state, delta)
        assert state == by_seq[delta['seq']], f'seq {delta["seq"]}'
    assert sum(map(len, map(json.dumps, deltas))) * 2 < sum(
        len(json.dumps(by_seq[m['seq']])) for m in deltas)


def test_swap_publishes_the_new_structure_at_once(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'a.yaml', SELECTOR_TREE), manual=True)
    received = snapshots(ros_node, ex)
    before = received.wait_for(lambda m: True, 'the first tree')
    ex.executive.tick_once()
    result = ex.set_tree(tree_file=write_tree(tmp_path, 'b.yaml', """
        trees:
          Second:
            Sequence steps: [Success, Running]
        """))
    assert result.successful, result.reason
    after = received.wait_for(lambda m: m['revision'] == 2, 'the swapped tree (no tick)')
    assert before['revision'] == 1
    assert after['session'] == before['session']
    assert (after['tree'], after['root_status']) == ('Second', 'INVALID')
    assert [node['id'] for node in after['nodes']] == [
        'Second/steps', 'Second/steps/Success', 'Second/steps/Running']
    assert after['source_file'].endswith('b.yaml')
    validate_all(received, SNAPSHOT_VALIDATOR)


def test_events_and_pause(host, tmp_path, ros_node):
    ex = host(write_tree(tmp_path, 'still.yaml', SELECTOR_TREE), manual=True)
    events = Collector(ros_node, f'{ex.topic}/events')
    received = states(ros_node, ex)
    received.wait_for(lambda m: True, 'the first snapshot')
    ex.spin_until(lambda: ex.executive.count_subscribers(f'{ex.topic}/events') > 0,
                  'the events subscription')
    ex.executive.tick_once()
    batch = events.wait_for(lambda m: True, 'the first transitions')
    assert batch['revision'] == 1 and batch['tree'] == 'Main'
    moved = {(e['id'], e['from'], e['to'], e['reason']) for e in batch['events']}
    assert ('Main/root/blocked', 'INVALID', 'FAILURE', 'x > 5 is false') in moved
    assert len(moved) == 5
    ex.executive.pause()
    paused = received.wait_for(lambda m: m['executive'].get('running') is False, 'paused')
    assert {state['status'] for state in paused['state'].values()} == {'INVALID'}
    stopped = events.wait_for(lambda m: any(e['to'] == 'INVALID' for e in m['events']),
                              'the halt transitions')
    assert {e['id'] for e in stopped['events']} == {
        'Main/root', 'Main/root/work', 'Main/root/work/ok', 'Main/root/work/busy',
        'Main/root/blocked'}
    validate_all(events, EVENTS_VALIDATOR)


def test_by_default_full_snapshots_are_keyframes_and_late_joiners_are_exact(
        host, tmp_path, ros_node):
    """Deltas on every change, a full snapshot every KEYFRAME_DELTAS deltas (not per change).

    130 changes are more than the delta topic keeps (100): a late joiner still rebuilds
    the exact state, from the last keyframe and the deltas after it, without a gap.
    """
    from bt_executive.ros.parameters import PARAMETERS
    from bt_executive.ros.snapshot_topics import KEYFRAME_DELTAS

    assert PARAMETERS['snapshot_on_change'][0] is False
    assert PARAMETERS['snapshot_heartbeat'][0] == 10.0
    assert PARAMETERS['snapshot_keepalive'][0] == 1.0
    # no timed keyframe: exact counts
    ex = host(write_tree(tmp_path, 'blink.yaml', BLINK_TWO), manual=True,
              snapshot_heartbeat=3600.0)
    for _ in range(130):
        ex.executive.tick_once()
    published = ex.executive.snapshot_topics.counts
    assert published['delta'] >= 130
    assert published['snapshot'] == 1 + published['delta'] // KEYFRAME_DELTAS
    current = json.loads(json.dumps(ex.executive.snapshots.full()))
    late = states(ros_node, ex)
    got = late.wait_for(lambda m: m['seq'] == current['seq'],
                        'the latched keyframe and the deltas after it')
    full = [m for m in late.raw if m['schema'] == 'bt_executive/snapshot/1']
    assert len(full) == 1 and full[0]['seq'] > 100  # the last keyframe, not the first
    assert late.state.gaps == 0 and not late.state.waiting
    for key in ('state', 'active_path', 'why', 'root_status', 'tick', 'last_failure',
                'executive', 'nodes'):
        assert got[key] == current[key], key
    SNAPSHOT_VALIDATOR.validate(got)


def test_a_quiet_tree_sends_heartbeat_deltas_not_full_snapshots(host, tmp_path, ros_node):
    from bt_executive.observe.delta import load_delta_schema

    ex = host(write_tree(tmp_path, 'still.yaml', SELECTOR_TREE), tick_rate=50.0,
              snapshot_keepalive=0.2, snapshot_heartbeat=3600.0)
    received = states(ros_node, ex)

    def beats() -> list[dict[str, Any]]:
        with received._changed:
            return [m for m in received.raw if m.get('heartbeat')]

    ex.spin_until(lambda: len(beats()) >= 3, 'three heartbeat deltas')
    found = beats()
    validator = jsonschema.Draft202012Validator(load_delta_schema())
    for beat in found:
        validator.validate(beat)
        assert beat['state'] == {} and len(json.dumps(beat)) < 400
    assert len({beat['seq'] for beat in found}) == 1  # nothing changed: the same seq
    assert found[0]['tick']['count'] < found[-1]['tick']['count']
    assert found[0]['stamp'] < found[-1]['stamp']
    shown = received.wait_for(lambda m: m['tick']['count'] >= found[-1]['tick']['count'],
                              'the state refreshed by the last heartbeat')
    assert shown['seq'] == found[-1]['seq'] and shown['executive']['heartbeat'] == 0.2
    assert received.state.gaps == 0
    assert ex.executive.snapshot_topics.counts['snapshot'] == 1  # the tree's first only


@pytest.mark.parametrize('mode, params, expected', [
    ('event', {'max_tick_rate': 100.0}, 2.5e-3),     # the default rate: all of SEND_PAUSE
    ('event', {'max_tick_rate': 1000.0}, 0.25e-3),   # never more than a quarter interval
    ('periodic', {'tick_rate': 10.0}, 2.5e-3),
    ('periodic', {'tick_rate': 800.0}, 0.3125e-3),
])
def test_the_pause_after_a_send_is_at_most_a_quarter_of_the_tick_interval(
        host, tmp_path, mode, params, expected):
    from bt_executive.ros import spin

    ex = host(write_tree(tmp_path, 'still.yaml', SELECTOR_TREE), tick_mode=mode, **params)
    give_way = ex.executive.tree.runner.observers[0]
    assert isinstance(give_way, spin.GiveWayAfterSend)
    assert give_way.pause() == pytest.approx(expected)
    assert spin.GiveWayAfterSend().pause() == spin.SEND_PAUSE  # no interval known


def test_a_tick_that_sent_something_gives_way_before_the_observers(host, tmp_path,
                                                                   monkeypatch):
    # the receiver of a goal, cancel, request or message runs first (ros/spin.py)
    import py_trees
    from bt_executive.ros import spin

    tree = write_tree(tmp_path, 'send.yaml', """
        blackboard: {send: false}
        trees:
          Main:
            Selector root:
              - Sequence sending:
                  - Condition asked: send
                  - Publish hello: {topic: /give_way/out, type: std_msgs/msg/Bool}
              - Running idle
        """)
    ex = host(tree, manual=True, snapshot_heartbeat=3600.0)
    runner = ex.executive.tree.runner
    assert isinstance(runner.observers[0], spin.GiveWayAfterSend)
    order: list[object] = []
    monkeypatch.setattr(spin, '_pause', order.append)
    snapshots_seen = runner.observers[1].on_tick
    monkeypatch.setattr(runner.observers[1], 'on_tick',
                        lambda record: (order.append('snapshot'), snapshots_seen(record)))
    ex.executive.tick_once()  # every node moves, nothing is sent: no pause
    assert order == ['snapshot']
    order.clear()
    py_trees.blackboard.Blackboard.set('/send', True)
    ex.executive.tick_once()  # the Publish leaf sends: the pause comes first, once
    assert order == [runner.observers[0].pause(), 'snapshot']
    order.clear()
    py_trees.blackboard.Blackboard.set('/send', False)
    ex.executive.tick_once()  # nodes moved back, nothing sent
    assert order == ['snapshot']
