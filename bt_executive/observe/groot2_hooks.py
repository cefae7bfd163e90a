# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Groot2's hooks (breakpoints and replaced results) as requests to the debugger.

No ROS in here. BehaviorTree.CPP 4.x lets a Groot2 client put a *hook* on a node,
named by its uid: before the node ticks (position PRE, ``0``) or after (POST, ``1``),
either stopping there until the client unlocks it (mode BREAKPOINT, ``0``) or giving
the node a status instead (REPLACE, ``1``). :class:`Groot2Hooks` turns each hook request
into calls of the running tree revision's
:class:`~bt_executive.observe.debugger.DebugController` (origin ``groot2``), and lists
the controller's breakpoints and substitutions as hooks, whoever set them:

* PRE BREAKPOINT: a breakpoint before the node starts (``before``);
* POST BREAKPOINT: breakpoints on the node's ``success`` and ``failure`` (the tick ends
  when the node finishes);
* PRE REPLACE with SUCCESS, FAILURE (or RUNNING): a substitution of that status, until
  removed (``once``: for one tick);
* HOOK_REMOVE, REMOVE_ALL_HOOKS, DISABLE_ALL_HOOKS: the rules removed; a tree paused at a
  removed breakpoint goes on (as a BehaviorTree.CPP tree blocked there is woken);
* BREAKPOINT_UNLOCK of the breakpoint the tree is paused at: continue; with
  ``desired_status`` SUCCESS or FAILURE on a PRE breakpoint the node is substituted with
  it for one tick first; ``remove_when_done`` (or the hook's ``once``) removes the
  breakpoint;
* HOOKS_DUMP: the rules as a JSON array of hooks, written as BehaviorTree.CPP writes them.

What does not map is refused with the reason (docs/groot2.md, "Hooks"): a POST REPLACE
hook and a status given when unlocking a POST breakpoint (the node has ticked already).
Each method returns the reply payload or raises
:class:`~bt_executive.observe.debugger.DebugRefused`.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from bt_executive.observe.debugger import DebugController, DebugRefused

#: Who Groot2's requests are from, in the debugger's notes and events.
ORIGIN = 'groot2'
#: ``Hook::Position``: before the node's tick, after it.
PRE, POST = 0, 1
#: ``Hook::Mode``: stop until unlocked, or give the node a status instead of its tick.
BREAKPOINT, REPLACE = 0, 1
#: The breakpoints a POST breakpoint hook stands for: the node finishing.
POST_WHEN = ('success', 'failure')
#: The ``desired_status`` of a hook that replaces nothing (BehaviorTree.CPP's SKIPPED).
NO_STATUS = 'SKIPPED'
#: Statuses a REPLACE hook (or an unlock) may give: BT.CPP's two, and our RUNNING.
REPLACE_STATUSES = ('SUCCESS', 'FAILURE', 'RUNNING')


def hook_json(uid: int, *, position: int, mode: int, desired_status: str = NO_STATUS,
              once: bool = False, enabled: bool = True) -> dict[str, Any]:
    """Return one hook as BehaviorTree.CPP's HOOKS_DUMP lists it."""
    return {'desired_status': desired_status, 'enabled': enabled, 'mode': mode,
            'once': once, 'position': position, 'uid': uid}


def dump_text(hooks: list[dict[str, Any]]) -> bytes:
    """Return hooks as the HOOKS_DUMP payload: compact JSON, keys sorted (as nlohmann's)."""
    return json.dumps(hooks, sort_keys=True, separators=(',', ':')).encode('utf-8')


class Groot2Hooks:
    """Answer Groot2's hook requests with one executive's debugger (see the module docstring).

    Call it from the thread that ticks the tree (it changes the debugger). The uid map
    is the Groot2 server's (:func:`~bt_executive.observe.groot2.tree_uids`), rebuilt when
    the debugger changes (a swap); so is the memory of which breakpoints are ``once``.

    Args:
        uids: returns the uid of every node path of a debugger's tree
    """

    def __init__(self, uids: Any) -> None:
        self._uids_of = uids
        self._debugger: Optional[DebugController] = None
        self._paths: dict[int, str] = {}
        self._uids: dict[str, int] = {}
        #: (node path, position) of the breakpoint hooks inserted with ``once``
        self._once: set[tuple[str, int]] = set()

    def answer(self, debugger: DebugController, kind: str, payload: Optional[bytes]
               ) -> Optional[bytes]:
        """Carry out one request (``hook_insert``, ...); return the reply payload, if any.

        Raises:
            DebugRefused: the request cannot be carried out; nothing was changed.
        """
        self._follow(debugger)
        if kind == 'hooks_dump':
            return dump_text(self.dump(debugger))
        if kind in ('hooks_remove_all', 'disable_hooks'):
            self.remove_all(debugger)
            return None
        if payload is None:
            raise DebugRefused('must be 2 parts message')  # BehaviorTree.CPP's words
        try:
            request = json.loads(payload.decode('utf-8'))
        except ValueError as error:
            raise DebugRefused(f'not a JSON hook: {error}') from None
        if kind == 'hook_insert':
            for hook in request if isinstance(request, list) else [request]:
                self.insert(debugger, _object(hook))
        elif kind == 'hook_remove':
            request = _object(request)
            self.remove(debugger, _uid(request), _position(request))
        elif kind == 'breakpoint_unlock':
            request = _object(request)
            self.unlock(debugger, _uid(request), _position(request),
                        str(request.get('desired_status') or NO_STATUS).upper(),
                        bool(request.get('remove_when_done', False)))
        else:
            raise DebugRefused(f'{kind} is not a hook request')
        return None

    # ---- the requests -------------------------------------------------------------

    def insert(self, debugger: DebugController, hook: dict[str, Any]) -> None:
        """Insert (or replace) the hook at the hook's uid and position."""
        path, position = self._path(_uid(hook)), _position(hook)
        mode = hook.get('mode', BREAKPOINT)
        if mode not in (BREAKPOINT, REPLACE):
            raise DebugRefused(f'hook mode must be 0 (BREAKPOINT) or 1 (REPLACE), got {mode!r}')
        once = bool(hook.get('once', False))
        if not hook.get('enabled', True):  # a disabled hook is not kept: see remove_all
            if self._has(debugger, path, position):
                self.remove(debugger, self._uids[path], position)
            return
        if mode == BREAKPOINT:
            if position == PRE and path in debugger.substitutions:  # one PRE hook a node
                debugger.remove_substitution(path, origin=ORIGIN)
            held = {point.when for point in debugger.breakpoints.get(path, ())}
            for when in ('before',) if position == PRE else POST_WHEN:
                if when not in held:  # kept as it is: the tree may be paused at it
                    debugger.add_breakpoint(path, when=when, origin=ORIGIN)
            (self._once.add if once else self._once.discard)((path, position))
            return
        status = str(hook.get('desired_status') or NO_STATUS).upper()
        if position == POST:
            raise DebugRefused('a POST REPLACE hook (tick the node, then replace its result) '
                               'is not supported: use position 0 (PRE), where the node is '
                               'not ticked and its own work (a goal) does not start')
        if status not in REPLACE_STATUSES:
            raise DebugRefused(f"a REPLACE hook's desired_status must be one of "
                               f"{', '.join(REPLACE_STATUSES)}, got '{status}'")
        debugger.substitute(path, status, ticks=1 if once else None, origin=ORIGIN)
        if self._breakpoint(debugger, path, PRE):  # a breakpoint becomes a replacement
            self._remove_breakpoints(debugger, path, PRE)

    def remove(self, debugger: DebugController, uid: int, position: int) -> None:
        """Remove the hook at ``uid`` and ``position`` (a tree paused there goes on)."""
        path = self._path(uid)
        if not self._has(debugger, path, position):
            raise DebugRefused(f'Node ID not found: no hook at uid {uid} ({path!r}) '
                               f'position {position}')
        if position == PRE and path in debugger.substitutions:
            debugger.remove_substitution(path, origin=ORIGIN)
        self._remove_breakpoints(debugger, path, position)

    def unlock(self, debugger: DebugController, uid: int, position: int, status: str,
               remove: bool) -> None:
        """Go on from the breakpoint at ``uid``/``position`` the tree is paused at."""
        path = self._path(uid)
        if not self._has(debugger, path, position):
            raise DebugRefused(f'Node ID not found: no hook at uid {uid} ({path!r}) '
                               f'position {position}')
        replace = status if status in REPLACE_STATUSES else None
        if not self._breakpoint(debugger, path, position):  # a REPLACE hook: new status
            current = debugger.substitutions[path]
            debugger.substitute(path, replace or current.status.name,
                                ticks=1 if remove else current.ticks, origin=ORIGIN)
            return
        at = debugger.paused_at
        if at is None or at.node != path or _position_of(at.when) != position:
            raise DebugRefused(f"not paused at the breakpoint on uid {uid} ('{path}') "
                               f'position {position}')
        if replace is not None and position == POST:
            raise DebugRefused(f"'{path}' has ticked already (POST): its result cannot be "
                               'replaced; unlock without a desired_status')
        if replace is not None:
            debugger.substitute(path, replace, ticks=1, origin=ORIGIN)
        if remove or (path, position) in self._once:
            self._remove_breakpoints(debugger, path, position)
        else:
            debugger.resume(origin=ORIGIN)

    def remove_all(self, debugger: DebugController) -> None:
        """Remove every breakpoint and substitution; a tree paused at a breakpoint goes on."""
        if debugger.rules():
            debugger.clear(origin=ORIGIN)
        self._once.clear()
        if debugger.paused and debugger.paused_at is not None:
            debugger.resume(origin=ORIGIN)

    def dump(self, debugger: DebugController) -> list[dict[str, Any]]:
        """Return the debugger's breakpoints and substitutions as hooks (PRE ones first)."""
        self._follow(debugger)
        hooks = []
        for path, points in debugger.breakpoints.items():
            for position in {_position_of(point.when) for point in points}:
                hooks.append(hook_json(self._uids[path], position=position, mode=BREAKPOINT,
                                       once=(path, position) in self._once))
        for path, substitution in debugger.substitutions.items():
            hooks.append(hook_json(self._uids[path], position=PRE, mode=REPLACE,
                                   desired_status=substitution.status.name,
                                   once=substitution.ticks == 1))
        return sorted(hooks, key=lambda hook: (hook['position'], hook['uid'], hook['mode']))

    # ---- helpers ------------------------------------------------------------------

    def _follow(self, debugger: DebugController) -> None:
        """Take the uid map of a new debugger's tree (the first request after a swap)."""
        if debugger is self._debugger:
            return
        self._debugger = debugger
        self._uids = dict(self._uids_of(debugger.tree))
        self._paths = {uid: path for path, uid in self._uids.items()}
        self._once.clear()

    def _path(self, uid: int) -> str:
        path = self._paths.get(uid)
        if path is None:
            raise DebugRefused(f'Node ID not found: no node has uid {uid}')
        return path

    def _breakpoint(self, debugger: DebugController, path: str, position: int) -> bool:
        return any(_position_of(point.when) == position
                   for point in debugger.breakpoints.get(path, ()))

    def _has(self, debugger: DebugController, path: str, position: int) -> bool:
        return self._breakpoint(debugger, path, position) or (
            position == PRE and path in debugger.substitutions)

    def _remove_breakpoints(self, debugger: DebugController, path: str,
                            position: int) -> None:
        """Remove the breakpoints of one hook; go on if the tree is paused at one of them."""
        self._once.discard((path, position))
        at = debugger.paused_at
        paused_here = at is not None and at.node == path and _position_of(at.when) == position
        for point in list(debugger.breakpoints.get(path, ())):
            if _position_of(point.when) == position:
                debugger.remove_breakpoint(path, when=point.when, origin=ORIGIN)
        if paused_here and debugger.paused:
            debugger.resume(origin=ORIGIN)


def _position_of(when: str) -> int:
    return PRE if when == 'before' else POST


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DebugRefused(f'a hook must be a JSON object, got {type(value).__name__}')
    return value


def _uid(hook: dict[str, Any]) -> int:
    uid = hook.get('uid')
    if not isinstance(uid, int) or isinstance(uid, bool) or not 0 <= uid <= 0xFFFF:
        raise DebugRefused(f'a hook needs a node uid (0-65535), got {uid!r}')
    return uid


def _position(hook: dict[str, Any]) -> int:
    position = hook.get('position', PRE)
    if position not in (PRE, POST) or isinstance(position, bool):
        raise DebugRefused(f'hook position must be 0 (PRE) or 1 (POST), got {position!r}')
    return int(position)


__all__ = ['BREAKPOINT', 'Groot2Hooks', 'NO_STATUS', 'ORIGIN', 'POST', 'POST_WHEN', 'PRE',
           'REPLACE', 'REPLACE_STATUSES', 'dump_text', 'hook_json']
