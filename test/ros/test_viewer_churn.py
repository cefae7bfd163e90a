# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A viewer that comes and goes never hurts the robot (issue 39).

While the patrol runs (the built-in sim and the executive as processes, real time), every
kind of viewer attaches and leaves again and again, all at the same time:

* py_trees_ros snapshot streams opened, read and closed, unsubscribing before and after
  the close; viewers that leave without closing (a participant shut down) and viewers
  killed with SIGKILL while reading (peers/viewer_churn.py);
* plain subscribers on every topic the executive publishes, created and destroyed;
* the web view (``bt-executive view``) restarted, and browsers' event streams opened and
  dropped;
* Groot2 clients connecting, asking for the tree and the statuses, and dropped;
* Foxglove clients connecting, subscribing and dropped without a close handshake.

Afterwards the executive is still ticking, has counted no callback error, its ROS
entities are back to what they were (closed and orphaned streams gone), and SIGINT ends
it with status 0 and nothing in its log about an invalid handle, a traceback or a fatal
error. The executive runs with ``PYTHONFAULTHANDLER=1``, so a crash names its stack.

A second test swaps the tree a hundred times while an Action leaf's goal runs on a
server that keeps sending feedback: the leaves' clients come and go with every swap.

Before the fix (bt_executive/ros/entities.py), closing a stream whose subscriber had just
left segfaulted the executive within a few dozen cycles, and an action client destroyed
while feedback flowed did the same (rclpy issue #1644).

py_trees_ros_interfaces is not on PyPI: the streams use the TEST STAND-IN built with real
type support (test/standins, the ``typed_standin`` fixture).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import json
import os
import pathlib
import signal
import threading
import time
from typing import Any, Optional
import urllib.request
import uuid

from helpers import free_port, short_lease, SpawnedProcess, wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / 'config'
PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
SIM = ROOT / 'bt_executive' / 'sim' / 'robot.py'
EXECUTIVE = ROOT / 'bt_executive' / 'ros' / 'executive.py'
CLI = ROOT / 'bt_executive' / 'app' / 'cli.py'
#: cycles of each kind of viewer (and swaps in the second test); ``make soak`` runs 100
#: (BT_CHURN_CYCLES). The code before the fix crashed within a few dozen stream cycles
#: and 3-5 swaps (3 of 3 runs at 100); each cycle costs the suite CPU: viewer
#: processes, DDS participants
CYCLES = int(os.environ.get('BT_CHURN_CYCLES', '50'))
#: the streams each killed viewer process holds (a process start costs 2-3 s here)
KILLED_STREAMS = 10
TIMEOUT = 60.0
#: a churning viewer's wait for one answer or message (a loaded machine, DDS discovery)
PEER_TIMEOUT = 60.0
#: killed viewers' processes that may crash on their own (in Fast DDS) and be replaced
VIEWER_CRASHES = 2
#: viewers that leave without closing: each is a DDS participant of its own (1-2 s to make)
LEAVE_CYCLES = 20
#: snapshot_stream_timeout: a stream nobody reads is closed after this long (60 s by
#: default; shorter so the test sees the left and killed viewers' streams go). Longer
#: than a viewer's own waits in a cycle (its first snapshot, the close's answer) and
#: than discovery on a loaded machine: at 10 s, at load 15-18, the executive closed a
#: stream whose subscriber it had not yet matched, and the viewer's close failed
ORPHAN_TIMEOUT = 30.0
#: the whole churn, every kind at once, on a loaded 2-core machine
CHURN_TIMEOUT = 400.0
FOXGLOVE_SUBPROTOCOL = 'foxglove.sdk.v1'
BAD_LINES = ('InvalidHandle', 'Traceback', 'Fatal Python error', 'Segmentation fault',
             'Error receiving from client', 'Error sending message to client')


class StatusWatch:
    """The executive's ~/status, as the test node receives it."""

    def __init__(self, node: Any, executive: str) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.latest: dict[str, Any] = {}
        self._lock = threading.Lock()
        node.create_subscription(
            String, f'{executive}/status', self._take,
            QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL))

    def _take(self, message: Any) -> None:
        with self._lock:
            self.latest = json.loads(message.data)

    def get(self) -> dict[str, Any]:
        with self._lock:
            return dict(self.latest)

    def wait(self, predicate: Callable[[dict[str, Any]], bool], what: str,
             timeout: float = 60.0) -> dict[str, Any]:
        """Wait until the latest status satisfies ``predicate``; return it."""
        return wait_for(lambda: (lambda s: s if s and predicate(s) else None)(self.get()),
                        timeout, what, describe=lambda: f'the last status: {self.get()}')


def lasting(entities: Optional[dict[str, int]]) -> Optional[dict[str, int]]:
    """Return the entity counts but the timers (the event ticker makes deadline timers)."""
    return {kind: count for kind, count in entities.items() if kind != 'timers'} \
        if entities else None


def executive_log_problems(process: SpawnedProcess) -> list[str]:
    """Return the lines of the executive's output that must never appear."""
    text = process.stdout_text() + process.stderr_text()
    return [line for line in text.splitlines() if any(bad in line for bad in BAD_LINES)]


def churn_peer(spawn: Callable[..., SpawnedProcess], env: dict[str, str], executive: str,
               mode: str, *args: str) -> SpawnedProcess:
    return spawn(PEERS / 'viewer_churn.py', executive, mode, *args, env=env)


def wait_done(process: SpawnedProcess, deadline: float,
              executive: Optional[SpawnedProcess] = None) -> dict[str, Any]:
    """Wait for a churn peer's ``done`` (or ``failed``) event; return it.

    Fails at once, saying so, when ``executive`` exits meanwhile.
    """
    def finished() -> Optional[dict[str, Any]]:
        if executive is not None and executive.returncode is not None:
            raise AssertionError(f'the executive died (exit status {executive.returncode}) '
                                 f'while {process.name} churned')
        return next((event for event in process.events()
                     if event.get('event') in ('done', 'failed')), None)
    event = wait_for(finished, max(1.0, deadline - time.monotonic()),
                     f'{process.name} to finish its cycles')
    assert event['event'] == 'done', f'{process.name}: {event}'
    return event


def kill_viewers(spawn: Callable[..., SpawnedProcess], env: dict[str, str], executive: str,
                 count: int, deadline: float, errors: list[str]) -> None:
    """Kill ``count`` viewers with SIGKILL while they read: processes of KILLED_STREAMS each.

    ``env`` gives them a short DDS lease (helpers.short_lease): with the default 20 s, every
    participant's discovery waits on the dead ones for that long, and the other churning
    viewers' first snapshots with it. It also keeps them off Fast DDS's shared memory
    (UDP on loopback): a reader killed while messages are queued for it is suspected to
    pin them in the *executive's* shared memory segment (512 KiB by default), after which
    no full snapshot reached new local viewers (RELIABILITY.md, "Limits known").
    What is tested is the executive, not DDS: a viewer that crashes on its own before it
    holds its streams (SIGSEGV inside Fast DDS while its participant starts beside the
    killed ones: seen twice in some twenty suite runs, also in other peers) is replaced,
    and said so, up to :data:`VIEWER_CRASHES` times; the executive's own exit still fails
    the test at once.
    """
    try:
        killed = crashed = 0
        while killed < count // KILLED_STREAMS:
            process = churn_peer(spawn, env, executive, 'hold', '--cycles', str(KILLED_STREAMS),
                                 '--timeout', str(PEER_TIMEOUT))
            try:
                process.wait_for_line('HELD', timeout=max(1.0, deadline - time.monotonic()))
            except AssertionError:
                if process.returncode is None or process.returncode >= 0 \
                        or crashed >= VIEWER_CRASHES:
                    raise
                crashed += 1
                print(f'churn: {process.name} crashed on its own (status '
                      f'{process.returncode}) before holding its streams; replaced')
                continue
            os.kill(process.pid, signal.SIGKILL)
            killed += 1
    except BaseException as error:  # noqa: B902 - reported by the test
        errors.append(f'killed viewers: {type(error).__name__}: {error}')


def churn_groot2(port: int, cycles: int, errors: list[str]) -> None:
    """Connect a Groot2 client, ask for the tree and statuses, drop it; ``cycles`` times."""
    from btview import client as btview_client
    try:
        for _ in range(cycles):
            client = btview_client.Groot2Client(port=port, timeout_ms=int(TIMEOUT * 1000))
            try:
                client.fetch_tree_xml()
                client.poll()
            finally:
                client.close()  # linger 0: the connection is dropped, not said goodbye to
    except BaseException as error:  # noqa: B902 - reported by the test
        errors.append(f'Groot2 clients: {type(error).__name__}: {error}')


def churn_foxglove(port: int, cycles: int, errors: list[str]) -> None:
    """Connect a Foxglove client, subscribe to every channel, take a message, drop it."""
    async def one() -> None:
        import websockets
        socket_ = await websockets.connect(f'ws://127.0.0.1:{port}',
                                           subprotocols=[FOXGLOVE_SUBPROTOCOL], max_size=None)
        try:
            while True:
                frame = await asyncio.wait_for(socket_.recv(), TIMEOUT)
                if isinstance(frame, bytes):
                    return  # a message of a channel: enough
                message = json.loads(frame)
                if message['op'] == 'advertise':
                    await socket_.send(json.dumps({'op': 'subscribe', 'subscriptions': [
                        {'id': index, 'channelId': channel['id']}
                        for index, channel in enumerate(message['channels'])]}))
        finally:
            socket_.transport.abort()  # no close handshake: as a killed client

    try:
        for _ in range(cycles):
            asyncio.run(one())
    except BaseException as error:  # noqa: B902 - reported by the test
        errors.append(f'Foxglove clients: {type(error).__name__}: {error}')


def churn_web_view(spawn: Callable[..., SpawnedProcess], namespace: str, cycles: int,
                   restarts: int, errors: list[str]) -> None:
    """Restart the web view ``restarts`` times; open and drop its event stream meanwhile."""
    try:
        per_view = max(1, cycles // restarts)
        for _ in range(restarts):
            view = spawn(CLI, 'view', '--ns', namespace, '--port', '0')
            line = wait_for(lambda: next((line for line in view.lines()
                                          if line.startswith('bt-executive view: http://')),
                                         None), TIMEOUT, 'the web view URL')
            url = line.split()[2]
            for _ in range(per_view):
                with urllib.request.urlopen(url + 'events', timeout=TIMEOUT) as stream:
                    while not stream.readline().startswith(b'data:'):
                        pass  # up to the first event's data: a browser that saw the tree
            assert view.stop() == 0, 'the web view did not exit cleanly'
    except BaseException as error:  # noqa: B902 - reported by the test
        errors.append(f'web view: {type(error).__name__}: {error}')


def start_patrol(spawn: Callable[..., SpawnedProcess], namespace: str, env: dict[str, str],
                 *extra: str) -> SpawnedProcess:
    """Start the sim and the executive on the patrol, real time, in ``namespace``."""
    spawn(SIM, '--ros-args', '--params-file', str(CONFIG / 'sim_robot.yaml'),
          '-r', f'__ns:={namespace}')
    return spawn(EXECUTIVE, '--ros-args', '--params-file', str(CONFIG / 'executive.yaml'),
                 '-r', f'__ns:={namespace}', '-p', f'tree_file:={CONFIG / "patrol.yaml"}',
                 '-p', 'status_period:=0.2', *extra, env=env, grace=15.0)


def test_viewers_coming_and_going_never_hurt_the_patrol(
        spawn: Callable[..., SpawnedProcess], ros_node: Any, typed_standin: Any,
        tmp_path: pathlib.Path) -> None:
    env = typed_standin('py_trees_ros_interfaces').environment()
    env['PYTHONFAULTHANDLER'] = '1'
    namespace = f'/churn_{uuid.uuid4().hex[:8]}'
    executive_name = f'{namespace}/bt_executive'
    groot2_port, foxglove_port = free_port(), free_port()
    executive = start_patrol(spawn, namespace, env, '-p', f'groot2_port:={groot2_port}',
                             '-p', f'foxglove_port:={foxglove_port}',
                             '-p', f'snapshot_stream_timeout:={ORPHAN_TIMEOUT}')
    status = StatusWatch(ros_node, executive_name)
    first = status.wait(lambda s: s.get('tick_count', 0) > 0, 'the patrol to tick')
    baseline = lasting(first['ros_entities'])

    deadline = time.monotonic() + CHURN_TIMEOUT
    errors: list[str] = []
    # the stream cycles are shared by two peers at once: as many cycles, half the wait
    # (each cycle mostly waits for discovery and a first snapshot), more concurrency
    peers = [churn_peer(spawn, env, executive_name, mode, '--cycles', str(cycles),
                        '--timeout', str(PEER_TIMEOUT))
             for mode, cycles in (('topics', CYCLES), ('streams', CYCLES // 2),
                                  ('streams', CYCLES - CYCLES // 2),
                                  ('leave', LEAVE_CYCLES))]
    killed_env = {**env, **short_lease(tmp_path), 'FASTDDS_BUILTIN_TRANSPORTS': 'UDPv4'}
    threads = [threading.Thread(target=target, args=args, daemon=True, name=target.__name__)
               for target, args in (
        # two killers at once: a viewer process takes a few seconds to start
        (kill_viewers, (spawn, killed_env, executive_name, CYCLES // 2, deadline, errors)),
        (kill_viewers, (spawn, killed_env, executive_name, CYCLES // 2, deadline, errors)),
        (churn_groot2, (groot2_port, CYCLES, errors)),
        (churn_foxglove, (foxglove_port, CYCLES, errors)),
        (churn_web_view, (spawn, namespace.strip('/'), CYCLES, 5, errors)))]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    done = []
    for peer in peers:
        done.append(wait_done(peer, deadline, executive))
        print(f'churn: {done[-1]} after {time.monotonic() - started:.1f} s')
    for event in done:  # matched every time; the first message mostly (see the peer)
        assert event['received'] > 0, event
    for thread in threads:
        thread.join(max(1.0, deadline - time.monotonic()))
        assert not thread.is_alive(), f'{thread.name} did not finish within the churn time'
        print(f'churn: {thread.name} done after {time.monotonic() - started:.1f} s')
    assert errors == []

    assert executive.returncode is None, f'the executive died: {executive.returncode}'
    # a viewer of every kind that comes now gets everything it asks for; but the whole
    # tree's messages, the largest: in 3 of 9 runs at load 11-18 no ~/snapshot keyframe,
    # once (2026-12-03, six test workers) no message of the default stream ~/snapshots,
    # and once (2026-12-03 again) none of an opened stream, reached a new local subscriber
    # for 60 s after the churn while status and deltas did, the executive publishing
    # (RELIABILITY.md, "Limits known"): reported, not failed
    for mode in ('topics', 'streams'):
        event = wait_done(churn_peer(spawn, env, executive_name, mode, '--cycles', '1',
                                     '--strict', '--optional', 'snapshot',
                                     '--optional', 'snapshots', '--optional', 'stream',
                                     '--delivery-wait',
                                     '20', '--timeout', str(TIMEOUT)),
                          time.monotonic() + 2 * TIMEOUT, executive)
        print(f'after the churn: {event}')
    churn_groot2(groot2_port, 1, errors)
    churn_foxglove(foxglove_port, 1, errors)
    assert errors == []
    before = status.get()['tick_count']
    after = status.wait(lambda s: s['tick_count'] > before, 'the patrol to tick after the churn')
    assert after['callback_errors'] == 0
    # the killed and left viewers' streams are closed by the orphan timeout
    status.wait(lambda s: lasting(s.get('ros_entities')) == baseline,
                f"the executive's ROS entities to return to {baseline}")
    assert executive.stop() == 0
    assert executive_log_problems(executive) == []


SWAP_TREE = """
    subscriptions:
      - {{topic: emergency_stop, type: std_msgs/msg/Bool, field: data, key: estop}}
    trees:
      Main:
        Sequence root:
          - Success ready
          - Action fib: {{type: test_msgs/action/Fibonacci, server: {server},
                         goal: {{order: 1000}}, feedback_key: progress}}
    """


def test_swaps_while_goals_run_and_feedback_flows_never_crash(
        spawn: Callable[..., SpawnedProcess], ros_node: Any, tmp_path: pathlib.Path) -> None:
    server = f'fib_{uuid.uuid4().hex[:8]}'
    fibonacci = spawn(PEERS / 'fibonacci_server.py', server, 'slow', '--period', '0.002')
    fibonacci.wait_for_line('READY', timeout=TIMEOUT)
    trees = []
    for name in ('a', 'b'):
        path = tmp_path / f'{name}.yaml'
        path.write_text(SWAP_TREE.format(server=f'/{server}'))
        trees.append(str(path))
    namespace = f'/swaps_{uuid.uuid4().hex[:8]}'
    executive_name = f'{namespace}/bt_executive'
    executive = spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:={namespace}',
                      '-p', f'tree_file:={trees[0]}', '-p', 'tick_mode:=event',
                      '-p', 'status_period:=0.2',
                      # a server starved of CPU by a busy machine may take seconds to
                      # confirm a cancel; the stop awaits it (and exits 1 if it never comes)
                      '-p', 'shutdown_timeout:=10.0',
                      env={'PYTHONFAULTHANDLER': '1'}, grace=25.0)
    status = StatusWatch(ros_node, executive_name)
    first = status.wait(lambda s: 'Main/root/fib' in s.get('active', []), 'the goal to run')
    baseline = lasting(first['ros_entities'])
    # each swap waits for the goal of the tree it swapped in: swaps while goals run, also
    # when discovery of the new action client is slow on a busy machine
    swapper = spawn(PEERS / 'viewer_churn.py', executive_name, 'swaps', '--cycles',
                    str(CYCLES), '--tree', trees[1], '--tree', trees[0],
                    '--goals', f'/{server}/events')
    wait_done(swapper, time.monotonic() + CHURN_TIMEOUT, executive)
    assert executive.returncode is None, f'the executive died: {executive.returncode}'
    final = status.wait(lambda s: 'Main/root/fib' in s.get('active', [])
                        and lasting(s.get('ros_entities')) == baseline,
                        f'the last tree to run its goal with the entities of the first '
                        f'({baseline})')
    assert final['callback_errors'] == 0
    assert executive.stop() == 0
    assert executive_log_problems(executive) == []
    # every goal the swaps left behind was cancelled: none finishes on its own
    accepted = {event['goal_id'] for event in fibonacci.events()
                if event.get('event') == 'goal_accepted'}
    wait_for(lambda: accepted <= {event['goal_id'] for event in fibonacci.events()
                                  if event.get('event') == 'finished'},
             TIMEOUT, 'every goal to end')
    canceled = {event['goal_id'] for event in fibonacci.events()
                if event.get('event') == 'finished' and event['status'] == 'canceled'}
    assert len(accepted) > CYCLES, 'a goal ran before each swap and after the last'
    assert accepted == canceled
