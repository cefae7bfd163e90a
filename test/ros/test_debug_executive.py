# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Debugging a live tree through ~/debug/...: a real executive process, real action servers.

The executive runs as a process (``bt_executive/ros/executive.py``) with ``debug:=true``;
the action server is the Fibonacci peer, whose events count every goal, cancel and end.
Requests go through ``~/debug/command`` (bt_executive_interfaces/srv/DebugCommand), or
its JSON fallback on ``~/debug/request`` when the interface package is not installed,
and through the Trigger services.
"""

from __future__ import annotations

from collections.abc import Callable
import json
import signal
import time
from typing import Any, Optional
import uuid

from bt_executive.observe.replay import Timeline
from bt_executive.ros.debug_services import debug_command_type
from conftest import PEERS
from executive_host import write_tree
from helpers import collect_json, PeerEvents, set_tree_file, SpawnedProcess, wait_for
import pytest
from test_fault_signals import EXECUTIVE
from test_patrol import PatrolRun

pytestmark = [pytest.mark.ros, pytest.mark.slow]

TIMEOUT = 20.0
#: steps tried until the stepped Action finds its server, and the wait after each
MAX_STEPS, STEP_WAIT = 10, 3.0
#: Seconds watched to see that nothing more happens (no tick, no goal): an absence has
#: no event to await
QUIET = 0.6
GO, MOVE, DONE = 'Main/root/go', 'Main/root/move', 'Main/root/done'
UNTYPED_EXECUTIVE = PEERS / 'untyped_executive.py'


def unique(prefix: str) -> str:
    return f'{prefix}_{uuid.uuid4().hex[:8]}'


def tree_text(server: str) -> str:
    return f"""
        blackboard: {{go: false, done: 0}}
        trees:
          Main:
            Sequence root:
              - WaitUntil go: go
              - Action move: {{type: test_msgs/action/Fibonacci, server: {server},
                              goal: {{order: 5}}, server_timeout: 10.0}}
              - SetBlackboard done: {{key: done, value: '${{done + 1}}'}}
        """


class Debugger:
    """Call an executive's ~/debug/... services from the test's node."""

    def __init__(self, node: Any, namespace: str, *, typed: bool = True) -> None:
        from std_msgs.msg import String
        from std_srvs.srv import Trigger
        self.node = node
        self.prefix = f'{namespace}/bt_executive/debug'
        self.typed = debug_command_type() if typed else None
        self.triggers = {name: node.create_client(Trigger, f'{self.prefix}/{name}')
                         for name in ('pause', 'step', 'continue', 'clear', 'state')}
        if self.typed is not None:
            self.client = node.create_client(self.typed, f'{self.prefix}/command')
        else:  # the JSON fallback
            from rclpy.qos import QoSProfile, ReliabilityPolicy
            qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
            self.replies: list[dict[str, Any]] = []
            node.create_subscription(String, f'{self.prefix}/reply',
                                     lambda m: self.replies.append(json.loads(m.data)), qos)
            self.requests = node.create_publisher(String, f'{self.prefix}/request', qos)

    def command(self, command: str, **fields: Any) -> tuple[bool, str, dict[str, Any]]:
        """Send one request; return (success, message, state)."""
        if self.typed is not None:
            wait_for(self.client.service_is_ready, TIMEOUT, '~/debug/command')
            request = self.typed.Request(command=command, **fields)
            future = self.client.call_async(request)
            wait_for(future.done, TIMEOUT, f'the answer to {command}')
            answer = future.result()
            return answer.success, answer.message, json.loads(answer.state)
        ident = uuid.uuid4().hex
        wait_for(lambda: self.requests.get_subscription_count() > 0, TIMEOUT,
                 '~/debug/request subscribed')
        from std_msgs.msg import String
        self.requests.publish(String(data=json.dumps({'id': ident, 'command': command,
                                                      **fields})))
        reply = wait_for(lambda: next((r for r in self.replies if r['id'] == ident), None),
                         TIMEOUT, f'the reply to {command}')
        return reply['success'], reply['message'], reply['state']

    def trigger(self, name: str) -> tuple[bool, str]:
        client = self.triggers[name]
        wait_for(client.service_is_ready, TIMEOUT, f'~/debug/{name}')
        from std_srvs.srv import Trigger
        future = client.call_async(Trigger.Request())
        wait_for(future.done, TIMEOUT, f'the answer to ~/debug/{name}')
        return future.result().success, future.result().message

    def state(self) -> dict[str, Any]:
        done, text = self.trigger('state')
        assert done, text
        return json.loads(text)

    def ok(self, command: str, **fields: Any) -> str:
        done, message, _ = self.command(command, **fields)
        assert done, message
        return message

    def wait_paused_at(self, node: str) -> dict[str, Any]:
        def paused() -> Optional[dict[str, Any]]:
            state = self.state()
            at = state.get('paused_at')
            return state if at is not None and at['node'] == node else None
        return wait_for(paused, TIMEOUT, f'paused at {node}', describe=self.state)


class Run:
    """A Fibonacci server peer and an executive process with its debugger client."""

    def __init__(self, spawn: Callable[..., SpawnedProcess], node: Any, tmp_path: Any, *,
                 mode: str = 'succeed', debug: bool = True, period: float = 0.05,
                 typed: bool = True, options: tuple[str, ...] = ()) -> None:
        name = unique('fib')
        spawn(PEERS / 'fibonacci_server.py', name, mode, '--period', str(period)) \
            .wait_for_line('READY', timeout=TIMEOUT)
        self.server = PeerEvents(node, f'/{name}/events')
        self.server.wait_for_name('ready', timeout=TIMEOUT)
        self.tree = write_tree(tmp_path, 'debug.yaml', tree_text('/' + name))
        self.namespace = f'/{unique("ex")}'
        options = (*options, '-p', 'debug:=true') if debug else options
        program = EXECUTIVE if typed else UNTYPED_EXECUTIVE
        self.executive = spawn(program, '--ros-args', '-p', f'tree_file:={self.tree}',
                               '-p', "status_keys:=['done', 'go']", *options,
                               '-r', f'__ns:={self.namespace}')
        self.status = collect_json(node, f'{self.namespace}/bt_executive/status')
        self.events = collect_json(node, f'{self.namespace}/bt_executive/events', depth=20)
        self.debugger = Debugger(node, self.namespace, typed=typed)
        self.node = node
        wait_for(lambda: any(s.get('tree') == 'Main' for s in self.status), TIMEOUT,
                 'the tree running')

    def blackboard(self, key: str) -> Any:
        return self.status[-1]['blackboard'].get(key) if self.status else None

    def goals(self) -> list[dict[str, Any]]:
        return self.server.all('goal_received')

    def debug_events(self) -> list[dict[str, Any]]:
        return [event for batch in list(self.events) for event in batch['events']
                if 'debug' in event]


@pytest.fixture
def run(spawn: Callable[..., SpawnedProcess], ros_node: Any, tmp_path: Any
        ) -> Callable[..., Run]:
    def start(**options: Any) -> Run:
        return Run(spawn, ros_node, tmp_path, **options)
    return start


def test_breakpoint_before_an_action_pauses_before_any_goal_and_step_ticks_once(run):
    live = run()
    debugger = live.debugger
    assert 'before it starts' in debugger.ok('breakpoint', node=MOVE)
    debugger.ok('set', key='go', value='true')
    state = debugger.wait_paused_at(MOVE)
    assert state['paused_at']['policy'] == 'halt'
    assert live.goals() == [], 'no goal was sent'
    ticks = state['tick']
    time.sleep(QUIET)
    assert debugger.state()['tick'] == ticks, 'paused: nothing ticks'
    assert live.goals() == []
    # The stepped tick sends the goal once the executive has discovered the server; on a
    # loaded machine that can take a few ticks' worth of wall time: step again until it
    # does, each step exactly one tick.
    for steps in range(1, MAX_STEPS + 1):
        done, message = debugger.trigger('step')
        assert done, message
        wait_for(lambda: debugger.state()['tick'] == ticks + steps, TIMEOUT,
                 f'stepped tick {steps}')
        try:
            live.server.wait_for_name('goal_received', order=5, timeout=STEP_WAIT)
            break
        except AssertionError:
            assert steps < MAX_STEPS, f'no goal after {steps} steps'
    time.sleep(QUIET)
    assert debugger.state()['tick'] == ticks + steps, 'a step is exactly one tick'
    assert len(live.goals()) == 1
    done, message = debugger.trigger('continue')
    assert done, message
    wait_for(lambda: (live.blackboard('done') or 0) >= 1, TIMEOUT, 'the sequence on')
    kinds = [(event['debug'], event['origin']) for event in live.debug_events()]
    for expected in [('breakpoint', 'operator'), ('set', 'operator'), ('hit', 'breakpoint'),
                     ('step', 'operator'), ('continue', 'operator')]:
        assert expected in kinds, kinds


def test_a_substituted_action_sends_no_goal(run):
    live = run()
    debugger = live.debugger
    text = debugger.ok('substitute', node=MOVE, status='success', origin='script')
    assert 'substituted by script: SUCCESS until removed' in text
    debugger.ok('set', key='go', value='true')
    wait_for(lambda: (live.blackboard('done') or 0) >= 3, TIMEOUT,
             'three rounds with the substituted action')
    assert live.goals() == [], 'the server never got a goal'
    debugger.ok('remove_substitution', node=MOVE)
    live.server.wait_for_name('goal_received', order=5, timeout=TIMEOUT)


def test_a_pause_halts_the_running_goal_at_the_server(run):
    live = run(mode='slow', period=0.1)
    debugger = live.debugger
    debugger.ok('set', key='go', value='true')
    accepted = live.server.wait_for_name('goal_accepted', timeout=TIMEOUT)
    debugger.ok('pause')  # the operator's pause: policy halt
    finished = live.server.wait_for_name('finished', goal_id=accepted['goal_id'],
                                         timeout=TIMEOUT)
    assert finished['status'] == 'canceled'


def test_a_breakpoint_hit_halts_the_running_goal(run):
    live = run(mode='slow', period=0.1)
    debugger = live.debugger
    # the root's status breakpoint hits on the first tick after it is set: the Action is
    # RUNNING then, its goal accepted
    debugger.ok('set', key='go', value='true')
    accepted = live.server.wait_for_name('goal_accepted', timeout=TIMEOUT)
    debugger.ok('breakpoint', node='Main/root', when='running')
    debugger.wait_paused_at('Main/root')
    finished = live.server.wait_for_name('finished', goal_id=accepted['goal_id'],
                                         timeout=TIMEOUT)
    assert finished['status'] == 'canceled'


def test_sigint_while_paused_with_a_goal_running_exits_0_and_cancels_it(run):
    live = run(mode='slow', period=0.1)
    debugger = live.debugger
    debugger.ok('set', key='go', value='true')
    accepted = live.server.wait_for_name('goal_accepted', timeout=TIMEOUT)
    debugger.ok('breakpoint', node='Main/root', when='running', policy='run')
    debugger.wait_paused_at('Main/root')
    time.sleep(QUIET)
    assert live.server.all('cancel_requested') == [], 'policy run: the goal runs on'
    live.executive.popen.send_signal(signal.SIGINT)
    assert live.executive.popen.wait(TIMEOUT) == 0, live.executive.stderr_text()
    finished = live.server.wait_for_name('finished', goal_id=accepted['goal_id'],
                                         timeout=TIMEOUT)
    assert finished['status'] == 'canceled'


def test_a_swap_clears_breakpoints_and_says_so(run, tmp_path):
    live = run()
    debugger = live.debugger
    debugger.ok('breakpoint', node=MOVE)
    debugger.ok('substitute', node=DONE, status='failure')
    before = debugger.state()
    assert len(before['breakpoints']) == 1 and len(before['substitutions']) == 1
    other = write_tree(tmp_path, 'other.yaml', tree_text('/nobody'))
    result = set_tree_file(live.node, live.namespace, other,
                           lambda done, message: wait_for(done, TIMEOUT, message))
    assert result.successful, result.reason
    after = wait_for(lambda: (s := debugger.state())['revision'] > before['revision'] and s,
                     TIMEOUT, 'the new revision')
    assert after['breakpoints'] == [] and after['substitutions'] == [] and not after['paused']
    wait_for(lambda: any(e['debug'] == 'cleared' and e['origin'] == 'swap'
                         for e in live.debug_events()), TIMEOUT, 'the swap note in ~/events')
    assert 'tree swapped: 2 breakpoints and substitutions of revision' in \
        live.executive.stderr_text()


def test_with_debugging_off_every_request_is_refused_and_nothing_changes(run):
    live = run(debug=False)
    debugger = live.debugger
    requests: list[tuple[str, dict[str, Any]]] = [
        ('breakpoint', {'node': MOVE}), ('substitute', {'node': MOVE, 'status': 'success'}),
        ('set', {'key': 'go', 'value': 'true'}), ('pause', {}), ('clear', {}), ('state', {})]
    for command, fields in requests:
        done, message, state = debugger.command(command, **fields)
        assert not done and 'debugging is off' in message, (command, message)
        assert state == {'enabled': False}
    for name in ('pause', 'step', 'continue', 'clear', 'state'):
        done, message = debugger.trigger(name)
        assert not done and 'debugging is off' in message, (name, message)
    assert live.blackboard('go') is False, 'the blackboard is unchanged'
    ticks = live.status[-1]['tick_count']
    wait_for(lambda: live.status[-1]['tick_count'] > ticks, TIMEOUT, 'the tree ticking on')
    assert live.debug_events() == []


def test_without_the_interface_package_requests_go_as_json(run):
    live = run(typed=False)
    debugger = live.debugger
    assert debugger.typed is None
    done, message, state = debugger.command('breakpoint', node='Main/nope')
    assert not done and "no node 'Main/nope'" in message and state['enabled']
    done, message, _ = debugger.command('substitute', node=MOVE, status='success',
                                        ticks='two')
    assert not done and 'ticks must be a whole number' in message
    debugger.ok('breakpoint', node=MOVE, origin='script')
    debugger.ok('set', key='go', value='true')
    debugger.wait_paused_at(MOVE)
    assert live.goals() == []
    done, message, _ = debugger.command('set', key='go', value='3')
    assert not done and 'go holds a boolean' in message


RECHARGE = 'Patrol/root/recharge/Recharge/Sequence/dock, or wait for help/dock and charge'
DOCK = f'{RECHARGE}/on the dock?/go and dock/dock'
LOW = 'Patrol/root/recharge/Recharge/Sequence/battery low?'


def test_the_worked_example_on_the_patrol(spawn, ros_node):
    """docs/debugging.md: break before dock, step, continue, substitute 'battery low?'."""
    # charging slowly: the substitution must come before the battery is full, however
    # slowly a loaded machine carries the request (at 0.05/s it was full first in CI)
    patrol = PatrolRun(spawn, ros_node,
                       sim_params=('-p', 'idle_drain:=0.0', '-p', 'charge_rate:=0.002'),
                       executive_params=('-p', 'debug:=true'))
    debugger = Debugger(ros_node, patrol.namespace)
    patrol.wait(lambda: patrol.board.get('reached', 0) >= 1, 'the patrol under way')
    debugger.ok('breakpoint', node=DOCK)
    debugger.ok('set', key='battery_low', value='true')  # as if the battery ran low
    debugger.wait_paused_at(DOCK)
    assert patrol.board['dockings'] == 0
    debugger.ok('step')
    debugger.ok('continue')
    patrol.wait(lambda: patrol.board.get('dockings') == 1, 'docked')
    reached = patrol.board.get('reached', 0)
    debugger.ok('substitute', node=LOW, status='failure', ticks=1)
    patrol.wait(lambda: patrol.board.get('battery_low') is False
                and patrol.board.get('reached', 0) > reached, 'off the dock, patrolling')
    assert patrol.state['battery'] < 0.95, 'it did not wait to be charged'


def test_a_recording_shows_the_debug_session_on_its_timeline(run, tmp_path):
    recording = tmp_path / 'debug.mcap'
    live = run(options=('-p', f'record_file:={recording}'))
    debugger = live.debugger
    debugger.ok('breakpoint', node=MOVE, origin='script')
    debugger.ok('set', key='go', value='true')
    debugger.wait_paused_at(MOVE)
    debugger.ok('substitute', node=MOVE, status='success', ticks=1)
    debugger.ok('continue')
    wait_for(lambda: (live.blackboard('done') or 0) >= 1, TIMEOUT, 'the substituted round')
    debugger.wait_paused_at(MOVE)  # the next round stops at the breakpoint again
    live.executive.popen.send_signal(signal.SIGINT)
    assert live.executive.popen.wait(TIMEOUT) == 0, live.executive.stderr_text()
    timeline = Timeline.load(str(recording))
    actions = [(at, event['debug'], event['origin']) for at, event in timeline.events
               if 'debug' in event]
    assert [(kind, origin) for _, kind, origin in actions] == [
        ('breakpoint', 'script'), ('set', 'operator'), ('hit', 'breakpoint'),
        ('substitute', 'operator'), ('continue', 'operator'),
        ('substitution_ended', 'operator'), ('hit', 'breakpoint')]  # the next round
    assert [at for at, _, _ in actions] == sorted(at for at, _, _ in actions)
    paused = [frame['executive'].get('debug', {}).get('paused') for frame in timeline.frames]
    assert paused.index(True) < paused.index(False, paused.index(True)), \
        'the frames show the pause and the continue'
    assert live.goals() == [], 'the one round ran with the substituted action'
