# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Event-driven ticking: the tree ticks on what it depends on, and only then.

Each test runs the executive in-process (``tick_mode: event``) with a heartbeat so long
(an hour) that any tick the test relies on must come from an event: a changed subscribed
key, a future, a message, a deadline, or progress of the tree itself. Tick counts bound
the other side: nothing that the tree does not depend on makes it tick, and bursts
coalesce under ``max_tick_rate``. Peers are real subprocesses; DDS runs on loopback.

No test sleeps to see that nothing happens. ``ticks = ex.settle()`` before and
``assert ex.settle() == ticks`` after the thing that must not make the tree tick: settle
ends at an awaited timer on the executive's node that fires only after everything
scheduled before it (tasks, the pace timer), so a tick asked for by the noise would be
counted (executive_host.Host.settle). Where messages must have arrived first, the test
awaits the last of them (``feed.received``, ``feed.pending``).
"""

from collections.abc import Callable
import time
from typing import Any

from executive_host import Host, write_tree
from helpers import wait_for
import pytest

pytestmark = pytest.mark.ros

NEVER = 3600.0  # heartbeat_period: no heartbeat tick within a test


def event_host(host: Callable[..., Host], tree: str, **parameters: Any) -> Host:
    parameters.setdefault('heartbeat_period', NEVER)
    return host(tree, tick_mode='event', **parameters)


def blackboard(key: str) -> Any:
    import py_trees
    return py_trees.blackboard.Blackboard.storage.get('/' + key)


def test_a_loop_runs_to_completion_without_any_event(host, tmp_path):
    # each Repeat iteration starts on the next tick: progress itself asks for ticks
    tree = write_tree(tmp_path, 'loop.yaml', """
        blackboard: {count: 0}
        trees:
          Main:
            Selector:
              - Condition: count >= 5
              - Repeat:
                  times: 5
                  SetBlackboard: {key: count, value: '${count + 1}'}
        """)
    ex = event_host(host, tree)
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'the loop to finish')
    ticks = ex.settle()  # the tick after the status moved finds the tree settled
    assert ex.settle() == ticks  # settled: no event, no heartbeat, so no tick
    assert blackboard('count') == 5
    assert ticks <= 8  # five iterations, the end, one settled tick: no storm


def test_a_wait_deadline_ticks_once_when_due_not_in_between(host, tmp_path):
    tree = write_tree(tmp_path, 'wait.yaml', """
        trees:
          Main:
            Sequence:
              - Wait: 0.5
              - SetBlackboard: {key: done, value: true}
        """)
    ex = event_host(host, tree)
    ex.spin_until(lambda: blackboard('done') is True, 'the wait to end', timeout=10.0)
    assert ex.executive.last_status.name == 'SUCCESS'
    # first tick, the deadline tick, one more after the status moved: a handful, not
    # the 5 a 10 Hz timer would have spent waiting
    assert ex.executive.tick_count <= 4, ex.executive.status()


def test_a_changed_subscribed_key_wakes_the_tree(host, tmp_path, ros_node):
    from std_msgs.msg import Bool

    topic = f'/estop_{id(tmp_path):x}'
    tree = write_tree(tmp_path, 'estop.yaml', f"""
        blackboard: {{estop: false}}
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Bool, field: data, key: estop}}
        trees:
          Main:
            Selector:
              - Condition pressed: estop
              - Running idle
        """)
    ex = event_host(host, tree)
    publisher = ex.publisher(ros_node, Bool, topic)
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    ticks = ex.settle()
    publisher.publish(Bool(data=True))
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'the press to be seen')
    settled = ex.settle()  # the tick after the status moved finds the tree settled
    assert settled - ticks <= 3
    # the same value again is no change: the tree stays asleep
    feed = ex.executive.tree.feed
    received = feed.received['estop']
    publisher.publish(Bool(data=True))
    ex.spin_until(lambda: feed.received['estop'] != received, 'the repeated message')
    assert ex.settle() == settled
    publisher.publish(Bool(data=False))
    ex.spin_until(lambda: ex.executive.last_status.name == 'RUNNING', 'the release')
    # Both wakes tick inside the subscription callback (microseconds; 10 ms if the rate
    # cap defers one); without a wake nothing would tick at all (no heartbeat). The bound
    # only rules out a wake-up waiting for something slow, with 100x headroom for a
    # loaded machine.
    timing = ex.executive.status()['timing']
    assert timing['wake_latency_ms']['max'] < 1000.0


def test_a_key_the_tree_does_not_read_does_not_wake_it(host, tmp_path, ros_node):
    from std_msgs.msg import Float64

    topic = f'/noise_{id(tmp_path):x}'
    tree = write_tree(tmp_path, 'unread.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Float64, field: data, key: noise}}
        trees:
          Main:
            Running idle
        """)
    ex = event_host(host, tree)
    publisher = ex.publisher(ros_node, Float64, topic)
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    ticks = ex.settle()
    feed = ex.executive.tree.feed
    for value in range(20):
        publisher.publish(Float64(data=float(value)))
    # still pending: no tick has applied the last message (a tick would have taken it)
    ex.spin_until(lambda: feed.pending('noise') == 19.0,
                  'the last message to arrive and stay pending (no tick applied it)')
    assert ex.settle() == ticks


def test_a_burst_of_changes_coalesces_under_the_tick_rate_cap(host, tmp_path, ros_node):
    from std_msgs.msg import Float64

    topic = f'/level_{id(tmp_path):x}'
    tree = write_tree(tmp_path, 'burst.yaml', f"""
        blackboard: {{level: 0.0}}
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Float64, field: data, key: level}}
        trees:
          Main:
            Selector:
              - Condition full: level >= 499
              - Sequence:
                  - Condition odd: level % 2 == 1   # flips: every new value matters
                  - Running filling odd
              - Running filling even
        """)
    ex = event_host(host, tree, max_tick_rate=20.0)
    publisher = ex.publisher(ros_node, Float64, topic, depth=1000)
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    ticks = ex.settle()
    settled_at = ex.executive.ticker.last_tick
    starts = ex.tick_starts()
    for value in range(500):
        publisher.publish(Float64(data=float(value)))
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'the last value')
    ticked = ex.executive.tick_count - ticks
    assert ticked < 500
    # 500 changes, but ticks never closer than 1 / max_tick_rate: the cap is a minimum
    # spacing of tick starts on the steady clock, which load can only widen
    starts = [settled_at, *starts]
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:])]
    assert gaps and min(gaps) >= 1.0 / 20.0 - 1e-9, gaps


@pytest.mark.parametrize('peer, mode, leaf', [
    ('fibonacci', 'succeed', 'Action fib: {{type: test_msgs/action/Fibonacci, server: /{name}, '
                             'goal: {{order: 3}}, server_timeout: 10.0}}'),
    ('trigger', 'ok', 'Service call: {{type: std_srvs/srv/Trigger, service: /{name}, '
                      'server_timeout: 10.0, timeout: 10.0}}'),
], ids=['action result', 'service response'])
def test_an_answer_wakes_the_tree(peer, mode, leaf, request, host, tmp_path):
    name, _ = request.getfixturevalue(peer)(mode)
    tree = write_tree(tmp_path, 'answer.yaml', f"""
        trees:
          Main:
            Sequence:
              - {leaf.format(name=name)}
              - SetBlackboard: {{key: done, value: true}}
        """)
    ex = event_host(host, tree)
    ex.spin_until(lambda: blackboard('done') is True, f'the {peer} answer to be used')
    assert ex.executive.last_status.name == 'SUCCESS'


def test_stale_data_is_noticed_at_its_max_age_without_a_heartbeat(host, tmp_path, ros_node):
    from std_msgs.msg import Float64

    topic = f'/fresh_{id(tmp_path):x}'
    tree = write_tree(tmp_path, 'stale.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Float64, field: data, key: level,
             max_age: 0.3}}
        trees:
          Main:
            Condition ok: level > 0
        """)
    ex = event_host(host, tree)
    publisher = ex.publisher(ros_node, Float64, topic)
    publisher.publish(Float64(data=1.0))
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'fresh data')
    ex.spin_until(lambda: 'stale' in ex.executive.last_failure, 'the data to go stale',
                  timeout=5.0)


def test_the_heartbeat_ticks_an_idle_tree(host, tmp_path):
    tree = write_tree(tmp_path, 'idle.yaml', """
        trees:
          Main:
            Running idle
        """)
    ex = event_host(host, tree, heartbeat_period=0.05)
    ex.spin_until(lambda: ex.executive.tick_count >= 6, 'heartbeat ticks')


def test_tick_mode_is_switched_at_runtime_and_checked(host, tmp_path):
    tree = write_tree(tmp_path, 'idle.yaml', """
        trees:
          Main:
            Running idle
        """)
    ex = event_host(host, tree)
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    ticks = ex.settle()
    assert ex.settle() == ticks <= 2  # asleep
    feed = ex.executive.tree.feed
    assert feed.waking  # the feed's probes judge whether a message wakes the tree
    assert ex.set_tree(tick_mode='periodic', tick_rate=50.0).successful
    ex.spin_until(lambda: ex.executive.tick_count >= ticks + 5, 'periodic ticks')
    assert ex.executive.status()['tick_mode'] == 'periodic'
    assert 'jitter_ms' in ex.executive.status()['timing']
    assert not feed.waking  # periodic ticks come anyway: no probe runs per message
    result = ex.set_tree(tick_mode='sometimes')
    assert not result.successful
    assert "tick_mode must be one of periodic, event, got 'sometimes'" in result.reason


def test_a_new_value_wakes_the_tree_only_when_a_condition_would_change(host, tmp_path,
                                                                       ros_node):
    from std_msgs.msg import Float64

    topic = f'/battery_{id(tmp_path):x}'
    tree = write_tree(tmp_path, 'threshold.yaml', f"""
        subscriptions:
          - {{topic: {topic}, type: std_msgs/msg/Float64, field: data, key: level}}
        trees:
          Main:
            Selector:
              - Condition low: level < 0.2
              - Running patrol
        """)
    ex = event_host(host, tree)
    publisher = ex.publisher(ros_node, Float64, topic)
    publisher.publish(Float64(data=0.9))
    ex.spin_until(lambda: blackboard('level') == 0.9, 'the first reading to be applied')
    ticks = ex.settle()
    feed = ex.executive.tree.feed
    for level in (0.8, 0.7, 0.6, 0.5):  # draining, but the condition stays false
        publisher.publish(Float64(data=level))
    ex.spin_until(lambda: feed.pending('level') == 0.5, 'the readings to arrive')
    assert ex.settle() == ticks
    publisher.publish(Float64(data=0.1))  # crosses the threshold
    ex.spin_until(lambda: ex.executive.last_status.name == 'SUCCESS', 'the low battery')
    assert blackboard('level') == 0.1


def test_the_wait_for_the_first_spin_is_start_up_not_a_wake_latency(host, tmp_path):
    # the executive asks for its first tick while it is built, before anything spins it;
    # that wait is start-up (``startup`` in ~/status), and counting it as a wake-up
    # latency made the start-up dominate the latency percentiles for hours
    ex = event_host(host, write_tree(tmp_path, 't.yaml', """
        trees:
          Main:
            Running idle
        """))
    startup = 0.3
    time.sleep(startup)  # stands for the process's own start-up work before it spins
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    # counted as a latency, the wait would be at least the sleep whatever the load; not
    # counted, nothing else asked for a tick yet, so there is no latency at all
    timing = ex.executive.status()['timing']
    latency = timing.get('wake_latency_ms', {}).get('max', 0.0)
    assert latency < startup * 1e3, timing


def test_a_message_that_changes_what_the_tree_reads_ticks_it_in_the_same_callback(
        host, tmp_path, ros_node):
    from std_msgs.msg import Bool

    # the feed's subscription callback stores the value and then ticks at once: no
    # executor dispatch between the message and the reaction
    ex = event_host(host, write_tree(tmp_path, 't.yaml', """
        blackboard: {pressed: false}
        subscriptions:
          - {topic: button, type: std_msgs/msg/Bool, field: data, key: pressed}
        trees:
          Main:
            Selector:
              - Condition pressed: pressed
              - Running waiting
        """))
    publisher = ex.publisher(ros_node, Bool, f'{ex.namespace}/button')
    ex.spin_until(lambda: ex.executive.tick_count >= 1, 'the first tick')
    ex.settle()
    feed = ex.executive.tree.feed
    for value in (True, False, True):
        received, ticks = feed.received.get('pressed'), ex.executive.tick_count
        publisher.publish(Bool(data=value))

        def arrived() -> bool:
            if feed.received.get('pressed') != received:
                return True
            assert ex.executive.tick_count == ticks, 'ticked before the message'
            return False

        wait_for(arrived, 10.0, 'the message', interval=0.0,  # one callback per spin_once
                 pause=lambda _: ex.executor.spin_once(timeout_sec=0.1))
        assert ex.executive.tick_count == ticks + 1, 'the callback did not tick the tree'
        assert ex.executive.last_status.name == ('SUCCESS' if value else 'RUNNING')
        ex.settle()  # the tick after the status moved
