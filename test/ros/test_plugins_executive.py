# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive runs plugin node types: the example package of docs/plugins.md, for real.

``plugin_package`` builds the package from the page and makes its egg-info (the entry
point); the executive is a subprocess with the package on PYTHONPATH, as after ``pip
install`` or ``colcon build``. The hand-written launcher of the page runs without the
entry point and must keep the executive's safe stop: the goal cancelled, exit 0.
"""

from collections.abc import Callable
import pathlib
import signal
import threading
import time
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import collect_json, PeerEvents, SpawnedProcess, wait_event, wait_for
from plugin_package import build_package, Package, write_plugin
import pytest

pytestmark = pytest.mark.ros

EXECUTIVE = pathlib.Path(__file__).resolve().parents[2] / 'bt_executive' / 'ros' / 'executive.py'
TIMEOUT = 20.0


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


@pytest.fixture(scope='module')
def package(tmp_path_factory: pytest.TempPathFactory) -> Package:
    return build_package(tmp_path_factory.mktemp('docs'))


def listen(node: Any, topic: str) -> tuple[list[str], threading.Event]:
    """Subscribe to a std_msgs/String topic; return what arrives and an event set on it."""
    from std_msgs.msg import String

    received: list[str] = []
    arrived = threading.Event()

    def on_message(msg: Any) -> None:
        received.append(msg.data)
        arrived.set()
    node.create_subscription(String, topic, on_message, 10)
    return received, arrived


def test_the_executive_ticks_the_plugin_leaves_of_an_installed_package(
        spawn: Callable[..., SpawnedProcess], package: Package, tmp_path: pathlib.Path,
        ros_node: Any) -> None:
    broken = write_plugin(tmp_path / 'broken', 'broken_bt',
                          {'missing': 'broken_bt_nodes:node_types'}, {})
    namespace = f'/{unique("plugins")}'
    said, arrived = listen(ros_node, f'{namespace}/say')
    statuses = collect_json(ros_node, f'{namespace}/bt_executive/status')
    executive = spawn(EXECUTIVE, '--ros-args',
                      '-p', f'tree_file:={package.path / "trees" / "launch.yaml"}',
                      '-p', "status_keys:=['countdown']", '-r', f'__ns:={namespace}',
                      env=package.env(broken))
    wait_event(arrived, TIMEOUT, f'the Say leaf publishing on {namespace}/say')
    assert said[0] == 'hello'  # Say ran after Countdown succeeded, reading $greeting
    status = wait_for(lambda: next((s for s in statuses
                                    if 'countdown' in s['blackboard']), None),
                      TIMEOUT, "a ~/status with Countdown's blackboard key")
    assert status['tree'] == 'Launch' and status['blackboard']['countdown'] in (0, 1, 2)
    executive.popen.send_signal(signal.SIGTERM)
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()  # a clean stop
    stderr = executive.stderr_text()
    assert "plugin 'missing' (broken_bt_nodes:node_types from broken_bt 1.0): cannot import" \
        in stderr, stderr  # logged by the executive, which ran on
    assert 'Traceback' not in stderr, stderr


def test_a_hand_written_launcher_keeps_the_safe_stop(
        spawn: Callable[..., SpawnedProcess], package: Package, tmp_path: pathlib.Path,
        ros_node: Any) -> None:
    server = unique('fib')
    spawn(PEERS / 'fibonacci_server.py', server, 'slow').wait_for_line(
        'READY', timeout=TIMEOUT)
    events = PeerEvents(ros_node, f'/{server}/events')
    events.wait_for_name('ready', timeout=TIMEOUT)
    tree = write_tree(tmp_path, 'move.yaml', f"""
        trees:
          Main:
            Sequence:
              - Countdown: 1
              - Action move: {{type: test_msgs/action/Fibonacci, server: /{server},
                              goal: {{order: 5}}, server_timeout: 10.0}}
        """)
    plain = package.env(entry_point=False)  # the module, but no entry point installed
    without = spawn(EXECUTIVE, '--ros-args', '-p', f'tree_file:={tree}',
                    '-r', f'__ns:=/{unique("ex")}', env=plain)
    assert without.popen.wait(TIMEOUT) == 1, without.stderr_text()
    assert "unknown node type 'Countdown'" in without.stderr_text()
    launcher = spawn(package.plain() / 'my_robot_bt' / 'launcher.py', '--ros-args',
                     '-p', f'tree_file:={tree}', '-r', f'__ns:=/{unique("ex")}', env=plain)
    accepted = events.wait_for_name('goal_accepted', order=5, timeout=TIMEOUT)
    launcher.popen.send_signal(signal.SIGINT)
    assert launcher.popen.wait(TIMEOUT) == 0, launcher.stderr_text()  # a clean stop
    exited_at = time.time()
    cancelled = events.wait_for_name('cancel_accepted', goal_id=accepted['goal_id'],
                                     timeout=TIMEOUT)
    assert cancelled['time'] <= exited_at, 'the launcher exited before the cancel was done'
    finished = events.wait_for_name('finished', goal_id=accepted['goal_id'], timeout=TIMEOUT)
    assert finished['status'] == 'canceled', finished
