# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The README's complete ROS example runs as written against the built-in sim."""

from collections.abc import Callable
import json
import pathlib
import re
from typing import Any
import uuid

from helpers import SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (ROOT / 'README.md').read_text()
    blocks = re.findall(r'```yaml\n(.*?)```', text, flags=re.S)
    return next(block for block in blocks if block.startswith('main: Demo'))


def test_readme_ros_example_succeeds_on_the_sim(
        spawn: Callable[..., SpawnedProcess], ros_node: Any, tmp_path: pathlib.Path):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    tree = tmp_path / 'demo.yaml'
    tree.write_text(readme_example())
    namespace = f'/readme_{uuid.uuid4().hex[:8]}'
    statuses: list[dict[str, Any]] = []
    ros_node.create_subscription(
        String, f'{namespace}/bt_executive/status',
        lambda msg: statuses.append(json.loads(msg.data)),
        QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                   durability=DurabilityPolicy.TRANSIENT_LOCAL))
    spawn(ROOT / 'bt_executive' / 'sim' / 'robot.py', '--ros-args', '--params-file',
          str(ROOT / 'config' / 'sim_robot.yaml'), '-r', f'__ns:={namespace}')
    spawn(ROOT / 'bt_executive' / 'ros' / 'executive.py', '--ros-args',
          '-r', f'__ns:={namespace}', '-p', f'tree_file:={tree}', '-p', 'use_sim_time:=true')
    try:
        wait_for(lambda: any(s['root_status'] == 'SUCCESS' for s in statuses), 60.0,
                 'the example to succeed')
    except AssertionError as error:
        raise AssertionError(f'{error}; last status: {statuses[-1:]}') from None
    failures = [s['last_failure'] for s in statuses if s['root_status'] == 'FAILURE']
    assert not failures, failures
