# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive foxglove``: a running executive's tree, live in the Foxglove app.

A :class:`~bt_executive.ros.listener.SnapshotListener` follows the executive's
``~/snapshot``, ``~/snapshot_delta``, ``~/events`` and ``~/status``; a WebSocket server
of the ``foxglove-sdk`` (Foxglove's own protocol, bound to 127.0.0.1 unless told
otherwise; :class:`~bt_executive.observe.foxglove_server.FoxgloveServer`) serves the four
JSON channels with JSON schemas that
:mod:`bt_executive.observe.foxglove` derives from them (the same as a recording's
``.foxglove.mcap`` file): ``<node>/nodes`` (Table), ``<node>/blackboard`` (Plot),
``<node>/transitions`` (``foxglove.Log``: Log) and ``<node>/status``. ``<node>`` is the
executive's fully qualified name (``/bt_executive``, ``/robot1/bt_executive``).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

from bt_executive.observe.foxglove_server import DEFAULT_HOST, DEFAULT_PORT, FoxgloveServer
from bt_executive.ros.listener import DEFAULT_NODE, SnapshotListener, topic_name
from bt_executive.viewers.serving import serve_until_signal


class FoxgloveBridge(FoxgloveServer):
    """Serves one executive's tree to Foxglove, from a ROS listener of its topics.

    Args:
        namespace: the executive's namespace
        node: the executive's node name
        host: address to bind (default 127.0.0.1)
        port: port to bind (0: any free port; see :attr:`port`)
        ros_args: ROS command-line arguments for the listener's context

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.
        RuntimeError: the port is taken (the SDK's error).
    """

    def __init__(self, *, namespace: str = '', node: str = DEFAULT_NODE,
                 host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 ros_args: Optional[list[str]] = None) -> None:
        prefix = topic_name(namespace, node, 'x')[:-2]
        super().__init__(prefix, host=host, port=port)
        self.namespace, self.node = namespace, node
        self.listener: Optional[SnapshotListener] = None
        self._ros_args = ros_args

    def put_snapshot(self, text: str) -> None:
        """Take a ``~/snapshot``."""
        self.put('snapshot', text)

    def put_delta(self, text: str) -> None:
        """Take a ``~/snapshot_delta``."""
        self.put('snapshot_delta', text)

    def put_events(self, text: str) -> None:
        """Take an ``~/events`` batch."""
        self.put('events', text)

    def put_status(self, text: str) -> None:
        """Take a ``~/status``."""
        self.put('status', text)

    def start(self) -> 'FoxgloveBridge':
        """Start the ROS listener (background thread); the server is already serving."""
        self.listener = SnapshotListener(
            self.namespace, self.node, on_snapshot=self.put_snapshot,
            on_delta=self.put_delta, on_events=self.put_events, on_status=self.put_status,
            name='bt_executive_foxglove', args=self._ros_args).start()
        return self

    def close(self) -> None:
        """Stop the listener and the server."""
        if self.listener is not None:
            self.listener.close()
        super().close()

    def __enter__(self) -> 'FoxgloveBridge':
        """Start the bridge (see :meth:`start`)."""
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        """Close the bridge (see :meth:`close`)."""
        self.close()


def run(*, namespace: str = '', node: str = DEFAULT_NODE, host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT, out: Callable[[str], None] = print) -> int:
    """Serve the executive to Foxglove until SIGINT or SIGTERM; return the exit code."""
    try:
        bridge = FoxgloveBridge(namespace=namespace, node=node, host=host, port=port)
    except ImportError:
        print('bt-executive foxglove: needs the foxglove-sdk package '
              '(pip install foxglove-sdk)', file=sys.stderr)
        return 1
    except ValueError as error:
        print(f'bt-executive foxglove: {error}', file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f'bt-executive foxglove: cannot listen on {host}:{port}: {error}',
              file=sys.stderr)
        return 1
    return serve_until_signal(
        bridge, tool='bt-executive foxglove', host=host,
        exposed='the tree and its blackboard',
        banner=lambda: f'bt-executive foxglove: {bridge.url}  (Foxglove: Open connection > '
                       f'Foxglove WebSocket; topics {bridge.prefix}/nodes, /blackboard, '
                       '/transitions, /status; Ctrl-C to stop)', out=out)


__all__ = ['DEFAULT_HOST', 'DEFAULT_PORT', 'FoxgloveBridge', 'run']
