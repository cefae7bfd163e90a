# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""How offline tools stand in for ROS leaves: :class:`StubLeaf`, built as ``ctx.stubs`` says.

Offline (``validate``, ``tick``, ``render``, ...) a ROS leaf, the catalogue's or a plugin's,
is built as a stub: RUNNING for some ticks, then a fixed status. ``bt-executive tick
--stub NAME_OR_TYPE=STATUS[:TICKS]`` sets the build context's ``stubs``; without an entry
a node type's default applies (the catalogue's ROS leaves declare theirs,
:data:`~bt_executive.nodes.ros_leaf_types.DEFAULT_STUBS`; a plugin's is
:data:`PLUGIN_STUB`). No ROS code here.
"""

from __future__ import annotations

from typing import Mapping, TYPE_CHECKING

from bt_executive.core.registry import Factory
from bt_executive.nodes.support import STATUSES
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['PLUGIN_STUB', 'StubLeaf', 'stub_factory']

#: How ``bt-executive tick`` stands in for a plugin's ROS leaf unless ``--stub`` says
#: otherwise: (status, ticks RUNNING first).
PLUGIN_STUB: tuple[str, int] = ('success', 0)


class StubLeaf(Behaviour):
    """An offline stand-in for a ROS leaf: RUNNING for some ticks, then a fixed status."""

    def __init__(self, name: str, *, node_type: str, status: Status, running_ticks: int):
        """Create the stub.

        Args:
            name: the behaviour name.
            node_type: the ROS node type it stands in for.
            status: the status to return once the RUNNING ticks are over.
            running_ticks: how many ticks of a run return RUNNING first.
        """
        super().__init__(name=name)
        self.node_type = node_type
        self.final = status
        self.running_ticks = running_ticks
        self.count = 0
        self.feedback_message = f'stub for {node_type}'

    def initialise(self) -> None:
        """Restart the count."""
        self.count = 0

    def update(self) -> Status:
        """Return RUNNING until the configured tick count, then the final status."""
        self.count += 1
        if self.count <= self.running_ticks:
            return Status.RUNNING
        return self.final


def stub_factory(type_name: str, default: tuple[str, int] = PLUGIN_STUB) -> Factory:
    """Return a factory of :class:`StubLeaf` for the node type ``type_name``.

    The build context's ``stubs`` decide, by the node's name first, then by its type;
    ``default`` (status, RUNNING ticks) applies when they do not mention either.
    """
    def factory(ctx: BuildContext, name: str, params: Params,
                children: list[Behaviour]) -> Behaviour:
        stubs: Mapping[str, tuple[str, int]] = ctx.stubs
        status, ticks = stubs.get(name, stubs.get(type_name, default))
        return StubLeaf(name, node_type=type_name, status=STATUSES[status],
                        running_ticks=ticks)
    return factory
