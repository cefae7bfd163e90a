# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view --replay run.mcap``: the web page over a recording, with a timeline.

The same server and page as the live view (:mod:`bt_executive.viewers.webview`), fed
from a :class:`~bt_executive.observe.replay.Timeline` instead of ROS. Two more paths
answer JSON (GET only, like the rest):

=========================  ===========================================================
``/replay/timeline``       the frames (tick, seconds since the start, root status) and
                           the notes (a cut-off file, gaps)
``/replay/frame?i=N``      frame N: ``{"index", "snapshot", "events"}`` (the snapshot as
                           the live page showed it, the transitions up to it)
``/replay/find?...``       ``from=N&node=ID&dir=1`` the next (``dir=-1`` previous) status
                           change of a node; ``from=N&failure=1[&node=ID]`` the next
                           FAILURE; ``tick=T`` the frame shown at tick T:
                           ``{"index": N or null}``
=========================  ===========================================================

The page's ``timeline.js`` asks for ``/replay/timeline`` at start; in the live view that
path is 404 and it stays hidden. It fetches a frame only to show it, so with
``--groot2-port`` the frame last fetched is the one served to Groot2 (docs/groot2.md).
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any, Callable, Optional
import urllib.parse

from bt_executive.observe.addresses import url_host
from bt_executive.observe.bag import BagError
from bt_executive.observe.groot2 import DEFAULT_ADDRESS as GROOT2_ADDRESS, Groot2Error
from bt_executive.observe.replay import Timeline
from bt_executive.viewers import replay_groot2
from bt_executive.viewers.webview import (DEFAULT_HOST, DEFAULT_PORT, is_loopback,
                                          SnapshotHub, ViewServer)


class ReplayService:
    """Answer the ``/replay/...`` requests from one timeline (thread-safe: read-only).

    ``on_show(index)`` is called with every frame the page fetches (it shows each one it
    fetches): the Groot2 server follows it.
    """

    def __init__(self, timeline: Timeline, source: str = '',
                 on_show: Optional[Callable[[int], None]] = None) -> None:
        self.timeline = timeline
        self.source = source
        self.on_show = on_show

    def answer(self, path: str, query: str) -> tuple[int, dict[str, Any]]:
        """Return ``(HTTP status, JSON data)`` for a ``/replay/...`` request."""
        values = {key: items[-1] for key, items in urllib.parse.parse_qs(query).items()}
        timeline = self.timeline
        try:
            if path == '/replay/timeline':
                return 200, dict(timeline.summary(), source=self.source)
            if path == '/replay/frame':
                index = self._index(values.get('i', '0'))
                if self.on_show is not None:
                    self.on_show(index)
                return 200, {'index': index, 'snapshot': timeline.frames[index],
                             'events': timeline.events_until(index)}
            if path == '/replay/find':
                if 'tick' in values:
                    return 200, {'index': timeline.at_tick(int(values['tick']))}
                start = self._index(values.get('from', '0'))
                step = -1 if values.get('dir') == '-1' else 1
                node = values.get('node') or None
                if values.get('failure'):
                    return 200, {'index': timeline.next_failure(start, node, step)}
                if node is None:
                    return 400, {'error': '400 find: give node=ID, failure=1 or tick=T'}
                return 200, {'index': timeline.next_change(start, node, step)}
        except ValueError as error:
            return 400, {'error': f'400 {error}'}
        return 404, {'error': '404 not found'}

    def _index(self, text: str) -> int:
        index = int(text)
        if not 0 <= index < len(self.timeline):
            raise ValueError(f'frame {index} is not in 0..{len(self.timeline) - 1}')
        return index


def serve(path: str, *, node: Optional[str] = None, host: str = DEFAULT_HOST,
          port: int = DEFAULT_PORT, verbose: bool = False, groot2_port: Optional[int] = None,
          groot2_address: str = GROOT2_ADDRESS) -> ViewServer:
    """Return a view server over the recording ``path`` (not yet serving).

    With ``groot2_port`` (0: any free port) a Groot2 server serves the frame the page
    shows: ``server.groot2`` (a :class:`~bt_executive.observe.groot2_replay.Groot2Replay`;
    None without), closed by :func:`close`.

    Raises:
        BagError, ValueError: the recording cannot be read or has no snapshot.
        Groot2Error: the Groot2 port cannot be bound.
        OSError: the address cannot be bound.
    """
    timeline = Timeline.load(path, node)
    groot2 = None if groot2_port is None else replay_groot2.start(
        timeline, path, port=groot2_port, address=groot2_address, tool='bt-executive view')
    hub = SnapshotHub()  # stays empty: the page shows the frames timeline.js fetches
    try:
        server = ViewServer((host, port), hub, topic=f'{timeline.node} (replay of {path})',
                            verbose=verbose)
    except BaseException:
        replay_groot2.close(groot2)
        raise
    server.replay = ReplayService(timeline, path,
                                  on_show=None if groot2 is None else groot2.follow)
    server.groot2 = groot2
    return server


def close(server: ViewServer) -> None:
    """Release what :func:`serve` opened (after ``server.shutdown()``, if it served)."""
    server.server_close()
    replay_groot2.close(getattr(server, 'groot2', None))


def run(path: str, *, node: Optional[str] = None, host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT, verbose: bool = False, groot2_port: Optional[int] = None,
        groot2_address: str = GROOT2_ADDRESS, out: Callable[[str], None] = print) -> int:
    """Serve the replay (and to Groot2 with ``groot2_port``) until SIGINT or SIGTERM."""
    try:
        server = serve(path, node=node, host=host, port=port, verbose=verbose,
                       groot2_port=groot2_port, groot2_address=groot2_address)
    except (BagError, ValueError, Groot2Error) as error:
        print(f'bt-executive view: {error}', file=sys.stderr)
        return 1
    except OSError as error:
        print(f'bt-executive view: cannot listen on {host}:{port}: {error}', file=sys.stderr)
        return 1
    stop = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stop.set())
                for signum in (signal.SIGINT, signal.SIGTERM)}
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.2},
                              name='bt-executive-replay-http', daemon=True)
    try:
        thread.start()
        timeline = server.replay.timeline
        groot2 = server.groot2
        for note in [*timeline.notes, *(groot2.notes if groot2 is not None else ())]:
            print(f'bt-executive view: {note}', file=sys.stderr)
        if not is_loopback(host):
            print(f'bt-executive view: WARNING: listening on {host}, not loopback',
                  file=sys.stderr)
        out(f'bt-executive view: http://{url_host(host)}:{server.port}/  (replay of {path}: '
            f'{len(timeline)} states of {timeline.node}'
            + (f'; Groot2 on {replay_groot2.where(groot2)}' if groot2 is not None else '')
            + '; Ctrl-C to stop)')
        while not stop.wait(1.0):
            pass
    finally:
        server.hub.close()
        server.shutdown()
        thread.join(5.0)
        close(server)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


__all__ = ['ReplayService', 'close', 'run', 'serve']
