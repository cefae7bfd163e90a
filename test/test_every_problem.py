# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""One run reports every independent problem of a file, each where the user wrote it.

Stages used to stop at the first that found something (the YAML reader at its first
unreadable number, ``validate`` before building once the loader had errors), so problems
came in rounds. And a reason keeps the user's text: a YAML syntax error is reported where
the mistake is, not where PyYAML noticed it; a Condition built with tree arguments says
what it compared. The ROS side of the same promises: test/ros/test_validate_ros.py.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

from bt_executive.core.builder import BuildContext, Builder
from bt_executive.core.errors import ParameterError, TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.nodes.catalogue import default_registry
from cli_process import run_cli
import py_trees
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load_errors(text: str, registry: Registry | None = None) -> list[str]:
    with pytest.raises(TreeError) as caught:
        Loader(registry or default_registry()).load_text(textwrap.dedent(text), name='t.yaml')
    return [str(diagnostic) for diagnostic in caught.value.diagnostics]


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    return run_cli(*args, timeout=120, env=env)


def write(tmp_path: pathlib.Path, text: str) -> str:
    path = tmp_path / 't.yaml'
    path.write_text(textwrap.dedent(text))
    return str(path)


# ---- values the YAML reader cannot read -------------------------------------------------

OUT_OF_RANGE = ("number '1e400' is out of range: beyond the largest 64-bit float (1.8e308); "
                'write .inf or -.inf for infinity')


def test_every_number_out_of_range_and_every_infinity_is_reported_at_once():
    assert load_errors("""
        trees:
          Main:
            Sequence:
              - Wait: 1e400
              - Wait: .inf
              - Wait: {seconds: 1e400}
        """) == [
        f't.yaml:5:15: {OUT_OF_RANGE}',
        "t.yaml:6:15: Main/Sequence/Wait#2: parameter 'seconds': expected a finite number, "
        'got .inf',
        f't.yaml:7:25: {OUT_OF_RANGE}']


def test_an_unreadable_value_does_not_hide_the_loader_errors_around_it():
    assert load_errors("""
        blackboard: {limit: 1e400, ok: 1}
        trees:
          Main:
            Sequence:
              - Sequense:
              - Retry: {attempts: 1e400, Success: }
              - Wait: {seconds: 1, second: 2}
        """) == [
        f't.yaml:2:21: {OUT_OF_RANGE}',
        "t.yaml:6:9: Main/Sequence/Sequense: unknown node type 'Sequense' (did you mean "
        "'Sequence'?) (run 'bt-executive nodes' for the catalogue)",
        f't.yaml:7:27: {OUT_OF_RANGE}',
        "t.yaml:8:28: Main/Sequence/Wait: unknown parameter 'second' for Wait (did you mean "
        "'seconds'?) (expected: seconds)"]


def test_a_duplicate_key_does_not_hide_the_rest_of_the_file():
    assert load_errors("""
        trees:
          Main:
            Wait: {seconds: 1, seconds: 2}
          Other:
            Wiat: 1
        """) == [
        "t.yaml:4:24: duplicate key 'seconds' (first at line 4)",
        "t.yaml:6:5: Other/Wiat: unknown node type 'Wiat' (did you mean 'Wait'?) (run "
        "'bt-executive nodes' for the catalogue)"]


# ---- validate builds what the errors leave whole -----------------------------------------

def test_validate_also_reports_the_build_problems_of_trees_without_errors(tmp_path):
    path = write(tmp_path, """
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree: Broken
              - Subtree: Folded
          Broken:
            Wiat: 1
          Folded:
            Log: '${1 / 0}'
        """)
    result = cli('validate', path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{path}:9:5: Broken/Wiat: unknown node type 'Wiat' (did you mean 'Wait'?) (run "
        "'bt-executive nodes' for the catalogue)",
        f"{path}:11:10: Folded/Log: bad expression '1 / 0': division by zero in '/' (it "
        'reads no blackboard key, so it is evaluated when the tree is built)',
        f'{path}: 2 errors']


# ---- a factory's problems at the parameter -------------------------------------------------

def _picky_registry() -> Registry:
    def factory(ctx: Any, name: str, params: Any, children: list) -> Any:
        raise ParameterError([('low', 'low must be below high'),
                              ('high', 'high must be above low'), ('unset', 'unset too')])

    registry = default_registry()
    registry.register(NodeType(
        'Picky', Category.LEAF, 'refuses its parameters',
        params=(Param('low', ParamType.FLOAT, 'a bound', default=0.0),
                Param('high', ParamType.FLOAT, 'a bound', default=0.0),
                Param('unset', ParamType.FLOAT, 'never set', default=0.0)),
        factory=factory))
    return registry


def test_a_factory_s_parameter_errors_are_located_at_each_parameter():
    registry = _picky_registry()
    document = Loader(registry).load_text(
        'trees:\n  Main:\n    Picky:\n      low: 2\n      high: 1\n', name='t.yaml')
    with pytest.raises(TreeError) as caught:
        Builder(BuildContext(registry=registry, document=document)).build()
    assert [str(d) for d in caught.value.diagnostics] == [
        't.yaml:4:12: Main/Picky: cannot build Picky: low must be below high',
        't.yaml:5:13: Main/Picky: cannot build Picky: high must be above low',
        't.yaml:3:5: Main/Picky: cannot build Picky: unset too']


class _MultiLineSetup(py_trees.behaviour.Behaviour):
    def update(self) -> py_trees.common.Status:
        return py_trees.common.Status.SUCCESS

    def setup(self, **kwargs: Any) -> None:
        raise ValueError("Invalid service name: must not contain repeated '/':\n"
                         "  '/dock//now'\n        ^")


def test_a_setup_error_of_several_lines_is_reported_on_one_line():
    registry = default_registry()
    registry.register(NodeType(
        'Dock', Category.LEAF, 'raises a multi-line error from setup()',
        factory=lambda ctx, name, params, children: _MultiLineSetup(name)))
    document = Loader(registry).load_text('trees:\n  Main:\n    Dock:\n', name='t.yaml')
    built = Builder(BuildContext(registry=registry, document=document)).build()
    with pytest.raises(TreeError) as caught:
        built.setup('t.yaml')
    assert [str(d) for d in caught.value.diagnostics] == [
        't.yaml:3:5: Main/Dock: cannot set up Dock: Invalid service name: must not contain '
        "repeated '/': '/dock//now'"]


# ---- YAML syntax errors where the mistake is -----------------------------------------------

@pytest.mark.parametrize('text, where, message', [
    # a child without its ':' before a key on the next line (issue: reported at 16:3)
    ('trees:\n  Main:\n    Selector:\n      - Success\n      Running work\n'
     '  Dock:\n    Success:\n', '5:7',
     "could not find expected ':' (while scanning a simple key)"),
    ('trees:\n  Main:\n    Parallel:\n      policy: all\n      Running work\n'
     '      children: [Success]\n', '5:7',
     "could not find expected ':' (while scanning a simple key)"),
    # ... before a node key: PyYAML reads the two lines as one text
    ('trees:\n  Main:\n    Selector:\n      Running work\n      Success:\n', '4:7',
     "the text here runs on to line 5, where a ':' is not allowed: a ':' missing here, or "
     'line 5 indented too deep?'),
    # a quote never closed: at the quote, not at the end of the file
    ("trees:\n  Main:\n    Sequence:\n      - Log: 'unclosed\n      - Success\n", '4:14',
     'found unexpected end of stream (while scanning a quoted scalar)'),
    # a bracket never closed: found later, and the message says where it opened
    ('trees:\n  Main:\n    Sequence: [Success, Running\n  Other:\n    Success:\n', '4:8',
     "did not find expected ',' or ']' (while parsing a flow sequence at line 3, "
     'column 15)'),
])
def test_a_yaml_syntax_error_is_reported_where_the_mistake_is(text, where, message):
    assert load_errors(text) == [f't.yaml:{where}: YAML syntax error: {message}']


# ---- a Condition built with tree arguments says what it compared ---------------------------

@pytest.mark.parametrize('text, reason', [
    ("""
        trees:
          Main:
            params: {speed: 2.0, limit: 1.5}
            root:
              Condition: speed <= limit
        """, 'speed <= limit: 2.0 <= 1.5 is false'),
    ("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Check, speed: 2.0, limit: 1.5}
          Check:
            params: {speed: null, limit: null}
            root:
              Condition: speed <= limit
        """, 'speed <= limit: 2.0 <= 1.5 is false'),
    ("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Check, mode: idle, ready: true}
          Check:
            params: {mode: null, ready: null}
            root:
              Condition: ready and mode == 'docked'
        """, "ready and mode == 'docked': true and 'idle' == 'docked' is false"),
    ("""
        main: Main
        blackboard: {speed: 2.0}
        trees:
          Main:
            Subtree: {tree: Check, limit: 1.5}
          Check:
            params: {limit: null}
            root:
              Condition: speed <= limit
        """, 'speed <= limit: speed <= 1.5 is false'),
])
def test_a_condition_with_tree_arguments_says_what_it_compared(tmp_path, text, reason):
    result = cli('tick', write(tmp_path, text), '--ticks', '1')
    assert result.returncode == 0, result.stderr
    assert f'\u2718 Condition \u2014 {reason}' in result.stdout, result.stdout


def test_a_condition_as_written_keeps_its_short_reason(tmp_path):
    path = write(tmp_path, 'blackboard: {x: 1}\ntrees:\n  Main:\n    Condition: x > 5\n')
    result = cli('tick', path, '--ticks', '1')
    assert '\u2718 Condition \u2014 x > 5 is false' in result.stdout, result.stdout
