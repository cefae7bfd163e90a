# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fuzzing the loader: 10,000+ generated tree files, each loaded and built from disk.

Every document is a plausible tree file (node types and parameters from the catalogue,
both node forms, subtrees, includes, blackboard and subscription sections, references and
expressions, shared values dumped as YAML anchors and aliases) rendered by PyYAML, then
possibly damaged: YAML tags (``!!python/object/apply``, ``!!binary``, custom), merge
keys, duplicated lines (duplicate keys), invalid UTF-8, NUL bytes, a BOM, tabs, CRs,
truncation, a second document, huge scalars, deep nesting, alias bombs.

Besides, documents that call parametrised trees (literals, references, expressions, deep
and non-finite arguments) and parameters holding constant expressions, some of which can
never be evaluated (``${1 / 0}``, ``${"count " + 1}``, ``${min()}``).

For every document: loading, building each tree of a loaded document and setting it up
either works or raises :class:`~bt_executive.core.errors.TreeError` whose diagnostics all
name a file, each printed as one line of bounded length; a tree that was set up is ticked
a few times offline, which raises nothing. Nothing else may escape. Time and memory per
document are bounded (the CPU time of each, the process's peak RSS over the run, and the
tracemalloc peak of every tenth document; generous bounds: they catch blow-ups, not
slowness).
"""

from __future__ import annotations

import os
import pathlib
import random
import resource
import time
import tracemalloc
from typing import Any

from bt_executive.core.builder import BuildContext, Builder
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
from bt_executive.observe.runner import TreeRunner
from hypothesis import given, HealthCheck, note, settings, strategies as st
import py_trees
import pytest
import yaml

#: Documents per run; BT_FUZZ_EXAMPLES=100000 for a longer search.
EXAMPLES = int(os.environ.get('BT_FUZZ_EXAMPLES', '2000'))
#: The run is cut into this many tests of EXAMPLES / SHARDS documents each (independent
#: draws), so that parallel test workers share it out.
SHARDS = 4
#: CPU seconds one document may take to load and build (they take milliseconds). CPU
#: time of the loading thread, not wall time: on a loaded machine (parallel test workers,
#: other jobs) a trivial document once took 5.4 s of wall time, waiting for a core.
TIME_BOUND = 5.0
#: Bytes one document may allocate at its peak (the largest legal ones need ~40 MiB), and
#: by which the process's peak RSS may grow over the whole run.
MEMORY_BOUND = 128 * 2**20
#: Every this many documents, the allocation peak is also traced (tracemalloc makes
#: loading four times slower, so not every document).
TRACE_EVERY = 10

#: libyaml's emitter when PyYAML has it (the pure-Python one would double the run time).
DUMPER = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
REGISTRY = default_registry()
TYPES = sorted({name for t in REGISTRY.types() for name in (t.name, *t.aliases)})
VALID_TYPES = [t for t in REGISTRY.types() if t.category.value != 'subtree'
               and not any(p.type.value == 'list' and p.required for p in t.params)]
VALID_LEAVES = [t for t in VALID_TYPES if t.min_children == 0]
PARAMS = sorted({p.name for t in REGISTRY.types() for p in t.params})

NAMES = ['a', 'main', 'my node', 'x1', 'Main', 'Patrol', '#2', 'é', '日本', 'with: colon', '',
         ' ', '-', '*a', '&b', '!tag', '%', '@']
TREE_NAMES = ['Main', 'Other', 'Dock', 'main', 'my tree', '1x', 'Ünï', '']
TYPE_NAMES = TYPES + ['Sequense', 'sequence', 'Foo', 'Type name', '', 'Sequence Sequence',
                      'children', 'type', 'X' * 300]
PARAM_NAMES = PARAMS + ['secs', 'children', 'child', 'name', 'params', 'root', '$x', 'Success',
                        '', 'type', '__class__']
TEXTS = [
    '$x', '$battery.percentage', '${x + 1}', '${', '$', '$$5', '${__import__("os")}',
    '${x.__class__}', '${1/0}', '${[0] * 10**9}', '${' + '(' * 80 + '1' + ')' * 80 + '}',
    'msg.status == 4', 'battery.percentage < 0.2 and not estop', 'x > 1', 'not', '1 +',
    '0x1F', '1e999', '.inf', '.nan', '~', 'yes', 'no', 'on', 'off', '2024-01-01',
    'std_msgs/msg/Bool', 'sensor_msgs/msg/BatteryState', 'nav2_msgs/action/NavigateToPose',
    'std_srvs/srv/Trigger', 'bogus/msg/Type', 'success', 'failure', 'all', 'one',
    'warning', 'reliable', 'latched', 'include.yaml', 'a' * 2100, 'Main', 'Dock', 'Other']
ALPHABET = 'ab_ .:$[]{}-#&*!|>\'"%@\t\nxé日\x00\x85\u2028'
TAGS = [b'!!python/object/apply:os.system ', b'!!python/name:os.system ', b'!!binary ',
        b'!custom ', b'!!set ', b'!!omap ', b'!!str ', b'!!int ', b'!!float ', b'!!timestamp ',
        b'!<tag:yaml.org,2002:map> ', b'!!map ']
BAD_BYTES = [b'\xff', b'\xc3\x28', b'\xe2\x82', b'\xed\xa0\x80', b'\x00', b'\r', b'\t',
             b'\x1b[31m', b'\xef\xbb\xbf']
NOISE = [b'{', b'}', b'[', b']', b': ', b'- ', b'? ', b'|', b'>', b'"', b"'", b'&', b'*',
         b'!', b'%YAML 1.1\n', b'#', b',', b'\n  ', b'...\n']
ALIASES = [b'\n<<: {a: 1}\n', b'\nm: {<<: *nope}\n', b'\nr: &r [*r]\n', b'*id001',
           b'\nm: &m {a: 1}\nn: {<<: *m}\n']
#: Expressions that read nothing: evaluated when the tree is built (many never can be).
CONSTANTS = ['"count " + 1', '1 / 0', "int('x')", 'min()', '[1][5]', "{'a': 1}['b']", '-"a"',
             '10 % 0', 'len(1)', 'abs("a")', 'clamp(1, 2)', '"a" < 1', '1e300 * 1e300',
             'round(1.5, 9999)', '[1] + 2', 'null.x', '"abc"[9]', "float('nan')", '1 + 1',
             'true', '"text"', '[1, 2]', "{'a': 1}", '-1', '0.5', 'str(1) + str(2)']
TEXTS.extend('${' + text + '}' for text in CONSTANTS)
INCLUDES = ['lib.yaml', 'fuzz.yaml', 'missing.yaml', '/etc/passwd', '../fuzz.yaml', '',
            '/dev/zero', '.']


class Generator:
    """Derive one tree file from a seed: plausible structure, then damage.

    Hypothesis draws the seeds (and shrinks nothing: the document is the report); a
    plain ``random.Random`` builds the document, which keeps 10,000 documents within
    CI time (hypothesis' own structured strategies cost ~30 ms per document here).
    """

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.shared: list[Any] = []

    def chance(self, probability: float) -> bool:
        return self.random.random() < probability

    def pick(self, items: list[Any]) -> Any:
        return self.random.choice(items)

    def text(self, size: int = 12) -> str:
        return ''.join(self.random.choice(ALPHABET) for _ in range(self.random.randint(0, size)))

    def scalar(self) -> Any:
        kind = self.random.randint(0, 8)
        if kind == 0:
            return None
        if kind == 1:
            return self.chance(0.5)
        if kind == 2:
            return self.random.randint(-2**70, 2**70)
        if kind == 3:
            return self.random.randint(-3, 10)
        if kind == 4:
            return self.pick([0.0, -1.5, 2.5, 1e308, -1e-300, float('inf'), float('nan'),
                              self.random.uniform(-100, 100)])
        if kind == 5:
            return self.text()
        return self.pick(TEXTS)

    def value(self, depth: int = 2) -> Any:
        """Return a parameter or blackboard value: scalar, list or mapping (maybe shared)."""
        if self.shared and self.chance(0.05):
            return self.pick(self.shared)  # dumped as an alias
        if depth <= 0 or self.chance(0.6):
            return self.scalar()
        if self.chance(0.5):
            made: Any = [self.value(depth - 1) for _ in range(self.random.randint(0, 4))]
        else:
            made = {self.key(): self.value(depth - 1) for _ in range(self.random.randint(0, 4))}
        if self.chance(0.2):
            self.shared.append(made)
        return made

    def key(self) -> Any:
        return self.pick(PARAM_NAMES) if self.chance(0.8) else self.text(6)

    def params(self, most: int = 4) -> dict[Any, Any]:
        return {self.key(): self.value() for _ in range(self.random.randint(0, most))}

    def node(self, depth: int) -> Any:
        """One node in any of the written forms (possibly wrong)."""
        if self.shared and self.chance(0.03):
            return self.pick(self.shared)
        type_name = self.pick(TYPE_NAMES)
        name = self.pick(NAMES) if self.chance(0.4) else None
        key = type_name if name is None else f'{type_name} {name}'
        form = self.random.randint(0, 6 if depth > 0 else 2)
        if form == 0:
            return key  # a bare string list item
        if form == 1:
            return {key: self.scalar()}  # nothing, or the primary parameter
        if form == 2:
            return {key: self.params()}
        children = [self.node(depth - 1) for _ in range(self.random.randint(0, 3))]
        made: Any
        if form == 3:
            made = {key: children}
        elif form == 4:  # parameters and CamelCase children in one mapping
            value = self.params(3)
            for child in children:
                if isinstance(child, dict):
                    value.update(child)
            made = {key: value}
        elif form == 5:  # parameters plus children:
            value = self.params(3)
            value['children'] = children
            made = {key: value}
        else:
            made = {'type': type_name}
            if name is not None:
                made['name'] = name
            if self.chance(0.5):
                made['params'] = self.params(3)
            if len(children) == 1 and self.chance(0.5):
                made['child'] = children[0]
            else:
                made['children'] = children
            if self.chance(0.2):
                made[self.key()] = self.value()
        if self.chance(0.1):
            self.shared.append(made)
        return made

    def param_value(self, param: Any) -> Any:
        """Return a value that fits ``param`` (most of the time)."""
        kind = param.type.value
        if self.chance(0.1):  # a constant expression: folded (or rejected) when built
            text = self.pick(CONSTANTS)
            return text if kind == 'expression' else '${' + text + '}'
        low = param.minimum if param.minimum is not None else 0
        if kind == 'bool':
            return self.chance(0.5)
        if kind == 'int':
            return self.random.randint(int(low), int(low) + 4)
        if kind == 'float':
            return round(self.random.uniform(low, low + 0.01), 3)
        if kind == 'enum':
            return self.pick(list(param.choices))
        if kind == 'expression':
            return self.pick(['x > 1', 'true', 'not flag', 'len(items) == 2', 'x + 1 > 0'])
        if kind == 'key':
            return self.pick(['x', 'flag', 'count', 'a.b'])
        if kind == 'interface':
            return self.pick(['std_msgs/msg/Bool', 'std_srvs/srv/Trigger',
                              'test_msgs/action/Fibonacci'])
        if kind == 'mapping':
            return {}
        if kind in ('string', 'any'):
            return self.pick(['topic', 'a message', '$x', '${x + 1}', 'warning'])
        return None

    def valid_node(self, depth: int) -> Any:
        """Return a node that fits the catalogue (types, parameters, children), mostly."""
        node_type = self.pick(VALID_TYPES if depth > 0 else VALID_LEAVES)
        params = {param.name: self.param_value(param) for param in node_type.params
                  if param.required or self.chance(0.3)}
        params = {key: value for key, value in params.items() if value is not None}
        high = node_type.max_children if node_type.max_children is not None else 3
        count = self.random.randint(node_type.min_children, max(node_type.min_children, high))
        children = [self.valid_node(depth - 1) for _ in range(count)]
        if not children:
            return {node_type.name: params or None}
        if not params:
            return {node_type.name: children}
        return {node_type.name: dict(params, children=children)}

    def valid_document(self) -> dict[str, Any]:
        """Return a tree file that should mostly load: catalogue nodes, blackboard."""
        return {'blackboard': {'x': 2, 'flag': True, 'count': 0, 'items': [1, 2],
                               'a': {'b': 1}},
                'trees': {'Main': self.valid_node(3)}}

    def argument(self) -> Any:
        """Return an argument of a subtree call: literal, reference, expression, odd."""
        return self.pick([1, 2.5, 0, -1, True, 'text', None, float('inf'), float('nan'),
                          [1, 2], {'x': 1}, [[[[[[1]]]]]], '$x', '$a.b', '${x + 1}',
                          '${' + self.pick(CONSTANTS) + '}', '${' + '[' * 40 + 'x'
                          + ']' * 40 + '}', {'k': '$x'}, 'Main', 'Called', '$$1'])

    def subtree_document(self) -> dict[str, Any]:
        """Return a file whose main tree calls parametrised trees, in a chain."""
        depth = self.random.randint(1, 4)
        trees: dict[str, Any] = {}
        for level in range(depth):
            name = f'T{level}'
            uses = {'Retry': {'attempts': '$n', 'Success': None},
                    'Wait': {'seconds': '${n}'},
                    'Log': {'message': '${"at " + str(n) + " " + str(v)}'},
                    'Condition': 'v == n',
                    'Repeat': {'times': '${n + 1}', 'Success': None},
                    'Sequence': [{'Log': '$v'}, {'Success': None}]}
            body = [{key: value} for key, value in uses.items() if self.chance(0.4)]
            if level + 1 < depth:
                call = {'tree': f'T{level + 1}', 'n': self.pick(['$n', '${n}', 1]),
                        'v': self.pick(['${[v]}', '$v', '${v + v}', self.argument()])}
                body.append({'Subtree': call})
            trees[name] = {'params': {'n': 1, 'v': None},
                           'root': {'Sequence': body or [{'Success': None}]}}
        trees['Main'] = {'Sequence': [{'Subtree': {'tree': 'T0', 'n': self.argument(),
                                                   'v': self.argument()}}]}
        return {'main': 'Main', 'blackboard': {'x': 2, 'a': {'b': 1}}, 'trees': trees}

    def document(self) -> dict[str, Any]:
        """Return a tree file as plain data (shared parts become anchors and aliases)."""
        document: dict[str, Any] = {}
        trees: dict[Any, Any] = {}
        for _ in range(self.random.randint(0, 3)):
            root = self.node(3)
            name = self.pick(TREE_NAMES)
            if self.chance(0.5):
                trees[name] = root
            else:
                trees[name] = {'params': {self.key(): self.scalar()
                                          for _ in range(self.random.randint(0, 2))},
                               'root': root}
        if trees and self.chance(0.25):  # the same tree twice: an alias
            trees['Copy'] = next(iter(trees.values()))
        if self.chance(0.8):
            document['trees'] = trees
        elif self.chance(0.5):
            document['trees'] = self.value()
        if self.chance(0.5):
            document['main'] = self.pick(TREE_NAMES) if self.chance(0.7) else self.scalar()
        if self.chance(0.25):
            document['include'] = self.pick([
                self.pick(INCLUDES), [self.pick(INCLUDES[:3]) for _ in range(3)],
                self.scalar()])
        if self.chance(0.5):
            document['blackboard'] = {
                self.pick(['x', 'battery', 'a.b', '1x', '', 'estop']) if self.chance(0.7)
                else self.text(5): self.value() for _ in range(self.random.randint(0, 4))}
        if self.chance(0.25):
            document['subscriptions'] = [
                {self.pick(['topic', 'type', 'key', 'field', 'fields', 'qos', 'max_age',
                            'bogus']): self.value() for _ in range(self.random.randint(0, 5))}
                for _ in range(self.random.randint(0, 3))]
        if self.chance(0.15):
            document[self.pick(['description', 'bogus', 'Trees', 'params'])] = self.value()
        return document

    def render(self, document: dict[str, Any]) -> bytes:
        try:
            text = yaml.dump(document, Dumper=DUMPER, allow_unicode=self.chance(0.5),
                             sort_keys=False, default_flow_style=self.pick([False, True, None]),
                             width=self.pick([80, 20, 1000]))
        except yaml.YAMLError:
            text = 'trees: {}\n'
        return text.encode('utf-8')

    def position(self, data: bytes) -> int:
        return self.random.randint(0, len(data))

    def damage(self, data: bytes) -> bytes:
        """Apply up to three kinds of damage to a rendered document."""
        for _ in range(self.random.choice([0, 0, 0, 1, 1, 2, 3])):
            at = self.position(data)
            kind = self.random.randint(0, 13)
            if kind == 0:  # a tag in front of a value
                colon = data.find(b': ', at)
                tag = self.pick(TAGS)
                data = data[:colon + 2] + tag + data[colon + 2:] if colon >= 0 else tag + data
            elif kind == 1:  # a duplicated line: duplicate keys, or broken structure
                start = data.rfind(b'\n', 0, at) + 1
                end = data.find(b'\n', start)
                end = len(data) if end < 0 else end + 1
                data = data[:end] + data[start:end] + data[end:]
            elif kind == 2:
                data = data[:at] + self.pick(BAD_BYTES) + data[at:]
            elif kind == 3:
                data = data[:at]  # truncated
            elif kind == 4:
                data = data + b'\n---\n' + data  # two documents
            elif kind == 5:  # a huge scalar, under or over the 64 KiB limit
                size = self.pick([1000, 65536, 65537, 200_000])
                data = data + b'\nhuge: ' + b'x' * size + b'\n'
            elif kind == 6:  # deep nesting in flow style
                depth = self.random.randint(50, 400)
                data = b'deep: ' + b'[' * depth + b'1' + b']' * depth + b'\n' + data
            elif kind == 7:  # deep nesting in block style
                depth = self.random.randint(50, 150)
                lines = b''.join(b'  ' * i + b'- \n' for i in range(depth))
                data = data + b'\ndeep:\n' + lines
            elif kind == 8:  # an alias bomb (or a large legal expansion)
                fanout, levels = self.random.randint(2, 12), self.random.randint(2, 9)
                lines = [b'b0: &b0 [' + b', '.join([b'x'] * fanout) + b']']
                for level in range(1, levels):
                    refs = b', '.join([b'*b%d' % (level - 1)] * fanout)
                    lines.append(b'b%d: &b%d [%s]' % (level, level, refs))
                data = b'\n'.join(lines) + b'\n' + data
            elif kind == 9:  # a merge key, an undefined or a recursive alias
                data = data[:at] + self.pick(ALIASES) + data[at:]
            elif kind == 10:  # YAML syntax noise
                data = data[:at] + self.pick(NOISE) + data[at:]
            elif kind == 11:
                data = b'\xef\xbb\xbf' + data  # a BOM
            elif kind == 12:  # indentation with tabs
                data = data.replace(b'\n  ', b'\n\t', self.random.randint(1, 3))
            else:
                data = data.replace(b'\n', b'\r\n')
        return data

    def file(self) -> bytes:
        """Return the bytes of one tree file: a third plausible and intact, the rest not."""
        if self.chance(0.3):
            return self.render(self.valid_document())
        if self.chance(0.2):
            return self.render(self.subtree_document())
        return self.damage(self.render(self.document()))


LIB = """
trees:
  Dock:
    params: {speed: 0.1}
    root:
      Sequence: [Success, Wait: 0.0]
"""


def load_and_build(path: pathlib.Path) -> None:
    """Load the file, build and set up every tree, tick it; only TreeError may escape.

    Errors of building and setting up are checked like those of loading (every one
    names a file); ticking may raise nothing at all.
    """
    document = Loader(REGISTRY).load(str(path))
    for name in document.trees:
        now = [0.0]
        context = BuildContext(registry=REGISTRY, document=document, clock=lambda: now[0],
                               seed=0, log_error=lambda text: None)
        try:
            built = Builder(context).build(name)
            built.setup(str(path))
        except TreeError as error:
            check_located(error)
            continue
        runner = TreeRunner(built, clock=lambda: now[0], log_error=lambda text: None)
        for _ in range(3):
            runner.tick_once()
            now[0] += 0.5
        runner.stop()


def check_located(error: TreeError) -> None:
    """Assert that every diagnostic names a file and, but for whole-file ones, a line."""
    assert error.diagnostics
    for diagnostic in error.diagnostics:
        assert diagnostic.location.file and diagnostic.message, str(diagnostic)
        text = str(diagnostic)
        assert len(text) < 1500, f'{len(text)} characters: {text[:200]}...'
        assert '\n' not in text, text


@pytest.fixture
def folder(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / 'lib.yaml').write_text(LIB)
    return tmp_path


def peak_rss() -> int:
    """Return the process's peak resident set size so far, in bytes (Linux: KiB units)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def shard_size(shard: int, total: int = EXAMPLES) -> int:
    """Return how many of ``total`` documents shard ``shard`` (of SHARDS) checks."""
    return total // SHARDS + (1 if shard < total % SHARDS else 0)


@pytest.mark.parametrize('shard', range(SHARDS))
def test_generated_documents_raise_only_tree_errors_within_bounds(
        folder: pathlib.Path, shard: int):
    examples = shard_size(shard)
    path = folder / 'fuzz.yaml'
    outcomes = {'loaded': 0, 'rejected': 0}
    worst = {'seconds': 0.0, 'traced': 0}
    rss_before = peak_rss()

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2**64 - 1))
    def check(seed: int) -> None:
        data = Generator(seed).file()
        note(f'document: {data[:2000]!r}')
        path.write_bytes(data)
        py_trees.blackboard.Blackboard.storage.clear()
        traced = (outcomes['loaded'] + outcomes['rejected']) % TRACE_EVERY == 0
        if traced:
            tracemalloc.start()
        start = time.thread_time()
        try:
            load_and_build(path)
            outcomes['loaded'] += 1
        except TreeError as error:
            outcomes['rejected'] += 1
            check_located(error)  # the file (or an included one) is named
        finally:
            elapsed = time.thread_time() - start
            if traced:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                worst['traced'] = max(worst['traced'], peak)
                assert peak < MEMORY_BOUND, f'{peak / 2**20:.0f} MiB for one document'
        worst['seconds'] = max(worst['seconds'], elapsed)
        assert elapsed < TIME_BOUND, f'{elapsed:.2f} s for one document'
        grown = peak_rss() - rss_before
        assert grown < MEMORY_BOUND, f'the peak RSS grew by {grown / 2**20:.0f} MiB'

    check()
    total = outcomes['loaded'] + outcomes['rejected']
    print(f'\n{total} documents: {outcomes}; slowest {worst["seconds"] * 1e3:.0f} ms; largest '
          f'traced peak {worst["traced"] / 2**20:.1f} MiB; peak RSS grew '
          f'{(peak_rss() - rss_before) / 2**20:.1f} MiB')
    assert total >= examples
    assert outcomes['loaded'] >= examples // 10, \
        f'too few valid documents to exercise the builder: {outcomes}'
