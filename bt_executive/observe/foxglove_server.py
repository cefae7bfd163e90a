# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A Foxglove WebSocket server of one executive's channels (the ``foxglove-sdk``; no ROS).

:class:`FoxgloveServer` serves the four channels of
:mod:`bt_executive.observe.foxglove` under the executive's node name; feed it the
executive's topic messages with :meth:`FoxgloveServer.put`. ``bt-executive foxglove``
feeds it from a ROS listener (``viewers/foxglove_bridge.py``), the executive itself from
what it publishes (``foxglove_port``, ``ros/snapshot_topics.py``). The SDK is imported
when a server starts, never before.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from bt_executive.observe.addresses import url_host
from bt_executive.observe.foxglove import (CHANNELS, FoxgloveMessage, FoxgloveView,
                                           INITIAL_SCHEMAS, TITLES)

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


class FoxgloveServer:
    """Serve one executive's Foxglove channels over the SDK's WebSocket server.

    Args:
        prefix: the executive's fully qualified node name (``/robot1/bt_executive``)
        host: address to bind (default 127.0.0.1)
        port: port to bind (0: any free port; see :attr:`port`)

    Raises:
        ImportError: the foxglove-sdk package is not installed.
        RuntimeError: the port is taken (the SDK's error).
    """

    def __init__(self, prefix: str, *, host: str = DEFAULT_HOST,
                 port: int = DEFAULT_PORT) -> None:
        import foxglove

        quiet_client_errors()
        self._foxglove: Any = foxglove
        self.prefix = prefix
        self.host = host
        self.context: Any = foxglove.Context()
        self.server: Any = foxglove.start_server(name=f'bt_executive {prefix}', host=host,
                                                 port=port, context=self.context)
        self._lock = threading.Lock()
        self.view = FoxgloveView()
        #: channel name -> (schema text, the SDK's channel)
        self.channels: dict[str, tuple[str, Any]] = {
            name: (INITIAL_SCHEMAS[name], self._channel(name, INITIAL_SCHEMAS[name]))
            for name in CHANNELS}

    def _channel(self, name: str, schema: str) -> Any:
        foxglove = self._foxglove
        return foxglove.Channel(
            f'{self.prefix}/{name}', message_encoding='json', context=self.context,
            schema=foxglove.Schema(name=TITLES[name], encoding='jsonschema',
                                   data=schema.encode('utf-8')))

    @property
    def port(self) -> int:
        """Return the port the WebSocket server listens on."""
        return int(self.server.port)

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
        """Log one message on its channel (advertised again when its schema changed)."""
        schema, channel = self.channels[message.channel]
        if message.schema != schema:  # a new blackboard key: a schema that names it
            channel.close()
            channel = self._channel(message.channel, message.schema)
            self.channels[message.channel] = (message.schema, channel)
        channel.log(message.encode())

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()


__all__ = ['CLIENT_LOGGERS', 'DEFAULT_HOST', 'DEFAULT_PORT', 'FoxgloveServer',
           'quiet_client_errors']
