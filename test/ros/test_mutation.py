# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Mutation testing (bt_executive/testing/mutation*.py) on the patrol.

The hand-made mutants of test/mutants/patrol_defects.yaml each fail a shipped scenario;
a bounded ``--mutate`` run on the patrol kills every mutant it draws, so a scenario that
stops catching its mutants fails here.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shutil

from bt_executive.app.cli import main as cli
from bt_executive.core.loader import Loader
from bt_executive.nodes.plugins import installed_registry
from bt_executive.testing.harness import run_scenario
from bt_executive.testing.spec import load_scenarios
import pytest
import yaml

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATROL = ROOT / 'config' / 'patrol.scenarios.yaml'
DEFECTS = yaml.safe_load((ROOT / 'test' / 'mutants' / 'patrol_defects.yaml').read_text())


@pytest.mark.parametrize('name', sorted(DEFECTS))
def test_every_hand_made_mutant_of_the_patrol_fails_a_shipped_scenario(name, tmp_path):
    defect = DEFECTS[name]
    mission = (ROOT / 'config' / 'patrol_mission.yaml').read_text()
    assert mission.count(defect['old']) == 1, f'{name}: the text to replace is not unique'
    for file in ('patrol.yaml', 'robot_sim.yaml', 'patrol.scenarios.yaml'):
        shutil.copy(ROOT / 'config' / file, tmp_path / file)
    (tmp_path / 'patrol_mission.yaml').write_text(mission.replace(defect['old'], defect['new']))
    Loader(installed_registry(offline=True)).load(str(tmp_path / 'patrol.yaml'))  # valid
    failed = []
    # the shortest first (as --mutate orders by ticks), each stopping at its first failed
    # expectation as a mutant's does: every scenario run costs CPU seconds
    scenarios = sorted(load_scenarios(str(tmp_path / 'patrol.scenarios.yaml')),
                       key=lambda scenario: scenario.duration)
    for scenario in scenarios:
        scenario = dataclasses.replace(scenario, stop_at_first_failure=True)
        result = run_scenario(scenario)  # could not run (e.g. nothing publishes): noticed
        if not result.passed:
            failed.append(scenario.name)
            break
    assert failed, f'{name}: every shipped scenario passes on this defect'


def test_a_bounded_mutation_run_of_the_patrol_kills_every_mutant(tmp_path, capsys):
    """A fixed sample (same seed, same mutants): every one killed, the JSON as documented.

    Seed 11 draws mutants of Recharge, LeaveDock, the waypoint counters and three of the
    lap reset that only the lap scenario kills (survivors before it was written).
    """
    report = tmp_path / 'mutation.json'
    status = cli(['test', str(PATROL), '--mutate', '--mutate-limit', '10', '--seed', '11',
                  '--jobs', '2', '--mutation-json', str(report),
                  '--min-mutation-score', '100'])
    out = capsys.readouterr().out
    assert status == 0, out
    data = json.loads(report.read_text())
    assert data['schema'] == 'bt_executive/mutation/1' and data['seed'] == 11
    (tree,) = data['trees']
    assert tree['tree'] == 'Patrol' and len(tree['mutants']) == 10
    assert tree['counts']['survived'] == 0 and data['score'] == 100.0
    killers = {m['scenario'].rpartition('::')[2] for m in tree['mutants']}
    assert 'laps count only laps with a reached waypoint' in killers, killers
    numbers = [m['number'] for m in tree['mutants']]
    assert numbers == sorted(numbers)
