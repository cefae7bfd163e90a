# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive groot2 --replay`` and ``--groot2-port``: the arguments that serve a replay.

The running executive serves Groot2 itself (its ``groot2_port`` parameter); these serve a
recording (docs/groot2.md, bt_executive/viewers/replay_groot2.py).
"""

from __future__ import annotations

import argparse

from bt_executive.app.arguments import tcp_port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``groot2`` arguments to ``parser``."""
    parser.add_argument('--replay', metavar='FILE', required=True,
                        help="the recording (bt-executive record, or the executive's "
                             'record_file) to serve')
    parser.add_argument('--ns', default=None, metavar='NAMESPACE',
                        help='the executive to replay, by namespace (a recording of several)')
    parser.add_argument('--node', default=None, help="the executive's node name")
    parser.add_argument('--port', type=tcp_port, default=1667,
                        help="TCP port (default 1667, Groot2's; 0: any free port)")
    parser.add_argument('--address', default='127.0.0.1',
                        help='the address to bind (default 127.0.0.1; 0.0.0.0: every '
                             'interface, without authentication)')
    parser.add_argument('--tick', type=int, metavar='N',
                        help='start at the state shown at tick N (default: the first state)')
    parser.add_argument('--speed', type=float, default=1.0, metavar='S',
                        help='play at S times the recorded pace (default 1; 0: stay at the '
                             'state of --tick)')
    parser.add_argument('--loop', action='store_true',
                        help='start again at the first state after the last')


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--groot2-port`` and ``--groot2-address`` to a replay viewer's ``parser``."""
    parser.add_argument('--groot2-port', type=tcp_port, metavar='PORT',
                        help='with --replay: also serve the state shown to Groot2 (and '
                             'btview) on this port (1667 is theirs; 0: any free port; '
                             'docs/groot2.md)')
    parser.add_argument('--groot2-address', default='127.0.0.1', metavar='ADDRESS',
                        help='the address the Groot2 server binds (default 127.0.0.1)')


__all__ = ['add_arguments', 'add_replay_arguments']
