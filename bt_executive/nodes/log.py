# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The Log leaf: a message, evaluated on each tick, to the executive's log.

In the executive the build context's ``log`` is the node's ROS logger; offline it is the
Python logger :data:`LOGGER_NAME`. The conventions every behaviour of this package follows
are described in :mod:`bt_executive.nodes`.
"""

from __future__ import annotations

import logging
from typing import Callable, TYPE_CHECKING

from bt_executive.core.registry import Category, NodeType, Param, ParamType
from py_trees.behaviour import Behaviour
from py_trees.common import Status

if TYPE_CHECKING:
    from bt_executive.core.builder import BuildContext, Params

__all__ = ['LOGGER_NAME', 'Log']

LOGGER_NAME = 'bt_executive.tree'
"""Name of the python logger that :class:`Log` writes to when no sink is given."""

_LOG_LEVELS: dict[str, int] = {
    'debug': logging.DEBUG,
    'info': logging.INFO,
    'warning': logging.WARNING,
    'error': logging.ERROR,
    'critical': logging.CRITICAL,
}


class Log(Behaviour):
    """Emit a message and return SUCCESS.

    The message is a string or a callable returning one (evaluated on each tick). It goes to
    ``sink(level, text)``, by default the python logger ``'bt_executive.tree'``. If building
    or emitting the message raises an exception, the behaviour returns FAILURE with the error
    as feedback instead of propagating it. On SUCCESS the feedback is the message.
    """

    declaration = NodeType(
        name='Log',
        category=Category.LEAF,
        doc=('Logs the message (evaluated on each tick) and returns SUCCESS; FAILURE, with '
             'the reason, when the message cannot be evaluated (e.g. it reads a missing '
             "key). In the executive the line goes to the node's ROS logger at `level` "
             '(console, /rosout, rqt_console); offline to the Python logger '
             '`bt_executive.tree`.'),
        params=(
            Param('message', ParamType.ANY, 'text, $reference or ${expression}', dynamic=True),
            Param('level', ParamType.ENUM, 'log level', default='info',
                  choices=('debug', 'info', 'warning', 'error')),
        ),
        primary='message',
    )

    def __init__(
        self,
        name: str,
        *,
        message: str | Callable[[], str],
        level: str = 'info',
        sink: Callable[[str, str], None] | None = None,
    ):
        """Create the behaviour.

        Args:
            name: the behaviour name.
            message: the text, or a callable returning it.
            level: 'debug', 'info', 'warning', 'error' or 'critical' (any case).
            sink: called with ``(level, text)``; default: the ``'bt_executive.tree'`` logger.

        Raises:
            ValueError: if ``level`` is unknown.
        """
        normalised = level.lower() if isinstance(level, str) else ''
        if normalised not in _LOG_LEVELS:
            raise ValueError(f'level must be one of {sorted(_LOG_LEVELS)}, got {level!r}')
        super().__init__(name)
        self.message = message
        self.level = normalised
        self.sink: Callable[[str, str], None] = sink if sink is not None else self._log

    @classmethod
    def build(cls, ctx: BuildContext, name: str, params: Params,
              children: list[Behaviour]) -> Behaviour:
        """Build a Log whose message is evaluated on each tick, written to the context's log."""
        message = params.getter('message')
        return cls(name, message=lambda: str(message()), level=params['level'], sink=ctx.log)

    @staticmethod
    def _log(level: str, text: str) -> None:
        """Write to the ``'bt_executive.tree'`` logger.

        Args:
            level: the level name.
            text: the message.
        """
        logging.getLogger(LOGGER_NAME).log(_LOG_LEVELS[level], text)

    def update(self) -> Status:
        """Emit the message."""
        try:
            text = self.message() if callable(self.message) else self.message
            text = str(text)
            self.sink(self.level, text)
        except Exception as error:  # noqa: B902 - a log line must never crash the tree
            self.feedback_message = f'could not log: {type(error).__name__}: {error}'
            return Status.FAILURE
        self.feedback_message = text
        return Status.SUCCESS


logging.getLogger(LOGGER_NAME).addHandler(logging.NullHandler())  # offline: silent unless set up
