# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The "Behavior Tree" Qt widget (the rqt plugin's), offscreen, on real executives.

PyQt5 from PyPI on Qt's ``offscreen`` platform (no display). The widget gets a node spun
on a thread (``ros_node``), as rqt gives the plugin ``context.node``; the executives are
real subprocesses and the tree comes over their real ``~/snapshot`` and
``~/snapshot_delta`` stream. Checked on the model, on the panels and on a grabbed image:
a 1000-node tree whose every node changes in one delta (pause halts them all), a small
tree through reset, a swap and its why-chain, and the patrol of a two-robot fleet (the
picker lists both; the screenshot docs/rqt_plugin.png is this test's, kept in
``$BT_EXECUTIVE_SCREENSHOTS`` when set).
"""

from __future__ import annotations

import json
import os
import pathlib
import time
from typing import Any, Callable, Iterator

from devtools import TIMEOUT
from helpers import set_tree_file, SpawnedProcess
import pytest
from test_webview import CLI, EXECUTIVE, FIRST_TREE, SECOND_TREE, unique, write_tree

pytestmark = pytest.mark.ros

#: Seconds an executive subprocess may take to start and be seen (a loaded machine).
START_TIMEOUT = 90.0
#: Sequences of eight leaves under one Parallel: 1 + 111 * (1 + 8) = 1000 nodes.
BRANCHES = 111


def big_tree() -> str:
    """Return a 1000-node tree that runs forever (each branch ends in a Running leaf)."""
    lines = ['trees:', '  Big:', '    Parallel all:', '      success: all', '      children:']
    for branch in range(BRANCHES):
        lines.append(f'        - Sequence s{branch}:')
        lines += [f'            - Success ok{branch}_{leaf}:' for leaf in range(7)]
        lines.append(f'            - Running busy{branch}:')
    return '\n'.join(lines) + '\n'


@pytest.fixture(scope='module')
def qt_app() -> Any:
    """Return the QApplication (offscreen unless QT_QPA_PLATFORM says otherwise)."""
    os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
    binding = pytest.importorskip('bt_executive.viewers.qt.binding',
                                  reason='needs PyQt5 (requirements.txt) or rqt')
    app = binding.QtWidgets.QApplication.instance() or binding.QtWidgets.QApplication([])
    return app


def pump(app: Any, predicate: Callable[[], Any], message: Any,
         timeout: float = TIMEOUT) -> Any:
    """Run Qt's event loop until ``predicate`` is true; fail saying ``message`` after timeout.

    ``message`` may be a callable: what it returns then, when the time is up.
    """
    deadline = time.monotonic() + timeout
    while True:
        app.processEvents()
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            said = message() if callable(message) else message
            raise AssertionError(f'timed out after {timeout}s waiting for {said}')
        time.sleep(0.02)


@pytest.fixture
def widget_on(qt_app: Any, ros_node: Any) -> Iterator[Callable[..., Any]]:
    """Make BehaviorTreeWidgets on ``ros_node``; shut them down before the node goes."""
    from bt_executive.viewers.qt.widget import BehaviorTreeWidget

    made: list[Any] = []

    def make(**options: Any) -> Any:
        widget = BehaviorTreeWidget(ros_node, **options)
        widget.resize(1280, 760)
        widget.show()
        made.append(widget)
        return widget

    yield make
    for widget in made:
        widget.shutdown()
        widget.close()
        widget.deleteLater()
    qt_app.processEvents()


def colours_in(image: Any) -> set[str]:
    """Return the colours of an image's pixels (every 2nd pixel of every 2nd row)."""
    from bt_executive.viewers.qt.binding import QtGui

    seen = set()
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            seen.add(QtGui.QColor(image.pixel(x, y)).name())
    return seen


def test_a_1000_node_delta_updates_only_the_rows_and_fast(
        spawn: Callable[..., SpawnedProcess], widget_on, qt_app, tmp_path):
    namespace = unique('rqtbig')
    tree = tmp_path / 'big.yaml'
    tree.write_text(big_tree())
    spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}', '-p', f'tree_file:={tree}',
          '-p', 'tick_rate:=5.0')
    executive = f'/{namespace}/bt_executive'
    widget = widget_on(executive=executive, discovery_period=0.5)
    model = widget.model
    pump(qt_app, lambda: executive in widget.executives() and model.snapshot is not None
         and (model.snapshot['tick'] or {}).get('count', 0) > 0, 'the big tree ticking',
         timeout=START_TIMEOUT)
    assert len(model.ids()) == 1000
    busy = 'Big/all/s7/busy7'
    assert model.row_of(busy)['status'] == 'RUNNING'
    assert model.row_of(busy)['colour'] == '#1565c0'
    assert model.row_of('Big/all/s7/ok7_3')['status'] == 'SUCCESS'
    # the active branch (the first RUNNING child at each level) expanded and bold
    assert model.active == ['Big/all', 'Big/all/s0', 'Big/all/s0/busy0']
    assert widget.is_expanded('Big/all') and widget.is_expanded('Big/all/s0')
    assert not widget.is_expanded('Big/all/s7')
    assert all(model.row_of(ident)['bold'] for ident in model.active)

    # pause halts every node: one delta that changes all 1000 rows
    widget.buttons['pause'].click()
    pump(qt_app, lambda: model.row_of(busy)['status'] == 'INVALID', 'the paused tree')
    pump(qt_app, lambda: ('pause', True) in [answer[:2] for answer in widget.answers],
         'the answer of ~/pause')
    assert len(model.changed) == 1000, len(model.changed)
    assert model.state.gaps == 0 and not model.errors
    paused_cost = widget.update_seconds
    assert 'PAUSED' in widget.summary.text()
    assert not model.row_of('Big/all')['bold'] and model.active == []
    widget.buttons['resume'].click()
    pump(qt_app, lambda: model.row_of(busy)['status'] == 'RUNNING', 'the resumed tree')
    resumed_cost = widget.update_seconds
    # a delta of the 1000 rows: model, panels and expanding the active branch
    print(f'\n1000-node delta shown in {paused_cost * 1e3:.1f} ms (pause), '
          f'{resumed_cost * 1e3:.1f} ms (resume)')
    # (some tens of ms on an idle machine; the bound leaves room for a loaded one)
    assert max(paused_cost, resumed_cost) < 1.0, (paused_cost, resumed_cost)


def test_the_small_tree_its_panels_reset_and_a_swap(spawn, widget_on, qt_app, ros_node,
                                                    tmp_path):
    namespace = unique('rqtsmall')
    tree = write_tree(tmp_path, 'first.yaml', FIRST_TREE)
    spawn(EXECUTIVE, '--ros-args', '-r', f'__ns:=/{namespace}', '-p', f'tree_file:={tree}',
          '-p', 'tick_rate:=20.0', '-p', 'snapshot_keys:=[x, mode, missing, battery]')
    executive = f'/{namespace}/bt_executive'
    widget = widget_on(discovery_period=0.5)
    pump(qt_app, lambda: executive in widget.discover(), 'the executive in the graph',
         timeout=START_TIMEOUT)
    widget.show_executive(executive)
    model = widget.model
    pump(qt_app, lambda: model.snapshot and model.snapshot['tick']['count'] > 0,
         'the first tree ticking')
    assert model.row_of('Main/root/checks/too small') == {
        'name': 'too small', 'type': 'Condition', 'status': 'FAILURE',
        'reason': 'x > 1 is false', 'bold': False, 'colour': '#c62828'}
    assert model.active == ['Main/root', 'Main/root/work', 'Main/root/work/keep going']
    assert all(widget.is_expanded(ident) for ident in model.active[:-1])
    assert widget.board_rows() == {'x': '0', 'mode': '"patrol"', 'missing': '(unset)',
                                   'battery': '(unset)'}
    assert widget.why_lines() == ['(the root has not failed)']

    # reset: the tree starts again, its first transitions come again
    widget.buttons['reset'].click()
    pump(qt_app, lambda: ('reset', True) in [answer[:2] for answer in widget.answers],
         'the answer of ~/reset')
    pump(qt_app, lambda: any('keep going: INVALID \u2192 RUNNING' in line
                             for line in widget.transition_lines()),
         lambda: f'the transitions after the reset: {widget.transition_lines()[-5:]}')

    second = write_tree(tmp_path, 'second.yaml', SECOND_TREE)
    result = set_tree_file(ros_node, f'/{namespace}', str(second),
                           lambda done, message: pump(qt_app, done, message))
    assert result.successful, result.reason
    pump(qt_app, lambda: model.snapshot and model.snapshot['tree'] == 'Docked',
         'the swapped tree')
    assert model.ids() == ['Docked/mission', 'Docked/mission/battery ok',
                           'Docked/mission/drive']
    pump(qt_app, lambda: len(widget.why_lines()) == 2,
         lambda: f'the why-chain: {widget.why_lines()}, {model.snapshot.get("why")}')
    assert widget.why_lines() == ["mission: 'battery ok' failed: battery > 0.2 is false",
                                  '  battery ok: battery > 0.2 is false']
    assert model.row_of('Docked/mission')['status'] == 'FAILURE'
    assert widget.board_rows()['battery'] == '0.1'
    assert 'Docked' in widget.summary.text() and 'revision 2' in widget.summary.text()
    image = widget.grab().toImage()
    assert (image.width(), image.height()) == (1280, 760)
    assert '#c62828' in colours_in(image)  # the FAILURE rows, and the why-chain
    widget.close_link()
    assert widget.executive == '' and not widget.buttons['pause'].isEnabled()


@pytest.mark.slow
def test_the_patrol_of_a_fleet_in_the_widget(spawn, widget_on, qt_app, tmp_path):
    spawn(CLI, 'demo', '--robots', '2', '--laps', '1000', '--timeout', '600', grace=30.0)
    robots = ['/robot1/bt_executive', '/robot2/bt_executive']
    widget = widget_on(executive=robots[1], discovery_period=0.5)
    pump(qt_app, lambda: all(name in widget.executives() for name in robots),
         'both robots in the picker', timeout=START_TIMEOUT)
    model = widget.model
    assert widget.executive == robots[1]  # the one asked for
    widget.show_executive(robots[0])
    pump(qt_app, lambda: model.snapshot and model.snapshot['tree'] == 'Patrol'
         and model.snapshot['tick']['count'] > 0 and len(model.active) > 3,
         'robot1 patrolling', timeout=START_TIMEOUT)
    pump(qt_app, lambda: all(widget.is_expanded(ident) for ident in model.active[:-1]),
         'the active branch expanded')
    pump(qt_app, lambda: len(widget.transition_lines()) > 5, 'transitions')
    assert 'battery' in ' '.join(widget.board_rows()) or widget.board_rows() == {}
    leaf = model.active[-1]
    assert model.row_of(leaf)['status'] == 'RUNNING' and model.row_of(leaf)['bold']
    image = widget.grab().toImage()
    assert '#1565c0' in colours_in(image)  # the RUNNING branch
    folder = os.environ.get('BT_EXECUTIVE_SCREENSHOTS')
    path = pathlib.Path(folder) if folder else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    assert image.save(str(path / 'rqt_plugin.png'))
    assert json.dumps(model.snapshot)  # the state is plain JSON throughout
