# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Scenario tests (bt_executive/testing): the patrol's scenarios, determinism, coverage.

Every run is one process on simulated time; nothing here waits on the wall clock.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from bt_executive.app.cli import main as cli
from bt_executive.testing.harness import run_scenario
from bt_executive.testing.spec import load_scenarios
import pytest

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATROL = ROOT / 'config' / 'patrol.scenarios.yaml'
OPERATOR = ROOT / 'config' / 'patrol_operator.scenarios.yaml'


def _run_all(path, coverage=None):
    return [run_scenario(s, coverage=coverage) for s in load_scenarios(str(path))]


def test_the_patrol_scenarios_pass_and_reach_every_node(tmp_path, capsys, monkeypatch):
    """``bt-executive test`` on the shipped patrol: every scenario, 100 % coverage, reports.

    The one full run of the patrol's scenarios in this file (each costs CPU seconds):
    the gate ``--min-coverage 100`` passes and the JSON and Cobertura reports say why.
    """
    json_path, xml_path = tmp_path / 'c.json', tmp_path / 'c.xml'
    monkeypatch.chdir(ROOT)  # the Cobertura report names files relative to the directory
    status = cli(['test', str(PATROL), '--json', str(json_path), '--xml', str(xml_path),
                  '--min-coverage', '100'])
    out = capsys.readouterr().out
    assert status == 0, out
    assert '14 passed, 0 failed' in out
    # the JSON report
    data = json.loads(json_path.read_text())
    assert data['schema'] == 'bt_executive/coverage/1' and data['percent'] == 100.0
    (entry,) = data['trees']
    assert entry['nodes_total'] == entry['nodes_reached'] == 53
    assert len(entry['scenarios']) == 14
    node = next(n for n in entry['nodes'] if n['path'].endswith('/stranded/Log'))
    assert node['type'] == 'Log' and node['file'].endswith('patrol_mission.yaml')
    assert node['reached'] > 0 and set(node) >= {'SUCCESS', 'FAILURE', 'RUNNING', 'halted'}
    drive = next(n for n in entry['nodes'] if n['path'].endswith('Retry/navigate/Navigate/drive'))
    assert drive['halted'] > 0  # the battery ran low while driving to a waypoint
    # the Cobertura XML report
    root = ElementTree.parse(xml_path).getroot()
    assert root.tag == 'coverage' and root.get('line-rate') == '1.0000'
    classes = {c.get('filename'): c for c in root.iter('class')}
    assert set(classes) == {'config/patrol_mission.yaml', 'config/robot_sim.yaml'}
    lines = classes['config/robot_sim.yaml'].findall('lines/line')
    drive_line = next(line for line in lines if line.get('number') == '16')
    assert int(drive_line.get('hits')) > 0
    assert re.fullmatch(r'\d+% \(\d+/4\)', drive_line.get('condition-coverage'))


def test_the_patrol_recovers_from_every_operator_action_in_every_phase():
    """Recover from every operator action in every phase of the mission.

    Swap, reset, pause/resume, deactivate/activate while driving, docking, docked and
    undocking: it undocks when docked, sends no goal while docked, and patrols on.
    """
    results = _run_all(OPERATOR)
    assert len(results) == 16
    failed = [f'{r.scenario.id}:\n{r.error or ""}' + '\n'.join(r.failures)
              for r in results if not r.passed]
    assert not failed, '\n'.join(failed)


def test_a_scenario_gives_the_same_result_every_run():
    (scenario,) = [s for s in load_scenarios(str(PATROL)) if 'mid-navigation' in s.name]
    first = run_scenario(scenario)
    assert first.passed and len(first.trace) > 20
    for _ in range(3):
        again = run_scenario(scenario)
        assert again.trace == first.trace
        assert again.failures == first.failures and again.ticks == first.ticks


def test_a_broken_patrol_fails_with_a_message_that_points_at_the_cause(tmp_path):
    """The battery branch below the patrol branch: the recharge is never reached."""
    for name in ('patrol.yaml', 'robot_sim.yaml', 'patrol.scenarios.yaml'):
        shutil.copy(ROOT / 'config' / name, tmp_path / name)
    mission = (ROOT / 'config' / 'patrol_mission.yaml').read_text()
    recharge = '      - Subtree recharge: {tree: Recharge, low: 0.25, full: 0.95}\n'
    patrol = ('      - Subtree leave the dock: {tree: LeaveDock}\n'
              '      - Subtree patrol: {tree: NextWaypoint, attempts: 2}\n')
    assert recharge + patrol in mission
    (tmp_path / 'patrol_mission.yaml').write_text(mission.replace(recharge + patrol,
                                                                  patrol + recharge))
    (scenario,) = [s for s in load_scenarios(str(tmp_path / 'patrol.scenarios.yaml'))
                   if 'mid-navigation' in s.name]
    result = run_scenario(scenario)
    assert not result.passed and result.error is None
    text = '\n'.join(result.failures)
    first = result.failures[0]
    assert first.startswith(f'{tmp_path}/patrol.scenarios.yaml:')
    assert 'expectation failed at t=12.000 s (tick ' in first
    assert 'found:    Patrol/root/recharge is INVALID' in first
    assert ('Patrol/root/recharge was not ticked: Patrol/root (Selector) is RUNNING at its '
            "child 3 'patrol' (RUNNING); 'recharge' is its child 4") in first
    assert 'running branch: Patrol/root > patrol > ' in first
    assert 'cancelled: true' in text  # the goal that should have been cancelled


def test_bt_executive_test_reports_coverage_and_fails_below_min_coverage(tmp_path, capsys):
    json_path, xml_path = tmp_path / 'c.json', tmp_path / 'c.xml'
    status = cli(['test', str(PATROL), '-k', 'dead navigation', '--json', str(json_path),
                  '--xml', str(xml_path), '--min-coverage', '90'])
    out = capsys.readouterr().out
    assert status == 1, out
    assert re.search(r'^ok     .*::dead navigation server  \(\d+ ticks, 120 s simulated in ',
                     out, re.M)
    assert 'never reached:' in out and '(Publish)' in out
    assert re.search(r'coverage \d+\.\d % is below --min-coverage 90 %', out)
    assert json.loads(json_path.read_text())['percent'] < 90
    assert ElementTree.parse(xml_path).getroot().tag == 'coverage'


@pytest.mark.parametrize('value', ['150', '-1', 'nan', 'most'])
def test_min_coverage_outside_0_to_100_is_a_usage_error(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli(['test', str(PATROL), '--min-coverage', value])
    assert stopped.value.code == 2
    assert 'argument --min-coverage: expected a percentage' in capsys.readouterr().err


def _write(path, text):
    path.write_text(text)
    return str(path)


def test_action_and_service_peers(tmp_path):
    """Goals rejected, aborted, cancelled with feedback; calls answered late or never."""
    _write(tmp_path / 'tree.yaml', """\
main: T
trees:
  T:
    Sequence:
      - Selector:
          memory: true
          children:
            - Action first: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 1}}
            - Action second: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 2},
                              feedback_key: progress}
            - Timeout: {seconds: 3.0,
                Action third: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 3}}}
            - Success
      - Service late: {type: std_srvs/srv/Trigger, service: late, success: response.success}
      - Service silent: {type: std_srvs/srv/Trigger, service: silent, timeout: 2.0}
      - Running
""")
    path = _write(tmp_path / 'peers.scenarios.yaml', """\
tree: tree.yaml
parameters: {tick_mode: periodic, tick_rate: 10.0}
peers:
  - action: fib
    type: test_msgs/action/Fibonacci
    goals:
      - {match: {order: 1}, outcome: reject}
      - {match: {order: 2}, outcome: abort, after: 1.0,
         feedback: [{after: 0.5, fields: {sequence: [0, 1]}}]}
      - {outcome: hang}
  - service: late
    type: std_srvs/srv/Trigger
    calls: [{response: {success: true}, after: 1.5}]
  - service: silent
    type: std_srvs/srv/Trigger
    calls: [{outcome: ignore}]
scenarios:
  one:
    duration: 9
    expect:
      - {at: 0.6, blackboard: {progress.sequence: [0, 1]}}
      - {at: 0.6, status: {second: RUNNING}}
      - {at: 0.1, status: {first: FAILURE}}
      - {at: 2.0, status: {third: RUNNING}}
      - {goal: fib, index: 2, fields: {order: 3}, cancelled: true}
      - {by: 4.5, status: {late: RUNNING}}
      - {during: [5.7, 7.5], status: {silent: RUNNING}}
      - {at: 7.6, status: {silent: FAILURE, T/Sequence: FAILURE}}
      - {at: 7.75, status: {T/Sequence: RUNNING, first: RUNNING}}
      - {by: 5.6, call: late, count: 1}
      - {goal: fib, count: 6}   # 3, then again after the tree failed at 7.6 s
""")
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)
    assert result.passed, '\n'.join(result.failures) + str(result.error or '') + \
        '\n' + '\n'.join(result.trace)


def test_a_topic_goal_sent_again_is_the_same_goal(tmp_path):
    """The same goal, its stamp included, twice: one goal, its status again; no stamp: two."""
    goal = ('{topic: nav/goal, type: geometry_msgs/msg/PoseStamped, '
            'fields: {header: {stamp: {sec: %d}}, pose: {position: {x: %s}}}}')
    _write(tmp_path / 'tree.yaml', f"""\
main: T
trees:
  T:
    Sequence:
      - Publish first: {goal % (5, 1.0)}
      - Publish the same again: {goal % (5, 1.0)}
      - Publish another point: {goal % (5, 2.0)}
      - Publish without a stamp: {goal % (0, 3.0)}
      - Publish that again: {goal % (0, 3.0)}
      - Running
""")
    path = _write(tmp_path / 'again.scenarios.yaml', """\
tree: tree.yaml
peers:
  - topic_action: nav/goal
    type: geometry_msgs/msg/PoseStamped
    goals: [{outcome: hang}]
scenarios:
  one:
    duration: 1
    expect:
      - {goal: nav/goal, count: 4}
      - {goal: nav/goal, index: 1, fields: {pose.position.x: 2.0}}
      - {goal: nav/goal, index: 3, fields: {pose.position.x: 3.0}}
""")
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)
    assert result.passed, '\n'.join(result.failures) + str(result.error or '') + \
        '\n' + '\n'.join(result.trace)
    again = [line for line in result.trace if 'sent again' in line]
    assert len(again) == 1 and 'goal #0 sent again' in again[0], result.trace


@pytest.mark.parametrize('text,message', [
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, expect: [{at: 1, stauts: {x: RUNNING}}]}}',
     'expectation: expected exactly one of status, blackboard, goal, call, published, '
     'got none'),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, expect: [{at: 1, status: {x: RUNING}}]}}',
     "status of x: expected one of SUCCESS, FAILURE, RUNNING, INVALID, got 'RUNING' "
     "(did you mean 'RUNNING'?)"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, peers: [{service: s, type: '
     'std_srvs/srv/Trigger, calls: [{respons: {}}]}]}}',
     "unknown key 'respons' (did you mean 'response'?)"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, peers: [{publish: p, type: '
     'std_msgs/msg/Bool, messages: [{at: 0, fields: {dta: true}}]}]}}',
     "field fields.dta: unknown field 'dta'"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, expect: [{goal: nav, count: 1}]}}',
     "goal: no action or topic_action peer 'nav'"),
    # the names in a pattern a goal, call or message is matched against are fields
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, peers: [{action: fib, type: '
     'test_msgs/action/Fibonacci}], expect: [{goal: fib, fields: {ordr: 3}}]}}',
     "field fields.ordr: unknown field 'ordr' for test_msgs/action/Fibonacci_Goal (did you "
     "mean 'order'?)"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, peers: [{service: s, type: '
     'std_srvs/srv/SetBool, calls: [{match: {data.x: 1}}]}]}}',
     "field match.data.x: a bool has no field 'x'"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, peers: [{topic_action: nav/goal, type: '
     'geometry_msgs/msg/PoseStamped}], expect: [{goal: nav/goal, fields: {pose: {positon: '
     '{x: 1}}}}]}}',
     "field fields.pose.positon: unknown field 'positon' for geometry_msgs/msg/Pose (did you "
     "mean 'position'?)"),
    ('tree: tree.yaml\nscenarios: {a: {duration: -1}}',
     'duration: expected a number of seconds above 0'),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, operator: [{at: 1, do: rest}]}}',
     "operator: unknown action 'rest' (did you mean 'reset'?)"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, operator: [{at: 1, do: swap}]}}',
     "operator: 'tree' goes with 'do: swap', and only there"),
    ('tree: tree.yaml\nscenarios: {a: {duration: 5, operator: [{at: 1, do: swap, tree: '
     'no.yaml}]}}', 'operator: tree: no file'),
])
def test_scenario_file_errors_are_located(tmp_path, text, message):
    _write(tmp_path / 'tree.yaml', 'main: T\ntrees: {T: {Running: {}}}\n')
    path = _write(tmp_path / 'bad.scenarios.yaml', text + '\n')
    with pytest.raises(Exception) as caught:
        load_scenarios(path)
    assert re.search(rf'{re.escape(path)}:2:\d+: .*{re.escape(message)}', str(caught.value)), \
        str(caught.value)


def test_a_status_expectation_naming_no_node_is_located(tmp_path):
    _write(tmp_path / 'tree.yaml', 'main: T\ntrees: {T: {Running hold: {}}}\n')
    path = _write(tmp_path / 'x.scenarios.yaml', 'tree: tree.yaml\nscenarios:\n  a:\n'
                  '    duration: 1\n    expect:\n      - {at: 1, status: {hodl: RUNNING}}\n')
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)
    assert f"{path}:6:26: status: no node 'hodl' in the tree 'T'" in str(result.error)


def test_every_problem_found_once_the_tree_is_loaded_is_reported_together(tmp_path):
    _write(tmp_path / 'tree.yaml', 'main: T\ntrees: {T: {Sequence: [{Running hold: {}}, '
           '{Publish done: {topic: done, type: std_msgs/msg/Bool, fields: {data: true}}}]}}\n')
    path = _write(tmp_path / 'x.scenarios.yaml', 'tree: tree.yaml\nscenarios:\n  a:\n'
                  '    duration: 1\n    expect:\n'
                  '      - {published: nothere, count: 0}\n'
                  '      - {at: 1, status: {hodl: RUNNING}}\n'
                  '      - {published: done, fields: {dat: true}}\n'
                  '      - {published: done, fields: {data: true}, count: 0}\n')
    (scenario,) = load_scenarios(path)
    result = run_scenario(scenario)
    lines = str(result.error).splitlines()
    assert [line.split(': ', 1)[0] for line in lines] == \
        [f'{path}:6:9', f'{path}:7:26', f'{path}:8:9'], str(result.error)
    assert "published: nothing publishes '/nothere'" in lines[0]
    assert "status: no node 'hodl'" in lines[1]
    assert "field fields.dat: unknown field 'dat' for std_msgs/msg/Bool (did you mean " \
        "'data'?)" in lines[2]


def _docs_blocks():
    text = (ROOT / 'docs' / 'testing.md').read_text()
    return re.findall(r'^```yaml[ \t]*\n(.*?)^```', text, re.S | re.M)


def test_the_example_of_docs_testing_md_runs(tmp_path):
    blocks = _docs_blocks()
    (tree,) = [b for b in blocks if b.startswith('main: Fetch')]
    (scenarios,) = [b for b in blocks if b.startswith('tree: fetch.yaml')]
    _write(tmp_path / 'fetch.yaml', tree)
    results = _run_all(_write(tmp_path / 'fetch.scenarios.yaml', scenarios))
    assert len(results) == 2
    assert results[0].passed, '\n'.join(results[0].failures) + str(results[0].error or '')
    # the second scenario shows a failure on purpose
    assert results[1].failures and 'expectation failed' in results[1].failures[0]


def test_the_pytest_plugin_collects_scenario_files(tmp_path):
    _write(tmp_path / 'tree.yaml', 'main: T\ntrees: {T: {Running hold: {}}}\n')
    _write(tmp_path / 'scenario_hold.yaml', 'tree: tree.yaml\nscenarios:\n'
           '  holds:\n    duration: 2\n    expect: [{at: 1, status: {hold: RUNNING}}]\n'
           '  fails:\n    duration: 2\n    expect: [{at: 1, status: {hold: SUCCESS}}]\n')
    _write(tmp_path / 'broken.scenario.yaml', 'tree: tree.yaml\nscenarios: {a: {}}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, '-m', 'pytest', '-p', 'bt_executive.testing.pytest_plugin',
         '-p', 'no:cacheprovider', '-q', '-rf', str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert '2 failed, 1 passed' in out, out
    assert 'scenario_hold.yaml:8:' in out and 'hold is RUNNING' in out
    assert "broken.scenario.yaml:2:16: scenario 'a': missing 'duration'" in out
