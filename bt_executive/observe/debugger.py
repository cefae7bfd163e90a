# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Debug a live tree: breakpoints, pause/step/continue, substituted results, blackboard edits.

A :class:`DebugController` belongs to one tree revision (one built tree and its
:class:`~bt_executive.observe.runner.TreeRunner`); the executive makes a new one on every
swap, so breakpoints and substitutions die with the revision they were set on. No ROS in
here: the executive's ``~/debug/...`` services (bt_executive/ros/debug_services.py) and
any other front end call the methods below; each method returns a sentence for the
operator or raises :class:`DebugRefused` with the reason.

How it works: a node with a breakpoint or a substitution gets a :class:`NodeHook` (as an
instance attribute replacing ``tick``, the way the fault guard wraps a node); nodes
without one run untouched, so a tree without breakpoints costs nothing extra.

- **Breakpoint before a node**: when the tick reaches the node while it is not running
  (it is about to start) and the optional blackboard condition holds, the tick ends
  there, before the node's ``initialise()`` (an Action sends no goal), by raising
  :class:`~bt_executive.observe.runner.TickPaused`. A running node is not stopped at
  each of its ticks (a ``running`` status breakpoint does that).
- **Breakpoint on a status**: the tick ends right after a tick of the node that left it
  with that status.
- **Policy** of a breakpoint (and of an operator's pause): ``halt`` (the default) halts
  the tree as ``~/pause`` does, so the goals running at servers are cancelled; ``run``
  leaves the tree as it stands and its goals running while nothing ticks.
- **Paused**: :meth:`DebugController.may_tick` tells the ticking code whether to tick.
  :meth:`~DebugController.step` allows exactly one tick, :meth:`~DebugController.resume`
  ticks on until the next breakpoint; either passes the breakpoint it stopped at once
  (else a halted tree, restarting from its root, would stop there again at once).
- **Substitution**: the node is not ticked; it takes the given status (its feedback
  says who substituted it) without its ``initialise()`` or ``update()`` running, so a
  substituted Action sends no goal. If the node was running its own work, it is halted
  first (its goal cancelled). Once, for N ticks, or until removed.
- **Blackboard edits**: a value in YAML, parsed as ``--set`` parses it, checked against
  the type of the value the key holds.

Every request and every hit is a :class:`DebugNote` in the next tick record (``debug``),
with its origin (``operator``, ``web``, ``breakpoint``, ``swap``...): the snapshot model
turns them into ``~/events`` entries, so recordings and replays show them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterator, MutableMapping, NamedTuple, Optional

from bt_executive.core.errors import TreeError
from bt_executive.core.expressions import EvaluationError, Expression, ExpressionError, parse
from bt_executive.core.table import BuiltTree
from bt_executive.core.yaml_source import load_value
from bt_executive.observe.runner import TickPaused, TreeRunner
import py_trees
from py_trees.common import Status

#: Where a breakpoint stops: before the node starts, or after a tick ending in a status.
WHEN = ('before', 'success', 'failure', 'running')

#: What a pause does to the goals running at servers: halt the tree, or let them run.
POLICIES = ('halt', 'run')

#: The statuses a node's result may be substituted with.
SUBSTITUTES = ('success', 'failure', 'running')

_KEY = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')


class DebugRefused(ValueError):
    """A debug request that was refused; the message says why."""


class DebugNote(NamedTuple):
    """One debug action, carried by the next tick record (``TickRecord.debug``).

    Attributes:
        kind: ``breakpoint``, ``breakpoint_removed``, ``substitute``,
            ``substitution_removed``, ``substitution_ended``, ``hit``, ``pause``, ``step``,
            ``continue``, ``set``, ``cleared``
        node: the node path it concerns ('' for the whole tree)
        origin: who did it (``operator``, a viewer's name, ``breakpoint``, ``swap``)
        text: what happened, for a person
    """

    kind: str
    node: str
    origin: str
    text: str


@dataclasses.dataclass
class Breakpoint:
    """A breakpoint on one node.

    Attributes:
        node: the node path
        when: one of :data:`WHEN`
        condition: a blackboard expression that must hold (None: always)
        policy: one of :data:`POLICIES`
        origin: who set it
    """

    node: str
    when: str = 'before'
    condition: Optional[Expression] = None
    policy: str = 'halt'
    origin: str = 'operator'

    def describe(self) -> dict[str, Any]:
        """Return it as JSON data."""
        return {'node': self.node, 'when': self.when, 'policy': self.policy,
                'condition': self.condition.text if self.condition is not None else '',
                'origin': self.origin}


@dataclasses.dataclass
class Substitution:
    """A substituted result of one node.

    Attributes:
        node: the node path
        status: the status the node takes instead of ticking
        ticks: how many ticks it applies (None: until removed)
        used: ticks it has applied so far
        origin: who set it
    """

    node: str
    status: Status
    ticks: Optional[int] = None
    used: int = 0
    origin: str = 'operator'

    def describe(self) -> dict[str, Any]:
        """Return it as JSON data."""
        return {'node': self.node, 'status': self.status.name, 'ticks': self.ticks,
                'used': self.used, 'origin': self.origin}


class NodeHook:
    """Replace one behaviour's ``tick`` while it has a breakpoint or a substitution.

    Args:
        behaviour: the behaviour
        controller: the controller whose rules apply
    """

    def __init__(self, behaviour: py_trees.behaviour.Behaviour,
                 controller: DebugController) -> None:
        self.behaviour = behaviour
        self.controller = controller
        self.original = behaviour.tick
        behaviour.tick = self.tick  # type: ignore[method-assign]

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick the behaviour under the controller's rules (see the module docstring)."""
        controller = self.controller
        behaviour = self.behaviour
        if behaviour.status is not Status.RUNNING:  # about to start: initialise() next
            controller.check(behaviour, 'before')
        substitution = controller.substitution_of(behaviour)
        if substitution is not None:
            yield from controller.substitute_tick(behaviour, substitution)
        else:
            controller.unfake(behaviour)
            yield from self.original()
        if behaviour.status is not Status.INVALID:
            controller.check(behaviour, behaviour.status.name.lower())

    def remove(self) -> None:
        """Give the behaviour its own tick back (if nothing wrapped this hook since)."""
        if self.behaviour.tick == self.tick:
            self.behaviour.tick = self.original  # type: ignore[method-assign]


class DebugController:
    """The debugger of one tree revision (see the module docstring).

    Args:
        tree: the built tree
        runner: its runner (debug notes go into its records)
        lookup: reads a root blackboard key for conditions (KeyError when unset)
        storage: returns the blackboard storage (``/key -> value``) for edits
        revision: the tree revision, named in notes
    """

    def __init__(self, tree: BuiltTree, runner: TreeRunner, *,
                 lookup: Callable[[str], Any],
                 storage: Callable[[], MutableMapping[str, Any]],
                 revision: int = 0) -> None:
        self.tree = tree
        self.runner = runner
        self.lookup = lookup
        self.storage = storage
        self.revision = revision
        self.breakpoints: dict[str, list[Breakpoint]] = {}
        self.substitutions: dict[str, Substitution] = {}
        self.paused = False
        #: the breakpoint the tree is paused at (None: paused by a request, or running)
        self.paused_at: Optional[Breakpoint] = None
        #: bumped on every change of what :meth:`state` returns
        self.version = 0
        self._hooks: dict[str, NodeHook] = {}
        self._steps = 0
        self._passed: Optional[Breakpoint] = None
        self._faked: set[py_trees.behaviour.Behaviour] = set()

    # ---- requests ------------------------------------------------------------------

    def add_breakpoint(self, node: str, *, when: str = 'before', condition: str = '',
                       policy: str = 'halt', origin: str = 'operator') -> str:
        """Set a breakpoint on ``node`` (replacing one of the same ``when``)."""
        behaviour = self._node(node)
        when = when.lower() or 'before'
        if when not in WHEN:
            raise DebugRefused(f"when must be one of {', '.join(WHEN)}, got '{when}'")
        policy = policy.lower() or 'halt'
        if policy not in POLICIES:
            raise DebugRefused(f"policy must be one of {', '.join(POLICIES)}, got '{policy}'")
        expression = None
        if condition.strip():
            try:
                expression = parse(condition)
            except (ExpressionError, TypeError) as error:
                raise DebugRefused(f'condition: {error}') from None
        point = Breakpoint(node, when, expression, policy, origin)
        points = [p for p in self.breakpoints.get(node, []) if p.when != when]
        self.breakpoints[node] = points + [point]
        self._hook(node, behaviour)
        where = 'before it starts' if when == 'before' else f'when it ticks {when.upper()}'
        text = f"breakpoint on '{node}' {where}"
        if expression is not None:
            text += f' if {expression.text}'
        return self._note('breakpoint', node, origin, f'{text} (policy {policy})')

    def remove_breakpoint(self, node: str, *, when: str = '', origin: str = 'operator') -> str:
        """Remove the breakpoints of ``node`` (only the one of ``when``, if given)."""
        points = self.breakpoints.get(node, [])
        kept = [p for p in points if when and p.when != when.lower()]
        if len(kept) == len(points):
            raise DebugRefused(f"no breakpoint on '{node}'" + (f' ({when})' if when else ''))
        if kept:
            self.breakpoints[node] = kept
        else:
            del self.breakpoints[node]
        self._unhook(node)
        return self._note('breakpoint_removed', node, origin,
                          f"breakpoint on '{node}' removed")

    def substitute(self, node: str, status: str, *, ticks: Optional[int] = None,
                   origin: str = 'operator', publish: bool = True) -> str:
        """Substitute ``node``'s result with ``status`` for ``ticks`` ticks (None: no end).

        ``publish`` False: the note waits for the next tick record (a caller between
        ticks that publishes nothing itself, e.g. the scenario harness's observer).
        """
        behaviour = self._node(node)
        name = status.lower()
        if name not in SUBSTITUTES:
            raise DebugRefused(f"status must be one of {', '.join(SUBSTITUTES)}, got "
                               f"'{status}'")
        if ticks is not None and ticks < 1:
            raise DebugRefused(f'ticks must be 1 or more (or none: until removed), got {ticks}')
        self.substitutions[node] = Substitution(node, Status[name.upper()], ticks,
                                                origin=origin)
        self._hook(node, behaviour)
        span = 'until removed' if ticks is None else 'once' if ticks == 1 else \
            f'for {ticks} ticks'
        return self._note('substitute', node, origin,
                          f"'{node}' substituted by {origin}: {name.upper()} {span}",
                          publish=publish)

    def remove_substitution(self, node: str, *, origin: str = 'operator',
                            publish: bool = True) -> str:
        """Remove the substitution of ``node`` (it ticks itself again from the next tick)."""
        if self.substitutions.pop(node, None) is None:
            raise DebugRefused(f"no substitution on '{node}'")
        self._unhook(node)
        return self._note('substitution_removed', node, origin,
                          f"substitution of '{node}' removed", publish=publish)

    def clear(self, *, origin: str = 'operator') -> str:
        """Remove every breakpoint and substitution (a pause stays)."""
        count = self._clear()
        return self._note('cleared', '', origin, f'{count} breakpoints and substitutions '
                          'removed')

    def pause(self, *, policy: str = 'halt', origin: str = 'operator') -> str:
        """Stop ticking (``policy`` halt: halt the tree, cancelling its goals)."""
        if self.paused:
            raise DebugRefused('already paused')
        policy = policy.lower() or 'halt'
        if policy not in POLICIES:
            raise DebugRefused(f"policy must be one of {', '.join(POLICIES)}, got '{policy}'")
        self.paused, self.paused_at, self._steps = True, None, 0
        text = self._note('pause', '', origin, f'paused by {origin} (policy {policy})',
                          publish=False)
        if policy == 'halt':
            self.runner.stop()
        else:
            self.runner.observe()
        return text

    def step(self, *, origin: str = 'operator') -> str:
        """Allow exactly one more tick while paused (it passes the breakpoint paused at)."""
        if not self.paused:
            raise DebugRefused('not paused: pause first, or set a breakpoint')
        self._steps += 1
        if self.paused_at is not None:  # kept until the node is reached (after a step too)
            self._passed = self.paused_at
        return self._note('step', '', origin, f'one tick stepped by {origin}')

    def resume(self, *, origin: str = 'operator') -> str:
        """Tick on until the next breakpoint (passing the one paused at once)."""
        if not self.paused:
            raise DebugRefused('not paused')
        self.paused, self._steps = False, 0
        if self.paused_at is not None:
            self._passed = self.paused_at
        self.paused_at = None
        return self._note('continue', '', origin, f'continued by {origin}')

    def set_key(self, key: str, text: str, *, origin: str = 'operator') -> str:
        """Set the root blackboard key ``key`` to the YAML value ``text`` (type-checked)."""
        if not _KEY.match(key):
            raise DebugRefused(f"key must be a root blackboard key (letters, digits, '_'), "
                               f"got '{key}'")
        try:
            value = load_value(text, f'value of {key}')
        except TreeError as error:
            raise DebugRefused(str(error)) from None
        storage = self.storage()
        if '/' + key in storage:
            value = _typed(key, storage['/' + key], value)
        storage['/' + key] = value
        return self._note('set', '', origin, f'{key} = {text.strip()} set by {origin}')

    # ---- the ticking code ----------------------------------------------------------

    def may_tick(self) -> bool:
        """Tell whether the tree may tick now (and count a step)."""
        if not self.paused:
            return True
        if self._steps > 0:
            self._steps -= 1
            self.paused_at = None  # paused after the step, unless a breakpoint stops it
            self.version += 1
            return True
        return False

    def state(self) -> dict[str, Any]:
        """Return the debugger's state as JSON data (for snapshots and ~/debug/state)."""
        return {
            'revision': self.revision,
            'paused': self.paused,
            'paused_at': self.paused_at.describe() if self.paused_at is not None else None,
            'breakpoints': [p.describe() for points in self.breakpoints.values()
                            for p in points],
            'substitutions': [s.describe() for s in self.substitutions.values()],
        }

    def rules(self) -> int:
        """Return how many breakpoints and substitutions are set."""
        return sum(map(len, self.breakpoints.values())) + len(self.substitutions)

    def close(self) -> None:
        """Remove every hook (the tree revision ends)."""
        for hook in self._hooks.values():
            hook.remove()
        self._hooks.clear()

    # ---- the hooks' side -----------------------------------------------------------

    def check(self, behaviour: py_trees.behaviour.Behaviour, when: str) -> None:
        """Pause the tick here if a breakpoint of ``behaviour`` for ``when`` applies."""
        for point in self.breakpoints.get(self.tree.nodes.path(behaviour), ()):
            if point.when != when or not self._holds(point):
                continue
            if self._passed is point:  # the step or continue from this breakpoint
                self._passed = None
                continue
            self.paused, self.paused_at, self._steps = True, point, 0
            self._passed = None
            where = 'before' if when == 'before' else f'after {when.upper()} of'
            self._note('hit', point.node, 'breakpoint', f'paused at breakpoint {where} '
                       f"'{point.node}' (policy {point.policy})", publish=False)
            raise TickPaused(halt=point.policy == 'halt')

    def substitution_of(self, behaviour: py_trees.behaviour.Behaviour
                        ) -> Optional[Substitution]:
        """Return the substitution applying to ``behaviour`` (None: it ticks itself)."""
        return self.substitutions.get(self.tree.nodes.path(behaviour))

    def substitute_tick(self, behaviour: py_trees.behaviour.Behaviour,
                        substitution: Substitution) -> Iterator[py_trees.behaviour.Behaviour]:
        """Give ``behaviour`` the substituted status without its own work; yield it."""
        if behaviour.status is Status.RUNNING and behaviour not in self._faked:
            behaviour.stop(Status.INVALID)  # its own work was running: halt it first
        behaviour.status = substitution.status
        behaviour.feedback_message = (f'substituted by {substitution.origin}: '
                                      f'{substitution.status.name}')
        if substitution.status is Status.RUNNING:
            self._faked.add(behaviour)
        else:
            self._faked.discard(behaviour)
        substitution.used += 1
        self.version += 1
        if substitution.ticks is not None and substitution.used >= substitution.ticks:
            del self.substitutions[substitution.node]
            self._unhook(substitution.node)
            self._note('substitution_ended', substitution.node, substitution.origin,
                       f"substitution of '{substitution.node}' ended after "
                       f'{substitution.used} ticks', publish=False)
        yield behaviour

    def unfake(self, behaviour: py_trees.behaviour.Behaviour) -> None:
        """Before a formerly substituted RUNNING node ticks itself: let it start afresh."""
        if behaviour in self._faked:
            self._faked.discard(behaviour)
            if behaviour.status is Status.RUNNING:
                behaviour.status = Status.INVALID  # never initialised: initialise() runs

    # ---- helpers -------------------------------------------------------------------

    def _node(self, path: str) -> py_trees.behaviour.Behaviour:
        try:
            return self.tree.by_path(path)
        except KeyError:
            raise DebugRefused(f"no node '{path}' in tree '{self.tree.name}' (revision "
                               f'{self.revision})') from None

    def _hook(self, path: str, behaviour: py_trees.behaviour.Behaviour) -> None:
        if path not in self._hooks:
            self._hooks[path] = NodeHook(behaviour, self)

    def _unhook(self, path: str) -> None:
        if path in self.breakpoints or path in self.substitutions:
            return
        hook = self._hooks.pop(path, None)
        if hook is not None:
            if hook.behaviour in self._faked and hook.behaviour.status is Status.RUNNING:
                hook.behaviour.status = Status.INVALID
            self._faked.discard(hook.behaviour)
            hook.remove()

    def _holds(self, point: Breakpoint) -> bool:
        if point.condition is None:
            return True
        try:
            return bool(point.condition.evaluate(self.lookup))
        except EvaluationError:
            return False  # e.g. a key not set yet: the condition does not hold

    def _clear(self) -> int:
        count = self.rules()
        self.breakpoints.clear()
        self.substitutions.clear()
        for path in list(self._hooks):
            self._unhook(path)
        return count

    def _note(self, kind: str, node: str, origin: str, text: str, *,
              publish: bool = True) -> str:
        """Put a note into the next record; ``publish``: hand it out now (between ticks)."""
        self.version += 1
        self.runner.notes.append(DebugNote(kind, node, origin, text))
        if publish:
            self.runner.observe()
        return text


def _typed(key: str, old: Any, new: Any) -> Any:
    """Return ``new`` if it fits the type of ``old`` (an int for a float becomes a float)."""
    if old is None or type(new) is type(old):
        return new
    if isinstance(old, float) and type(new) is int:
        return float(new)
    kinds = {bool: 'a boolean', int: 'a whole number', float: 'a number', str: 'a string',
             list: 'a list', dict: 'a mapping', type(None): 'null'}
    held = kinds.get(type(old), f'a {type(old).__name__}')
    if type(old) not in kinds:
        raise DebugRefused(f'{key} holds {held}, which cannot be set from a YAML value')
    raise DebugRefused(f'{key} holds {held}; {new!r} is {kinds.get(type(new), "another type")}')


__all__ = ['Breakpoint', 'DebugController', 'DebugNote', 'DebugRefused', 'NodeHook',
           'POLICIES', 'SUBSTITUTES', 'Substitution', 'WHEN']
