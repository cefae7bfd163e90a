# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The YAML tree language: short and explicit forms, subtrees, includes, values."""

import textwrap

from bt_executive.core import builder
from bt_executive.core.builder import apply_blackboard_defaults, BuildContext, Builder
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.spec import Dynamic
from bt_executive.nodes.catalogue import default_registry
from hypothesis import given, HealthCheck, settings, strategies as st
import py_trees
from py_trees.common import Status
import pytest
import yaml


@pytest.fixture(autouse=True)
def clean_blackboard():
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


def load(text, **kwargs):
    return Loader(default_registry()).load_text(textwrap.dedent(text), name='t.yaml',
                                                **kwargs)


def build(document, tree_name=None):
    """Build a tree of ``document`` with the default catalogue."""
    return builder.build(document, tree_name, registry=default_registry())


def shape(built, node=None):
    """Return (type, name, [children...]) of a built tree for structural asserts."""
    node = built.root if node is None else node
    return (built.nodes[node.id].type, node.name,
            [shape(built, child) for child in node.children])


def test_short_and_explicit_forms_build_the_same_tree():
    short = load("""
        trees:
          Main:
            Sequence go:
              - Wait: 1.5
              - Inverter:
                  Failure:
              - Retry:
                  attempts: 2
                  Success:
        """)
    explicit = load("""
        trees:
          Main:
            type: Sequence
            name: go
            children:
              - {type: Wait, params: {seconds: 1.5}}
              - {type: Inverter, child: {type: Failure}}
              - type: Retry
                params: {attempts: 2}
                children: [{type: Success}]
        """)
    assert shape(build(short)) == shape(build(explicit))
    assert shape(build(short)) == ('Sequence', 'go', [
        ('Wait', 'Wait', []), ('Inverter', 'Inverter', [('Failure', 'Failure', [])]),
        ('Retry', 'Retry', [('Success', 'Success', [])])])


def test_explicit_node_with_params_is_a_tree_body_too():
    document = load("""
        main: Main
        trees:
          Main:
            type: Retry
            name: try three times
            params: {attempts: 3}
            children:
              - {type: Subtree, params: {tree: Go, speed: 2}}
          Go:
            params: {speed: 1}
            root: {type: Wait, params: {seconds: $speed}}
        """)
    root = document.trees['Main'].root
    assert (root.type, root.name, root.params['attempts'].data) == \
        ('Retry', 'try three times', 3)
    assert shape(build(document)) == ('Retry', 'try three times', [
        ('Subtree', 'Subtree', [('Wait', 'Wait', [])])])


def test_tree_with_params_but_no_root_is_still_an_error():
    with pytest.raises(TreeError) as error:
        load("""
            trees:
              Go:
                params: {speed: 1}
                Wait: $speed
            """)
    assert [str(d) for d in error.value.diagnostics] == [
        "t.yaml:4:5: Go: tree 'Go' has 'params' but no 'root': write params: {...} and "
        'root: <node>']


@pytest.mark.parametrize('text, expected', [
    ('- Success', ('Success', 'Success')),
    ('- Success all good', ('Success', 'all good')),
    ('- Success "quoted name"', ('Success', 'quoted name')),
    ('- Wait short pause: 0.5', ('Wait', 'short pause')),
    ('- Fallback: [Failure]', ('Selector', 'Fallback')),
])
def test_node_names_and_aliases(text, expected):
    document = load('trees:\n  Main:\n    Sequence:\n      ' + text + '\n')
    child = document.trees['Main'].root.children[0]
    assert (child.type, child.name) == expected


def test_node_paths_are_unique_and_stable():
    document = load("""
        trees:
          Main:
            Sequence:
              - Success
              - Success
              - Success named
        """)
    paths = [node.path for node in document.trees['Main'].root.walk()]
    assert paths == ['Main/Sequence', 'Main/Sequence/Success', 'Main/Sequence/Success#2',
                     'Main/Sequence/named']


def test_main_tree_and_tree_selection():
    document = load("""
        main: B
        trees:
          A: {Success: }
          B: {Failure: }
        """)
    assert document.tree().name == 'B'
    assert document.tree('A').name == 'A'
    with pytest.raises(TreeError, match="no tree named 'C'"):
        document.tree('C')


def test_several_trees_without_main_need_a_choice():
    document = load('trees:\n  A: {Success: }\n  B: {Failure: }\n')
    with pytest.raises(TreeError, match="no 'main'"):
        document.tree()


def test_subtree_parameters_are_substituted_per_call():
    document = load("""
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree one: {tree: Setter, value: 1}
              - Subtree two: {tree: Setter, value: '${base * 10}'}
              - Subtree three: {tree: Setter}
          Setter:
            params: {value: 7}
            root:
              SetBlackboard: {key: out, value: '${value + 1}'}
        """)
    root = build(document).root
    py_trees.blackboard.Blackboard.set('/base', 4)
    outputs = []
    for subtree in root.children:
        subtree.tick_once()
        outputs.append(py_trees.blackboard.Blackboard.get('/out'))
    assert outputs == [2, 41, 8]


def test_subtree_argument_fills_a_static_parameter():
    document = load("""
        trees:
          Main:
            Subtree: {tree: Tries, count: 3}
          Tries:
            params: {count: null}
            root:
              Retry:
                attempts: $count
                Failure:
        """)
    built = build(document, 'Main')
    root = built.root
    retry = root.children[0]
    assert built.nodes[retry.id].type == 'Retry' and retry.num_failures == 3
    assert built.nodes[root.id].path == 'Main/Subtree'
    assert built.nodes[retry.id].path == 'Main/Subtree/Tries/Retry'


def test_subtree_remaps_blackboard_keys():
    document = load("""
        trees:
          Main:
            Subtree: {tree: Check, level: $battery.percentage}
          Check:
            params: {level: null}
            root:
              Condition: level > 0.5
        """)
    root = build(document, 'Main').root
    py_trees.blackboard.Blackboard.set('/battery', {'percentage': 0.9})
    root.tick_once()
    assert root.status is Status.SUCCESS
    py_trees.blackboard.Blackboard.set('/battery', {'percentage': 0.1})
    root.tick_once()
    assert root.status is Status.FAILURE


def test_includes_are_relative_to_the_including_file(tmp_path):
    (tmp_path / 'lib').mkdir()
    (tmp_path / 'lib' / 'a.yaml').write_text(
        'include: b.yaml\ntrees:\n  A:\n    Subtree: B\n')
    (tmp_path / 'lib' / 'b.yaml').write_text('trees:\n  B:\n    Success:\n')
    (tmp_path / 'main.yaml').write_text(
        'main: Main\ninclude: [lib/a.yaml]\ntrees:\n  Main:\n    Subtree: A\n')
    document = Loader(default_registry()).load(str(tmp_path / 'main.yaml'))
    assert sorted(document.trees) == ['A', 'B', 'Main']
    assert document.trees['B'].file.endswith('lib/b.yaml')
    root = build(document).root
    root.tick_once()
    assert root.status is Status.SUCCESS


def test_diamond_include_loads_once(tmp_path):
    (tmp_path / 'common.yaml').write_text('trees:\n  C:\n    Success:\n')
    (tmp_path / 'x.yaml').write_text('include: common.yaml\ntrees:\n  X: {Subtree: C}\n')
    (tmp_path / 'y.yaml').write_text('include: common.yaml\ntrees:\n  Y: {Subtree: C}\n')
    (tmp_path / 'main.yaml').write_text('include: [x.yaml, y.yaml]\nmain: X\ntrees: {}\n')
    document = Loader(default_registry()).load(str(tmp_path / 'main.yaml'))
    assert sorted(document.trees) == ['C', 'X', 'Y']


@pytest.mark.parametrize('written, expected', [
    ('plain', 'plain'),
    ('$$dollars', '$dollars'),
    ("'$$5 fee'", '$5 fee'),
    ('42', 42),
    ('[1, two]', [1, 'two']),
])
def test_literal_values(written, expected):
    document = load(f'trees:\n  Main:\n    SetBlackboard: {{key: k, value: {written}}}\n')
    root = build(document).root
    root.tick_once()
    assert py_trees.blackboard.Blackboard.get('/k') == expected


@pytest.mark.parametrize('written, expected', [
    ('$n', 5),
    ('$point.x', 1.5),
    ("'$items[1]'", 'b'),
    ("'${n * 2 + point.x}'", 11.5),
    ('{nested: {a: $n, b: [$n, 1]}}', {'nested': {'a': 5, 'b': [5, 1]}}),
])
def test_blackboard_references_are_read_at_tick_time(written, expected):
    document = load(f'trees:\n  Main:\n    SetBlackboard: {{key: k, value: {written}}}\n')
    root = build(document).root
    py_trees.blackboard.Blackboard.set('/n', 5)
    py_trees.blackboard.Blackboard.set('/point', {'x': 1.5})
    py_trees.blackboard.Blackboard.set('/items', ['a', 'b'])
    root.tick_once()
    assert py_trees.blackboard.Blackboard.get('/k') == expected


def test_reference_parses_into_a_dynamic_value():
    document = load('trees:\n  Main:\n    Log: $battery.percentage\n')
    value = document.trees['Main'].root.params['message']
    assert isinstance(value.data, Dynamic)
    assert value.names() == {'battery'}


def test_initial_blackboard_values():
    document = load('blackboard: {laps: 0, name: r1}\ntrees:\n  Main: {Success: }\n')
    apply_blackboard_defaults(document)
    assert py_trees.blackboard.Blackboard.get('/laps') == 0
    assert py_trees.blackboard.Blackboard.get('/name') == 'r1'


def test_subscriptions_section_is_kept_for_the_ros_layer():
    document = load("""
        subscriptions:
          - {topic: battery, type: sensor_msgs/msg/BatteryState, key: battery}
        trees:
          Main: {Success: }
        """)
    assert len(document.sections['subscriptions']) == 1


def test_condition_reads_are_declared_on_the_blackboard():
    document = load('trees:\n  Main:\n    Condition: a.b > c\n')
    built = build(document)
    assert built.nodes[built.root.id].reads == {'a', 'c'}


def test_condition_with_missing_key_fails_with_reason():
    root = build(load('trees:\n  Main:\n    Condition: battery.percentage < 0.2\n')).root
    root.tick_once()
    assert root.status is Status.FAILURE
    assert "no blackboard key 'battery'" in root.feedback_message


def test_stubbed_ros_leaves_follow_the_stub_table():
    document = load("""
        trees:
          Main:
            Sequence:
              - Action move: {type: test_msgs/action/Fibonacci, server: fib, goal: {order: 3}}
              - Service check: {type: std_srvs/srv/Trigger, service: check}
        """)
    context = BuildContext(registry=default_registry(), document=document,
                           stubs={'check': ('failure', 0)})
    root = Builder(context).build().root
    statuses = []
    for _ in range(3):
        root.tick_once()
        statuses.append(root.status)
    assert statuses == [Status.RUNNING, Status.FAILURE, Status.RUNNING]


def test_thirty_node_patrol_like_tree_fits_in_sixty_lines():
    import os
    path = os.path.join(os.path.dirname(__file__), '..', 'config', 'patrol_mission.yaml')
    document = Loader(default_registry()).load(path.replace('patrol_mission', 'patrol'))
    nodes = sum(1 for tree in document.trees.values() for _ in tree.root.walk())
    with open(path) as stream:
        tree_lines = stream.read().split('\ntrees:\n', 1)[1].count('\n')
    assert nodes >= 28
    assert tree_lines <= 68, 'the patrol trees should read in about 60 lines'


# ---- hostile input: only TreeError, never anything else ----------------------------------

yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                         st.floats(allow_nan=True), st.text(max_size=20))
node_names = st.sampled_from(['Sequence', 'Selector', 'Wait', 'Retry', 'Subtree', 'Inverter',
                              'Condition', 'SetBlackboard', 'Action', 'Parallel', 'Bogus',
                              'tree', 'children', 'child', 'type', 'params', 'root', 'main',
                              'include', 'trees', 'seconds', 'attempts', 'expr', '$x',
                              '${a +}', 'Main'])
yaml_values = st.recursive(
    yaml_scalars | node_names,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        node_names | st.text(max_size=8), children, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(['main', 'trees', 'include', 'blackboard', 'x']),
                       yaml_values, max_size=4))
def test_arbitrary_documents_raise_only_tree_errors(document):
    try:
        text = yaml.safe_dump(document, allow_unicode=True)
    except Exception:  # noqa: B902 - hypothesis may build unrepresentable data
        return
    loader = Loader(default_registry())
    try:
        loaded = loader.load_text(text, name='fuzz.yaml', base_dir='/nonexistent')
        for name in loaded.trees:
            try:
                build(loaded, name)
            except TreeError:
                pass
    except TreeError as error:
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert str(diagnostic).startswith('fuzz.yaml')


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_tree_errors(text):
    try:
        Loader(default_registry()).load_text(text, name='fuzz.yaml', base_dir='/nonexistent')
    except TreeError as error:
        assert error.diagnostics
