# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive runs on when py_trees_ros_interfaces is missing or broken, and says so.

Each case starts the real ``executive`` as a subprocess with one of the TEST STAND-INS of
test/standins/ on ``PYTHONPATH`` (a package whose import raises ``AttributeError``, one
whose type support cannot be loaded: rosidl's real ``UnsupportedTypeSupport``), or with
none (not installed): the log has exactly one line about the streams, the tree ticks,
and SIGINT ends the executive with status 0 and no traceback. Also: an executive whose
construction fails part-way leaves nothing behind on its node (the class of bug that
showed as ``AttributeError: 'Executive' object has no attribute 'ticker'``).
"""

from __future__ import annotations

from collections.abc import Callable
import os
import pathlib
from typing import Any

from executive_host import write_tree
from helpers import SpawnedProcess
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 30.0
STANDINS = pathlib.Path(__file__).resolve().parents[1] / 'standins'
TREE = """
    trees:
      Main:
        Sequence root:
          - Log alive: {message: tick alive}
          - Running busy
    """


def executive_script() -> pathlib.Path:
    import bt_executive.ros.executive as module
    return pathlib.Path(module.__file__)


@pytest.mark.parametrize('standin, level, expected', [
    (None, 'INFO', 'py_trees_ros snapshot streams: off (py_trees_ros_interfaces is not '
                   'installed)'),
    ('broken_import', 'WARN', 'py_trees_ros snapshot streams: off (cannot import '
                              'py_trees_ros_interfaces: AttributeError: module '
                              "'py_trees_ros_interfaces.msg' has no attribute '_behaviour' "
                              '(test stand-in: a broken package))'),
    ('broken_typesupport', 'WARN', 'py_trees_ros snapshot streams: off '
                                   '(py_trees_ros_interfaces cannot be used: '
                                   'UnsupportedTypeSupport: Could not import '
                                   "'rosidl_typesupport_c' for package "
                                   "'py_trees_ros_interfaces')"),
])
def test_the_executive_runs_without_the_streams_and_says_why_in_one_line(
        spawn: Callable[..., SpawnedProcess], tmp_path: pathlib.Path,
        standin: Any, level: str, expected: str):
    path = [str(STANDINS / standin)] if standin else []
    path += [entry for entry in os.environ.get('PYTHONPATH', '').split(os.pathsep) if entry]
    tree = write_tree(tmp_path, 'tree.yaml', TREE)
    process = spawn(executive_script(), '--ros-args', '-p', f'tree_file:={tree}', env={
        'PYTHONPATH': os.pathsep.join(path), 'RCUTILS_LOGGING_USE_STDOUT': '1',
        'RCUTILS_CONSOLE_OUTPUT_FORMAT': '{severity}: {message}',
        'RCUTILS_COLORIZED_OUTPUT': '0'})
    process.wait_for_line('INFO: tick alive', timeout=TIMEOUT)
    assert process.stop() == 0
    lines = process.lines()
    assert [line for line in lines if 'snapshot streams' in line] == [f'{level}: {expected}']
    output = process.stdout_text() + process.stderr_text()
    assert 'Traceback' not in output
    assert "has no attribute 'ticker'" not in output


@pytest.mark.parametrize('failure', ['a part raises', 'the tree file is invalid'])
def test_a_failed_construction_leaves_no_half_built_node(
        ros_context: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path,
        failure: str):
    from bt_executive.core.errors import TreeError
    from bt_executive.ros.executive import Executive
    from rclpy.parameter import Parameter

    made: list[Executive] = []

    import bt_executive.ros.executive as module
    from bt_executive.ros.core import ExecutiveCore

    def recording(node: Any, **kwargs: Any) -> ExecutiveCore:
        made.append(node)
        return ExecutiveCore(node, **kwargs)

    monkeypatch.setattr(module, 'ExecutiveCore', recording)
    Recorded = Executive
    if failure == 'a part raises':
        def fail(self: Any, *args: Any) -> None:
            raise RuntimeError('the ticker could not be made')

        monkeypatch.setattr(ExecutiveCore, 'configure_ticking', fail)
        tree, expected = write_tree(tmp_path, 'tree.yaml', TREE), RuntimeError
    else:
        tree, expected = write_tree(tmp_path, 'bad.yaml', 'trees: {Main: {Nope: {}}}\n'), \
            TreeError
    with pytest.raises(expected):
        Recorded(namespace='/half_built', context=ros_context,
                 parameter_overrides=[Parameter('tree_file', value=tree)])
    [node] = made
    assert list(node.publishers) == [] and list(node.services) == []
    assert list(node.subscriptions) == [] and list(node.timers) == []
    node.destroy_node()  # again: nothing happens
    ros_context.try_shutdown()  # rclpy destroys the nodes it still tracks: none
