# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tree files type plain scalars by the YAML 1.2 core schema (bt_executive/core/yaml_source.py).

PyYAML alone follows YAML 1.1: ``on`` is True, ``1e-3`` a string, ``017`` fifteen. A tree
file must read like it looks: the table below is the contract, for values and for keys.
"""

from __future__ import annotations

import math
import os
import sys

from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.yaml_source import load_text, load_value, resolve_plain
from bt_executive.formats.btcpp.yaml_dump import dump_yaml
from bt_executive.nodes.catalogue import default_registry
from cli_process import run_cli
import pytest
import yaml

NAN = object()  # marks an expected NaN (NaN != NaN)

#: written -> loaded value (type checked too)
SCALARS = [
    # booleans: only true/false in three spellings
    ('true', True), ('True', True), ('TRUE', True),
    ('false', False), ('False', False), ('FALSE', False),
    ('on', 'on'), ('off', 'off'), ('yes', 'yes'), ('no', 'no'), ('y', 'y'), ('n', 'n'),
    ('Yes', 'Yes'), ('ON', 'ON'), ('tRue', 'tRue'),
    # null
    ('null', None), ('Null', None), ('NULL', None), ('~', None), ('', None),
    ('nULL', 'nULL'), ('None', 'None'),
    # integers
    ('0', 0), ('12', 12), ('-3', -3), ('+7', 7), ('017', 17), ('0x1F', 31), ('0xff', 255),
    ('0o17', 15), ('-0', 0), ('123456789012345678901234567890', 123456789012345678901234567890),
    ('0b101', '0b101'), ('1_000', '1_000'), ('-0x1F', '-0x1F'), ('0x', '0x'), ('0o8', '0o8'),
    ('1:30', '1:30'),
    # floats, with and without a dot, with exponents
    ('1.5', 1.5), ('-0.5', -0.5), ('.5', 0.5), ('+.5', 0.5), ('5.', 5.0), ('1e-3', 0.001),
    ('1.0e6', 1e6), ('1E3', 1000.0), ('2e+3', 2000.0), ('-1.5e-2', -0.015),
    ('1e-400', 0.0),
    ('.inf', math.inf), ('.Inf', math.inf), ('.INF', math.inf), ('+.inf', math.inf),
    ('-.inf', -math.inf), ('.nan', NAN), ('.NaN', NAN), ('.NAN', NAN),
    ('1e', '1e'), ('e3', 'e3'), ('1.2.3', '1.2.3'), ('inf', 'inf'), ('nan', 'nan'),
    ('-.nan', '-.nan'),
    # no YAML 1.1 dates or sexagesimals
    ('2024-01-01', '2024-01-01'), ('12:30:00', '12:30:00'),
    # quoting always makes a string
    ("'1e-3'", '1e-3'), ('"true"', 'true'), ("'on'", 'on'), ("''", ''), ("'null'", 'null'),
    # explicit tags
    ('!!str 1e3', '1e3'), ('!!str true', 'true'), ('!!float 1', 1.0), ('!!int 0x10', 16),
    ('!!bool True', True), ('!!null ~', None), ('!!float .inf', math.inf),
]


def _loaded(text: str):
    node = load_text(f'v: {text}\n', 'scalars.yaml')
    return node.get('v').value


@pytest.mark.parametrize('written, expected', SCALARS, ids=[s[0] or '(empty)' for s in SCALARS])
def test_scalar_loads_by_the_core_schema(written, expected):
    value = _loaded(written)
    if expected is NAN:
        assert isinstance(value, float) and math.isnan(value)
    else:
        assert (type(value), value) == (type(expected), expected)


ERRORS = [
    ('1e400', "scalars.yaml:1:4: number '1e400' is out of range: beyond the largest 64-bit "
              'float (1.8e308); write .inf or -.inf for infinity'),
    ('-1.5e999', "scalars.yaml:1:4: number '-1.5e999' is out of range"),
    ('!!float 1e400', "scalars.yaml:1:4: number '1e400' is out of range"),
    ('!!bool yes', "scalars.yaml:1:4: bad scalar 'yes': !!bool expects true or false"),
    ('!!int 1.5', "scalars.yaml:1:4: bad scalar '1.5': !!int expects an integer"),
    ('!!null x', "scalars.yaml:1:4: bad scalar 'x': !!null expects null, ~ or nothing"),
    ('!!float abc', "scalars.yaml:1:4: bad scalar 'abc': !!float expects a number"),
    ('!!binary aGk=', "scalars.yaml:1:4: unsupported YAML tag 'tag:yaml.org,2002:binary'"),
    ('!local x', "scalars.yaml:1:4: unsupported YAML tag '!local'"),
    ('!!python/name:os.system x', 'scalars.yaml:1:4: unsupported YAML tag '
                                  "'tag:yaml.org,2002:python/name:os.system'"),
    ('9' * 5000, 'scalars.yaml:1:4: integer of 5000 digits is too long'),
]


@pytest.mark.parametrize('written, message', ERRORS, ids=[e[0][:20] for e in ERRORS])
def test_bad_scalar_is_an_error_with_its_location(written, message):
    with pytest.raises(TreeError) as error:
        _loaded(written)
    assert len(error.value.diagnostics) == 1
    assert str(error.value.diagnostics[0]).startswith(message)


def test_keys_are_the_text_as_written():
    node = load_text('on: 1\nyes: 2\nno: 3\nOff: 4\n1: 5\n0x10: 6\nnull: 7\n~: 8\n'
                     'true: 9\n1e400: 10\n2024-01-01: 11\n"quoted": 12\n', 'keys.yaml')
    assert node.keys() == ['on', 'yes', 'no', 'Off', '1', '0x10', 'null', '~', 'true',
                           '1e400', '2024-01-01', 'quoted']
    assert node.plain()['on'] == 1 and node.key_node('on').loc.line == 1


def test_keys_that_differ_only_as_written_are_not_duplicates():
    # YAML 1.1 would turn both into True and report a duplicate
    assert load_text('on: 1\nyes: 2\ntrue: 3\n', 'k.yaml').keys() == ['on', 'yes', 'true']
    with pytest.raises(TreeError, match="duplicate key 'on'"):
        load_text('on: 1\non: 2\n', 'k.yaml')


def test_keys_keep_the_safety_checks():
    for text, message in [
            ('? [a]\n: 1\n', 'mapping keys must be plain scalars'),
            ('<<: {a: 1}\n', "YAML merge keys ('<<') are not supported"),
            ('!!python/name:os.system : 1\n', 'unsupported YAML tag'),
            ('? ' + 'x' * 70000 + '\n: 1\n', 'longer than 65536')]:
        with pytest.raises(TreeError, match=message.replace('(', r'\(').replace(')', r'\)')
                           .replace('[', r'\[')):
            load_text(text, 'k.yaml')


def test_nested_values_and_flow_collections_follow_the_same_rules():
    node = load_text('a: [on, 1e-3, 0x10, {off: yes, b: .5}]\n', 'n.yaml')
    assert node.plain() == {'a': ['on', 0.001, 16, {'off': 'yes', 'b': 0.5}]}


def test_resolve_plain_is_the_schema():
    assert resolve_plain('on').endswith(':str')
    assert resolve_plain('1e-3').endswith(':float')
    assert resolve_plain('0o17').endswith(':int')
    assert resolve_plain('~').endswith(':null')


def test_load_value_for_command_lines():
    assert load_value('{percentage: 1e-1, on: yes}') == {'percentage': 0.1, 'on': 'yes'}
    assert load_value('') is None
    with pytest.raises(TreeError, match=r"--set x:1:1: number '1e400' is out of range"):
        load_value('1e400', '--set x')


def test_alias_and_size_limits_still_hold():
    bomb = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(
        f'{chr(98 + i)}: &{chr(98 + i)} [' + ', '.join([f'*{chr(97 + i)}'] * 10) + ']\n'
        for i in range(6))
    with pytest.raises(TreeError, match='expands to more than'):
        load_text(bomb, 'bomb.yaml')
    with pytest.raises(TreeError, match='nesting deeper than 100'):
        load_text('[' * 150 + ']' * 150, 'deep.yaml')


# ---- in tree files ---------------------------------------------------------------------

def _load(text: str):
    return Loader(default_registry()).load_text(text, name='t.yaml')


def test_oneshot_on_parameter_can_be_written_unquoted():
    document = _load('trees:\n  Main:\n    OneShot:\n      on: success\n      Success:\n')
    assert document.trees['Main'].root.params['on'].data == 'success'


def test_scientific_notation_is_a_number_for_number_parameters():
    document = _load('trees:\n  Main:\n    Sequence:\n      - Wait: 1e-3\n'
                     '      - Timeout: {seconds: 1.0e6, Success: }\n')
    wait, timeout = document.trees['Main'].root.children
    assert wait.params['seconds'].data == 0.001
    assert timeout.params['seconds'].data == 1e6


@pytest.mark.parametrize('written, shown', [('.inf', '.inf'), ('-.inf', '-.inf'),
                                            ('.nan', '.nan')])
def test_number_parameters_must_be_finite(written, shown):
    with pytest.raises(TreeError) as error:
        _load(f'trees:\n  Main:\n    Wait: {written}\n')
    assert [str(d) for d in error.value.diagnostics] == [
        f"t.yaml:3:11: Main/Wait: parameter 'seconds': expected a finite number, got {shown}"]


def test_tree_arguments_and_defaults_must_be_finite():
    with pytest.raises(TreeError) as error:
        _load('main: Main\ntrees:\n  Main:\n    Sequence:\n'
              '      - Subtree: {tree: Go, seconds: .inf}\n'
              '      - Subtree: {tree: Go, seconds: 1, limit: {a: [.nan]}}\n'
              '  Go:\n    params: {seconds: 1.0, limit: -.inf}\n    root:\n      Wait: $seconds\n')
    assert sorted(str(d) for d in error.value.diagnostics) == [
        "t.yaml:5:38: Main/Sequence/Subtree: argument 'seconds': numbers passed to a tree "
        'must be finite (not .inf or .nan)',
        "t.yaml:6:48: Main/Sequence/Subtree#2: argument 'limit': numbers passed to a tree "
        'must be finite (not .inf or .nan)',
        "t.yaml:8:35: Go: default of 'limit': numbers passed to a tree must be finite (not "
        '.inf or .nan)',
    ]


@pytest.mark.parametrize('written', ['.inf', '.nan', '-1'])
def test_subscription_max_age_must_be_finite(written):
    from bt_executive.ros.subscriptions import parse_subscriptions
    section = load_text('- {topic: t, type: std_msgs/msg/Bool, key: k, max_age: '
                        f'{written}}}\n', 's.yaml')
    specs, errors = parse_subscriptions([section])
    assert specs == []
    assert [str(e) for e in errors] == [
        "s.yaml:1:56: subscriptions: 'max_age' must be a number of seconds >= 0"]


def test_overflowing_number_in_a_tree_names_its_place():
    with pytest.raises(TreeError) as error:
        _load('trees:\n  Main:\n    Sequence:\n      - Wait: 1e400\n')
    assert str(error.value.diagnostics[0]).startswith(
        "t.yaml:4:15: number '1e400' is out of range")


def test_blackboard_values_may_be_infinite():
    document = _load('blackboard: {best: .inf, mode: off, small: 1e-3}\n'
                     'trees:\n  Main:\n    Condition: best > small and mode == "off"\n')
    assert {key: value.data for key, value in document.blackboard.items()} == \
        {'best': math.inf, 'mode': 'off', 'small': 0.001}


# ---- writing YAML back -----------------------------------------------------------------

@pytest.mark.parametrize('text', ['1e-3', 'on', 'off', 'yes', '017', '0o7', '0x1F', '.5',
                                  '~', '', 'null', 'true', 'True', '.inf', '1:30', 'x'])
def test_strings_written_by_the_importer_load_back_as_strings(text):
    dumped = dump_yaml({'v': text})
    assert load_text(dumped, 'dump.yaml').plain() == {'v': text}
    assert yaml.safe_load(dumped) == {'v': text}  # and YAML 1.1 readers agree


def test_numbers_written_by_the_importer_load_back_as_numbers():
    data = {'a': 0.001, 'b': 1e20, 'c': 17, 'd': math.inf, 'e': True, 'f': None}
    assert load_text(dump_yaml(data), 'dump.yaml').plain() == data


def test_tick_set_uses_the_same_rules(tmp_path):
    tree = tmp_path / 't.yaml'
    tree.write_text("trees:\n  Main:\n    Condition: mode == 'on' and small < 0.01\n")
    result = run_cli('tick', str(tree), '--ticks', '1', '--set', 'mode=on', '--set',
                     'small=1e-3', timeout=60,
                     env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})
    assert result.returncode == 0, result.stderr
    assert 'root: SUCCESS' in result.stdout
