# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The offline command line: validate, show, nodes, tick (each run a process of its own).

The runs are forked from a warm interpreter (cli_process.py); test_fuzz_commands.py
starts the command line as real subprocesses.
"""

import os
import subprocess
import sys

from bt_executive.formats.reference import catalogue_markdown
from bt_executive.nodes.catalogue import default_registry
from cli_process import run_cli, RUNS
import pytest

ROOT = os.path.join(os.path.dirname(__file__), '..')
PATROL = os.path.join(ROOT, 'config', 'patrol.yaml')
CORPUS = os.path.join(os.path.dirname(__file__), 'corpus', 'invalid')


def run(*args, cwd=None):
    return run_cli(*args, cwd=cwd, timeout=60)


def test_validate_ok_exits_zero():
    result = run('validate', PATROL)
    assert result.returncode == 0, result.stderr
    assert 'ok (8 trees' in result.stdout and "main 'Patrol'" in result.stdout


def test_validate_reports_all_errors_of_all_files_and_exits_one():
    result = run('validate', '44_many_errors.yaml', '01_unknown_type.yaml', cwd=CORPUS)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert '44_many_errors.yaml: 4 errors' in lines
    assert '01_unknown_type.yaml: 1 error' in lines
    assert sum(1 for line in lines if line.startswith('44_many_errors.yaml:')) == 5
    assert 'Traceback' not in result.stderr


def test_validate_missing_file():
    result = run('validate', 'nope.yaml')
    assert result.returncode == 1
    assert 'nope.yaml: file not found' in result.stderr


def test_show_prints_the_outline():
    result = run('show', PATROL, '--tree', 'EmergencyStop')
    assert result.returncode == 0
    assert result.stdout.splitlines()[1:] == [
        '\u2514\u2500 ReactiveSequence',
        '   \u251c\u2500 Condition "estop pressed"  estop',
        '   \u251c\u2500 Publish "zero velocity"  topic=cmd_vel  '
        'type=geometry_msgs/msg/Twist  [ros]',
        '   \u2514\u2500 Running "hold while pressed"',
    ]


def test_nodes_lists_the_catalogue():
    result = run('nodes')
    assert result.returncode == 0
    for name in ('Race', 'Marathon', 'ActiveSelector', 'Monitor', 'Filter', 'RandomSelector',
                 'UntilSuccess', 'UntilFailure', 'Repeat', 'Retry', 'Limit', 'Delay',
                 'Timeout', 'ForceSuccess', 'ForceFailure', 'Inverter', 'Wait', 'Log',
                 'Terminate', 'SetBlackboard', 'Condition', 'IfThenElse', 'While',
                 'Subtree', 'Action', 'Service', 'TopicCondition', 'Publish'):
        assert f'\n  {name}' in result.stdout, name


def test_docs_node_reference_is_generated_from_the_registry():
    with open(os.path.join(ROOT, 'docs', 'nodes.md')) as stream:
        assert stream.read() == catalogue_markdown(default_registry()), \
            'docs/nodes.md is stale: run bt-executive nodes --markdown > docs/nodes.md'


@pytest.mark.parametrize('stub, drive', [
    ([], '\u25b6 TopicAction "drive" (stub)'),
    (['--stub', 'drive=failure'], '\u2718 TopicAction "drive" (stub) \u2014 stub for '
     'TopicAction'),
])
def test_tick_prints_statuses_per_tick(stub, drive):
    result = run('tick', PATROL, '--ticks', '4', '--set', 'battery={percentage: 0.9}', *stub)
    assert result.returncode == 0, result.stderr
    assert 'ROS leaves are stubs' in result.stdout
    ticks = [line for line in result.stdout.splitlines() if line.startswith('--- tick')]
    assert len(ticks) == 4
    assert drive in result.stdout.split('--- tick 3')[1].split('--- tick 4')[0]


def test_tick_takes_a_stub_status_in_capitals_by_name_or_type(tmp_path):
    tree = tmp_path / 't.yaml'
    tree.write_text('trees:\n  Main:\n    Sequence:\n'
                    '      - Service ping: {type: std_srvs/srv/Trigger, service: ping}\n'
                    '      - Action fib: {type: test_msgs/action/Fibonacci, server: fib}\n')
    result = run('tick', str(tree), '--ticks', '2', '-q', '--stub', 'ping=FAILURE')
    assert result.returncode == 0, result.stderr
    assert 'root: FAILURE' in result.stdout and "'ping' failed" in result.stdout
    result = run('tick', str(tree), '--ticks', '3', '-q', '--stub', 'Action=Running:5')
    assert result.returncode == 0, result.stderr
    assert 'root: RUNNING' in result.stdout


@pytest.mark.parametrize('arguments, message', [
    (['--stub', 'pong=success'], '--stub pong: no stubbed leaf has that type or name in '
     "tree 'Main' (stubbed: Service, ping)"),
    (['--stub', 'ping=maybe'], '--stub ping=maybe: expected NAME=STATUS[:TICKS]'),
    (['--stub', 'ping=running:soon'], '--stub ping=running:soon: expected NAME=STATUS'),
    (['--set', 'count'], "--set expects NAME=VALUE, got 'count'"),
    (['--ticks', '0'], "argument --ticks: expected at least 1, got '0'"),
    (['--ticks', 'ten'], "argument --ticks: expected a whole number, got 'ten'"),
])
def test_tick_refuses_bad_arguments_with_usage_status(tmp_path, arguments, message):
    tree = tmp_path / 't.yaml'
    tree.write_text('trees:\n  Main:\n    Service ping: {type: std_srvs/srv/Trigger, '
                    'service: ping}\n')
    result = run('tick', str(tree), *arguments)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert '--- tick' not in result.stdout


@pytest.mark.parametrize('arguments, message', [
    (['view', '--port', '99999'], "argument --port: expected a TCP port 0..65535, got '99999'"),
    (['foxglove', '--port', '-1'], "argument --port: expected a TCP port 0..65535, got '-1'"),
    (['demo', '--groot2-port', '70000'], 'argument --groot2-port: expected a TCP port'),
    (['demo', '--laps', '0'], "argument --laps: expected at least 1, got '0'"),
    (['demo', '--timeout', '-5'], "argument --timeout: expected seconds above 0, got '-5'"),
    (['demo', '--robots', '3', '--groot2-port', '65534'],
     'robot 3 would serve Groot2 on 65536, above 65535'),
])
def test_commands_refuse_values_that_cannot_work_before_starting_anything(arguments, message):
    result = run(*arguments)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert 'Traceback' not in result.stderr and 'starting' not in result.stderr


def test_tick_low_battery_goes_docking():
    result = run('tick', PATROL, '--ticks', '1', '--set', 'battery={percentage: 0.1}')
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    dock = next(i for i, line in enumerate(lines) if 'Subtree "go to dock"' in line)
    assert '\u25b6 TopicAction "drive" (stub)' in lines[dock + 1]
    patrol = next(i for i, line in enumerate(lines) if 'Subtree "navigate"' in line)
    assert '\u00b7 TopicAction "drive" (stub)' in lines[patrol + 1]


def test_tick_terminate_stops_early(tmp_path):
    tree = tmp_path / 't.yaml'
    tree.write_text('trees:\n  Main:\n    Sequence:\n      - Wait: 0.25\n'
                    '      - Terminate: {status: success, reason: all done}\n')
    result = run('tick', str(tree), '--ticks', '10', '--period', '0.1')
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('--- tick') == 4
    assert '--- tick 4  t=0.30s  root: SUCCESS' in result.stdout
    assert 'terminated by Main/Sequence/Terminate: success all done' in result.stdout


def test_tick_seeds_random_nodes_afresh_unless_told_and_says_how_to_repeat(tmp_path):
    tree = tmp_path / 'r.yaml'
    tree.write_text('trees:\n  Main:\n    RandomSelector order:\n' + ''.join(
        f'      - Success s{index}\n' for index in range(6)))
    first, second = (run('tick', str(tree), '--ticks', '1') for _ in range(2))
    seeds = []
    for result in (first, second):
        assert result.returncode == 0, result.stderr
        header = result.stdout.splitlines()[0]
        assert header.startswith('random nodes seeded with ') and \
            header.endswith(')'), header
        seeds.append(int(header.split()[4]))
    assert seeds[0] != seeds[1]  # a fresh seed each run (equal: 1 in 2**31)
    again = run('tick', str(tree), '--ticks', '1', '--seed', str(seeds[0]))
    assert again.returncode == 0, again.stderr
    assert 'seeded' not in again.stdout
    assert again.stdout == first.stdout.split('\n', 1)[1]  # the same winner, repeated
    plain = tmp_path / 'p.yaml'
    plain.write_text('trees:\n  Main:\n    Success\n')
    assert 'seeded' not in run('tick', str(plain), '--ticks', '1').stdout


def test_a_forked_run_says_what_a_fresh_interpreter_says(tmp_path):
    """run_cli (a child forked from a warm interpreter) against ``python -m``, byte for byte."""
    (tmp_path / 'dice.yaml').write_text(
        'blackboard: {n: 0}\ntrees:\n  Main:\n    Sequence:\n'
        '      - RandomSelector:\n          - Success a\n          - Failure b\n'
        '      - Condition: n > 1\n', encoding='utf-8')
    for args in (('validate', '44_many_errors.yaml', '01_unknown_type.yaml'),
                 ('tick', str(tmp_path / 'dice.yaml'), '--ticks', '3', '--seed', '7'),
                 ('show', PATROL, '--tree', 'EmergencyStop'), ('nodes', '--bogus')):
        forked = run(*args, cwd=CORPUS)
        fresh = subprocess.run([sys.executable, '-m', 'bt_executive.app.cli', *args],
                               capture_output=True, text=True, timeout=60, cwd=CORPUS)
        assert (forked.returncode, forked.stdout, forked.stderr) == \
            (fresh.returncode, fresh.stdout, fresh.stderr), args
    assert RUNS['forked'] >= 4, f'the zygote was not used: {RUNS}'
