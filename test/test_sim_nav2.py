# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The sim's Nav2 actions (bt_executive/sim/nav2.py) in-process, with a STAND-IN nav2_msgs.

``nav2_msgs`` is not on PyPI, so these tests use the stand-in of test/standins/nav2_msgs
(plain classes with the fields, defaults and constants of Nav2's Kilted action
definitions; see test/standins/README.md). It has no type support, so nothing here goes
over ROS: a driver steps the model and routes its events the way ``sim_robot`` does.
What IS checked against the real package: ``test_standin_matches_real_types`` (skipped
without ``nav2_msgs``) and the ROS test test/ros/test_sim_nav2_ros.py (skipped likewise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import importlib
import pathlib
import sys
from typing import Any

from bt_executive.sim.model import ModelParams, NavEvent, RobotModel
from bt_executive.sim.nav2 import (ABORT, CANCEL, DOCK, is_nav2_key, Nav2Sim, NAVIGATE,
                                   Outcome, SUCCEED, UNDOCK)
import pytest

STANDINS = pathlib.Path(__file__).resolve().parent / 'standins'
DT = 0.2


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Make the STAND-IN ``nav2_msgs`` importable for this test only; yield its actions."""
    saved = {name: module for name, module in sys.modules.items()
             if name == 'nav2_msgs' or name.startswith('nav2_msgs.')}
    for name in saved:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(STANDINS))
    module = importlib.import_module('nav2_msgs.action')
    assert getattr(sys.modules['nav2_msgs'], 'STANDIN', False)
    yield module
    for name in [name for name in sys.modules
                 if name == 'nav2_msgs' or name.startswith('nav2_msgs.')]:
        del sys.modules[name]
    sys.modules.update(saved)


class Driver:
    """A model, a Nav2Sim on it, and the event routing of the sim node; no ROS."""

    def __init__(self, module: Any, **params: Any) -> None:
        params.setdefault('initial_battery', 1.0)
        self.model = RobotModel(ModelParams(**params))
        self.module = module
        self.sim = Nav2Sim(self.model, {NAVIGATE: module.NavigateToPose,
                                        DOCK: module.DockRobot,
                                        UNDOCK: module.UndockRobot})
        self.topic_events: list[NavEvent] = []
        self.ended: list[Outcome] = []
        self._ids = 0

    def route(self, events: list[NavEvent]) -> None:
        """Hand events to both protocols, as SimRobot._publish_events does."""
        self.topic_events += [event for event in events if not is_nav2_key(event.goal)]
        self.sim.on_events(events)
        self.ended += self.sim.outcomes()

    def send(self, action: str, goal: Any) -> tuple[str, bytes]:
        """Start a goal; return its key."""
        self._ids += 1
        goal_id = self._ids.to_bytes(16, 'big')
        self.route(self.sim.start(action, goal_id, goal))
        return (action, goal_id)

    def navigate(self, x: float, y: float, frame: str = 'map') -> tuple[str, bytes]:
        """Send a NavigateToPose goal to (x, y)."""
        goal = self.module.NavigateToPose.Goal()
        goal.pose.header.frame_id = frame
        goal.pose.pose.position.x, goal.pose.pose.position.y = x, y
        return self.send(NAVIGATE, goal)

    def outcome(self, key: tuple[str, bytes]) -> Outcome:
        """Return how the goal ended (it must have)."""
        matches = [outcome for outcome in self.ended if outcome.key == key]
        assert len(matches) == 1, f'{key} ended {len(matches)} times: {self.ended}'
        return matches[0]

    def run(self, done: Callable[[], bool], limit: float = 600.0) -> None:
        """Step until ``done()`` (simulated seconds at most ``limit``)."""
        start = self.model.time
        while not done():
            assert self.model.time - start < limit, f'not done after {limit} s: {self.ended}'
            self.route(self.model.step(DT))
            self.route(self.sim.check())

    def finish(self, key: tuple[str, bytes]) -> Outcome:
        """Step until the goal ended; return its outcome."""
        self.run(lambda: any(outcome.key == key for outcome in self.ended))
        return self.outcome(key)


def test_navigate_to_pose_arrives_with_feedback(standin: Any) -> None:
    driver = Driver(standin)
    key = driver.navigate(2.0, 1.0)
    assert driver.sim.active == [key] and driver.model.navigating
    driver.run(lambda: driver.model.time >= 2.0)
    ((fb_key, feedback),) = driver.sim.feedback()
    assert fb_key == key
    assert feedback.current_pose.header.frame_id == 'map'
    assert feedback.current_pose.pose.position.x == pytest.approx(driver.model.x)
    assert 0.0 < feedback.distance_remaining < 2.24
    assert feedback.navigation_time.sec == 2 and feedback.number_of_recoveries == 0
    expected = feedback.distance_remaining / driver.model.params.max_linear_speed
    remaining = feedback.estimated_time_remaining
    assert remaining.sec + remaining.nanosec * 1e-9 == pytest.approx(expected, abs=1e-6)
    outcome = driver.finish(key)
    assert (outcome.status, outcome.result.error_code, outcome.result.error_msg) == (
        SUCCEED, 0, '')
    assert abs(driver.model.x - 2.0) < 0.1 + 1e-9 and driver.sim.active == []
    assert driver.sim.feedback() == []


def test_cancel_stops_the_robot(standin: Any) -> None:
    driver = Driver(standin)
    key = driver.navigate(4.0, 0.0)
    driver.run(lambda: driver.model.time >= 2.0)
    driver.route(driver.sim.cancel(key))
    outcome = driver.outcome(key)
    assert outcome.status == CANCEL and outcome.result.error_code == 0
    assert not driver.model.navigating
    driver.route(driver.model.step(DT))
    assert driver.model.linear == 0.0
    assert driver.sim.cancel(key) == []  # already ended: nothing to do


@pytest.mark.parametrize('setup, x, frame, code, reason', [
    ({'initial_battery': 0.0}, 1.0, 'map', 9000, 'battery empty'),
    ({}, 99.0, 'map', 9000, 'outside the world'),
    ({}, 1.0, 'base_link', 9002, "unsupported goal frame 'base_link'"),
    ({'navigation_timeout': 1.0}, 4.0, 'odom', 9003, 'navigation timeout (1 s)'),
])
def test_navigate_aborts_with_error_code_and_reason(standin: Any, setup: dict, x: float,
                                                    frame: str, code: int, reason: str) -> None:
    driver = Driver(standin, **setup)
    outcome = driver.finish(driver.navigate(x, 0.0, frame))
    assert outcome.status == ABORT
    assert outcome.result.error_code == code
    assert reason in outcome.result.error_msg and reason in outcome.reason


def test_battery_running_out_on_the_way_aborts(standin: Any) -> None:
    driver = Driver(standin, initial_battery=0.01)
    outcome = driver.finish(driver.navigate(4.0, 3.0))
    assert (outcome.status, outcome.result.error_msg) == (ABORT, 'battery empty')
    assert driver.model.battery == 0.0


def test_emergency_stop_aborts_navigation(standin: Any) -> None:
    driver = Driver(standin)
    key = driver.navigate(4.0, 0.0)
    driver.route(driver.model.set_emergency_stop(True))
    assert driver.outcome(key).result.error_msg == 'emergency stop engaged'


def test_a_newer_goal_preempts_the_active_one(standin: Any) -> None:
    driver = Driver(standin)
    first = driver.navigate(4.0, 0.0)
    second = driver.navigate(0.0, 2.0)
    outcome = driver.outcome(first)
    assert (outcome.status, outcome.result.error_msg) == (ABORT, 'preempted by a newer goal')
    assert driver.finish(second).status == SUCCEED


def test_topic_goal_and_nav2_goal_replace_each_other(standin: Any) -> None:
    driver = Driver(standin)
    driver.route(driver.model.navigate(1.0, 1.0, (5, 0)))
    key = driver.navigate(2.0, 0.0)
    assert [(event.goal, event.reason) for event in driver.topic_events if event.terminal] == [
        ((5, 0), 'replaced by a new goal')]
    driver.route(driver.model.navigate(1.0, 1.0, (6, 0)))
    assert driver.outcome(key).reason == 'preempted by a newer goal'
    other = driver.navigate(2.0, 0.0)
    driver.route(driver.model.cancel(None))  # navigate/cancel with a zero stamp
    assert driver.outcome(other).reason == 'stopped by another request (canceled)'


def dock_goal(module: Any, **fields: Any) -> Any:
    """Return a DockRobot goal with ``fields`` set (the rest at their defaults)."""
    goal = module.DockRobot.Goal(dock_id='home_dock')
    for name, value in fields.items():
        setattr(goal, name, value)
    return goal


def test_dock_by_id_drives_to_the_dock_and_charges(standin: Any) -> None:
    driver = Driver(standin, start_x=2.0, start_y=1.0, initial_battery=0.3)
    key = driver.send(DOCK, dock_goal(standin, dock_id='home_dock'))
    driver.run(lambda: driver.model.time >= 1.0)
    ((_, feedback),) = driver.sim.feedback()
    assert feedback.state == standin.DockRobot.Feedback.NAV_TO_STAGING_POSE
    assert feedback.docking_time.sec == 1
    outcome = driver.finish(key)
    assert (outcome.status, outcome.result.success, outcome.result.error_code) == (
        SUCCEED, True, 0)
    assert driver.model.docked and driver.model.power_supply == 'charging'
    battery = driver.model.battery
    driver.route(driver.model.step(DT))
    assert driver.model.battery > battery
    again = driver.send(DOCK, dock_goal(standin))
    assert driver.outcome(again).reason == 'already docked'


def test_dock_by_pose(standin: Any) -> None:
    driver = Driver(standin, start_y=-0.9)
    goal = dock_goal(standin, use_dock_id=False)
    goal.dock_pose.header.frame_id = 'map'
    goal.dock_pose.pose.position.y = -1.0
    assert driver.outcome(driver.send(DOCK, goal)).status == SUCCEED
    assert driver.model.docked


@pytest.mark.parametrize('setup, fields, code, reason', [
    ({}, {'dock_id': 'garage'}, 901, "dock 'garage' is not in the sim's dock database"),
    ({}, {'use_dock_id': False}, 902, "no dock at (0.00, 0.00) in frame ''"),
    ({}, {'navigate_to_staging_pose': False}, 903,
     'not at the dock (1.00 m away) and navigate_to_staging_pose is false'),
    ({'initial_battery': 0.0}, {}, 903, 'cannot reach the dock: battery empty'),
    ({'start_x': 4.0}, {'max_staging_time': 2.0}, 907,
     'did not reach the dock within max_staging_time (2 s)'),
])
def test_dock_failures_carry_error_codes(standin: Any, setup: dict, fields: dict, code: int,
                                         reason: str) -> None:
    driver = Driver(standin, **setup)
    outcome = driver.finish(driver.send(DOCK, dock_goal(standin, **fields)))
    assert (outcome.status, outcome.result.success, outcome.result.error_code) == (
        ABORT, False, code)
    assert outcome.result.error_msg.startswith(reason), outcome.result.error_msg
    assert not driver.model.navigating and not driver.model.docked


def test_cancel_while_driving_to_the_dock(standin: Any) -> None:
    driver = Driver(standin, start_x=3.0)
    key = driver.send(DOCK, dock_goal(standin))
    driver.run(lambda: driver.model.time >= 1.0)
    driver.route(driver.sim.cancel(key))
    outcome = driver.outcome(key)
    assert (outcome.status, outcome.result.success) == (CANCEL, False)
    assert not driver.model.navigating and not driver.model.docked


def test_undock(standin: Any) -> None:
    driver = Driver(standin, start_y=-1.0)
    assert driver.outcome(driver.send(DOCK, dock_goal(standin))).status == SUCCEED
    outcome = driver.outcome(driver.send(UNDOCK, standin.UndockRobot.Goal()))
    assert (outcome.status, outcome.result.success, outcome.reason) == (
        SUCCEED, True, 'undocked')
    assert not driver.model.docked
    # as Nav2's docking server: undocking when not docked succeeds
    again = driver.outcome(driver.send(UNDOCK, standin.UndockRobot.Goal()))
    assert (again.status, again.reason) == (SUCCEED, 'not docked')


def test_older_result_shapes_still_end_goals(standin: Any) -> None:
    class Old:
        Goal, Feedback = standin.NavigateToPose.Goal, standin.NavigateToPose.Feedback

        class Result:  # Humble's NavigateToPose result: no error code, no message
            pass

    model = RobotModel(ModelParams(initial_battery=0.0))
    sim = Nav2Sim(model, {NAVIGATE: Old})
    goal = Old.Goal()
    sim.on_events(sim.start(NAVIGATE, b'1' * 16, goal))
    ((outcome),) = sim.outcomes()
    assert outcome.status == ABORT and outcome.reason == 'battery empty'
    assert not hasattr(outcome.result, 'error_code')


def test_empty_battery_costs_one_abort_per_goal(standin: Any) -> None:
    driver = Driver(standin, initial_battery=0.0)
    keys = [driver.navigate(1.0, 0.0) for _ in range(3)]
    assert [driver.outcome(key).reason for key in keys] == ['battery empty'] * 3
    assert driver.sim.active == [] and driver.model.goal_count == 3


def test_load_actions_refuses_a_module_without_type_support(standin: Any) -> None:
    from bt_executive.sim.nav2_server import load_actions, parse_mode
    actions, why = load_actions()
    assert actions == {}
    assert why.startswith('nav2_msgs.action.NavigateToPose has no usable type support')
    assert load_actions('no_such_package_xyz.action')[1].startswith(
        'cannot import no_such_package_xyz.action: ModuleNotFoundError')
    assert [parse_mode(value) for value in ('auto', ' True', 'false', True, False)] == [
        'auto', 'true', 'false', 'true', 'false']
    with pytest.raises(ValueError, match="nav2 must be 'auto', 'true' or 'false', got 'yes'"):
        parse_mode('yes')


def test_standin_matches_real_types(standin: Any) -> None:
    standin_module = standin
    del sys.modules['nav2_msgs.action'], sys.modules['nav2_msgs']
    sys.path.remove(str(STANDINS))
    try:
        real = importlib.import_module('nav2_msgs.action')
    except Exception as error:  # noqa: B902 - any failure: no usable real package
        pytest.skip(f'the real nav2_msgs is not importable here: {error}')
    finally:
        sys.path.insert(0, str(STANDINS))
    for action in ('NavigateToPose', 'DockRobot', 'UndockRobot'):
        for part in ('Goal', 'Result', 'Feedback'):
            ours = getattr(getattr(standin_module, action), part)
            theirs = getattr(getattr(real, action), part)
            assert ours.get_fields_and_field_types() == theirs.get_fields_and_field_types(), (
                action, part)
            constants = [name for name in vars(ours) if name.isupper()]
            assert {name: getattr(ours, name) for name in constants} == {
                name: getattr(theirs, name) for name in constants}, (action, part)
            defaults, real_defaults = ours(), theirs()
            for field in ours.get_fields_and_field_types():
                value = getattr(defaults, field)
                if isinstance(value, (bool, int, float, str)):
                    assert getattr(real_defaults, field) == pytest.approx(value), (
                        action, part, field)
