# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Qt viewer: the "Behavior Tree" widget, and the rqt plugin that holds it (docs/rqt.md).

:mod:`~bt_executive.viewers.qt.binding` picks the Qt bindings (rqt's
``python_qt_binding`` where installed, else PyQt5 from PyPI);
:mod:`~bt_executive.viewers.qt.model` is the tree model fed by the snapshot and delta
stream; :mod:`~bt_executive.viewers.qt.widget` the widget with its ROS connection;
:mod:`~bt_executive.viewers.qt.rqt_plugin` the thin ``rqt_gui_py`` plugin (only rqt
imports it). Nothing here is imported by the executive.
"""
