# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The rqt plugin "Behavior Tree": a thin holder of :class:`BehaviorTreeWidget`.

rqt finds it through ``package.xml`` (``<rqt_gui plugin="${prefix}/plugin.xml"/>``) and
``plugin.xml`` (``bt_executive.viewers.qt.rqt_plugin.BehaviorTreePlugin``, base class
``rqt_gui_py::Plugin``); only rqt imports this module. The plugin gives the widget rqt's
node (``context.node``, spun by rqt) and keeps the executive shown in the perspective.
"""

from __future__ import annotations

from typing import Any

from bt_executive.viewers.qt.widget import BehaviorTreeWidget
from rqt_gui_py.plugin import Plugin


class BehaviorTreePlugin(Plugin):  # type: ignore[misc]
    """Show a running executive's tree in rqt (docs/rqt.md)."""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.setObjectName('BehaviorTree')
        self._widget = BehaviorTreeWidget(context.node)
        if context.serial_number() > 1:
            self._widget.setWindowTitle(f'Behavior Tree ({context.serial_number()})')
        context.add_widget(self._widget)

    def shutdown_plugin(self) -> None:
        """Stop listening (rqt closes the plugin)."""
        self._widget.shutdown()

    def save_settings(self, plugin_settings: Any, instance_settings: Any) -> None:
        """Keep the executive shown in the perspective."""
        instance_settings.set_value('executive', self._widget.executive)

    def restore_settings(self, plugin_settings: Any, instance_settings: Any) -> None:
        """Show the executive the perspective kept (its latched snapshot comes when it runs)."""
        executive = instance_settings.value('executive')
        if executive:
            self._widget.show_executive(str(executive))


__all__ = ['BehaviorTreePlugin']
