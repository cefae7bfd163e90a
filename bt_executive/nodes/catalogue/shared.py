# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Shorthands and declarations shared by the modules of the catalogue."""

from __future__ import annotations

from bt_executive.core.registry import Param, ParamType
from py_trees.common import Status

__all__ = ['P', 'SECONDS', 'STATUSES', 'T']

P = Param
"""Shorthand for :class:`~bt_executive.core.registry.Param` in the declarations."""

T = ParamType
"""Shorthand for :class:`~bt_executive.core.registry.ParamType` in the declarations."""

STATUSES: dict[str, Status] = {
    'success': Status.SUCCESS,
    'failure': Status.FAILURE,
    'running': Status.RUNNING,
}
"""The statuses a parameter or a stub spec may name, by name."""

SECONDS = P('seconds', T.FLOAT, 'duration in seconds', minimum=0.0)
"""The ``seconds`` parameter of the timed decorators and of ``Wait``."""
