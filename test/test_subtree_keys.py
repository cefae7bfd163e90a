# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Key parameters follow tree parameters both ways: a subtree writes its caller's keys."""

import textwrap

from bt_executive.core import builder
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import ParamType, REQUIRED
from bt_executive.nodes.catalogue import default_registry
import py_trees
from py_trees.common import Status
import pytest

REGISTRY = default_registry()


@pytest.fixture(autouse=True)
def clean_blackboard():
    py_trees.blackboard.Blackboard.clear()
    yield
    py_trees.blackboard.Blackboard.clear()


def load(text, registry=REGISTRY):
    return Loader(registry).load_text(textwrap.dedent(text), name='t.yaml')


def run(text):
    """Build the tree Main, tick it once; return the root status and the blackboard."""
    root = builder.build(load(text), 'Main', registry=REGISTRY).root
    root.tick_once()
    storage = py_trees.blackboard.Blackboard.storage
    return root.status, {key[1:]: value for key, value in storage.items()}


def build_errors(text):
    with pytest.raises(TreeError) as caught:
        builder.build(load(text), 'Main', registry=REGISTRY)
    return [str(diagnostic) for diagnostic in caught.value.diagnostics]


def test_writes_to_a_tree_parameter_land_in_the_key_the_caller_passed():
    status, board = run("""
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree first: {tree: Work, out: $result}
              - Subtree second: {tree: Work, out: $other}
          Work:
            params: {out: null}
            root:
              SetBlackboard: {key: out, value: done}
        """)
    assert status is Status.SUCCESS
    assert board == {'result': 'done', 'other': 'done'}  # no global 'out'


@pytest.mark.parametrize('written, target', [
    ('out', 'result'),
    ('$out', 'result'),
    ("'${out}'", 'result'),
    ('out.pose', 'result.pose'),
])
def test_every_way_of_naming_the_tree_parameter_remaps(written, target):
    py_trees.blackboard.Blackboard.set('/result', {'pose': None})
    status, board = run(f"""
        trees:
          Main:
            Subtree: {{tree: Work, out: $result}}
          Work:
            params: {{out: null}}
            root:
              SetBlackboard: {{key: {written}, value: 7}}
        """)
    assert status is Status.SUCCESS and 'out' not in board
    head, _, field = target.partition('.')
    assert (board[head][field] if field else board[head]) == 7


def test_nested_calls_pass_the_key_on_and_a_field_of_it_is_a_key_path():
    py_trees.blackboard.Blackboard.set('/robot', {'pose': None})
    status, board = run("""
        main: Main
        trees:
          Main:
            Subtree: {tree: Outer, target: $robot}
          Outer:
            params: {target: null}
            root:
              Subtree: {tree: Inner, slot: $target}
          Inner:
            params: {slot: null}
            root:
              SetBlackboard: {key: slot.pose, value: 1.5}
        """)
    assert status is Status.SUCCESS
    assert board['robot'] == {'pose': 1.5} and set(board) == {'robot'}


def test_keys_that_are_read_remap_too():
    text = """
        trees:
          Main:
            Sequence:
              - Subtree: {tree: Check, flag: $ready}
              - UnsetBlackboard: ready
              - Inverter: {Subtree: {tree: Check, flag: $ready}}
          Check:
            params: {flag: null}
            root:
              BlackboardExists: flag
        """
    py_trees.blackboard.Blackboard.set('/ready', True)
    status, board = run(text)
    assert status is Status.SUCCESS and board == {}


def test_a_subtree_that_unsets_its_parameter_unsets_the_callers_key():
    py_trees.blackboard.Blackboard.set('/goal', 1)
    py_trees.blackboard.Blackboard.set('/out', 2)
    status, board = run("""
        trees:
          Main:
            Subtree: {tree: Clear, out: $goal}
          Clear:
            params: {out: null}
            root:
              UnsetBlackboard: out
        """)
    assert status is Status.SUCCESS and board == {'out': 2}


def test_keys_that_do_not_name_a_tree_parameter_are_global_and_computed_keys_still_work():
    status, board = run("""
        trees:
          Main:
            Subtree: {tree: Count, name: left, out: $total}
          Count:
            params: {name: null, out: null}
            root:
              Sequence:
                - SetBlackboard: {key: outcome, value: 1}
                - SetBlackboard: {key: '${"count_" + name}', value: 2}
                - SetBlackboard: {key: out, value: 3}
        """)
    assert status is Status.SUCCESS
    assert board == {'outcome': 1, 'count_left': 2, 'total': 3}


def _required_value(param):
    """Return a valid literal for a required parameter, by its type."""
    return {ParamType.INTERFACE: 'std_msgs/msg/Bool', ParamType.STRING: 'x',
            ParamType.EXPRESSION: 'true', ParamType.KEY: 'k', ParamType.ANY: 1,
            ParamType.FLOAT: 1.0, ParamType.INT: 1}[param.type]


KEY_PARAMS = [(node_type.name, param.name) for node_type in REGISTRY.types()
              for param in node_type.params if param.type is ParamType.KEY]


def test_the_catalogue_has_the_key_parameters_the_docs_list():
    assert sorted(KEY_PARAMS) == sorted([
        ('Action', 'feedback_key'), ('Action', 'result_key'), ('BlackboardExists', 'key'),
        ('Service', 'response_key'), ('SetBlackboard', 'key'), ('TopicAction', 'status_key'),
        ('UnsetBlackboard', 'key'), ('WaitForBlackboard', 'key'), ('WaitForMessage', 'key')])


@pytest.mark.parametrize('type_name, key_param', KEY_PARAMS)
def test_every_key_parameter_of_the_catalogue_remaps(type_name, key_param):
    seen = {}

    def capture(ctx, name, params, children):
        seen[name] = params[key_param]
        return py_trees.behaviours.Success(name=name)

    registry = REGISTRY.with_factories({type_name: capture})
    node_type = registry.get(type_name)
    params = {param.name: _required_value(param) for param in node_type.params
              if param.default is REQUIRED and param.name != key_param}
    written = ', '.join(f'{name}: {value}' for name, value in params.items())
    text = f"""
        trees:
          Main:
            Sequence:
              - Subtree: {{tree: Leaf, out: $result}}
              - Subtree: {{tree: Leaf, out: $robot.pose}}
          Leaf:
            params: {{out: null}}
            root:
              Sequence:
                - {type_name} plain: {{{key_param}: out, {written}}}
                - {type_name} field: {{{key_param}: out.x, {written}}}
                - {type_name} global: {{{key_param}: outside, {written}}}
        """
    builder.build(load(text, registry), 'Main', registry=registry)
    assert seen == {'plain': 'robot.pose', 'field': 'robot.pose.x', 'global': 'outside'}


def test_a_literal_or_an_expression_for_a_key_is_an_error_at_the_argument():
    errors = build_errors("""
        main: Main
        trees:
          Main:
            Sequence:
              - Subtree: {tree: Work, out: result}
              - Subtree: {tree: Work, out: '${a + 1}'}
              - Subtree: {tree: Work, out: '$items[0]'}
              - Subtree: {tree: Work, out: 3}
              - Subtree: {tree: Work, out: $fine}
          Work:
            params: {out: null}
            root:
              SetBlackboard: {key: out, value: done}
        """)
    prefix = ("tree parameter 'out' is used as a blackboard key (SetBlackboard 'key' at "
              't.yaml:14:28), so its argument must be a reference to a key (names and '
              '.fields), like ')
    assert errors == [
        f't.yaml:6:36: Main/Sequence/Subtree/Work/SetBlackboard: {prefix}$result, '
        "not the literal 'result'",
        f't.yaml:7:36: Main/Sequence/Subtree#2/Work/SetBlackboard: {prefix}$result, '
        'not ${a + 1}',
        f't.yaml:8:36: Main/Sequence/Subtree#3/Work/SetBlackboard: {prefix}$result, '
        'not $items[0]',
        f't.yaml:9:36: Main/Sequence/Subtree#4/Work/SetBlackboard: {prefix}$result, '
        'not the literal 3',
    ]


def test_a_literal_default_for_a_written_key_is_an_error_at_the_default():
    errors = build_errors("""
        trees:
          Main:
            params: {out: result}
            root:
              WaitForBlackboard: out
        """)
    assert errors == [
        "t.yaml:4:19: Main/WaitForBlackboard: tree parameter 'out' is used as a blackboard "
        "key (WaitForBlackboard 'key' at t.yaml:6:26), so its default must be a reference "
        "to a key (names and .fields), like $result, not the literal 'result'"]


def test_a_reference_default_remaps_when_the_call_leaves_the_argument_out():
    status, board = run("""
        trees:
          Main:
            Sequence:
              - Subtree: {tree: Work}
              - Subtree: {tree: Work, out: $mine}
          Work:
            params: {out: $shared}
            root:
              SetBlackboard: {key: out, value: 1}
        """)
    assert status is Status.SUCCESS and board == {'shared': 1, 'mine': 1}
