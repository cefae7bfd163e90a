# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The tree schema, node type by node type and rule by rule, against the loader.

Every case is given to the loader too: a case meant to be valid must load and build, a
case meant to be invalid must be rejected by the loader, and the schema must agree. The
cases are derived from the registry (each type in each written form, with each of its
parameters missing, unknown, of the wrong type, with too many or too few children), so
plugin types and new catalogue types are covered without editing this file.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import random
import shutil
import subprocess
from typing import Any, Optional

from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.formats.schema import tree_schema
from bt_executive.nodes.catalogue import default_registry
import jsonschema
from plugin_package import build_package
import py_trees
import pytest
from test_schema import dump, loader_errors, plain, REGISTRY, schema_errors, VALIDATOR

TYPES = REGISTRY.types()


def sample(param: Param, node_type: NodeType) -> Any:
    """Return a value the loader accepts for ``param``."""
    if node_type.category is Category.SUBTREE and param.name == 'tree':
        return 'Called'
    if not param.required and param.default is not None:
        return param.default
    low = param.minimum if param.minimum is not None else 0
    return {
        ParamType.BOOL: True, ParamType.INT: int(low) + 1, ParamType.FLOAT: low + 0.5,
        ParamType.STRING: 'text', ParamType.ENUM: param.choices[0] if param.choices else '',
        ParamType.EXPRESSION: 'true', ParamType.KEY: 'k', ParamType.LIST: [],
        ParamType.MAPPING: {}, ParamType.ANY: 'hello',
        ParamType.INTERFACE: 'std_msgs/msg/Bool',
    }[param.type]


def wrong(param: Param) -> list[Any]:
    """Return values of the wrong type (or out of range) for ``param``."""
    values: list[Any] = {
        ParamType.BOOL: ['yes', 1], ParamType.INT: ['many', 1.5, True],
        ParamType.FLOAT: ['soon', False, [1]], ParamType.STRING: [5, True, {'a': 1}],
        ParamType.ENUM: ['zzz', 1], ParamType.EXPRESSION: [5, None, ['x']],
        ParamType.KEY: ['not a key', 'a..b', 3], ParamType.LIST: [5, 'x'],
        ParamType.MAPPING: [5, 'x', [1]], ParamType.ANY: ['$not a ref', ['$ bad']],
        ParamType.INTERFACE: ['std_msgs/Bool', 'std_msgs/msg/bool', 1],
    }[param.type]
    if param.minimum is not None:
        values.append(param.minimum - 1)
    if param.maximum is not None:
        values.append(param.maximum + 1)
    if param.type not in (ParamType.EXPRESSION, ParamType.STRING, ParamType.ANY):
        values.append('$$')  # a literal '$': neither a reference nor an expression
    return values


def children(count: int) -> list[str]:
    return ['Success'] * count


def document(node: Any) -> str:
    """Return a file with ``node`` as the root of Main, and a tree ``Called``."""
    return dump({'blackboard': {'x': 1, 'k': 1},
                 'trees': {'Main': node, 'Called': 'Success'}})


class Cases:
    """Collect disagreements between the intent, the loader and the schema."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.count = 0

    def check(self, node: Any, valid: bool, what: str, *, text: Optional[str] = None,
              registry: Registry = REGISTRY, validator: jsonschema.Validator = VALIDATOR,
              factory: bool = False) -> None:
        """Check one case; ``factory``: a factory may refuse the values (not the schema's)."""
        text = text if text is not None else document(node)
        self.count += 1
        loader = loader_errors(text, registry=registry)
        schema = schema_errors(plain(text), validator)
        if factory and loader and 'cannot build' in loader[0]:
            return
        if valid and loader:
            self.problems.append(f'{what}: meant valid, the loader says {loader[0]}')
        elif not valid and not loader:
            self.problems.append(f'{what}: meant invalid, the loader accepts it')
        elif valid and schema:
            self.problems.append(f'{what}: the schema rejects a valid file: {schema[0]}')
        elif not valid and not schema:
            self.problems.append(f'{what}: the schema accepts an invalid file '
                                 f'(the loader: {loader[0]})')

    def assert_agree(self) -> None:
        assert not self.problems, '\n'.join(self.problems)


def check_type(cases: Cases, node_type: NodeType, **kwargs: Any) -> None:
    """Check ``node_type`` in each written form, valid and broken."""
    name = node_type.name
    low, high = node_type.min_children, node_type.max_children
    required = {p.name: sample(p, node_type) for p in node_type.params if p.required}
    every = {p.name: sample(p, node_type) for p in node_type.params}
    kids = children(low)

    def short(params: dict[str, Any], items: list[Any], key: str = f'{name} my node') -> Any:
        value = dict(params)
        if items:
            value['children'] = items
        return {key: value or None}

    def explicit(params: dict[str, Any], items: list[Any]) -> Any:
        node: dict[str, Any] = {'type': name, 'name': 'my node'}
        if params:
            node['params'] = params
        if items:
            node['children'] = items
        return node

    def keyed(params: dict[str, Any], count: int) -> Any:
        value = dict(params)
        value.update((f'Success c{i}', None) for i in range(count))
        return {name: value or None}

    # valid
    cases.check(short(required, kids), True, f'{name}: mapping', **kwargs)
    cases.check(short(every, kids), True, f'{name}: every parameter', factory=True, **kwargs)
    cases.check(explicit(required, kids), True, f'{name}: explicit form', **kwargs)
    cases.check(keyed(required, low), True, f'{name}: children as node keys', **kwargs)
    for alias in node_type.aliases:
        cases.check(short(required, kids, alias), True, f'{name}: alias {alias}', **kwargs)
        cases.check({'type': alias, 'params': required, 'children': kids} if required or kids
                    else {'type': alias}, True, f'{name}: explicit alias {alias}', **kwargs)
    if low <= 1 <= (high if high is not None else 1):
        cases.check({name: dict(required, child='Success')}, True, f'{name}: child',
                    **kwargs)
        cases.check(explicit(required, []) | {'child': 'Success'}, True,
                    f'{name}: explicit child', **kwargs)
    if not required:
        cases.check({f'{name} listed': kids}, True, f'{name}: list of children', **kwargs)
        if low == 0:
            cases.check({name: None}, True, f'{name}: nothing', **kwargs)
            cases.check({'Sequence': [name, f'{name} named']}, True, f'{name}: bare string',
                        **kwargs)
    primary = node_type.param(node_type.primary) if node_type.primary else None
    if primary is not None and low == 0 and set(required) <= {primary.name}:
        cases.check({name: sample(primary, node_type)}, True, f'{name}: scalar', **kwargs)
    if high is None or high > low:
        cases.check(short(required, children(low + 1)), True, f'{name}: one more child',
                    **kwargs)
    # invalid
    for param_name in required:
        fewer = {k: v for k, v in required.items() if k != param_name}
        cases.check(short(fewer, kids), False, f'{name}: without {param_name}', **kwargs)
        cases.check(explicit(fewer, kids), False, f'{name}: explicit without {param_name}',
                    **kwargs)
    if node_type.category is Category.SUBTREE:  # 'bogus' is an argument for the tree
        cases.check(short(dict(required, Bogus=1), kids), False, f'{name}: node key',
                    **kwargs)
        cases.check(short(dict(required, _bogus=1), kids), False, f'{name}: not a name',
                    **kwargs)
        cases.check(short(dict(required, child='Success'), kids), False, f'{name}: child',
                    **kwargs)
    else:
        cases.check(short(dict(required, bogus=1), kids), False,
                    f'{name}: unknown parameter', **kwargs)
        cases.check(explicit(dict(required, bogus=1), kids), False,
                    f'{name}: explicit unknown parameter', **kwargs)
    for param in node_type.params:
        for value in wrong(param):
            if node_type.category is Category.SUBTREE and param.name == 'tree' \
                    and value == 'Called':
                continue
            broken = dict(required, **{param.name: value})
            cases.check(short(broken, kids), False, f'{name}: {param.name}={value!r}',
                        **kwargs)
            cases.check(explicit(broken, kids), False,
                        f'{name}: explicit {param.name}={value!r}', **kwargs)
        if not param.dynamic and param.type is not ParamType.EXPRESSION:
            broken = dict(required, **{param.name: '$x'})
            cases.check(short(broken, kids), False, f'{name}: {param.name} from the '
                        'blackboard', **kwargs)
    if high is not None:
        cases.check(short(required, children(high + 1)), False, f'{name}: too many', **kwargs)
        cases.check(explicit(required, children(high + 1)), False,
                    f'{name}: explicit too many', **kwargs)
        cases.check(keyed(required, high + 1), False, f'{name}: too many node keys',
                    **kwargs)
        if required or high + 1 > 1:
            cases.check({name: children(high + 1)}, False, f'{name}: too long a list',
                        **kwargs)
    if low > 0:
        cases.check(short(required, children(low - 1)), False, f'{name}: too few', **kwargs)
        cases.check(explicit(required, children(low - 1)), False,
                    f'{name}: explicit too few', **kwargs)
        cases.check(keyed(required, low - 1), False, f'{name}: too few node keys', **kwargs)
    if high != 0:
        mixed = dict(required, children=kids or ['Success'])
        mixed['Failure extra'] = None
        cases.check({name: mixed}, False, f'{name}: children and node keys', **kwargs)
    cases.check({'type': name, 'children': kids, 'child': 'Success'}, False,
                f'{name}: explicit children and child', **kwargs)
    if primary is None or low > 0 or not set(required) <= {primary.name}:
        cases.check({name: 'scalar'}, False, f'{name}: scalar', **kwargs)


@pytest.mark.parametrize('node_type', TYPES, ids=[t.name for t in TYPES])
def test_every_node_type_in_every_form_agrees_with_the_loader(node_type: NodeType):
    cases = Cases()
    check_type(cases, node_type)
    cases.assert_agree()
    assert cases.count >= 10


# ---- trees, the top level, values --------------------------------------------------------

VALID_FILES = {
    'include only': 'include: []\ntrees: {Main: Success}\n',
    'every top-level key': ('main: Main\ndescription: [any, thing]\ninclude: []\n'
                            'blackboard: {x: 1}\nsubscriptions: []\ntrees: {Main: Success}\n'),
    'explicit root': ('trees:\n  Main:\n    type: Sequence\n    children:\n'
                      '      - {type: Wait, params: {seconds: 0.5}}\n'
                      '      - Retry: {attempts: 2, child: {type: Log, params: {message: hi}}}\n'),
    'tree with params': ('trees:\n  Main: {Subtree: {tree: Dock, speed: 0.2, target: $t}}\n'
                         '  Dock:\n    params: {speed: 0.1, target: null}\n'
                         '    description: docks\n    root:\n      Sequence:\n'
                         '        - Wait: $speed\n        - Retry: {attempts: $speed, '
                         'Success: }\nblackboard: {t: 1}\n').replace('speed: 0.2', 'speed: 2'),
    'short form with children and child': ('trees:\n  Main:\n    Sequence: {children: '
                                           '[Success], child: Failure}\n'),
    'subtree with empty children': 'trees:\n  Main: {Subtree: {tree: T, children: []}}\n'
                                   '  T: Success\n',
    'literal dollars': "blackboard: {x: '$$5', y: [1, {a: b}]}\ntrees: {Main: Success}\n",
    'references deep in a value': ('blackboard: {x: 1}\ntrees:\n  Main:\n    Log: {message: '
                                   "{a: ['$x', '${x + 1}', '$x[0]']}}\n"),
    'explicit name as a number': 'trees:\n  Main: {type: Log, name: 5, params: {message: hi}}\n',
    'unicode space in a name': 'trees:\n  Main:\n    "Sequence\\u3000名前": [Success]\n',
    'constant expression where a literal is needed': "trees:\n  Main: {Wait: '${1 + 1}'}\n",
    'expression given as a boolean': 'trees:\n  Main: {Condition: true}\n',
    'explicit subtree arguments': ('trees:\n  Main: {type: Subtree, params: {tree: T, child: 1}}'
                                   '\n  T: {params: {child: 0}, root: Success}\n'),
    'name after a newline': 'trees:\n  Main: {"Success\\nx": }\n',
    'node keys and parameters': ('trees:\n  Main:\n    Parallel:\n      success: one\n'
                                 '      Wait a: 1.0\n      Wait b: 2.0\n'),
}

INVALID_FILES = {
    'explicit children and child': ('trees:\n  Main: {type: Sequence, children: [Success], '
                                    'child: Failure}\n'),
    'explicit without required params': 'trees:\n  Main: {type: Retry, children: [Success]}\n',
    'explicit name null': 'trees:\n  Main: {type: Sequence, name: null, children: [Success]}\n',
    'explicit params null': 'trees:\n  Main: {type: Log, params: null}\n',
    'explicit unknown type': 'trees:\n  Main: {type: Frob}\n',
    'explicit type with a name': "trees:\n  Main: {type: 'Success x'}\n",
    'tree param uppercase': 'trees:\n  Main: {root: Success, params: {Bad: 1}}\n',
    'unknown key in a tree': 'trees:\n  Main: {root: Success, bogus: 1}\n',
    'root null': 'trees:\n  Main: {root: null}\n',
    'params null': 'trees:\n  Main: {params: null, root: Success}\n',
    'trees null': 'trees:\n',
    'main and no trees': 'main: Main\nblackboard: {}\n',
    'trees empty': 'main: Main\ntrees: {}\n',
    'main a number': 'main: 5\ntrees: {Main: Success}\n',
    'main not a name': "main: 'my tree'\ntrees: {Main: Success}\n",
    'include empty name': "include: ['']\ntrees: {Main: Success}\n",
    'include null': 'include:\ntrees: {Main: Success}\n',
    'include a number': 'include: [1]\ntrees: {Main: Success}\n',
    'blackboard reference': "blackboard: {x: '$y'}\ntrees: {Main: Success}\n",
    'blackboard nested expression': "blackboard: {x: [{a: '${1}'}]}\ntrees: {Main: Success}\n",
    'blackboard a list': 'blackboard: [1]\ntrees: {Main: Success}\n',
    'blackboard key with a dot': 'blackboard: {a.b: 1}\ntrees: {Main: Success}\n',
    'subtree node key': 'trees:\n  Main: {Subtree: {tree: T, Speed: 1}}\n  T: Success\n',
    'subtree child': 'trees:\n  Main: {Subtree: {tree: T, child: Success}}\n  T: Success\n',
    'subtree calls no tree name': "trees:\n  Main: {Subtree: 'not a tree'}\n",
    'subtree without tree': 'trees:\n  Main: Subtree\n',
    'null node': 'trees:\n  Main:\n    Sequence: [null]\n',
    'list node': 'trees:\n  Main:\n    Sequence: [[Success]]\n',
    'condition a number': 'trees:\n  Main: {Condition: 5}\n',
    'infinite seconds': 'trees:\n  Main: {Wait: .inf}\n',
    'infinite default': 'trees:\n  Main: {params: {x: .inf}, root: Success}\n',
    'infinite argument': 'trees:\n  Main: {Subtree: {tree: T, x: -.inf}}\n  T: '
                         '{params: {x: 1}, root: Success}\n',
    'static parameter from the blackboard': 'blackboard: {n: 2}\ntrees:\n  Main:\n'
                                            "    Repeat: {times: '$n', Success: }\n",
    'weights from the blackboard': ('blackboard: {w: 1}\ntrees:\n  Main:\n    RandomSelector:'
                                    " {weights: ['$w'], children: [Success]}\n"),
    'a reference that is not one': "trees:\n  Main: {Log: '$x y'}\n",
    'an expression not closed': "trees:\n  Main: {Log: '${x'}\n",
    'children not a list': 'trees:\n  Main: {Sequence: {children: Success}}\n',
    'empty node mapping': 'trees:\n  Main: {}\n',
}


def test_a_file_that_is_only_included_may_define_no_tree(tmp_path: pathlib.Path):
    for text in ('subscriptions:\n  - {topic: a, type: std_msgs/msg/Bool, key: a}\n',
                 'blackboard: {x: 1}\ntrees: {}\n', '{}\n'):
        (tmp_path / 'part.yaml').write_text(text, encoding='utf-8')
        assert loader_errors('include: part.yaml\ntrees: {Main: Success}\n',
                             base_dir=str(tmp_path)) == []
        assert schema_errors(plain(text)) == []


@pytest.mark.parametrize('valid, name', [(True, n) for n in VALID_FILES]
                         + [(False, n) for n in INVALID_FILES])
def test_documents_agree_with_the_loader(valid: bool, name: str):
    cases = Cases()
    cases.check(None, valid, name, text=(VALID_FILES if valid else INVALID_FILES)[name])
    cases.assert_agree()


# ---- subscriptions ---------------------------------------------------------------------

SUBSCRIPTION_VALUES: dict[str, list[Any]] = {
    'topic': ['battery', '/robot/odom', '~/estop', 'a{ns}', 'bad topic', '', '1x', 5, None],
    'type': ['std_msgs/msg/Bool', 'std_msgs/Bool', 'std_srvs/srv/Trigger', 'Std/msg/X', [],
             None],
    'key': ['battery', '_x', 'bad-key', 'a.b', '', 1, None],
    'field': ['data', 'pose.position.x', 'Pose', 'a..b', 3],
    'fields': [{'x': 'pose.x'}, {'x': 'data', 'y': 'pose.y'}, {}, {'bad-key': 'x'},
               {'x': 'Bad'}, {'x': 1}, 'x'],
    'qos': ['reliable', 'sensor_data', 'latched', 'best', 1],
    'max_age': [0, 5.0, 1e308, -1, 'x', True, float('inf'), None],
    'bogus': [1],
}


def test_subscriptions_agree_with_the_ros_parser():
    rng = random.Random(17)
    cases = Cases()
    accepted = 0
    names = list(SUBSCRIPTION_VALUES)
    for index in range(1500):  # a good entry, then up to three changes
        entry: dict[str, Any] = {'topic': 'battery', 'type': 'std_msgs/msg/Bool', 'key': 'b'}
        if rng.random() < 0.3:
            entry['fields'] = {'b': 'data'}
            del entry['key']
        for _ in range(rng.randint(0, 3)):
            key = rng.choice(names)
            if rng.random() < 0.25:
                entry.pop(key, None)
            else:
                entry[key] = rng.choice(SUBSCRIPTION_VALUES[key])
        text = dump({'subscriptions': [entry], 'trees': {'Main': 'Success'}})
        valid = not loader_errors(text)
        accepted += valid
        cases.check(None, valid, f'entry {index}: {entry}', text=text)
    for section in ('subscriptions: {}\n', 'subscriptions: [1]\n', 'subscriptions:\n'):
        cases.check(None, False, section, text=section + 'trees: {Main: Success}\n')
    cases.assert_agree()
    assert 300 <= accepted <= 1200, accepted  # both kinds, in numbers


# ---- other registries: plugins ------------------------------------------------------------

def _factory(ctx: Any, name: str, params: Any, children: Any) -> Any:
    if not children:
        return py_trees.behaviours.Success(name)
    if len(children) == 1:
        return py_trees.decorators.PassThrough(name=name, child=children[0])
    return py_trees.composites.Sequence(name, memory=True, children=children)


PLUGIN_TYPES = [
    NodeType(name='Beep', category=Category.LEAF, doc='beeps', factory=_factory,
             params=(Param('volume', ParamType.INT, 'how loud', minimum=0, maximum=11),
                     Param('tone', ParamType.ENUM, 'which', default='a', choices=('a', 'b')),
                     Param('text', ParamType.STRING, 'what', default='', dynamic=True)),
             primary='volume', source='my_robot.Beep'),
    NodeType(name='Juggle', category=Category.COMPOSITE, doc='many parameters',
             factory=_factory, min_children=2, max_children=3,
             params=tuple(Param(f'p{i}', ParamType.BOOL, 'a flag', default=False)
                          for i in range(6)), source='my_robot.Juggle'),
    NodeType(name='Guard', category=Category.DECORATOR, doc='two parameters',
             factory=_factory, min_children=1, max_children=1,
             params=(Param('limit', ParamType.FLOAT, 'a limit'),
                     Param('names', ParamType.LIST, 'some names', default=[])),
             aliases=('Guarded',), source='my_robot.Guard'),
]


def plugin_registry() -> Registry:
    registry = default_registry()
    for node_type in PLUGIN_TYPES:
        registry.register(node_type)
    return registry


@pytest.mark.parametrize('node_type', PLUGIN_TYPES, ids=[t.name for t in PLUGIN_TYPES])
def test_the_schema_of_a_registry_with_plugins_has_their_types(node_type: NodeType):
    registry = plugin_registry()
    schema = tree_schema(registry)
    assert f'node_{node_type.name}' in schema['$defs']
    assert 'installed plugins' in schema['description']
    cases = Cases()
    check_type(cases, node_type, registry=registry,
               validator=jsonschema.Draft202012Validator(schema))
    cases.assert_agree()
    text = document({node_type.name: None})  # without the plugin: an unknown node type
    assert schema_errors(plain(text)) and loader_errors(text)


def test_the_command_includes_the_installed_plugins(tmp_path: pathlib.Path):
    package = build_package(tmp_path)
    result = package.cli('schema')
    assert result.returncode == 0, result.stderr
    defs = json.loads(result.stdout)['$defs']
    assert {'node_Say', 'node_Countdown'} <= set(defs)
    tree = (package.path / 'trees' / 'launch.yaml').read_text(encoding='utf-8')
    schema = jsonschema.Draft202012Validator(json.loads(result.stdout))
    assert schema_errors(plain(tree), schema) == []
    assert schema_errors(plain(tree)) != []  # the catalogue alone does not know them


# ---- ECMA-262 regular expressions (editors) ------------------------------------------------

def _patterns(schema: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == 'pattern' and isinstance(value, str):
                found.add(value)
            elif key == 'patternProperties':
                found.update(value)
            found |= _patterns(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= _patterns(item)
    return found


#: Strings the patterns are tried on, in Python and in JavaScript: whitespace of both
#: kinds, line breaks, the dollar forms (none ends with a newline: Python's '$' also
#: matches before a final newline, where the schema is then the more lenient).
PROBES = ['Sequence', 'Sequence x', 'Sequence  y z', 'Sequence\tx', 'Sequence\u3000名前',
          'Sequence\x1cx', 'Sequence\x85x', 'Sequence\ufeffx', 'Sequence\nx', 'Sequence\rx',
          'Sequence\u2028x', 'Sequencex', 'sequence', 'Foo', 'Fallback x', '$x', '$x.y[2]',
          '$x[٣]', '${a + 1}', '${a\n}', '${', '$$', '$', '$ x', 'x', '', 'a.b', 'a..b',
          '_x', 'std_msgs/msg/Bool', 'std_msgs/Bool', 'my tree', 'Main', 'child', 'children',
          'data', 'pose.position.x', '~/estop', 'a\x00b', 'reliable']


@pytest.mark.skipif(shutil.which('node') is None, reason='needs node (JavaScript)')
def test_every_pattern_means_the_same_in_javascript(tmp_path: pathlib.Path):
    patterns = sorted(_patterns(tree_schema(plugin_registry())))
    assert len(patterns) > 50
    script = tmp_path / 'check.js'
    script.write_text(
        'const data = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));\n'
        'const out = data.patterns.map(p => {\n'
        '  let plain, unicode;\n'
        '  try { plain = new RegExp(p); unicode = new RegExp(p, "u"); }\n'
        '  catch (e) { return {error: String(e)}; }\n'
        '  return {plain: data.probes.map(s => plain.test(s)),\n'
        '          unicode: data.probes.map(s => unicode.test(s))};\n'
        '});\n'
        'console.log(JSON.stringify(out));\n', encoding='utf-8')
    (tmp_path / 'data.json').write_text(json.dumps({'patterns': patterns, 'probes': PROBES}))
    result = subprocess.run(['node', str(script), str(tmp_path / 'data.json')],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    problems = []
    for pattern, answer in zip(patterns, json.loads(result.stdout)):
        if 'error' in answer:
            problems.append(f'{pattern!r}: {answer["error"]}')
            continue
        python = [bool(__import__('re').search(pattern, probe)) for probe in PROBES]
        for mode in ('plain', 'unicode'):
            for probe, ours, theirs in zip(PROBES, python, answer[mode]):
                if ours != theirs:
                    problems.append(f'{pattern[:60]!r} on {probe!r} ({mode}): Python '
                                    f'{ours}, JavaScript {theirs}')
    assert not problems, '\n'.join(problems[:20])


def test_non_finite_numbers_are_kept_out_where_the_loader_wants_finite_ones():
    for number in (math.inf, -math.inf):
        assert schema_errors({'trees': {'Main': {'Wait': number}}})
        assert schema_errors({'trees': {'Main': {'params': {'x': number}, 'root': 'Success'}}})
    assert schema_errors({'trees': {'Main': {'Wait': 1e308}}}) == []


# ---- the YAML language server (editors) -----------------------------------------------------

#: A folder holding ``node_modules/yaml-language-server`` (and
#: ``vscode-languageserver-textdocument``): ``npm install --prefix DIR yaml-language-server
#: vscode-languageserver-textdocument``; without it the test is skipped.
LANGUAGE_SERVER = os.environ.get('BT_YAML_LANGUAGE_SERVER', '')

_SERVER_SCRIPT = """
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { getLanguageService } from 'yaml-language-server';
import { TextDocument } from 'vscode-languageserver-textdocument';

const service = getLanguageService({
  schemaRequestService: async (uri) => fs.readFileSync(fileURLToPath(uri), 'utf8'),
  workspaceContext: {resolveRelativePath: (relative, resource) =>
    new URL(relative, resource).toString()},
});
service.configure({validate: true, completion: true, hover: true, yamlVersion: '1.2'});
const [file, line, column] = process.argv.slice(2);
const document = TextDocument.create(pathToFileURL(path.resolve(file)).toString(), 'yaml', 1,
                                     fs.readFileSync(file, 'utf8'));
const diagnostics = await service.doValidation(document, false);
const position = {line: Number(line) - 1, character: Number(column) - 1};
const completion = await service.doComplete(document, position, false);
console.log(JSON.stringify({
  diagnostics: diagnostics.map(d => [d.range.start.line + 1, d.message]),
  completion: completion.items.map(item => item.label)}));
"""


@pytest.mark.skipif(not LANGUAGE_SERVER or shutil.which('node') is None,
                    reason='set BT_YAML_LANGUAGE_SERVER to a folder with yaml-language-server')
def test_the_yaml_language_server_checks_and_completes_with_the_modeline(tmp_path):
    (tmp_path / 'tree.schema.json').write_text(json.dumps(tree_schema(REGISTRY)))
    script = pathlib.Path(LANGUAGE_SERVER) / 'bt_executive_check.mjs'
    script.write_text(_SERVER_SCRIPT, encoding='utf-8')

    def run(text: str, line: int, column: int) -> Any:
        (tmp_path / 'tree.yaml').write_text(
            '# yaml-language-server: $schema=tree.schema.json\n' + text, encoding='utf-8')
        result = subprocess.run(['node', str(script), str(tmp_path / 'tree.yaml'), str(line),
                                 str(column)], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    # line 1 is the modeline; line 7 a list item still empty: a node is expected there
    good = run('main: Patrol\ntrees:\n  Patrol:\n    Sequence:\n      - Wait: 1.0\n'
               '      - \n', 7, 9)
    assert {line for line, _ in good['diagnostics']} == {7}, good['diagnostics']
    assert {'Sequence', 'Retry', 'Wait', 'Action'} <= set(good['completion'])
    bad = run('trees:\n  Main:\n    Sequence:\n      - Wiat: 1.0\n'
              '      - Retry: {attempts: 0, Success: }\n      - Parallel:\n'
              '          success: \n          children: [Success]\n', 8, 20)
    lines = [line for line, _ in bad['diagnostics']]
    assert lines == [5, 6, 8], bad['diagnostics']  # Wiat, attempts 0, success: null
    assert bad['completion'] == ['all', 'one']
