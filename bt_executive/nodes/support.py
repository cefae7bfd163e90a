# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the node types of :mod:`bt_executive.nodes` share.

Time on an injectable clock (:data:`Clock`, :func:`time_left`), checks of constructor
arguments, the wording of failure reasons, the parameters several types declare alike
(:data:`SECONDS`, :data:`STATUSES`) and :func:`declare_reads`, with which a factory tells
the node table which blackboard keys a behaviour reads.
"""

from __future__ import annotations

import math
import sys
from typing import Callable, Optional, TYPE_CHECKING

from bt_executive.core.registry import Param, ParamType
import py_trees
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext
    from bt_executive.core.table import Probe

__all__ = [
    'Clock',
    'SECONDS',
    'STATUSES',
    'check_count',
    'check_seconds',
    'declare_reads',
    'failure_reason',
    'format_seconds',
    'plural',
    'time_left',
]

Clock = Callable[[], float]
"""A time source returning seconds (monotonic for wall time, the ROS clock for sim time)."""

TIME_TOLERANCE = 1e-9
"""Seconds by which a clock reading may fall short of a deadline and still reach it.

Clock times are floats: a run started at 0.4 s with a 0.3 s delay ends at
0.7000000000000001, a hair after a tick at 0.7 s. One nanosecond (the ROS clock's
resolution), plus a few float steps at the clock's magnitude, absorbs that rounding without
moving any real deadline.
"""


def time_left(end: float, now: float) -> float:
    """Return the seconds from ``now`` until ``end``; 0.0 once ``end`` is reached.

    ``end`` counts as reached within :data:`TIME_TOLERANCE` (and a few float steps at the
    magnitude of ``now``), so float rounding never delays a deadline by a whole tick.
    """
    left = end - now
    tolerance = TIME_TOLERANCE + abs(now) * 4 * sys.float_info.epsilon
    return left if left > tolerance else 0.0


def check_seconds(seconds: float, what: str = 'seconds') -> float:
    """Return ``seconds`` as a float, or raise if it is not a finite, non-negative number.

    Args:
        seconds: the duration to check.
        what: the parameter name used in the error message.

    Returns:
        The duration as a float.

    Raises:
        ValueError: if the value is not a finite number >= 0.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f'{what} must be a number, got {seconds!r}')
    value = float(seconds)
    if not math.isfinite(value) or value < 0.0:
        raise ValueError(f'{what} must be finite and >= 0, got {seconds!r}')
    return value


def check_count(value: int | None, what: str, *, minimum: int) -> None:
    """Raise unless ``value`` is None or an int >= ``minimum``.

    Args:
        value: the count to check.
        what: the parameter name used in the error message.
        minimum: the smallest accepted value.

    Raises:
        ValueError: if the value is not an int or is too small.
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f'{what} must be an integer >= {minimum}, got {value!r}')


def format_seconds(seconds: float) -> str:
    """Format a configured duration for feedback ('2.0', '0.25', '1.2').

    Args:
        seconds: the duration.

    Returns:
        The duration with at least one decimal.
    """
    if seconds == round(seconds, 1):
        return f'{seconds:.1f}'
    return f'{seconds:g}'


def failure_reason(child: Behaviour, role: str = '') -> str:
    """Build the feedback for a node that fails because ``child`` failed.

    Args:
        child: the failed child.
        role: an optional word describing the child ('condition', 'action', ...).

    Returns:
        A short reason, including the child's own feedback when it has some.
    """
    prefix = f'{role} ' if role else ''
    reason = f"{prefix}'{child.name}' failed"
    if child.feedback_message:
        reason += f': {child.feedback_message}'
    return reason


def plural(count: int, noun: str) -> str:
    """Return e.g. '1 child' or '3 children' (nouns 'child' and regular nouns only).

    Args:
        count: the number of things.
        noun: the singular noun.

    Returns:
        The count followed by the noun in the right number.
    """
    if count == 1:
        return f'{count} {noun}'
    return f'{count} {"children" if noun == "child" else noun + "s"}'


SECONDS = Param('seconds', ParamType.FLOAT, 'duration in seconds', minimum=0.0)
"""The ``seconds`` parameter of ``Wait`` and of the timed decorators."""

STATUSES: dict[str, Status] = {
    'success': Status.SUCCESS,
    'failure': Status.FAILURE,
    'running': Status.RUNNING,
}
"""The statuses a parameter or a stub spec may name, by name."""


def declare_reads(ctx: BuildContext, behaviour: Behaviour, names: frozenset[str], *,
                  probe: Optional[Probe] = None) -> None:
    """Declare the blackboard keys a node reads (viewers and event ticking use this).

    A node whose outcome is a pure function of the keys it reads also declares a probe
    (``lookup -> value``, kept in the node table): event-driven ticking then wakes the
    tree for a new value only when the probe's truth changes (a battery level crossing a
    threshold, not every reading). The keys are also registered for reading on a
    blackboard client of the behaviour, as py_trees' own behaviours do.

    Args:
        ctx: the build context of the factory
        behaviour: the behaviour the factory made
        names: the root blackboard keys it reads
        probe: what its outcome depends on, for a pure reader
    """
    ctx.declare(behaviour, reads=frozenset(names), probe=probe)
    if not names:
        return
    client = behaviour.attach_blackboard_client(name=behaviour.name)
    for key in sorted(names):
        client.register_key(key=key, access=py_trees.common.Access.READ)
