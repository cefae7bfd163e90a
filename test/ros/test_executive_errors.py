# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's errors: located, one line each, never a traceback; ``--help`` starts no node.

The command-line cases run the real ``executive`` entry point as a subprocess; the swap
cases run it in-process (``executive_host.Host``), with a catalogue holding a leaf whose
setup raises.
"""

from __future__ import annotations

from collections.abc import Callable
import pathlib
from typing import Any
import uuid

from bt_executive.core.registry import Category, NodeType
from executive_host import Host, write_tree
from helpers import SpawnedProcess
import py_trees
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 30.0
FOLDED = '(it reads no blackboard key, so it is evaluated when the tree is built)'


def executive_script() -> pathlib.Path:
    import bt_executive.ros.executive as module
    return pathlib.Path(module.__file__)


def run_executive(spawn: Callable[..., SpawnedProcess], *args: str) -> tuple[int, str, str]:
    """Run the executive with ``args`` until it exits; return status, stdout, stderr."""
    process = spawn(executive_script(), *args)
    code = process.popen.wait(TIMEOUT)
    return code, process.stdout_text(), process.stderr_text()


def test_help_prints_the_parameters_and_starts_no_node(spawn: Callable[..., SpawnedProcess]):
    from bt_executive.ros.parameters import PARAMETERS

    code, out, err = run_executive(spawn, '--help')
    assert code == 0, err
    assert out.startswith('usage: executive [-h] [--ros-args -p NAME:=VALUE ...')
    assert '--ros-args -p tree_file:=' in out
    for name in PARAMETERS:
        assert f'\n  {name} ' in out, name
    assert err == ''  # no node: nothing logged (a node would log 'no tree_file ...')


def test_help_and_readme_give_the_same_exit_statuses(spawn: Callable[..., SpawnedProcess]):
    from bt_executive.ros.exit_guard import GUARD_MARGIN
    from bt_executive.ros.usage import HUNG_EXIT
    from bt_executive.ros.watchdog import CLEANUP_TIMEOUT

    code, out, err = run_executive(spawn, '--help')
    assert code == 0, err
    assert 'exit status: 0 after a stop by SIGINT, SIGTERM or SIGHUP' in out
    assert HUNG_EXIT in out and '128' not in out
    readme = ' '.join((pathlib.Path(__file__).parents[2] / 'README.md').read_text().split())
    assert 'and exits with status 0, as ROS nodes do' in readme  # a signal: a clean stop
    assert f'`shutdown_timeout` + {CLEANUP_TIMEOUT:g} s after the signal' in readme
    assert f'within `shutdown_timeout` + {CLEANUP_TIMEOUT + GUARD_MARGIN:g} s' in readme
    assert 'exit status -9 in `ros2 launch` (137 in a shell)' in readme


def test_an_invalid_tree_at_start_exits_one_with_located_errors(
        spawn: Callable[..., SpawnedProcess], tmp_path: pathlib.Path):
    (tmp_path / 'adir').mkdir()
    tree = write_tree(tmp_path, 'bad.yaml', """
        include: adir
        trees:
          Main:
            Sequence:
              - Log: '${"count " + 1}'
              - Wait: '${1 / 0}'
        """)
    code, _, err = run_executive(spawn, '--ros-args', '-p', f'tree_file:={tree}',
                                 '-r', f'__ns:=/ex_{uuid.uuid4().hex[:8]}')
    assert code == 1, err
    assert 'Traceback' not in err
    assert f"{tree}:2:10: included file '{tmp_path}/adir': is a directory, expected a " \
        'YAML file' in err.splitlines()


def test_an_unevaluable_constant_at_start_exits_one_with_located_errors(
        spawn: Callable[..., SpawnedProcess], tmp_path: pathlib.Path):
    tree = write_tree(tmp_path, 'bad.yaml', """
        trees:
          Main:
            Sequence:
              - Log: '${"count " + 1}'
              - Wait: '${min()}'
        """)
    code, _, err = run_executive(spawn, '--ros-args', '-p', f'tree_file:={tree}',
                                 '-r', f'__ns:=/ex_{uuid.uuid4().hex[:8]}')
    assert code == 1, err
    assert 'Traceback' not in err
    lines = err.splitlines()
    assert f"{tree}:5:14: Main/Sequence/Log: bad expression '\"count \" + 1': cannot add " \
        f'str and int {FOLDED}' in lines
    assert f"{tree}:6:15: Main/Sequence/Wait: bad expression 'min()': min() failed: min " \
        f'expected at least 1 argument, got 0 {FOLDED}' in lines


@pytest.mark.parametrize('parameter, message', [
    ('tick_rate:=abc', "Trying to set parameter 'tick_rate' to 'abc' of type 'STRING', "
                       "expecting type 'DOUBLE'"),
    ('tick_rate:=5000.0', 'Parameter tick_rate out of range'),
    ('tree_file:=5', "Trying to set parameter 'tree_file' to '5' of type 'INTEGER'"),
])
def test_a_parameter_of_the_wrong_type_exits_two_without_a_traceback(
        spawn: Callable[..., SpawnedProcess], parameter: str, message: str):
    code, _, err = run_executive(spawn, '--ros-args', '-p', parameter,
                                 '-r', f'__ns:=/ex_{uuid.uuid4().hex[:8]}')
    assert code == 2, err
    assert 'Traceback' not in err
    assert err.startswith('executive: ') and message in err, err
    assert err.rstrip().endswith('(executive --help lists the parameters)'), err


class _NoDevice(py_trees.behaviour.Behaviour):
    def setup(self, **kwargs: Any) -> None:
        raise OSError(19, 'No such device', '/dev/robot')

    def update(self) -> py_trees.common.Status:
        return py_trees.common.Status.SUCCESS


def test_a_swap_rejected_by_setup_or_folding_names_file_line_and_node(tmp_path: pathlib.Path):
    from bt_executive.ros.executive import ros_registry

    registry = ros_registry()
    registry.register(NodeType('NoDevice', Category.LEAF, 'its setup raises',
                               factory=lambda ctx, name, params, children: _NoDevice(name)))
    good = write_tree(tmp_path, 'good.yaml', 'trees:\n  Main:\n    Running:\n')
    device = write_tree(tmp_path, 'device.yaml', """
        trees:
          Main:
            Sequence:
              - Success
              - NoDevice arm:
        """)
    constant = write_tree(tmp_path, 'constant.yaml', """
        trees:
          Main:
            Log: '${"count " + 1}'
        """)
    ex = Host(good, registry=registry)
    try:
        result = ex.set_tree(tree_file=device)
        assert not result.successful
        assert result.reason == f'{device}:6:9: Main/Sequence/arm: cannot set up NoDevice: ' \
            "[Errno 19] No such device: '/dev/robot'"
        result = ex.set_tree(tree_file=constant)
        assert not result.successful
        assert result.reason == f"{constant}:4:10: Main/Log: bad expression '\"count \" + " \
            f"1': cannot add str and int {FOLDED}"
        assert ex.executive.tree.file == good  # the running tree is untouched
    finally:
        ex.close()
