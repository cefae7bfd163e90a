# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Driving the executive from another node: ExecuteTree, ListTrees, the typed topics.

The executive is a real subprocess started idle (``idle:=true``) on config/tasks.yaml;
the test process is the other node (rclpy's own ``ActionClient``), and the action the
cancelled tree calls is served by a real rclpy ``ActionServer`` in a peer process
(peers/fibonacci_server.py) whose cancel answer is held back, so the order in which the
two cancels are acknowledged shows. Skipped, with the reason, where make env could not
build bt_executive_interfaces (test/test_interfaces_package.py says why).
"""

from collections.abc import Callable
import os
import pathlib
import subprocess
import threading
import time
from typing import Any
import uuid

from cli_process import run_cli
from executive_host import write_tree
from helpers import collect_json, PeerEvents, SpawnedProcess, wait_event, wait_for, \
    wait_future
import pytest
from test_interfaces_package import interfaces_or_skip

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
TASKS = ROOT / 'config' / 'tasks.yaml'
PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
TIMEOUT = 20.0

CANCELLED_TREE = """
    trees:
      Compute:
        params: {server: null, order: 40}
        root:
          Sequence compute:
            - Log: computing
            - Action fibonacci:
                type: test_msgs/action/Fibonacci
                server: $server
                goal: {order: $order}
                server_timeout: 10.0
    """


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def executive_script() -> pathlib.Path:
    import bt_executive.ros.executive as module
    return pathlib.Path(module.__file__)


class Client:
    """The other node's side: an ExecuteTree client of one executive, and its goals.

    The action client is bt_executive's own (plain clients and subscriptions): rclpy's
    ``ActionClient`` adds itself to the node before it is fully made, and ``ros_node``'s
    executor, spinning in another thread, can trip over it then. (``run-tree``, tested
    below, is rclpy's client, made before its process spins.)
    """

    def __init__(self, node: Any, namespace: str) -> None:
        from bt_executive.ros.action_client import ActionClient
        from bt_executive_interfaces.action import ExecuteTree
        self.node = node
        self.namespace = namespace
        self.types = ExecuteTree
        self.action = ActionClient(node, ExecuteTree, f'{namespace}/bt_executive/execute_tree')
        wait_for(self.action.server_is_ready, TIMEOUT, f'the ExecuteTree server at {namespace}')

    def send(self, tree: str, *, file: str = '', parameters: dict[str, str] = None,
             keys: tuple[str, ...] = ()) -> tuple[Any, list[Any]]:
        """Send a goal; return its handle (accepted or not) and its feedback so far."""
        from bt_executive_interfaces.msg import KeyValue
        feedback: list[Any] = []
        goal = self.types.Goal(tree=tree, file=file, result_keys=list(keys), parameters=[
            KeyValue(key=key, value=value) for key, value in (parameters or {}).items()])
        handle = wait_future(self.action.send_goal_async(
            goal, feedback_callback=lambda message: feedback.append(message.feedback)),
            TIMEOUT, f'the answer to the goal for {tree}')
        return handle, feedback

    def result(self, handle: Any, timeout: float = TIMEOUT) -> Any:
        """Return the goal's result response (``status``, ``result``)."""
        return wait_future(handle.get_result_async(), timeout, 'the ExecuteTree result')


@pytest.fixture
def start_executive(spawn: Callable[..., SpawnedProcess], ros_node: Any
                    ) -> Callable[..., Client]:
    """Start an idle executive on config/tasks.yaml; return a client of it."""
    interfaces_or_skip()

    def start(*parameters: str) -> Client:
        namespace = '/' + unique('exec')
        args = ['--ros-args', '-r', f'__ns:={namespace}', '-p', 'idle:=true',
                '-p', f'tree_file:={TASKS}']
        for parameter in parameters:
            args += ['-p', parameter]
        spawn(executive_script(), *args)
        return Client(ros_node, namespace)

    return start


def pairs(items: Any) -> dict[str, str]:
    return {item.key: item.value for item in items}


def test_a_goal_runs_a_tree_with_an_argument_and_reports_feedback_and_success(
        start_executive: Callable[..., Client], ros_node: Any) -> None:
    from bt_executive_interfaces.msg import TreeStatus
    from bt_executive_interfaces.srv import ListTrees
    client = start_executive()
    # the file's trees and their parameters, for a task manager to choose from
    lister = ros_node.create_client(ListTrees, f'{client.namespace}/bt_executive/list_trees')
    assert lister.wait_for_service(timeout_sec=TIMEOUT)
    listed = wait_future(lister.call_async(ListTrees.Request()), TIMEOUT, 'ListTrees')
    assert listed.success, listed.message
    assert {tree.name: pairs(tree.parameters) for tree in listed.trees} == {
        'Greet': {'name': '"world"', 'seconds': '0.2'}, 'Inspect': {'minimum': '0.5'}}
    assert [tree.main for tree in listed.trees] == [True, False]

    handle, feedback = client.send('Greet', parameters={'name': 'robot'}, keys=('greeting',))
    assert handle.accepted
    response = client.result(handle)
    result = response.result
    assert response.status == 4, result.message  # action_msgs GoalStatus SUCCEEDED
    assert result.outcome == client.types.Result.SUCCEEDED
    assert pairs(result.blackboard) == {'greeting': '"hello robot"'}  # the argument took
    assert result.failure_chain == []
    assert result.tick_count >= 2  # the Wait ran for a while
    assert feedback, 'no feedback arrived before the result'
    assert all(item.tick_count >= 1 for item in feedback)
    assert feedback[-1].last_change.node_path.startswith('Greet')
    assert any(item.active_path and item.active_path[0] == 'Greet/greet'
               for item in feedback), [item.active_path for item in feedback]

    # the typed status beside ~/status: latched, so a late subscriber gets it
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    received: list[Any] = []
    got = threading.Event()

    def on_status(message: Any) -> None:
        received.append(message)
        got.set()
    ros_node.create_subscription(
        TreeStatus, f'{client.namespace}/bt_executive/tree_status', on_status,
        QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                   durability=DurabilityPolicy.TRANSIENT_LOCAL))
    wait_event(got, TIMEOUT, 'a latched TreeStatus')
    status = received[-1]
    assert (status.tree, status.root_status, status.running) == ('Greet', TreeStatus.SUCCESS,
                                                                 False)  # idle again

    # ... and the transitions of each tick, the last 20 kept for late joiners
    from bt_executive_interfaces.msg import TransitionLog
    logs: list[Any] = []
    ros_node.create_subscription(
        TransitionLog, f'{client.namespace}/bt_executive/transitions', logs.append,
        QoSProfile(depth=20, reliability=ReliabilityPolicy.RELIABLE,
                   durability=DurabilityPolicy.TRANSIENT_LOCAL))
    wait_for(lambda: any(change.status == TreeStatus.SUCCESS and change.node_path ==
                         'Greet/greet' for log in list(logs) for change in log.changes),
             TIMEOUT, "the root's SUCCESS on ~/transitions")
    changes = [(change.node_path, change.node_type, change.previous_status, change.status)
               for log in logs for change in log.changes]
    assert ('Greet/greet/Wait', 'Wait', TreeStatus.RUNNING, TreeStatus.SUCCESS) in changes
    assert all(log.tree == 'Greet' and log.tick >= 1 for log in logs)


def test_a_failing_tree_returns_failure_with_the_reason_chain(
        start_executive: Callable[..., Client]) -> None:
    client = start_executive()
    handle, _ = client.send('Inspect', keys=('reading', 'absent'))
    assert handle.accepted
    response = client.result(handle)
    result = response.result
    assert response.status == 6  # ABORTED, as Nav2 ends a failed navigation
    assert result.outcome == client.types.Result.FAILED
    why = 'reading >= minimum: reading >= 0.5 is false'
    assert result.failure_chain == [f"Inspect/inspect: 'reading high enough' failed: {why}",
                                    f'Inspect/inspect/reading high enough: {why}']
    assert result.message == f'Inspect/inspect/reading high enough: {why}'
    assert pairs(result.blackboard) == {'reading': '0.25'}  # keys not there are left out

    # an argument the tree does not declare: the goal ends at once, saying so
    handle, _ = client.send('Inspect', parameters={'minimun': '0.1'})
    result = client.result(handle).result
    assert result.outcome == client.types.Result.ABORTED
    assert "tree 'Inspect' has no parameter 'minimun' (it has: minimum)" in result.message

    # with the threshold lowered by an argument the same tree succeeds
    handle, _ = client.send('Inspect', parameters={'minimum': '0.1'})
    assert client.result(handle).result.outcome == client.types.Result.SUCCEEDED


def test_cancel_answers_after_the_action_server_acknowledged_its_cancel(
        start_executive: Callable[..., Client], spawn: Callable[..., SpawnedProcess],
        ros_node: Any, tmp_path: pathlib.Path) -> None:
    fib = unique('fib')
    # a real rclpy ActionServer that holds its cancel answer back for 1 s
    spawn(PEERS / 'fibonacci_server.py', fib, 'slow', '--period', '0.1',
          '--cancel-delay', '1.0').wait_for_line('READY', timeout=TIMEOUT)
    peer = PeerEvents(ros_node, f'/{fib}/events')
    tree = write_tree(tmp_path, 'compute.yaml', CANCELLED_TREE)
    client = start_executive()
    handle, feedback = client.send('Compute', file=tree, parameters={'server': f'/{fib}'})
    assert handle.accepted
    peer.wait_for_name('goal_accepted', timeout=TIMEOUT)

    # a second goal while this one runs: rejected (execute_tree_policy: reject)
    second, _ = client.send('Greet')
    assert not second.accepted

    answered: list[float] = []
    cancel = handle.cancel_goal_async()
    cancel.add_done_callback(lambda _: answered.append(time.time()))
    response = wait_future(cancel, TIMEOUT, 'the answer to the ExecuteTree cancel')
    assert len(response.goals_canceling) == 1
    acknowledged = peer.find('cancel_accepted')
    assert acknowledged is not None, 'the ExecuteTree cancel was answered before the ' \
        "action server's cancel was acknowledged"
    assert acknowledged['time'] <= answered[0]
    response = client.result(handle)
    assert response.status == 5  # CANCELED
    assert response.result.outcome == client.types.Result.CANCELED
    assert 'acknowledged' in response.result.message
    assert feedback and feedback[0].last_change.node_path.startswith('Compute')
    peer.wait_for_name('finished', status='canceled', timeout=TIMEOUT)

    # the executive is idle again: the next goal runs
    handle, _ = client.send('Inspect', parameters={'minimum': '0.1'})
    assert client.result(handle).result.outcome == client.types.Result.SUCCEEDED


def test_preempt_policy_ends_the_running_goal_and_runs_the_new_one(
        start_executive: Callable[..., Client], spawn: Callable[..., SpawnedProcess],
        ros_node: Any, tmp_path: pathlib.Path) -> None:
    fib = unique('fib')
    spawn(PEERS / 'fibonacci_server.py', fib, 'slow', '--period', '0.1').wait_for_line(
        'READY', timeout=TIMEOUT)
    peer = PeerEvents(ros_node, f'/{fib}/events')
    tree = write_tree(tmp_path, 'compute.yaml', CANCELLED_TREE)
    client = start_executive('execute_tree_policy:=preempt')
    first, _ = client.send('Compute', file=tree, parameters={'server': f'/{fib}'})
    assert first.accepted
    peer.wait_for_name('goal_accepted', timeout=TIMEOUT)
    second, _ = client.send('Greet', keys=('greeting',))
    assert second.accepted
    ended = client.result(first).result
    assert ended.outcome == client.types.Result.ABORTED
    assert ended.message == "preempted by a goal for tree 'Greet'"
    # the preempted tree was swapped out as on any swap: its action goal was cancelled
    peer.wait_for_name('finished', status='canceled', timeout=TIMEOUT)
    result = client.result(second).result
    assert result.outcome == client.types.Result.SUCCEEDED
    assert pairs(result.blackboard) == {'greeting': '"hello world"'}


def test_run_tree_command_shows_feedback_and_exits_by_the_result(
        start_executive: Callable[..., Client]) -> None:
    client = start_executive()

    def run_tree(*args: str) -> subprocess.CompletedProcess:
        return run_cli('run-tree', *args, '--ns', client.namespace, timeout=60, cwd=ROOT)

    done = run_tree('Greet', '--param', 'name=robot', '--key', 'greeting')
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"running tree 'Greet' on {client.namespace}/bt_executive/execute_tree"
    assert any(line.startswith('tick ') and 'Greet/greet' in line for line in lines), lines
    assert lines[-2].startswith("SUCCEEDED: tree 'Greet' succeeded (")
    assert lines[-1] == '  greeting = "hello robot"'

    done = run_tree('Inspect', '--quiet')
    assert done.returncode == 1, done.stderr
    why = 'reading >= minimum: reading >= 0.5 is false'
    assert done.stdout.splitlines() == [
        f'FAILED: Inspect/inspect/reading high enough: {why} (1 ticks)',
        f"  failed: Inspect/inspect: 'reading high enough' failed: {why}",
        f'  failed: Inspect/inspect/reading high enough: {why}']

    done = run_tree('Greet', '--param', 'name')
    assert done.returncode == 2
    assert "--param 'name': expected KEY=VALUE" in done.stderr


def test_without_the_interfaces_the_executive_says_so_once_and_runs_as_before(
        spawn: Callable[..., SpawnedProcess], ros_node: Any, tmp_path: pathlib.Path) -> None:
    # a partial install: the package imports, its types do not (runs whether or not the
    # real package is built: this one comes first on PYTHONPATH)
    package = tmp_path / 'partial' / 'bt_executive_interfaces'
    (package / 'action').mkdir(parents=True)
    (package / '__init__.py').write_text('')
    (package / 'action' / '__init__.py').write_text('')
    namespace = '/' + unique('plain')
    status = collect_json(ros_node, f'{namespace}/bt_executive/status', depth=1)
    path = os.pathsep.join(filter(None, [str(tmp_path / 'partial'),
                                         os.environ.get('PYTHONPATH')]))
    process = spawn(executive_script(), '--ros-args', '-r', f'__ns:={namespace}',
                    '-p', f'tree_file:={TASKS}', '-p', 'tick_rate:=50.0',
                    env={'PYTHONPATH': path})
    wait_for(lambda: any(s.get('root_status') == 'SUCCESS' for s in status), TIMEOUT,
             'the main tree to succeed, reported on the JSON ~/status')
    lines = [line for line in process.stderr_text().splitlines() if 'typed interfaces' in line]
    assert len(lines) == 1, lines
    assert lines[0].endswith('typed interfaces: off (bt_executive_interfaces is not installed; '
                             'make env or colcon builds it): no ~/execute_tree, ~/list_trees, '
                             '~/tree_status, ~/transitions')
    names = wait_for(lambda: (lambda found: found if f'{namespace}/bt_executive/pause' in found
                              else None)(dict(ros_node.get_service_names_and_types())),
                     TIMEOUT, "the executive's services in the graph")
    assert not any(name.startswith(f'{namespace}/bt_executive/list_trees') for name in names)


def test_a_lifecycle_executive_takes_goals_only_while_active(
        spawn: Callable[..., SpawnedProcess], ros_node: Any) -> None:
    interfaces_or_skip()
    from lifecycle_msgs.msg import Transition
    from lifecycle_msgs.srv import ChangeState
    namespace = '/' + unique('managed')
    spawn(ROOT / 'bt_executive' / 'ros' / 'lifecycle.py', '--ros-args', '-r',
          f'__ns:={namespace}', '-p', f'tree_file:={TASKS}', '-p', 'tree_name:=Inspect')
    client = Client(ros_node, namespace)
    handle, _ = client.send('Greet')
    assert not handle.accepted  # unconfigured

    change = ros_node.create_client(ChangeState, f'{namespace}/bt_executive/change_state')
    assert change.wait_for_service(timeout_sec=TIMEOUT)
    for transition in (Transition.TRANSITION_CONFIGURE, Transition.TRANSITION_ACTIVATE):
        answer = wait_future(change.call_async(ChangeState.Request(
            transition=Transition(id=transition))), TIMEOUT, 'a lifecycle transition')
        assert answer.success
    handle, _ = client.send('Greet', keys=('greeting',))
    assert handle.accepted
    result = client.result(handle).result
    assert result.outcome == client.types.Result.SUCCEEDED
    assert pairs(result.blackboard) == {'greeting': '"hello world"'}
