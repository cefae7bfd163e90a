# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The layers of the package, as folders: who may import whom, and how big a module gets."""

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'bt_executive'

#: Layers from the bottom up; a layer may import only itself and the layers below it.
ORDER = ['core', 'nodes', 'formats', 'observe', 'ros', 'viewers', 'sim', 'testing', 'app']
#: Layers that may never import rclpy (or any ROS message package through it).
ROS_FREE = ('core', 'nodes', 'formats', 'observe')
#: The longest a module may grow before it is split by concept.
MAX_LINES = 700
#: Attributes the builder used to stamp on behaviours; the node table holds them now.
STAMPED = ('bt_path', 'bt_type', 'bt_loc', 'bt_reads', 'bt_probe', 'bt_guard',
           'bt_log_error')


def modules():
    """Yield (layer, path) for every module of the package."""
    for path in sorted(PACKAGE.rglob('*.py')):
        parts = path.relative_to(PACKAGE).parts
        yield (parts[0] if len(parts) > 1 else ''), path


def imported(path):
    """Return every module name ``path`` imports (at any depth of the file)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f'{node.module}.{alias.name}' for alias in node.names)
    return names


def test_each_layer_imports_only_itself_and_the_layers_below():
    problems = []
    allowed = {}
    for index, layer in enumerate(ORDER):
        allowed[layer] = set(ORDER[:index + 1])
    allowed['viewers'] -= {'sim'}
    allowed['sim'] -= {'viewers'}
    allowed['testing'] -= {'viewers', 'sim'}  # scenario tests: the executive, no sim
    for layer, path in modules():
        if layer not in allowed:
            continue
        for name in imported(path):
            parts = name.split('.')
            if parts[0] != 'bt_executive' or len(parts) < 2 or parts[1] not in ORDER:
                continue
            if parts[1] not in allowed[layer]:
                problems.append(f'{path.relative_to(PACKAGE)} imports {name}')
            if layer == 'core' and name.startswith('bt_executive.nodes'):
                problems.append(f'{path.relative_to(PACKAGE)} imports the catalogue')
    assert not problems, '\n'.join(problems)


def test_no_ros_below_the_ros_layer():
    problems = [f'{path.relative_to(PACKAGE)} imports {name}'
                for layer, path in modules() if layer in ROS_FREE
                for name in imported(path)
                if name.split('.')[0] in ('rclpy', 'rcl_interfaces', 'std_msgs', 'launch')]
    assert not problems, '\n'.join(problems)


def test_the_ros_free_layers_import_without_rclpy():
    code = ('import importlib, pkgutil, sys\n'
            'import bt_executive\n'
            'for layer in %r:\n'
            '    package = importlib.import_module("bt_executive." + layer)\n'
            '    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):\n'
            '        if info.name.endswith(".groot2"):\n'
            '            continue  # needs pyzmq; no ROS either (checked statically)\n'
            '        importlib.import_module(info.name)\n'
            'print(sorted(m for m in sys.modules if m.split(".")[0] == "rclpy"))\n'
            % (ROS_FREE,))
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


@pytest.mark.parametrize('layer, path', list(modules()),
                         ids=[str(p.relative_to(PACKAGE)) for _, p in modules()])
def test_no_module_is_too_long(layer, path):
    lines = len(path.read_text(encoding='utf-8').splitlines())
    assert lines <= MAX_LINES, f'{path.name}: {lines} lines; split it by concept'


def test_nothing_is_stamped_on_behaviours():
    problems = [f'{path.relative_to(PACKAGE)}: {name}'
                for _, path in modules() for name in STAMPED
                if name in path.read_text(encoding='utf-8')]
    assert not problems, '\n'.join(problems)


def test_the_snapshot_model_never_ticks():
    source = (PACKAGE / 'observe' / 'snapshot.py').read_text(encoding='utf-8')
    tree = ast.parse(source)
    calls = [node.func.attr for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr in ('tick', 'tick_once')]
    assert calls == []
