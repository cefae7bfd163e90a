# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Groot2's hooks mapped onto the debugger (bt_executive.observe.groot2_hooks), without ROS.

The requests are the JSON payloads Groot2 sends (groot2_protocol.h's ``Hook``); the
tree is test_debugger's: ``count`` adds one to ``n`` each time it runs, ``busy`` runs.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from bt_executive.formats.btcpp import uid_map
from bt_executive.observe.debugger import DebugController, DebugRefused
from bt_executive.observe.groot2_hooks import Groot2Hooks
from bt_executive.observe.runner import TreeRunner
import pytest
from test_debugger import BUSY, clean_blackboard, COUNT, debugger, n, tick  # noqa: F401

I, R, U, D, A, X = ('hook_insert', 'hook_remove', 'breakpoint_unlock', 'hooks_dump',
                    'hooks_remove_all', 'disable_hooks')


class Groot2:
    """Send hook requests to a debugger as the Groot2 server hands them over."""

    def __init__(self) -> None:
        self.runner, self.debugger = debugger()
        self.hooks = Groot2Hooks(uid_map)
        self.uids = uid_map(self.runner.tree)

    def send(self, kind: str, payload: Any = None) -> Optional[bytes]:
        text = None if payload is None else json.dumps(payload).encode()
        return self.hooks.answer(self.debugger, kind, text)

    def hook(self, path: str, *, position: int = 0, mode: int = 0, status: str = 'SKIPPED',
             once: bool = False, enabled: bool = True) -> dict[str, Any]:
        return {'enabled': enabled, 'uid': self.uids[path], 'mode': mode, 'once': once,
                'desired_status': status, 'position': position}

    def unlock(self, path: str, *, position: int = 0, status: str = 'SKIPPED',
               remove: bool = False) -> Optional[bytes]:
        return self.send(U, {'uid': self.uids[path], 'position': position,
                             'desired_status': status, 'remove_when_done': remove})

    def dump(self) -> list[dict[str, Any]]:
        return json.loads(self.send(D) or b'')

    def tick(self) -> Any:
        return tick(self.runner, self.debugger)


@pytest.fixture
def groot2() -> Groot2:
    return Groot2()


def test_a_post_breakpoint_stops_when_the_node_finishes(groot2):
    groot2.send(I, groot2.hook(COUNT, position=1))
    assert {p.when for p in groot2.debugger.breakpoints[COUNT]} == {'success', 'failure'}
    groot2.tick()
    assert groot2.debugger.paused_at.when == 'success' and n() == 1
    with pytest.raises(DebugRefused, match='POST'):  # it has ticked: no replacement
        groot2.unlock(COUNT, position=1, status='FAILURE')
    groot2.unlock(COUNT, position=1)
    assert not groot2.debugger.paused
    assert groot2.dump() == [groot2.hook(COUNT, position=1)]


def test_once_and_remove_when_done_remove_the_breakpoint_at_the_unlock(groot2):
    groot2.send(I, [groot2.hook(COUNT, once=True), groot2.hook(BUSY, position=1)])
    assert [h['once'] for h in groot2.dump()] == [True, False]
    groot2.tick()
    assert groot2.debugger.paused_at.node == COUNT and n() == 0
    groot2.unlock(COUNT)
    assert COUNT not in groot2.debugger.breakpoints and not groot2.debugger.paused
    groot2.tick()
    assert n() == 1


def test_an_unlock_with_a_status_substitutes_the_node_for_one_tick(groot2):
    groot2.send(I, groot2.hook(COUNT))
    groot2.tick()
    groot2.unlock(COUNT, status='FAILURE')
    record = groot2.tick()
    assert record is not None and n() == 0, 'count replaced: it did not run'
    assert groot2.runner.tree.by_path(COUNT).status.name == 'FAILURE'
    assert COUNT not in groot2.debugger.substitutions  # for that one tick


def test_a_breakpoint_turned_into_a_replacement_goes_on(groot2):
    groot2.send(I, groot2.hook(COUNT))
    groot2.tick()
    assert groot2.debugger.paused
    groot2.send(I, groot2.hook(COUNT, mode=1, status='SUCCESS'))
    assert not groot2.debugger.paused and COUNT not in groot2.debugger.breakpoints
    groot2.tick()
    assert n() == 0
    assert groot2.dump() == [groot2.hook(COUNT, mode=1, status='SUCCESS')]
    groot2.send(I, groot2.hook(COUNT, enabled=False))  # a disabled hook: removed
    assert groot2.dump() == []


@pytest.mark.parametrize('kind', [A, X])
def test_remove_all_and_disable_all_clear_and_go_on(groot2, kind):
    groot2.debugger.add_breakpoint(BUSY, when='running')  # set on ~/debug: listed too
    groot2.send(I, groot2.hook(COUNT))
    assert len(groot2.dump()) == 2
    groot2.tick()
    groot2.send(kind)
    assert groot2.dump() == [] and not groot2.debugger.paused


def test_a_pause_asked_for_elsewhere_stays_after_remove_all(groot2):
    groot2.debugger.pause()
    groot2.send(A)
    assert groot2.debugger.paused


@pytest.mark.parametrize('kind, payload, reason', [
    (I, {'uid': 999, 'position': 0, 'mode': 0}, 'no node has uid 999'),
    (I, {'uid': 1, 'position': 2, 'mode': 0}, 'position'),
    (I, {'uid': 1, 'position': 0, 'mode': 3}, 'mode'),
    (I, ['not a hook'], 'JSON object'),
    (R, {'uid': 1, 'position': 0}, 'no hook'),
    (U, {'uid': 1, 'position': 0, 'desired_status': 'SKIPPED', 'remove_when_done': False},
     'no hook'),
    (I, None, '2 parts'),
])
def test_refused_requests_change_nothing(groot2, kind, payload, reason):
    version = groot2.debugger.version
    with pytest.raises(DebugRefused, match=reason):
        groot2.send(kind, payload)
    assert groot2.debugger.version == version and groot2.dump() == []


def test_a_new_debugger_forgets_the_old_ones_hooks():
    first = Groot2()
    first.send(I, first.hook(COUNT, once=True))
    runner = TreeRunner(first.runner.tree)
    other = DebugController(first.runner.tree, runner, lookup=lambda key: None,
                            storage=dict)
    assert first.hooks.answer(other, D, None) == b'[]'
