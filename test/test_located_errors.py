# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Every load error is located, bounded and raised as a TreeError, whatever stage finds it.

The stages: reading files (includes), the loader, the builder (constant folding, subtree
argument substitution and binding, subtree targets) and setting the leaves up; the
command line turns each into ``file:line:col: node path: what was expected`` and exit 1.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import textwrap
import time
from typing import Any

from bt_executive.core.builder import BuildContext, Builder
from bt_executive.core.errors import clip, excerpt, printable, TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.nodes.catalogue import default_registry
from cli_process import run_cli
import py_trees
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def errors_of(text: str, *, registry: Registry | None = None, setup: bool = False,
              **setup_args: Any) -> list[str]:
    """Load ``text`` as t.yaml, build its main tree (and set it up); return the errors."""
    registry = registry or default_registry()
    with pytest.raises(TreeError) as caught:
        document = Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')
        built = Builder(BuildContext(registry=registry, document=document)).build()
        if setup:
            built.setup('t.yaml', **setup_args)
    return [str(diagnostic) for diagnostic in caught.value.diagnostics]


def cli(*args: str, cwd: Any = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), os.environ.get('PYTHONPATH', '')]))
    return run_cli(*args, timeout=120, cwd=cwd, env=env)


# ---- constant expressions ------------------------------------------------------------

FOLDED = '(it reads no blackboard key, so it is evaluated when the tree is built)'


@pytest.mark.parametrize('value, column, message', [
    ('\'${"count " + 1}\'', 10, 'bad expression \'"count " + 1\': cannot add str and int'),
    ("'${1 / 0}'", 10, "bad expression '1 / 0': division by zero in '/'"),
    ("'${int(\"x\")}'", 10, "bad expression 'int(\"x\")': int() failed: invalid literal for "
     "int() with base 10: 'x'"),
    ("'${min()}'", 10, "bad expression 'min()': min() failed: min expected at least 1 "
     'argument, got 0'),
    ("{message: {nested: ['${[1][5]}']}}", 30, "bad expression '[1][5]': index 5 is out of "
     'range for list of length 1'),
])
def test_a_constant_expression_that_cannot_be_evaluated_is_a_located_error(
        value: str, column: int, message: str):
    assert errors_of(f"""
        trees:
          Main:
            Log: {value}
        """) == [f't.yaml:4:{column}: Main/Log: {message} {FOLDED}']


def test_constant_conditions_and_typed_parameters_are_checked_as_well():
    assert errors_of("""
        trees:
          Main:
            Sequence:
              - Condition: int('x') > 1
              - Wait: '${"a" * 2}'
              - Wait: '${0 - 1}'
        """) == [
        "t.yaml:5:20: Main/Sequence/Condition: bad expression 'int('x') > 1': int() failed: "
        f"invalid literal for int() with base 10: 'x' {FOLDED}",
        "t.yaml:6:15: Main/Sequence/Wait: bad expression '\"a\" * 2': '*' needs two "
        f'numbers, got str and int {FOLDED}',
        "t.yaml:7:15: Main/Sequence/Wait#2: parameter 'seconds': expected a value >= 0, "
        'got -1']


def test_a_subtree_argument_that_cannot_be_evaluated_names_the_call():
    assert errors_of("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Called, n: '${[1][5]}'}
          Called:
            params: {n: null}
            root:
              Retry: {attempts: $n, Success: }
        """) == [
        "t.yaml:9:25: Main/Subtree/Called/Retry: bad expression '[1][5]': index 5 is out of "
        f'range for list of length 1 {FOLDED} (argument from the call at t.yaml:5:5)']


def test_an_argument_no_expression_can_hold_is_a_located_error():
    assert errors_of("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Called, n: .inf}
          Called:
            params: {n: null}
            root:
              Wait: $n
        """) == ["t.yaml:5:32: Main/Subtree: argument 'n': numbers passed to a tree must be "
                 'finite (not .inf or .nan)']


def test_arguments_nested_too_deeply_through_subtrees_are_a_located_error():
    lines = ['main: T0', 'trees:']
    for level in range(20):
        lines += [f'  T{level}:', '    params: {p: 1}', '    root:']
        lines.append(f"      Subtree: {{tree: T{level + 1}, p: '${{[[[[[[[[p]]]]]]]]}}'}}"
                     if level < 19 else '      Condition: p != 0')
    errors = errors_of('\n'.join(lines) + '\n')
    assert len(errors) == 1
    assert errors[0].startswith('t.yaml:70:31: T0/Subtree/T1/Subtree/')
    assert errors[0].endswith(": cannot pass the tree arguments into '${[[[[[[[[p]]]]]]]]}': "
                              'substitution would nest the expression more than 128 levels '
                              'deep (argument from the call at t.yaml:66:7)')


def chain(trees: int, nesting: int, *, calls: int = 1) -> str:
    """Return a file whose trees call the next one ``calls`` times, under ``nesting`` levels."""
    lines = ['main: T0', 'trees:']
    for level in range(trees):
        node = '{Success: }'
        if level + 1 < trees:
            node = '{Sequence: [%s]}' % ', '.join([f'{{Subtree: T{level + 1}}}'] * calls)
        for _ in range(nesting):
            node = '{Inverter: ' + node + '}'
        lines.append(f'  T{level}: {node}')
    return '\n'.join(lines) + '\n'


def test_a_tree_too_deep_or_too_large_once_expanded_is_a_located_error(
        tmp_path: pathlib.Path):
    deep = errors_of(chain(30, 40))  # each level fine, 1200 levels once expanded
    assert len(deep) == 1
    assert deep[0].startswith('t.yaml:9:') and deep[0].endswith(
        '/Inverter: the tree nests deeper than 256 levels once its subtrees are expanded')
    wide = errors_of(chain(25, 0, calls=2))  # 2 ** 25 leaves once expanded
    assert len(wide) == 1 and wide[0].endswith(
        ': the tree has more than 100000 nodes once its subtrees are expanded'), wide
    (tmp_path / 'deep.yaml').write_text(chain(30, 40))
    (tmp_path / 'wide.yaml').write_text(chain(25, 0, calls=2))
    for name, problem in (('deep.yaml', 'nests deeper than 256 levels'),
                          ('wide.yaml', 'has more than 10000 nodes')):
        result = cli('render', name, '--expand', '--format', 'dot', cwd=tmp_path)
        assert result.returncode == 1 and 'Traceback' not in result.stderr, result.stderr
        assert f'the tree {problem} once its subtrees are expanded (draw it without ' \
            '--expand)' in result.stderr.splitlines()[0]
        assert cli('render', name, '--format', 'dot', cwd=tmp_path).returncode == 0


def test_a_tree_argument_naming_no_tree_is_a_located_error():
    assert errors_of("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Called, which: Nope}
          Called:
            params: {which: null}
            root:
              Subtree: {tree: $which}
        """) == ["t.yaml:9:23: Main/Subtree/Called/Subtree: unknown tree 'Nope' (trees: "
                 'Called, Main) (argument from the call at t.yaml:5:5)']


# ---- long and hostile source text ------------------------------------------------------

def test_a_long_bad_expression_is_quoted_around_the_problem():
    text = 'x + ' * 300 + '(' + ' + x' * 2000
    errors = errors_of(f"""
        trees:
          Main:
            Condition: "{text}"
        """)
    assert len(errors) == 1 and len(errors[0]) < 300, errors
    assert errors[0].startswith('t.yaml:4:2017: Main/Condition: bad expression '
                                "'\u2026x + x + x")
    assert f"\u2026 ({len(text)} characters)': expression is too long" in errors[0]


@pytest.mark.parametrize('expression, problem', [
    ('f' * 1900 + '(1)', "unknown function 'fffffffffffffffffffffffffffffffffffff...' "
                         '(known: abs, bool, clamp, float, int, len, max, min, round, str)'),
    ('1' * 1900 + 'e', "invalid number '1111111111111111111111111111111111111...'"),
])
def test_a_long_token_is_cut_in_the_parser_message(expression: str, problem: str):
    errors = errors_of(f"""
        trees:
          Main:
            Condition: "{expression}"
        """)
    assert len(errors) == 1 and len(errors[0]) < 400, errors
    assert errors[0].endswith(f"characters)': {problem}")


def test_a_long_unknown_type_or_key_is_not_echoed_in_full():
    long_type = 'Wiat' + 'x' * 10_000  # YAML implicit keys stop at 1024 characters
    errors = errors_of(f"""
        trees:
          Main:
            Sequence:
              - {{type: {long_type}}}
              - Wait:
                  seconds: 1
                  ? {'s' * 10_000}
                  : 2
        """)
    assert len(errors) == 2
    assert all(len(error) < 700 for error in errors), [len(error) for error in errors]
    assert "unknown node type 'Wiatxxx" in errors[0] and '(10004 characters)' in errors[0]
    assert "unknown parameter 'sss" in errors[1] and '(10000 characters)' in errors[1]


def test_control_characters_are_escaped_in_messages():
    errors = errors_of("""
        trees:
          Main:
            "Sequence bell\\a\\e[31m": [Wiat]
        """)
    assert errors == ['t.yaml:4:31: Main/bell\\x07\\x1b[31m/Wiat: unknown node type '
                      "'Wiat' (did you mean 'Wait'?) (run 'bt-executive nodes' for the "
                      'catalogue)']


def test_excerpt_clip_and_printable():
    assert excerpt('short') == 'short'
    text = 'a' * 100 + 'X' + 'b' * 100
    window = excerpt(text, 101, limit=10)
    assert window == '\u2026aaaaaXbbbb\u2026 (201 characters)'
    assert excerpt(text, limit=10) == 'aaaaaaaaaa\u2026 (201 characters)'
    assert excerpt(text, 500, limit=10) == '\u2026bbbbbbbbbb (201 characters)'
    assert clip('x' * 50, 21) == 'x' * 10 + '\u2026' + 'x' * 10
    assert printable('a\nb\tc\x1b\u2028\U000e0001é') == 'a\\nb\\tc\\x1b\\u2028\\U000e0001é'


def test_a_blackboard_value_error_names_the_key():
    assert errors_of("""
        blackboard: {x: $y}
        trees:
          Main: Success
        """) == ["t.yaml:2:17: blackboard value 'x' must be a literal, not a blackboard "
                 "reference or expression ('$y'); write '$$' for a literal '$'"]


# ---- includes --------------------------------------------------------------------------

def include_errors(folder: pathlib.Path, target: str) -> list[str]:
    """Load ``folder/main.yaml`` including ``target``; return its diagnostics.

    The file is loaded by a relative path from ``folder``: a long quoted path is shortened
    in a message (``… (N characters)``), so an absolute one would make the messages
    depend on how deep the temporary folder is (deeper under parallel workers).
    """
    (folder / 'main.yaml').write_text(f'include: [{target}]\ntrees:\n  Main: Success\n')
    here = os.getcwd()
    os.chdir(folder)
    try:
        with pytest.raises(TreeError) as caught:
            Loader(default_registry()).load('main.yaml')
    finally:
        os.chdir(here)
    return [str(d) for d in caught.value.diagnostics]


def test_an_included_directory_symlink_loop_or_bad_path_points_at_the_include(
        tmp_path: pathlib.Path):
    (tmp_path / 'adir').mkdir()
    (tmp_path / 'loop1').symlink_to(tmp_path / 'loop2')
    (tmp_path / 'loop2').symlink_to(tmp_path / 'loop1')
    (tmp_path / 'lib.yaml').write_text('trees: {A: Success}\n')
    (tmp_path / 'empty.yaml').write_text('')
    assert include_errors(tmp_path, 'adir') == [
        "main.yaml:1:11: included file 'adir': is a directory, expected a YAML file"]
    assert include_errors(tmp_path, 'loop1') == [
        "main.yaml:1:11: included file 'loop1': cannot read: Too many levels of symbolic "
        'links']
    assert include_errors(tmp_path, 'lib.yaml/x.yaml') == [
        "main.yaml:1:11: included file 'lib.yaml/x.yaml': cannot read: Not a directory"]
    assert include_errors(tmp_path, 'empty.yaml') == [
        "main.yaml:1:11: included file 'empty.yaml': file is empty, expected a mapping with "
        "'trees'"]
    assert include_errors(tmp_path, 'nope.yaml') == [
        "main.yaml:1:11: included file 'nope.yaml' not found"]


@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes here')
def test_an_included_named_pipe_nobody_writes_to_does_not_hang(tmp_path: pathlib.Path):
    os.mkfifo(tmp_path / 'pipe')
    assert include_errors(tmp_path, 'pipe') == [
        "main.yaml:1:11: included file 'pipe': file is empty, expected a mapping with "
        "'trees'"]


@pytest.mark.skipif(os.geteuid() == 0, reason='root reads every file')
def test_an_unreadable_included_file_points_at_the_include(tmp_path: pathlib.Path):
    secret = tmp_path / 'secret.yaml'
    secret.write_text('trees: {A: Success}\n')
    secret.chmod(0)
    assert include_errors(tmp_path, 'secret.yaml') == [
        "main.yaml:1:11: included file 'secret.yaml': cannot read: Permission denied"]


# ---- setting the leaves up -------------------------------------------------------------

class _BadSetup(py_trees.behaviour.Behaviour):
    """Raises from setup(), or inside a helper child that the builder did not make."""

    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(name)
        self.seconds = seconds

    def update(self) -> py_trees.common.Status:
        return py_trees.common.Status.SUCCESS

    def setup(self, **kwargs: Any) -> None:
        if self.seconds:
            time.sleep(self.seconds)  # a leaf waiting for its server: the deadline passes
            return
        raise RuntimeError('no such device /dev/robot')


class _Wrapper(py_trees.decorators.Decorator):
    """A node whose (helper) child raises in setup()."""

    def update(self) -> py_trees.common.Status:
        return self.decorated.status


def _registry() -> Registry:
    registry = default_registry()
    registry.register(NodeType(
        'BadSetup', Category.LEAF, 'raises from setup()',
        params=(Param('seconds', ParamType.FLOAT, 'sleep instead', default=0.0),),
        factory=lambda ctx, name, params, children: _BadSetup(name, params['seconds']),
        primary='seconds'))
    registry.register(NodeType(
        'Wrapped', Category.LEAF, 'its helper child raises from setup()',
        factory=lambda ctx, name, params, children: _Wrapper(name, _BadSetup('helper', 0))))
    return registry


def test_a_setup_error_names_the_node():
    assert errors_of("""
        trees:
          Main:
            Sequence:
              - Success
              - BadSetup device:
        """, registry=_registry(), setup=True) == [
        't.yaml:6:9: Main/Sequence/device: cannot set up BadSetup: no such device '
        '/dev/robot']


def test_a_setup_error_of_a_helper_names_the_node_that_made_it():
    assert errors_of("""
        trees:
          Main:
            Sequence:
              - Wrapped
        """, registry=_registry(), setup=True) == [
        't.yaml:5:9: Main/Sequence/Wrapped: cannot set up _BadSetup: no such device '
        '/dev/robot']


def test_a_setup_past_the_deadline_names_the_node_that_was_setting_up():
    assert errors_of("""
        trees:
          Main:
            Sequence:
              - BadSetup: 0.05
        """, registry=_registry(), setup=True, timeout=0.01) == [
        't.yaml:5:9: Main/Sequence/BadSetup: setting up the leaves took longer than '
        'setup_timeout 0.01 s (this node was still setting up)']


# ---- the command line ------------------------------------------------------------------

def test_validate_and_tick_report_constant_expressions_without_a_traceback(
        tmp_path: pathlib.Path):
    (tmp_path / 'bad.yaml').write_text(textwrap.dedent("""\
        trees:
          Main:
            Sequence:
              - Log: '${"count " + 1}'
              - Wait: '${1 / 0}'
        """))
    for command in ('validate', 'tick'):
        result = cli(command, 'bad.yaml', cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert 'Traceback' not in result.stderr
        assert result.stderr.splitlines() == [
            "bad.yaml:4:14: Main/Sequence/Log: bad expression '\"count \" + 1': cannot add "
            f'str and int {FOLDED}',
            "bad.yaml:5:15: Main/Sequence/Wait: bad expression '1 / 0': division by zero in "
            f"'/' {FOLDED}",
            'bad.yaml: 2 errors']


def test_tick_with_a_bad_set_value_is_a_usage_error(tmp_path: pathlib.Path):
    (tmp_path / 'ok.yaml').write_text('trees:\n  Main: Success\n')
    result = cli('tick', 'ok.yaml', '--set', 'x=[1', cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith('--set x:') and 'YAML syntax error' in result.stderr
    assert 'Traceback' not in result.stderr
