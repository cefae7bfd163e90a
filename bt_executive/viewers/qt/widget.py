# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The "Behavior Tree" widget: a running executive's tree in Qt (rqt's plugin, or alone).

:class:`BehaviorTreeWidget` takes an rclpy node that somebody spins (rqt's
``context.node``; a test's own) and shows, for the executive picked from the ROS graph:

- a picker of the executives in the graph (every node publishing ``<node>/status`` and
  ``<node>/snapshot`` as ``std_msgs/String``: namespaces, a fleet), looked for again every
  :data:`DISCOVERY_PERIOD` seconds and on *Refresh*;
- the live tree (:class:`~bt_executive.viewers.qt.model.TreeModel` in a tree view):
  status colours, reasons, the active branch expanded and bold, from the latched
  ``~/snapshot`` and the ``~/snapshot_delta`` stream; a tree swap (a new revision) builds
  the rows again;
- the why-chain of a FAILURE (or the last failure), the blackboard (``snapshot_keys``,
  and the keys that are unset with why), the last :data:`MAX_TRANSITIONS` transitions
  from ``~/events``;
- *Pause*, *Resume* and *Reset*: the executive's ``~/pause``, ``~/resume`` and
  ``~/reset`` (``std_srvs/Trigger``), their answer shown in the status line.

ROS callbacks run on the spinning thread; they only hand the message text to the Qt
thread (a queued signal), where everything else happens.
"""

from __future__ import annotations

import json
import time
from typing import Any, Optional

from bt_executive.viewers.fleet import find_executives
from bt_executive.viewers.qt.binding import QtCore, QtGui, QtWidgets, Signal
from bt_executive.viewers.qt.model import STATUS_COLOURS, TreeModel

#: Seconds between looks for executives in the ROS graph.
DISCOVERY_PERIOD = 2.0
#: Transitions kept in the list (the newest last).
MAX_TRANSITIONS = 200
#: The executive's services behind the buttons.
CONTROLS = ('pause', 'resume', 'reset')
#: Depth of the ``~/snapshot_delta`` and ``~/events`` subscriptions (what the executive keeps).
HISTORY_DEPTH = 100


class ExecutiveLink(QtCore.QObject):  # type: ignore[misc]
    """One executive's topics and control services on a given rclpy node.

    Args:
        node: an rclpy node somebody spins (rqt's, or the caller's)
        executive: the executive's fully qualified node name (``/robot1/bt_executive``)

    Signals:
        message(kind, text): ``snapshot``, ``snapshot_delta``, ``events`` or ``status``
        answered(service, success, message): a control service answered (or could not)
    """

    message = Signal(str, str)
    answered = Signal(str, bool, str)

    def __init__(self, node: Any, executive: str) -> None:
        super().__init__()
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String
        from std_srvs.srv import Trigger

        self.node, self.executive = node, executive
        self._trigger = Trigger
        self._subscriptions: list[Any] = []
        self._clients: dict[str, Any] = {}

        def latched(depth: int) -> Any:
            return QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.TRANSIENT_LOCAL)

        for kind, depth in (('snapshot', 1), ('snapshot_delta', HISTORY_DEPTH),
                            ('events', HISTORY_DEPTH), ('status', 1)):
            self._subscriptions.append(node.create_subscription(
                String, f'{executive}/{kind}',
                lambda msg, kind=kind: self.message.emit(kind, msg.data), latched(depth)))
        for name in CONTROLS:
            self._clients[name] = node.create_client(Trigger, f'{executive}/{name}')

    def call(self, name: str) -> None:
        """Call the control service ``name``; :attr:`answered` says how it went."""
        client = self._clients[name]
        if not client.service_is_ready():
            self.answered.emit(name, False, f'{self.executive}/{name} is not available')
            return
        future = client.call_async(self._trigger.Request())

        def done(future: Any) -> None:
            try:
                response = future.result()
            except Exception as error:  # noqa: B902 - shown to the user, never raised
                self.answered.emit(name, False, str(error))
                return
            self.answered.emit(name, bool(response.success), str(response.message))

        future.add_done_callback(done)

    def close(self) -> None:
        """Destroy the subscriptions and clients (idempotent)."""
        for subscription in self._subscriptions:
            self.node.destroy_subscription(subscription)
        for client in self._clients.values():
            self.node.destroy_client(client)
        self._subscriptions, self._clients = [], {}


class BehaviorTreeWidget(QtWidgets.QWidget):  # type: ignore[misc]
    """A running executive's live tree, why-chain, blackboard and transitions (see module).

    Args:
        node: an rclpy node somebody spins (rqt's ``context.node``)
        executive: the executive to show (its fully qualified name), whether or not it
            runs yet; default: the first one found in the graph
        discovery_period: seconds between looks for executives (0: only on *Refresh*)
        parent: the Qt parent

    Attributes:
        model: the tree (:class:`~bt_executive.viewers.qt.model.TreeModel`)
        update_seconds: what the last snapshot or delta cost to show (model and panels)
        answers: ``(service, success, message)`` of every control call, oldest first
        status: the last ``~/status`` (parsed), or {}
    """

    def __init__(self, node: Any, *, executive: Optional[str] = None,
                 discovery_period: float = DISCOVERY_PERIOD, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName('BehaviorTreeWidget')
        self.setWindowTitle('Behavior Tree')
        self.node = node
        self.link: Optional[ExecutiveLink] = None
        self.model = TreeModel(self)
        self.update_seconds = 0.0
        self.answers: list[tuple[str, bool, str]] = []
        self.status: dict[str, Any] = {}
        self._wanted = executive
        self._board: Any = None
        self._why: Any = None
        self._build()
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self.discover)
        if discovery_period > 0:
            self._timer.start(int(discovery_period * 1000))
        if executive:  # shown at once: its latched snapshot comes when it runs
            self.show_executive(executive)
        self.discover()

    # ---- layout -------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QtWidgets.QVBoxLayout(self)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel('Executive'))
        self.picker = QtWidgets.QComboBox()
        self.picker.setMinimumContentsLength(24)
        self.picker.activated.connect(lambda index: self.show_executive(
            self.picker.itemText(index)))
        bar.addWidget(self.picker, 1)
        self.refresh_button = QtWidgets.QPushButton('Refresh')
        self.refresh_button.clicked.connect(self.discover)
        bar.addWidget(self.refresh_button)
        self.buttons = {}
        for name in CONTROLS:
            button = QtWidgets.QPushButton(name.capitalize())
            button.setEnabled(False)
            button.clicked.connect(lambda _checked=False, name=name: self.call(name))
            bar.addWidget(button)
            self.buttons[name] = button
        layout.addLayout(bar)
        self.summary = QtWidgets.QLabel('looking for executives...')
        self.summary.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        layout.addWidget(self.summary)

        split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        self.tree_view = QtWidgets.QTreeView()
        self.tree_view.setModel(self.model)
        self.tree_view.setUniformRowHeights(True)  # 1000 rows: no per-row measuring
        self.tree_view.setAlternatingRowColors(True)
        header = self.tree_view.header()
        header.setStretchLastSection(True)
        header.resizeSection(0, 275)
        header.resizeSection(1, 120)
        header.resizeSection(2, 95)
        split.addWidget(self.tree_view)

        side = QtWidgets.QSplitter(QtCore.Qt.Vertical)
        self.why_list = QtWidgets.QListWidget()
        side.addWidget(_titled('Why', self.why_list))
        self.board_table = QtWidgets.QTableWidget(0, 2)
        self.board_table.setHorizontalHeaderLabels(['Key', 'Value'])
        self.board_table.horizontalHeader().setStretchLastSection(True)
        self.board_table.verticalHeader().setVisible(False)
        self.board_table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        side.addWidget(_titled('Blackboard', self.board_table))
        self.transitions = QtWidgets.QListWidget()
        self.transitions.setUniformItemSizes(True)
        side.addWidget(_titled('Recent transitions', self.transitions))
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout.addWidget(split, 1)

    # ---- the executive shown ------------------------------------------------------------

    @property
    def executive(self) -> str:
        """Return the executive shown ('' for none)."""
        return self.link.executive if self.link is not None else ''

    def executives(self) -> list[str]:
        """Return the executives in the picker."""
        return [self.picker.itemText(index) for index in range(self.picker.count())]

    def discover(self) -> list[str]:
        """Look for executives in the ROS graph; show the wanted (or first) one if none is."""
        found = find_executives(self.node.get_topic_names_and_types())
        shown = self.executive
        names = sorted(set(found) | ({shown} if shown else set()))
        if names != self.executives():
            self.picker.blockSignals(True)
            self.picker.clear()
            self.picker.addItems(names)
            if shown:
                self.picker.setCurrentIndex(names.index(shown))
            self.picker.blockSignals(False)
        if not shown and found:
            self.show_executive(self._wanted if self._wanted in found else found[0])
        elif not shown:
            self.summary.setText('no executive in the ROS graph yet (a node publishing '
                                 '<node>/status and <node>/snapshot)')
        return found

    def show_executive(self, executive: str) -> None:
        """Show ``executive`` (its fully qualified name) instead of the one shown."""
        if executive == self.executive:
            return
        self.close_link()
        self._wanted = executive
        if executive not in self.executives():
            self.picker.addItem(executive)
        self.picker.setCurrentIndex(self.executives().index(executive))
        self.model.forget()
        self.status, self._board, self._why = {}, None, None
        self.why_list.clear()
        self.board_table.setRowCount(0)
        self.transitions.clear()
        self.summary.setText(f'{executive}: waiting for its snapshot...')
        self.link = ExecutiveLink(self.node, executive)
        self.link.message.connect(self._on_message)
        self.link.answered.connect(self._on_answer)
        for button in self.buttons.values():
            button.setEnabled(True)

    def close_link(self) -> None:
        """Stop listening to the executive shown (rqt's shutdown_plugin calls it)."""
        if self.link is not None:
            link, self.link = self.link, None
            link.message.disconnect(self._on_message)
            link.answered.disconnect(self._on_answer)
            link.close()
        for button in self.buttons.values():
            button.setEnabled(False)

    def shutdown(self) -> None:
        """Stop the discovery timer and the link."""
        self._timer.stop()
        self.close_link()

    def call(self, name: str) -> None:
        """Call the executive's ``~/<name>`` (pause, resume, reset)."""
        if self.link is not None:
            self.link.call(name)

    # ---- messages (Qt thread) -----------------------------------------------------------

    def _on_message(self, kind: str, text: str) -> None:
        if kind in ('snapshot', 'snapshot_delta'):
            started = time.perf_counter()
            if self.model.feed_text(text):
                self._refresh()
            self.update_seconds = time.perf_counter() - started
        elif kind == 'events':
            self._add_transitions(text)
        elif kind == 'status':
            try:
                status = json.loads(text)
            except ValueError:
                return
            if isinstance(status, dict):
                self.status = status
                self._summarise()

    def _on_answer(self, name: str, success: bool, message: str) -> None:
        self.answers.append((name, success, message))
        self._summarise(f'{name}: {"done" if success else "refused"}'
                        + (f' ({message})' if message else ''))

    def _refresh(self) -> None:
        snapshot = self.model.snapshot
        assert snapshot is not None
        if self.model.rebuilt:
            self.tree_view.expandToDepth(0)
        for ident in self.model.active:
            self.tree_view.expand(self.model.index_of(ident))
        board = (snapshot.get('blackboard'), snapshot.get('unset'))
        if board != self._board:
            self._board = board
            self._fill_board(board[0] or {}, board[1] or {})
        why = (snapshot.get('why'), snapshot.get('last_failure'))
        if why != self._why:
            self._why = why
            self._fill_why(why[0] or [], why[1])
        self._summarise()

    def _summarise(self, note: str = '') -> None:
        snapshot = self.model.snapshot
        if snapshot is None:
            return
        executive = snapshot.get('executive') or {}
        parts = [f"{snapshot.get('tree')}", f"root {snapshot.get('root_status')}",
                 f"tick {(snapshot.get('tick') or {}).get('count')}",
                 f"revision {snapshot.get('revision')}"]
        if executive.get('paused'):
            parts.append('PAUSED')
        if executive.get('terminated'):
            parts.append(f"terminated: {executive['terminated']}")
        if self.model.state.waiting:
            parts.append(f'behind: {self.model.state.waiting}')
        if note:
            parts.append(note)
        self.summary.setText(f'{self.executive}   ' + ' · '.join(parts))

    def _fill_board(self, values: dict[str, Any], unset: dict[str, Any]) -> None:
        keys = sorted({*values, *unset})
        self.board_table.setRowCount(len(keys))
        for row, key in enumerate(keys):
            if key in values:
                value = json.dumps(values[key], separators=(', ', ': '))
            else:
                value = f'(unset{": " + str(unset[key]) if unset[key] else ""})'
            for column, text in enumerate((key, value)):
                item = QtWidgets.QTableWidgetItem(text)
                item.setToolTip(text)
                self.board_table.setItem(row, column, item)

    def _fill_why(self, why: list[dict[str, Any]], last: Optional[dict[str, Any]]) -> None:
        self.why_list.clear()
        red = QtGui.QBrush(QtGui.QColor(STATUS_COLOURS['FAILURE']))
        if why:
            for depth, step in enumerate(why):
                item = QtWidgets.QListWidgetItem(
                    '  ' * depth + str(step.get('id', '')).rsplit('/', 1)[-1]
                    + (f": {step['reason']}" if step.get('reason') else ''))
                item.setToolTip(str(step.get('id', '')))
                item.setForeground(red)
                self.why_list.addItem(item)
        elif last:
            self.why_list.addItem(f"last failure (tick {last.get('tick')}): "
                                  f"{last.get('reason')}")
        else:
            self.why_list.addItem('(the root has not failed)')

    def _add_transitions(self, text: str) -> None:
        try:
            batch = json.loads(text)
            events = batch.get('events') or []
        except (ValueError, AttributeError):
            return
        brushes = {status: QtGui.QBrush(QtGui.QColor(colour))
                   for status, colour in STATUS_COLOURS.items()}
        for event in events[-MAX_TRANSITIONS:]:
            line = (f"#{event.get('tick')} {str(event.get('id', '')).rsplit('/', 1)[-1]}: "
                    f"{event.get('from')} \u2192 {event.get('to')}")
            if event.get('reason'):
                line += f": {event['reason']}"
            item = QtWidgets.QListWidgetItem(line)
            item.setToolTip(str(event.get('id', '')))
            brush = brushes.get(str(event.get('to')))
            if brush is not None:
                item.setForeground(brush)
            self.transitions.addItem(item)
        extra = self.transitions.count() - MAX_TRANSITIONS
        for _ in range(max(extra, 0)):
            self.transitions.takeItem(0)
        self.transitions.scrollToBottom()

    # ---- what a test asks ---------------------------------------------------------------

    def why_lines(self) -> list[str]:
        """Return the lines of the why panel."""
        return [self.why_list.item(i).text() for i in range(self.why_list.count())]

    def board_rows(self) -> dict[str, str]:
        """Return the blackboard panel as key -> value text."""
        return {self.board_table.item(row, 0).text(): self.board_table.item(row, 1).text()
                for row in range(self.board_table.rowCount())}

    def transition_lines(self) -> list[str]:
        """Return the lines of the transitions panel, oldest first."""
        return [self.transitions.item(i).text() for i in range(self.transitions.count())]

    def is_expanded(self, ident: str) -> bool:
        """Tell whether a node's row is expanded in the tree view."""
        return bool(self.tree_view.isExpanded(self.model.index_of(ident)))


def _titled(title: str, widget: Any) -> Any:
    box = QtWidgets.QGroupBox(title)
    layout = QtWidgets.QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(widget)
    return box


__all__ = ['BehaviorTreeWidget', 'CONTROLS', 'DISCOVERY_PERIOD', 'ExecutiveLink',
           'HISTORY_DEPTH', 'MAX_TRANSITIONS']
