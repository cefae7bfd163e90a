# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""An executive imports only what its run uses (issue 18: memory per executive).

Each case runs a fresh interpreter (``sys.modules`` of this one holds everything the
other tests imported) that imports the executive, or starts one on the patrol and spins
until its first tick, then prints the modules it holds. Groot2 (and pyzmq, msgpack), the
web viewer, the BT.CPP, DOT and schema formats, the CLI, the test harness, the sim, and
jsonschema and rich must not be among them unless the run uses them, nor
importlib.metadata where no plugin is installed. An executive with ``groot2_port`` set
does load the Groot2 server (and the BT.CPP format, whose XML it serves), which shows
the check sees imports.

Deferred (bt_executive/ros/memory.py): the py_trees modules of ``UNUSED_PY_TREES`` are
imported but their bodies never run (so pydot and multiprocessing stay out), and of an
interface package (sensor_msgs.msg...) only the messages the run uses are imported, and
rosidl_generator_py's code generator (lark, empy, the IDL grammar) never runs.
"""

import importlib.util
import json
import os
import pathlib
import socket
import subprocess
import sys

from bt_executive.nodes.plugins import on_path_may_declare
from bt_executive.ros.memory import UNUSED_CODE_GENERATORS, UNUSED_PY_TREES
import pytest

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
TIMEOUT = 120.0

#: Modules (and packages: their submodules too) a run that does not use them never loads.
UNUSED = ('bt_executive.observe.groot2', 'zmq', 'msgpack', 'bt_executive.viewers',
          'bt_executive.formats.btcpp', 'bt_executive.formats.dot',
          'bt_executive.formats.schema', 'bt_executive.formats.reference', 'bt_executive.app',
          'bt_executive.testing', 'bt_executive.sim', 'jsonschema', 'rich', 'http.server',
          'mcap', 'mcap_ros2', 'bt_executive.observe.bag', 'bt_executive.observe.foxglove',
          'bt_executive.observe.foxglove_server', 'foxglove', 'pydot', 'multiprocessing',
          'difflib', 'lark', 'em', 'rosidl_parser.parser', 'rosidl_pycommon')

#: What a program does first (bt_executive/app/programs.py), then the executive's import.
IMPORT_ONLY = ('from bt_executive.ros.memory import defer_for_programs\n'
               'defer_for_programs()\n'
               'import bt_executive.ros.executive')

#: Start an executive on the patrol (event mode, no sim) and spin until its first tick.
START = """
import time
from bt_executive.ros.memory import defer_for_programs
defer_for_programs()  # as the executive's main() does
import rclpy
from bt_executive.ros.executive import Executive
from bt_executive.ros.spin import make_executor
rclpy.init(args=['executive', '--ros-args', '--params-file', {params!r},
                 '-r', '__ns:=/lazy_imports_{pid}', '-p', 'tree_file:={tree}',
                 '-p', 'tick_mode:=event', '-p', 'groot2_port:={port}'])
executive = Executive()
executor = make_executor()
executor.add_node(executive)
deadline = time.monotonic() + {timeout}
while executive.tick_count < 1 and time.monotonic() < deadline:
    executor.spin_once(timeout_sec=0.1)
assert executive.tick_count >= 1, 'the patrol executive did not tick within {timeout} s'
executor.remove_node(executive)
executive.destroy_node()
executor.shutdown()
rclpy.try_shutdown()
"""

REPORT = ('\nimport json, sys\nfrom bt_executive.ros.memory import deferred\n'
          'print(json.dumps(sorted(sys.modules)))\n'
          'print(json.dumps(sorted(name for name in sys.modules if deferred(name))))\n')


def loaded(body: str) -> list[str]:
    """Run ``body`` in a fresh interpreter; return the modules it ended with."""
    return report(body)[0]


def report(body: str) -> tuple[list[str], list[str]]:
    """Run ``body`` in a fresh interpreter; return its modules and those still deferred."""
    process = subprocess.run([sys.executable, '-c', body + REPORT], capture_output=True,
                             text=True, timeout=TIMEOUT + 30.0, env=dict(os.environ),
                             stdin=subprocess.DEVNULL)
    assert process.returncode == 0, f'the interpreter failed:\n{process.stderr}'
    lines = process.stdout.strip().splitlines()
    return json.loads(lines[-2]), json.loads(lines[-1])


def unused_loaded(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    """Return the modules of :data:`UNUSED` (or below one) that were loaded."""
    return [name for name in modules
            if any(name == unused or name.startswith(unused + '.') for unused in UNUSED)
            and not any(name == allow or name.startswith(allow + '.') for allow in allowed)]


def start(port: int = 0) -> str:
    """Return the body that starts the patrol executive (Groot2 on ``port`` unless 0)."""
    return START.format(params=str(ROOT / 'config' / 'executive.yaml'),
                        tree=str(ROOT / 'config' / 'patrol.yaml'), pid=os.getpid(),
                        port=port, timeout=TIMEOUT)


def free_port() -> int:
    """Return a loopback TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def test_importing_the_executive_loads_no_viewer_or_format():
    modules = loaded(IMPORT_ONLY)
    assert 'bt_executive.ros.executive' in modules
    assert unused_loaded(modules) == []


def test_a_running_patrol_executive_loads_no_viewer_or_format():
    modules, deferred = report(start())
    assert 'bt_executive.observe.snapshot' in modules  # it did start and observe
    assert unused_loaded(modules) == []
    assert sorted(UNUSED_PY_TREES) == [name for name in deferred if name.startswith('py_trees')]
    # rosidl's IDL-to-Python generator, which every rclpy process imports, never ran
    assert sorted(UNUSED_CODE_GENERATORS) == [name for name in deferred
                                              if name.startswith('rosidl_generator_py')]
    # of the message packages, the types the patrol uses and no others
    assert 'sensor_msgs.msg._battery_state' in modules and 'sensor_msgs.msg' in deferred
    assert [name for name in modules if name.startswith('sensor_msgs.msg._')] == [
        'sensor_msgs.msg._battery_state']
    assert 'geometry_msgs.msg._twist' in modules
    assert 'geometry_msgs.msg._wrench' not in modules
    if importlib.util.find_spec('py_trees_ros_interfaces') is None:  # the streams are off
        assert 'bt_executive.ros.streams' not in modules
    # no state file: nor hashlib, whose libcrypto is 3.7 MiB (observe/checkpoint.py)
    assert 'hashlib' not in modules
    if not on_path_may_declare():  # no plugin here: nor importlib.metadata (nodes/plugins.py)
        assert 'importlib.metadata' not in modules


def test_groot2_is_loaded_when_the_run_uses_it():
    modules = loaded(start(free_port()))
    assert 'bt_executive.observe.groot2' in modules and 'zmq' in modules
    # Groot2 shows the tree as BT.CPP XML: the format comes with it
    assert unused_loaded(modules, allowed=('bt_executive.observe.groot2', 'zmq', 'msgpack',
                                           'bt_executive.formats.btcpp')) == []
