# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""One executive's live tree as a Qt item model, fed by its snapshot and delta stream.

:class:`TreeModel` is a ``QStandardItemModel`` of four columns (node, type, status,
reason) with one row per node of the tree, children under their parent. Feed it every
``~/snapshot`` and ``~/snapshot_delta`` message (:meth:`TreeModel.feed_text`): the
state is rebuilt by the viewers' own :class:`~bt_executive.observe.delta.SnapshotState`
(gaps, late joiners, heartbeats as every viewer handles them), the rows are built again
only when the structure changes (a new ``session`` or ``revision``: a tree swap or a
restarted executive), and otherwise only the rows of the nodes whose state changed are
touched, so a delta costs what changed, not the size of the tree.

Statuses are coloured (the status text and a swatch before the node's name), the nodes
of the active branch are bold; the widget expands them.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from bt_executive.observe.delta import SnapshotState
from bt_executive.viewers.qt.binding import QtCore, QtGui

#: Column headers, in order.
COLUMNS = ('Node', 'Type', 'Status', 'Reason')
NAME, TYPE, STATUS, REASON = range(len(COLUMNS))
#: The colour of each status (text and swatch), as the web view draws them.
STATUS_COLOURS = {'SUCCESS': '#2e7d32', 'FAILURE': '#c62828', 'RUNNING': '#1565c0',
                  'INVALID': '#9e9e9e'}
#: The role holding a row's node id (on the name item).
ID_ROLE = int(QtCore.Qt.UserRole) + 1


class TreeModel(QtGui.QStandardItemModel):  # type: ignore[misc]
    """One executive's tree, as rows of a Qt item model (see the module).

    Attributes:
        state: the rebuilt snapshot state (``state.snapshot`` is the current snapshot)
        errors: the messages that could not be read (what was wrong), oldest first
        structure: ``(session, revision)`` of the rows shown, or None before any
        changed: ids of the rows the last :meth:`feed_text` touched (all on a rebuild)
        rebuilt: whether the last message shown built the rows again (a new structure)
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self.state = SnapshotState()
        self.errors: list[str] = []
        self.structure: Optional[tuple[Any, Any]] = None
        self.changed: list[str] = []
        self.rebuilt = False
        self._rows: dict[str, list[Any]] = {}
        self._shown: dict[str, Any] = {}
        self._active: list[str] = []
        self._brushes = {status: QtGui.QBrush(QtGui.QColor(colour))
                         for status, colour in STATUS_COLOURS.items()}
        self._colours = {status: QtGui.QColor(colour)
                         for status, colour in STATUS_COLOURS.items()}

    @property
    def snapshot(self) -> Optional[dict[str, Any]]:
        """Return the current snapshot, or None before the first one."""
        return self.state.snapshot

    def forget(self) -> None:
        """Drop the tree and the state (another executive is about to be shown)."""
        self.removeRows(0, self.rowCount())
        self.state = SnapshotState()
        self.structure, self.changed, self.rebuilt = None, [], False
        self._rows, self._shown, self._active = {}, {}, []

    def feed_text(self, text: str) -> bool:
        """Take one ``~/snapshot`` or ``~/snapshot_delta`` message; return True if shown.

        A message that cannot be read is noted in :attr:`errors` and changes nothing.
        """
        try:
            changed = self.state.feed_text(text)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            self.errors.append(f'{error}')
            return False
        if changed:
            self._show()
        return changed

    def _show(self) -> None:
        snapshot = self.state.snapshot
        assert snapshot is not None
        structure = (snapshot.get('session'), snapshot.get('revision'))
        states = snapshot.get('state') or {}
        self.rebuilt = structure != self.structure
        if self.rebuilt:
            self._build(snapshot)
            self.structure = structure
            self.changed = list(self._rows)
        else:
            shown = self._shown
            self.changed = [ident for ident, value in states.items()
                            if shown.get(ident) != value]
        for ident in self.changed:
            row = self._rows.get(ident)
            if row is not None:
                self._paint(row, states.get(ident) or {})
        self._shown = dict(states)
        active = list(snapshot.get('active_path') or [])
        if active != self._active:
            for ident in set(self._active) - set(active):
                self._bold(ident, False)
            for ident in active:
                self._bold(ident, True)
            self._active = active

    def _build(self, snapshot: dict[str, Any]) -> None:
        """Make every row again; the rows are put together before they join the model."""
        self.removeRows(0, self.rowCount())
        self._rows, self._active = {}, []
        tops: list[list[Any]] = []
        for node in snapshot.get('nodes') or []:
            name = QtGui.QStandardItem(str(node.get('name') or node['id']))
            name.setData(node['id'], ID_ROLE)
            tip = [node['id']]
            if node.get('loc'):
                tip.append(str(node['loc']))
            if node.get('params'):
                tip.append(json.dumps(node['params']))
            name.setToolTip('\n'.join(tip))
            row = [name, QtGui.QStandardItem(str(node.get('type') or '')),
                   QtGui.QStandardItem(''), QtGui.QStandardItem('')]
            for item in row:
                item.setEditable(False)
            self._rows[node['id']] = row
            parent = self._rows.get(node.get('parent') or '')
            if parent is None:
                tops.append(row)
            else:
                parent[NAME].appendRow(row)
        for row in tops:
            self.invisibleRootItem().appendRow(row)

    def _paint(self, row: list[Any], state: dict[str, Any]) -> None:
        status = str(state.get('status') or 'INVALID')
        row[STATUS].setText(status)
        brush = self._brushes.get(status)
        if brush is not None:
            row[STATUS].setForeground(brush)
            row[NAME].setData(self._colours[status], QtCore.Qt.DecorationRole)
        reason = '' if status == 'INVALID' else str(state.get('feedback') or '')
        row[REASON].setText(reason)
        row[REASON].setToolTip(reason)

    def _bold(self, ident: str, bold: bool) -> None:
        row = self._rows.get(ident)
        if row is not None:
            font = row[NAME].font()
            font.setBold(bold)
            row[NAME].setFont(font)

    # ---- what a view and a test ask ----------------------------------------------------

    def ids(self) -> list[str]:
        """Return the ids of the rows, in the tree's order."""
        return list(self._rows)

    def index_of(self, ident: str, column: int = NAME) -> Any:
        """Return the model index of a node's row (an invalid index if unknown)."""
        row = self._rows.get(ident)
        return row[column].index() if row is not None else QtCore.QModelIndex()

    def row_of(self, ident: str) -> dict[str, Any]:
        """Return what a node's row shows: name, type, status, reason, bold, colour."""
        row = self._rows[ident]
        colour = row[NAME].data(QtCore.Qt.DecorationRole)
        return {'name': row[NAME].text(), 'type': row[TYPE].text(),
                'status': row[STATUS].text(), 'reason': row[REASON].text(),
                'bold': row[NAME].font().bold(),
                'colour': colour.name() if colour is not None else None}

    @property
    def active(self) -> list[str]:
        """Return the active branch shown (ids from the root down)."""
        return list(self._active)


__all__ = ['COLUMNS', 'ID_ROLE', 'NAME', 'REASON', 'STATUS', 'STATUS_COLOURS', 'TYPE',
           'TreeModel']
