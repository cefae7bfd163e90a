# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The sim's Nav2 actions over real ROS, with a nav2_msgs BUILT FROM THE TEST STAND-IN.

``nav2_msgs`` is not on PyPI. The ``typed_standin`` fixture builds the stand-in's
definitions (test/standins/definitions/nav2_msgs: Nav2 Kilted 1.4.2's fields, defaults
and constants) with the venv's rosidl generators and gcc into a package with real type
support, cached in the venv. The sim, the executive and this test's client load it from
there, so goals, feedback, results and cancels go over DDS between processes exactly as
with Nav2's package. Its libraries are tagged and found through their RPATH, so a real
nav2_msgs on ``PYTHONPATH``/``LD_LIBRARY_PATH`` never mixes in; each sim's
``/proc/<pid>/maps`` is checked for that. Skipped, with the reason, where the build is
not possible (no compiler or headers). The comparison with Nav2's real package is
test_sim_nav2.py::test_standin_matches_real_types and test_typed_standins.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import json
import os
import pathlib
import re
import subprocess
import sys
import threading
from typing import Any
import uuid

from helpers import skip_if_installed, SpawnedProcess, wait_for, wait_future
import pytest

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
STANDINS = ROOT / 'test' / 'standins'
SIM = ROOT / 'bt_executive' / 'sim' / 'robot.py'
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
CONFIG = ROOT / 'config'
TIMEOUT = 60.0


def mapped_libraries(pid: int | str, prefix: str = 'libnav2_msgs') -> set[pathlib.Path]:
    """Return the files named ``prefix*`` that process ``pid`` has mapped."""
    maps = pathlib.Path(f'/proc/{pid}/maps').read_text()
    return {pathlib.Path(line.split(None, 5)[5]) for line in maps.splitlines()
            if len(line.split(None, 5)) == 6
            and pathlib.Path(line.split(None, 5)[5]).name.startswith(prefix)}


def assert_only_standin_libraries(pid: int | str, lib: pathlib.Path) -> None:
    """Assert that ``pid`` maps the stand-in's libraries and no other libnav2_msgs*."""
    mapped = mapped_libraries(pid)
    foreign = {path for path in mapped if path.parent != lib}
    assert not foreign, f'process {pid} loaded libraries of another nav2_msgs: {foreign}'
    assert {path.name for path in mapped} >= {
        'libnav2_msgs__standin__rosidl_typesupport_c.so',
        'libnav2_msgs__standin__rosidl_typesupport_fastrtps_c.so'}, mapped


@pytest.fixture(scope='module')
def nav2_env(typed_standin: Callable[[str], Any]) -> Iterator[dict[str, str]]:
    """Build (or reuse) the package; make it importable here; yield the children's env.

    A real ``nav2_msgs`` on ``PYTHONPATH`` gives way to the stand-in for this module's
    tests; its libraries, even when on ``LD_LIBRARY_PATH`` or already loaded here, are
    never used for the stand-in's types (they are tagged: tools/build_interfaces.py).
    """
    built = typed_standin('nav2_msgs')
    saved = {name: module for name, module in sys.modules.items()
             if name.split('.')[0] == 'nav2_msgs'}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(built.python))
    env = built.environment()
    try:
        import nav2_msgs
        assert nav2_msgs.BUILT_FROM_STANDIN
        yield env
    finally:
        sys.path.remove(str(built.python))
        for name in [name for name in sys.modules if name.split('.')[0] == 'nav2_msgs']:
            del sys.modules[name]
        sys.modules.update(saved)


class Nav2Sim:
    """A sim_robot process serving the Nav2 actions in a namespace of its own."""

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any, env: dict[str, str],
                 *parameters: str) -> None:
        from nav2_msgs.action import DockRobot, NavigateToPose, UndockRobot
        import rclpy
        from bt_executive.ros.action_client import ActionClient
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.ns = f'/nav2sim_{uuid.uuid4().hex[:8]}'
        self.node = node
        arguments = ['--ros-args', '-p', 'publish_clock:=true', '-p', 'time_scale:=20.0',
                     '-p', 'nav2:=true']
        for parameter in parameters:
            arguments += ['-p', parameter]
        self.states: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{self.ns}/sim_state', self._on_state, latched)
        self.process = spawn(SIM, *arguments, '-r', f'__ns:={self.ns}', env=env)
        # bt_executive's ActionClient (plain clients and subscriptions, no Waitable): rclpy's
        # was destroyed at teardown while the spinning thread built its wait set ("action
        # client pointer is invalid"); the clients live on a node of their own
        self.client_node = rclpy.create_node(f'{node.get_name()}_nav2_clients',
                                             context=node.context)
        self.clients = {name: ActionClient(self.client_node, cls, f'{self.ns}/{name}')
                        for name, cls in (('navigate_to_pose', NavigateToPose),
                                          ('dock_robot', DockRobot),
                                          ('undock_robot', UndockRobot))}
        node.executor.add_node(self.client_node)
        self.types = {'navigate_to_pose': NavigateToPose, 'dock_robot': DockRobot,
                      'undock_robot': UndockRobot}
        for name, client in self.clients.items():
            wait_for(client.server_is_ready, TIMEOUT, f'{self.ns}/{name} to be served',
                     describe=self.process.stderr_text)
        wait_for(lambda: 'Nav2 actions served: navigate_to_pose, dock_robot, undock_robot'
                 in self.process.stderr_text(), TIMEOUT, "the sim's log line")
        # the sim serves the stand-in's types from the stand-in's libraries only; this
        # process uses them too (a real nav2_msgs loaded here by another test may stay
        # mapped beside them: its libraries have other names and are never used)
        lib = pathlib.Path(env['LD_LIBRARY_PATH'].split(os.pathsep)[0])
        assert_only_standin_libraries(self.process.pid, lib)
        ours = mapped_libraries('self', 'libnav2_msgs__standin__')
        assert ours and {path.parent for path in ours} == {lib}, ours
        self._warm_up()

    def _warm_up(self) -> None:
        """Complete one harmless goal per action, so the sim has discovered our clients.

        ``wait_for_server`` only says that this side sees the server; until the sim has
        discovered a client's reply readers, Fast DDS drops the goal response ("failed
        to send response (timeout)") and the goal runs unanswered. Each warm-up goal
        fails at once without touching the robot (unknown frame, unknown dock, undock
        while not docked), so a lost response costs nothing: it is sent again.
        """
        navigate = self.navigate_goal(0.0, 0.0)
        navigate.pose.header.frame_id = 'warm_up'
        goals = {'navigate_to_pose': navigate,
                 'dock_robot': self.types['dock_robot'].Goal(dock_id='warm_up'),
                 'undock_robot': self.types['undock_robot'].Goal()}
        for name, goal in goals.items():
            def round_trip(name: str = name, goal: Any = goal) -> bool:
                future = self.clients[name].send_goal_async(goal)
                if not wait_done(future, 2.0) or not future.result().accepted:
                    return False
                return wait_done(future.result().get_result_async(), 2.0)
            wait_for(round_trip, TIMEOUT, f'a {name} round trip with the sim')

    def _on_state(self, msg: Any) -> None:
        with self._changed:
            self.states.append(json.loads(msg.data))
            self._changed.notify_all()

    @property
    def state(self) -> dict[str, Any]:
        """Return the latest sim_state."""
        with self._changed:
            return self.states[-1] if self.states else {}

    def send(self, action: str, goal: Any,
             feedback: list[Any] | None = None) -> Any:
        """Send a goal; wait until it is accepted; return its handle."""
        callback = None if feedback is None else (lambda msg: feedback.append(msg.feedback))
        handle = wait_future(self.clients[action].send_goal_async(
            goal, feedback_callback=callback), TIMEOUT, f'the {action} goal response')
        assert handle.accepted, f'{action} goal rejected'
        return handle

    def result(self, handle: Any) -> Any:
        """Wait for the goal's outcome: the status and the Result message."""
        return wait_future(handle.get_result_async(), TIMEOUT, 'the result')

    def navigate_goal(self, x: float, y: float) -> Any:
        """Return a NavigateToPose goal to (x, y) in map."""
        goal = self.types['navigate_to_pose'].Goal()
        goal.pose.header.frame_id = 'map'
        goal.pose.pose.position.x, goal.pose.pose.position.y = x, y
        goal.pose.pose.orientation.w = 1.0
        return goal


@pytest.fixture
def nav2_sim(spawn: Callable[..., SpawnedProcess], ros_node: Any,
             nav2_env: dict[str, str]) -> Iterator[Callable[..., Nav2Sim]]:
    """Give a starter of sims serving the Nav2 actions, with ``-p`` parameters."""
    started: list[Nav2Sim] = []

    def start(*parameters: str) -> Nav2Sim:
        started.append(Nav2Sim(spawn, ros_node, nav2_env, *parameters))
        return started[-1]

    yield start
    for sim in started:
        ros_node.executor.remove_node(sim.client_node)
        for client in sim.clients.values():
            client.destroy()
        sim.client_node.destroy_node()


SUCCEEDED, CANCELED, ABORTED = 4, 5, 6


def wait_done(future: Any, timeout: float) -> bool:
    """Wait until an rclpy future (completed by the executor thread) is done."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    return done.wait(timeout)


def test_navigate_to_pose_feedback_and_result(nav2_sim: Callable[..., Nav2Sim]) -> None:
    sim = nav2_sim()
    feedback: list[Any] = []
    handle = sim.send('navigate_to_pose', sim.navigate_goal(2.0, 1.0), feedback)
    response = sim.result(handle)
    assert response.status == SUCCEEDED
    assert (response.result.error_code, response.result.error_msg) == (0, '')
    assert feedback, 'no feedback while driving'
    first, last = feedback[0], feedback[-1]
    assert first.current_pose.header.frame_id == 'map'
    assert first.distance_remaining > last.distance_remaining
    assert last.navigation_time.sec + last.navigation_time.nanosec * 1e-9 > 0.0
    assert first.estimated_time_remaining.sec >= last.estimated_time_remaining.sec
    assert abs(sim.state['x'] - 2.0) < 0.2 and abs(sim.state['y'] - 1.0) < 0.2


def test_cancel_stops_the_robot(nav2_sim: Callable[..., Nav2Sim]) -> None:
    sim = nav2_sim()
    feedback: list[Any] = []
    handle = sim.send('navigate_to_pose', sim.navigate_goal(4.0, 0.0), feedback)
    wait_for(lambda: feedback, TIMEOUT, 'the first feedback')
    cancel = wait_future(handle.cancel_goal_async(), TIMEOUT, 'the cancel response')
    assert len(cancel.goals_canceling) == 1
    response = sim.result(handle)
    assert response.status == CANCELED
    wait_for(lambda: sim.state.get('speed') == 0.0 and sim.state['nav']['target'] is None,
             TIMEOUT, 'the robot to stop')
    assert sim.state['x'] < 3.5


def test_empty_battery_aborts_with_the_reason(nav2_sim: Callable[..., Nav2Sim]) -> None:
    sim = nav2_sim('initial_battery:=0.0')
    response = sim.result(sim.send('navigate_to_pose', sim.navigate_goal(1.0, 0.0)))
    assert response.status == ABORTED
    assert (response.result.error_code, response.result.error_msg) == (9000, 'battery empty')
    dock = sim.types['dock_robot'].Goal(dock_id='home_dock')
    response = sim.result(sim.send('dock_robot', dock))
    assert response.status == ABORTED
    assert response.result.error_code == 903 and not response.result.success
    assert response.result.error_msg == 'cannot reach the dock: battery empty'


def test_dock_charge_and_undock(nav2_sim: Callable[..., Nav2Sim]) -> None:
    sim = nav2_sim('initial_battery:=0.5')
    wrong = sim.result(sim.send('dock_robot', sim.types['dock_robot'].Goal(dock_id='garage')))
    assert (wrong.status, wrong.result.error_code) == (ABORTED, 901)
    feedback: list[Any] = []
    handle = sim.send('dock_robot', sim.types['dock_robot'].Goal(dock_id='home_dock'),
                      feedback)
    response = sim.result(handle)
    assert (response.status, response.result.success) == (SUCCEEDED, True)
    assert feedback and feedback[0].state == 1  # NAV_TO_STAGING_POSE
    wait_for(lambda: sim.state.get('docked') and sim.state['power_supply'] == 'charging',
             TIMEOUT, 'the robot docked and charging')
    battery = sim.state['battery']
    wait_for(lambda: sim.state['battery'] > battery, TIMEOUT, 'the battery to charge')
    response = sim.result(sim.send('undock_robot', sim.types['undock_robot'].Goal()))
    assert (response.status, response.result.success) == (SUCCEEDED, True)
    wait_for(lambda: sim.state.get('docked') is False, TIMEOUT, 'the robot undocked')


def test_nav2_true_without_the_package_exits_2(spawn: Callable[..., SpawnedProcess]) -> None:
    skip_if_installed('nav2_msgs', children=True)
    process = spawn(SIM, '--ros-args', '-p', 'nav2:=true')  # this process's env: no package
    assert process.popen.wait(TIMEOUT) == 2
    assert ('sim_robot: nav2:=true but the Nav2 action types cannot be used: cannot import '
            "nav2_msgs.action: ModuleNotFoundError: No module named 'nav2_msgs'"
            in process.stderr_text())


@pytest.mark.slow
def test_patrol_nav2_runs_against_the_built_in_sim(nav2_env: dict[str, str],
                                                   tmp_path: pathlib.Path) -> None:
    """``bt-executive demo --nav2``: the executive runs config/patrol_nav2.yaml unchanged."""
    env = dict(os.environ)
    env.update(nav2_env)
    done = subprocess.run(
        [sys.executable, '-m', 'bt_executive.app.cli', 'demo', '--nav2', '--laps', '2',
         '--timeout', '240'], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'laps completed       2' in done.stdout, done.stdout
    dockings = re.search(r'^  dockings +(\d+)$', done.stdout, re.MULTILINE)
    assert dockings and int(dockings.group(1)) >= 1, done.stdout


@pytest.mark.slow
def test_stranded_patrol_nav2_sends_no_goal_storm(spawn: Callable[..., SpawnedProcess],
                                                  ros_node: Any,
                                                  nav2_env: dict[str, str]) -> None:
    """An empty battery: each aborted goal backs off; the stranded branch stops them."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    ns = f'/nav2storm_{uuid.uuid4().hex[:8]}'
    states: list[dict[str, Any]] = []
    statuses: list[dict[str, Any]] = []
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    ros_node.create_subscription(String, f'{ns}/sim_state',
                                 lambda msg: states.append(json.loads(msg.data)), latched)
    ros_node.create_subscription(String, f'{ns}/bt_executive/status',
                                 lambda msg: statuses.append(json.loads(msg.data)), latched)
    spawn(SIM, '--ros-args', '--params-file', str(CONFIG / 'sim_fast_drain.yaml'),
          '-p', 'nav2:=true', '-r', f'__ns:={ns}', env=nav2_env)
    spawn(EXECUTIVE, '--ros-args', '--params-file', str(CONFIG / 'executive.yaml'),
          '-r', f'__ns:={ns}', '-p', f"tree_file:={CONFIG / 'patrol_nav2.yaml'}",
          '-p', 'use_sim_time:=true', '-p', 'status_period:=0.1', env=nav2_env)

    def board() -> dict[str, Any]:
        return (statuses[-1] if statuses else {}).get('blackboard') or {}

    def context() -> str:
        return f'status: {statuses[-1:]}\nrobot: {states[-1:]}'

    wait_for(lambda: board().get('stranded'), 120.0, 'the robot stranded\n' + context())
    # the sim's latched summary may reach this node after the executive's status (the
    # battery drains in a fraction of a second of wall time, inside DDS discovery)
    wait_for(lambda: bool(states) and states[-1]['battery'] == 0.0, TIMEOUT,
             'a sim_state with the battery empty\n' + context())
    assert 'goal aborted: battery empty (error_code 9000)' in statuses[-1]['last_failure'], (
        context())
    sent = states[-1]['goals']
    assert sent <= 6, context()
    until = states[-1]['time'] + 30.0
    wait_for(lambda: states[-1]['time'] >= until, TIMEOUT, '30 s of simulated time')
    assert states[-1]['goals'] == sent, context()
    assert board().get('stranded') is True, context()
