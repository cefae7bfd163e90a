# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive serving Groot2 (groot2_port): live statuses, tree swaps, start and stop.

The executive runs in-process on its own context (``executive_host.Host``) or, for the
command line and the log, as a subprocess; the Groot2 client is ``btview``'s.
"""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import threading

from btview import client as btview_client
from executive_host import write_tree
from helpers import free_port, listening_possible, run_python, wait_for
import pytest

pytestmark = pytest.mark.ros

TIMEOUT = 15.0
BTVIEW = pathlib.Path(sys.executable).with_name('btview')

FIRST = """
    blackboard: {laps: 3, target: {x: 1.5, name: dock}}
    trees:
      Main:
        Sequence root:
          - Success ready
          - Running work
    """
SECOND = """
    trees:
      Second:
        Selector other:
          - Failure nope
          - Running busy
    """


def groot2_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith('groot2-')]


def statuses(client) -> dict[str, str]:
    """Poll like Groot2 and name each node's status (names from the client's tree)."""
    names = {node.uid: node.name for node in client.fetch_tree().walk()}
    polled = client.poll().statuses
    return {names[uid]: state.status.name if state.previous is None
            else f'{state.status.name}<-{state.previous.name}'
            for uid, state in polled.items()}


def test_live_statuses_and_a_swap_the_client_follows_on_the_same_port(host, tmp_path):
    port = free_port()
    ex = host(write_tree(tmp_path, 'a.yaml', FIRST), tick_rate=50.0, groot2_port=port)
    server = ex.executive.groot2
    assert server is not None and server.endpoint == f'tcp://127.0.0.1:{port}'
    ex.spin_until(lambda: ex.executive.tick_count >= 2, 'the first ticks')
    client = btview_client.Groot2Client(port=port, timeout_ms=int(TIMEOUT * 1000))
    try:
        assert statuses(client) == {'root': 'RUNNING', 'ready': 'SUCCESS',
                                    'work': 'RUNNING'}
        first_uuid = client.tree_uuid
        assert client.fetch_blackboard(['Main']) == {
            'Main': {'laps': 3, 'target': {'x': 1.5, 'name': 'dock'}}}
        # paused: halted without a tick, and Groot2 sees it at once
        ex.executive.pause()
        assert statuses(client) == {'root': 'IDLE<-RUNNING', 'ready': 'IDLE<-SUCCESS',
                                    'work': 'IDLE<-RUNNING'}
        ex.executive.resume()
        ex.spin_until(lambda: ex.executive.last_status.name == 'RUNNING', 'ticking again')
        # swap: same server, same port, a new tree UUID in every reply header
        result = ex.set_tree(tree_file=write_tree(tmp_path, 'b.yaml', SECOND))
        assert result.successful, result.reason
        assert ex.executive.groot2 is server and server.port == port
        ticks = ex.executive.tick_count
        ex.spin_until(lambda: ex.executive.tick_count > ticks + 1, 'the new tree to tick')
        client.poll()
        assert client.tree_uuid != first_uuid  # what tells Groot2 to fetch the tree again
        assert client.fetch_tree().name == 'Second'
        assert statuses(client) == {'other': 'RUNNING', 'nope': 'FAILURE', 'busy': 'RUNNING'}
    finally:
        client.close()


def test_off_by_default_and_no_zmq_import(tmp_path):
    """Without groot2_port nothing is served and pyzmq/msgpack are not even imported."""
    tree = write_tree(tmp_path, 'a.yaml', FIRST)
    code = (
        'import sys, rclpy\n'
        'from rclpy.parameter import Parameter\n'
        'from bt_executive.ros.executive import Executive\n'
        'rclpy.init()\n'
        f'node = Executive(parameter_overrides=[Parameter("tree_file", value={tree!r})])\n'
        'print(node.groot2, node.get_parameter("groot2_port").value,\n'
        '      node.get_parameter("groot2_address").value,\n'
        '      "zmq" in sys.modules, "msgpack" in sys.modules)\n'
        'node.destroy_node()\n'
        'rclpy.shutdown()\n')
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['None', '0', '127.0.0.1', 'False', 'False']


def test_the_port_is_read_only_and_destroy_stops_the_server(tmp_path):
    from executive_host import Host
    from rclpy.parameter import Parameter

    port = free_port()
    ex = Host(write_tree(tmp_path, 'a.yaml', FIRST), tick_rate=50.0, groot2_port=port)
    try:
        server = ex.executive.groot2
        assert len(groot2_threads()) == 1
        result = ex.executive.set_parameters([Parameter('groot2_port', value=port + 1)])[0]
        assert not result.successful and 'read-only' in result.reason
    finally:
        ex.close()
    assert not server.alive and groot2_threads() == []
    assert listening_possible(port)  # released


def test_a_tree_that_fails_to_load_at_start_leaves_no_server(tmp_path):
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter

    from bt_executive.core.errors import TreeError
    from bt_executive.ros.executive import Executive

    port = free_port()
    bad = write_tree(tmp_path, 'bad.yaml', 'trees:\n  Bad:\n    Sequense: [Success]\n')
    context = Context()
    rclpy.init(context=context)
    try:
        with pytest.raises(TreeError):
            Executive(context=context, parameter_overrides=[
                Parameter('tree_file', value=bad), Parameter('groot2_port', value=port)])
    finally:
        context.try_shutdown()
    assert groot2_threads() == []
    assert listening_possible(port)


def _executive_script() -> pathlib.Path:
    import bt_executive.ros.executive as module
    return pathlib.Path(module.__file__)


def test_command_line_executive_is_watched_with_btview(spawn, tmp_path):
    """As the README says: -p groot2_port:=PORT, then btview (or Groot2) on that port."""
    port = free_port()
    tree = write_tree(tmp_path, 'a.yaml', FIRST)
    executive = spawn(_executive_script(), '--ros-args', '-p', f'tree_file:={tree}',
                      '-p', f'groot2_port:={port}', '-r', f'__ns:=/g2_{os.getpid()}')
    wait_for(lambda: 'Groot2 monitoring on' in executive.stderr_text(), TIMEOUT,
             'the executive to start serving Groot2')
    assert f'tcp://127.0.0.1:{port}' in executive.stderr_text()

    def snapshot() -> str:
        result = subprocess.run([str(BTVIEW), 'snapshot', '--no-legend', '--ascii',
                                 '--no-color', '--port', str(port)], capture_output=True,
                                text=True, timeout=60, env={**os.environ, 'COLUMNS': '100'})
        return result.stdout if result.returncode == 0 and 'RUNNING' in result.stdout else ''

    text = wait_for(snapshot, TIMEOUT, 'btview to show the running tree')
    assert 'root [Sequence]' in text and 'work [Running]' in text, text
    assert 'ready [AlwaysSuccess]' in text and 'SUCCESS' in text, text
    assert executive.returncode is None


def test_a_port_in_use_is_logged_and_the_executive_runs_on(spawn, tmp_path):
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        taken.listen()
        port = taken.getsockname()[1]
        tree = write_tree(tmp_path, 'a.yaml', FIRST)
        executive = spawn(_executive_script(), '--ros-args', '-p', f'tree_file:={tree}',
                          '-p', f'groot2_port:={port}', '-r', f'__ns:=/g2_{os.getpid()}')
        wait_for(lambda: "running tree 'Main'" in executive.stderr_text(), TIMEOUT,
                 'the executive to run its tree')
        assert (f'Groot2 monitoring is off: cannot serve Groot2 on 127.0.0.1:{port}: '
                'Address already in use') in executive.stderr_text()
        assert executive.returncode is None
