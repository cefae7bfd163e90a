# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tree pictures: DOT text from formats.dot and the ``bt-executive render`` command."""

import os
import re
import xml.etree.ElementTree as ElementTree

from bt_executive.app import cli

from bt_executive.core.loader import Loader
from bt_executive.formats import dot as graph
from bt_executive.nodes.catalogue import default_registry
import pytest

ROOT = os.path.join(os.path.dirname(__file__), '..')
CONFIGS = [os.path.join(ROOT, 'config', name)
           for name in ('patrol.yaml', 'patrol_nav2.yaml', 'patrol_reverse.yaml')]
INVALID = os.path.join(os.path.dirname(__file__), 'corpus', 'invalid', '01_unknown_type.yaml')
SVG = '{http://www.w3.org/2000/svg}'

SMALL = r"""
main: Main
trees:
  Main:
    Sequence root:
      - 'Condition say "hi" {x} | <y> \': a < 1
      - Subtree first: {tree: Sub, speed: 0.5}
      - Retry:
          attempts: 2
          Subtree second: {tree: Sub}
      - Wait: 1.0
  Sub:
    params: {speed: 0.1}
    root:
      Sequence:
        - Log: ${"at " + str(speed)}
        - Action go: {type: nav2_msgs/action/NavigateToPose, server: navigate}
  Unused:
    Success
"""
ODD = 'say "hi" {x} | <y> \\'

needs_renderer = pytest.mark.skipif(graph.find_renderer() is None,
                                    reason='no graphviz-pure or dot installed')


@pytest.fixture(scope='module')
def registry():
    return default_registry()


@pytest.fixture(scope='module')
def small(registry):
    return Loader(registry).load_text(SMALL, name='small.yaml')


def edges(dot):
    """Return the solid parent -> child edges in the order written."""
    return re.findall(r'^  ("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*");$', dot, re.M)


def test_labels_escape_quotes_braces_backslashes_and_angle_brackets(small, registry):
    dot = graph.to_dot(small, registry)
    assert ('    "Main/root/say \\"hi\\" {x} | <y> \u29f5" [shape="box", style="filled", '
            'fillcolor="#e2f0d9", color="#4f7f3a", label=<<B>Condition</B><BR/>'
            'say &quot;hi&quot; {x} | &lt;y&gt; &#92;<BR/>a &lt; 1>];') in dot.splitlines()
    assert 'label=<<B>Wait</B><BR/>seconds=1.0>' in dot
    assert 'label=<<B>Retry</B><BR/>attempts=2>' in dot
    assert 'label=<<B>Log</B><BR/>${&quot;at &quot; + str(speed)}>' in dot
    assert ('label=<<B>Subtree</B><BR/>first<BR/>\u2192 Sub<BR/>'
            '<FONT POINT-SIZE="9" COLOR="#444444">speed=0.5</FONT>>') in dot
    assert 'label=<<B>Sub</B>(speed=0.1)>;' in dot


def test_html_text_and_quote_id_escape_everything():
    assert graph.html_text('a&b<c>"d\'e\\f{g}|h') == \
        'a&amp;b&lt;c&gt;&quot;d&#39;e&#92;f{g}|h'
    assert graph.html_text('one\ntwo\r\nthree\tx\x01') == 'one<BR/>two<BR/>three x?'
    assert graph.quote_id('a"b\\') == '"a\\"b\u29f5"'
    assert graph.quote_id('a\nb\x02') == '"a b?"'
    assert graph.wrap('battery_low and battery.percentage < full', 24) == \
        'battery_low and\nbattery.percentage <\nfull'
    assert graph.wrap('x ' * 40, 10, 2).endswith('\u2026')


def test_nodes_by_category(small, registry):
    dot = graph.to_dot(small, registry)
    assert '"Main/root" [shape="box", style="rounded,filled", fillcolor="#dbe9f6"' in dot
    assert '"Main/root/Retry" [shape="box", style="filled,diagonals"' in dot
    assert '"Main/root/first" [shape="component"' in dot
    assert '"Sub/Sequence/go" [shape="box", style="filled", fillcolor="#fde3c8"' in dot


def test_edges_follow_child_order(small, registry):
    dot = graph.to_dot(small, registry)
    assert 'ordering="out"' in dot and 'rankdir="TB"' in dot
    assert edges(dot) == [
        ('"Main/root"', '"Main/root/say \\"hi\\" {x} | <y> \u29f5"'),
        ('"Main/root"', '"Main/root/first"'),
        ('"Main/root"', '"Main/root/Retry"'),
        ('"Main/root/Retry"', '"Main/root/Retry/second"'),
        ('"Main/root"', '"Main/root/Wait"'),
        ('"Sub/Sequence"', '"Sub/Sequence/Log"'),
        ('"Sub/Sequence"', '"Sub/Sequence/go"'),
    ]


def test_called_trees_are_clusters_linked_by_dashed_edges(small, registry):
    dot = graph.to_dot(small, registry)
    assert dot.count('subgraph cluster_') == 2  # Main and Sub; Unused is not reachable
    assert 'Unused' not in dot
    for caller in ('"Main/root/first"', '"Main/root/Retry/second"'):
        assert (f'  {caller} -> "Sub/Sequence" [style="dashed", color="#6a4c9c", '
                'arrowsize="0.6", constraint="false", lhead="cluster_1"];') in dot
    assert len(re.findall(r'^    "Sub/Sequence" \[', dot, re.M)) == 1


def test_expand_draws_each_call_inline(small, registry):
    dot = graph.to_dot(small, registry, expand_subtrees=True)
    assert 'style="dashed"' not in dot
    assert dot.count('subgraph cluster_') == 3  # Main, and Sub once per call
    assert edges(dot)[1:5] == [
        ('"Main/root"', '"Main/root/first"'),
        ('"Main/root/first"', '"Main/root/first > Sub/Sequence"'),
        ('"Main/root/first > Sub/Sequence"', '"Main/root/first > Sub/Sequence/Log"'),
        ('"Main/root/first > Sub/Sequence"', '"Main/root/first > Sub/Sequence/go"'),
    ]
    assert '"Main/root/Retry/second > Sub/Sequence/go" [' in dot


def test_tree_choice_and_determinism(small, registry):
    dot = graph.to_dot(small, registry, tree='Sub')
    assert dot.startswith('digraph "Sub" {') and 'Main/root' not in dot
    again = Loader(registry).load_text(SMALL, name='small.yaml')
    assert graph.to_dot(again, registry) == graph.to_dot(small, registry)


def test_stack_rows_keep_calls_pointing_down(registry):
    document = Loader(registry).load(CONFIGS[0])
    names = graph.reachable_trees(document, 'Patrol', registry)
    assert names == ['Patrol', 'EmergencyStop', 'Recharge', 'LeaveDock', 'NextWaypoint',
                     'Navigate', 'Dock', 'Undock']
    assert graph.stack_rows(document, names, registry) == [
        ['Patrol'], ['EmergencyStop'], ['Recharge'], ['LeaveDock', 'NextWaypoint'],
        ['Navigate', 'Dock', 'Undock']]


@pytest.mark.parametrize('path', CONFIGS, ids=os.path.basename)
@pytest.mark.parametrize('expand', [False, True], ids=['clusters', 'expanded'])
def test_shipped_configs_render_to_dot(path, expand, registry):
    document = Loader(registry).load(path)
    dot = graph.to_dot(document, registry, expand_subtrees=expand)
    assert dot.startswith('digraph "Patrol" {') and dot.endswith('}\n')
    declared = re.findall(r'^ +"((?:[^"\\]|\\.)*)" \[', dot, re.M)
    assert len(declared) == len(set(declared))
    paths = [node.path for name in graph.reachable_trees(document, 'Patrol', registry)
             for node in document.trees[name].root.walk()]
    if expand:
        assert {path.rpartition(' > ')[2] for path in declared} == set(paths)
        assert sum(path.endswith('/drive') or path.endswith('to pose')
                   for path in declared) == 2  # Navigate is called twice
    else:
        assert declared == paths
    for name in ('emergency stop', 'go to dock', 'reach or skip', 'undock'):
        assert f'<BR/>{name}' in dot


@needs_renderer
def test_svg_is_xml_with_the_labels_and_children_in_order(registry):
    document = Loader(registry).load(CONFIGS[0])
    svg = graph.render(graph.to_dot(document, registry), 'svg')
    root = ElementTree.fromstring(svg)
    texts = [''.join(text.itertext()) for text in root.iter(f'{SVG}text')]
    for label in ('Patrol', 'emergency stop', '\u2192 Recharge', 'battery.percentage < low',
                  'NextWaypoint', 'reach or skip', 'TopicAction', 'Service'):
        assert label in texts
    x = {}
    for group in root.iter(f'{SVG}g'):
        if group.get('class') == 'node':
            x[group.find(f'{SVG}title').text] = float(group.find(f'{SVG}text').get('x'))
    for parent, children in (('Patrol/root', ('emergency stop', 'recharge', 'patrol')),
                             ('NextWaypoint/Sequence', ('reach or skip', 'next', 'laps'))):
        positions = [x[f'{parent}/{child}'] for child in children]
        assert positions == sorted(positions), parent


@needs_renderer
def test_png_and_odd_labels_render(small, registry):
    assert graph.render(graph.to_dot(small, registry), 'png').startswith(b'\x89PNG')
    svg = graph.render(graph.to_dot(small, registry, expand_subtrees=True), 'svg')
    texts = [''.join(text.itertext())
             for text in ElementTree.fromstring(svg).iter(f'{SVG}text')]
    assert ODD in texts and '${"at " + str(speed)}' in texts


@pytest.mark.skipif(os.path.basename(graph.find_renderer() or '') != 'graphviz-pure',
                    reason='docs/patrol.svg is made with graphviz-pure')
def test_docs_picture_is_up_to_date(registry):
    document = Loader(registry).load(CONFIGS[0])
    with open(os.path.join(ROOT, 'docs', 'patrol.svg'), 'rb') as stream:
        assert graph.render(graph.to_dot(document, registry), 'svg') == stream.read(), \
            'regenerate: bt-executive render config/patrol.yaml -o docs/patrol.svg'


def test_render_errors():
    with pytest.raises(graph.RenderError, match='false failed'):
        graph.render('digraph {}', 'svg', program='false')
    assert graph.output_format(None, 'x.PNG') == 'png'
    assert graph.output_format(None, 'x.gv') == 'dot'
    assert graph.output_format(None, None) == 'svg'
    assert graph.output_format('dot', 'x.svg') == 'dot'
    assert graph.output_format(None, 'tree') == 'svg'
    with pytest.raises(graph.RenderError, match=r"cannot tell the format from 'x\.pdf'"):
        graph.output_format(None, 'x.pdf')
    assert graph.output_format('png', 'x.pdf') == 'png'  # asked for: written as asked


# ---- the command line (in process) ---------------------------------------------------


@needs_renderer
def test_cli_writes_svg(tmp_path, capsys):
    output = tmp_path / 'patrol.svg'
    assert cli.main(['render', CONFIGS[0], '-o', str(output)]) == 0
    assert ElementTree.parse(output).getroot().tag == f'{SVG}svg'


def test_cli_dot_to_stdout_and_by_suffix(tmp_path, capsys):
    assert cli.main(['render', CONFIGS[0], '--tree', 'Recharge', '--format', 'dot']) == 0
    assert capsys.readouterr().out.startswith('digraph "Recharge" {')
    output = tmp_path / 'tree.dot'
    assert cli.main(['render', CONFIGS[0], '--expand', '-o', str(output)]) == 0
    assert output.read_text().startswith('digraph "Patrol" {')


def test_cli_invalid_file_exits_one_with_the_loader_errors(capsys):
    assert cli.main(['render', INVALID, '--format', 'dot']) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("unknown node type 'Sequense' (did you mean 'Sequence'?) "
                           "(run 'bt-executive nodes' for the catalogue)")
    assert err[-1].endswith('01_unknown_type.yaml: 1 error')
    assert cli.main(['render', CONFIGS[0], '--tree', 'Nope']) == 1


def test_cli_without_renderer_exits_two(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(graph, 'find_renderer', lambda: None)
    output = tmp_path / 'patrol.svg'
    assert cli.main(['render', CONFIGS[0], '-o', str(output)]) == 2
    err = capsys.readouterr().err
    assert "rendering svg needs Graphviz's 'dot' (apt install graphviz)" in err
    assert 'use --format dot to get the DOT text' in err
    assert not output.exists()
    assert cli.main(['render', CONFIGS[0], '--format', 'dot']) == 0
