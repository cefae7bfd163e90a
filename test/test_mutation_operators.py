# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Mutation operators on the loaded tree description (no ROS): round trip, order, marks."""

from __future__ import annotations

import pathlib

from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.nodes.plugins import installed_registry
from bt_executive.testing.mutation import parse_operators, read_marks, sample
from bt_executive.testing.mutation_operators import make_mutants, mutated_file, \
    OPERATOR_NAMES, OPERATORS, reachable_trees, tree_data
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
PATROL = str(ROOT / 'config' / 'patrol.yaml')
REGISTRY = installed_registry(offline=True)


def test_a_tree_written_back_in_the_explicit_form_loads_to_the_same_tree(tmp_path):
    document = Loader(REGISTRY).load(PATROL)
    data = {'trees': {name: tree_data(tree) for name, tree in document.trees.items()}}
    (tmp_path / 'all.yaml').write_text(yaml.safe_dump(data, sort_keys=False))
    again = Loader(REGISTRY).load(str(tmp_path / 'all.yaml'))
    assert list(again.trees) == list(document.trees)
    for name, tree in document.trees.items():
        assert tree_data(again.trees[name]) == tree_data(tree), name
        paths = [node.path for node in tree.root.walk()]
        assert [node.path for node in again.trees[name].root.walk()] == paths


def test_the_same_file_gives_the_same_mutants_in_the_same_order():
    first = make_mutants(Loader(REGISTRY).load(PATROL), REGISTRY, 'Patrol')
    second = make_mutants(Loader(REGISTRY).load(PATROL), REGISTRY, 'Patrol')
    assert [m.key for m in first] == [m.key for m in second]
    assert len({m.key for m in first}) == len(first) > 150
    assert {m.operator for m in first} == set(OPERATOR_NAMES)
    assert reachable_trees(Loader(REGISTRY).load(PATROL), REGISTRY, 'Patrol') == [
        'Patrol', 'EmergencyStop', 'Recharge', 'LeaveDock', 'NextWaypoint', 'Navigate', 'Dock',
        'Undock']
    # defaults every caller overrides are not mutated (Recharge's low/full), used ones are
    keys = [m.key for m in first]
    assert 'number Navigate/drive: timeout: 120.0 -> timeout: 132.0' in keys
    assert not any(m.node == 'Recharge/Sequence' and m.before.startswith('low:')
                   for m in first)


def test_each_mutant_names_its_place_and_loads(tmp_path):
    document = Loader(REGISTRY).load(PATROL)
    mutants = make_mutants(document, REGISTRY, 'Patrol')
    hysteresis = [m for m in mutants if m.key == (
        'comparison Recharge/Sequence/dock, or wait for help/dock and charge/charged: '
        'expr: battery.percentage >= full -> expr: battery.percentage > full')]
    assert len(hysteresis) == 1
    assert str(hysteresis[0].loc).endswith('config/patrol_mission.yaml:75:38')
    for name in ('patrol.yaml', 'robot_sim.yaml'):
        (tmp_path / name).write_text((ROOT / 'config' / name).read_text())
    for mutant in mutants[::7]:
        data = mutated_file(mutant, lambda path: yaml.safe_load(pathlib.Path(path).read_text()))
        target = tmp_path / pathlib.Path(mutant.mutated.file).name
        target.write_text(yaml.safe_dump(data, sort_keys=False))
        try:
            Loader(REGISTRY).load(str(tmp_path / 'patrol.yaml'))
        except TreeError as error:  # a mutant may break a load rule: it is left out then
            assert mutant.operator in ('delete', 'decorator', 'result'), (mutant.key, error)
        finally:
            target.write_text((ROOT / 'config' / target.name).read_text())


def test_operators_are_documented_and_parsed():
    assert all(op.summary and op.survivor for op in OPERATORS)
    docs = (ROOT / 'docs' / 'testing.md').read_text()
    assert all(f'`{name}`' in docs for name in OPERATOR_NAMES)
    assert parse_operators('delete, swap') == ('swap', 'delete')
    with pytest.raises(ValueError, match='unknown operator swop; expected some of swap'):
        parse_operators('swop')


def test_equivalent_marks_are_read_strictly(tmp_path):
    path = tmp_path / 's.scenarios.yaml'
    path.write_text('mutation:\n  equivalent:\n    - {mutant: "swap X: a, b -> b, a", '
                    'reason: both only log}\n')
    (mark,) = read_marks(str(path))
    assert mark.key == 'swap X: a, b -> b, a' and mark.reason == 'both only log'
    path.write_text('mutation:\n  equivalent:\n    - {mutant: x}\n  equivlent: []\n')
    with pytest.raises(TreeError) as raised:
        read_marks(str(path))
    text = str(raised.value)
    assert ':3:7: equivalent: expected {mutant: NAME' in text
    assert ":4:3: mutation: unknown key 'equivlent'" in text


def test_a_limited_run_draws_the_same_sample_for_the_same_seed():
    assert sample(205, 16, 7) == sample(205, 16, 7)
    assert sample(205, 16, 7) != sample(205, 16, 8)
    drawn = sample(205, 16, 7)
    assert drawn == sorted(drawn) and len(set(drawn)) == 16
    assert sample(5, 16, 7) == [0, 1, 2, 3, 4]
