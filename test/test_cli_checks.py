# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the offline tools say about a file: warnings, the tree to run, exact tick times.

``bt-executive validate`` and ``tick`` run as processes of their own (forked from a warm
interpreter, cli_process.py; real subprocesses where the environment asks for one); the key
check and the
time helper are also tested in-process.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from bt_executive.core.key_check import check_reads
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.nodes.decorators import Delay, Timeout
from bt_executive.nodes.status_leaves import Wait
from bt_executive.nodes.support import time_left
from cli_process import run_cli
import py_trees
from py_trees.common import Status
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, timeout=60, env={**os.environ,
                                           'PYTHONPATH': os.pathsep.join(sys.path),
                                           **(env or {})})


def write(tmp_path: pathlib.Path, text: str, name: str = 't.yaml') -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def ticks(stdout: str) -> dict[int, list[str]]:
    """Split tick output into tick number -> the lines printed for that tick."""
    result: dict[int, list[str]] = {}
    current = None
    for line in stdout.splitlines():
        match = re.match(r'--- tick (\d+) ', line)
        if match:
            current = int(match.group(1))
            result[current] = [line]
        elif current is not None:
            result[current].append(line)
    return result


# ---- blackboard keys nothing sets --------------------------------------------------------

def warnings_of(text: str) -> list[str]:
    document = Loader(default_registry()).load_text(text, name='w.yaml')
    assert [str(w) for w in document.warnings] == \
        [str(w) for w in check_reads(document, default_registry())]
    return [str(w) for w in document.warnings]


def test_a_misspelt_key_is_a_warning_with_location_and_suggestion():
    assert warnings_of(
        'blackboard: {battery: {percentage: 1.0}}\n'
        'trees:\n  Main:\n    Sequence:\n'
        '      - Condition: batery.percentage > 0.2\n'
        "      - Log: '${str(chargin)}'\n") == [
        "w.yaml:5:20: warning: Main/Sequence/Condition: blackboard key 'batery' is read but "
        "nothing sets it (not in 'blackboard:', fed by no subscription, written by no node) "
        "(did you mean 'battery'?)",
        "w.yaml:6:14: warning: Main/Sequence/Log: blackboard key 'chargin' is read but "
        "nothing sets it (not in 'blackboard:', fed by no subscription, written by no node)",
    ]


def test_keys_set_by_the_document_are_not_warned_about():
    assert warnings_of("""
subscriptions:
  - {topic: battery_state, type: sensor_msgs/msg/BatteryState, key: battery}
  - {topic: odom, type: nav_msgs/msg/Odometry, fields: {x: pose.pose.position.x}}
blackboard: {limit: 1}
trees:
  Main:
    Sequence:
      - SetBlackboard: {key: mode.name, value: '${limit + x}'}
      - Action: {type: test_msgs/action/Fibonacci, server: fib, result_key: fib,
                 feedback_key: progress}
      - Service: {type: std_srvs/srv/Trigger, service: s, response_key: answer,
                  success: response.success and answer.success}
      - WaitForMessage: {topic: t, type: std_msgs/msg/Bool, key: last, expr: msg.data}
      - TopicCondition: {topic: t, type: std_msgs/msg/Bool, expr: msg.data == last.data}
      - Condition: battery.percentage > 0.1 and mode.name and fib and progress
      - WaitForBlackboard: answer
      - Subtree: {tree: Go, speed: '${limit * 2}'}
  Go:
    params: {speed: 1.0, target: $limit}
    root:
      Condition: speed > 0 and target
""") == []


def test_reading_key_parameters_and_subtree_arguments_are_checked():
    assert [w.split(': ', 2)[1:] for w in warnings_of("""
main: Main
trees:
  Main:
    Sequence:
      - WaitForBlackboard: goal
      - Subtree: {tree: Go, speed: $sped}
  Go:
    params: {speed: 1.0}
    root:
      Condition: speed > 0
""")] == [['warning', "Main/Sequence/WaitForBlackboard: blackboard key 'goal' is read but "
           "nothing sets it (not in 'blackboard:', fed by no subscription, written by no "
           'node)'],
          ['warning', "Main/Sequence/Subtree: blackboard key 'sped' is read but nothing sets "
           "it (not in 'blackboard:', fed by no subscription, written by no node)"]]


def test_the_shipped_configs_have_no_warnings():
    registry = default_registry()
    for name in ('patrol.yaml', 'patrol_nav2.yaml', 'patrol_reverse.yaml', 'robot_sim.yaml',
                 'robot_nav2.yaml'):
        document = Loader(registry).load(str(ROOT / 'config' / name))
        assert document.warnings == [], name


def test_validate_of_the_shipped_patrol_warns_about_nothing():
    # the command's registry (catalogue + plugins) must keep the catalogue's section keys
    result = run('validate', str(ROOT / 'config' / 'patrol.yaml'))
    assert result.returncode == 0, result.stderr
    assert 'warning' not in result.stdout + result.stderr, result.stdout + result.stderr


def test_validate_prints_warnings_and_passes(tmp_path):
    path = write(tmp_path, 'blackboard: {battery: 1}\ntrees:\n  Main:\n'
                           '    Condition: batery > 0\n')
    result = run('validate', path)
    assert result.returncode == 0, result.stderr
    assert f"{path}:4:16: warning: Main/Condition: blackboard key 'batery' is read" \
        in result.stderr
    assert "(did you mean 'battery'?)" in result.stderr
    assert f'{path}: ok (1 tree, 1 nodes, 1 warning)' in result.stdout
    quiet = run('validate', '-q', path)
    assert (quiet.returncode, quiet.stdout, 'warning' in quiet.stderr) == (0, '', False)


def test_tick_prints_warnings_unless_set_provides_the_key(tmp_path):
    path = write(tmp_path, 'trees:\n  Main:\n    Condition: battery.percentage > 0.5\n')
    result = run('tick', path, '--ticks', '1')
    assert result.returncode == 0, result.stderr
    assert "warning: Main/Condition: blackboard key 'battery' is read" in result.stderr
    result = run('tick', path, '--ticks', '1', '--set', 'battery={percentage: 0.9}')
    assert (result.returncode, result.stderr) == (0, '')
    assert 'root: SUCCESS' in result.stdout


# ---- several trees and no main -----------------------------------------------------------

SEVERAL = 'trees:\n  A:\n    Success:\n  B:\n    Failure:\n'


def test_validate_warns_when_a_tool_must_choose_the_tree(tmp_path):
    path = write(tmp_path, SEVERAL)
    result = run('validate', path)
    assert result.returncode == 0, result.stderr
    assert f"{path}: warning: the file defines several trees and no 'main': to run it, set " \
        "the executive's 'tree_name' parameter or give bt-executive tick and render --tree " \
        'NAME (trees: A, B)' in result.stderr
    assert run('validate', path, '--tree', 'A').stderr.count('warning') == 0


@pytest.mark.parametrize('command', ['tick', 'render'])
def test_tick_and_render_say_how_to_choose_the_tree(tmp_path, command):
    path = write(tmp_path, SEVERAL)
    result = run(command, path)
    assert result.returncode == 1
    assert f"{path}: the file defines several trees and no 'main': add 'main: NAME' to the " \
        'file or choose one with --tree NAME (trees: A, B)' in result.stderr
    assert 'tree_name' not in result.stderr
    extra = ['--format', 'dot'] if command == 'render' else []
    chosen = run(command, path, '--tree', 'B', *extra)
    assert chosen.returncode == 0, chosen.stderr


def test_validate_says_when_ros_checks_are_skipped(tmp_path):
    blocker = tmp_path / 'blocked' / 'rclpy'
    blocker.mkdir(parents=True)
    (blocker / '__init__.py').write_text("raise ImportError('rclpy blocked by the test')\n")
    path = write(tmp_path, 'trees:\n  Main:\n    Action: {type: test_msgs/action/Fibonacci, '
                           'server: fib, goal: {ordr: 5}}\n')
    result = subprocess.run(
        [sys.executable, '-m', 'bt_executive.app.cli', 'validate', path],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, 'PYTHONPATH': os.pathsep.join([str(blocker.parent), *sys.path])})
    assert result.returncode == 0, result.stderr
    assert 'bt-executive validate: ROS checks skipped, ROS cannot be imported here ' \
        '(ImportError: rclpy blocked by the test): interface types, message fields, ROS ' \
        'names and subscriptions were not checked' in result.stderr


# ---- the offline clock -------------------------------------------------------------------

REPEATED = {
    'Delay': 'Delay: {{seconds: {s}, Success: }}',
    'Wait': 'Wait: {s}',
    'Timeout': 'Inverter:\n        Timeout: {{seconds: {s}, Running: }}',
}


@pytest.mark.parametrize('node', sorted(REPEATED))
@pytest.mark.parametrize('period, seconds, steps', [
    ('0.1', '0.3', 3), ('0.01', '0.07', 7), ('0.05', '0.15', 3), ('0.2', '0.6', 3),
    ('1e-3', '0.003', 3), ('0.1', '0.7', 7), ('0.3', '0.9', 3)])
def test_timed_nodes_end_on_the_tick_of_their_deadline_cycle_after_cycle(
        tmp_path, node, period, seconds, steps):
    cycles = 4
    body = REPEATED[node].format(s=seconds)
    path = write(tmp_path, f'trees:\n  Main:\n    Repeat:\n      times: {cycles}\n'
                           f'      {body}\n')
    last = cycles * (steps + 1)  # a cycle: the start tick plus `steps` ticks of waiting
    result = run('tick', path, '--ticks', str(last), '--period', period)
    assert result.returncode == 0, result.stderr
    printed = ticks(result.stdout)
    roots = {tick: lines[0].rsplit('root: ', 1)[1] for tick, lines in printed.items()}
    assert roots[last] == 'SUCCESS', result.stdout
    assert roots[last - 1] == 'RUNNING', result.stdout


def test_tick_times_are_multiples_of_the_period(tmp_path):
    path = write(tmp_path, 'trees:\n  Main:\n    Running:\n')
    result = run('tick', path, '--ticks', '31', '--period', '0.1')
    times = re.findall(r't=(\S+)s', result.stdout)
    assert times == [f'{n / 10:.2f}' for n in range(31)]
    result = run('tick', path, '--ticks', '3', '--period', '1e-3')
    assert re.findall(r't=(\S+)s', result.stdout) == ['0.000', '0.001', '0.002']
    bad = run('tick', path, '--period', '-1')
    assert bad.returncode == 2 and "expected seconds >= 0, got '-1'" in bad.stderr


@pytest.mark.parametrize('start, seconds, now', [
    (0.4, 0.3, 0.7), (0.7, 0.1, 0.8), (0.1, 0.2, 0.3), (1.1, 2.2, 3.3),
    (1e9 + 0.4, 0.3, 1e9 + 0.7)])
def test_a_deadline_reached_up_to_float_rounding_counts_as_reached(start, seconds, now):
    assert time_left(start + seconds, now) == 0.0
    clock = [start]
    wait = Wait('w', seconds=seconds, clock=lambda: clock[0])
    delay = Delay('d', py_trees.behaviours.Success('s'), seconds=seconds,
                  clock=lambda: clock[0])
    timeout = Timeout('t', py_trees.behaviours.Running('r'), seconds=seconds,
                      clock=lambda: clock[0])
    for behaviour in (wait, delay, timeout):
        behaviour.tick_once()
    clock[0] = now
    for behaviour, status in ((wait, Status.SUCCESS), (delay, Status.SUCCESS),
                              (timeout, Status.FAILURE)):
        behaviour.tick_once()
        assert behaviour.status is status, behaviour.name


def test_a_deadline_not_yet_reached_still_waits():
    assert time_left(1.0, 0.999999) == pytest.approx(1e-6)
    assert time_left(0.7, 0.6) == pytest.approx(0.1)


# ---- what a tick did ---------------------------------------------------------------------

def test_tick_marks_the_nodes_ticked_in_each_tick(tmp_path):
    path = write(tmp_path, 'trees:\n  Main:\n    Sequence:\n      memory: true\n'
                           '      children: [Success, Running]\n')
    result = run('tick', path, '--ticks', '2')
    assert result.returncode == 0, result.stderr
    assert '*: ticked in this tick' in result.stdout
    printed = ticks(result.stdout)
    shown = {tick: [line.split(' \u2014 ')[0] for line in lines[1:]]
             for tick, lines in printed.items()}  # without the feedback messages
    assert shown[1] == ['* \u25b6 Sequence', '* \u251c\u2500 \u2714 Success',
                        '* \u2514\u2500 \u25b6 Running']
    assert shown[2] == ['* \u25b6 Sequence', '  \u251c\u2500 \u2714 Success',
                        '* \u2514\u2500 \u25b6 Running']
    ascii_only = run('tick', path, '--ticks', '2', '--ascii')
    assert [line.split(' -- ')[0] for line in ticks(ascii_only.stdout)[2][1:]] == \
        ['* > Sequence', '  |- + Success', '* `- > Running']


def test_tick_prints_the_blackboard_with_the_keys_each_tick_wrote(tmp_path):
    path = write(tmp_path, """
blackboard: {count: 0, name: 'on', limits: {low: 1e-3}}
trees:
  Main:
    Sequence:
      memory: true
      children:
        - SetBlackboard: {key: count, value: '${count + 1}'}
        - Running:
""")
    result = run('tick', path, '--ticks', '2', '--blackboard')
    assert result.returncode == 0, result.stderr
    printed = ticks(result.stdout)
    assert printed[1][-4:] == ['blackboard:', '  * count: 1', '    limits: {low: 0.001}',
                               '    name: "on"']
    assert printed[2][-4:] == ['blackboard:', '    count: 1', '    limits: {low: 0.001}',
                               '    name: "on"']
    assert 'blackboard:' not in run('tick', path, '--ticks', '1').stdout


def test_keys_a_subtree_writes_through_its_output_parameters_are_set():
    assert warnings_of("""
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree: {tree: Outer, slot: $left}
              - Condition: left == 'done'
          Outer:
            params: {slot: null}
            root:
              Subtree: {tree: Inner, out: $slot}
          Inner:
            params: {out: null}
            root:
              SetBlackboard: {key: out.value, value: done}
        """) == []
    assert warnings_of("""
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree: {tree: Inner, out: $left}
              - Condition: lefft == 'done'
          Inner:
            params: {out: null}
            root:
              SetBlackboard: {key: out, value: done}
        """) == ["w.yaml:7:28: warning: Main/Sequence/Condition: blackboard key 'lefft' is "
                 "read but nothing sets it (not in 'blackboard:', fed by no subscription, "
                 "written by no node) (did you mean 'left'?)"]


# ---- what tick checks ----------------------------------------------------------------------

ROS_MISTAKES = """
subscriptions:
  - {topic: 'odom//x', type: nav_msgs/msg/Odometry, key: odom}
trees:
  Main:
    Sequence:
      - Action: {type: test_msgs/action/Fibonacci, server: fib, goal: {ordr: 5}}
      - Publish: {topic: 'bad topic', type: std_msgs/msg/Bool, fields: {data: true}}
"""


@pytest.mark.ros
def test_tick_runs_the_ros_checks_the_executive_runs(tmp_path):
    path = write(tmp_path, ROS_MISTAKES)
    result = run('tick', path, '--ticks', '1')
    assert result.returncode == 1, result.stdout
    assert result.stderr.splitlines() == [
        f"{path}:3:13: subscriptions: 'topic' 'odom//x': topic name must not contain "
        "repeated '/'",
        f"{path}:7:71: Main/Sequence/Action: field goal.ordr: unknown field 'ordr' for "
        "test_msgs/action/Fibonacci_Goal (did you mean 'order'?); valid fields: order",
        f"{path}:8:26: Main/Sequence/Publish: topic 'bad topic': topic name must not contain "
        "characters other than alphanumerics, '_', '~', '{', or '}'",
        f'{path}: 3 errors']
    assert '--- tick' not in result.stdout


@pytest.mark.ros
def test_tick_builds_with_the_executive_s_leaves(tmp_path):
    path = write(tmp_path, 'main: Main\ntrees:\n  Main:\n    Subtree: {tree: Go, n: abc}\n'
                           '  Go:\n    params: {n: 1}\n    root:\n      Action: {type: '
                           'test_msgs/action/Fibonacci, server: fib, goal: {order: $n}}\n')
    result = run('tick', path, '--ticks', '1')
    assert result.returncode == 1, result.stdout
    assert 'Main/Subtree/Go/Action: cannot build Action: field goal.order' in result.stderr


def test_tick_says_in_one_line_when_it_cannot_run_the_ros_checks(tmp_path):
    blocker = tmp_path / 'blocked' / 'rclpy'
    blocker.mkdir(parents=True)
    (blocker / '__init__.py').write_text("raise ImportError('rclpy blocked by the test')\n")
    env = {'PYTHONPATH': os.pathsep.join([str(blocker.parent), *sys.path])}
    result = run('tick', write(tmp_path, ROS_MISTAKES), '--ticks', '1', env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        'bt-executive tick: ROS checks not run, ROS cannot be imported here (ImportError: '
        'rclpy blocked by the test): interface types, message fields, ROS names and '
        'subscriptions were not checked (run bt-executive validate where rclpy imports; the '
        'executive checks them when it loads the file)']
    plain = run('tick', write(tmp_path, 'trees:\n  Main:\n    Success:\n', 'plain.yaml'),
                '--ticks', '1', env=env)
    assert (plain.returncode, plain.stderr) == (0, '')  # no ROS in the file: nothing skipped
