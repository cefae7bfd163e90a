# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""bt_executive_interfaces: its two builds (colcon's CMakeLists.txt, make env) see one list.

The definitions parse (rosidl's own parser), CMakeLists.txt names every one of them, and
where ``make env`` built the package (tools/install_interfaces.py) its types import with
their type support; where it could not, the reason it wrote is the skip reason.
"""

import importlib
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / 'bt_executive_interfaces'


def definitions() -> list[str]:
    """Return the definitions' paths relative to the package, e.g. ``msg/TreeStatus.msg``."""
    return sorted(str(path.relative_to(PACKAGE)) for kind in ('msg', 'srv', 'action')
                  for path in (PACKAGE / kind).glob(f'*.{kind}'))


def test_cmakelists_names_every_definition():
    listed = re.findall(r'"((?:msg|srv|action)/\w+\.\w+)"',
                        (PACKAGE / 'CMakeLists.txt').read_text())
    assert sorted(listed) == definitions()


def test_definitions_parse():
    adapter = pytest.importorskip('rosidl_adapter.parser')
    for relative in definitions():
        kind, name = relative.split('/')
        text = (PACKAGE / relative).read_text()
        stem = name.rsplit('.', 1)[0]
        parse = {'msg': adapter.parse_message_string, 'srv': adapter.parse_service_string,
                 'action': adapter.parse_action_string}[kind]
        parse('bt_executive_interfaces', stem, text)


def interfaces_or_skip() -> None:
    """Skip unless bt_executive_interfaces imports (with why it was not built, if known)."""
    try:  # the source folder alone imports as a namespace package: ask for a type
        importlib.import_module('bt_executive_interfaces.action').ExecuteTree
        return
    except (ImportError, AttributeError) as error:
        problem = str(error)
    note = pathlib.Path(sys.prefix) / 'opt' / 'bt_executive_interfaces.unavailable'
    why = note.read_text().strip() if note.exists() else (
        f'not built into this venv ({problem}); make env builds it')
    pytest.skip(f'bt_executive_interfaces: {why}')


def test_built_package_imports_with_type_support():
    interfaces_or_skip()
    # a fresh interpreter: the types and their C type support load on their own
    code = ('from bt_executive_interfaces.action import ExecuteTree\n'
            'from bt_executive_interfaces.msg import TreeStatus, TransitionLog\n'
            'from bt_executive_interfaces.srv import ListTrees\n'
            'from rclpy.type_support import check_for_type_support\n'
            'for t in (ExecuteTree, TreeStatus, TransitionLog, ListTrees):\n'
            '    check_for_type_support(t)\n'
            'print(ExecuteTree.Result.SUCCEEDED, TreeStatus.FAILURE)\n')
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          timeout=60, cwd='/')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['1', '3']
