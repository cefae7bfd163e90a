# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of py_trees_ros' snapshot streams (bt_executive/ros/streams.py).

py_trees_ros_interfaces is not installable here: the streams get the TEST STAND-IN
classes of test/standins/py_trees_ros_interfaces_standin.py (same fields, constants and
field types; wrong fields or types raise) and a stand-in node that records publishers,
services, parameters and log lines. The tree is real: built from YAML and ticked by a
TreeRunner, the streams observing its records like in the executive. Nothing here
crosses a process; test_streams_guard.py runs the real executive.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import pathlib
import sys
import textwrap
import types
from typing import Any, Optional

from bt_executive.core.builder import apply_blackboard_defaults, build
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.record import TickRecord
from bt_executive.observe.runner import TreeRunner
from bt_executive.ros import streams
from bt_executive.ros.stream_messages import WINDOW
import py_trees
import pytest


def _load_standin() -> Any:
    """Import the stand-in from its file, leaving ``sys.path`` alone.

    test/standins also holds a ``nav2_msgs`` stand-in: on ``sys.path`` it would make
    every later test of the session believe Nav2 is installed.
    """
    path = pathlib.Path(__file__).resolve().parents[1] / 'standins' / \
        'py_trees_ros_interfaces_standin.py'
    spec = importlib.util.spec_from_file_location('py_trees_ros_interfaces_standin', path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


standin = _load_standin()

pytestmark = pytest.mark.ros

TREE = """
    blackboard: {count: 0, limit: 100}
    trees:
      Main:
        ReactiveSequence root:  # every child every tick
          - Condition below: count < limit
          - SetBlackboard bump: {key: count, value: '${count + 1}'}
          - PassThrough wrap: {Running busy: {}}
    """

STILL = """
    blackboard: {x: 1}
    trees:
      Main:
        Selector root:
          - Condition high: x > 5
          - Running idle
    """


class Publisher:
    """A stand-in publisher: keeps what it publishes; one subscriber unless told."""

    def __init__(self, topic: str, node: Node) -> None:
        self.topic = topic
        self.node = node
        self.messages: list[Any] = []
        self.subscribers = 1
        self.destroyed = False
        self.fail: Optional[Exception] = None

    def destroy(self) -> None:
        self.destroyed = True

    def publish(self, message: Any) -> None:
        assert not self.destroyed
        if self.fail is not None:
            raise self.fail
        self.messages.append(copy.deepcopy(message))  # as serialising it would

    def get_subscription_count(self) -> int:
        return self.subscribers

    def join(self) -> None:
        """Add a subscriber; the streams' poll timer fires."""
        self.subscribers += 1
        self.node.poll()


class Entity:
    """A stand-in service or timer: ``destroy()`` records its name on the node."""

    def __init__(self, node: Node, name: str, callback: Any = None) -> None:
        self.node = node
        self.name = name
        self.callback = callback

    def destroy(self) -> None:
        self.node.destroyed_services.append(self.name)


class Node:
    """A stand-in node: name, namespace, publishers, services, parameters, a logger."""

    def __init__(self, *, fail_service: Optional[int] = None) -> None:
        self.publishers: dict[str, Publisher] = {}
        self.services: dict[str, tuple[Any, Any]] = {}
        self.destroyed_services: list[str] = []
        self.parameters: dict[str, Any] = {}
        self.callbacks: list[Any] = []
        self.log: list[tuple[str, str]] = []
        self.timers: list[Entity] = []
        self._fail_service = fail_service

    def get_name(self) -> str:
        return 'bt_executive'

    def get_namespace(self) -> str:
        return '/robot'

    def get_logger(self) -> Any:
        return types.SimpleNamespace(**{level: (lambda text, level=level: self.log.append(
            (level, text))) for level in ('debug', 'info', 'warning', 'error')})

    def create_publisher(self, kind: Any, topic: str, qos: Any,
                         event_callbacks: Any = None) -> Publisher:
        assert kind is standin.BehaviourTree
        assert topic not in self.publishers or self.publishers[topic].destroyed
        # no middleware events: a Waitable coming and going can crash the executor
        assert event_callbacks is not None and not event_callbacks.use_default_callbacks
        assert event_callbacks.matched is None
        publisher = self.publishers[topic] = Publisher(topic, self)
        return publisher

    def create_service(self, kind: Any, name: str, handler: Any) -> Entity:
        if self._fail_service is not None and len(self.services) == self._fail_service:
            raise RuntimeError('no more services today')
        self.services[name] = (kind, handler)
        return Entity(self, name)

    def create_timer(self, period: float, callback: Any, *, clock: Any = None) -> Entity:
        timer = Entity(self, f'timer {period}', callback)
        self.timers.append(timer)
        return timer

    def poll(self) -> None:
        """Fire the timers (the streams' look at their subscriber counts)."""
        for timer in list(self.timers):
            if timer.name not in self.destroyed_services:
                timer.callback()

    def has_parameter(self, name: str) -> bool:
        return name in self.parameters

    def declare_parameter(self, name: str, value: Any, descriptor: Any) -> None:
        self.parameters[name] = value

    def get_parameter(self, name: str) -> Any:
        return types.SimpleNamespace(value=self.parameters[name])

    def add_on_set_parameters_callback(self, callback: Any) -> None:
        self.callbacks.append(callback)

    def remove_on_set_parameters_callback(self, callback: Any) -> None:
        self.callbacks.remove(callback)

    def set_parameters(self, **values: Any) -> Any:
        parameters = [types.SimpleNamespace(name=k, value=v) for k, v in values.items()]
        for callback in self.callbacks:
            result = callback(parameters)
            if not result.successful:
                return result
        self.parameters.update(values)
        return result

    def call(self, service: str, **fields: Any) -> Any:
        kind, handler = self.services[f'~/snapshot_streams/{service}']
        request = kind.Request(**fields)
        return handler(request, kind.Response())

    def lines(self, text: str = 'py_trees_ros snapshot streams') -> list[tuple[str, str]]:
        return [(level, line) for level, line in self.log if text in line]


class Clock:
    """Monotonic seconds that move when the test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Setup:
    """A tree, its runner, a stand-in node and the streams observing the runner."""

    def __init__(self, text: str = TREE, **options: Any) -> None:
        registry = default_registry()
        document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(document)
        self.built = build(document, registry=registry)
        self.runner = TreeRunner(self.built, track_writes=True)
        self.tree = types.SimpleNamespace(runner=self.runner, name='Main')
        self.node = Node(**options)
        self.clock = Clock()
        self.streams = streams.SnapshotStreams(self.node, standin.interfaces(),
                                               lambda: self.tree, clock=self.clock)
        self.runner.add_observer(self.streams)

    def tick(self, count: int = 1) -> None:
        for _ in range(count):
            self.clock.now += 0.1
            self.runner.tick_once()

    def stream(self, topic: str = '', *, data: bool = False, activity: bool = False,
               period: float = math.inf) -> Publisher:
        response = self.node.call('open', topic_name=topic, parameters=(
            standin.SnapshotStreamParameters(snapshot_period=period, blackboard_data=data,
                                             blackboard_activity=activity)))
        assert response.topic_name
        return self.node.publishers[response.topic_name]

    @property
    def default(self) -> Publisher:
        return self.node.publishers['/robot/bt_executive/snapshots']


def rebuild(message: Any) -> dict[str, Any]:
    """Rebuild the tree from a snapshot as py_trees_ros' watcher does; check its shape.

    Returns ``name -> behaviour message``.
    """
    zero = standin.UUID()
    by_id = {bytes(b.own_id.uuid): b for b in message.behaviours}
    assert len(by_id) == len(message.behaviours), 'duplicate ids'
    roots = [b for b in message.behaviours if b.parent_id == zero]
    assert len(roots) == 1 and roots[0] is message.behaviours[0], 'the root comes first'
    seen = []

    def walk(behaviour: Any) -> None:
        seen.append(behaviour)
        assert behaviour.type in (standin.Behaviour.BEHAVIOUR, standin.Behaviour.SEQUENCE,
                                  standin.Behaviour.SELECTOR, standin.Behaviour.PARALLEL,
                                  standin.Behaviour.DECORATOR), behaviour.name
        assert behaviour.status in (1, 2, 3, 4), behaviour.name
        if behaviour.type == standin.Behaviour.DECORATOR:
            assert len(behaviour.child_ids) == 1, behaviour.name
        for child_id in behaviour.child_ids:
            child = by_id[bytes(child_id.uuid)]
            assert child.parent_id == behaviour.own_id
            walk(child)
        if behaviour.current_child_id != zero:
            assert behaviour.current_child_id in behaviour.child_ids

    walk(roots[0])
    assert len(seen) == len(message.behaviours), 'every behaviour is in the tree'
    return {b.name: b for b in message.behaviours}


# ---- services and names -------------------------------------------------------------

def test_start_serves_the_three_services_and_the_default_stream_and_says_so():
    node = Node()
    result = streams.start(node, lambda: None, interfaces=standin.interfaces())
    assert result is not None
    assert {name: kind for name, (kind, _) in node.services.items()} == {
        '~/snapshot_streams/open': standin.OpenSnapshotStream,
        '~/snapshot_streams/close': standin.CloseSnapshotStream,
        '~/snapshot_streams/reconfigure': standin.ReconfigureSnapshotStream}
    assert list(node.publishers) == ['/robot/bt_executive/snapshots']
    assert node.lines() == [('info', 'py_trees_ros snapshot streams: on (services '
                             '/robot/bt_executive/snapshot_streams/{open,close,reconfigure};'
                             ' default stream /robot/bt_executive/snapshots)')]
    assert node.parameters == {'default_snapshot_stream': True,
                               'default_snapshot_period': 2.0,
                               'default_snapshot_blackboard_data': True,
                               'default_snapshot_blackboard_activity': False,
                               'snapshot_stream_timeout': 60.0}


@pytest.mark.parametrize('requested, full', [
    ('', '/robot/bt_executive/snapshot_streams/_snapshots_0'),
    ('mine', '/robot/bt_executive/snapshot_streams/mine'),
    ('~/watch', '/robot/bt_executive/watch'),
    ('/elsewhere/tree', '/elsewhere/tree'),
])
def test_open_answers_the_topic_name_as_py_trees_ros_expands_it(requested, full):
    setup = Setup()
    publisher = setup.stream(requested)
    assert publisher.topic == full
    assert full in setup.streams.streams


def test_streams_opened_without_a_name_get_names_of_their_own():
    setup = Setup()
    names = [setup.stream().topic for _ in range(3)]
    assert names == [f'/robot/bt_executive/snapshot_streams/_snapshots_{n}' for n in range(3)]


def test_an_invalid_topic_name_is_answered_with_an_empty_name_and_a_warning():
    setup = Setup()
    response = setup.node.call('open', topic_name='bad name!',
                               parameters=standin.SnapshotStreamParameters())
    assert response.topic_name == ''
    assert any("invalid topic name '~/snapshot_streams/bad name!'" in line
               for level, line in setup.node.log if level == 'warning')


def test_close_removes_the_stream_and_reports_unknown_ones():
    setup = Setup()
    publisher = setup.stream('mine')
    assert setup.node.call('close', topic_name=publisher.topic).result is True
    assert publisher.destroyed and publisher.topic not in setup.streams.streams
    setup.tick()
    assert publisher.messages == []
    assert setup.node.call('close', topic_name=publisher.topic).result is False
    assert setup.node.call('close', topic_name='mine').result is False  # full names only


def test_reconfigure_changes_what_the_stream_carries():
    setup = Setup()
    publisher = setup.stream('mine')
    setup.tick()
    assert publisher.messages[-1].blackboard_on_visited_path == []
    response = setup.node.call('reconfigure', topic_name=publisher.topic, parameters=(
        standin.SnapshotStreamParameters(snapshot_period=0.0, blackboard_data=True,
                                         blackboard_activity=True)))
    assert response.result is True
    setup.tick()
    last = publisher.messages[-1]
    assert [kv.key for kv in last.blackboard_on_visited_path] == ['count', 'limit']
    assert [item.key for item in last.blackboard_activity] == ['count']
    assert setup.node.call('reconfigure', topic_name='/nope', parameters=(
        standin.SnapshotStreamParameters())).result is False


# ---- what a snapshot carries ----------------------------------------------------------

def test_a_snapshot_is_the_tree_as_py_trees_ros_viewers_rebuild_it():
    setup = Setup()
    publisher = setup.stream()
    setup.tick()
    message = publisher.messages[-1]
    assert message.changed is True
    nodes = rebuild(message)
    assert list(nodes) == ['root', 'below', 'bump', 'wrap', 'busy']  # depth first
    B = standin.Behaviour
    assert {n: b.type for n, b in nodes.items()} == {
        'root': B.SEQUENCE, 'below': B.BEHAVIOUR, 'bump': B.BEHAVIOUR, 'wrap': B.DECORATOR,
        'busy': B.BEHAVIOUR}
    assert {n: b.status for n, b in nodes.items()} == {
        'root': B.RUNNING, 'below': B.SUCCESS, 'bump': B.SUCCESS, 'wrap': B.RUNNING,
        'busy': B.RUNNING}
    assert all(b.is_active for b in nodes.values())
    assert nodes['root'].tip_id == nodes['busy'].own_id
    assert nodes['wrap'].tip_id == nodes['busy'].own_id
    assert nodes['busy'].tip_id == standin.UUID()  # a leaf that is its own tip
    assert nodes['root'].current_child_id == nodes['wrap'].own_id
    assert nodes['root'].class_name == 'bt_executive.nodes.composites.ReactiveSequence'
    access = {kv.key: kv.value for kv in nodes['below'].blackboard_access}
    assert access == {'count': 'r', 'limit': 'r'}
    for node in setup.built.root.iterate():  # the ids are py_trees' own
        assert bytes(nodes[node.name].own_id.uuid) == node.id.bytes


def test_is_active_marks_the_nodes_ticked_in_the_last_tick():
    setup = Setup(STILL)
    publisher = setup.stream(period=0.0)
    setup.tick()
    nodes = rebuild(publisher.messages[-1])
    assert {n: b.is_active for n, b in nodes.items()} == {
        'root': True, 'high': True, 'idle': True}
    assert nodes['high'].message == 'x > 5 is false'
    setup.runner.stop()
    nodes = rebuild(publisher.messages[-1])
    assert publisher.messages[-1].changed is True
    assert {n: (b.is_active, b.status) for n, b in nodes.items()} == {
        n: (False, standin.Behaviour.INVALID) for n in nodes}


def test_statistics_carry_the_tick_count_and_timing_of_the_record():
    setup = Setup()
    publisher = setup.stream(period=0.0)
    records = []
    setup.runner.add_observer(types.SimpleNamespace(on_tick=records.append))
    setup.tick(WINDOW + 3)
    statistics = publisher.messages[-1].statistics
    assert statistics.count == WINDOW + 3
    durations = [r.duration for r in records[-WINDOW:]]
    intervals = [r.interval for r in records[-WINDOW:]]
    assert statistics.tick_duration == pytest.approx(durations[-1])
    assert statistics.tick_duration_average == pytest.approx(sum(durations) / WINDOW)
    mean = sum(intervals) / WINDOW
    assert statistics.tick_interval == pytest.approx(intervals[-1])
    assert statistics.tick_interval_average == pytest.approx(mean)
    assert statistics.tick_interval_variance == pytest.approx(
        sum((i - mean) ** 2 for i in intervals) / (WINDOW - 1))
    seconds = records[-1].time
    assert statistics.stamp.sec + statistics.stamp.nanosec * 1e-9 == pytest.approx(seconds)
    assert publisher.messages[0].statistics.count == 1
    assert publisher.messages[0].statistics.tick_interval == 0.0  # the first tick


def test_blackboard_data_shows_the_keys_on_the_visited_path_with_their_values():
    setup = Setup()
    publisher = setup.stream(data=True)
    setup.tick(2)
    values = {kv.key: kv.value for kv in publisher.messages[-1].blackboard_on_visited_path}
    assert values == {'count': '2', 'limit': '100'}
    assert publisher.messages[-1].blackboard_activity == []  # not asked for


def test_blackboard_activity_shows_the_writes_of_the_tick_with_old_and_new_values():
    setup = Setup()
    publisher = setup.stream(activity=True)
    setup.tick(2)
    [item] = publisher.messages[-1].blackboard_activity
    assert (item.key, item.activity_type, item.previous_value, item.current_value,
            item.client_name) == ('count', 'WRITE', '1', '2', 'Main')
    py_trees.blackboard.Blackboard.storage.pop('/limit')
    py_trees.blackboard.Blackboard.set('/fresh', {'a': [1, 2]})
    setup.runner.tick_once()  # the condition now fails: nothing written by the tree
    items = {i.key: i for i in publisher.messages[-1].blackboard_activity}
    assert items == {}  # the test's own writes happened between ticks


def test_activity_names_new_and_removed_keys():
    setup = Setup("""
        blackboard: {old: 1}
        trees:
          Main:
            Sequence root:
              - SetBlackboard new: {key: fresh, value: {a: [1, 2]}}
              - UnsetBlackboard gone: old
              - Running busy
        """)
    publisher = setup.stream(activity=True)
    setup.tick()
    items = {i.key: (i.activity_type, i.previous_value, i.current_value)
             for i in publisher.messages[-1].blackboard_activity}
    assert items == {'fresh': ('INITIALISED', '-', '{"a": [1, 2]}'),
                     'old': ('UNSET', '1', '-')}


# ---- when a stream publishes ------------------------------------------------------------

def test_an_infinite_period_publishes_only_when_something_changed():
    setup = Setup(STILL)
    publisher = setup.stream(period=math.inf)
    setup.tick()
    assert len(publisher.messages) == 1
    setup.clock.now += 1000.0
    setup.tick(5)  # the same statuses every tick
    assert len(publisher.messages) == 1
    py_trees.blackboard.Blackboard.set('/x', 10)
    setup.tick()
    assert len(publisher.messages) == 2 and publisher.messages[-1].changed is True


def test_a_period_repeats_the_snapshot_unchanged_while_nothing_changes():
    setup = Setup(STILL)
    publisher = setup.stream(period=2.0)
    setup.tick()
    setup.clock.now += 1.8  # 1.9 s after the first snapshot: not yet (0.98 * 2 s)
    setup.tick()
    assert len(publisher.messages) == 1
    setup.clock.now += 0.1  # 2.0 s
    setup.tick()
    assert len(publisher.messages) == 2
    assert publisher.messages[-1].changed is False
    assert publisher.messages[-1].statistics.count == 3


def test_a_zero_period_publishes_every_tick():
    setup = Setup(STILL)
    publisher = setup.stream(period=0.0)
    setup.tick(4)
    assert [m.statistics.count for m in publisher.messages] == [1, 2, 3, 4]
    assert [m.changed for m in publisher.messages] == [True, False, False, False]


def test_writes_are_published_to_streams_that_show_the_blackboard():
    setup = Setup(STILL)
    plain, data = setup.stream('plain'), setup.stream('data', data=True)
    activity = setup.stream('activity', activity=True)
    setup.tick()
    before = {'/x': 1}
    py_trees.blackboard.Blackboard.set('/x', 2)
    # a tick that wrote a key and changed no status or feedback message
    setup.streams.on_tick(TickRecord(tick=2, time=1.0, writes=frozenset({'x'}),
                                     before=before, ticked=[setup.built.root]))
    assert len(plain.messages) == 1
    assert len(data.messages) == 2 and data.messages[-1].changed is False
    assert [(kv.key, kv.value) for kv in data.messages[-1].blackboard_on_visited_path] == [
        ('x', '2')]
    assert [(i.key, i.previous_value, i.current_value)
            for i in activity.messages[-1].blackboard_activity] == [('x', '1', '2')]


def test_nothing_is_published_to_nobody_and_a_joining_subscriber_gets_the_present():
    setup = Setup()
    publisher = setup.stream()
    publisher.subscribers = 0
    setup.tick(3)
    assert publisher.messages == []
    publisher.join()
    [message] = publisher.messages
    assert message.changed is True and message.statistics.count == 3
    assert rebuild(message)['busy'].is_active


def test_a_stream_its_viewer_left_without_closing_is_closed_after_the_orphan_timeout():
    setup = Setup()
    kept = setup.stream()
    left = setup.stream()
    left.subscribers = 0  # its viewer was killed: nobody closes it
    setup.node.poll()
    setup.clock.now += streams.ORPHAN_TIMEOUT - 1.0
    setup.node.poll()
    assert left.topic in setup.streams.streams
    setup.clock.now += 1.0
    setup.node.poll()
    assert left.destroyed and left.topic not in setup.streams.streams
    assert not kept.destroyed and kept.topic in setup.streams.streams
    assert setup.node.lines(f'snapshot stream {left.topic} closed') == [
        ('info', f'py_trees_ros snapshot stream {left.topic} closed: no subscriber for '
                 f'{streams.ORPHAN_TIMEOUT:g} s (its viewer left without closing it)')]


def test_the_orphan_timeout_is_a_parameter():
    setup = Setup()
    assert not setup.node.set_parameters(snapshot_stream_timeout=0.0).successful
    assert setup.node.set_parameters(snapshot_stream_timeout=5.0).successful
    left = setup.stream()
    left.subscribers = 0
    setup.node.poll()
    setup.clock.now += 5.0
    setup.node.poll()
    assert left.destroyed


def test_the_default_stream_stays_open_without_subscribers():
    setup = Setup()
    setup.default.subscribers = 0
    setup.node.poll()
    setup.clock.now += 10 * streams.ORPHAN_TIMEOUT
    setup.node.poll()
    assert not setup.default.destroyed


def test_a_subscriber_that_comes_back_restarts_the_orphan_clock():
    setup = Setup()
    publisher = setup.stream()
    publisher.subscribers = 0
    setup.node.poll()
    setup.clock.now += streams.ORPHAN_TIMEOUT - 1.0
    publisher.join()
    publisher.subscribers = 0
    setup.node.poll()
    setup.clock.now += streams.ORPHAN_TIMEOUT - 1.0
    setup.node.poll()
    assert not publisher.destroyed


def test_a_subscriber_joining_a_paused_tree_sees_it_stopped():
    setup = Setup()
    publisher = setup.stream()
    setup.tick()
    setup.runner.stop()
    publisher.join()
    nodes = rebuild(publisher.messages[-1])
    assert {b.status for b in nodes.values()} == {standin.Behaviour.INVALID}


def test_one_snapshot_is_made_per_tick_whatever_the_number_of_streams(monkeypatch):
    setup = Setup()
    publishers = [setup.stream(period=0.0) for _ in range(5)]
    made = []
    behaviours = setup.streams.messages.behaviours
    monkeypatch.setattr(setup.streams.messages, 'behaviours',
                        lambda *args: made.append(1) or behaviours(*args))
    setup.tick(3)
    assert len(made) == 3
    assert all(len(p.messages) == 3 for p in publishers)


def test_a_new_tree_is_a_change():
    setup = Setup(STILL)
    publisher = setup.stream()
    setup.tick(2)
    assert len(publisher.messages) == 1
    other = Setup(TREE)
    setup.tree = other.tree
    other.runner.add_observer(setup.streams)
    other.runner.tick_once()
    assert len(publisher.messages) == 2
    assert publisher.messages[-1].changed is True
    assert list(rebuild(publisher.messages[-1])) == ['root', 'below', 'bump', 'wrap',
                                                     'busy']


# ---- the default stream's parameters -----------------------------------------------------

def test_the_default_stream_follows_its_parameters():
    setup = Setup(STILL)
    node = setup.node
    setup.tick()
    assert len(setup.default.messages) == 1
    assert setup.default.messages[-1].blackboard_on_visited_path[0].key == 'x'
    node.set_parameters(default_snapshot_period=0.0,
                        default_snapshot_blackboard_activity=True)
    setup.tick()
    assert len(setup.default.messages) == 2
    node.set_parameters(default_snapshot_stream=False)
    assert setup.default.destroyed
    node.set_parameters(default_snapshot_stream=True)
    assert not setup.default.destroyed
    result = node.set_parameters(default_snapshot_period=-1.0)
    assert not result.successful and 'at least 0' in result.reason


# ---- failures ----------------------------------------------------------------------------

def test_a_failure_while_making_the_streams_leaves_nothing_and_logs_one_line():
    node = Node(fail_service=1)
    assert streams.start(node, lambda: None, interfaces=standin.interfaces()) is None
    assert node.destroyed_services == ['~/snapshot_streams/open']
    assert node.lines() == [('warning', 'py_trees_ros snapshot streams: off (cannot serve '
                             'them: RuntimeError: no more services today)')]


def test_an_error_while_publishing_turns_the_streams_off_and_the_tree_ticks_on():
    setup = Setup()
    publisher = setup.stream()
    publisher.fail = ValueError('the middleware said no')
    setup.tick()
    setup.tick()
    assert setup.runner.tick_count == 2
    assert setup.node.lines() == [('error', 'py_trees_ros snapshot streams: off after an '
                                   'error: ValueError: the middleware said no')]
    assert publisher.destroyed
    assert setup.node.callbacks == []  # the parameters no longer reopen anything
