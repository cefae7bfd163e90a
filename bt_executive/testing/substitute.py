# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Apply a scenario's substitution rules (``substitute:``) through the live debugger.

A :class:`Substituter` finds the nodes each rule's pattern matches, then drives the
debugger's substitution (:class:`~bt_executive.observe.debugger.DebugController`) between
ticks: the node is not ticked, it takes the rule's result, its own ``initialise()`` and
``update()`` never run (a substituted Action sends no goal). It is a post-tick observer;
per node it keeps the phase of the rule:

- ``delay``: the node is RUNNING (a rule with ``after`` or ``after_ticks``, like BT.CPP's
  ``async_delay``); the delay starts at the first tick of a run and ends ``after``
  simulated seconds later (a scheduled switch that also asks for a tick) or after
  ``after_ticks`` ticks, then the phase is ``result``;
- ``result``: the node takes the rule's status; a run that ends (SUCCESS or FAILURE, or
  every tick of a RUNNING rule) counts towards ``times``;
- ``off``: ``times`` runs were substituted; the node runs for real from the next tick.

A halt of the node in its delay starts the next run afresh. :attr:`Substituter.substituted`
holds the nodes that ticked (or were halted) under a substitution in the last tick:
coverage does not count them as reached (their own code did not run).
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
from typing import Any, Callable

from bt_executive.core.errors import Diagnostic
from bt_executive.observe.debugger import DebugController
from bt_executive.observe.record import TickRecord
from bt_executive.testing.peers import Schedule
from bt_executive.testing.spec import Substitute
import py_trees
from py_trees.common import Status

#: The origin the debugger's notes name ("substituted by scenario: SUCCESS").
ORIGIN = 'scenario'


def matches(pattern: str, path: str) -> bool:
    """Tell whether a rule's glob matches a node path, whole or its end after a '/'."""
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, '*/' + pattern)


@dataclasses.dataclass
class _Target:
    """One node under one rule."""

    path: str
    behaviour: py_trees.behaviour.Behaviour
    rule: Substitute
    phase: str = 'off'
    runs: int = 0
    started: bool = False
    ticks: int = 0
    generation: int = 0


class Substituter:
    """Drive the debugger's substitutions for a scenario's rules (module docstring).

    Args:
        rules: the scenario's rules, the first match applying to a node
        tree: the executive's loaded tree (``built``, ``runner``, ``root``, ``name``)
        debugger: the controller whose substitutions are used
        schedule: the harness's simulated time and its scheduled actions
        request_tick: asks the ticker for a tick (the end of a timed delay)
    """

    def __init__(self, rules: list[Substitute], tree: Any, debugger: DebugController,
                 schedule: Schedule, request_tick: Callable[[], None]) -> None:
        self.rules = rules
        self.tree = tree
        self.debugger = debugger
        self.schedule = schedule
        self.request_tick = request_tick
        self.targets: list[_Target] = []
        #: the behaviours ticked under a substitution in the last tick
        self.substituted: set[py_trees.behaviour.Behaviour] = set()

    def resolve(self) -> list[Diagnostic]:
        """Find each rule's nodes (the first rule matching a node wins); return problems."""
        table = self.tree.built.nodes
        paths = {table.path(b): b for b in self.tree.root.iterate()}
        taken: set[str] = set()
        problems = []
        for rule in self.rules:
            found = [path for path in paths if matches(rule.pattern, path)]
            if not found:
                ends = {path.rsplit('/', 1)[-1]: path for path in paths}
                close = difflib.get_close_matches(rule.pattern, list(paths), n=3, cutoff=0.4)
                close += [ends[end] for end in difflib.get_close_matches(
                    rule.pattern.rsplit('/', 1)[-1], list(ends), n=3) if ends[end] not in close]
                problems.append(Diagnostic(rule.loc, f"{rule.source}: '{rule.pattern}' "
                                           f"matches no node of the tree '{self.tree.name}'"
                                           + (f'; closest: {", ".join(close[:3])}' if close
                                              else '')))
                continue
            for path in found:
                if path not in taken:
                    taken.add(path)
                    self.targets.append(_Target(path, paths[path], rule))
        return problems

    def start(self) -> None:
        """Put the first substitution of every node in place (before the first tick)."""
        for target in self.targets:
            self._begin(target)

    # ---- the observer -------------------------------------------------------------------

    def on_tick(self, record: TickRecord) -> None:
        """Note which nodes ran substituted and move each rule on (module docstring)."""
        if record.stopped:
            return
        ticked = set(record.ticked)
        halted = {c.behaviour for c in record.transitions
                  if c.new is Status.INVALID and c.old is Status.RUNNING}
        self.substituted = set()
        for target in self.targets:
            if target.phase == 'off':
                continue
            if target.behaviour not in ticked:
                if target.phase == 'delay' and target.started and target.behaviour in halted:
                    self.substituted.add(target.behaviour)  # its halt is no outcome of its own
                    self._restart(target)
                continue
            self.substituted.add(target.behaviour)
            rule = target.rule
            if target.phase == 'delay':
                target.ticks += 1
                if not target.started:
                    target.started = True
                    if rule.after is not None:
                        generation = target.generation
                        self.schedule.after(rule.after, lambda t=target, g=generation:
                                            self._delay_over(t, g))
                if rule.after_ticks is not None and target.ticks >= rule.after_ticks:
                    self._result(target)
                continue
            target.runs += 1  # a run ended (or, RUNNING, one more tick of it)
            if rule.times is not None and target.runs >= rule.times:
                target.phase = 'off'
                self.debugger.remove_substitution(target.path, origin=ORIGIN, publish=False)
            elif self._delayed(rule):
                self._begin(target)

    # ---- helpers ------------------------------------------------------------------------

    @staticmethod
    def _delayed(rule: Substitute) -> bool:
        return rule.after is not None or rule.after_ticks is not None

    def _begin(self, target: _Target) -> None:
        """Start a run: RUNNING through the delay, or the result at once."""
        target.started, target.ticks = False, 0
        target.generation += 1
        if self._delayed(target.rule):
            target.phase = 'delay'
            self.debugger.substitute(target.path, 'running', origin=ORIGIN, publish=False)
        else:
            self._result(target)

    def _restart(self, target: _Target) -> None:
        """Start the delay afresh at the next run (the node was halted in its delay)."""
        target.started, target.ticks = False, 0
        target.generation += 1

    def _result(self, target: _Target) -> None:
        target.phase = 'result'
        self.debugger.substitute(target.path, target.rule.status.lower(), origin=ORIGIN,
                                 publish=False)

    def _delay_over(self, target: _Target, generation: int) -> None:
        """End the timed delay of a run (unless the run was halted since)."""
        if target.generation != generation or target.phase != 'delay':
            return
        self._result(target)
        self.request_tick()


__all__ = ['ORIGIN', 'Substituter', 'matches']
