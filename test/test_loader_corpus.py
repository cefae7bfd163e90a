# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The invalid-file corpus: every file's complete list of errors, exactly as reported."""

import os

from bt_executive.app.validation import build_tree, buildable_trees
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
import pytest

CORPUS = os.path.join(os.path.dirname(__file__), 'corpus', 'invalid')

INVALID_CASES = {
    '01_unknown_type.yaml': [
        "01_unknown_type.yaml:3:5: Main/Sequense: unknown node type 'Sequense' (did you mean "
        "'Sequence'?) (run 'bt-executive nodes' for the catalogue)",
    ],
    '02_unknown_type_in_list.yaml': [
        "02_unknown_type_in_list.yaml:4:9: Main/Sequence/Succes: unknown node type 'Succes' (did "
        "you mean 'Success'?) (run 'bt-executive nodes' for the catalogue)",
        "02_unknown_type_in_list.yaml:5:9: Main/Sequence/Wiat: unknown node type 'Wiat' (did you "
        "mean 'Wait'?) (run 'bt-executive nodes' for the catalogue)",
    ],
    '03_missing_param.yaml': [
        "03_missing_param.yaml:4:9: Main/Sequence/Retry: Retry needs parameter 'attempts' (int "
        '>= 1: runs allowed before FAILURE)',
    ],
    '04_unknown_param.yaml': [
        "04_unknown_param.yaml:3:26: Main/Wait: unknown parameter 'secs' for Wait (did you mean "
        "'seconds'?) (expected: seconds)",
    ],
    '05_mistyped_param.yaml': [
        "05_mistyped_param.yaml:3:21: Main/Wait: parameter 'seconds': expected a number, got a "
        'string',
    ],
    '06_negative_seconds.yaml': [
        "06_negative_seconds.yaml:3:11: Main/Wait: parameter 'seconds': expected a value >= 0, "
        'got -1',
    ],
    '07_enum_param.yaml': [
        "07_enum_param.yaml:4:16: Main/Parallel: parameter 'success': expected one of all, one, "
        "got 'al' (did you mean 'all'?)",
    ],
    '08_bool_param.yaml': [
        "08_bool_param.yaml:4:15: Main/Sequence: parameter 'memory': expected true or false, got "
        'a string',
    ],
    '09_decorator_two_children.yaml': [
        '09_decorator_two_children.yaml:3:5: Main/Inverter: Inverter takes exactly 1 child, got 2',
    ],
    '10_composite_no_children.yaml': [
        '10_composite_no_children.yaml:3:5: Main/Sequence: Sequence takes at least 1 child, got 0',
    ],
    '11_leaf_with_children.yaml': [
        '11_leaf_with_children.yaml:3:5: Main/Success: Success takes no children, got 1',
    ],
    '12_if_too_many.yaml': [
        '12_if_too_many.yaml:3:5: Main/IfThenElse: IfThenElse takes 2 to 3 children, got 4',
    ],
    '13_unknown_subtree.yaml': [
        "13_unknown_subtree.yaml:3:14: Main/Subtree: unknown tree 'Dokc' (did you mean 'Dock'?) "
        '(trees: Dock, Main)',
    ],
    '14_subtree_recursion.yaml': [
        '14_subtree_recursion.yaml:8:9: B/Sequence/Subtree: subtree recursion: A -> B -> A',
    ],
    '15_self_recursion.yaml': [
        '15_self_recursion.yaml:3:5: Loop/Subtree: subtree recursion: Loop -> Loop',
    ],
    '16_duplicate_tree.yaml': [
        "16_duplicate_tree.yaml:4:3: duplicate key 'Main' (first at line 2)",
    ],
    '17_bad_expression.yaml': [
        "17_bad_expression.yaml:3:38: Main/Condition: bad expression 'battery.percentage < ': "
        "expected an operand after '<'",
    ],
    '18_expression_assignment.yaml': [
        "18_expression_assignment.yaml:3:22: Main/Condition: bad expression 'mode = 'patrol'': "
        "unknown operator '=' (did you mean '==')",
    ],
    '19_expression_dunder.yaml': [
        "19_expression_dunder.yaml:3:25: Main/Condition: bad expression 'battery.__class__': "
        "field names starting with '_' are not accessible",
    ],
    '20_expression_unknown_function.yaml': [
        "20_expression_unknown_function.yaml:3:17: Main/Condition: bad expression 'open('x') == "
        "1': unknown function 'open' (known: abs, bool, clamp, float, int, len, max, min, round, "
        'str)',
    ],
    '21_bad_reference.yaml': [
        "21_bad_reference.yaml:3:36: Main/SetBlackboard: bad reference '$not a ref': expected a "
        'blackboard reference like $battery.percentage or an expression like '
        "${battery.percentage * 100} (write '$$' for a literal '$')",
    ],
    '22_main_missing.yaml': [
        "22_main_missing.yaml:1:7: main tree 'Patrol' is not defined (did you mean 'Patorl'?) "
        '(trees: Patorl)',
    ],
    '23_no_trees.yaml': [
        "23_no_trees.yaml:1:1: no 'trees' section: expected a mapping of tree names to trees",
    ],
    '24_unknown_top_key.yaml': [
        "24_unknown_top_key.yaml:1:1: unknown top-level key 'tree' (did you mean 'trees'?) "
        '(expected: main, include, trees, blackboard, persistent, description, subscriptions)',
    ],
    '25_top_level_list.yaml': [
        "25_top_level_list.yaml:1:1: expected a mapping with 'trees' at the top level, got a list",
    ],
    '26_empty.yaml': [
        "26_empty.yaml: file is empty, expected a mapping with 'trees'",
    ],
    '27_syntax_error.yaml': [
        "27_syntax_error.yaml:4:1: YAML syntax error: did not find expected ',' or ']' "
        '(while parsing a flow sequence at line 3, column 15)',
    ],
    '28_tabs.yaml': [
        '28_tabs.yaml:2:1: YAML syntax error: a tab character; YAML indentation must use spaces',
    ],
    '29_duplicate_key.yaml': [
        "29_duplicate_key.yaml:3:24: duplicate key 'seconds' (first at line 3)",
    ],
    '30_two_types_in_mapping.yaml': [
        '30_two_types_in_mapping.yaml:4:5: Main: a node mapping holds exactly one node type key, '
        'found 2 (Sequence, Selector); write sibling nodes as list items',
    ],
    '31_scalar_for_composite.yaml': [
        '31_scalar_for_composite.yaml:3:15: Main/Sequence: Sequence takes a list of children (or '
        'a mapping of parameters with children), not a string',
    ],
    '32_node_is_number.yaml': [
        '32_node_is_number.yaml:4:9: Main/Sequence: expected a node: a mapping like {Sequence: '
        '[...]} or {type: Sequence, children: [...]}, got an integer',
    ],
    '33_lowercase_type.yaml': [
        "33_lowercase_type.yaml:3:5: Main: expected a node type (CamelCase, e.g. 'Sequence'), "
        "got 'sequence'; for the explicit form add 'type:'",
    ],
    '34_subtree_unknown_arg.yaml': [
        "34_subtree_unknown_arg.yaml:3:34: Main/Subtree: tree 'Dock' has no parameter 'speed' "
        '(parameters: retries)',
    ],
    '35_subtree_missing_arg.yaml': [
        "35_subtree_missing_arg.yaml:3:5: Main/Subtree: tree 'Dock' needs argument 'target' "
        '(declared at 35_subtree_missing_arg.yaml:4:3)',
    ],
    '36_static_param_from_blackboard.yaml': [
        "36_static_param_from_blackboard.yaml:4:17: Main/Retry: parameter 'attempts' must be "
        'known when the tree is built: use a literal or a tree parameter, not the blackboard '
        "value 'max_attempts'",
    ],
    '37_include_missing.yaml': [
        "37_include_missing.yaml:1:11: included file 'does_not_exist.yaml' not found",
    ],
    '38_include_cycle.yaml': [
        '38_include_cycle.yaml:1:11: include cycle: 38_include_cycle.yaml -> '
        '38_include_cycle.yaml',
    ],
    '39_bad_tree_name.yaml': [
        "39_bad_tree_name.yaml:2:3: tree name 'my tree' must be an identifier (a letter, then "
        'letters, digits or underscores)',
    ],
    '40_explicit_unknown_key.yaml': [
        '40_explicit_unknown_key.yaml:3:11: Main/Sequence: Sequence takes at least 1 child, got 0',
        "40_explicit_unknown_key.yaml:4:5: Main: unknown key 'childs' in explicit node (did you "
        "mean 'child'?) (expected: type, name, params, children, child)",
    ],
    '41_interface_type.yaml': [
        "41_interface_type.yaml:3:37: Main/Publish: parameter 'type': expected a ROS interface "
        "type like 'sensor_msgs/msg/BatteryState', got 'geometry_msgs/Twist'",
    ],
    '42_alias_bomb.yaml': [
        '42_alias_bomb.yaml:1:14: document expands to more than 200000 values (YAML aliases used '
        'as a bomb?)',
    ],
    '43_python_tag.yaml': [
        '43_python_tag.yaml:3:10: unsupported YAML tag '
        "'tag:yaml.org,2002:python/object/apply:os.system'",
    ],
    '44_many_errors.yaml': [
        "44_many_errors.yaml:4:25: Main/Sequence/Wait: parameter 'seconds': expected a number, "
        'got a string',
        "44_many_errors.yaml:5:24: Main/Sequence/Condition: bad expression 'a <': expected an "
        "operand after '<'",
        "44_many_errors.yaml:6:9: Main/Sequence/Frobnicate: unknown node type 'Frobnicate' (run "
        "'bt-executive nodes' for the catalogue)",
        "44_many_errors.yaml:7:9: Main/Sequence/Retry: Retry needs parameter 'attempts' (int >= "
        '1: runs allowed before FAILURE)',
    ],
    '45_repeat_zero.yaml': [
        "45_repeat_zero.yaml:4:14: Main/Repeat: parameter 'times': expected a value >= 1, got 0",
    ],
    '46_weights_mismatch.yaml': [
        '46_weights_mismatch.yaml:3:5: Main/RandomSelector: cannot build RandomSelector: 3 '
        'weights for 2 children',
    ],
    '47_multi_document.yaml': [
        '47_multi_document.yaml:4:1: YAML syntax error: but found another document (expected a '
        'single document in the stream)',
    ],
    '48_bad_blackboard_key.yaml': [
        "48_bad_blackboard_key.yaml:2:3: blackboard key 'bad-key' must be an identifier "
        '(letters, digits, underscores)',
    ],
    '49_children_and_keys.yaml': [
        "49_children_and_keys.yaml:5:7: Main: write children either under 'children:' or as node "
        'keys, not both',
    ],
    '50_wrong_tree_params.yaml': [
        "50_wrong_tree_params.yaml:3:5: Main: tree 'Main' has 'params' but no 'root': write "
        'params: {...} and root: <node>',
    ],
    '51_binary.yaml': [
        '51_binary.yaml: file is binary (contains NUL bytes), expected YAML text',
    ],
    '52_invalid_utf8.yaml': [
        '52_invalid_utf8.yaml:3:1: invalid UTF-8 at byte 28, expected YAML text',
    ],
    '53_deep_nesting.yaml': [
        '53_deep_nesting.yaml:3:107: nesting deeper than 100 levels',
    ],
    '54_include_duplicate_tree.yaml': [
        "54_include_duplicate_tree.yaml:3:3: duplicate tree name 'Main' (first defined at "
        'lib/common.yaml:7:3)',
    ],
    '55_error_in_included_file.yaml': [
        "lib/broken.yaml:4:25: Helper/Sequence/Wait: parameter 'seconds': expected a number, got "
        'a string',
    ],
    '56_include_not_list.yaml': [
        "56_include_not_list.yaml:1:10: 'include' must be a file name or a list of file names",
    ],
    '57_subtree_arg_type.yaml': [
        "57_subtree_arg_type.yaml:10:19: Start/Subtree/Retrying/Retry: parameter 'attempts': "
        'expected an integer, got a string (argument from the call at '
        '57_subtree_arg_type.yaml:5:5)',
    ],
    '58_errors_beside_calls.yaml': [
        "58_errors_beside_calls.yaml:6:25: Main/Sequence/Wait: parameter 'seconds': expected a "
        'value >= 0, got -1',
        "58_errors_beside_calls.yaml:7:18: Main/Sequence/Subtree: unknown tree 'Missing' "
        '(trees: Broken, Main, Odd, Other)',
        "58_errors_beside_calls.yaml:8:39: Main/Sequence/Subtree#2: tree 'Other' has no "
        "parameter 'remap' (parameters: none)",
        "58_errors_beside_calls.yaml:14:5: Broken/Nope: unknown node type 'Nope' (run "
        "'bt-executive nodes' for the catalogue)",
        "58_errors_beside_calls.yaml:16:24: Odd: tree parameter 'Bad' must be a lowercase "
        'identifier',
    ],
    '59_include_missing_and_call.yaml': [
        "59_include_missing_and_call.yaml:2:11: included file 'not_there.yaml' not found",
        "59_include_missing_and_call.yaml:6:25: Main/Sequence/Wait: parameter 'seconds': "
        'expected a value >= 0, got -1',
    ],
}


def load_and_build(path):
    """Load a file and build the trees validate would build."""
    registry = default_registry()
    document = Loader(registry).load(path)
    for name in buildable_trees(document):
        build_tree(registry, document, name)
    return document


def test_corpus_is_large_enough():
    assert len(INVALID_CASES) >= 40
    on_disk = {name for name in os.listdir(CORPUS) if name.endswith('.yaml')}
    assert on_disk == set(INVALID_CASES), 'every corpus file has expectations and back'


@pytest.mark.parametrize('name', sorted(INVALID_CASES))
def test_invalid_file_reports_every_error(name, monkeypatch):
    monkeypatch.chdir(CORPUS)
    with pytest.raises(TreeError) as caught:
        load_and_build(name)
    assert [str(d) for d in caught.value.diagnostics] == INVALID_CASES[name]


@pytest.mark.parametrize('name', sorted(INVALID_CASES))
def test_every_error_names_file_line_and_column(name, monkeypatch):
    monkeypatch.chdir(CORPUS)
    with pytest.raises(TreeError) as caught:
        load_and_build(name)
    for diagnostic in caught.value.diagnostics:
        assert diagnostic.location.file.endswith('.yaml')
        assert diagnostic.message
        if not any(word in diagnostic.message for word in ('empty', 'binary', 'bytes')):
            assert diagnostic.location.line >= 1 and diagnostic.location.column >= 1, \
                str(diagnostic)
