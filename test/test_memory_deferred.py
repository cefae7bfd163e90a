# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Deferred imports (bt_executive/ros/memory.py) change when module code runs, never what.

Each case runs in a fresh interpreter (this one has imported everything already): the
deferred module is in ``sys.modules`` but has not run; what rclpy's logger does on every
line (``inspect.getmodule`` over all modules) does not run it; using it does, with the
same result as an ordinary import. No ROS graph is needed: only message packages.
"""

import os
import subprocess
import sys
import textwrap

from bt_executive.ros.memory import interface_names

TIMEOUT = 120.0


def run(body: str) -> str:
    """Run ``body`` in a fresh interpreter; return its output (it must exit with 0)."""
    process = subprocess.run([sys.executable, '-c', textwrap.dedent(body)],
                             capture_output=True, text=True, timeout=TIMEOUT,
                             env=dict(os.environ), stdin=subprocess.DEVNULL)
    assert process.returncode == 0, f'the interpreter failed:\n{process.stderr}'
    return process.stdout


def test_py_trees_unused_modules_run_only_when_used():
    output = run("""
        import inspect, sys
        from bt_executive.ros.memory import defer_unused_py_trees, deferred, UNUSED_PY_TREES
        defer_unused_py_trees()  # as the programs do, before py_trees is imported
        import py_trees
        assert all(deferred(name) for name in UNUSED_PY_TREES), UNUSED_PY_TREES
        assert 'pydot' not in sys.modules and 'multiprocessing' not in sys.modules
        inspect.getmodule(inspect.currentframe(), 'x.py')  # as rclpy's logger, every line
        assert all(deferred(name) for name in UNUSED_PY_TREES)
        assert py_trees.display.__file__.endswith('display.py')  # no need to run it
        root = py_trees.composites.Sequence('root', memory=False,
                                            children=[py_trees.behaviours.Success('ok')])
        assert 'ok' in py_trees.display.unicode_tree(root)
        assert 'digraph' in py_trees.display.dot_tree(root).to_string()
        assert not deferred('py_trees.display') and 'pydot' in sys.modules
        assert py_trees.utilities.truncate('abcdef', 4) == 'a...'
        tree = py_trees.trees.BehaviourTree(root)  # trees and visitors, on use
        tree.add_visitor(py_trees.visitors.DebugVisitor())
        tree.tick()
        assert root.status == py_trees.common.Status.SUCCESS
        from py_trees.demos import action  # a package's submodule
        assert callable(action.main) and 'render' in dir(py_trees.programs)
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_interface_packages_import_only_the_types_read():
    output = run("""
        import sys
        from bt_executive.ros.memory import defer_interface_packages, deferred
        defer_interface_packages()
        from std_msgs.msg import String
        import std_msgs.msg as package
        assert deferred('std_msgs.msg') and 'std_msgs.msg._string' in sys.modules
        assert 'std_msgs.msg._bool' not in sys.modules
        assert package.Bool(data=True).data and package.String is String
        assert 'std_msgs.msg._float64' not in sys.modules
        from geometry_msgs.msg import PoseStamped  # its fields' types come on use
        assert PoseStamped().header.frame_id == ''
        try:
            package.NoSuchType
        except AttributeError:
            pass
        else:
            raise AssertionError('a name the package lacks must raise AttributeError')
        assert not deferred('std_msgs.msg')  # that ran the whole __init__, as usual
        assert 'Float64' in dir(package) and 'std_msgs.msg._float64' in sys.modules
        import sensor_msgs.msg
        assert 'Imu' in dir(sensor_msgs.msg)  # dir() runs it all
        namespace = {}
        exec('from nav_msgs.msg import *', namespace)  # so does import *
        assert 'Odometry' in namespace
        import rclpy.action  # not an interface package: imported as usual
        assert not deferred('rclpy.action')
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_the_type_resolver_names_every_type_of_a_deferred_package():
    output = run("""
        from bt_executive.ros.memory import defer_interface_packages, deferred
        defer_interface_packages()
        from bt_executive.ros.interfaces import resolve
        from bt_executive.ros.interfaces.names import InterfaceError
        assert resolve('std_msgs/msg/String').__name__ == 'String'
        assert deferred('std_msgs.msg')
        try:
            resolve('std_msgs/msg/Strin')
        except InterfaceError as error:
            print(error)
    """)
    assert "package 'std_msgs' has no msg type 'Strin'" in output
    assert "'String'" in output


def test_only_a_generated_init_is_deferred(tmp_path):
    package = tmp_path / 'pkg' / 'msg'
    package.mkdir(parents=True)
    init = package / '__init__.py'
    init.write_text('from pkg.msg._thing import Thing  # noqa: F401\n\n'
                    'from pkg.msg._other import Other as Alias\n')
    assert interface_names('pkg.msg', str(init)) == {
        'Thing': ('pkg.msg._thing', 'Thing'), 'Alias': ('pkg.msg._other', 'Other')}
    for text in ('from pkg.msg._thing import Thing\nVALUE = 1\n',  # more than imports
                 'from elsewhere import Thing\n',  # not its own module
                 'from pkg.msg._a.b import Thing\n',  # deeper
                 '"""Docstring."""\n'):
        init.write_text(text)
        assert interface_names('pkg.msg', str(init)) is None, text
    assert interface_names('pkg.msg', str(tmp_path / 'missing' / '__init__.py')) is None


def test_the_code_generator_waits_for_a_first_call():
    output = run("""
        import sys
        from bt_executive.ros.memory import defer_for_programs, deferred
        defer_for_programs()
        from rosidl_generator_py import generate_py, import_type_support
        from std_msgs.msg import String
        String.__import_type_support__()  # what every publisher's creation does
        assert String._TYPE_SUPPORT is not None
        assert deferred('rosidl_generator_py.generate_py_impl')
        assert not {'lark', 'em', 'rosidl_parser.parser'} & set(sys.modules)
        import inspect
        inspect.getmodule(inspect.currentframe(), 'x.py')  # as rclpy's logger, every line
        assert deferred('rosidl_generator_py.generate_py_impl')
        assert generate_py.__name__ == 'generate_py' and callable(import_type_support)
        try:
            generate_py('/no/such/arguments.json', ['c'])  # runs the generator's module first
        except OSError:
            pass
        assert not deferred('rosidl_generator_py.generate_py_impl')
        assert 'lark' in sys.modules and 'rosidl_parser.parser' in sys.modules
        from rosidl_generator_py import generate_py_impl
        assert generate_py_impl.generate_py.__module__ == 'rosidl_generator_py.generate_py_impl'
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_a_deferred_module_is_not_a_package_to_the_import_system():
    output = run("""
        from bt_executive.ros.memory import defer_unused_py_trees, deferred
        defer_unused_py_trees()
        import py_trees
        # ``from <module> import <name>`` first asks whether the module is a package
        assert not hasattr(py_trees.visitors, '__path__')
        assert deferred('py_trees.visitors')  # asking did not run it
        assert py_trees.demos.__path__ and deferred('py_trees.demos')  # a package's is set
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_a_stand_in_its_module_does_not_define_raises(tmp_path):
    (tmp_path / 'generator_like.py').write_text('VALUE = 1\n')
    output = run(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from bt_executive.ros import memory
        memory.defer_code_generators({{'generator_like': ('generate',)}})
        from generator_like import generate
        assert memory.deferred('generator_like')
        try:
            generate()
        except AttributeError as error:
            print(error)
        import generator_like
        assert generator_like.VALUE == 1 and not memory.deferred('generator_like')
    """)
    assert output.strip() == "module 'generator_like' has no attribute 'generate'"


def test_importing_bt_executive_defers_nothing():
    output = run("""
        import sys
        import bt_executive, bt_executive.ros, bt_executive.ros.memory
        from bt_executive.ros.memory import deferred
        import py_trees, std_msgs.msg
        assert not any(deferred(name) for name in sys.modules)
        assert not any(getattr(m, '__module__', '').startswith('bt_executive.')
                       for m in sys.meta_path)
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_the_switch_turns_every_deferral_off():
    output = run("""
        import os, sys
        os.environ['BT_EXECUTIVE_DEFER_IMPORTS'] = 'off'
        from bt_executive.ros.memory import defer_for_programs, deferred
        assert defer_for_programs() is False
        import py_trees, std_msgs.msg, rosidl_generator_py
        assert not any(deferred(name) for name in sys.modules)
        print('ok')
    """)
    assert output.strip() == 'ok'


def test_a_type_resolved_later_is_deferred_with_its_fields_packages():
    output = run("""
        import sys
        from bt_executive.ros.memory import defer_interface_packages, deferred
        defer_interface_packages(())  # no common package placed: the resolver places them
        from bt_executive.ros.interfaces import resolve
        odometry = resolve('nav_msgs/msg/Odometry')
        assert deferred('nav_msgs.msg') and 'nav_msgs.msg._path' not in sys.modules
        assert deferred('std_msgs.msg') and deferred('geometry_msgs.msg')  # its fields'
        assert odometry().header.frame_id == ''
        assert 'geometry_msgs.msg._wrench' not in sys.modules
        print('ok')
    """)
    assert output.strip() == 'ok'
