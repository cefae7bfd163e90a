# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view``: the live tree of a running executive in a web browser.

A :class:`~bt_executive.ros.listener.SnapshotListener` (its own rclpy context, spun in a
background thread) subscribes to the executive's ``~/snapshot``, ``~/snapshot_delta`` and
``~/events`` topics (docs/snapshots.md) and feeds a :class:`SnapshotHub` (which rebuilds
the state from snapshots and deltas); an HTTP
server (standard library, one thread per connection) serves the page and pushes every new
snapshot to the browser with Server-Sent Events. It changes nothing at the executive but
through ``/debug``, which forwards the page's debug requests to the executive's
``~/debug/...`` (refused there unless the executive runs with ``debug:=true``):

=============  ==================================================================
``/``          the page (``index.html``; ``app.js`` and ``style.css`` next to it)
``/snapshot``  the latest snapshot JSON; 503 with a JSON error until one arrived
``/events``    ``text/event-stream``: ``event: view`` (the topic names) first, the
               latest snapshot at once, then each new one (unnamed events, ``data:``
               the snapshot JSON); ``event: transitions`` for each ``~/events`` batch
               (a new client first gets the last 100 batches received)
``/layout``    where the graph view's boxes go (``?c=...&w=...&h=...``, laid out with
               Graphviz's dot: :mod:`bt_executive.viewers.graph_layout`)
``/debug``     the debugger (:mod:`bt_executive.viewers.debug_web`): GET the executive's
               ``~/debug/state``, POST a request (JSON) forwarded to its ``~/debug/...``
               as a ROS client; a live view only (elsewhere 404, POST 405)
=============  ==================================================================

Only these paths exist: static files come from a fixed allow-list of packaged files read
at start-up, never from a path in the request. Every other path is 404, every method but
GET and HEAD 405 (but POST to a live view's ``/debug``), malformed requests 400 (414,
431, 505), all with a small JSON body. A POST must come from the page itself: its
``Content-Type`` must be ``application/json`` (another site's form or ``fetch`` cannot
send that without a CORS preflight, which is refused), an ``Origin`` header must name
this server (403), and its body must have a ``Content-Length`` of at most
:data:`~bt_executive.viewers.debug_web.MAX_BODY` bytes (411, 413; 415 for another type).
(rclpy is imported by a live view only: replays and reports run without it.)
A query is checked where it means something: the page's ``view`` must be one of
:data:`PAGE_VIEWS`, and ``/layout`` and ``/replay/...`` refuse a parameter they do not
take, one given twice, or a value they cannot use, each with a 400 whose error is a
sentence saying what the path takes. Paths that take no parameter ignore the query (a
cache-busting ``?_=123`` is harmless).
Snapshots arriving faster than a client reads are coalesced (it gets the newest). The
server binds 127.0.0.1 unless told otherwise; while it is bound to a loopback address
it also refuses requests whose ``Host`` header names another host (DNS rebinding).
"""

from __future__ import annotations

import collections
import http.server
import importlib.resources
import json
import selectors
import socket
import socketserver
import sys
import threading
import time
from typing import Any, Callable, Optional
import urllib.parse

from bt_executive.observe.delta import SnapshotState
from bt_executive.observe.snapshot import EVENTS_SCHEMA, SCHEMA, to_json
from bt_executive.ros.listener import DEFAULT_NODE, SnapshotListener, topic_name
from bt_executive.viewers.graph_layout import GraphLayouts
from bt_executive.viewers.serving import (is_loopback, parse_query, QueryError, quoted,
                                          serve_until_signal, ServedPage)

DEFAULT_HOST = '127.0.0.1'
DEFAULT_PORT = 8765

#: Request path -> (packaged file under ``bt_executive/viewers/web``, content type).
STATIC_FILES = {
    '/': ('index.html', 'text/html; charset=utf-8'),
    '/index.html': ('index.html', 'text/html; charset=utf-8'),
    '/app.js': ('app.js', 'text/javascript; charset=utf-8'),
    '/style.css': ('style.css', 'text/css; charset=utf-8'),
    '/graph.js': ('graph.js', 'text/javascript; charset=utf-8'),
    '/search.js': ('search.js', 'text/javascript; charset=utf-8'),
    '/graph.css': ('graph.css', 'text/css; charset=utf-8'),
    '/timeline.js': ('timeline.js', 'text/javascript; charset=utf-8'),
    '/debug.js': ('debug.js', 'text/javascript; charset=utf-8'),
    '/debug.css': ('debug.css', 'text/css; charset=utf-8'),
}
#: Every path the server answers (anything else is 404).
ROUTES = (*STATIC_FILES, '/snapshot', '/events', '/layout', '/debug', '/replay/timeline',
          '/replay/frame', '/replay/find')
#: The views the page's ``view`` parameter chooses (read by graph.js).
PAGE_VIEWS = ('outline', 'graph', 'both')

#: Headers sent with every answer: no caching, no sniffing, nothing but our own files.
SECURITY_HEADERS = (
    ('Cache-Control', 'no-store'),
    ('X-Content-Type-Options', 'nosniff'),
    ('Referrer-Policy', 'no-referrer'),
    ('Content-Security-Policy',
     "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
     "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
)


def topic_names(namespace: str = '', node: str = DEFAULT_NODE) -> tuple[str, str]:
    """Return the absolute ``(snapshot, events)`` topic names of an executive node.

    Args:
        namespace: the executive's namespace (``''``, ``/`` or e.g. ``robot1``)
        node: the executive's node name (or its fully qualified name)

    Raises:
        ValueError: the namespace or the node name is not a valid ROS name.
    """
    return topic_name(namespace, node, 'snapshot'), topic_name(namespace, node, 'events')


def query_problem(path: str, query: str) -> Optional[str]:
    """Return what is wrong with the page's query (its ``view``), or None.

    Only the page's own parameter is looked at here (other parameters of the page are
    ignored, as are the queries of paths that take none); ``/layout`` and ``/replay/...``
    check theirs themselves.
    """
    if not query or path.rsplit('/', 1)[-1] not in ('', 'index.html'):
        return None
    views = [urllib.parse.unquote_plus(value, errors='replace')
             for name, _, value in (field.partition('=') for field in query.split('&'))
             if urllib.parse.unquote_plus(name, errors='replace') == 'view']
    if len(views) > 1:
        return "the query parameter 'view' is given twice: give it once"
    if views and views[0] not in PAGE_VIEWS:
        return (f'view must be {", ".join(PAGE_VIEWS[:-1])} or {PAGE_VIEWS[-1]} (the page\'s '
                f'views), not {quoted(views[0])}')
    return None


def load_assets() -> dict[str, bytes]:
    """Read the packaged web files named in :data:`STATIC_FILES` (once, at start-up)."""
    folder = importlib.resources.files('bt_executive') / 'viewers' / 'web'
    return {name: (folder / name).read_bytes()
            for name in sorted({name for name, _ in STATIC_FILES.values()})}


def parse_message(text: str, schema_prefix: str) -> Optional[str]:
    """Return ``text`` as one line of strict JSON if it is a message of that schema.

    Args:
        text: the ``std_msgs/String`` data received
        schema_prefix: the ``schema`` field must start with this (e.g. the major version)

    Returns:
        compact JSON without line breaks (safe as one SSE ``data:`` line), or None when
        the text is not a JSON object of that schema (NaN and Infinity are refused).
    """
    def refuse(constant: str) -> Any:
        raise ValueError(f'not JSON: {constant}')

    try:
        data = json.loads(text, parse_constant=refuse)
    except ValueError:
        return None
    if not isinstance(data, dict) or not str(data.get('schema', '')).startswith(schema_prefix):
        return None
    if '\n' in text or '\r' in text:
        return to_json(data)
    return text


class _Waker:
    """A socket pair that wakes one streaming client (level-triggered, never blocks)."""

    def __init__(self) -> None:
        self.reader, self._writer = socket.socketpair()
        self.reader.setblocking(False)
        self._writer.setblocking(False)

    def wake(self) -> None:
        try:
            self._writer.send(b'\0')
        except OSError:  # buffer full (a wake-up is pending anyway) or closed
            pass

    def drain(self) -> None:
        try:
            while self.reader.recv(4096):
                pass
        except OSError:  # BlockingIOError: drained
            pass

    def close(self) -> None:
        self.reader.close()
        self._writer.close()


class SnapshotHub:
    """The latest snapshot and recent event batches, shared by every HTTP client.

    Thread-safe: the ROS callbacks put, the HTTP threads read. Streaming clients register
    a waker and are woken on every put, and when the hub closes.

    Args:
        max_clients: most ``/events`` streams at once (more get 503)
        backlog: event batches kept for clients that fall behind
    """

    def __init__(self, *, max_clients: int = 32, backlog: int = 100) -> None:
        self.max_clients = max_clients
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._snapshot: Optional[str] = None
        self._version = 0
        self._batches: collections.deque = collections.deque(maxlen=backlog)
        self._batch_seq = 0
        self._clients: set[_Waker] = set()
        self._closed = False
        self.received = threading.Event()
        self.rejected = 0
        #: the state rebuilt from ``~/snapshot`` and ``~/snapshot_delta`` (put_stream)
        self.model = SnapshotState()
        self._model_lock = threading.Lock()

    @property
    def closed(self) -> bool:
        """Return whether :meth:`close` was called."""
        return self._closed

    def put_snapshot(self, text: str) -> bool:
        """Store a snapshot (``std_msgs/String`` data); False if it is not one."""
        line = parse_message(text, SCHEMA.rsplit('/', 1)[0] + '/')
        if line is None:
            self.rejected += 1
            return False
        with self._lock:
            self._snapshot = line
            self._version += 1
            clients = list(self._clients)
            self._changed.notify_all()
        self.received.set()
        for client in clients:
            client.wake()
        return True

    def put_stream(self, text: str) -> bool:
        """Take a ``~/snapshot`` or ``~/snapshot_delta`` message; store the state rebuilt.

        After a gap in the deltas the last good state stays, with ``behind`` saying what
        was missed, until the next full snapshot (the page shows it in place of "live").

        Returns:
            False if the text is neither (or cannot be applied).
        """
        with self._model_lock:
            try:
                behind = self.model.waiting
                if not self.model.feed_text(text) and self.model.waiting == behind:
                    return True
                snapshot = self.model.snapshot
                if snapshot is None:
                    return True
                if self.model.waiting:  # a gap: the last good state, saying it is behind
                    snapshot = {**snapshot, 'behind': self.model.waiting}
                line = to_json(snapshot)
            except (ValueError, TypeError, KeyError, AttributeError):
                self.rejected += 1
                return False
        return self.put_snapshot(line)

    def put_events(self, text: str) -> bool:
        """Store an event batch (``~/events`` data); False if it is not one."""
        line = parse_message(text, EVENTS_SCHEMA.rsplit('/', 1)[0] + '/')
        if line is None:
            self.rejected += 1
            return False
        with self._lock:
            self._batch_seq += 1
            self._batches.append((self._batch_seq, line))
            clients = list(self._clients)
        for client in clients:
            client.wake()
        return True

    def latest(self) -> Optional[str]:
        """Return the latest snapshot JSON, or None if none arrived yet."""
        with self._lock:
            return self._snapshot

    def wait_snapshot(self, predicate: Callable[[dict[str, Any]], Any] = bool, *,
                      timeout: float) -> Optional[dict[str, Any]]:
        """Wait until the latest snapshot satisfies ``predicate``; return it (parsed).

        Returns:
            the snapshot, or None when ``timeout`` seconds passed or the hub closed first.
        """
        deadline = time.monotonic() + timeout
        version = -1
        with self._changed:
            while not self._closed:
                if self._version != version and self._snapshot is not None:
                    version = self._version
                    snapshot = json.loads(self._snapshot)
                    if predicate(snapshot):
                        return snapshot
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
        return None

    def since(self, version: int, batch_seq: int) -> tuple[int, Optional[str], list]:
        """Return what is newer than a client's ``version`` and ``batch_seq``.

        Returns:
            ``(version, snapshot or None, [(seq, batch), ...])``: the snapshot only if
            it is newer than ``version``; batches newer than ``batch_seq``, oldest first.
        """
        with self._lock:
            snapshot = self._snapshot if self._version > version else None
            batches = [item for item in self._batches if item[0] > batch_seq]
            return self._version, snapshot, batches

    def subscribe(self) -> Optional[_Waker]:
        """Register a streaming client; None if the hub is closed or full."""
        with self._lock:
            if self._closed or len(self._clients) >= self.max_clients:
                return None
            waker = _Waker()
            self._clients.add(waker)
            return waker

    def unsubscribe(self, waker: _Waker) -> None:
        """Unregister a streaming client and release its waker."""
        with self._lock:
            self._clients.discard(waker)
        waker.close()

    def clients(self) -> int:
        """Return the number of streaming clients."""
        with self._lock:
            return len(self._clients)

    def close(self) -> None:
        """Wake every streaming client for the last time; they end their streams."""
        with self._lock:
            self._closed = True
            clients = list(self._clients)
            self._changed.notify_all()
        for client in clients:
            client.wake()


class ViewRequestHandler(http.server.BaseHTTPRequestHandler):
    """Answers GET and HEAD for the fixed routes; everything else is an error answer."""

    server: 'ViewServer'
    server_version = 'bt-executive-view'
    #: Answer even garbled request lines with a status line and headers (no HTTP/0.9).
    default_request_version = 'HTTP/1.0'
    #: Seconds a client may take to send its request (and to accept each write).
    timeout = 10.0

    def __getattr__(self, name: str) -> Any:
        """Answer every method without a ``do_`` handler with 405."""
        if name.startswith('do_'):
            return self._method_not_allowed
        raise AttributeError(name)

    def _method_not_allowed(self) -> None:
        self.close_connection = True
        self._error(405, f'method {self.command} not allowed', self.command != 'HEAD',
                    headers=(('Allow', 'GET, HEAD'), ('Connection', 'close')))
        self._linger()

    def send_error(self, code: int, message: Optional[str] = None,
                   explain: Optional[str] = None) -> None:
        """Answer an error (also the server's own 400/414/431) with a JSON body."""
        self.close_connection = True
        if message is None:
            message = self.responses.get(code, ('error',))[0]
        self.log_error('code %d, message %s', code, message)
        body = self.command != 'HEAD' and code >= 200 and code not in (204, 304)
        self._error(code, message, body, headers=(('Connection', 'close'),))
        self._linger()

    def _linger(self, *, limit: int = 1 << 20, seconds: float = 2.0) -> None:
        """Half-close, then drop what the client still sends (bounded) before closing.

        Closing a socket with unread input resets the connection, which can destroy the
        answer on its way (e.g. a 414 to a request line too long to read, or a 405 to a
        POST with a body). This reads at most ``limit`` bytes for at most ``seconds``.
        """
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + seconds
            while limit > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self.connection.settimeout(remaining)
                chunk = self.connection.recv(min(limit, 1 << 16))
                if not chunk:
                    return
                limit -= len(chunk)
        except OSError:  # reset, timeout: the answer was sent anyway
            return

    def version_string(self) -> str:
        """Return the Server header (no Python version)."""
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib API
        """Log only when the server is verbose (errors are answered, not printed)."""
        if self.server.verbose:
            super().log_message(format, *args)

    def do_HEAD(self) -> None:
        """Answer like GET without the body."""
        self._checked_get(body=False)

    def do_GET(self) -> None:
        """Serve the page, its files, ``/snapshot``, ``/events`` and ``/layout``."""
        self._checked_get(body=True)

    def do_POST(self) -> None:
        """Forward a debug request (``/debug`` of a live view); elsewhere 405."""
        debug = self._debug_service(self.path.partition('?')[0])
        if debug is None:
            self._method_not_allowed()
            return
        problem = self._post_problem(debug)
        if problem is not None:
            self.close_connection = True
            self._error(*problem, True, headers=(('Connection', 'close'),))
            self._linger()
            return
        length = int(self.headers['Content-Length'])
        code, data = debug.answer_post(self.rfile.read(length))
        self.send_response(code)
        self._send_json_body(data, body=True)

    def _debug_service(self, path: str) -> Any:
        """Return the debugger answering ``path`` (a DebugService), or None."""
        return self.server.debug if path == '/debug' else None

    def _post_problem(self, debug: Any) -> Optional[tuple[int, str]]:
        """Return ``(code, sentence)`` when a POST is not the page's own request, or None."""
        if not self._host_allowed():
            return 403, 'unexpected Host header'
        origin = self.headers.get('Origin')
        if origin is not None and origin != f'http://{self.headers.get("Host", "")}':
            return 403, f'cross-origin request refused (Origin {quoted(origin)})'
        kind = (self.headers.get('Content-Type') or '').partition(';')[0].strip().lower()
        if kind != 'application/json':
            return 415, 'the body must be application/json'
        length = self.headers.get('Content-Length')
        if length is None or not length.strip().isdigit():
            return 411, 'Content-Length required'
        if int(length) > debug.max_body:
            return 413, f'a request is at most {debug.max_body} bytes'
        return None

    def _checked_get(self, *, body: bool) -> None:
        """Answer a bad ``view`` of the page with 400 and a sentence; else route."""
        path, _, query = self.path.partition('?')
        problem = query_problem(path, query) if self._host_allowed() else None
        if problem is not None:
            self._error(400, problem, body)
            return
        self._get(body=body)

    # ---- routing -------------------------------------------------------------------

    def _get(self, *, body: bool) -> None:
        path = self.path.partition('?')[0]
        if not self._host_allowed():
            self._error(403, 'unexpected Host header', body)
        else:
            self._serve_view(path, body, self.server.hub, self.server.topic,
                             self.server.events_topic, self.server.debug)

    def _serve_view(self, path: str, body: bool, hub: 'SnapshotHub', topic: str,
                    events_topic: str, debug: Any = None) -> None:
        """Answer a path of one executive's view (the page, its files, the data).

        ``debug`` answers ``/debug`` (a DebugService; None: 404).
        """
        if path in STATIC_FILES:
            name, content_type = STATIC_FILES[path]
            self._send(200, content_type, self.server.assets[name], body)
        elif path == '/snapshot':
            snapshot = hub.latest()
            if snapshot is None:
                self.send_response(503)
                self.send_header('Retry-After', '1')
                self._send_json_body({'error': '503 no snapshot received yet',
                                      'topic': topic}, body=body)
            else:
                self._send(200, 'application/json', snapshot.encode('utf-8'), body)
        elif path == '/events':
            self._stream(body, hub, topic, events_topic)
        elif path == '/layout':
            try:
                code, data = self.server.layouts.answer(
                    parse_query(self.path.partition('?')[2]))
            except QueryError as error:
                code, data = 400, {'error': f'400 {error}'}
            self.send_response(code)
            self._send_json_body(data, body=body)
        elif path == '/debug' and debug is not None:
            code, data = debug.answer_get()
            self.send_response(code)
            self._send_json_body(data, body=body)
        elif path.startswith('/replay/') and self.server.replay is not None:
            code, data = self.server.replay.answer(path, self.path.partition('?')[2])
            self.send_response(code)
            self._send_json_body(data, body=body)
        else:
            self._error(404, 'not found', body)

    def _host_allowed(self) -> bool:
        """Refuse foreign Host headers while bound to loopback (DNS rebinding)."""
        if not self.server.loopback_only:
            return True
        host = self.headers.get('Host')
        if host is None:
            return True  # HTTP/1.0 without Host
        try:
            name = urllib.parse.urlsplit('//' + host.strip()).hostname or ''
        except ValueError:  # e.g. an unbalanced '[' (IPv6 literal)
            return False
        return is_loopback(name)

    # ---- answers -------------------------------------------------------------------

    def _security_headers(self) -> None:
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)

    def _send(self, code: int, content_type: str, data: bytes, body: bool) -> None:
        self.send_response(code)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self._security_headers()
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _send_json_body(self, data: dict[str, Any], *, body: bool) -> None:
        """Finish an answer whose status line is sent with a JSON body."""
        payload = (json.dumps(data) + '\n').encode('utf-8')
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(payload)))
        self._security_headers()
        self.end_headers()
        if body:
            self.wfile.write(payload)

    def _error(self, code: int, message: str, body: bool, *,
               headers: tuple[tuple[str, str], ...] = ()) -> None:
        """Answer ``code`` with ``{"error": "<code> <message>"}``."""
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self._send_json_body({'error': f'{code} {message}'}, body=body)

    def _stream(self, body: bool, hub: 'SnapshotHub', topic: str, events_topic: str) -> None:
        """Stream Server-Sent Events until the client leaves or the server stops."""
        if not body:
            self._stream_headers()
            return
        waker = hub.subscribe()
        if waker is None:
            self._error(503, 'too many event streams', body, headers=(('Retry-After', '5'),))
            return
        self.close_connection = True
        selector = selectors.DefaultSelector()
        try:
            selector.register(self.connection, selectors.EVENT_READ)
            selector.register(waker.reader, selectors.EVENT_READ)
            self._stream_headers()
            view = to_json({'topic': topic, 'events_topic': events_topic})
            self._write_event(f'retry: 2000\nevent: view\ndata: {view}\n\n')
            version, seen = 0, 0
            while not hub.closed:
                version, snapshot, batches = hub.since(version, seen)
                parts = [f'data: {snapshot}\n\n'] if snapshot is not None else []
                for seq, batch in batches:
                    parts.append(f'event: transitions\ndata: {batch}\n\n')
                    seen = seq
                if parts:
                    self._write_event(''.join(parts))
                ready = [key.fileobj for key, _ in selector.select(self.server.keepalive)]
                if self.connection in ready and not self._client_still_there():
                    return
                if waker.reader in ready:
                    waker.drain()
                if not ready:
                    self._write_event(': keep-alive\n\n')
        except OSError:  # the client went away while we wrote (reset, broken pipe, timeout)
            return
        finally:
            selector.close()
            hub.unsubscribe(waker)

    def _stream_headers(self) -> None:
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream; charset=utf-8')
        self._security_headers()
        self.end_headers()

    def _client_still_there(self) -> bool:
        """Read what a streaming client sent (nothing is expected); False on EOF."""
        try:
            return bool(self.connection.recv(4096))
        except OSError:
            return False

    def _write_event(self, text: str) -> None:
        self.wfile.write(text.encode('utf-8'))
        self.wfile.flush()


class ViewServer(http.server.ThreadingHTTPServer):
    """The HTTP server of the view: one daemon thread per connection.

    Args:
        address: ``(host, port)``; port 0 picks a free port (see :attr:`port`)
        hub: where the snapshots come from
        topic: the snapshot topic (shown by the page, and in 503 answers)
        events_topic: the events topic (shown by the page)
        keepalive: seconds between SSE keep-alive comments on a quiet stream
        verbose: log every request to stderr
    """

    daemon_threads = True
    block_on_close = False
    #: the request handler class (the fleet view answers more paths)
    handler: type = ViewRequestHandler

    def __init__(self, address: tuple[str, int], hub: SnapshotHub, *, topic: str = '',
                 events_topic: str = '', keepalive: float = 15.0,
                 verbose: bool = False) -> None:
        self.address_family = socket.AF_INET6 if ':' in address[0] else socket.AF_INET
        self.hub = hub
        self.topic = topic
        self.events_topic = events_topic
        self.keepalive = keepalive
        self.verbose = verbose
        #: unexpected errors raised by request handlers (each also printed to stderr)
        self.errors: list[BaseException] = []
        self.assets = load_assets()
        self.loopback_only = is_loopback(address[0])
        #: answers ``/replay/...`` (bt_executive.viewers.replay_web); None: 404 (live)
        self.replay: Any = None
        #: answers ``/layout`` (the graph view's layouts, cached)
        self.layouts = GraphLayouts()
        #: answers ``/debug`` (a :class:`~bt_executive.viewers.debug_web.DebugService`);
        #: None: 404, POST 405 (not a live view)
        self.debug: Any = None
        super().__init__(address, self.handler)

    @property
    def port(self) -> int:
        """Return the bound port."""
        return self.server_address[1]

    def server_bind(self) -> None:
        """Bind without the reverse DNS look-up of :class:`http.server.HTTPServer`."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.port

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore clients that went away; note anything else and report it on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.errors.append(error)
        super().handle_error(request, client_address)


class WebView(ServedPage):
    """The view: a ROS listener feeding a :class:`SnapshotHub`, a :class:`ViewServer` serving it.

    Use :meth:`start` (or ``with WebView(...) as view:``), then :attr:`url`; :meth:`close`
    stops both. The server runs in a background thread.

    Args:
        namespace: the executive's namespace
        node: the executive's node name
        host: address to bind (default 127.0.0.1; anything else exposes the view)
        port: port to bind (0: any free port)
        keepalive: seconds between SSE keep-alive comments
        verbose: log every request to stderr
        ros_args: ROS command-line arguments for the listener's context
    """

    def __init__(self, *, namespace: str = '', node: str = DEFAULT_NODE,
                 host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, keepalive: float = 15.0,
                 verbose: bool = False, ros_args: Optional[list[str]] = None) -> None:
        self.topic, self.events_topic = topic_names(namespace, node)
        self.namespace, self.node = namespace, node
        self.hub = SnapshotHub()
        super().__init__(host, ViewServer((host, port), self.hub, topic=self.topic,
                                          events_topic=self.events_topic,
                                          keepalive=keepalive, verbose=verbose),
                         'bt-executive-view-http')
        self._ros_args = ros_args

    def _listen(self) -> SnapshotListener:
        listener = SnapshotListener(
            self.namespace, self.node, on_snapshot=self.hub.put_stream,
            on_delta=self.hub.put_stream, on_events=self.hub.put_events,
            name='bt_executive_view', args=self._ros_args)
        try:  # made before the listener spins: its thread then serves the answers
            from bt_executive.ros.debug_client import DebugClient
            from bt_executive.viewers.debug_web import DebugService
            executive = f'{listener.namespace.rstrip("/")}/{listener.executive}'
            self.server.debug = DebugService(DebugClient(listener.node, executive))
        except BaseException:
            listener.close()
            raise
        return listener.start()

    def _end_streams(self) -> None:
        self.hub.close()


def run(*, namespace: str = '', node: str = DEFAULT_NODE, host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT, verbose: bool = False,
        out: Callable[[str], None] = print) -> int:
    """Serve the view until SIGINT or SIGTERM (``bt-executive view``); return the exit code."""
    try:
        view = WebView(namespace=namespace, node=node, host=host, port=port, verbose=verbose)
    except ValueError as error:
        print(f'bt-executive view: {error}', file=sys.stderr)
        return 2
    except OSError as error:
        print(f'bt-executive view: cannot listen on {host}:{port}: {error}', file=sys.stderr)
        return 1
    return serve_until_signal(
        view, tool='bt-executive view', host=host, exposed='the tree and its blackboard',
        banner=lambda: f'bt-executive view: {view.url}  (snapshots from {view.topic}; '
                       'Ctrl-C to stop)', out=out)


__all__ = ['DEFAULT_HOST', 'DEFAULT_NODE', 'DEFAULT_PORT', 'PAGE_VIEWS', 'QueryError', 'ROUTES',
           'STATIC_FILES', 'SnapshotHub', 'SnapshotListener', 'ViewServer', 'WebView',
           'is_loopback', 'load_assets', 'parse_message', 'parse_query', 'query_problem',
           'run', 'topic_names']
