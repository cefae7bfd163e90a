# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Command-line arguments the commands share: a TCP port, which executive to talk to."""

from __future__ import annotations

import argparse


def tcp_port(text: str) -> int:
    """Parse a TCP port (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f'expected a TCP port 0..65535, got {text!r}')
    return port


def add_executive_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--ns`` (or ``--namespace``) and ``--node``: the running executive to use.

    Both have defaults (no namespace, ``bt_executive``); the commands whose default is
    every executive found (``view``, the fleet page) or a recording's only one
    (``groot2 --replay``) declare their own.
    """
    parser.add_argument('--ns', '--namespace', dest='ns', default='', metavar='NAMESPACE',
                        help="the executive's namespace (default: none)")
    parser.add_argument('--node', default='bt_executive',
                        help="the executive's node name (default bt_executive)")


__all__ = ['add_executive_arguments', 'tcp_port']
