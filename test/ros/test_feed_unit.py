# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the blackboard feed (bt_executive/ros/subscriptions.py), in-process.

Parsing the ``subscriptions:`` section needs no ROS. The feed itself runs on a stand-in
node that only records its subscriptions: the tests call the subscription callbacks
with real messages and move the feed's clock by hand. No Context, no DDS.
test_event_ticking.py and test_topic_leaves.py cover the same over real topics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import types
from typing import Any, Optional

from bt_executive.core.yaml_source import load_text
from bt_executive.ros.subscriptions import parse_subscriptions, SubscriptionSpec
import py_trees
import pytest


def parse(text: str) -> tuple[list[SubscriptionSpec], list[str]]:
    """Parse the ``subscriptions`` of a YAML document; give the specs and the messages."""
    document = load_text(text, 'subs.yaml')
    specs, errors = parse_subscriptions([document.get('subscriptions')])
    return specs, [error.message for error in errors]


# --- parse_subscriptions (no ROS) -------------------------------------------------------

def test_entries_become_specs_with_their_defaults():
    specs, errors = parse("""
        subscriptions:
          - {topic: battery, type: sensor_msgs/msg/BatteryState, key: battery,
             qos: sensor_data, max_age: 5}
          - {topic: /estop, type: std_msgs/msg/Bool, field: data, key: estop}
          - topic: odom
            type: nav_msgs/msg/Odometry
            fields: {x: pose.pose.position.x, y: pose.pose.position.y}
        """)
    assert errors == []
    battery, estop, odom = specs
    assert (battery.topic, battery.type, battery.targets) == \
        ('battery', 'sensor_msgs/msg/BatteryState', (('battery', None),))
    assert (battery.qos, battery.max_age) == ('sensor_data', 5.0)
    assert (estop.targets, estop.qos, estop.max_age) == ((('estop', 'data'),), 'reliable', 0.0)
    assert odom.targets == (('x', 'pose.pose.position.x'), ('y', 'pose.pose.position.y'))
    assert (odom.loc.file, odom.loc.line) == ('subs.yaml', 6)


def test_every_problem_of_an_entry_is_reported_with_a_hint():
    specs, errors = parse("""
        subscriptions:
          - {topic: 'bad topic', type: std_msgs/Bool, key: 1x, field: Data, qos: reliabel,
             max_age: -1, tpoic: x}
        """)
    assert specs == []
    assert errors == [
        "unknown key 'tpoic' (did you mean 'topic'?) (expected: topic, type, key, field, "
        'fields, qos, max_age)',
        "'topic' must be a topic name, got 'bad topic'",
        "'type' must be a message type like 'std_msgs/msg/Bool', got 'std_msgs/Bool'",
        "'key' must be a blackboard key (identifier), got '1x'",
        "'field' must be a field path like 'data' or 'pose.position.x', got 'Data'",
        "'qos' must be one of reliable, sensor_data, latched, got 'reliabel' (did you mean "
        "'reliable'?)",
        "'max_age' must be a number of seconds >= 0",
    ]


@pytest.mark.parametrize('entry, message', [
    ('42', 'expected a mapping with topic, type and key, got an integer'),
    ('{type: std_msgs/msg/Bool, key: k}', "subscription needs 'topic'"),
    ('{topic: t, key: k}', "subscription needs 'type' (e.g. sensor_msgs/msg/BatteryState)"),
    ('{topic: t, type: std_msgs/msg/Bool}',
     "subscription needs 'key' (or 'fields') to say where to store data"),
    ('{topic: t, type: std_msgs/msg/Bool, key: k, fields: {z: data}}',
     "use either 'key' (with optional 'field') or 'fields', not both"),
    ('{topic: t, type: std_msgs/msg/Bool, fields: []}',
     "'fields' must map blackboard keys to field paths"),
    ('{topic: t, type: std_msgs/msg/Bool, fields: {1a: data}}',
     "blackboard key '1a' must be an identifier"),
    ('{topic: t, type: std_msgs/msg/Bool, fields: {b: Bad.Path}}',
     "field path for 'b' must look like 'pose.position.x'"),
    ('{topic: t, type: std_msgs/msg/Bool, key: k, max_age: true}',
     "'max_age' must be a number of seconds >= 0"),
    ('{topic: t, type: std_msgs/msg/Bool, key: k, qos: [a]}',
     "'qos' must be a string, got a list"),
], ids=['not a mapping', 'no topic', 'no type', 'no key', 'key and fields', 'fields not a map',
        'bad fields key', 'bad fields path', 'max_age bool', 'qos not a string'])
def test_a_wrong_entry_is_rejected_with_its_reason(entry, message):
    specs, errors = parse(f'subscriptions:\n  - {entry}\n')
    assert specs == [] and errors == [message]


def test_a_key_fed_twice_and_a_section_that_is_no_list_are_errors():
    specs, errors = parse("""
        subscriptions:
          - {topic: a, type: std_msgs/msg/Bool, key: level}
          - {topic: b, type: std_msgs/msg/Float64, fields: {level: data}}
        """)
    assert len(specs) == 2
    assert errors == ["blackboard key 'level' is already fed by the subscription at "
                      'subs.yaml:3:13']
    specs, errors = parse('subscriptions: {topic: a}\n')
    assert specs == [] and errors == ["'subscriptions' must be a list of {topic, type, key} "
                                      'entries']


# --- BlackboardFeed (rclpy imported; no Context) ------------------------------------------

class FakeNode:
    """Records the feed's subscriptions; the test calls their callbacks."""

    def __init__(self) -> None:
        self.subscriptions: dict[str, Callable[[Any], None]] = {}
        self.qos: dict[str, Any] = {}
        self.destroyed: list[Any] = []

    def create_subscription(self, msg_class: Any, topic: str, callback: Callable[[Any], None],
                            qos: Any, *, event_callbacks: Any = None) -> Any:
        """Record ``callback`` for ``topic``; no middleware events (ros/entities.py)."""
        assert event_callbacks is not None and not event_callbacks.use_default_callbacks
        self.subscriptions[topic] = callback
        self.qos[topic] = qos
        return types.SimpleNamespace(topic=topic, msg_class=msg_class,
                                     destroy=lambda: self.destroyed.append(topic))


class Feed:
    """A BlackboardFeed on a :class:`FakeNode` with a manual clock, and what it woke."""

    def __init__(self, text: str) -> None:
        from bt_executive.ros.subscriptions import BlackboardFeed

        specs, errors = parse(text)
        assert not errors, errors
        self.now = 100.0
        self.node = FakeNode()
        self.feed = BlackboardFeed(self.node, specs, lambda: self.now)
        self.wakes = 0

    def watch(self, wanted: Callable[[], bool] = lambda: True,
              **readers: list[Optional[Callable[[Any], Any]]]) -> None:
        """Watch ``readers`` (per key: probes, None for a reader without one)."""
        def wake(spec: SubscriptionSpec) -> None:  # the subscription whose message matters
            assert isinstance(spec, SubscriptionSpec)
            self.wakes += 1

        self.feed.watch(readers, wake, wanted=wanted)

    def receive(self, topic: str, message: Any) -> None:
        """Deliver ``message`` on ``topic`` (as the executor calls the subscription)."""
        self.node.subscriptions[topic](message)


def blackboard() -> dict[str, Any]:
    """Return the root blackboard as a plain dict (keys without the slash)."""
    return {key[1:]: value for key, value in py_trees.blackboard.Blackboard.storage.items()}


def set_blackboard(**values: Any) -> None:
    """Write root blackboard values (what the tree saw at its last tick)."""
    for key, value in values.items():
        py_trees.blackboard.Blackboard.set('/' + key, value)


def low(lookup: Callable[[str], Any]) -> bool:
    """Probe of ``Condition low: level < 0.2``."""
    return lookup('level') < 0.2


@pytest.fixture(autouse=True)
def clean_blackboard() -> Iterator[None]:
    """Start and end each test with an empty blackboard."""
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


LEVEL = """
    subscriptions:
      - {topic: battery, type: std_msgs/msg/Float64, field: data, key: level}
    """


@pytest.mark.ros
def test_the_latest_value_stays_pending_until_applied():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    assert rig.feed.pending('level') is None
    rig.receive('battery', Float64(data=1.0))
    rig.now = 100.5
    rig.receive('battery', Float64(data=2.0))
    assert rig.feed.pending('level') == 2.0 and rig.feed.received == {'level': 100.5}
    assert rig.feed.pending('level') == 2.0  # reading it leaves it pending
    assert blackboard() == {}  # the tree sees nothing between ticks
    rig.feed.apply()
    assert blackboard() == {'level': 2.0} and rig.feed.lookup('level') == 2.0
    assert rig.feed.pending('level', 'nothing') == 'nothing'
    # as Blackboard.set leaves it: py_trees' own tools (key listings, clients) see the key
    assert '/level' in py_trees.blackboard.Blackboard.metadata
    assert py_trees.blackboard.Blackboard.exists('/level')
    client = py_trees.blackboard.Client(name='reader')
    client.register_key('level', access=py_trees.common.Access.READ)
    assert client.level == 2.0
    with pytest.raises(KeyError):
        rig.feed.lookup('unknown')


@pytest.mark.ros
def test_a_whole_message_goes_to_its_key_with_its_qos():
    from geometry_msgs.msg import Point
    from rclpy.qos import DurabilityPolicy

    rig = Feed("""
        subscriptions:
          - {topic: pos, type: geometry_msgs/msg/Point, key: point, qos: latched}
        """)
    assert rig.node.qos['pos'].durability == DurabilityPolicy.TRANSIENT_LOCAL
    rig.receive('pos', Point(x=1.0, y=2.0, z=3.0))
    rig.feed.apply()
    assert blackboard() == {'point': Point(x=1.0, y=2.0, z=3.0)}


@pytest.mark.ros
def test_several_fields_of_one_message_go_to_their_keys():
    from geometry_msgs.msg import Point

    rig = Feed("""
        subscriptions:
          - {topic: pos, type: geometry_msgs/msg/Point, fields: {px: x, py: y}}
        """)
    rig.receive('pos', Point(x=1.0, y=2.0, z=3.0))
    assert (rig.feed.pending('px'), rig.feed.pending('py')) == (1.0, 2.0)
    rig.feed.apply()
    assert blackboard() == {'px': 1.0, 'py': 2.0}


@pytest.mark.ros
def test_data_older_than_max_age_is_stale_until_a_new_message():
    from bt_executive.core.expressions import EvaluationError
    from std_msgs.msg import Float64

    rig = Feed("""
        subscriptions:
          - {topic: battery, type: std_msgs/msg/Float64, field: data, key: level,
             max_age: 0.5}
        """)
    rig.feed.apply()  # nothing received yet: not stale, just not set
    assert rig.feed.stale == {}
    rig.receive('battery', Float64(data=0.9))
    rig.now = 100.5  # exactly max_age old: still fresh
    rig.feed.apply()
    assert rig.feed.lookup('level') == 0.9
    rig.now = 100.6
    rig.feed.apply()
    assert 'level' not in blackboard()
    with pytest.raises(EvaluationError, match=r"blackboard key 'level' is stale: last update "
                                              r'0\.6 s ago \(max_age 0\.5 s\)'):
        rig.feed.lookup('level')
    rig.receive('battery', Float64(data=0.8))
    rig.feed.apply()
    assert rig.feed.lookup('level') == 0.8 and rig.feed.stale == {}


@pytest.mark.ros
def test_wake_at_is_when_the_first_watched_key_would_go_stale():
    from bt_executive.ros.subscriptions import STALE_MARGIN
    from std_msgs.msg import Float64

    rig = Feed("""
        subscriptions:
          - {topic: a, type: std_msgs/msg/Float64, field: data, key: fast, max_age: 0.5}
          - {topic: b, type: std_msgs/msg/Float64, field: data, key: slow, max_age: 2.0}
          - {topic: c, type: std_msgs/msg/Float64, field: data, key: never}
        """)
    rig.watch(slow=[None], never=[None])
    assert rig.feed.wake_at() is None  # nothing received yet
    for topic in 'abc':
        rig.receive(topic, Float64(data=1.0))
    assert rig.feed.wake_at() == 102.0 + STALE_MARGIN  # 'fast' is not read: not watched
    rig.watch(fast=[None], slow=[None])
    assert rig.feed.wake_at() == 100.5 + STALE_MARGIN
    rig.now = 101.0
    rig.feed.apply()  # 'fast' goes stale: nothing left to wake up for on it
    assert rig.feed.wake_at() == 102.0 + STALE_MARGIN


@pytest.mark.ros
def test_a_new_value_wakes_only_when_a_probe_outcome_would_change():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    set_blackboard(level=0.9)
    rig.watch(level=[low])
    for level in (0.8, 0.5, 0.3):  # draining, but 'low' stays false
        rig.receive('battery', Float64(data=level))
    assert rig.wakes == 0 and rig.feed.pending('level') == 0.3
    rig.receive('battery', Float64(data=0.1))  # crosses the threshold
    assert rig.wakes == 1
    rig.receive('battery', Float64(data=0.05))  # the tree has not seen 0.1 yet: still new
    assert rig.wakes == 2
    rig.feed.apply()  # the tick: the tree now sees 0.05
    rig.receive('battery', Float64(data=0.04))  # 'low' stays true
    assert rig.wakes == 2


@pytest.mark.ros
def test_no_probe_runs_while_no_wake_is_wanted():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    set_blackboard(level=0.9)
    probed: list[Any] = []
    wanted = [False]  # periodic ticking: a wake would be ignored

    def counted(lookup: Callable[[str], Any]) -> bool:
        probed.append(lookup('level'))
        return low(lookup)
    rig.watch(wanted=lambda: wanted[0], level=[counted])
    rig.receive('battery', Float64(data=0.1))
    assert rig.wakes == 0 and probed == [] and rig.feed.pending('level') == 0.1
    wanted[0] = True  # switched to event mode: the next change is judged again
    rig.receive('battery', Float64(data=0.05))
    assert rig.wakes == 1 and probed


@pytest.mark.ros
def test_the_same_value_again_never_wakes_and_no_probe_means_any_change_wakes():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    set_blackboard(level=0.5)
    rig.watch(level=[low, None])  # two readers, one without a probe
    rig.receive('battery', Float64(data=0.5))  # what the tree already sees
    assert rig.wakes == 0
    rig.receive('battery', Float64(data=0.6))
    assert rig.wakes == 1
    rig.receive('battery', Float64(data=0.6))  # what the next tick will see anyway
    assert rig.wakes == 1


@pytest.mark.ros
def test_a_key_nobody_reads_never_wakes_and_unwatched_feeds_never_wake():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    rig.receive('battery', Float64(data=0.1))  # not watching yet: nothing to call
    rig.watch(other=[None])
    rig.receive('battery', Float64(data=0.0))
    assert rig.wakes == 0 and rig.feed.pending('level') == 0.0


@pytest.mark.ros
def test_a_first_value_wakes_a_reader_that_could_not_evaluate_before():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    rig.watch(level=[low])  # 'level' not on the blackboard: the probe raises KeyError
    rig.receive('battery', Float64(data=0.9))  # KeyError before, False after: a change
    assert rig.wakes == 1


@pytest.mark.ros
def test_a_probe_failing_the_same_way_before_and_after_does_not_wake():
    from std_msgs.msg import Float64

    rig = Feed(LEVEL)
    set_blackboard(level=0.5)
    rig.watch(level=[lambda lookup: lookup('level') < lookup('missing')])
    rig.receive('battery', Float64(data=0.1))  # KeyError both times
    assert rig.wakes == 0


@pytest.mark.ros
def test_values_that_cannot_be_compared_count_as_changed():
    rig = Feed("""
        subscriptions:
          - {topic: scan, type: std_msgs/msg/Float64, key: scan}
        """)

    class Array:
        """Like a numpy array: ``!=`` has no single truth value."""

        def __ne__(self, other: object) -> bool:
            raise ValueError('the truth value of an array is ambiguous')

    set_blackboard(scan=Array())
    rig.watch(scan=[None])
    rig.receive('scan', Array())
    assert rig.wakes == 1


@pytest.mark.ros
def test_destroy_destroys_each_subscription_once():
    rig = Feed("""
        subscriptions:
          - {topic: a, type: std_msgs/msg/Bool, field: data, key: a}
          - {topic: b, type: std_msgs/msg/Bool, field: data, key: b}
        """)
    rig.feed.destroy()
    rig.feed.destroy()
    assert rig.node.destroyed == ['a', 'b']


@pytest.mark.ros
def test_qos_profiles_by_name():
    from bt_executive.ros.subscriptions import qos_profile
    from rclpy.qos import DurabilityPolicy, qos_profile_sensor_data, ReliabilityPolicy

    assert qos_profile('sensor_data') is qos_profile_sensor_data
    latched = qos_profile('latched')
    assert (latched.depth, latched.durability) == (1, DurabilityPolicy.TRANSIENT_LOCAL)
    reliable = qos_profile('reliable')
    assert (reliable.depth, reliable.reliability) == (10, ReliabilityPolicy.RELIABLE)
