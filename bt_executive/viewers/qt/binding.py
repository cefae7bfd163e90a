# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Qt bindings the widget uses: rqt's ``python_qt_binding`` where installed, else PyQt5.

Inside rqt the widget must use the binding rqt chose (``python_qt_binding`` picks PyQt5 or
PySide2 once per process); without rqt, PyQt5 from PyPI (``pip install PyQt5``) does. Both
give ``QtCore``, ``QtGui`` and ``QtWidgets`` as Qt 5 names them; :data:`Signal` is the
signal class of either. ``BT_EXECUTIVE_QT=PyQt5`` skips ``python_qt_binding``.

Raises ImportError (when imported) when neither is installed.
"""

from __future__ import annotations

import os
from typing import Any


def _load() -> tuple[str, Any, Any, Any]:
    """Return the binding's name and its QtCore, QtGui and QtWidgets modules."""
    if os.environ.get('BT_EXECUTIVE_QT', '') != 'PyQt5':
        try:
            from python_qt_binding import QtCore as rqt_core, QtGui as rqt_gui
            from python_qt_binding import QtWidgets as rqt_widgets
            return 'python_qt_binding', rqt_core, rqt_gui, rqt_widgets
        except ImportError:
            pass
    from PyQt5 import QtCore as core, QtGui as gui, QtWidgets as widgets
    return 'PyQt5', core, gui, widgets


BINDING, QtCore, QtGui, QtWidgets = _load()

#: The signal class (``pyqtSignal`` in PyQt5, ``Signal`` in python_qt_binding and PySide).
Signal: Any = getattr(QtCore, 'Signal', None) or getattr(QtCore, 'pyqtSignal')

__all__ = ['BINDING', 'QtCore', 'QtGui', 'QtWidgets', 'Signal']
