# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The JSON Schema of tree files (``bt-executive schema``) against the loader.

The loader is the reference: a file it accepts (loaded, every tree built, the
``subscriptions`` section parsed as the executive parses it) must validate against the
schema, for every shipped tree file, every docs example, every node type of the catalogue
in each of its written forms, and thousands of generated files. A file it rejects for a
structural reason (unknown node type or parameter, a parameter of the wrong type, a
missing one, a wrong number of children, a wrong key at the top or in a tree, wrong
nesting) must be rejected by the schema too: the invalid corpus, classified file by file
below, and the structural faults of every node type, each checked against the loader.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Optional

from bt_executive.app.validation import validate_document
from bt_executive.core import yaml_source
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Registry
from bt_executive.formats.schema import schema_text, tree_schema
from bt_executive.nodes.catalogue import default_registry
from bt_executive.ros.subscriptions import parse_subscriptions
import jsonschema
import pytest
from test_docs_examples import _as_file, EXAMPLES
from test_fuzz_loader import Generator, LIB
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHIPPED = ROOT / 'bt_executive' / 'schema' / 'tree.schema.json'
CORPUS = ROOT / 'test' / 'corpus' / 'invalid'
REGISTRY = default_registry()
SCHEMA = tree_schema(REGISTRY)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
#: Generated files checked against the loader per run; BT_SCHEMA_EXAMPLES for more.
EXAMPLES_PER_RUN = int(os.environ.get('BT_SCHEMA_EXAMPLES', '3000'))


def loader_errors(text: str, *, registry: Registry = REGISTRY, name: str = 't.yaml',
                  base_dir: Optional[str] = None) -> list[str]:
    """Return what the executive would report for a file: load, build, subscriptions."""
    try:
        document = Loader(registry).load_text(text, name=name, base_dir=base_dir)
        validate_document(registry, document)
    except TreeError as error:
        return [str(d) for d in error.diagnostics]
    _, problems = parse_subscriptions(document.sections.get('subscriptions', []))
    return [str(problem) for problem in problems]


def schema_errors(data: Any, validator: jsonschema.Validator = VALIDATOR) -> list[str]:
    """Return the schema's complaints about plain data (the best one first)."""
    errors = list(validator.iter_errors(data))
    if not errors:
        return []
    best = jsonschema.exceptions.best_match(errors)
    return [f'{best.json_path}: {best.message}'] + [e.message for e in errors if e is not best]


def plain(text: str) -> Any:
    """Read YAML as the loader reads it (YAML 1.2 core schema) into plain data."""
    root = yaml_source.load_text(text, 't.yaml')
    return None if root is None else root.plain()


def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


# ---- the schema itself ---------------------------------------------------------------

def test_the_schema_is_a_draft_2020_12_schema_with_an_id():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA['$schema'] == 'https://json-schema.org/draft/2020-12/schema'
    assert SCHEMA['$id'] == 'urn:bt-executive:schema:tree:1'
    assert SCHEMA['title'] and SCHEMA['description']


def test_the_shipped_schema_is_up_to_date():
    assert SHIPPED.read_text(encoding='utf-8') == schema_text(REGISTRY), (
        'bt_executive/schema/tree.schema.json is stale: run bt-executive schema -o '
        'bt_executive/schema/tree.schema.json')


def test_node_types_and_parameters_carry_their_documentation():
    defs = SCHEMA['$defs']
    wait = defs['node_Wait']
    assert wait['title'] == 'Wait' and wait['description'].startswith(
        REGISTRY.require('Wait').doc)
    seconds = defs[wait['properties']['seconds']['$ref'].rsplit('/', 1)[1]]
    assert seconds['description'] == 'duration in seconds (float >= 0, required)'
    parallel = defs[defs['node_Parallel']['properties']['success']['$ref'].rsplit('/', 1)[1]]
    assert parallel['default'] == 'all'
    assert set(defs['short_node']['properties']) == {
        name for t in REGISTRY.types() for name in (t.name, *t.aliases)}


def test_the_command_writes_the_schema(tmp_path):
    target = tmp_path / 'tree.schema.json'
    result = subprocess.run(
        [sys.executable, '-m', 'bt_executive.app.cli', 'schema', '-o', str(target)],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT), os.environ.get('PYTHONPATH', '')])))
    assert result.returncode == 0, result.stderr
    assert json.loads(target.read_text(encoding='utf-8'))['$id'] == SCHEMA['$id']
    assert result.stdout == ''


# ---- what the loader accepts, the schema accepts ---------------------------------------

#: The tree files of config/ (the others are ROS parameter files, scenarios, ...).
TREE_FILES = {'patrol.yaml', 'patrol_mission.yaml', 'patrol_nav2.yaml',
              'patrol_reverse.yaml', 'robot_nav2.yaml', 'robot_sim.yaml'}


@functools.lru_cache(maxsize=1)
def shipped_tree_files() -> frozenset[str]:
    """Return every file that a config file the executive accepts loads (with includes)."""
    files: set[str] = set()
    for path in (ROOT / 'config').glob('*.yaml'):
        try:
            document = Loader(REGISTRY).load(str(path))
            validate_document(REGISTRY, document)
        except TreeError:
            continue  # not a tree file, or a part of one (patrol_mission.yaml)
        files.update(os.path.realpath(name) for name in document.files)
    return frozenset(files)


def test_the_tree_files_of_config_are_found():
    assert TREE_FILES <= {os.path.basename(name) for name in shipped_tree_files()}


@pytest.mark.parametrize('path', sorted((ROOT / 'config').glob('*.yaml')),
                         ids=lambda path: path.name)
def test_every_shipped_tree_file_validates(path: pathlib.Path):
    if os.path.realpath(path) not in shipped_tree_files():
        pytest.skip('not a tree file')
    assert schema_errors(plain(path.read_text(encoding='utf-8'))) == []


@pytest.mark.parametrize('example', [e for e in EXAMPLES if e.kind != 'fragment'], ids=str)
def test_every_docs_example_validates(example):
    assert schema_errors(plain(_as_file(example))) == [], str(example)


def _loads(data: bytes, folder: pathlib.Path) -> Optional[Any]:
    """Return the plain data of a generated file the executive accepts, else None."""
    path = folder / 'fuzz.yaml'
    path.write_bytes(data)
    try:
        root = yaml_source.load_file(str(path))
        if root is None:
            return None
        document = Loader(REGISTRY).load(str(path))
        validate_document(REGISTRY, document)
    except TreeError:
        return None
    _, problems = parse_subscriptions(document.sections.get('subscriptions', []))
    return None if problems else root.plain()


def test_every_generated_file_the_loader_accepts_validates(tmp_path: pathlib.Path):
    (tmp_path / 'lib.yaml').write_text(LIB)
    accepted = 0
    for seed in range(EXAMPLES_PER_RUN):
        data = Generator(seed).file()
        document = _loads(data, tmp_path)
        if document is None:
            continue
        accepted += 1
        assert schema_errors(document) == [], \
            f'seed {seed}: the schema rejects a file the loader accepts:\n{data.decode()}'
    assert accepted >= EXAMPLES_PER_RUN // 10, accepted


# ---- the invalid corpus --------------------------------------------------------------

#: Invalid for a structural reason: the schema rejects them (where it says so).
STRUCTURAL = {
    '01_unknown_type.yaml': '$.trees.Main',
    '02_unknown_type_in_list.yaml': '$.trees.Main.Sequence[0]',
    '03_missing_param.yaml': '$.trees.Main.Sequence[0].Retry',
    '04_unknown_param.yaml': '$.trees.Main.Wait',
    '05_mistyped_param.yaml': '$.trees.Main.Wait.seconds',
    '06_negative_seconds.yaml': '$.trees.Main.Wait',
    '07_enum_param.yaml': '$.trees.Main.Parallel.success',
    '08_bool_param.yaml': '$.trees.Main.Sequence.memory',
    '09_decorator_two_children.yaml': '$.trees.Main.Inverter',
    '10_composite_no_children.yaml': '$.trees.Main.Sequence',
    '11_leaf_with_children.yaml': '$.trees.Main.Success',
    '12_if_too_many.yaml': '$.trees.Main.IfThenElse',
    '21_bad_reference.yaml': '$.trees.Main.SetBlackboard.value',
    '23_no_trees.yaml': '$',
    '24_unknown_top_key.yaml': '$',
    '25_top_level_list.yaml': '$',
    '30_two_types_in_mapping.yaml': '$.trees.Main',
    '31_scalar_for_composite.yaml': '$.trees.Main.Sequence',
    '32_node_is_number.yaml': '$.trees.Main.Sequence[0]',
    '33_lowercase_type.yaml': '$.trees.Main',
    '36_static_param_from_blackboard.yaml': '$.trees.Main.Retry.attempts',
    '39_bad_tree_name.yaml': '$.trees',
    '40_explicit_unknown_key.yaml': '$.trees.Main',
    '41_interface_type.yaml': '$.trees.Main.Publish.type',
    '44_many_errors.yaml': '$.trees.Main.Sequence',
    '45_repeat_zero.yaml': '$.trees.Main.Repeat.times',
    '48_bad_blackboard_key.yaml': '$.blackboard',
    '49_children_and_keys.yaml': '$.trees.Main.Sequence',
    '50_wrong_tree_params.yaml': '$.trees.Main',
    '56_include_not_list.yaml': '$.include',
    '58_errors_beside_calls.yaml': '$.trees.Main.Sequence[0].Wait.seconds',
    '59_include_missing_and_call.yaml': '$.trees.Main.Sequence[0].Wait.seconds',
}

#: Invalid for a reason a JSON Schema cannot see: the schema accepts them.
NOT_STRUCTURAL = {
    '13_unknown_subtree.yaml': 'a reference to a tree: which trees exist is data',
    '14_subtree_recursion.yaml': 'recursion through subtree calls',
    '15_self_recursion.yaml': 'recursion through subtree calls',
    '17_bad_expression.yaml': 'expression syntax',
    '18_expression_assignment.yaml': 'expression syntax',
    '19_expression_dunder.yaml': 'expression semantics',
    '20_expression_unknown_function.yaml': 'expression semantics',
    '22_main_missing.yaml': "'main' names a tree that does not exist",
    '34_subtree_unknown_arg.yaml': "arguments against the called tree's parameters",
    '35_subtree_missing_arg.yaml': "arguments against the called tree's parameters",
    '37_include_missing.yaml': 'the file system',
    '38_include_cycle.yaml': 'the file system',
    '46_weights_mismatch.yaml': 'a factory refuses the values (3 weights, 2 children)',
    '54_include_duplicate_tree.yaml': 'a tree defined in two files',
    '55_error_in_included_file.yaml': 'the error is in the included file',
    '57_subtree_arg_type.yaml': 'a tree argument of the wrong type, known when built',
}

#: Not YAML a schema could be given: the file is refused before (YAML, bytes, limits).
NOT_A_DOCUMENT = {
    '16_duplicate_tree.yaml', '26_empty.yaml', '27_syntax_error.yaml', '28_tabs.yaml',
    '29_duplicate_key.yaml', '42_alias_bomb.yaml', '43_python_tag.yaml',
    '47_multi_document.yaml', '51_binary.yaml', '52_invalid_utf8.yaml',
    '53_deep_nesting.yaml',
}


def test_the_corpus_is_classified_completely():
    on_disk = {path.name for path in CORPUS.glob('*.yaml')}
    classes = [set(STRUCTURAL), set(NOT_STRUCTURAL), NOT_A_DOCUMENT]
    assert sum(map(len, classes)) == len(set().union(*classes))
    assert set().union(*classes) == on_disk


def _corpus_data(name: str) -> Any:
    root = yaml_source.load_file(str(CORPUS / name))
    assert root is not None
    return root.plain()


@pytest.mark.parametrize('name', sorted(STRUCTURAL))
def test_a_structurally_invalid_corpus_file_is_rejected(name: str):
    errors = list(VALIDATOR.iter_errors(_corpus_data(name)))
    assert errors, f'{name}: the schema accepts it'
    paths = {error.json_path for error in errors}
    assert any(path.startswith(STRUCTURAL[name]) for path in paths), (name, paths)


@pytest.mark.parametrize('name', sorted(NOT_STRUCTURAL))
def test_the_schema_cannot_see_the_other_faults(name: str):
    assert schema_errors(_corpus_data(name)) == [], \
        f'{name}: the schema rejects it now: move it to STRUCTURAL'


@pytest.mark.parametrize('name', sorted(NOT_A_DOCUMENT))
def test_files_that_are_not_yaml_documents_never_reach_a_schema(name: str):
    with pytest.raises(TreeError):
        if yaml_source.load_file(str(CORPUS / name)) is None:
            raise TreeError([])


# ---- draft-07 tools (the YAML language server) ---------------------------------------------

def _walk(schema: Any):
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _walk(item)


def test_the_schema_uses_only_what_draft_07_validates_the_same_way():
    newer = {'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas',
             'dependentRequired', 'prefixItems', '$dynamicRef', '$anchor', 'minContains',
             'maxContains'}
    for schema in _walk(SCHEMA):
        assert not newer & set(schema), sorted(newer & set(schema))
        if '$ref' in schema:  # draft-07 ignores the keywords beside a $ref
            assert set(schema) == {'$ref'}, schema


def test_a_draft_07_validator_gives_the_same_verdicts():
    draft7 = jsonschema.Draft7Validator(dict(SCHEMA, **{'$schema': 'http://json-schema.org/'
                                                        'draft-07/schema#'}))
    documents = [_corpus_data(name) for name in sorted(STRUCTURAL) + sorted(NOT_STRUCTURAL)]
    documents += [plain(path.read_text(encoding='utf-8'))
                  for path in sorted((ROOT / 'config').glob('*.yaml'))]
    documents += [plain(_as_file(e)) for e in EXAMPLES if e.kind != 'fragment']
    for document in documents:
        assert draft7.is_valid(document) == VALIDATOR.is_valid(document), document


# ---- docs/schema.md ----------------------------------------------------------------------

def test_the_python_example_of_the_docs_prints_what_the_docs_show(capsys):
    text = (ROOT / 'docs' / 'schema.md').read_text(encoding='utf-8')
    code = text.split('```python\n', 1)[1].split('```\n', 1)[0]
    shown = text.split('```python\n', 1)[1].split('```text\n', 1)[1].split('```\n', 1)[0]
    exec(compile(code, 'docs/schema.md', 'exec'), {})  # noqa: S102 - our own docs
    assert capsys.readouterr().out == shown


def test_the_docs_name_the_corpus_classes_with_their_sizes():
    text = (ROOT / 'docs' / 'schema.md').read_text(encoding='utf-8')
    assert f'{len(STRUCTURAL)} files\nare rejected by the schema, {len(NOT_A_DOCUMENT)} are ' \
        'not YAML' in text
    assert f'and these {len(NOT_STRUCTURAL)} only the loader can reject' in text
