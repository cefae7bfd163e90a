# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the serving commands share: loopback checks, a served page, the run-until-Ctrl-C loop.

``bt-executive view`` (one executive or the fleet page) and ``bt-executive foxglove``
start a service, warn when it listens beyond loopback, print where it is, and serve
until SIGINT or SIGTERM, or until their ROS listener reports an error. The view's paths
that take query parameters read them with :func:`parse_query`, whose errors are the
sentences of their 400 answers.
"""

from __future__ import annotations

import ipaddress
import signal
import sys
import threading
from typing import Any, Callable, Optional
import urllib.parse

from bt_executive.observe.addresses import url_host


def is_loopback(host: str) -> bool:
    """Return whether ``host`` (an address or ``localhost``) is a loopback address."""
    host = host.strip('[]').lower()
    if host == 'localhost' or host.endswith('.localhost'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class QueryError(ValueError):
    """Raised for a query a path does not take; the message is the 400's sentence."""


def quoted(text: str, limit: int = 40) -> str:
    """Return ``text`` quoted for an error sentence, cut after ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit - 1] + '\u2026')


def parse_query(query: str) -> dict[str, str]:
    """Return the parameters of a query string (``a=1&b=x``), percent-decoded.

    Raises:
        QueryError: a parameter is given twice or has no name, or the text is not
            UTF-8 once percent-decoded.
    """
    values: dict[str, str] = {}
    for field in query.split('&'):
        if not field:
            continue
        raw_name, _, raw_value = field.partition('=')
        try:
            name = urllib.parse.unquote_plus(raw_name, errors='strict')
            value = urllib.parse.unquote_plus(raw_value, errors='strict')
        except UnicodeDecodeError:
            raise QueryError(f'the query parameter {quoted(field)} is not UTF-8 text once '
                             'percent-decoded') from None
        if not name:
            raise QueryError(f'the query parameter {quoted(field)} has no name')
        if name in values:
            raise QueryError(f'the query parameter {quoted(name)} is given twice: give it '
                             'once')
        values[name] = value
    return values


class ServedPage:
    """An HTTP server on a background thread fed by a ROS listener: the view's lifecycle.

    ``WebView`` (one executive) and ``FleetView`` (the fleet page) differ only in what
    they listen to (:meth:`_listen`) and what their streams hold (:meth:`_end_streams`).

    Args:
        host: the address the server is bound to (for :attr:`url`)
        server: the HTTP server (``port``, ``serve_forever``, ``shutdown``, ``server_close``)
        thread_name: the name of the server's thread
    """

    def __init__(self, host: str, server: Any, thread_name: str) -> None:
        self.host = host
        self.server = server
        self.listener: Any = None
        self._thread_name = thread_name
        self._thread: Optional[threading.Thread] = None

    @property
    def port(self) -> int:
        """Return the port the server is bound to."""
        return int(self.server.port)

    @property
    def url(self) -> str:
        """Return the page's address."""
        return f'http://{url_host(self.host)}:{self.port}/'

    def _listen(self) -> Any:
        """Start and return the ROS listener that feeds the server."""
        raise NotImplementedError

    def _end_streams(self) -> None:
        """End the server's open streams (before it shuts down)."""

    def start(self) -> Any:
        """Start the ROS listener and the HTTP server thread; return self."""
        self.listener = self._listen()
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        kwargs={'poll_interval': 0.2},
                                        name=self._thread_name, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """End the streams, stop the server and the listener."""
        self._end_streams()
        if self._thread is not None:
            self.server.shutdown()
            self._thread.join(5.0)
        self.server.server_close()
        if self.listener is not None:
            self.listener.close()

    def __enter__(self) -> Any:
        """Start the view (see :meth:`start`)."""
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        """Close the view (see :meth:`close`)."""
        self.close()


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


__all__ = ['QueryError', 'ServedPage', 'is_loopback', 'parse_query', 'quoted',
           'serve_until_signal']
