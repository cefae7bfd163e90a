# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view`` without a namespace: every executive of the ROS graph, on one page.

A :class:`FleetListener` (one node on its own rclpy context, spun in a background thread)
looks for executives in the ROS graph once a second: an executive is a node publishing
``<node>/status`` and ``<node>/snapshot`` as ``std_msgs/String``. It subscribes to each
one's latched ``~/status`` and keeps a row per executive in a :class:`FleetDirectory`:
namespace, tree, root status, tick count and rate, the last failure, paused or
terminated, and whether it is still in the graph. An executive's ``~/snapshot``,
``~/snapshot_delta`` and ``~/events`` are subscribed only once somebody opens its page
(the page shows the state rebuilt from the latched snapshot and the deltas).

The HTTP server (:class:`FleetServer`, the view server of :mod:`webview` with more paths):

==================================  ==============================================
``/``                               the fleet page (``fleet.html``, ``fleet.js``)
``/fleet``                          the rows as JSON (``{"executives": [...]}``)
``/executive/<node name>/``         the usual view of that executive (its page,
                                    ``snapshot`` and ``events`` below that path)
==================================  ==============================================

``<node name>`` is the executive's fully qualified name without its leading slash
(``robot1/bt_executive``); only discovered executives are served, any other path is 404.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import threading
import time
from typing import Any, Callable, Optional

from bt_executive.observe.snapshot import executive_state, to_json
from bt_executive.ros.listener import EVENTS_DEPTH, SnapshotListener, split_node_name
from bt_executive.viewers.serving import serve_until_signal, ServedPage
from bt_executive.viewers.webview import (DEFAULT_HOST, DEFAULT_PORT, SnapshotHub,
                                          ViewRequestHandler, ViewServer)

#: Request path -> (packaged file, content type) of the fleet page.
FLEET_FILES = {
    '/': ('fleet.html', 'text/html; charset=utf-8'),
    '/index.html': ('fleet.html', 'text/html; charset=utf-8'),
    '/fleet.js': ('fleet.js', 'text/javascript; charset=utf-8'),
    '/style.css': ('style.css', 'text/css; charset=utf-8'),
    '/fleet.css': ('fleet.css', 'text/css; charset=utf-8'),
}
#: Where each executive's view lives: ``/executive/robot1/bt_executive/``.
PREFIX = '/executive/'
STRING = 'std_msgs/msg/String'
#: Seconds between two looks at the ROS graph.
DISCOVERY_PERIOD = 1.0
#: The tick rate is counted over the statuses of the last RATE_WINDOW seconds, once
#: they span RATE_MIN_SPAN (statuses come on change too, so two can be close).
RATE_WINDOW = 10.0
RATE_MIN_SPAN = 1.5


def executive_url(node: str) -> str:
    """Return the path of an executive's view (``node``: its fully qualified name)."""
    return PREFIX + node.strip('/') + '/'


def find_executives(topics: list[tuple[str, list[str]]]) -> list[str]:
    """Return the executives' node names among ``(topic, types)`` pairs, sorted.

    An executive publishes ``<node>/status`` and ``<node>/snapshot`` as std_msgs/String.
    """
    strings = {name for name, types in topics if STRING in types}
    return sorted(name[:-len('/status')] for name in strings
                  if name.endswith('/status') and name[:-len('/status')] + '/snapshot'
                  in strings and name.count('/') >= 2)


class _Executive:
    """What the directory knows of one executive."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.namespace, self.name = split_node_name(node=node)
        self.status: Optional[dict[str, Any]] = None
        self.received = 0.0  # time.monotonic() of the last status
        self.rate: Optional[float] = None
        self._samples: collections.deque = collections.deque()  # (time, tick count)
        self.online = True
        self.hub: Optional[SnapshotHub] = None

    def put_status(self, data: dict[str, Any], now: float) -> None:
        ticks = data.get('tick_count')
        if isinstance(ticks, int):
            samples = self._samples
            if samples and ticks < samples[-1][1]:  # restarted: count afresh
                samples.clear()
            samples.append((now, ticks))
            while len(samples) > 2 and now - samples[1][0] >= RATE_WINDOW:
                samples.popleft()
            first_time, first_ticks = samples[0]
            if now - first_time >= RATE_MIN_SPAN:
                self.rate = (ticks - first_ticks) / (now - first_time)
        self.status, self.received = data, now

    def row(self, now: float) -> dict[str, Any]:
        status = self.status or {}
        rate = self.rate
        if rate is None:  # one status so far: the median tick interval it reports
            interval = ((status.get('timing') or {}).get('interval_ms') or {}).get('p50')
            rate = 1000.0 / interval if isinstance(interval, (int, float)) and interval else None
        state = 'offline' if not self.online else 'waiting' if self.status is None \
            else status.get('state') or executive_state(status)  # older executives: no state
        return {
            'node': self.node,
            'namespace': self.namespace,
            'name': self.name,
            'url': executive_url(self.node),
            'state': state,
            'tree': status.get('tree'),
            'file': status.get('file'),
            'root_status': status.get('root_status'),
            'ticks': status.get('tick_count'),
            'tick_rate': round(rate, 2) if rate is not None else None,
            'tick_mode': status.get('tick_mode'),
            'last_failure': status.get('last_failure'),
            'terminated': status.get('terminated'),
            'active': status.get('active'),
            'status_age': round(now - self.received, 1) if self.status is not None else None,
        }


class FleetDirectory:
    """The executives discovered so far and their latest status (thread-safe).

    Args:
        subscribe: called with a node name when its view is first asked for (the
            listener then subscribes to its snapshots and events, feeding its hub)
    """

    def __init__(self, subscribe: Optional[Callable[[str], None]] = None) -> None:
        self._lock = threading.Lock()
        self._executives: dict[str, _Executive] = {}
        self._subscribe = subscribe
        self.closed = False

    def seen(self, nodes: list[str]) -> list[str]:
        """Note the executives now in the graph; return those not known before."""
        with self._lock:
            new = [node for node in nodes if node not in self._executives]
            for node in new:
                self._executives[node] = _Executive(node)
            for node, executive in self._executives.items():
                executive.online = node in nodes
            return new

    def put_status(self, node: str, text: str) -> bool:
        """Store an executive's ``~/status`` text; False if it is not a JSON object."""
        try:
            data = json.loads(text)
        except ValueError:
            return False
        if not isinstance(data, dict):
            return False
        with self._lock:
            executive = self._executives.get(node)
            if executive is None:
                executive = self._executives[node] = _Executive(node)
            executive.put_status(data, time.monotonic())
        return True

    def rows(self) -> list[dict[str, Any]]:
        """Return one row per executive, by node name."""
        now = time.monotonic()
        with self._lock:
            return [self._executives[node].row(now) for node in sorted(self._executives)]

    def hub(self, node: str) -> Optional[SnapshotHub]:
        """Return the hub of a discovered executive (subscribing on first use), or None."""
        with self._lock:
            executive = self._executives.get(node)
            if executive is None or self.closed:
                return None
            if executive.hub is not None:
                return executive.hub
            executive.hub = SnapshotHub()
        if self._subscribe is not None:
            self._subscribe(node)
        return executive.hub

    def close(self) -> None:
        """Close every hub (their event streams end)."""
        with self._lock:
            self.closed = True
            hubs = [executive.hub for executive in self._executives.values() if executive.hub]
        for hub in hubs:
            hub.close()


class FleetListener:
    """Discovers executives in the ROS graph and subscribes to their topics.

    Args:
        directory: where the statuses go (its ``subscribe`` is wired to this listener)
        args: ROS command-line arguments for the context
    """

    def __init__(self, directory: FleetDirectory, *,
                 args: Optional[list[str]] = None) -> None:
        self.directory = directory
        self.listener = SnapshotListener('/', name='bt_executive_fleet', args=args)
        self._lock = threading.Lock()
        self._wanted: list[str] = []
        self._last_look = -DISCOVERY_PERIOD
        self.listener.node.create_timer(0.2, self._step)

    @property
    def errors(self) -> list[BaseException]:
        """Return the exceptions that ended the spin thread."""
        return self.listener.errors

    def want_views(self, node: str) -> None:
        """Subscribe to an executive's snapshots and events (from the spin thread, soon)."""
        with self._lock:
            self._wanted.append(node)

    def _step(self) -> None:
        now = time.monotonic()
        if now - self._last_look >= DISCOVERY_PERIOD:
            self._last_look = now
            node = self.listener.node
            # publishers, not names: our own subscriptions keep a gone executive's topics
            found = [name for name in find_executives(node.get_topic_names_and_types())
                     if node.count_publishers(name + '/status')]
            for node in self.directory.seen(found):
                self.listener.subscribe(
                    node + '/status',
                    lambda msg, node=node: self.directory.put_status(node, msg.data))
        with self._lock:
            wanted, self._wanted = self._wanted, []
        for node in wanted:
            hub = self.directory.hub(node)
            if hub is None:
                continue
            # the state rebuilt from the latched snapshot and the deltas (as `view` does)
            self.listener.subscribe(node + '/snapshot', lambda msg, hub=hub:
                                    hub.put_stream(msg.data))
            self.listener.subscribe(node + '/snapshot_delta', lambda msg, hub=hub:
                                    hub.put_stream(msg.data), depth=EVENTS_DEPTH)
            self.listener.subscribe(node + '/events', lambda msg, hub=hub:
                                    hub.put_events(msg.data), depth=EVENTS_DEPTH)

    def start(self) -> 'FleetListener':
        """Spin in a background thread."""
        self.listener.start()
        return self

    def close(self) -> None:
        """Stop spinning and release the node."""
        self.listener.close()


class FleetRequestHandler(ViewRequestHandler):
    """Answers the fleet page, ``/fleet`` and each executive's view below its path."""

    server: 'FleetServer'

    def _get(self, *, body: bool) -> None:
        path = self.path.partition('?')[0]
        directory = self.server.directory
        if not self._host_allowed():
            self._error(403, 'unexpected Host header', body)
        elif path in FLEET_FILES:
            name, content_type = FLEET_FILES[path]
            self._send(200, content_type, self.server.assets[name], body)
        elif path == '/fleet':
            data = {'executives': directory.rows(), 'domain_id': self.server.domain_id}
            self._send(200, 'application/json', to_json(data).encode('utf-8'), body)
        elif path.startswith(PREFIX):
            self._executive(path[len(PREFIX) - 1:], body)
        else:
            self._error(404, 'not found', body)

    def _executive(self, rest: str, body: bool) -> None:
        """Serve ``/<node name>/<file>`` of one executive's view."""
        node, _, name = rest.rpartition('/')
        known = {row['node'] for row in self.server.directory.rows()}
        if rest in known:  # no trailing slash: the page's relative links need one
            self.send_response(301)
            self.send_header('Location', executive_url(rest))
            self._send_json_body({'error': '301 moved'}, body=body)
            return
        if node not in known:
            self._error(404, f'no executive {node or "/"} discovered', body)
            return
        hub = self.server.directory.hub(node)
        if hub is None:
            self._error(503, 'the view is closing', body)
            return
        self._serve_view('/' + name, body, hub, node + '/snapshot', node + '/events')


class FleetServer(ViewServer):
    """The view server of the fleet page (see the module's table of paths).

    Args:
        address: ``(host, port)``; port 0 picks a free port
        directory: the executives and their statuses
        keepalive: seconds between SSE keep-alive comments
        verbose: log every request to stderr
    """

    handler = FleetRequestHandler

    def __init__(self, address: tuple[str, int], directory: FleetDirectory, *,
                 keepalive: float = 15.0, verbose: bool = False) -> None:
        self.directory = directory
        self.domain_id = int(os.environ.get('ROS_DOMAIN_ID', '0') or 0)
        super().__init__(address, SnapshotHub(), keepalive=keepalive, verbose=verbose)
        folder = self._folder()
        for name, _ in FLEET_FILES.values():
            if name not in self.assets:
                self.assets[name] = (folder / name).read_bytes()

    @staticmethod
    def _folder() -> Any:
        import importlib.resources
        return importlib.resources.files('bt_executive') / 'viewers' / 'web'


class FleetView(ServedPage):
    """The fleet page: a :class:`FleetListener` and a :class:`FleetServer` (background).

    Args: as :class:`~bt_executive.viewers.webview.WebView`, without the namespace.
    """

    def __init__(self, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 keepalive: float = 15.0, verbose: bool = False,
                 ros_args: Optional[list[str]] = None) -> None:
        self.directory = FleetDirectory(subscribe=self._want)
        super().__init__(host, FleetServer((host, port), self.directory, keepalive=keepalive,
                                           verbose=verbose), 'bt-executive-fleet-http')
        self._ros_args = ros_args

    def _want(self, node: str) -> None:
        if self.listener is not None:
            self.listener.want_views(node)

    def _listen(self) -> 'FleetListener':
        return FleetListener(self.directory, args=self._ros_args).start()

    def _end_streams(self) -> None:
        self.directory.close()
        self.server.hub.close()


def run(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, verbose: bool = False,
        out: Callable[[str], None] = print) -> int:
    """Serve the fleet page until SIGINT or SIGTERM; return the exit code."""
    try:
        view = FleetView(host=host, port=port, verbose=verbose)
    except OSError as error:
        print(f'bt-executive view: cannot listen on {host}:{port}: {error}', file=sys.stderr)
        return 1
    return serve_until_signal(
        view, tool='bt-executive view', host=host, exposed='every tree and its blackboard',
        banner=lambda: f'bt-executive view: {view.url}  (the fleet: every executive in the ROS '
                       'graph; Ctrl-C to stop)', out=out)


__all__ = ['FLEET_FILES', 'FleetDirectory', 'FleetListener', 'FleetServer', 'FleetView',
           'executive_url', 'find_executives', 'run']
