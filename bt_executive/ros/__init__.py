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

import importlib

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


def __getattr__(name: str) -> object:
    """Import the module of a public name on its first read (PEP 562)."""
    if name in _MODULES:
        return importlib.import_module(f'{__name__}.{name}')
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bt_executive.ros' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | set(_MODULES))
