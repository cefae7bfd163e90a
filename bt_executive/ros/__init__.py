# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ROS layer of bt_executive: the executive, and everything that imports rclpy.

The public API of the ROS side (docs/plugins.md):
    :class:`Executive` (the executive node), :func:`main` (run it, with a registry of your
    own if you like: signals, safe stop and exit status included), :func:`ros_registry`
    (the catalogue, the real ROS leaves and the installed plugins), :class:`ActionClient`
    (action goals without Waitables), :class:`ExecutiveCore` (what the executive does,
    handed a node of your own: the tree host, ticking, observers, services and status),
    :class:`LeafHost` (what a ROS leaf's ``setup()`` is given as ``host``: a tick request,
    decisions, the clock, back-off settings), and :mod:`~bt_executive.ros.entities` (publishers,
    subscriptions and clients a leaf makes in ``setup()``, and ``destroy`` for them all).

The tree core never imports this package. Importing it imports none of its modules (nor
rclpy) until a name is first read, and changes nothing in the process: the programs'
memory deferrals are made by the programs (bt_executive/app/programs.py).
"""

from bt_executive import lazy_exports

#: Public name -> the module that defines it (imported when the name is first read).
_EXPORTS = {
    'Executive': 'bt_executive.ros.executive',
    'main': 'bt_executive.ros.executive',
    'ros_registry': 'bt_executive.ros.executive',
    'ActionClient': 'bt_executive.ros.action_client',
    'ExecutiveCore': 'bt_executive.ros.core',
    'LeafHost': 'bt_executive.ros.leaves.common',
}
#: Public submodules, imported when first read as an attribute.
_MODULES = ('entities',)

__all__ = sorted([*_EXPORTS, *_MODULES])


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _MODULES)
