# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view --mutation mutation.json``: a mutation report over the tree.

The web page of the live view (:mod:`bt_executive.viewers.webview`) shows one tree of a
report written by ``bt-executive test --mutate --mutation-json PATH`` (schema
``bt_executive/mutation/1``, docs/testing.md) as a still snapshot: the tree is loaded
from the report's file and built offline (nothing runs), and each node shows the
mutants made of it:

============  ===================================================================
FAILURE       at least one of its mutants survived; the node's text lists them
              (number, operator, the change), the Why panel lists every survivor
SUCCESS       every mutant of it was killed (or marked equivalent)
INVALID       no mutant was made of it (or none drawn, with ``--mutate-limit``)
============  ===================================================================

The snapshot carries a ``mutation`` section (the score and counts) that the page reads
to title the Why panel "Surviving mutants" and to say "mutation report" where the live
view says "live".
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Optional

from bt_executive.core.errors import TreeError
from bt_executive.viewers.serving import serve_until_signal, ServedPage
from bt_executive.viewers.webview import DEFAULT_HOST, DEFAULT_PORT, SnapshotHub, ViewServer

#: The report schema read (``bt_executive.testing.mutation.SCHEMA``).
REPORT_SCHEMA = 'bt_executive/mutation/1'
#: Mutants listed in a node's text; the rest are counted.
SHOWN_PER_NODE = 3
_CAUGHT = ('killed', 'timeout', 'equivalent')


class ReportError(ValueError):
    """The report cannot be shown: unreadable, another schema, or its tree is gone."""


def read_report(path: str) -> dict[str, Any]:
    """Read and check a mutation report.

    Raises:
        ReportError: saying what is wrong with the file.
    """
    try:
        with open(path, encoding='utf-8') as stream:
            data = json.load(stream)
    except OSError as error:
        raise ReportError(f'{path}: cannot read: {error.strerror or error}') from None
    except ValueError as error:
        raise ReportError(f'{path}: not JSON: {error}') from None
    if not isinstance(data, dict) or data.get('schema') != REPORT_SCHEMA:
        found = data.get('schema') if isinstance(data, dict) else type(data).__name__
        raise ReportError(f'{path}: expected a mutation report (schema {REPORT_SCHEMA}, '
                          f'from bt-executive test --mutate --mutation-json), found '
                          f'schema {found!r}')
    trees = data.get('trees')
    if not isinstance(trees, list) or not trees or not all(
            isinstance(tree, dict) and isinstance(tree.get('mutants'), list)
            and isinstance(tree.get('file'), str) and isinstance(tree.get('tree'), str)
            for tree in trees):
        raise ReportError(f"{path}: 'trees' must be a non-empty list of trees, each with "
                          "'file', 'tree' and 'mutants'")
    return data


def choose_tree(data: dict[str, Any], name: Optional[str], path: str) -> dict[str, Any]:
    """Return the report's tree called ``name`` (None: the first one).

    Raises:
        ReportError: no tree of that name (the names there are listed).
    """
    trees = data['trees']
    if name is None:
        return trees[0]
    for tree in trees:
        if tree['tree'] == name:
            return tree
    raise ReportError(f'{path}: no tree {name!r} in the report (it has '
                      f"{', '.join(repr(tree['tree']) for tree in trees)})")


def _describe(mutant: dict[str, Any]) -> str:
    change = f"{mutant.get('before', '')} -> {mutant.get('after', '')}".strip()
    return f"#{mutant.get('number')} {mutant.get('operator')}: {change}"


def mark_nodes(snapshot: dict[str, Any], tree: dict[str, Any]) -> dict[str, Any]:
    """Put the report's mutants on the nodes of a snapshot of its tree (in place).

    A mutant names its node by its path in the tree that defines it (``Patrol/root``,
    ``Navigate/drive``); the snapshot's ids are paths through the calls
    (``Patrol/root/.../go to dock/Navigate/drive``), so a mutant of a called tree is shown
    on every call of it. One whose node is not in the tree (the file changed since the
    run) is counted in ``mutation.unplaced``.
    """
    ids = [node['id'] for node in snapshot['nodes']]
    by_node: dict[str, list[dict[str, Any]]] = {}
    unplaced = 0
    for mutant in tree['mutants']:
        path = str(mutant.get('node', ''))
        places = [ident for ident in ids if ident == path or ident.endswith('/' + path)]
        for ident in places:
            by_node.setdefault(ident, []).append(mutant)
        unplaced += not places
    state: dict[str, dict[str, str]] = {}
    why: list[dict[str, str]] = []
    for node in snapshot['nodes']:
        ident = node['id']
        mutants = by_node.get(ident, [])
        survived = [m for m in mutants if m.get('outcome') == 'survived']
        if survived:
            shown = '; '.join(_describe(m) for m in survived[:SHOWN_PER_NODE])
            more = len(survived) - SHOWN_PER_NODE
            text = (f"{len(survived)} of {len(mutants)} mutant{'s' if len(mutants) > 1 else ''}"
                    f' survived: {shown}'
                    + (f' (and {more} more)' if more > 0 else ''))
            state[ident] = {'status': 'FAILURE', 'feedback': text}
            why.extend({'id': ident, 'reason': f'{_describe(m)} survived'} for m in survived)
        elif mutants:
            caught = sum(m.get('outcome') in _CAUGHT for m in mutants)
            state[ident] = {'status': 'SUCCESS', 'feedback': (
                f"{len(mutants)} mutant{'s' if len(mutants) > 1 else ''}, {caught} caught")}
        else:
            state[ident] = {'status': 'INVALID', 'feedback': ''}
    counts = tree.get('counts') if isinstance(tree.get('counts'), dict) else {}
    snapshot.update({
        'state': state,
        'root_status': state[snapshot['root']]['status'],
        'why': why,
        'active_path': [],
        'last_failure': None,
        'mutation': {'score': tree.get('score'), 'counts': counts,
                     'mutants': len(tree['mutants']), 'generated': tree.get('generated'),
                     'survived': sum(m.get('outcome') == 'survived'
                                     for m in tree['mutants']),
                     'unplaced': unplaced},
        'executive': {'running': True, 'mode': 'mutation report'},
    })
    return snapshot


def tree_snapshot(file: str, tree_name: str) -> dict[str, Any]:
    """Return a snapshot of ``tree_name`` of ``file``, built offline, nothing ticked.

    Raises:
        TreeError: the file does not load or the tree does not build.
    """
    import py_trees

    from bt_executive.core.builder import BuildContext, Builder
    from bt_executive.core.loader import Loader
    from bt_executive.nodes.plugins import installed_registry
    from bt_executive.observe.record import StatusTracker
    from bt_executive.observe.snapshot import SnapshotBuilder
    registry = installed_registry(offline=True)
    document = Loader(registry).load(file)
    py_trees.blackboard.Blackboard.clear()
    built = Builder(BuildContext(registry=registry, document=document)).build(tree_name)
    snapshotter = SnapshotBuilder(StatusTracker(built), tree_name=tree_name,
                                  source_file=os.path.basename(file), revision=0,
                                  document=document)
    return snapshotter.full()


def report_snapshot(path: str, tree_name: Optional[str] = None) -> dict[str, Any]:
    """Return the snapshot the page shows for the report ``path``.

    The report's tree file is read relative to the current folder first (as the run
    wrote it), then relative to the report's folder.

    Raises:
        ReportError: as :func:`read_report`, :func:`choose_tree`, or the tree file is gone.
        TreeError: the tree file no longer loads.
    """
    data = read_report(path)
    tree = choose_tree(data, tree_name, path)
    file = tree['file']
    if not os.path.isabs(file) and not os.path.exists(file):
        beside = os.path.join(os.path.dirname(os.path.abspath(path)), file)
        file = beside if os.path.exists(beside) else file
    if not os.path.exists(file):
        raise ReportError(f"{path}: the tree file {tree['file']!r} of tree {tree['tree']!r} "
                          'is not there (run from the folder the report was written in)')
    return mark_nodes(tree_snapshot(file, tree['tree']), tree)


class ReportView(ServedPage):
    """The report's page served until Ctrl-C: no ROS listener, one still snapshot."""

    def _listen(self) -> Any:
        return None

    def _end_streams(self) -> None:
        self.server.hub.close()


def serve(path: str, *, tree: Optional[str] = None, host: str = DEFAULT_HOST,
          port: int = DEFAULT_PORT, verbose: bool = False) -> ViewServer:
    """Return a view server showing the report ``path`` (not yet serving).

    Raises:
        ReportError, TreeError: as :func:`report_snapshot`.
        OSError: the address cannot be bound.
    """
    from bt_executive.observe.snapshot import to_json
    snapshot = report_snapshot(path, tree)
    hub = SnapshotHub()
    hub.put_snapshot(to_json(snapshot))
    return ViewServer((host, port), hub, verbose=verbose,
                      topic=f'mutation report {os.path.basename(path)}')


def run(path: str, *, tree: Optional[str] = None, host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT, verbose: bool = False,
        out: Callable[[str], None] = print) -> int:
    """Serve the report until SIGINT or SIGTERM; return the exit status."""
    try:
        server = serve(path, tree=tree, host=host, port=port, verbose=verbose)
    except ReportError as error:
        print(f'bt-executive view: {error}', file=sys.stderr)
        return 1
    except TreeError as error:
        print(f'bt-executive view: {path}: its tree no longer loads:\n{error}',
              file=sys.stderr)
        return 1
    except OSError as error:
        print(f'bt-executive view: cannot listen on {host}:{port}: {error}', file=sys.stderr)
        return 1
    mutation = json.loads(server.hub.latest() or '{}').get('mutation', {})
    view = ReportView(host, server, 'bt-executive-mutation-http')
    return serve_until_signal(
        view, tool='bt-executive view', host=host, exposed='the tree and its mutants',
        banner=lambda: f'bt-executive view: {view.url}  (mutation report {path}: score '
                       f"{mutation.get('score')} %, {mutation.get('survived')} of "
                       f"{mutation.get('mutants')} mutants survived; Ctrl-C to stop)",
        out=out)


__all__ = ['REPORT_SCHEMA', 'ReportError', 'ReportView', 'choose_tree', 'mark_nodes',
           'read_report', 'report_snapshot', 'run', 'serve', 'tree_snapshot']
