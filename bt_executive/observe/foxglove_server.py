# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A Foxglove WebSocket server of one executive's channels (the ``foxglove-sdk``; no ROS).

:class:`FoxgloveServer` serves the four channels of
:mod:`bt_executive.observe.foxglove` under the executive's node name; feed it the
executive's topic messages with :meth:`FoxgloveServer.put`. ``bt-executive foxglove``
feeds it from a ROS listener (``viewers/foxglove_bridge.py``), the executive itself from
what it publishes (``foxglove_port``, ``ros/snapshot_topics.py``). The SDK is imported
when a server starts, never before.

Clients connect through a :class:`SubprotocolGate`, which accepts both names of the
protocol (``foxglove.sdk.v1``, the SDK's, and ``foxglove.websocket.v1``, Lichtblick's and
the ``@foxglove/ws-protocol`` libraries'); the SDK's server itself listens on loopback
only, on a port of its own.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any, Optional

from bt_executive.observe.addresses import url_host
from bt_executive.observe.foxglove import (CHANNELS, FoxgloveMessage, FoxgloveView, SCHEMAS,
                                           TITLES)

DEFAULT_HOST = '127.0.0.1'
#: The Foxglove app's default WebSocket address is ws://localhost:8765.
DEFAULT_PORT = 8765

#: The SDK's loggers of one client's connection: what they say is that client's trouble.
CLIENT_LOGGERS = 'foxglove.websocket.connected_client'


class _QuietClientTrouble(logging.Handler):
    """Print the SDK's warnings and errors as Python's last resort would, but a client's.

    The SDK logs every client that goes away without a WebSocket close handshake (a
    killed app, a dropped laptop) as an ERROR (``Error receiving from client ...:
    Connection reset without closing handshake``); nobody configures logging in the
    executive, so Python printed each one on stderr. A client's own connection trouble
    hurts nobody else and says nothing about the executive: it is dropped. Everything else
    the SDK says at WARNING or above is printed as before.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(CLIENT_LOGGERS) and logging.lastResort is not None:
            logging.lastResort.handle(record)


def quiet_client_errors() -> None:
    """Route the SDK's log through :class:`_QuietClientTrouble` (once per process).

    Left alone when the program configured the ``foxglove`` logger itself.
    """
    logger = logging.getLogger('foxglove')
    if logger.handlers or not logger.propagate:
        return
    logger.addHandler(_QuietClientTrouble())
    logger.propagate = False


#: The subprotocol the foxglove-sdk server accepts (its only one).
SDK_SUBPROTOCOL = 'foxglove.sdk.v1'
#: The subprotocol of the ws-protocol libraries, Lichtblick and older Foxglove apps: the
#: same protocol under its first name.
WEBSOCKET_SUBPROTOCOL = 'foxglove.websocket.v1'
#: Both names, in the order a server prefers them.
SUBPROTOCOLS = (SDK_SUBPROTOCOL, WEBSOCKET_SUBPROTOCOL)
#: Most bytes an HTTP handshake (request or response) may have.
MAX_HANDSHAKE = 16 * 1024
_PROTOCOL_HEADER = b'sec-websocket-protocol:'


def offered_subprotocols(head: bytes) -> list[str]:
    """Return the subprotocols an HTTP handshake's head names, in its order."""
    names: list[str] = []
    for line in head.split(b'\r\n'):
        if line.lower().startswith(_PROTOCOL_HEADER):
            names += [name.strip() for name in
                      line[len(_PROTOCOL_HEADER):].decode('latin-1').split(',') if name.strip()]
    return names


def rename_subprotocol(head: bytes, to: str) -> bytes:
    """Return an HTTP handshake's head whose ``Sec-WebSocket-Protocol`` names only ``to``."""
    lines: list[bytes] = []
    for line in head.split(b'\r\n'):
        if not line.lower().startswith(_PROTOCOL_HEADER):
            lines.append(line)
        elif not any(kept.lower().startswith(_PROTOCOL_HEADER) for kept in lines):
            lines.append(b'Sec-WebSocket-Protocol: ' + to.encode('latin-1'))
    return b'\r\n'.join(lines)


class SubprotocolGate:
    """Let ``foxglove.websocket.v1`` clients in to a server that knows only ``foxglove.sdk.v1``.

    The foxglove-sdk's WebSocket server answers a handshake that does not offer
    ``foxglove.sdk.v1`` with HTTP 400, and Lichtblick, the ``@foxglove/ws-protocol``
    libraries and Foxglove apps before 2025 offer only ``foxglove.websocket.v1``: the same
    protocol under its first name (Foxglove renamed it; the frames did not change). The
    gate listens where the clients connect, passes each connection on to the SDK's server
    on loopback and, in a handshake that offers only the first name, writes the second in
    the request and the first back in the response. Everything after the handshake is
    passed through as it is, both ways. A handshake offering neither name is passed on
    unchanged, so the client gets the SDK's own refusal.

    Runs an asyncio loop in a daemon thread.

    Args:
        host: address to listen on
        port: port to listen on (0: any free port; see :attr:`port`)
        upstream: the SDK server's (host, port)

    Raises:
        OSError: the address cannot be bound.
    """

    def __init__(self, host: str, port: int, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._loop = asyncio.new_event_loop()
        self._connections: set['asyncio.Task[None]'] = set()
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._serve, host, port))
        except BaseException:
            self._loop.close()
            raise
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._thread = threading.Thread(target=self._loop.run_forever,
                                        name='foxglove-subprotocol-gate', daemon=True)
        self._thread.start()

    async def _serve(self, client_reader: asyncio.StreamReader,
                     client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        server_writer: Optional[asyncio.StreamWriter] = None
        try:
            request = await client_reader.readuntil(b'\r\n\r\n')
            if len(request) > MAX_HANDSHAKE:
                return
            offered = offered_subprotocols(request)
            renamed = SDK_SUBPROTOCOL not in offered and WEBSOCKET_SUBPROTOCOL in offered
            if renamed:
                request = rename_subprotocol(request, SDK_SUBPROTOCOL)
            server_reader, server_writer = await asyncio.open_connection(*self.upstream)
            server_writer.write(request)
            response = await server_reader.readuntil(b'\r\n\r\n')
            if renamed:
                response = rename_subprotocol(response, WEBSOCKET_SUBPROTOCOL) \
                    if offered_subprotocols(response) else response
            client_writer.write(response)
            # either side ending (a close handshake done, a dropped peer) ends both
            pipes = {asyncio.ensure_future(_pipe(client_reader, server_writer)),
                     asyncio.ensure_future(_pipe(server_reader, client_writer))}
            try:
                await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pipe in pipes:
                    pipe.cancel()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a client's own trouble (see _QuietClientTrouble): its connection ends
        finally:
            for writer in (client_writer, server_writer):
                if writer is not None:
                    writer.close()
            self._connections.discard(task)

    def close(self) -> None:
        """Stop listening, end every connection and the thread (idempotent)."""
        if self._loop.is_closed():
            return

        async def stop() -> None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=10.0)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10.0)
        self._loop.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy ``reader`` to ``writer`` until the end (or a broken connection)."""
    try:
        while data := await reader.read(64 * 1024):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass


class FoxgloveServer:
    """Serve one executive's Foxglove channels over the SDK's WebSocket server.

    Clients connect to a :class:`SubprotocolGate` on ``host:port`` (either subprotocol);
    the SDK's server listens on a free loopback port behind it.

    Args:
        prefix: the executive's fully qualified node name (``/robot1/bt_executive``)
        host: address to bind (default 127.0.0.1)
        port: port to bind (0: any free port; see :attr:`port`)

    Raises:
        ImportError: the foxglove-sdk package is not installed.
        RuntimeError: the port is taken (or the address cannot be bound).
    """

    def __init__(self, prefix: str, *, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT) -> None:
        import foxglove

        quiet_client_errors()
        self.prefix = prefix
        self.host = host
        self.context: Any = foxglove.Context()
        self.server: Any = foxglove.start_server(name=f'bt_executive {prefix}',
                                                 host='127.0.0.1', port=0,
                                                 context=self.context)
        try:
            self.gate = SubprotocolGate(host, port, ('127.0.0.1', int(self.server.port)))
        except OSError as error:
            self.server.stop()
            raise RuntimeError(str(error)) from error
        self._lock = threading.Lock()
        self.view = FoxgloveView()
        #: channel name -> the SDK's channel (advertised once, with its one schema)
        self.channels: dict[str, Any] = {
            name: foxglove.Channel(
                f'{prefix}/{name}', message_encoding='json', context=self.context,
                schema=foxglove.Schema(name=TITLES[name], encoding='jsonschema',
                                       data=SCHEMAS[name].encode('utf-8')))
            for name in CHANNELS}

    @property
    def port(self) -> int:
        """Return the port clients connect to (the gate's)."""
        return self.gate.port

    @property
    def url(self) -> str:
        """Return the address to open in Foxglove."""
        return f'ws://{url_host(self.host)}:{self.port}'

    @property
    def errors(self) -> list[str]:
        """Return the messages that could not be read (what was wrong)."""
        return self.view.errors

    def put(self, topic: str, text: str) -> None:
        """Publish what a message of the executive's ``topic`` makes (thread-safe)."""
        with self._lock:
            for message in self.view.put(topic, text, time.monotonic()):
                self.publish(message)

    def publish(self, message: FoxgloveMessage) -> None:
        """Log one message on its channel."""
        self.channels[message.channel].log(message.encode())

    def close(self) -> None:
        """Stop the gate and the server."""
        self.gate.close()
        self.server.stop()


__all__ = ['CLIENT_LOGGERS', 'DEFAULT_HOST', 'DEFAULT_PORT', 'FoxgloveServer',
           'SDK_SUBPROTOCOL', 'SUBPROTOCOLS', 'SubprotocolGate', 'WEBSOCKET_SUBPROTOCOL',
           'offered_subprotocols', 'quiet_client_errors', 'rename_subprotocol']
