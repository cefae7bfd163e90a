# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the serving commands share: loopback checks and the run-until-Ctrl-C loop.

``bt-executive view`` (one executive or the fleet page) and ``bt-executive foxglove``
start a service, warn when it listens beyond loopback, print where it is, and serve
until SIGINT or SIGTERM, or until their ROS listener reports an error.
"""

from __future__ import annotations

import ipaddress
import signal
import sys
import threading
from typing import Any, Callable


def is_loopback(host: str) -> bool:
    """Return whether ``host`` (an address or ``localhost``) is a loopback address."""
    host = host.strip('[]').lower()
    if host == 'localhost' or host.endswith('.localhost'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_until_signal(service: Any, *, tool: str, host: str, exposed: str,
                       banner: Callable[[], str], out: Callable[[str], None]) -> int:
    """Start ``service`` and serve until SIGINT/SIGTERM or a ROS error; always close it.

    Args:
        service: has ``start()``, ``close()`` and ``listener`` (None, or with ``errors``)
        tool: the command's name, prefixed to every line
        host: the address it listens on (a warning when not loopback)
        exposed: what anyone reaching a non-loopback address sees
        banner: returns the line saying where it serves (called once started)
        out: prints the banner

    Returns:
        0 after a signal, 1 after a ROS error.
    """
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {signum: signal.signal(signum, on_signal)
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        service.start()
        if not is_loopback(host):
            print(f'{tool}: WARNING: listening on {host}, not loopback: anyone who can reach '
                  f'this address sees {exposed}', file=sys.stderr)
        out(banner())
        while not stop.wait(1.0):
            listener = service.listener
            if listener is not None and listener.errors:
                print(f'{tool}: ROS error: {listener.errors[0]!r}', file=sys.stderr)
                return 1
    finally:
        service.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


__all__ = ['is_loopback', 'serve_until_signal']
