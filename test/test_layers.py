# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The layers of the package, as folders: who may import whom, and what a module may import."""

import ast
import pathlib
import subprocess
import sys


PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'bt_executive'

#: Layers from the bottom up; a layer may import only itself and the layers below it.
ORDER = ['core', 'nodes', 'formats', 'observe', 'ros', 'viewers', 'sim', 'testing', 'app']
#: Layers that may never import rclpy (or any ROS message package through it).
ROS_FREE = ('core', 'nodes', 'formats', 'observe')
#: Where a private name may not be imported from another module (the package's own
#: modules, and the tests and benchmarks that use them).
CHECKED = ('bt_executive', 'test', 'bench')
#: Private names that may cross a module, as (defining module, name): none.
PRIVATE_ALLOWED: set[tuple[str, str]] = set()
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


def package_modules():
    """Return module name -> path for every module of the package."""
    names = {}
    for path in PACKAGE.rglob('*.py'):
        parts = ('bt_executive', *path.relative_to(PACKAGE).with_suffix('').parts)
        if parts[-1] == '__init__':
            parts = parts[:-1]
        names['.'.join(parts)] = path
    return names


def is_private(name):
    """Return whether ``name`` is private to its module (``_x``, not ``__x__``)."""
    return name.startswith('_') and not name.endswith('__')


def private_imports(path, known):
    """Yield (module, name, line) for each private name of a package module ``path`` uses.

    Both ``from bt_executive.x import _y`` and ``x._y`` on a module imported as ``x``
    (``import bt_executive.x as x``, ``from bt_executive import x``) count.
    """
    tree = ast.parse(path.read_text(encoding='utf-8'))
    modules = {}  # local name -> package module it names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module.split('.')[0] == 'bt_executive':
            for alias in node.names:
                if is_private(alias.name):
                    yield node.module, alias.name, node.lineno
                if f'{node.module}.{alias.name}' in known:
                    modules[alias.asname or alias.name] = f'{node.module}.{alias.name}'
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split('.')[0] == 'bt_executive':
                    modules[alias.asname or 'bt_executive'] = alias.asname and alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            dotted = dotted_name(node.value)
            if dotted is None or dotted.split('.')[0] not in modules:
                continue
            head, _, rest = dotted.partition('.')
            module = '.'.join(filter(None, (modules[head] or head, rest)))
            if module in known:
                yield module, node.attr, node.lineno


def dotted_name(node):
    """Return ``a.b.c`` for an expression made only of names and attributes (else None)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return '.'.join([node.id, *reversed(parts)])


def test_no_private_name_crosses_a_module():
    """A name shared between modules is public; a private one stays where it is defined."""
    known = package_modules()
    root = PACKAGE.parent
    problems, allowed_seen = [], set()
    for folder in CHECKED:
        for path in sorted((root / folder).rglob('*.py')):
            for module, name, line in private_imports(path, known):
                if (module, name) in PRIVATE_ALLOWED:
                    allowed_seen.add((module, name))
                    continue
                problems.append(f'{path.relative_to(root)}:{line}: {module}.{name}')
    assert not problems, ('private names imported from another module (make them public '
                          'if they are shared, or move them where they are used):\n'
                          + '\n'.join(problems))
    assert allowed_seen == PRIVATE_ALLOWED, \
        f'no longer crossing, remove from PRIVATE_ALLOWED: {PRIVATE_ALLOWED - allowed_seen}'


def test_the_private_name_check_sees_both_forms(tmp_path):
    sample = tmp_path / 'sample.py'
    sample.write_text('from bt_executive.core.loader import _hidden, Loader\n'
                      'from bt_executive.core import registry\n'
                      'import bt_executive.core.spec as spec\n'
                      'import bt_executive.core.errors\n'
                      'registry._secret, spec._other, registry.__name__, Loader._method\n'
                      'bt_executive.core.errors._escape\n')
    found = sorted((module, name) for module, name, _ in
                   private_imports(sample, package_modules()))
    assert found == [('bt_executive.core.errors', '_escape'),
                     ('bt_executive.core.loader', '_hidden'),
                     ('bt_executive.core.registry', '_secret'),
                     ('bt_executive.core.spec', '_other')]


def test_importing_the_package_and_its_ros_layer_imports_nothing_else():
    """``import bt_executive`` (and ``bt_executive.ros``) is light: names load on first use."""
    code = ('import sys\n'
            'before = set(sys.modules)\n'
            'import bt_executive, bt_executive.ros\n'
            'print(sorted(set(sys.modules) - before))\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['bt_executive', 'bt_executive.ros']"


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
