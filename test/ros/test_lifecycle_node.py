# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The lifecycle executive in-process: what each state allows, failed transitions, --help.

The transitions are triggered from the test thread (``trigger_configure()`` ...), outside
any spin, so each runs to its end before the next line. The cross-process behaviour
(``~/change_state``, goal cancels awaited, exit statuses) is in test_lifecycle.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import pathlib
from typing import Any
import uuid

from executive_host import write_tree
from helpers import SpawnedProcess
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 30.0
RUNNING = """
    trees:
      {name}:
        Running: {{}}
    """


@pytest.fixture
def managed(tmp_path: pathlib.Path) -> Iterator[Callable[..., Any]]:
    """Give a starter of in-process lifecycle executives (tree file, then parameters)."""
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter

    from bt_executive.ros.lifecycle import LifecycleExecutive

    made: list[tuple[Any, Any]] = []

    def start(tree_file: str, **parameters: Any) -> LifecycleExecutive:
        context = Context()
        rclpy.init(context=context)
        overrides = [Parameter('tree_file', value=tree_file)]
        overrides += [Parameter(k, value=v) for k, v in parameters.items()]
        executive = LifecycleExecutive(namespace=f'/life_{uuid.uuid4().hex[:8]}',
                                       parameter_overrides=overrides, context=context)
        made.append((executive, context))
        return executive

    yield start
    for executive, context in made:
        executive.destroy_node()
        context.try_shutdown()


def tree(tmp_path: pathlib.Path, name: str) -> str:
    return write_tree(tmp_path, f'{name}.yaml', RUNNING.format(name=name))


def set_parameter(executive: Any, name: str, value: Any) -> Any:
    from rclpy.parameter import Parameter

    return executive.set_parameters([Parameter(name, value=value)])[0]


def test_configure_loads_the_tree_and_nothing_ticks_until_activate(managed, tmp_path):
    from rclpy.lifecycle import TransitionCallbackReturn

    executive = managed(tree(tmp_path, 'First'))
    assert executive.host.tree is None
    assert executive.status()['lifecycle_state'] == 'unconfigured'
    assert executive.trigger_configure() == TransitionCallbackReturn.SUCCESS
    status = executive.status()
    assert status['tree'] == 'First' and status['lifecycle_state'] == 'inactive'
    assert not executive.running and executive.tick_once() is None
    assert executive.trigger_activate() == TransitionCallbackReturn.SUCCESS
    assert executive.running and executive.tick_once() is not None
    assert executive.trigger_deactivate() == TransitionCallbackReturn.SUCCESS
    assert not executive.running and executive.tick_once() is None
    assert executive.host.tree is not None  # kept for the next activation
    assert executive.trigger_cleanup() == TransitionCallbackReturn.SUCCESS
    assert executive.host.tree is None and executive.status()['tree'] is None


def test_tree_file_set_while_unconfigured_is_loaded_by_configure(managed, tmp_path):
    from rclpy.lifecycle import TransitionCallbackReturn

    executive = managed(tree(tmp_path, 'First'))
    assert set_parameter(executive, 'tree_file', tree(tmp_path, 'Second')).successful
    assert executive.host.tree is None  # recorded, not loaded
    assert set_parameter(executive, 'tree_file', str(tmp_path / 'missing.yaml')).successful
    assert executive.trigger_configure() == TransitionCallbackReturn.FAILURE
    assert 'missing.yaml' in executive.status()['lifecycle_error']
    assert set_parameter(executive, 'tree_file', tree(tmp_path, 'Second')).successful
    assert executive.trigger_configure() == TransitionCallbackReturn.SUCCESS
    assert executive.status()['tree'] == 'Second'


def test_a_swap_while_inactive_waits_for_activation(managed, tmp_path):
    from rclpy.lifecycle import TransitionCallbackReturn

    executive = managed(tree(tmp_path, 'First'))
    assert executive.trigger_configure() == TransitionCallbackReturn.SUCCESS
    bad = write_tree(tmp_path, 'bad.yaml', 'trees:\n  Main:\n    Sequense: []\n')
    rejected = set_parameter(executive, 'tree_file', bad)
    assert not rejected.successful and f'{bad}:3:5' in rejected.reason
    assert executive.status()['tree'] == 'First'
    assert set_parameter(executive, 'tree_file', tree(tmp_path, 'Second')).successful
    assert executive.status()['tree'] == 'Second' and not executive.running
    assert executive.tick_once() is None
    assert executive.trigger_activate() == TransitionCallbackReturn.SUCCESS
    assert executive.tick_once() is not None


def test_the_trigger_services_answer_by_state(managed, tmp_path):
    from bt_executive.core.errors import TreeError

    executive = managed(tree(tmp_path, 'First'))
    for call in (executive.pause, executive.resume, executive.reset, executive.reload):
        with pytest.raises(TreeError, match='the executive is unconfigured'):
            call()
    executive.trigger_configure()
    assert executive.reload().startswith('reloaded ')
    assert not executive.running  # reloaded while inactive: still waits
    for call in (executive.pause, executive.resume, executive.reset):
        with pytest.raises(TreeError, match='is inactive: ~/.* works only when active'):
            call()
    executive.trigger_activate()
    assert executive.pause().startswith('paused') and not executive.running
    assert executive.resume() == 'resumed' and executive.running


def test_an_empty_tree_file_fails_configure(managed):
    from rclpy.lifecycle import TransitionCallbackReturn

    executive = managed('')
    assert executive.trigger_configure() == TransitionCallbackReturn.FAILURE
    assert 'the tree_file parameter is empty' in executive.status()['lifecycle_error']
    assert executive.lifecycle_state() == 'unconfigured'


def test_a_transition_that_raises_goes_back_to_unconfigured(managed, tmp_path, monkeypatch):
    from rclpy.lifecycle import TransitionCallbackReturn

    executive = managed(tree(tmp_path, 'First'))

    def broken(*args: Any) -> None:
        raise RuntimeError('disk on fire')

    monkeypatch.setattr(executive, 'load', broken)
    assert executive.trigger_configure() == TransitionCallbackReturn.ERROR
    assert executive.lifecycle_state() == 'unconfigured'
    status = executive.status()
    assert status['lifecycle_state'] == 'unconfigured'
    assert status['lifecycle_error'] == 'configure raised RuntimeError: disk on fire'
    monkeypatch.undo()
    assert executive.trigger_configure() == TransitionCallbackReturn.SUCCESS


def lifecycle_script() -> pathlib.Path:
    import bt_executive.ros.lifecycle as module
    return pathlib.Path(module.__file__)


def test_help_prints_the_parameters_and_starts_no_node(spawn: Callable[..., SpawnedProcess]):
    process = spawn(lifecycle_script(), '--help')
    assert process.popen.wait(TIMEOUT) == 0, process.stderr_text()
    out = process.stdout_text()
    assert out.startswith('usage: lifecycle_executive [-h]')
    assert 'bond_timeout: 0.0' in out and '\n  shutdown_timeout ' in out
    assert process.stderr_text() == ''


def test_a_parameter_of_the_wrong_type_exits_two(spawn: Callable[..., SpawnedProcess]):
    process = spawn(lifecycle_script(), '--ros-args', '-p', 'tick_rate:=abc',
                    '-r', f'__ns:=/life_{uuid.uuid4().hex[:8]}')
    assert process.popen.wait(TIMEOUT) == 2
    err = process.stderr_text()
    assert err.startswith('lifecycle_executive: ') and 'Traceback' not in err, err
