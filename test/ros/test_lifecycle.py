# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The lifecycle executive, driven across processes as a lifecycle manager drives it.

The executive (``bt_executive/ros/lifecycle.py``) runs as a real process; the test calls
its ``~/change_state`` and ``~/get_state`` (lifecycle_msgs) from its own node, reads
``~/status``, and watches a Fibonacci peer server to see the goals the tree sends and the
cancels it gets: configure loads (nothing ticks), activate ticks (a goal reaches the
server), deactivate cancels the goal and answers only once the server acknowledged the
cancel, cleanup releases, configure works again, shutdown ends the process with status 0.
A tree file that does not load fails configure with the located error and leaves the node
unconfigured until the file is fixed. SIGINT while active is a clean stop.
"""

from collections.abc import Callable
import pathlib
import signal
import time
from typing import Any
import uuid

from conftest import PEERS
from executive_host import write_tree
from helpers import collect_json, PeerEvents, SpawnedProcess, wait_for, wait_future
import pytest

pytestmark = [pytest.mark.ros]

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIFECYCLE = ROOT / 'bt_executive' / 'ros' / 'lifecycle.py'
TIMEOUT = 30.0

GOAL_TREE = """
    trees:
      Main:
        Action move: {{type: test_msgs/action/Fibonacci, server: /{server},
                      goal: {{order: 5}}, server_timeout: 20.0}}
    """

BAD_TREE = """
    trees:
      Main:
        Sequense: []
    """


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


class Managed:
    """Drive the lifecycle executive in ``namespace`` as a lifecycle manager does."""

    def __init__(self, node: Any, namespace: str, process: SpawnedProcess) -> None:
        from lifecycle_msgs.srv import ChangeState, GetState

        self.node = node
        self.process = process
        self.name = f'{namespace}/bt_executive'
        self.change = node.create_client(ChangeState, f'{self.name}/change_state')
        self.get = node.create_client(GetState, f'{self.name}/get_state')
        self.status = collect_json(node, f'{self.name}/status')
        wait_for(lambda: self.change.service_is_ready() and self.get.service_is_ready()
                 or self._alive(), TIMEOUT, f'the lifecycle services of {self.name}')
        # a first answer from get_state: the node's service endpoints are matched
        wait_for(self._answered_state, TIMEOUT, f'an answer from {self.name}/get_state',
                 interval=0.0, pause=lambda _: None)

    def _alive(self) -> bool:
        assert self.process.returncode is None, \
            f'the executive exited ({self.process.returncode}):\n{self.process.stderr_text()}'
        return False

    def _answered_state(self) -> str:
        from lifecycle_msgs.srv import GetState

        self._alive()
        future = self.get.call_async(GetState.Request())
        try:
            return wait_future(future, 2.0, 'get_state').current_state.label
        except AssertionError:  # lost to a discovery race: ask again
            self.get.remove_pending_request(future)
            return ''

    def state(self) -> str:
        """Return the label of the executive's lifecycle state."""
        return wait_for(self._answered_state, TIMEOUT, f'the state of {self.name}',
                        interval=0.0, pause=lambda _: None)

    def transition(self, transition: int | str, goal: str) -> bool:
        """Request ``transition`` (an id, or a label as ros2 lifecycle sends); True on success.

        Like Nav2's manager, the state is read back afterwards: success means the
        response said so and the node is in ``goal``. A response lost to a discovery race
        is answered by the state alone.
        """
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState

        request = Transition(label=transition) if isinstance(transition, str) else \
            Transition(id=transition)
        future = self.change.call_async(ChangeState.Request(transition=request))
        try:
            success = wait_future(future, TIMEOUT, f'the answer to transition {transition}'
                                  ).success
        except AssertionError:
            self._alive()
            self.change.remove_pending_request(future)
            success = True
        return success and (goal == 'finalized' or self.state() == goal)

    def latest_status(self, predicate: Callable[[dict[str, Any]], bool],
                      what: str) -> dict[str, Any]:
        """Wait for a ~/status message for which ``predicate`` holds; return it."""
        return wait_for(lambda: next((s for s in reversed(self.status) if predicate(s)), None),
                        TIMEOUT, f'~/status with {what}; got {self.status[-3:]}')


def start(spawn: Callable[..., SpawnedProcess], tree: str, namespace: str,
          *arguments: str) -> SpawnedProcess:
    return spawn(LIFECYCLE, '--ros-args', '-r', f'__ns:={namespace}', '-p',
                 f'tree_file:={tree}', '-p', 'tick_rate:=50.0', *arguments)


def fibonacci_peer(spawn: Callable[..., SpawnedProcess], node: Any,
                   *options: str) -> tuple[str, PeerEvents, SpawnedProcess]:
    name = unique('fib')
    peer = spawn(PEERS / 'fibonacci_server.py', name, 'slow', *options)
    peer.wait_for_line('READY', timeout=TIMEOUT)
    return name, PeerEvents(node, f'/{name}/events'), peer


def test_configure_activate_deactivate_cleanup_configure_shutdown(spawn, tmp_path, ros_node):
    from lifecycle_msgs.msg import Transition

    # the server takes 1 s to accept a cancel: deactivate must answer after that
    server, events, peer = fibonacci_peer(spawn, ros_node, '--cancel-delay', '1.0')
    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'goal.yaml', GOAL_TREE.format(
        server=server)), namespace)
    managed = Managed(ros_node, namespace, executive)
    assert managed.state() == 'unconfigured'
    managed.latest_status(lambda s: s['lifecycle_state'] == 'unconfigured'
                          and s['tree'] is None, 'no tree before configure')

    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    inactive = managed.latest_status(lambda s: s['lifecycle_state'] == 'inactive',
                                     'the configured tree')
    assert inactive['tree'] == 'Main' and not inactive['running']
    assert inactive['tick_count'] == 0

    assert managed.transition(Transition.TRANSITION_ACTIVATE, 'active')
    first = events.wait_for_name('goal_accepted', timeout=TIMEOUT)
    managed.latest_status(lambda s: s['lifecycle_state'] == 'active' and s['running'],
                          'the tree running')

    assert managed.transition(Transition.TRANSITION_DEACTIVATE, 'inactive')
    answered = time.time()
    cancelled = peer.wait_for_event(lambda e: e['event'] == 'cancel_accepted'
                                    and e['goal_id'] == first['goal_id'], timeout=TIMEOUT)
    assert cancelled['time'] <= answered, 'deactivate answered before the cancel was accepted'
    deactivated = managed.latest_status(lambda s: s['lifecycle_state'] == 'inactive'
                                        and s['tick_count'] > 0, 'the halted tree')
    assert not deactivated['running']

    assert managed.transition(Transition.TRANSITION_CLEANUP, 'unconfigured')
    managed.latest_status(lambda s: s['lifecycle_state'] == 'unconfigured'
                          and s['tree'] is None, 'the tree released')

    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    assert managed.transition(Transition.TRANSITION_ACTIVATE, 'active')
    second = events.wait_for(lambda e: e['event'] == 'goal_accepted'
                             and e['goal_id'] != first['goal_id'], timeout=TIMEOUT,
                             message='a goal after configuring again')

    assert managed.transition(Transition.TRANSITION_ACTIVE_SHUTDOWN, 'finalized')
    answered = time.time()
    cancelled = peer.wait_for_event(lambda e: e['event'] == 'cancel_accepted'
                                    and e['goal_id'] == second['goal_id'], timeout=TIMEOUT)
    assert cancelled['time'] <= answered, 'shutdown answered before the cancel was accepted'
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    assert 'Traceback' not in executive.stderr_text()


def test_a_bad_tree_file_fails_configure_until_it_is_fixed(spawn, tmp_path, ros_node):
    from lifecycle_msgs.msg import Transition
    from std_srvs.srv import Trigger

    namespace = f'/{unique("life")}'
    tree = write_tree(tmp_path, 'tree.yaml', BAD_TREE)
    executive = start(spawn, tree, namespace)
    managed = Managed(ros_node, namespace, executive)

    assert not managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    assert managed.state() == 'unconfigured'
    located = f"{tree}:4:5: Main/Sequense: unknown node type 'Sequense'"
    failed = managed.latest_status(lambda s: s['lifecycle_error'], 'the configure error')
    assert located in failed['lifecycle_error'] and failed['lifecycle_state'] == 'unconfigured'
    wait_for(lambda: located in executive.stderr_text(), TIMEOUT, 'the error in the log')

    write_tree(tmp_path, 'tree.yaml', """
        trees:
          Main:
            Running: {}
        """)
    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    managed.latest_status(lambda s: s['lifecycle_state'] == 'inactive'
                          and not s['lifecycle_error'], 'the error cleared')
    resume = ros_node.create_client(Trigger, f'{managed.name}/resume')
    assert resume.wait_for_service(timeout_sec=TIMEOUT)
    answer = wait_future(resume.call_async(Trigger.Request()), TIMEOUT, 'the resume answer')
    assert not answer.success and 'inactive' in answer.message

    assert managed.transition(Transition.TRANSITION_INACTIVE_SHUTDOWN, 'finalized')
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()


def test_shutdown_from_unconfigured_exits_with_status_0(spawn, tmp_path, ros_node):
    from lifecycle_msgs.msg import Transition

    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'tree.yaml', BAD_TREE), namespace)
    managed = Managed(ros_node, namespace, executive)
    assert managed.transition(Transition.TRANSITION_UNCONFIGURED_SHUTDOWN, 'finalized')
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()


def test_sigint_while_active_cancels_the_goal_and_exits_0(spawn, tmp_path, ros_node):
    from lifecycle_msgs.msg import Transition

    server, events, peer = fibonacci_peer(spawn, ros_node)
    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'goal.yaml', GOAL_TREE.format(
        server=server)), namespace)
    managed = Managed(ros_node, namespace, executive)
    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    assert managed.transition(Transition.TRANSITION_ACTIVATE, 'active')
    goal = events.wait_for_name('goal_accepted', timeout=TIMEOUT)
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    peer.wait_for_event(lambda e: e['event'] == 'cancel_accepted'
                        and e['goal_id'] == goal['goal_id'], timeout=TIMEOUT)
    assert 'Traceback' not in executive.stderr_text()


def test_the_order_of_nav2s_lifecycle_manager_and_labels_work(spawn, tmp_path, ros_node):
    """Bring up as Nav2's manager does (ids), bring down as ``ros2 lifecycle set`` does."""
    from lifecycle_msgs.msg import Transition

    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'tree.yaml', """
        trees:
          Main:
            Sequence:
              - Log: the tree ticks
              - Running: {}
        """), namespace, '-p', 'tick_mode:=event')
    managed = Managed(ros_node, namespace, executive)
    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    assert managed.transition(Transition.TRANSITION_ACTIVATE, 'active')
    wait_for(lambda: 'the tree ticks' in executive.stderr_text(), TIMEOUT, 'the first tick')
    for label, goal in (('deactivate', 'inactive'), ('cleanup', 'unconfigured'),
                        ('shutdown', 'finalized')):
        assert managed.transition(label, goal), label
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    log = executive.stderr_text()
    assert 'Traceback' not in log and log.count('the tree ticks') == 1


@pytest.mark.parametrize('state', ['unconfigured', 'inactive'])
def test_a_signal_in_any_state_exits_with_status_0(spawn, tmp_path, ros_node, state):
    from lifecycle_msgs.msg import Transition

    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'tree.yaml', """
        trees:
          Main:
            Running: {}
        """), namespace)
    managed = Managed(ros_node, namespace, executive)
    if state == 'inactive':
        assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    executive.popen.send_signal(signal.SIGTERM)
    assert executive.popen.wait(TIMEOUT) == 0, executive.stderr_text()
    assert 'Traceback' not in executive.stderr_text()
    assert 'shut down: finalized' in executive.stderr_text()


def test_deactivate_waits_at_most_shutdown_timeout_for_a_cancel(spawn, tmp_path, ros_node):
    from lifecycle_msgs.msg import Transition

    server, events, _ = fibonacci_peer(spawn, ros_node, '--cancel-delay', '60')
    namespace = f'/{unique("life")}'
    executive = start(spawn, write_tree(tmp_path, 'goal.yaml', GOAL_TREE.format(
        server=server)), namespace, '-p', 'shutdown_timeout:=0.5')
    managed = Managed(ros_node, namespace, executive)
    assert managed.transition(Transition.TRANSITION_CONFIGURE, 'inactive')
    assert managed.transition(Transition.TRANSITION_ACTIVATE, 'active')
    events.wait_for_name('goal_accepted', timeout=TIMEOUT)
    assert managed.transition(Transition.TRANSITION_DEACTIVATE, 'inactive')
    events.wait_for_name('cancel_requested', timeout=TIMEOUT)
    assert 'deactivate: 1 goal cancel not acknowledged within shutdown_timeout (0.5 s)' \
        in executive.stderr_text()
    # the goal may still run on the robot: stopping now is not a clean stop
    executive.popen.send_signal(signal.SIGINT)
    assert executive.popen.wait(TIMEOUT) == 1, executive.stderr_text()
    assert 'some goal cancels were not acknowledged within 0.5 s' in executive.stderr_text()
