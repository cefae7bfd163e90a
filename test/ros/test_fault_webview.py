# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The web viewer under many short-lived, rude clients: no thread or descriptor leaks.

What test_webview.py already covers is not repeated here (127.0.0.1 by default, read-only
methods, static files that cannot escape their folder, malformed requests, event-stream
client limits and thread leaks of streams). This adds hundreds of plain connections that
complete a request, vanish at once, stop half-way, send garbage, reset the connection or
sit idle, and checks that the server's threads and open file descriptors come back to
where they were and that it still answers.
"""

from collections.abc import Callable
import os
import socket
import struct
import threading

from bt_executive.viewers.webview import ViewServer
from helpers import open_descriptors, recv_all, wait_for
import pytest

ROUNDS = 4
CLIENTS = 60
TIMEOUT = 20.0


@pytest.fixture
def server(view_server: Callable[..., ViewServer]) -> ViewServer:
    """Run a view server on a free loopback port, fed by a bare hub (no ROS)."""
    return view_server(max_clients=4, poll_interval=0.05)


def connect(port: int) -> socket.socket:
    return socket.create_connection(('127.0.0.1', port), timeout=5.0)


def rude_client(port: int, kind: int) -> None:
    """One client of a kind: polite, gone at once, half a request, garbage, reset, events."""
    connection = connect(port)
    try:
        if kind == 0:
            connection.sendall(b'GET /snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
            assert recv_all(connection).startswith(b'HTTP/1.')
        elif kind == 1:
            pass  # connect and leave
        elif kind == 2:
            connection.sendall(b'GET /index.html HTT')
        elif kind == 3:
            connection.sendall(os.urandom(512) + b'\r\n\r\n')
        elif kind == 4:  # reset instead of a clean close
            connection.sendall(b'GET / HTTP/1.0\r\n')
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        else:
            connection.sendall(b'GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
            connection.recv(64)
    finally:
        connection.close()


def test_many_rude_clients_leave_no_threads_or_descriptors_behind(server: ViewServer) -> None:
    port = server.port
    assert server.server_address[0] == '127.0.0.1'
    rude_client(port, 0)  # warm up: the first request loads what later ones reuse
    wait_for(lambda: server.hub.clients() == 0, TIMEOUT, 'no stream clients')
    threads, descriptors = threading.active_count(), open_descriptors()
    for _ in range(ROUNDS):
        idle = [connect(port) for _ in range(10)]  # connected, never say anything
        for index in range(CLIENTS):
            rude_client(port, index % 6)
        for connection in idle:
            connection.close()
        wait_for(lambda: threading.active_count() <= threads and server.hub.clients() == 0,
                 TIMEOUT, f'the handler threads to end ({threading.active_count()} > {threads})')
    wait_for(lambda: open_descriptors() <= descriptors, TIMEOUT,
             f'the descriptors to be closed ({open_descriptors()} > {descriptors})')
    connection = connect(port)
    connection.sendall(b'GET / HTTP/1.0\r\n\r\n')
    assert recv_all(connection).startswith(b'HTTP/1.0 200 ')
    connection.close()
