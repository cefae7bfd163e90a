# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Check a scenario's expectations at each step of a run, and say why one failed.

``at: t`` is checked at the step at time t (the state after everything due at t, the
tick included); ``by: t`` passes at the first step up to t where it holds; ``during:
[a, b]`` must hold at every step from a to b; without a time it is checked at the end. A
failure names the expectation (file:line:col), the time and tick, what was found, the
running branch and the why-chain of failures below the node (or the root). A scenario
with ``stop_at_first_failure`` (a mutation run's) ends at its first failure:
:class:`FirstFailure`, which the harness reports as the scenario's error.
"""

from __future__ import annotations

from typing import Any

from bt_executive.core.errors import Diagnostic
from bt_executive.observe.snapshot import active_path, failure_chain
from bt_executive.ros import interfaces
from bt_executive.testing.peers import field, subset
from bt_executive.testing.spec import Expectation, Scenario, seconds
import py_trees
from py_trees.common import Status

_MISSING = object()


class FirstFailure(RuntimeError):
    """An expectation failed in a scenario that stops there (``stop_at_first_failure``).

    The run ends at once, as a scenario that could not go on: its error is the failure.
    """


def _plain(value: Any) -> Any:
    if hasattr(value, 'get_fields_and_field_types'):
        return interfaces.to_dict(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _show(value: Any) -> str:
    if value is _MISSING:
        return 'unset'
    text = repr(_plain(value))
    return text if len(text) <= 200 else text[:197] + '...'


class Checker:
    """The expectations of one run (see the module docstring).

    Args:
        scenario: the scenario
        tree: the executive's loaded tree
        run: the run (``records(kind, name)``, ``tick_count()``, ``executive``)
    """

    def __init__(self, scenario: Scenario, tree: Any, run: Any) -> None:
        self.scenario = scenario
        self.tree = tree
        self.run = run
        self.failures: list[str] = []
        self._done: set[int] = set()
        self._nodes: dict[tuple[int, str], Any] = {}
        self._last: dict[int, str] = {}

    def follow(self, tree: Any) -> None:
        """Check the status expectations on ``tree`` from now on (an operator's swap).

        A node the new tree does not have is a failure of the scenario.
        """
        self.tree = tree
        self._nodes = {}
        for problem in self.resolve():
            self.failures.append(f'{problem.location}: after the swap to '
                                 f"'{tree.name}': {problem.message}")

    # ---- before the run ---------------------------------------------------------------

    def resolve(self) -> list[Diagnostic]:
        """Find the nodes the status expectations name; return the problems."""
        problems = []
        table = self.tree.built.nodes
        paths = {table.path(b): b for b in self.tree.root.iterate()}
        for number, item in enumerate(self.scenario.expectations):
            if item.kind != 'status':
                continue
            for name in item.values:
                found = [path for path in paths
                         if path == name or path.endswith('/' + name)]
                exact = [path for path in found if path == name]
                if exact:
                    found = exact
                if len(found) == 1:
                    self._nodes[(number, name)] = paths[found[0]]
                    continue
                loc = item.value_locs.get(name, item.loc)
                if not found:
                    problems.append(Diagnostic(loc, f"status: no node '{name}' in the tree "
                                               f"'{self.tree.name}' (a node path, or its end "
                                               "after a '/')"))
                else:
                    problems.append(Diagnostic(loc, f"status: '{name}' names "
                                               f'{len(found)} nodes: '
                                               f'{", ".join(sorted(found)[:4])}; write more '
                                               'of the path'))
        return problems

    def published_types(self, problems: list[Diagnostic]) -> dict[str, type]:
        """Return topic -> message class for the ``published`` expectations (from the graph).

        Adds to ``problems`` each topic nothing publishes and each key of ``fields`` that
        names no field of the topic's type.
        """
        node = self.run.executive
        types: dict[str, type] = {}
        for item in self.scenario.expectations:
            if item.kind != 'published':
                continue
            if item.name not in types:
                topic = node.resolve_topic_name(item.name)
                infos = node.get_publishers_info_by_topic(topic)
                if not infos:
                    problems.append(Diagnostic(
                        item.loc, f"published: nothing publishes '{topic}' (the tree's "
                        'publishers exist once it is loaded)'))
                    continue
                types[item.name] = interfaces.resolve(infos[0].topic_type, kind='msg')
            if item.fields:
                problems += [Diagnostic(item.loc, str(problem)) for problem in
                             interfaces.check_field_paths(types[item.name], item.fields,
                                                          path='fields')]
        return types

    def times(self) -> set[int]:
        """Return the times at which expectations must be looked at."""
        marks = set()
        for item in self.scenario.expectations:
            marks.update(when for when in item.when[1:])
        return marks

    # ---- during the run -----------------------------------------------------------------

    def step(self, now: int, *, last: bool) -> None:
        """Check the expectations due at this step; ``last`` is the end of the scenario."""
        for number, item in enumerate(self.scenario.expectations):
            if number in self._done:
                continue
            kind = item.when[0]
            if kind == 'at' and now < item.when[1] or kind == 'end' and not last:
                continue
            if kind == 'during' and now < item.when[1]:
                continue
            ok, found = self._check(number, item, now)
            self._last[number] = found
            if kind == 'by':
                if ok:
                    self._done.add(number)
                elif now >= item.when[1] or last:
                    self._fail(number, item, now, found)
                continue
            if kind == 'during':
                if not ok:
                    self._fail(number, item, now, found)
                elif now >= item.when[2] or last:
                    self._done.add(number)
                continue
            if not ok:
                self._fail(number, item, now, found)
            else:
                self._done.add(number)
        if self.failures and self.scenario.stop_at_first_failure:
            raise FirstFailure(self.failures[0])

    def _check(self, number: int, item: Expectation, now: int) -> tuple[bool, str]:
        if item.kind == 'status':
            wrong = []
            for name, status in item.values.items():
                behaviour = self._nodes.get((number, name))
                if behaviour is None:  # not in a tree swapped in (reported at the swap)
                    wrong.append(f'{name} is not in the tree')
                elif behaviour.status.name != status:
                    wrong.append(f'{self.tree.built.nodes.path(behaviour)} is '
                                 f'{behaviour.status.name}')
            return not wrong, '; '.join(wrong)
        if item.kind == 'blackboard':
            wrong = []
            for key, expected in item.values.items():
                value = _blackboard(key)
                if value is _MISSING or not subset(expected, _plain(value)):
                    wrong.append(f'{key} is {_show(value)}')
            return not wrong, '; '.join(wrong)
        return self._check_records(item, now)

    def _check_records(self, item: Expectation, now: int) -> tuple[bool, str]:
        what = {'goal': 'goals', 'call': 'calls', 'published': 'messages'}[item.kind]
        records = [r for r in self.run.records(item.kind, item.name) if r.time <= now]

        def fits(record: Any) -> bool:
            if item.fields is not None and not subset(item.fields, record.fields):
                return False
            if item.cancelled is not None and (record.cancelled is not None
                                               and record.cancelled <= now) != item.cancelled:
                return False
            return True
        if item.index is not None:
            if item.index >= len(records):
                return False, (f'{len(records)} {what} on {item.name} so far, so no '
                               f'#{item.index}' + _listing(records, item))
            record = records[item.index]
            return fits(record), f'#{item.index} was {_describe(record, item)}'
        matching = [record for record in records if fits(record)]
        if item.count is None:
            return bool(matching), f'none of {len(records)} {what} on {item.name} fits' + \
                _listing(records, item)
        low, high = item.count
        ok = low <= len(matching) and (high is None or len(matching) <= high)
        return ok, f'{len(matching)} of {len(records)} {what} on {item.name} fit' + \
            _listing(records, item)

    def _fail(self, number: int, item: Expectation, now: int, found: str) -> None:
        self._done.add(number)
        checked = 'checked at the end' if item.when[0] == 'end' else \
            f'checked {item.when[0]} {_times(item)}'
        record = self.run.last_record
        tick = f'tick {record.tick}' if record is not None else 'no tick yet'
        lines = [f'{item.loc}: expectation failed at t={seconds(now):.3f} s ({tick}, '
                 f'{checked})',
                 f'  expected: {item.text}',
                 f'  found:    {found}']
        lines += ['  ' + line for line in self.why(number, item)]
        self.failures.append('\n'.join(lines))

    def why(self, number: int, item: Expectation) -> list[str]:
        """Return the running branch and the why-chain, for a failure message."""
        table = self.tree.built.nodes
        root = self.tree.root
        lines = []
        branch = active_path(root, ident=table.path)
        if branch:
            deepest = self.tree.built.by_path(branch[-1])
            reason = f' ({deepest.feedback_message})' if deepest.feedback_message else ''
            lines.append('running branch: ' + ' > '.join(_short(branch)) + reason)
        else:
            lines.append(f'root {root.status.name}: nothing is running')
        starts = [self._nodes[(number, name)] for name in item.values
                  if (number, name) in self._nodes] or [root]
        for start in starts:
            if start.status is Status.INVALID:
                lines += self._unreached(start)
            chain = failure_chain(start, ident=table.path)
            if chain:
                lines.append('why: ' + ' <- '.join(
                    f'{path.rsplit("/", 1)[-1]}' + (f': {reason}' if reason else '')
                    for path, reason in reversed(chain)))
        last = self.run.executive.last_failure
        if last:
            lines.append(f'last failure: {last}')
        return lines

    def _unreached(self, behaviour: Any) -> list[str]:
        """Say why a node was not ticked: where its nearest live ancestor stopped."""
        table = self.tree.built.nodes
        child, parent = behaviour, behaviour.parent
        while parent is not None and parent.status is Status.INVALID:
            child, parent = parent, parent.parent
        if parent is None:
            return [f'{table.path(behaviour)} was not ticked: the tree has not run']
        children = list(parent.children)
        live = [c for c in children if c.status is not Status.INVALID]
        where = f'{table.path(parent)} ({table.type_name(parent)}) is {parent.status.name}'
        if live:
            last = live[-1]
            where += (f' at its child {children.index(last) + 1} '
                      f"'{last.name}' ({last.status.name})")
        return [f'{table.path(behaviour)} was not ticked: {where}; '
                f"'{child.name}' is its child {children.index(child) + 1}"]


def _short(branch: list[str]) -> list[str]:
    """Return the branch with each node after the first as its last path element."""
    return branch[:1] + [path.rsplit('/', 1)[-1] for path in branch[1:]]


def _times(item: Expectation) -> str:
    if item.when[0] == 'during':
        return f'{seconds(item.when[1]):g}..{seconds(item.when[2]):g} s'
    if item.when[0] == 'end':
        return ''
    return f'{seconds(item.when[1]):g} s'


def _describe(record: Any, item: Expectation) -> str:
    fields = record.fields
    if item.fields is not None:
        fields = {key: field(record.fields, key)[1] for key in _leaves(item.fields)}
    cancelled = '' if record.cancelled is None else \
        f', cancelled at {seconds(record.cancelled):.3f} s'
    return f'{fields} at {seconds(record.time):.3f} s{cancelled}'


def _listing(records: list[Any], item: Expectation, limit: int = 6) -> str:
    if not records:
        return ''
    shown = [f'#{r.index} {_describe(r, item)}' for r in records[-limit:]]
    more = f' (and {len(records) - limit} earlier)' if len(records) > limit else ''
    return ':\n    ' + '\n    '.join(shown) + more


def _leaves(data: dict[str, Any], prefix: str = '') -> list[str]:
    keys = []
    for key, value in data.items():
        path = f'{prefix}{key}'
        if isinstance(value, dict) and value:
            keys += _leaves(value, path + '.')
        else:
            keys.append(path)
    return keys


def _blackboard(key: str) -> Any:
    head, _, rest = key.lstrip('/').partition('.')
    storage = py_trees.blackboard.Blackboard.storage
    if '/' + head not in storage:
        return _MISSING
    value = storage['/' + head]
    if not rest:
        return value
    found, inner = field(_plain(value), rest)
    return inner if found else _MISSING


__all__ = ['Checker', 'FirstFailure']
