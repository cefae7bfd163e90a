# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Pictures of trees: Graphviz DOT text for a tree file, and SVG or PNG rendered from it.

:func:`to_dot` writes the DOT text itself (no dependency): one box per node, coloured
and shaped by category, edges from parent to child in order. Subtree calls either link
to a cluster of the called tree (every tree reachable from the chosen one is drawn
once, as its own cluster) or are drawn inline (``expand_subtrees``).

:func:`render` turns the DOT text into SVG or PNG with a Graphviz layout program:
``graphviz-pure`` (a self-contained port of Graphviz's ``dot``, installed from PyPI by
``requirements.txt``) if present, else Graphviz's own ``dot`` (``apt install graphviz``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import textwrap
from typing import Optional

from bt_executive.core.builder import MAX_TREE_DEPTH
from bt_executive.core.errors import TreeError
from bt_executive.core.registry import Category, ParamType, Registry
from bt_executive.core.spec import Document, NodeSpec, TreeSpec
from bt_executive.formats.text import format_data

#: Output formats of ``bt-executive render``.
FORMATS = ('svg', 'png', 'dot')
#: Layout programs tried in order: graphviz-pure writes the same bytes everywhere.
RENDERERS = ('graphviz-pure', 'dot')
#: Parameters shown in a node's box besides the primary one; the rest are counted.
MAX_PARAMS = 3
#: Longest parameter value shown (longer values end with an ellipsis).
VALUE_LIMIT = 30
#: Width at which names and primary values are broken into lines (three at most).
WRAP_WIDTH = 24
#: Longest primary value formatted before wrapping.
TEXT_LIMIT = 200
#: Fewest leaves a row of clusters may hold (see :func:`stack_rows`).
ROW_LEAVES = 8

FONT = 'Helvetica'
#: Node attributes by kind: the registry category, ``ros`` for ROS leaves, ``unknown``.
STYLES: dict[str, dict[str, str]] = {
    'composite': {'shape': 'box', 'style': 'rounded,filled', 'fillcolor': '#dbe9f6',
                  'color': '#3d6a99'},
    'decorator': {'shape': 'box', 'style': 'filled,diagonals', 'fillcolor': '#fff2cc',
                  'color': '#a67c00'},
    'leaf': {'shape': 'box', 'style': 'filled', 'fillcolor': '#e2f0d9', 'color': '#4f7f3a'},
    'ros': {'shape': 'box', 'style': 'filled', 'fillcolor': '#fde3c8', 'color': '#b85c00',
            'peripheries': '2'},
    'subtree': {'shape': 'component', 'style': 'filled', 'fillcolor': '#e8def8',
                'color': '#6a4c9c'},
    'unknown': {'shape': 'box', 'style': 'filled,dotted', 'fillcolor': '#eeeeee',
                'color': '#777777'},
}
_GRAPH_ATTRS = {'rankdir': 'TB', 'ordering': 'out', 'compound': 'true', 'nodesep': '0.2',
                'ranksep': '0.35', 'fontname': FONT, 'fontsize': '12', 'bgcolor': 'white'}
_NODE_ATTRS = {'fontname': FONT, 'fontsize': '11', 'margin': '0.1,0.05', 'height': '0.3'}
_EDGE_ATTRS = {'color': '#555555', 'arrowsize': '0.6'}
_LINK_ATTRS = {'style': 'dashed', 'color': '#6a4c9c', 'arrowsize': '0.6',
               'constraint': 'false'}
#: Invisible edges that stack the rows of clusters (see :func:`stack_rows`).
_STACK_ATTRS = {'style': 'invis', 'weight': '0'}
_CLUSTER_ATTRS = {'style': 'rounded', 'color': '#999999', 'labeljust': 'l',
                  'margin': '10'}
_EXPANDED_ATTRS = {'style': 'rounded,dashed', 'color': '#6a4c9c', 'labeljust': 'l',
                   'labelloc': 'b', 'margin': '8'}
#: Primary parameter types shown as ``name=value`` (expressions and texts stand alone).
_NAMED_PRIMARY = (ParamType.BOOL, ParamType.INT, ParamType.FLOAT, ParamType.ENUM,
                  ParamType.KEY)
_HTML_ESCAPES = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
                 '\\': '&#92;'}


class RenderError(Exception):
    """Raised when DOT text cannot be rendered to a picture."""


class RendererMissing(RenderError):
    """Raised when no Graphviz layout program is installed."""


def html_text(text: str) -> str:
    """Escape text for a Graphviz HTML-like label; newlines become line breaks.

    Quotes, backslashes, ``&``, ``<`` and ``>`` become entities, so every character is
    drawn as written (``{``, ``}`` and ``|`` are plain text in HTML-like labels); other
    control characters become ``?``.
    """
    lines = text.replace('\r\n', '\n').replace('\r', '\n').split('\n')
    return '<BR/>'.join(''.join(_escape_char(char) for char in line) for line in lines)


def _escape_char(char: str) -> str:
    if char in _HTML_ESCAPES:
        return _HTML_ESCAPES[char]
    if char == '\t':
        return ' '
    if _is_control(char):
        return '?'
    return char


def quote_id(text: str) -> str:
    """Quote text as a DOT identifier.

    Backslashes are replaced (a DOT string cannot end in an escaped backslash), line
    breaks become spaces and other control characters ``?``, so the result always parses
    and is valid XML in SVG titles.
    """
    text = ' '.join(text.replace('\\', '\u29f5').splitlines())
    text = ''.join('?' if _is_control(char) else char for char in text)
    return '"' + text.replace('"', '\\"') + '"'


def _is_control(char: str) -> bool:
    return ord(char) < 32 or 127 <= ord(char) < 160


def _attrs(attrs: dict[str, str], label: Optional[str] = None) -> str:
    parts = [f'{key}={quote_id(value)}' for key, value in attrs.items()]
    if label is not None:
        parts.append(f'label=<{label}>')
    return '[' + ', '.join(parts) + ']'


def node_kind(node: NodeSpec, registry: Registry) -> str:
    """Return the :data:`STYLES` key of a node: its category, ``ros`` or ``unknown``."""
    node_type = registry.get(node.type)
    if node_type is None:
        return 'unknown'
    if node_type.ros:
        return 'ros'
    return node_type.category.value


def node_label(node: NodeSpec, registry: Registry) -> str:
    """Return the HTML-like label of a node: type, name, then the key parameters."""
    node_type = registry.get(node.type)
    lines = [f'<B>{html_text(node.type)}</B>']
    if node.name != node.type:
        lines.append(html_text(wrap(node.name)))
    params = dict(node.params)
    primary = node_type.primary if node_type is not None else None
    if node_type is not None and node_type.category is Category.SUBTREE:
        target = params.pop('tree', None)
        if target is not None:
            lines.append(html_text('\u2192 ' + wrap(format_data(target.data, limit=TEXT_LIMIT))))
    elif primary is not None and primary in params:
        text = format_data(params.pop(primary).data, limit=TEXT_LIMIT)
        param = node_type.param(primary) if node_type is not None else None
        if param is not None and param.type in _NAMED_PRIMARY:
            text = f'{primary}={text}'  # a bare number or key says little on its own
        lines.append(html_text(wrap(text)))
    small = [html_text(f'{key}={format_data(value.data, limit=VALUE_LIMIT)}')
             for key, value in list(params.items())[:MAX_PARAMS]]
    if len(params) > MAX_PARAMS:
        small.append(f'+{len(params) - MAX_PARAMS} more')
    if small:
        lines.append('<FONT POINT-SIZE="9" COLOR="#444444">' + '<BR/>'.join(small)
                     + '</FONT>')
    return '<BR/>'.join(lines)


def wrap(text: str, width: int = WRAP_WIDTH, max_lines: int = 3) -> str:
    """Break text into lines of about ``width`` characters; cut it after ``max_lines``."""
    lines: list[str] = []
    for line in text.splitlines() or ['']:
        lines.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [''])
    if len(lines) > max_lines:
        lines = [*lines[:max_lines - 1], lines[max_lines - 1][:width - 1] + '\u2026']
    return '\n'.join(lines)


def tree_label(tree: TreeSpec) -> str:
    """Return the HTML-like label of a tree's cluster: name and parameters with defaults."""
    label = f'<B>{html_text(tree.name)}</B>'
    if tree.params:
        label += html_text('(' + ', '.join(
            name if value is None else f'{name}={format_data(value.data, limit=24)}'
            for name, value in tree.params.items()) + ')')
    return label


def subtree_target(node: NodeSpec, registry: Registry) -> Optional[str]:
    """Return the tree a Subtree node calls, or None for other nodes."""
    node_type = registry.get(node.type)
    if node_type is None or node_type.category is not Category.SUBTREE:
        return None
    target = node.params.get('tree')
    return target.data if target is not None and isinstance(target.data, str) else None


def reachable_trees(document: Document, start: str, registry: Registry) -> list[str]:
    """Return ``start`` and every tree it calls, directly or not, in order of first call."""
    order = [start]
    index = 0
    while index < len(order):
        for node in document.trees[order[index]].root.walk():
            target = subtree_target(node, registry)
            if target in document.trees and target not in order:
                order.append(target)
        index += 1
    return order


def _calls(tree: TreeSpec, registry: Registry) -> set[str]:
    return {target for node in tree.root.walk()
            if (target := subtree_target(node, registry)) is not None}


def _depth(node: NodeSpec) -> int:
    return 1 + max((_depth(child) for child in node.children), default=0)


def _deepest(node: NodeSpec) -> NodeSpec:
    """Return the first node on the longest path down from ``node``."""
    while node.children:
        node = max(node.children, key=_depth)  # max keeps the first of equals
    return node


def stack_rows(document: Document, names: list[str], registry: Registry) -> list[list[str]]:
    """Group trees into rows drawn one below the other, to keep the picture compact.

    Trees stay in order; a row takes the next tree while the row's leaves (a rough width)
    stay within the widest tree's (at least :data:`ROW_LEAVES`) and no tree of the row
    calls it, so calls always point down.
    """
    leaves = {name: sum(1 for node in document.trees[name].root.walk() if not node.children)
              for name in names}
    budget = max(ROW_LEAVES, *leaves.values())
    rows: list[list[str]] = []
    for name in names:
        row = rows[-1] if rows else []
        if not row or sum(leaves[other] for other in row) + leaves[name] > budget \
                or any(name in _calls(document.trees[other], registry) for other in row):
            rows.append([name])
        else:
            row.append(name)
    return rows


#: Most nodes drawn in one picture (a tree calling another twice doubles it per level).
MAX_DRAWN_NODES = 10_000


class _DotWriter:
    """Accumulates DOT statements with stable, unique ids."""

    def __init__(self, document: Document, registry: Registry):
        self.document = document
        self.registry = registry
        self.lines: list[str] = []
        self.edges: list[str] = []
        self.ids: dict[str, str] = {}  # node path (with prefix) -> quoted unique id
        self.used: set[str] = set()
        self.clusters = 0
        self.roots: dict[str, tuple[str, str]] = {}  # tree -> (root id, cluster id)
        self.links: list[tuple[str, str]] = []  # (Subtree node id, called tree)
        self.count = 0  # nodes written

    def node_id(self, path: str) -> str:
        node_id, number = quote_id(path), 1
        while node_id in self.used:
            number += 1
            node_id = quote_id(f'{path}#{number}')
        self.used.add(node_id)
        self.ids.setdefault(path, node_id)
        return node_id

    def open_cluster(self, label: str, attrs: dict[str, str], indent: str) -> str:
        name = f'cluster_{self.clusters}'
        self.clusters += 1
        self.lines.append(f'{indent}subgraph {name} {{')
        for key, value in attrs.items():
            self.lines.append(f'{indent}  {key}={quote_id(value)};')
        self.lines.append(f'{indent}  label=<{label}>;')
        return name

    def tree(self, tree: TreeSpec, *, expand: bool, prefix: str = '',
             stack: tuple[str, ...] = (), indent: str = '  ',
             attrs: Optional[dict[str, str]] = None, level: int = 0) -> str:
        """Write a tree as a cluster; return its root's id."""
        cluster = self.open_cluster(tree_label(tree), attrs or _CLUSTER_ATTRS, indent)
        root_id = self.node_id(prefix + tree.root.path)
        self.node(tree.root, root_id, expand=expand, prefix=prefix,
                  stack=(*stack, tree.name), indent=indent + '  ', level=level)
        self.lines.append(f'{indent}}}')
        self.roots.setdefault(tree.name, (root_id, cluster))
        return root_id

    def node(self, node: NodeSpec, node_id: str, *, expand: bool, prefix: str,
             stack: tuple[str, ...], indent: str, level: int = 0) -> None:
        """Write a node, the edges to its children in order, then the children.

        Raises:
            TreeError: when drawing called trees inline nests too deep or grows too large
                (the builder's limits).
        """
        self.count += 1
        if level >= MAX_TREE_DEPTH or self.count > MAX_DRAWN_NODES:
            problem = f'nests deeper than {MAX_TREE_DEPTH} levels' \
                if level >= MAX_TREE_DEPTH else f'has more than {MAX_DRAWN_NODES} nodes'
            raise TreeError.single(node.loc, f'the tree {problem} once its subtrees are '
                                   'expanded (draw it without --expand)', prefix + node.path)
        style = STYLES[node_kind(node, self.registry)]
        self.lines.append(f'{indent}{node_id} {_attrs(style, node_label(node, self.registry))};')
        for child in node.children:
            child_id = self.node_id(prefix + child.path)
            self.edges.append(f'  {node_id} -> {child_id};')
            self.node(child, child_id, expand=expand, prefix=prefix, stack=stack,
                      indent=indent, level=level + 1)
        target = subtree_target(node, self.registry)
        if target is None or target not in self.document.trees:
            return
        if not expand:
            self.links.append((node_id, target))
        elif target not in stack:  # the loader rejects recursion; never loop regardless
            edge = len(self.edges)
            root_id = self.tree(self.document.trees[target], expand=True,
                                prefix=f'{prefix}{node.path} > ', stack=stack,
                                indent=indent, attrs=_EXPANDED_ATTRS, level=level + 1)
            self.edges.insert(edge, f'  {node_id} -> {root_id};')


def to_dot(document: Document, registry: Registry, *, tree: Optional[str] = None,
           expand_subtrees: bool = False) -> str:
    """Return Graphviz DOT text drawing a tree of a document.

    Args:
        document: the loaded document
        registry: the node types (for categories and primary parameters)
        tree: the tree to draw (default: the main tree)
        expand_subtrees: draw called trees inline under their Subtree nodes instead of
            as separate clusters linked by dashed edges

    Returns:
        The DOT text; the same input always gives the same text. Node ids are node paths
        (a subtree drawn inline prefixes the caller's path and ``' > '``).

    Raises:
        TreeError: if there is no such tree, or it is too large to draw expanded.
    """
    chosen = document.tree(tree)
    writer = _DotWriter(document, registry)
    if expand_subtrees:
        writer.tree(chosen, expand=True)
    else:
        names = reachable_trees(document, chosen.name, registry)
        for name in names:
            writer.tree(document.trees[name], expand=False)
        for node_id, target in writer.links:
            root_id, cluster = writer.roots[target]
            writer.edges.append(f'  {node_id} -> {root_id} '
                                f'{_attrs({**_LINK_ATTRS, "lhead": cluster})};')
        rows = stack_rows(document, names, registry)
        for above, below in zip(rows, rows[1:]):
            deepest = max((document.trees[name].root for name in above), key=_depth)
            anchor = writer.ids[_deepest(deepest).path]
            for name in below:
                writer.edges.append(f'  {anchor} -> {writer.roots[name][0]} '
                                    f'{_attrs(_STACK_ATTRS)};')
    header = [f'digraph {quote_id(chosen.name)} {{',
              f'  graph {_attrs(_GRAPH_ATTRS)};',
              f'  node {_attrs(_NODE_ATTRS)};',
              f'  edge {_attrs(_EDGE_ATTRS)};']
    return '\n'.join([*header, *writer.lines, *writer.edges, '}']) + '\n'


def find_renderer() -> Optional[str]:
    """Return the path of a Graphviz layout program (see :data:`RENDERERS`), or None.

    Besides ``PATH``, the scripts directory of the running Python is searched, so a
    virtual environment's ``graphviz-pure`` is found without activating it.
    """
    search = os.pathsep.join(filter(None, (sysconfig.get_path('scripts'),
                                           os.environ.get('PATH', os.defpath))))
    for name in RENDERERS:
        found = shutil.which(name, path=search)
        if found is not None:
            return found
    return None


def output_format(requested: Optional[str], output: Optional[str]) -> str:
    """Return the format to write: the requested one, else from the output's suffix, else svg.

    Raises:
        RenderError: if the output's suffix names no format we write (``tree.pdf``): an
            SVG under that name would mislead whatever opens it.
    """
    if requested:
        return requested
    suffix = os.path.splitext(output or '')[1].lower().lstrip('.')
    if not suffix:
        return 'svg'
    if suffix not in (*FORMATS, 'gv'):
        raise RenderError(f"cannot tell the format from '{output}': name the file .svg, "
                          '.png or .dot, or pass --format svg|png|dot')
    return {'gv': 'dot'}.get(suffix, suffix)


def render(dot: str, fmt: str, *, program: Optional[str] = None,
           timeout: float = 60.0) -> bytes:
    """Render DOT text to ``svg`` or ``png`` with a Graphviz layout program.

    Args:
        dot: the DOT text
        fmt: ``svg`` or ``png``
        program: the layout program (default: :func:`find_renderer`)
        timeout: seconds the layout may take

    Raises:
        RendererMissing: if no layout program is installed.
        RenderError: if the layout program fails.
    """
    if fmt not in ('svg', 'png'):
        raise ValueError(f'cannot render {fmt!r}; formats: svg, png')
    program = program or find_renderer()
    if program is None:
        raise RendererMissing(
            f"rendering {fmt} needs Graphviz's 'dot' (apt install graphviz) or graphviz-pure "
            '(pip install graphviz-pure); use --format dot to get the DOT text')
    try:
        result = subprocess.run([program, f'-T{fmt}'], input=dot.encode('utf-8'),
                                capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RenderError(f'{os.path.basename(program)} failed: {error}') from error
    if result.returncode != 0 or not result.stdout:
        message = result.stderr.decode('utf-8', 'replace').strip()
        raise RenderError(f'{os.path.basename(program)} failed (exit {result.returncode})'
                          + (f': {message}' if message else ''))
    return result.stdout


__all__ = ['FORMATS', 'RenderError', 'RendererMissing', 'find_renderer', 'html_text',
           'node_label', 'output_format', 'quote_id', 'render', 'stack_rows', 'to_dot']
