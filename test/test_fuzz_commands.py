# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fuzzing the commands: generated tree files through validate, show, render, export, tick.

The documents are those of :mod:`test_fuzz_loader` (plausible, damaged, calling
parametrised trees, holding constant expressions that cannot be evaluated). Each one goes
through ``bt-executive validate``, ``show``, ``render --format dot``, ``export`` and
``tick`` (some with ``--tree``, ``--expand``, ``--all-models``): in process for many
documents, as real subprocesses for a sample. No command may raise or print a traceback;
each exits 0, or 1 with every error located (``file:line:col: node path: message``, or
``file: message`` for a whole file) on one line of bounded length.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

from bt_executive.app import cli
from hypothesis import given, HealthCheck, note, settings, strategies as st
import py_trees
import pytest
from test_fuzz_loader import Generator, LIB

#: Documents run through every command in process; BT_FUZZ_COMMANDS=20000 for more.
EXAMPLES = int(os.environ.get('BT_FUZZ_COMMANDS', '200'))
#: The run is cut into this many tests of EXAMPLES / SHARDS documents each (independent
#: draws), so that parallel test workers share it out.
SHARDS = 2
#: Trees ``--tree`` picks from (the generator's names, and one that is never defined).
TREES = ['Main', 'Other', 'Dock', 'Copy', 'T0', 'T1', 'Nope']
#: A located error line, or the ``FILE: N errors`` summary that ends the list.
LOCATED = re.compile(r'[^:\n]+(:\d+:\d+)?: \S.*\Z')
SUMMARY = re.compile(r'.+: \d+ errors?\Z')


def commands(generator: Generator, path: pathlib.Path) -> list[list[str]]:
    """Return the command lines to run on ``path`` (one variant of each, some options)."""
    tree = generator.pick(TREES)
    file = str(path)
    lines = [['validate', file], ['show', file], ['render', file, '--format', 'dot'],
             ['export', file], ['tick', file, '--ticks', '3']]
    if generator.chance(0.5):
        lines += [['validate', file, '--tree', tree], ['show', file, '--tree', tree],
                  ['render', file, '--format', 'dot', '--expand', '--tree', tree],
                  ['export', file, '--tree', tree, '--all-models'],
                  ['tick', file, '--tree', tree, '--ticks', '4', '--period', '0.5']]
    return lines


def check_output(argv: list[str], code: Any, stderr: str) -> None:
    """Assert exit 0, or 1 with one located error per line (and the summary)."""
    assert 'Traceback' not in stderr, stderr
    assert code in (0, 1), f'{argv}: exit {code}\n{stderr}'
    for line in stderr.splitlines():
        if line.startswith('bt-executive: '):  # tick: a contained node fault, one line
            continue
        assert LOCATED.match(line) or SUMMARY.match(line), f'{argv}: unlocated: {line!r}'
        assert len(line) < 1500, f'{argv}: {len(line)} characters: {line[:200]}...'
    if code == 1:
        assert SUMMARY.match(stderr.splitlines()[-1]), f'{argv}: {stderr}'


def run_in_process(argv: list[str]) -> tuple[Any, str]:
    """Run ``bt-executive ARGV`` in this process; return the exit code and stderr."""
    out = io.TextIOWrapper(io.BytesIO(), encoding='utf-8')  # render writes bytes
    err = io.StringIO()
    py_trees.blackboard.Blackboard.storage.clear()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, err.getvalue()


@pytest.fixture
def folder(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / 'lib.yaml').write_text(LIB)
    return tmp_path


@pytest.mark.parametrize('shard', range(SHARDS))
def test_commands_never_raise_and_locate_every_error(folder: pathlib.Path, shard: int):
    examples = EXAMPLES // SHARDS + (1 if shard < EXAMPLES % SHARDS else 0)
    path = folder / 'fuzz.yaml'
    codes = {0: 0, 1: 0}

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**64 - 1))
    def check(seed: int) -> None:
        generator = Generator(seed)
        data = generator.file()
        note(f'document: {data[:2000]!r}')
        path.write_bytes(data)
        for argv in commands(generator, path):
            code, stderr = run_in_process(argv)
            check_output(argv, code, stderr)
            codes[code] += 1

    check()
    print(f'\n{examples} documents, exit codes {codes}')
    assert codes[0] > examples // 2 and codes[1] > examples // 2, codes


#: The constant expressions of the issue, where a parameter takes a value, an expression,
#: a typed number, and through a subtree argument.
UNEVALUABLE = """
trees:
  Main:
    Sequence:
      - Log: '${"count " + 1}'
      - Wait: '${1 / 0}'
      - Condition: int('x') > 1
      - Log: {message: {nested: ['${min()}']}}
      - Subtree: {tree: Called, n: '${[1][5]}'}
  Called:
    params: {n: null}
    root:
      Retry: {attempts: '$n', Success: }
"""


def test_commands_as_subprocesses_print_no_traceback(folder: pathlib.Path):
    files = [folder / 'issue.yaml']
    files[0].write_text(UNEVALUABLE)
    for seed in range(6):  # a sample of generated documents, each kind of them
        generator = Generator(seed)
        data = [generator.render(generator.valid_document()),
                generator.render(generator.subtree_document()),
                generator.damage(generator.render(generator.document()))][seed % 3]
        files.append(folder / f'fuzz{seed}.yaml')
        files[-1].write_bytes(data)
    runs = [['validate', *map(str, files)]]
    for index, file in enumerate(files):
        runs += commands(Generator(index), file)[1:5 if index else None]
    for argv in runs:
        result = subprocess.run([sys.executable, '-m', 'bt_executive.app.cli', *argv],
                                capture_output=True, text=True, timeout=120, cwd=folder)
        check_output(argv, result.returncode, result.stderr)
    result = subprocess.run([sys.executable, '-m', 'bt_executive.app.cli', 'validate',
                             str(files[0])], capture_output=True, text=True, timeout=120)
    lines = result.stderr.splitlines()
    assert result.returncode == 1
    assert len(lines) == 6 and lines[-1].endswith('issue.yaml: 5 errors'), result.stderr
    for line, expression in zip(lines, ['"count " + 1', '1 / 0', "int('x') > 1", 'min()',
                                        '[1][5]']):
        assert f"bad expression '{expression}': " in line, line
        assert re.match(r'.*issue\.yaml:\d+:\d+: Main/Sequence/[\w/#]+: ', line), line
