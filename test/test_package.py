# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""package.xml declares what the code imports, so rosdep installs everything it needs.

Every top-level module imported by the package and the launch file (outside the
standard library) must be an ``exec_depend`` (under its rosdep key), and every
``exec_depend`` must be used: imported, or one of the tools listed here with its reason.
"""

import ast
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: Import names whose rosdep key differs.
ROSDEP_KEYS = {'yaml': 'python3-yaml', 'rich': 'python3-rich', 'zmq': 'python3-zmq',
               'msgpack': 'python3-msgpack', 'mcap': 'python3-mcap-pip',
               'mcap_ros2': 'python3-mcap-ros2-support-pip'}
#: Imports that are optional at run time (guarded by ``except ImportError``, or only
#: imported by the tool itself).
OPTIONAL = {'py_trees_ros_interfaces': "py_trees_ros' snapshot streams (ros/streams.py)",
            'diagnostic_msgs': 'a dependency of py_trees_ros_interfaces (ros/streams.py)',
            'pytest': 'the scenario plugin (bt_executive/testing/pytest_plugin.py): only '
                      'pytest loads it',
            'foxglove': '`bt-executive foxglove` only (pip foxglove-sdk, no rosdep key; '
                        'without it the command says so)',
            'rqt_gui_py': 'the rqt plugin (viewers/qt/rqt_plugin.py): only rqt imports it, '
                          'and rqt brings it',
            'python_qt_binding': "the rqt plugin's Qt bindings (viewers/qt/binding.py): "
                                 'rqt brings them; PyQt5 from PyPI otherwise',
            'PyQt5': 'the Qt widget without rqt (viewers/qt/binding.py; pip PyQt5)',
            'bt_executive_interfaces': 'our typed interfaces, built beside this package '
                                       '(docs/execute_tree.md); without them the executive '
                                       'says so and runs as before'}
#: Dependencies used without an import.
TOOLS = {'ros2launch': '`ros2 launch bt_executive patrol.launch.py`',
         'graphviz': "`bt-executive render` runs Graphviz's dot when graphviz-pure is absent"}


def imports() -> set[str]:
    names = set()
    files = [*(ROOT / 'bt_executive').rglob('*.py'), *(ROOT / 'launch').glob('*.py')]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split('.')[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split('.')[0])
    return names - set(sys.stdlib_module_names) - {'bt_executive'}


def declared(kind: str) -> list[str]:
    package = ElementTree.parse(ROOT / 'package.xml').getroot()
    return [element.text for element in package.iter(kind)]


def test_every_import_is_an_exec_depend():
    needed = {ROSDEP_KEYS.get(name, name) for name in imports() - set(OPTIONAL)}
    missing = sorted(needed - set(declared('exec_depend')))
    assert not missing, f'add <exec_depend> to package.xml for: {missing}'


def test_every_exec_depend_is_used():
    used = {ROSDEP_KEYS.get(name, name) for name in imports()} | set(TOOLS)
    unused = sorted(set(declared('exec_depend')) - used)
    assert not unused, f'package.xml declares exec_depends nothing uses: {unused}'


def test_the_launch_file_dependencies_are_declared():
    for name in ('launch', 'launch_ros', 'ament_index_python', 'ros2launch'):
        assert name in declared('exec_depend'), name
    assert len(declared('exec_depend')) == len(set(declared('exec_depend')))
