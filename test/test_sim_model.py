# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tests of the pure simulation behind sim_robot (bt_executive.sim.model; no ROS, no DDS)."""

from __future__ import annotations

import json
import math
from typing import Optional

from bt_executive.sim.model import (ABORTED, CANCELED, EXECUTING, ModelParams, NavEvent,
                                    REMEMBERED_GOALS, RobotModel, SUCCEEDED, wrap_angle)
import pytest

DT = 0.4
"""The step of the ROS tests (rate 50 Hz, time_scale 20)."""


def drive_until_done(model: RobotModel, dt: float = DT, max_steps: int = 10_000) -> NavEvent:
    """Step until the active goal ends; return its terminal event."""
    for _ in range(max_steps):
        events = model.step(dt)
        if events:
            assert len(events) == 1 and events[0].terminal
            return events[0]
    raise AssertionError(f'goal still active after {max_steps} steps')


def scenario(params: Optional[ModelParams] = None, dt: float = DT) -> list[tuple]:
    """Run a fixed mixed command sequence; return the pose trace and the events."""
    model = RobotModel(params)
    trace: list[tuple] = []
    model.command_velocity(0.4, 0.7)
    for _ in range(5):
        model.step(dt)
        trace.append((model.x, model.y, model.yaw, model.battery))
    trace += [(event.status, event.reason) for event in model.navigate(2.0, 1.5, 'a')]
    for _ in range(4):
        model.step(dt)
    trace += [(event.status, event.reason) for event in model.set_emergency_stop(True)]
    model.set_emergency_stop(False)
    model.navigate(-1.0, -2.0, 'b')
    trace.append(drive_until_done(model, dt))
    trace.append((model.x, model.y, model.yaw, model.battery, model.distance, model.time))
    return trace


def test_same_parameters_give_identical_runs() -> None:
    params = ModelParams(start_x=0.5, start_yaw=1.0, max_linear_speed=0.7)
    first, second = scenario(params), scenario(params)
    assert first == second  # exact equality: no randomness, fixed step
    assert scenario(ModelParams()) != first


def test_final_pose_after_goal_is_reproducible_within_1e_6() -> None:
    finals = []
    for _ in range(2):
        model = RobotModel()
        model.navigate(2.0, 0.0, 'g')
        assert drive_until_done(model).status == SUCCEEDED
        finals.append((model.x, model.y, model.yaw))
    assert all(abs(a - b) <= 1e-6 for a, b in zip(*finals))


@pytest.mark.parametrize('dt', [0.02, 0.2, 0.4, 1.0])
@pytest.mark.parametrize(('gx', 'gy'), [(2.0, 0.0), (0.0, -1.0), (-3.0, 2.0), (4.0, 3.0),
                                        (-5.0, -0.01), (0.0, 0.05), (1.0, 9.9)])
def test_navigation_reaches_goals_in_every_direction(dt: float, gx: float, gy: float) -> None:
    model = RobotModel()
    events = model.navigate(gx, gy, ('stamp', 1))
    assert [(e.goal, e.number, e.status) for e in events] == [(('stamp', 1), 1, EXECUTING)]
    assert model.navigating
    event = drive_until_done(model, dt)
    assert (event.goal, event.status, event.reason) == (('stamp', 1), SUCCEEDED, 'arrived')
    assert math.hypot(gx - model.x, gy - model.y) <= model.params.goal_tolerance
    assert not model.navigating
    model.step(dt)
    assert (model.linear, model.angular) == (0.0, 0.0)
    straight = math.hypot(gx, gy)
    assert model.distance <= straight + 0.05
    assert model.time <= straight / model.params.max_linear_speed + 10.0


def test_navigation_turns_in_place_first_and_respects_speed_limits() -> None:
    model = RobotModel()
    model.navigate(-2.0, 0.0, 'behind')
    speeds = []
    while model.navigating:
        model.step(0.1)
        speeds.append((model.linear, model.angular))
    turning = speeds[:3]
    assert all(linear == 0.0 and abs(angular) == 1.5 for linear, angular in turning)
    assert all(abs(linear) <= 0.5 and abs(angular) <= 1.5 + 1e-12 for linear, angular in speeds)
    assert max(linear for linear, _ in speeds) == pytest.approx(0.5, abs=1e-3)
    assert speeds[-1][0] < 0.2  # slows down near the goal


def test_cancel_for_a_replaced_goal_does_not_stop_the_new_one() -> None:
    model = RobotModel()
    model.navigate(5.0, 0.0, 'patrol')
    model.step(DT)
    model.navigate(0.0, -1.0, 'dock')  # a higher priority sends its goal first ...
    assert model.cancel('patrol') == []  # ... then the preempted goal's cancel arrives
    assert model.goal is not None and model.goal[0] == 'dock'
    assert [(e.goal, e.status) for e in model.cancel('dock')] == [('dock', CANCELED)]


def test_a_goal_sent_again_is_the_same_goal() -> None:
    """The same key, point and frame again: no new goal, the goal's latest event."""
    model = RobotModel()
    [started] = model.navigate(1.0, 0.0, 'a', 'odom')
    model.step(DT)
    assert model.navigate(1.0, 0.0, 'a', 'odom') == [started]  # still driving: unchanged
    assert model.goal is not None and model.goal[:2] == ('a', 1) and model.goal_count == 1
    done = drive_until_done(model)
    assert done.status == SUCCEEDED
    assert model.navigate(1.0, 0.0, 'a', 'odom') == [done]  # finished: its result again
    assert model.goal is None and model.state()['results']['succeeded'] == 1
    assert [(e.number, e.status) for e in model.navigate(  # no stamp: never a repeat
        1.0, 0.0, 'a', 'odom', repeatable=False)] == [(2, EXECUTING)]
    model.cancel()
    # the same key to another point is a new goal (a restarted sender's counter)
    assert [(e.number, e.status) for e in model.navigate(2.0, 0.0, 'a', 'odom')] == [
        (3, EXECUTING)]
    for key in range(REMEMBERED_GOALS):  # only the last goals are remembered
        model.navigate(0.5, 0.0, key)
    assert [(e.goal, e.status) for e in model.navigate(2.0, 0.0, 'a', 'odom')] == [
        (REMEMBERED_GOALS - 1, CANCELED), ('a', EXECUTING)]


def test_new_goal_cancels_the_active_one_and_cancel_stops() -> None:
    model = RobotModel()
    model.navigate(5.0, 0.0, 'a')
    model.step(DT)
    events = model.navigate(0.0, 5.0, 'b')
    assert [(e.goal, e.number, e.status) for e in events] == [
        ('a', 1, CANCELED), ('b', 2, EXECUTING)]
    assert events[0].reason == 'replaced by a new goal'
    for _ in range(10):
        model.step(DT)
    assert model.linear > 0.0
    assert [(e.goal, e.status, e.reason) for e in model.cancel()] == [('b', CANCELED, 'canceled')]
    assert model.cancel() == []
    pose = (model.x, model.y)
    model.step(DT)
    assert (model.linear, model.angular) == (0.0, 0.0)
    assert (model.x, model.y) == pose
    assert model.state()['results'] == {'aborted': 0, 'canceled': 2, 'succeeded': 0}


def test_emergency_stop_aborts_navigation_and_stops_at_the_next_step() -> None:
    model = RobotModel()
    model.navigate(5.0, 0.0, 'a')
    for _ in range(3):
        model.step(DT)
    assert model.linear > 0.0
    events = model.set_emergency_stop(True)
    assert [(e.goal, e.status, e.reason) for e in events] == [
        ('a', ABORTED, 'emergency stop engaged')]
    assert model.set_emergency_stop(True) == []
    pose = (model.x, model.y, model.yaw)
    model.step(DT)
    assert (model.linear, model.angular) == (0.0, 0.0)
    assert (model.x, model.y, model.yaw) == pose
    assert not model.command_velocity(0.3, 0.0)
    [refused] = model.navigate(1.0, 1.0, 'b')
    assert (refused.status, refused.reason) == (ABORTED, 'emergency stop engaged')
    assert model.set_emergency_stop(False) == []
    model.step(DT)
    assert (model.x, model.y, model.linear) == (pose[0], pose[1], 0.0)  # nothing resumes
    assert model.command_velocity(0.3, 0.0)


@pytest.mark.parametrize(('setup', 'goal', 'reason'), [
    (None, (10.5, 0.0), 'goal (10.50, 0.00) outside the world (x in [-10, 10], y in [-10, 10])'),
    (None, (0.0, -11.0), 'outside the world'),
    ('dock', (1.0, 1.0), 'docked: undock first'),
    ('empty', (1.0, 1.0), 'battery empty'),
    (None, (math.nan, 1.0), 'invalid goal'),
])
def test_refused_goals_are_aborted_immediately(setup: Optional[str], goal: tuple[float, float],
                                               reason: str) -> None:
    params = ModelParams(dock_y=0.0, initial_battery=0.0 if setup == 'empty' else 1.0)
    model = RobotModel(params)
    if setup == 'dock':
        assert model.dock()[0]
    [event] = model.navigate(*goal, 'g')
    assert event.status == ABORTED and reason in event.reason
    assert not model.navigating
    assert model.state()['nav'] == {'status': 'aborted', 'reason': event.reason, 'goal': 1,
                                    'target': None}


def test_goal_frames() -> None:
    model = RobotModel()
    assert model.navigate(1.0, 0.0, 'a', 'odom')[0].status == EXECUTING
    assert model.navigate(1.0, 0.0, 'b', 'map')[-1].status == EXECUTING
    [canceled, refused] = model.navigate(1.0, 0.0, 'c', 'base_link')
    assert canceled.status == CANCELED
    assert (refused.status, refused.reason) == (
        ABORTED, "unsupported goal frame 'base_link' (use odom)")


def test_navigation_timeout_and_empty_battery_abort() -> None:
    model = RobotModel(ModelParams(navigation_timeout=2.0))
    model.navigate(8.0, 0.0, 'far')
    event = drive_until_done(model)
    assert (event.status, event.reason) == (ABORTED, 'navigation timeout (2 s)')
    assert model.time == pytest.approx(2.0)

    model = RobotModel(ModelParams(initial_battery=0.01, idle_drain=0.0, motion_drain=0.1))
    model.navigate(8.0, 0.0, 'far')
    event = drive_until_done(model)
    assert (event.status, event.reason) == (ABORTED, 'battery empty')
    assert model.battery == 0.0
    x = model.x
    model.command_velocity(0.5, 0.0)
    model.step(DT)
    assert (model.x, model.linear) == (x, 0.0)  # an empty robot cannot move


def test_battery_drain_and_charge() -> None:
    params = ModelParams(initial_battery=0.5, idle_drain=0.002, motion_drain=0.01,
                         charge_rate=0.05, dock_y=0.0)
    model = RobotModel(params)
    model.step(1.0)
    assert model.battery == pytest.approx(0.498)
    assert model.power_supply == 'discharging'
    model.command_velocity(0.5, 0.0)
    model.step(0.25)
    assert model.battery == pytest.approx(0.498 - (0.002 + 0.01 * 0.5) * 0.25)
    assert model.distance == pytest.approx(0.125)
    model.command_velocity(-0.1, 0.0)
    model.step(0.25)  # back to within the dock tolerance
    assert model.dock() == (True, 'docked 0.10 m from the dock')
    assert (model.power_supply, model.dock_count) == ('charging', 1)
    level = model.battery
    model.step(2.0)
    assert model.battery == pytest.approx(level + 0.1)
    for _ in range(20):
        model.step(1.0)
    assert (model.battery, model.power_supply) == (1.0, 'full')
    assert model.voltage == pytest.approx(12.6)
    assert model.undock() == (True, 'undocked')
    assert model.power_supply == 'discharging'
    assert model.undock() == (False, 'not docked')
    assert RobotModel(ModelParams(initial_battery=0.0)).voltage == pytest.approx(11.0)


def test_dock_rules() -> None:
    model = RobotModel()
    assert model.dock() == (False, 'not at the dock: 1.00 m away (tolerance 0.3 m)')
    model.navigate(0.0, -1.0, 'dock')
    model.step(DT)
    assert model.dock() == (False, 'navigating: wait for the goal to finish or cancel it')
    assert drive_until_done(model).status == SUCCEEDED
    success, message = model.dock()
    assert success and message.startswith('docked')
    assert model.dock() == (True, 'already docked')
    assert model.dock_count == 1
    assert not model.command_velocity(0.5, 0.0)  # motion ignored while docked
    pose = (model.x, model.y, model.yaw)
    model.step(DT)
    assert (model.x, model.y, model.yaw) == pose


def test_cmd_vel_is_clamped_expires_and_is_ignored_while_navigating() -> None:
    model = RobotModel()
    assert model.command_velocity(3.0, -9.0)
    model.step(0.1)
    assert (model.linear, model.angular) == (0.5, -1.5)
    model = RobotModel()
    model.command_velocity(0.3, 0.0)
    moving = 0
    for _ in range(5):
        model.step(DT)
        moving += model.linear != 0.0
    assert moving == 2  # cmd_vel_timeout 0.5 s: the steps starting before it expires
    assert model.x == pytest.approx(0.3 * 2 * DT)
    assert not model.command_velocity(math.inf, 0.0)
    model.navigate(3.0, 0.0, 'g')
    assert not model.command_velocity(0.0, 0.0)
    assert model.navigating  # a zero command does not disturb navigation


def test_motion_stops_at_the_world_boundary() -> None:
    model = RobotModel(ModelParams(world_max_x=1.0, cmd_vel_timeout=60.0))
    model.command_velocity(0.5, 0.0)
    for _ in range(10):
        model.step(DT)
    assert model.x <= 1.0
    assert model.linear == 0.0
    assert model.x == pytest.approx(1.0)


def test_parameters_are_validated() -> None:
    with pytest.raises(ValueError) as error:
        ModelParams(world_min_x=1.0, world_max_x=0.0, initial_battery=2.0, max_linear_speed=0.0,
                    full_voltage=1.0)
    text = str(error.value)
    for part in ('world_min_x (1.0) must be < world_max_x (0.0)',
                 'initial_battery must be in [0, 1]', 'max_linear_speed must be > 0',
                 'full_voltage (1.0) must be >= empty_voltage (11.0)'):
        assert part in text
    with pytest.raises(ValueError, match='outside the world'):
        ModelParams(start_x=20.0)
    with pytest.raises(ValueError, match='finite'):
        ModelParams(goal_tolerance=math.nan)
    with pytest.raises(ValueError, match='dt must be'):
        RobotModel().step(0.0)


def test_state_is_json_ready() -> None:
    model = RobotModel()
    model.navigate(1.0, 0.0, 'g')
    model.step(DT)
    state = json.loads(json.dumps(model.state()))
    assert state['nav'] == {'status': 'executing', 'reason': 'driving to (1.00, 0.00)',
                            'goal': 1, 'target': [1.0, 0.0]}
    assert set(state) >= {'x', 'y', 'yaw', 'speed', 'battery', 'docked', 'estop', 'distance',
                          'dock_count', 'time'}


def test_wrap_angle() -> None:
    assert wrap_angle(math.pi + 0.1) == pytest.approx(-math.pi + 0.1)
    assert wrap_angle(-0.3) == pytest.approx(-0.3)
    assert wrap_angle(7 * math.pi) == pytest.approx(-math.pi)
