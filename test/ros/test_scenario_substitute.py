# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Substitution rules in scenarios (``substitute:``, ``substitute_file``, ``--substitute``).

Every run is one process on simulated time, with a scripted action peer that counts the
goals it gets: a substituted Action must send none.
"""

from __future__ import annotations

import json
import pathlib
import re

from bt_executive.app.cli import main as cli
from bt_executive.core.errors import TreeError
from bt_executive.testing.coverage import Coverage
from bt_executive.testing.harness import run_scenario
from bt_executive.testing.spec import load_scenarios, load_substitution_file, ns
from bt_executive.testing.substitute import matches
import pytest

pytestmark = pytest.mark.ros

TREE = """\
main: T
trees:
  T:
    Sequence:
      - Action first: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 1}}
      - Action second: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 2}}
      - Running hold: {}
"""

HEAD = """\
tree: tree.yaml
parameters: {tick_mode: periodic, tick_rate: 10.0}
peers:
  - action: fib
    type: test_msgs/action/Fibonacci
    goals: [{outcome: succeed, after: 0.5}]
"""


def _write(path, text):
    path.write_text(text)
    return str(path)


def _run(tmp_path, body, coverage=None):
    _write(tmp_path / 'tree.yaml', TREE)
    path = _write(tmp_path / 'x.scenarios.yaml', HEAD + body)
    results = [run_scenario(s, coverage=coverage) for s in load_scenarios(path)]
    for result in results:
        assert result.passed, '\n'.join(result.failures) + str(result.error or '') + \
            '\n' + '\n'.join(result.trace)
    return results


def test_a_substituted_action_sends_no_goal(tmp_path):
    _run(tmp_path, """\
scenarios:
  one:
    duration: 3
    substitute: {first: SUCCESS}
    expect:
      - {at: 0.1, status: {first: SUCCESS, second: RUNNING}}
      - {goal: fib, count: 1}
      - {goal: fib, index: 0, fields: {order: 2}}
""")


def test_after_keeps_the_node_running_in_simulated_time_then_gives_the_result(tmp_path):
    coverage = Coverage()
    (result,) = _run(tmp_path, """\
substitute:
  'T/*/first': {status: FAILURE, after: 2.0}
scenarios:
  one:
    duration: 4
    expect:
      - {during: [0.0, 1.9], status: {first: RUNNING}}
      - {at: 2.0, status: {first: FAILURE, T/Sequence: FAILURE}}
      - {by: 1.9, goal: fib, count: 0}
      - {goal: fib, count: 0}
""", coverage)
    assert any("'T/Sequence/first' substituted by scenario: FAILURE" in line
               for line in result.trace)
    (tree,) = coverage.trees.values()
    assert not tree.nodes['T/Sequence/first'].reached  # its own code never ran
    assert tree.nodes['T/Sequence'].outcomes['FAILURE']


def test_after_ticks_and_times_then_the_node_runs_for_real(tmp_path):
    _run(tmp_path, """\
scenarios:
  one:
    duration: 4
    substitute:
      first: {status: SUCCESS, after_ticks: 3, times: 1}
      second: {status: FAILURE, times: 1}
    expect:
      - {at: 0.2, status: {first: RUNNING}}
      - {at: 0.3, status: {first: SUCCESS, second: FAILURE}}
      - {at: 0.4, status: {first: RUNNING}}
      - {at: 0.9, status: {first: SUCCESS, second: RUNNING}}
      - {goal: fib, index: 0, fields: {order: 1}}
      - {goal: fib, index: 1, fields: {order: 2}}
""")


def test_the_scenarios_rule_comes_before_the_files(tmp_path):
    _run(tmp_path, """\
substitute: {'T/Sequence/*': FAILURE}
scenarios:
  one:
    duration: 1
    substitute: {first: SUCCESS, second: SUCCESS, hold: SUCCESS}
    expect:
      - {at: 0.0, status: {T/Sequence: SUCCESS}}
      - {goal: fib, count: 0}
""")


def test_btcpp_json_rules(tmp_path):
    _write(tmp_path / 'rules.json', json.dumps({
        'TestNodeConfigs': {'Slow': {'return_status': 'SUCCESS', 'async_delay': 1500},
                            'Fail': {'return_status': 'FAILURE'}},
        'SubstitutionRules': {'*/first': 'Slow', 'second': 'Fail'}}, indent='\t'))
    (result,) = _run(tmp_path, """\
substitute_file: rules.json
scenarios:
  one:
    duration: 3
    expect:
      - {at: 1.4, status: {first: RUNNING}}
      - {at: 1.5, status: {first: SUCCESS, second: FAILURE}}
      - {goal: fib, count: 0}
""")
    rules = load_substitution_file(str(tmp_path / 'rules.json'))
    assert [(r.pattern, r.status, r.after) for r in rules] == [
        ('*/first', 'SUCCESS', ns(1.5)), ('second', 'FAILURE', None)]


def test_the_command_line_rules(tmp_path, capsys):
    _write(tmp_path / 'tree.yaml', TREE)
    path = _write(tmp_path / 'x.scenarios.yaml', HEAD + """\
scenarios:
  one:
    duration: 2
    expect:
      - {goal: fib, count: 0}
""")
    _write(tmp_path / 'rules.json', json.dumps({
        'TestNodeConfigs': {'Ok': {'return_status': 'SUCCESS'}},
        'SubstitutionRules': {'first': 'Ok', 'second': 'Ok'}}))
    assert cli(['test', path]) == 1
    assert cli(['test', path, '--substitute', str(tmp_path / 'rules.json')]) == 0
    assert cli(['test', path, '--substitute', str(tmp_path / 'rules.json'), '--mutate']) == 2
    assert '--mutate: not together with --substitute' in capsys.readouterr().err


def test_a_pattern_matching_no_node_names_the_closest(tmp_path):
    _write(tmp_path / 'tree.yaml', TREE)
    path = _write(tmp_path / 'x.scenarios.yaml', HEAD + """\
scenarios:
  one:
    duration: 2
    substitute: {frist: SUCCESS}
""")
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)
    assert result.error is not None
    assert (f"{path}:10:18: substitute: 'frist' matches no node of the tree 'T'; closest: "
            'T/Sequence/first') in str(result.error)


@pytest.mark.parametrize('text,message', [
    ('substitute: {a: SUCESS}', "7:17: substitute 'a': expected one of SUCCESS, FAILURE, "
     "RUNNING, got 'SUCESS' (did you mean 'SUCCESS'?)"),
    ('substitute: {a: {after: 1}}', "7:17: substitute 'a': missing 'status'"),
    ('substitute: {a: {status: RUNNING, after: 1}}', "7:17: substitute 'a': a RUNNING "
     'result has no delay'),
    ('substitute: {a: {status: SUCCESS, after: 1, after_ticks: 2}}', '7:17: substitute '
     "'a': at most one of 'after'"),
    ('substitute: {a: {status: SUCCESS, times: 0}}', "7:42: substitute 'a': times: "
     'expected a whole number from 1, got 0'),
    ('substitute: {a: {status: SUCCESS, once: 1}}', "7:35: substitute 'a': unknown key "
     "'once'"),
    ('substitute: [a]', '7:13: substitute: expected a mapping of node path patterns'),
    ('substitute_file: nothere.json', "7:18: substitute_file: no file '"),
])
def test_substitute_errors_are_located(tmp_path, text, message):
    _write(tmp_path / 'tree.yaml', TREE)
    path = _write(tmp_path / 'x.scenarios.yaml',
                  HEAD + text + '\nscenarios: {a: {duration: 1}}\n')
    with pytest.raises(TreeError) as caught:
        load_scenarios(path)
    assert f'{path}:{message}' in str(caught.value)


@pytest.mark.parametrize('data,message', [
    ({'TestNodeConfigs': {'A': {'return_status': 'SUCCESS'}},
      'SubstitutionRules': {'x': 'AlwaysSuccess'}},
     "3:28: SubstitutionRules 'x': 'AlwaysSuccess' is not a TestNodeConfigs entry; "
     'substituting a node by another node type is not supported'),
    ({'TestNodeConfigs': {'A': {'return_status': 'SUCCESS', 'post_script': 'msg := 1'}},
      'SubstitutionRules': {'x': 'A'}},
     "2:51: TestNodeConfigs 'A': post_script is not supported"),
    ({'TestNodeConfigs': {'A': {'async_delay': -1}}, 'SubstitutionRules': {}},
     "2:23: TestNodeConfigs 'A': async_delay: expected whole milliseconds from 0, got -1"),
    ({'Rules': {}}, "1:2: substitution file: unknown key 'Rules'"),
])
def test_btcpp_json_errors_are_located(tmp_path, data, message):
    path = _write(tmp_path / 'rules.json', json.dumps(data).replace('}, "S', '},\n"S')
                  .replace('{"A"', '\n{"A"', 1))
    with pytest.raises(TreeError) as caught:
        load_substitution_file(path)
    assert f'{path}:{message}' in str(caught.value), str(caught.value)


def test_patterns_match_a_path_or_its_end():
    assert matches('first', 'T/Sequence/first')
    assert matches('T/*/first', 'T/Sequence/first')
    assert matches('Sequence/*', 'T/Sequence/first')
    assert not matches('firs', 'T/Sequence/first')
    assert not matches('T/first', 'T/Sequence/first')


def test_the_json_example_of_docs_testing_md_reads(tmp_path):
    text = (pathlib.Path(__file__).resolve().parents[2] / 'docs' / 'testing.md').read_text()
    (block,) = re.findall(r'^```json[ \t]*\n(\{\n  "TestNodeConfigs".*?)^```', text,
                          re.S | re.M)
    rules = load_substitution_file(_write(tmp_path / 'rules.json', block))
    assert [(r.pattern, r.status, r.after) for r in rules] == [
        ('*/navigate', 'SUCCESS', ns(1.5)), ('charged', 'FAILURE', None)]


def test_a_halt_in_the_delay_starts_the_next_run_afresh(tmp_path):
    _write(tmp_path / 'tree.yaml', """\
main: T
trees:
  T:
    Sequence:
      - Timeout: {seconds: 1.0,
          Action first: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 1}}}
      - Running hold: {}
""")
    path = _write(tmp_path / 'x.scenarios.yaml', HEAD + """\
substitute:
  first: {status: SUCCESS, after: 1.5}
scenarios:
  one:
    duration: 4
    parameters: {debug: true}
    expect:
      - {at: 1.0, status: {first: INVALID, T/Sequence: FAILURE}}
      - {at: 1.1, status: {first: RUNNING}}
      - {during: [1.1, 2.0], status: {first: RUNNING}}   # not the halted run's end at 1.5
      - {goal: fib, count: 0}
""")
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)  # debug: true, so the executive's own debugger is used
    assert result.passed, '\n'.join(result.failures) + str(result.error or '') + \
        '\n' + '\n'.join(result.trace)


def test_the_rules_follow_a_swapped_in_tree(tmp_path):
    _write(tmp_path / 'other.yaml', TREE.replace('order: 2', 'order: 5'))
    (result,) = _run(tmp_path, """\
scenarios:
  one:
    duration: 3
    substitute: {first: SUCCESS}
    operator: [{at: 1.0, do: swap, tree: other.yaml}]
    expect:
      - {at: 1.0, status: {first: SUCCESS, second: RUNNING}}
      - {goal: fib, count: 2}
      - {goal: fib, index: 0, fields: {order: 2}}
      - {goal: fib, index: 1, fields: {order: 5}}
""")
    assert sum("'T/Sequence/first' substituted by scenario" in line
               for line in result.trace) == 2, '\n'.join(result.trace)
