# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Branch coverage of trees under scenario tests: per node, reached and the outcomes seen.

:class:`CoverageObserver` is a post-tick handler (observe/record.py): from each
:class:`~bt_executive.observe.record.TickRecord` it counts, per node of the node table,
the ticks that reached it (``record.ticked``), the ticks it ended SUCCESS, FAILURE or
RUNNING, and the times it was halted (RUNNING -> INVALID without finishing: a higher
priority took over, a goal cancelled). :class:`Coverage` sums the runs of every scenario
per tree and writes the reports: text, JSON (``bt_executive/coverage/1``) and
Cobertura-style XML (docs/testing.md describes both).
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Callable, Optional
from xml.sax.saxutils import quoteattr

from bt_executive.observe.record import TickRecord
from py_trees.common import Status

#: The outcomes counted per node, in report order.
OUTCOMES = ('SUCCESS', 'FAILURE', 'RUNNING', 'halted')
#: The JSON report's schema name.
SCHEMA = 'bt_executive/coverage/1'


@dataclasses.dataclass
class NodeCount:
    """What one node of a tree did over every scenario run."""

    path: str
    type: str  # noqa: A003 - the node type
    file: str
    line: int
    column: int
    reached: int = 0
    outcomes: dict[str, int] = dataclasses.field(
        default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    def missing(self) -> list[str]:
        """Return the outcomes never seen."""
        return [name for name in OUTCOMES if not self.outcomes[name]]


@dataclasses.dataclass
class TreeCount:
    """The nodes of one tree (a tree file and a tree name), in depth-first order."""

    file: str
    tree: str
    nodes: dict[str, NodeCount] = dataclasses.field(default_factory=dict)
    scenarios: list[str] = dataclasses.field(default_factory=list)

    def reached(self) -> int:
        """Return how many nodes were reached."""
        return sum(1 for node in self.nodes.values() if node.reached)

    def decided(self) -> tuple[int, int]:
        """Return (SUCCESS and FAILURE outcomes seen, 2 x nodes): both ways of each node."""
        seen = sum((node.outcomes['SUCCESS'] > 0) + (node.outcomes['FAILURE'] > 0)
                   for node in self.nodes.values())
        return seen, 2 * len(self.nodes)


class Coverage:
    """Coverage summed over scenario runs, per tree."""

    def __init__(self) -> None:
        self.trees: dict[tuple[str, str], TreeCount] = {}

    def tree(self, loaded: Any, scenario: str) -> TreeCount:
        """Return the counts of a loaded tree, made on first use; note the scenario run."""
        table = loaded.built.nodes
        key = (os.path.abspath(loaded.file), loaded.name)
        count = self.trees.get(key)
        if count is None:
            count = self.trees[key] = TreeCount(file=loaded.file, tree=loaded.name)
            for behaviour, ident, _, _ in _preorder(loaded):
                loc = table.loc(behaviour)
                count.nodes[ident] = NodeCount(
                    path=ident, type=table.type_name(behaviour),
                    file=loc.file if loc is not None else loaded.file,
                    line=loc.line if loc is not None else 0,
                    column=loc.column if loc is not None else 0)
        count.scenarios.append(scenario)
        return count

    def percent(self) -> float:
        """Return the share of nodes reached over all trees, in percent; 100 without nodes."""
        total = sum(len(t.nodes) for t in self.trees.values())
        reached = sum(t.reached() for t in self.trees.values())
        return 100.0 if not total else 100.0 * reached / total

    # ---- reports ----------------------------------------------------------------------

    def text(self, *, outcomes: bool = True) -> str:
        """Return the report for people: what never ran and what was never seen, per tree."""
        lines = []
        for count in self.trees.values():
            total, reached = len(count.nodes), count.reached()
            seen, possible = count.decided()
            lines.append(f'coverage of {count.tree} ({count.file}), {len(count.scenarios)} '
                         f'scenario runs: {reached}/{total} nodes reached '
                         f'({_percent(reached, total)}), SUCCESS and FAILURE seen '
                         f'{seen}/{possible} ({_percent(seen, possible)})')
            never = [node for node in count.nodes.values() if not node.reached]
            if never:
                lines.append('  never reached:')
                lines += [f'    {node.file}:{node.line}:{node.column}  {node.path} '
                          f'({node.type})' for node in never]
            if outcomes:
                partial = [node for node in count.nodes.values()
                           if node.reached and node.missing()]
                if partial:
                    lines.append('  outcomes never seen (of SUCCESS, FAILURE, RUNNING, '
                                 'halted):')
                    lines += [f'    {node.path} ({node.type}): {", ".join(node.missing())}'
                              for node in partial]
        lines.append(f'total: {self.percent():.1f} % of nodes reached')
        return '\n'.join(lines)

    def to_json(self) -> str:
        """Return the JSON report (schema ``bt_executive/coverage/1``, docs/testing.md)."""
        trees = []
        for count in self.trees.values():
            seen, possible = count.decided()
            trees.append({
                'file': count.file, 'tree': count.tree, 'scenarios': count.scenarios,
                'nodes_total': len(count.nodes), 'nodes_reached': count.reached(),
                'outcomes_seen': seen, 'outcomes_total': possible,
                'nodes': [{'path': n.path, 'type': n.type, 'file': n.file, 'line': n.line,
                           'column': n.column, 'reached': n.reached, **n.outcomes}
                          for n in count.nodes.values()]})
        return json.dumps({'schema': SCHEMA, 'percent': round(self.percent(), 3),
                           'trees': trees}, indent=1) + '\n'

    def to_cobertura(self, base: Optional[str] = None) -> str:
        """Return a Cobertura-style XML report: a tree file is a class, a node a line.

        A line's ``hits`` are the ticks that reached the nodes written there (a subtree
        used twice has two nodes per line); its branches are SUCCESS and FAILURE of each.
        File names are relative to ``base`` (default: the current directory), which is the
        report's one ``source``.
        """
        base = os.path.abspath(base or os.getcwd())
        lines_by_file: dict[str, dict[int, list[NodeCount]]] = {}
        packages: dict[str, set[str]] = {}
        for count in self.trees.values():
            for node in count.nodes.values():
                name = os.path.relpath(os.path.abspath(node.file), base)
                lines_by_file.setdefault(name, {}).setdefault(node.line, []).append(node)
                packages.setdefault(count.tree, set()).add(name)
        totals = _rates([n for lines in lines_by_file.values() for ns in lines.values()
                         for n in ns])
        out = ['<?xml version="1.0" ?>',
               '<!DOCTYPE coverage SYSTEM '
               '"http://cobertura.sourceforge.net/xml/coverage-04.dtd">',
               f'<coverage line-rate="{totals[0]}" branch-rate="{totals[1]}" '
               f'lines-covered="{totals[2]}" lines-valid="{totals[3]}" '
               f'branches-covered="{totals[4]}" branches-valid="{totals[5]}" '
               'complexity="0" version="bt_executive" timestamp="0">',
               f'  <sources><source>{_escape(base)}</source></sources>', '  <packages>']
        for package, files in packages.items():
            nodes = [n for name in files for ns in lines_by_file[name].values() for n in ns]
            rates = _rates(nodes)
            out.append(f'    <package name={quoteattr(package)} line-rate="{rates[0]}" '
                       f'branch-rate="{rates[1]}" complexity="0">')
            out.append('      <classes>')
            for name in sorted(files):
                lines = lines_by_file[name]
                rates = _rates([n for ns in lines.values() for n in ns])
                out.append(f'        <class name={quoteattr(name)} filename={quoteattr(name)} '
                           f'line-rate="{rates[0]}" branch-rate="{rates[1]}" '
                           'complexity="0">')
                out.append('          <methods/>')
                out.append('          <lines>')
                for number in sorted(lines):
                    nodes = lines[number]
                    hits = sum(n.reached for n in nodes)
                    covered = sum((n.outcomes['SUCCESS'] > 0) + (n.outcomes['FAILURE'] > 0)
                                  for n in nodes)
                    valid = 2 * len(nodes)
                    out.append(f'            <line number="{number}" hits="{hits}" '
                               f'branch="true" condition-coverage="'
                               f'{_percent(covered, valid, digits=0)} ({covered}/{valid})"/>')
                out.append('          </lines>')
                out.append('        </class>')
            out.append('      </classes>')
            out.append('    </package>')
        out += ['  </packages>', '</coverage>']
        return '\n'.join(out) + '\n'


def _rates(nodes: list[NodeCount]) -> tuple[str, str, int, int, int, int]:
    """Return (line-rate, branch-rate, lines covered, lines, branches covered, branches)."""
    lines: dict[tuple[str, int], bool] = {}
    for node in nodes:
        key = (node.file, node.line)
        lines[key] = lines.get(key, False) or node.reached > 0
    covered = sum(lines.values())
    branches = 2 * len(nodes)
    decided = sum((n.outcomes['SUCCESS'] > 0) + (n.outcomes['FAILURE'] > 0) for n in nodes)
    return (_rate(covered, len(lines)), _rate(decided, branches), covered, len(lines),
            decided, branches)


def _rate(part: int, whole: int) -> str:
    return f'{(part / whole if whole else 1.0):.4f}'


def _percent(part: int, whole: int, digits: int = 1) -> str:
    return f'{(100.0 * part / whole if whole else 100.0):.{digits}f}%'


def _escape(text: str) -> str:
    return text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')


def _preorder(loaded: Any) -> list[tuple[Any, str, Any, int]]:
    """Return the tracker's (behaviour, id, parent id, depth) list: ids as in records."""
    return list(loaded.runner.tracker.order)


class CoverageObserver:
    """Count what each tick of one run did into a :class:`Coverage` (module docstring).

    Args:
        coverage: where the counts go
        loaded: the executive's loaded tree
        scenario: the scenario's id
        skip: returns the behaviours not to count in the tick just observed: those whose
            result a ``substitute:`` rule gave (their own code did not run)
    """

    def __init__(self, coverage: Coverage, loaded: Any, scenario: Any, *,
                 skip: Optional[Callable[[], set[Any]]] = None) -> None:
        self.count = coverage.tree(loaded, getattr(scenario, 'id', str(scenario)))
        self.ids = loaded.runner.tracker.ids
        self.skip = skip

    def on_tick(self, record: TickRecord) -> None:
        """Count the nodes the tick reached, the outcomes and the halts."""
        nodes = self.count.nodes
        seen: set[tuple[str, str]] = set()
        skipped = self.skip() if self.skip is not None else set()
        if skipped:  # counted as seen already: neither reached nor an outcome
            seen = {(self.ids[b], name) for b in skipped if b in self.ids
                    for name in ('', *OUTCOMES)}
        for behaviour in record.ticked:
            ident = self.ids.get(behaviour)
            node = nodes.get(ident) if ident is not None else None
            if node is None:
                continue
            if (ident, '') not in seen:
                seen.add((ident, ''))
                node.reached += 1
            status = behaviour.status
            if status is not Status.INVALID and (ident, status.name) not in seen:
                seen.add((ident, status.name))
                node.outcomes[status.name] += 1
        for change in record.transitions:
            node = nodes.get(change.id)
            if node is None:
                continue
            if change.new is Status.INVALID:
                if change.old is Status.RUNNING and (change.id, 'halted') not in seen:
                    node.outcomes['halted'] += 1
            elif (change.id, change.new.name) not in seen:
                seen.add((change.id, change.new.name))
                node.outcomes[change.new.name] += 1


__all__ = ['Coverage', 'CoverageObserver', 'NodeCount', 'OUTCOMES', 'SCHEMA', 'TreeCount']
