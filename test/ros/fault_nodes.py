# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Node types that misbehave on purpose, for the fault tests (never in the real catalogue).

``fault_registry(base)`` returns ``base`` (default: the catalogue with the real ROS leaves)
plus:

``Raise``
    raises ``RuntimeError(message)`` from ``initialise()``, ``update()`` or ``terminate()``
    (``where``), else runs (RUNNING) for ever. ``message`` may contain ``{n}``: the number
    of calls so far, so each call raises a distinct error.
``RaisingSequence``
    a Sequence whose own tick logic raises (``RuntimeError('composite broke')``) from its
    ``after``-th tick on, after ticking its children (before reporting its status).
``SlowSetup``
    its ``setup()`` blocks for ``seconds`` (polling, as a leaf waiting for its server
    would), printing ``SETUP_STARTED`` on stdout first; then it succeeds when ticked.
``RaiseInCallback``
    subscribes in ``setup()`` to the std_msgs/Int32 ``topic``; the subscription callback
    raises ``RuntimeError('callback fault <data>')`` for every message; the node runs.
``Stall``
    its ``after``-th tick prints ``STALLED`` on stdout and never returns: with ``gil``
    (the default) in C code that keeps the GIL (a deadlocked native call), else in a wait
    that releases it (a callback blocked on a lock).

Only Python is needed (no rclpy) but for ``RaiseInCallback``'s setup, so the core tests use
them too.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Iterator, Optional

from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.nodes.catalogue import default_registry
import py_trees
from py_trees.common import Status


class Raise(py_trees.behaviour.Behaviour):
    """Raises from one of its methods (see the module docstring)."""

    def __init__(self, name: str, message: str, where: str) -> None:
        super().__init__(name=name)
        self.message = message
        self.where = where
        self.calls = 0
        self.terminated: list[Status] = []

    def _maybe_raise(self, method: str) -> None:
        if self.where == method:
            self.calls += 1
            raise RuntimeError(self.message.format(n=self.calls))

    def initialise(self) -> None:
        """Raise if asked to."""
        self._maybe_raise('initialise')

    def update(self) -> Status:
        """Raise if asked to, else keep running."""
        self._maybe_raise('update')
        self.feedback_message = 'running'
        return Status.RUNNING

    def terminate(self, new_status: Status) -> None:
        """Note the stop, then raise if asked to."""
        self.terminated.append(new_status)
        self._maybe_raise('terminate')


class RaisingSequence(py_trees.composites.Sequence):
    """A Sequence whose own logic raises from its ``after``-th tick on."""

    def __init__(self, name: str, children: list, after: int) -> None:
        super().__init__(name=name, memory=True, children=children)
        self.after = after
        self.ticks = 0

    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Tick like a Sequence, then break."""
        self.ticks += 1
        for node in super().tick():
            if node is self and self.ticks >= self.after:
                raise RuntimeError('composite broke')
            yield node


class SlowSetup(py_trees.behaviour.Behaviour):
    """A leaf whose setup blocks for a while (like one waiting for an absent server)."""

    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(name=name)
        self.seconds = seconds

    def setup(self, **kwargs: Any) -> None:
        """Announce the setup, then wait (in short steps, so signals are handled)."""
        print('SETUP_STARTED', flush=True)
        deadline = time.monotonic() + self.seconds
        while time.monotonic() < deadline:
            time.sleep(0.01)

    def update(self) -> Status:
        """Succeed."""
        return Status.SUCCESS


class RaiseInCallback(py_trees.behaviour.Behaviour):
    """Subscribes in setup() to a std_msgs/Int32 topic whose callback always raises."""

    def __init__(self, name: str, topic: str) -> None:
        super().__init__(name=name)
        self.topic = topic
        self.received = 0

    def setup(self, **kwargs: Any) -> None:
        """Subscribe on the executive's node."""
        from std_msgs.msg import Int32
        kwargs['node'].create_subscription(Int32, self.topic, self._on_message, 10)

    def _on_message(self, message: Any) -> None:
        self.received += 1
        raise RuntimeError(f'callback fault {message.data}')

    def update(self) -> Status:
        """Keep running."""
        return Status.RUNNING


class Stall(py_trees.behaviour.Behaviour):
    """A leaf whose ``after``-th tick blocks for ever (see the module docstring)."""

    def __init__(self, name: str, after: int, gil: bool) -> None:
        super().__init__(name=name)
        self.after = after
        self.gil = gil
        self.ticks = 0

    def update(self) -> Status:
        """Run, until the tick that blocks."""
        self.ticks += 1
        if self.ticks >= self.after:
            from bt_executive.ros.exit_guard import block_holding_the_gil
            print('STALLED', flush=True)
            if self.gil:
                block_holding_the_gil()
            threading.Event().wait()
        return Status.RUNNING


def _raise(ctx: Any, name: str, params: Any, children: list) -> Raise:
    return Raise(name, params['message'], params['where'])


def _raising_sequence(ctx: Any, name: str, params: Any, children: list) -> RaisingSequence:
    return RaisingSequence(name, children, params['after'])


def _slow_setup(ctx: Any, name: str, params: Any, children: list) -> SlowSetup:
    return SlowSetup(name, params['seconds'])


def _raise_in_callback(ctx: Any, name: str, params: Any, children: list) -> RaiseInCallback:
    return RaiseInCallback(name, params['topic'])


def _stall(ctx: Any, name: str, params: Any, children: list) -> Stall:
    return Stall(name, params['after'], params['gil'])


FAULT_TYPES = (
    NodeType('Raise', Category.LEAF, 'raises from initialise, update or terminate',
             params=(Param('message', ParamType.STRING, 'the error message', default='boom'),
                     Param('where', ParamType.ENUM, 'the method that raises',
                           default='update',
                           choices=('initialise', 'update', 'terminate'))),
             factory=_raise, primary='message'),
    NodeType('RaisingSequence', Category.COMPOSITE, 'a Sequence that breaks',
             params=(Param('after', ParamType.INT, 'tick from which it raises', default=2,
                           minimum=1),),
             factory=_raising_sequence, min_children=1, max_children=None),
    NodeType('SlowSetup', Category.LEAF, 'setup blocks for a while',
             params=(Param('seconds', ParamType.FLOAT, 'how long setup blocks',
                           default=60.0, minimum=0.0),),
             factory=_slow_setup, primary='seconds'),
    NodeType('RaiseInCallback', Category.LEAF, 'its subscription callback raises',
             params=(Param('topic', ParamType.STRING, 'a std_msgs/Int32 topic'),),
             factory=_raise_in_callback, primary='topic'),
    NodeType('Stall', Category.LEAF, 'a tick that never returns',
             params=(Param('after', ParamType.INT, 'the tick that blocks', default=1,
                           minimum=1),
                     Param('gil', ParamType.BOOL, 'block holding the GIL', default=True)),
             factory=_stall, primary='after'),
)


def fault_registry(base: Optional[Registry] = None) -> Registry:
    """Return ``base`` (default: the catalogue with the ROS leaves) plus the fault types."""
    if base is None:
        from bt_executive.ros.executive import ros_registry
        base = ros_registry()
    registry = base.copy()
    for node_type in FAULT_TYPES:
        registry.register(node_type)
    return registry


def core_registry() -> Registry:
    """Return the catalogue without ROS leaves plus the fault types (no rclpy needed)."""
    return fault_registry(default_registry())


if __name__ == '__main__':
    sys.exit('import this module; it is not a script')
