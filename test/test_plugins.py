# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Plugins: node types declared by other packages through the bt_executive.node_types group.

The unit tests hand :func:`load_plugins` entry points naming modules written to a temporary
directory; the command-line tests build the example package of docs/plugins.md
(``plugin_package``), install its entry point and run ``bt-executive`` on it as a user
would. The executive and the hand-written launcher on that package are in
test/ros/test_plugins_executive.py.
"""

from __future__ import annotations

import dataclasses
from importlib.metadata import EntryPoint
import pathlib
import subprocess
import sys
import textwrap
import types
from typing import Any
import uuid
import xml.etree.ElementTree as ElementTree

from bt_executive.core.builder import build
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category
from bt_executive.nodes import plugins as plugins_module
from bt_executive.nodes.catalogue import default_registry
from bt_executive.nodes.plugins import (GROUP, installed_entry_points, load_plugins,
                                        may_declare, on_path_may_declare, Plugins,
                                        stub_defaults)
from bt_executive.nodes.stubs import PLUGIN_STUB, StubLeaf
from plugin_package import blocks, build_package, ENTRY_POINT, Package, sessions, write_plugin
from py_trees.common import Status
import pytest

HEADER = """
from bt_executive.core.registry import Category, NodeType, Param, ParamType
import py_trees


class Leaf(py_trees.behaviour.Behaviour):
    def update(self):
        return py_trees.common.Status.SUCCESS


def factory(ctx, name, params, children):
    return Leaf(name)


def leaf(name, **kwargs):
    return NodeType(name=name, category=Category.LEAF, doc='a test leaf',
                    factory=kwargs.pop('factory', factory), **kwargs)
"""


@pytest.fixture
def plugin(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Give a maker of entry points, each naming a module of its own on sys.path.

    ``plugin(body, name='ep', attr='node_types', header=True)`` writes ``body`` (after
    :data:`HEADER` unless ``header`` is False) and returns the entry point ``name``.
    """
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(body: str, *, name: str = 'ep', attr: str = 'node_types',
             header: bool = True) -> EntryPoint:
        module = f'plugin_{uuid.uuid4().hex[:10]}'
        text = (HEADER if header else '') + textwrap.dedent(body)
        (tmp_path / f'{module}.py').write_text(text)
        return EntryPoint(name, f'{module}:{attr}' if attr else module, GROUP)

    return make


def only_problem(plugins: Plugins) -> str:
    assert len(plugins.problems) == 1, plugins.problems
    return str(plugins.problems[0])


def test_a_plugin_type_joins_the_catalogue_and_is_guarded(plugin):
    entry = plugin("""
        def node_types():
            return [leaf('Hello', params=(Param('word', ParamType.STRING, 'a word',
                                                default='hi'),), primary='word')]
        """, name='greetings')
    plugins = load_plugins(entry_points=[entry])
    assert plugins.problems == ()
    registry = plugins.registry(default_registry())
    hello = registry.get('Hello')
    assert hello is not None and plugins.origin('Hello').name == 'greetings'
    assert hello.source == entry.module  # named after the plugin: never trusted
    assert len(registry.types()) == len(default_registry().types()) + 1
    document = Loader(registry).load_text('trees: {Main: {Sequence: [Hello: yo]}}',
                                          name='t.yaml')
    built = build(document, registry=registry)
    leaf = next(b for b in built.root.iterate() if built.nodes.type_name(b) == 'Hello')
    assert built.nodes.guard(leaf) is not None


CLASSES = """
class Hello(Leaf):
    declaration = NodeType(name='Hello', category=Category.LEAF, doc='says hello',
                           params=(Param('word', ParamType.STRING, 'w', default='hi'),),
                           primary='word')

    @classmethod
    def build(cls, ctx, name, params, children):
        leaf = cls(name)
        leaf.word = params['word']
        return leaf


class Bare(Leaf):
    declaration = NodeType(name='Bare', category=Category.LEAF, doc='built as Bare(name=)')


class Borrowed(Hello):
    pass
"""


@pytest.mark.parametrize('body', [
    'def node_types():\n    return [Hello, Bare, leaf("Old")]\n',  # classes and NodeTypes
    'def node_types():\n    return (t for t in (Hello, Bare, leaf("Old")))\n',
])
def test_a_plugin_may_declare_its_types_on_classes(plugin, body):
    entry = plugin(textwrap.dedent(CLASSES) + body, name='classes')
    plugins = load_plugins(entry_points=[entry])
    assert plugins.problems == ()
    assert [t.node_type.name for t in plugins.types] == ['Hello', 'Bare', 'Old']
    hello = plugins.types[0].node_type
    assert hello.source == f'{entry.module}.Hello'  # its class: not trusted
    registry = plugins.registry(default_registry())
    built = build(Loader(registry).load_text(
        'trees: {Main: {Sequence: [Hello: yo, Bare: ]}}', name='t.yaml'), registry=registry)
    hello_leaf, bare_leaf = built.root.children
    assert hello_leaf.word == 'yo' and type(bare_leaf).__name__ == 'Bare'
    assert built.nodes.guard(hello_leaf) is not None


def test_an_entry_point_may_name_a_class_and_a_borrowed_declaration_is_none(plugin):
    entry = plugin(textwrap.dedent(CLASSES), name='one', attr='Hello')
    assert [t.node_type.name for t in load_plugins(entry_points=[entry]).types] == ['Hello']
    entry = plugin(textwrap.dedent(CLASSES) + 'def node_types():\n    return [Borrowed]\n',
                   name='borrowed')
    message = only_problem(load_plugins(entry_points=[entry]))
    assert "returned <class '" in message and 'Borrowed' in message
    assert 'not a NodeType (bt_executive.core.registry) nor a class that declares one' \
        in message


@pytest.mark.parametrize('source', ['', 'bt_executive.nodes.status_leaves.Fake', 'py_trees.x'])
def test_a_plugin_cannot_claim_to_be_trusted(plugin, source):
    entry = plugin(f"""
        def node_types():
            return leaf('Sneaky', source={source!r})
        """)
    registry = load_plugins(entry_points=[entry]).registry(default_registry())
    sneaky = registry.get('Sneaky')
    assert not sneaky.source.startswith(('bt_executive.', 'py_trees.'))
    assert sneaky.source.startswith(entry.module) and source in sneaky.source
    built = build(Loader(registry).load_text('trees: {Main: {Sneaky: }}', name='t.yaml'),
                  registry=registry)
    assert built.nodes.guard(built.root) is not None


BROKEN = {
    'import error': ('import not_a_module_anywhere\n', True,
                     "cannot import '{value}': ModuleNotFoundError: No module named "
                     "'not_a_module_anywhere' at {file}:1; its node types are skipped"),
    'exits': ('import sys\nsys.exit("no ROS here")\n', True,
              "cannot import '{value}': SystemExit: no ROS here at {file}:2; its node types "
              'are skipped'),
    'raises': ('def node_types():\n    raise ValueError("no config")\n', True,
               "'{value}' raised ValueError: no config at {file}:2; its node types are "
               'skipped'),
    'returns a number': ('def node_types():\n    return 42\n', True,
                         "'{value}' returned 42 (int), not a NodeType or a list of NodeType"),
    'returns text': ('def node_types():\n    return "Hello"\n', True,
                     "'{value}' returned 'Hello' (str), not a NodeType"),
    'returns a dict': ('def node_types():\n    return {"Hello": leaf("Hello")}\n', False,
                       "'{value}' returned 'Hello' (str) as item 0, not a NodeType"),
    'a constant': ('node_types = 3\n', True, "'{value}' is 3 (int), not a function returning"),
    'a class': ('class node_types:\n    pass\n', True, "'{value}' is a class, not a function"),
}


@pytest.mark.parametrize('case', BROKEN, ids=list(BROKEN))
def test_a_broken_plugin_is_skipped_with_a_warning_naming_its_entry_point(
        plugin, tmp_path, case):
    body, bare, expected = BROKEN[case]
    entry = plugin(body, name='broken', header=not bare)
    good = plugin("def node_types():\n    return [leaf('Fine')]\n", name='good')
    plugins = load_plugins(entry_points=[entry, good])
    message = only_problem(plugins)
    file = tmp_path / f'{entry.module}.py'
    assert message.startswith(f"plugin 'broken' ({entry.value}): "), message
    assert expected.format(value=entry.value, file=file) in message, message
    assert not plugins.problems[0].error
    registry = plugins.registry(default_registry())
    assert 'Fine' in registry and 'Sequence' in registry  # the rest is untouched


MALFORMED = {
    'lowercase name': ("leaf('hello')", "node type 'hello' skipped: node type name 'hello' "
                       'must start with an uppercase letter'),
    'alias with a space': ("leaf('Hello', aliases=('Say hi',))", "name 'Say hi' must start"),
    'subtree': ("NodeType(name='Call', category=Category.SUBTREE, doc='d', factory=factory)",
                'a plugin cannot declare a subtree type'),
    'no factory': ("leaf('Hello', factory=None)", 'it has no factory'),
    'leaf with children': ("leaf('Hello', max_children=2)",
                           'a leaf takes min_children=0, max_children=0, not 0 and 2'),
    'decorator without a child': (
        "NodeType(name='Twice', category=Category.DECORATOR, doc='d', factory=factory)",
        'a decorator takes min_children=1, max_children=1, not 0 and 0'),
    'composite without children': (
        "NodeType(name='All', category=Category.COMPOSITE, doc='d', factory=factory)",
        'a composite needs 0 <= min_children <= max_children >= 1, not 0, 0'),
    'uppercase parameter': ("leaf('Hello', params=(Param('Word', ParamType.STRING, 'w'),))",
                            "parameter name 'Word' must be lowercase"),
    'parameter called children': (
        "leaf('Hello', params=(Param('children', ParamType.LIST, 'c'),))",
        "parameter name 'children' must be lowercase letters, digits and underscores, and "
        "not 'child' or 'children'"),
    'parameter twice': ("leaf('Hello', params=(Param('a', ParamType.INT, 'a'),) * 2)",
                        "parameter 'a' is declared twice"),
    'not a Param': ("leaf('Hello', params=('a',))", "parameter 'a' (str) is not a Param"),
    'aliases a string': ("leaf('Hello', aliases='Hi')",
                         "aliases must be a tuple of names, not 'Hi' (str)"),
    'children not a number': ("leaf('Hello', min_children=None)",
                              'a leaf takes min_children=0, max_children=0, not None and 0'),
    'composite with a bad count': (
        "NodeType(name='All', category=Category.COMPOSITE, doc='d', factory=factory, "
        "min_children='1', max_children=None)",
        "it is malformed: TypeError: '<' not supported between instances of 'str' and 'int'"),
    'primary unknown': ("leaf('Hello', primary='word')",
                        "its primary parameter 'word' is not one of its parameters"),
}


@pytest.mark.parametrize('case', MALFORMED, ids=list(MALFORMED))
def test_a_malformed_type_is_skipped_alone(plugin, case):
    declaration, expected = MALFORMED[case]
    entry = plugin(f"""
        def node_types():
            return [{declaration}, leaf('Fine')]
        """, name='mixed')
    plugins = load_plugins(entry_points=[entry])
    message = only_problem(plugins)
    assert message.startswith(f"plugin 'mixed' ({entry.value}): node type "), message
    assert expected in message, message
    assert [t.node_type.name for t in plugins.types] == ['Fine']


@pytest.mark.parametrize('name, aliases, builtin', [
    ('Sequence', (), "the built-in node type 'Sequence' (bt_executive.nodes.composites.Sequence)"),
    ('Mine', ('Fallback',), "the built-in node type 'Selector' "
                            "(bt_executive.nodes.composites.Selector) on the name 'Fallback'"),
])
def test_a_clash_with_the_catalogue_is_an_error_naming_both(plugin, name, aliases, builtin):
    entry = plugin(f"""
        def node_types():
            return [leaf({name!r}, aliases={aliases!r}), leaf('Fine')]
        """, name='clashing')
    plugins = load_plugins(entry_points=[entry])
    message = only_problem(plugins)
    assert plugins.problems[0].error
    assert message == (f"plugin 'clashing' ({entry.value}): node type '{name}' clashes with "
                       f"{builtin}; the plugin's type is skipped (rename it)")
    registry = plugins.registry(default_registry())
    assert registry.get(name) is default_registry().get(name) or name == 'Mine'
    assert 'Fine' in registry and (name not in registry or name == 'Sequence')


def test_two_plugins_declaring_one_name_are_both_skipped_with_errors(plugin):
    first = plugin("def node_types():\n    return [leaf('Dock'), leaf('A')]\n", name='one')
    second = plugin("def node_types():\n    return leaf('Park', aliases=('Dock',))\n",
                    name='two')
    plugins = load_plugins(entry_points=[first, second])
    messages = [str(problem) for problem in plugins.problems]
    assert all(problem.error for problem in plugins.problems)
    assert messages == [
        f"plugin 'one' ({first.value}): node type 'Dock' clashes with node type 'Park' of "
        f"plugin 'two' ({second.value}) on the name 'Dock'; both are skipped (rename one)",
        f"plugin 'two' ({second.value}): node type 'Park' clashes with node type 'Dock' of "
        f"plugin 'one' ({first.value}) on the name 'Dock'; both are skipped (rename one)",
    ]
    assert [t.node_type.name for t in plugins.types] == ['A']


def test_plugin_ros_leaves_are_stubs_offline_and_real_for_the_ros_layer(plugin):
    entry = plugin("""
        def node_types():
            return [leaf('Beep', ros=True),
                    NodeType(name='Guarded', category=Category.DECORATOR, doc='d',
                             factory=lambda ctx, name, params, children: Leaf(name),
                             min_children=1, max_children=1, ros=True)]
        """)
    plugins = load_plugins(entry_points=[entry])
    offline = plugins.registry(default_registry())
    online = plugins.registry(default_registry(), offline=False)
    document = Loader(offline).load_text('trees: {Main: {Beep: }}', name='t.yaml')
    stub = build(document, registry=offline).root
    assert isinstance(stub, StubLeaf) and stub.node_type == 'Beep'
    stub.tick_once()
    assert stub.status.value.lower() == PLUGIN_STUB[0]
    assert not isinstance(build(document, registry=online).root, StubLeaf)
    defaults = stub_defaults(offline)
    assert defaults['Beep'] == PLUGIN_STUB and defaults['Action'] == ('success', 1)
    assert 'Guarded' not in defaults  # only leaves are stubbed
    assert offline.get('Guarded').factory is online.get('Guarded').factory


def test_the_catalogue_alone_when_no_plugin_is_installed():
    plugins = load_plugins(entry_points=[])
    assert plugins == Plugins()
    assert 'none installed' in plugins.describe()
    assert plugins.registry(default_registry()).get('Sequence').category is Category.COMPOSITE


# ---- the example of docs/plugins.md, as a user runs it --------------------------------


@pytest.fixture(scope='module')
def package(tmp_path_factory: pytest.TempPathFactory) -> Package:
    """Build the docs' package once for the tests of this module."""
    return build_package(tmp_path_factory.mktemp('docs'))


def test_entry_points_are_read_only_where_a_distribution_may_declare_one(
        package, tmp_path, monkeypatch):
    bare = tmp_path / 'bare'
    (bare / 'other-1.0.dist-info').mkdir(parents=True)
    (bare / 'other-1.0.dist-info' / 'entry_points.txt').write_text(
        '[console_scripts]\nother = other:main\n[bt_executive.node_types_extra]\nx = y:z\n')
    (bare / 'old.egg-info').write_text('Name: old\n')  # an egg-info file: no entry points
    monkeypatch.setattr(sys, 'path', [str(bare), str(tmp_path / 'missing')])
    # pytest has imported importlib.metadata: as a process that has not
    monkeypatch.setattr(plugins_module, 'METADATA_MODULES', ('bt_test_no_such_module',))
    assert not may_declare() and not on_path_may_declare()
    assert list(installed_entry_points()) == []  # importlib.metadata not asked
    monkeypatch.setattr(sys, 'path', [str(bare), str(package.path)])
    assert may_declare()
    assert [f'{entry.name} = {entry.value}' for entry in installed_entry_points()] == \
        [ENTRY_POINT]


@pytest.mark.parametrize('case', ['zip on the path', 'egg on the path',
                                  'importlib.metadata imported'])
def test_entry_points_are_left_to_importlib_metadata_where_unsure(
        case, tmp_path, monkeypatch):
    # a distribution finder other than the standard one hands out importlib.metadata's
    # Distribution objects: once that module is imported, it is asked
    monkeypatch.setattr(plugins_module, 'METADATA_MODULES', ('bt_test_metadata',))
    archive = tmp_path / 'plugins.zip'
    archive.write_bytes(b'')
    (tmp_path / 'thing.egg').mkdir()
    paths = {'zip on the path': [str(archive)], 'egg on the path': [str(tmp_path)],
             'importlib.metadata imported': [str(tmp_path / 'missing')]}
    monkeypatch.setattr(sys, 'path', paths[case])
    if case == 'importlib.metadata imported':
        assert not may_declare()
        monkeypatch.setitem(sys.modules, 'bt_test_metadata', types.ModuleType('metadata'))
        assert not on_path_may_declare()
    assert may_declare()


def test_the_docs_declare_one_entry_point_in_every_format():
    files, alternatives = blocks('file'), blocks('alternative')
    assert set(alternatives) == {'setup.cfg', 'pyproject.toml', WITHOUT_CLASSES}
    assert f"'{ENTRY_POINT}'" in files['setup.py']
    assert f'{GROUP} =\n    {ENTRY_POINT}\n' in alternatives['setup.cfg']
    name, _, value = ENTRY_POINT.partition(' = ')
    assert f'[project.entry-points."{GROUP}"]\n{name} = "{value}"\n' \
        in alternatives['pyproject.toml']


#: The docs' node types declared as NodeType objects with factories (the older form).
WITHOUT_CLASSES = 'my_robot_bt/bt_nodes_without_classes.py'


def test_the_docs_node_types_declared_without_classes_are_the_same(tmp_path, monkeypatch):
    """Both forms of docs/plugins.md declare the same types, built alike."""
    files = {**blocks('file'), WITHOUT_CLASSES: blocks('alternative')[WITHOUT_CLASSES],
             'my_robot_bt/__init__.py': ''}
    for name in ('my_robot_bt/__init__.py', 'my_robot_bt/bt_nodes.py', WITHOUT_CLASSES):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(files[name])
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in [name for name in sys.modules if name.split('.')[0] == 'my_robot_bt']:
        monkeypatch.delitem(sys.modules, module)
    forms = [load_plugins(entry_points=[EntryPoint(
        'my_robot_bt', f'my_robot_bt.{module}:node_types', GROUP)])
        for module in ('bt_nodes', 'bt_nodes_without_classes')]
    assert [plugins.problems for plugins in forms] == [(), ()]
    with_classes, without = ([dataclasses.replace(t.node_type, factory=None)
                              for t in plugins.types] for plugins in forms)
    assert with_classes == without and [t.name for t in without] == ['Countdown', 'Say']
    for plugins in forms:
        registry = plugins.registry(default_registry())
        document = Loader(registry).load_text(
            'trees: {Main: {Sequence: [Countdown: {start: 1, key: n}, Say: hi]}}',
            name='t.yaml')
        root = build(document, registry=registry).root
        assert [type(child).__name__ for child in root.children] == ['Countdown', 'StubLeaf']
        statuses = []
        for _ in range(2):
            root.tick_once()
            statuses.append(root.status)
        assert statuses == [Status.RUNNING, Status.SUCCESS]


def test_the_egg_info_holds_the_docs_entry_point(package):
    text = (package.path / 'my_robot_bt.egg-info' / 'entry_points.txt').read_text()
    assert f'[{GROUP}]\n{ENTRY_POINT}\n' in text


def test_the_commands_of_the_docs_print_what_the_docs_show(package):
    shown = sessions()
    assert [args[0] for args, _ in shown] == ['nodes', 'validate', 'tick']
    for args, expected in shown:
        result = package.cli(*args)
        assert result.returncode == 0, result.stderr
        assert result.stderr == '', result.stderr  # no plugin problem
        assert result.stdout.rstrip('\n') == expected, f'bt-executive {" ".join(args)}'


def test_every_offline_command_sees_the_plugin_types(package, tmp_path):
    tree = 'trees/launch.yaml'
    nodes = package.cli('nodes')
    assert nodes.returncode == 0, nodes.stderr
    assert '\n  Countdown\n' in nodes.stdout and '\nROS leaves\n' in nodes.stdout
    assert nodes.stdout.rstrip().endswith(
        '\nPlugins (entry-point group bt_executive.node_types)\n'
        '  my_robot_bt = my_robot_bt.bt_nodes:node_types  [my-robot-bt 0.1.0]\n'
        '      Countdown, Say')
    markdown = package.cli('nodes', '--markdown')
    assert '### Say\n' in markdown.stdout
    assert 'implementation: `my_robot_bt.bt_nodes.Say`' in markdown.stdout
    show = package.cli('show', tree)
    assert show.returncode == 0, show.stderr
    assert show.stdout.splitlines()[1:] == [
        '\u2514\u2500 Sequence', '   \u251c\u2500 Countdown  2',
        '   \u2514\u2500 Say  $greeting  [ros]']
    dot = package.cli('render', tree, '--format', 'dot')
    assert dot.returncode == 0, dot.stderr
    assert 'Countdown' in dot.stdout and 'Say' in dot.stdout
    stub = package.cli('tick', tree, '--ticks', '3', '--stub', 'Say=failure', '-q')
    assert 'Say: failure' in stub.stdout and 'root: FAILURE' in stub.stdout, stub.stdout
    xml = tmp_path / 'launch.xml'
    export = package.cli('export', tree, '-o', str(xml))
    assert export.returncode == 0, export.stderr
    models = ElementTree.parse(xml).getroot().find('TreeNodesModel')
    assert {model.get('ID') for model in models} == {'Countdown', 'Say'}
    back = package.cli('import', str(xml))
    assert back.returncode == 0, back.stderr
    assert 'Countdown: 2' in back.stdout and 'Say: $greeting' in back.stdout, back.stdout


def test_the_docs_tests_of_the_plugin_pass(package):
    result = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
                             'test/test_bt_nodes.py'], cwd=package.path, env=package.env(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '3 passed' in result.stdout


def test_a_broken_plugin_leaves_the_commands_working(package, tmp_path):
    broken = write_plugin(tmp_path / 'broken', 'broken_bt',
                          {'missing': 'broken_bt_nodes:node_types'}, {})  # no such module
    result = package.cli('validate', 'trees/launch.yaml', env=package.env(broken))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "trees/launch.yaml: ok (1 tree, 3 nodes, main 'Launch')\n"
    assert result.stderr == (
        "bt_executive: warning: plugin 'missing' (broken_bt_nodes:node_types from broken_bt "
        "1.0): cannot import 'broken_bt_nodes:node_types': ModuleNotFoundError: No module "
        "named 'broken_bt_nodes'; its node types are skipped\n")


def test_a_clash_between_plugins_is_reported_before_the_tree_that_needs_the_type(
        package, tmp_path):
    clashing = write_plugin(tmp_path / 'clashing', 'clashing_bt',
                            {'clash': 'clash_bt_nodes:node_types'},
                            {'clash_bt_nodes.py': 'from my_robot_bt.bt_nodes import node_types'
                                                  ' as mine\n\n\ndef node_types():\n'
                                                  '    return mine()[:1]\n'})
    result = package.cli('validate', 'trees/launch.yaml', env=package.env(clashing))
    assert result.returncode == 1 and 'Traceback' not in result.stderr, result.stderr
    clash = ("bt_executive: error: plugin '{0}' ({1} from {2}): node type 'Countdown' "
             "clashes with node type 'Countdown' of plugin '{3}' ({4} from {5}); both are "
             'skipped (rename one)')
    mine = ('my_robot_bt', 'my_robot_bt.bt_nodes:node_types', 'my-robot-bt 0.1.0')
    theirs = ('clash', 'clash_bt_nodes:node_types', 'clashing_bt 1.0')
    lines = result.stderr.splitlines()
    assert sorted(lines[:2]) == sorted([clash.format(*theirs, *mine),
                                        clash.format(*mine, *theirs)]), lines
    assert lines[2].startswith('trees/launch.yaml:6:9: Launch/Sequence/Countdown: unknown '
                               "node type 'Countdown'"), lines
    assert lines[3:] == ['trees/launch.yaml: 1 error']


def test_the_docs_import_only_the_public_api():
    """docs/plugins.md imports from ``bt_executive`` and ``bt_executive.ros`` alone."""
    import importlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / 'docs' / 'plugins.md').read_text()
    imports = re.findall(r'^\s*from (bt_executive[\w.]*) import ([\w, ]+)', text, re.MULTILINE)
    assert len(imports) >= 4
    assert not re.search(r'^\s*import bt_executive', text, re.MULTILINE)
    for module_name, names in imports:
        assert module_name in ('bt_executive', 'bt_executive.ros'), module_name
        module = importlib.import_module(module_name)
        for name in (name.strip() for name in names.split(',')):
            assert name in module.__all__, f'{module_name}.{name} is not in its __all__'
            assert getattr(module, name) is not None


def test_every_public_name_resolves():
    import importlib

    for module_name in ('bt_executive', 'bt_executive.ros'):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            assert getattr(module, name) is not None, f'{module_name}.{name}'
        with pytest.raises(AttributeError):
            getattr(module, 'no_such_name')
