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
                           the live page showed it, the last 50 transitions of the
                           ticks up to its tick: :func:`place_events`)
``/replay/find?...``       ``from=N&node=ID&dir=1`` the next (``dir=-1`` previous) status
                           change of a node; ``from=N&failure=1[&node=ID]`` the next
                           FAILURE; ``tick=T`` the frame shown at tick T:
                           ``{"index": N or null}``
=========================  ===========================================================

``/replay/frame`` and ``/replay/find`` answer any other query parameter (a typo), one
given twice, a value that is not a number where one is wanted, a frame out of range,
an unknown node with 400 and a sentence saying what the path takes.

The page's ``timeline.js`` asks for ``/replay/timeline`` at start; in the live view that
path is 404 and it stays hidden. It fetches a frame only to show it, so with
``--groot2-port`` the frame last fetched is the one served to Groot2 (docs/groot2.md).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import signal
import sys
import threading
from typing import Any, Callable, Iterable, Optional

from bt_executive.observe.addresses import url_host
from bt_executive.observe.bag import Bag, BagError, read_bag
from bt_executive.observe.groot2 import DEFAULT_ADDRESS as GROOT2_ADDRESS, Groot2Error
from bt_executive.observe.replay import Timeline
from bt_executive.viewers import replay_groot2
from bt_executive.viewers.serving import parse_query, QueryError, quoted
from bt_executive.viewers.webview import (DEFAULT_HOST, DEFAULT_PORT, is_loopback,
                                          SnapshotHub, ViewServer)

#: Transitions sent with a frame (the newest up to it).
EVENTS_SHOWN = 50
_WHOLE = re.compile(r'[+-]?[0-9]{1,18}')
_FIND_PARAMETERS = ('from', 'dir', 'node', 'failure')
_YES, _NO = ('1', 'true', 'yes'), ('', '0', 'false', 'no')


def recorded_trees(bag: Bag, node: str) -> list[tuple[Any, Any]]:
    """Return the ``(session, revision)`` of each transition in the ``~/events`` of a bag.

    In recorded order, one item per event, as :class:`Timeline` reads them (so the two
    lists line up): an unreadable batch gives none.
    """
    trees: list[tuple[Any, Any]] = []
    for message in bag.messages:
        if message.topic != node + '/events':
            continue
        try:
            batch = json.loads(message.text)
            events = batch.get('events') or []
            trees.extend((batch.get('session'), batch.get('revision')) for _ in events)
        except (ValueError, AttributeError, TypeError):
            continue
    return trees


def place_events(timeline: Timeline, trees: Optional[list[tuple[Any, Any]]] = None,
                 ) -> list[tuple[int, dict[str, Any]]]:
    """Return ``(frame, event)``: each transition with the first frame that shows its tick.

    A transition belongs to the state after its tick: it is shown from the first frame of
    its tree (session and revision) whose tick is at least the transition's, not from the
    frame it happened to be recorded after (``~/events`` and ``~/snapshot_delta`` are two
    topics: a tick's transitions often arrive just before the delta that shows them).
    A transition whose state no frame shows (the recording ends first) is left out.

    Args:
        timeline: the frames and the recorded transitions
        trees: :func:`recorded_trees` of the recording; without it (or when it does not
            line up) each transition counts as of the tree of the frame it came after
    """
    runs: dict[tuple[Any, Any], tuple[list[int], list[int]]] = {}
    for index, frame in enumerate(timeline.frames):
        ticks, indexes = runs.setdefault((frame.get('session'), frame.get('revision')),
                                         ([], []))
        ticks.append(timeline.tick(index))
        indexes.append(index)
    if trees is None or len(trees) != len(timeline.events):
        trees = [(timeline.frames[at].get('session'), timeline.frames[at].get('revision'))
                 for at, _ in timeline.events]
    placed: list[tuple[int, int, dict[str, Any]]] = []
    for order, ((at, event), tree) in enumerate(zip(timeline.events, trees)):
        tick = event.get('tick') if isinstance(event, dict) else None
        run = runs.get(tree)
        if run is None or not isinstance(tick, int) or isinstance(tick, bool):
            frame = at + 1 if at + 1 < len(timeline) else None  # after what it came with
        else:
            ticks, indexes = run
            position = bisect.bisect_left(ticks, tick)
            if position < len(ticks):
                frame = indexes[position]
            else:  # its tree's last state came earlier: shown from the next tree on
                frame = indexes[-1] + 1 if indexes[-1] + 1 < len(timeline) else None
        if frame is not None:
            placed.append((frame, order, event))
    placed.sort(key=lambda item: (item[0], item[1]))
    return [(frame, event) for frame, _, event in placed]


class ReplayService:
    """Answer the ``/replay/...`` requests from one timeline (thread-safe: read-only).

    ``on_show(index)`` is called with every frame the page fetches (it shows each one it
    fetches): the Groot2 server follows it.

    Args:
        timeline: the recording's frames
        source: the recording's path (``/replay/timeline`` says it)
        on_show: called with each frame fetched
        trees: :func:`recorded_trees` of the recording (see :func:`place_events`)
    """

    def __init__(self, timeline: Timeline, source: str = '',
                 on_show: Optional[Callable[[int], None]] = None, *,
                 trees: Optional[list[tuple[Any, Any]]] = None) -> None:
        self.timeline = timeline
        self.source = source
        self.on_show = on_show
        placed = place_events(timeline, trees)
        self._event_frames = [frame for frame, _ in placed]
        self._events = [event for _, event in placed]
        self._nodes: Optional[frozenset[str]] = None

    def events_at(self, index: int, limit: int = EVENTS_SHOWN) -> list[dict[str, Any]]:
        """Return the last ``limit`` transitions of the states up to frame ``index``."""
        end = bisect.bisect_right(self._event_frames, index)
        return self._events[max(end - limit, 0):end]

    def answer(self, path: str, query: str) -> tuple[int, dict[str, Any]]:
        """Return ``(HTTP status, JSON data)`` for a ``/replay/...`` request.

        A query parameter the path does not take (a typo: ``index=3`` for ``i=3``), one
        given twice, or a value it cannot use, is a 400 whose error says in a sentence
        what the path takes.
        """
        timeline = self.timeline
        try:
            if path == '/replay/timeline':  # takes no parameter: a query is ignored
                return 200, dict(timeline.summary(), source=self.source)
            if path not in ('/replay/frame', '/replay/find'):
                return 404, {'error': '404 not found'}
            values = parse_query(query)
            if path == '/replay/frame':
                self._only(path, values, ('i',))
                index = self._frame('i', values.get('i', '0'))
                if self.on_show is not None:
                    self.on_show(index)
                return 200, {'index': index, 'snapshot': timeline.frames[index],
                             'events': self.events_at(index)}
            if path == '/replay/find':
                return 200, {'index': self._find(values)}
        except QueryError as error:
            return 400, {'error': f'400 {error}'}
        return 404, {'error': '404 not found'}

    def _find(self, values: dict[str, str]) -> Optional[int]:
        timeline = self.timeline
        if 'tick' in values:
            others = [name for name in values if name != 'tick']
            if others:
                raise QueryError(f'/replay/find takes tick alone (the state shown at a '
                                 f'tick); {quoted(others[0])} cannot go with it')
            return timeline.at_tick(self._whole('tick', values['tick'], 0,
                                                'a tick count, a whole number from 0'))
        self._only('/replay/find', values, _FIND_PARAMETERS, also='tick')
        start = self._frame('from', values.get('from', '0'))
        direction = values.get('dir', '1')
        if direction not in ('1', '+1', '-1'):
            raise QueryError(f'dir must be 1 (forward) or -1 (backward), not '
                             f'{quoted(direction)}')
        step = -1 if direction == '-1' else 1
        failure = values.get('failure', '').lower()
        if failure not in _YES + _NO:
            raise QueryError(f'failure must be 1 (find the next FAILURE) or 0, not '
                             f'{quoted(values["failure"])}')
        node = values.get('node') or None
        if node is not None and node not in self._known_nodes():
            raise QueryError(f'node {quoted(node, 80)} is not a node of this recording '
                             '(give a node id, e.g. Main/root/child)')
        if failure in _YES:
            return timeline.next_failure(start, node, step)
        if node is None:
            raise QueryError('/replay/find needs tick=T (the state at a tick), failure=1 '
                             '(the next FAILURE) or node=ID (the next status change of a '
                             'node)')
        return timeline.next_change(start, node, step)

    def _known_nodes(self) -> frozenset[str]:
        if self._nodes is None:
            self._nodes = frozenset(node.get('id') for frame in self.timeline.frames
                                    for node in frame.get('nodes') or ())
        return self._nodes

    @staticmethod
    def _only(path: str, values: dict[str, str], names: Iterable[str], *,
              also: str = '') -> None:
        """Refuse parameters other than ``names`` (``also``: taken, but not with these)."""
        names = tuple(names)
        for name in values:
            if name in names:
                continue
            takes = ', '.join(names) + (f' (or {also} alone)' if also else '')
            raise QueryError(f'{path} takes {takes}; {quoted(name)} is not one of them')

    def _frame(self, name: str, text: str) -> int:
        last = len(self.timeline) - 1
        return self._whole(name, text, 0, f'a frame number from 0 to {last}', high=last)

    @staticmethod
    def _whole(name: str, text: str, low: int, what: str, *,
               high: Optional[int] = None) -> int:
        if not _WHOLE.fullmatch(text):
            raise QueryError(f'{name} must be {what}, not {quoted(text)}')
        number = int(text)
        if number < low or (high is not None and number > high):
            raise QueryError(f'{name} must be {what}, not {number}')
        return number


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
    bag = read_bag(path)
    timeline = Timeline.from_bag(bag, node)
    trees = recorded_trees(bag, timeline.node)
    del bag
    groot2 = None if groot2_port is None else replay_groot2.start(
        timeline, path, port=groot2_port, address=groot2_address, tool='bt-executive view')
    hub = SnapshotHub()  # stays empty: the page shows the frames timeline.js fetches
    try:
        # the recording's name only: the page shows no folder of this machine
        server = ViewServer((host, port), hub, verbose=verbose,
                            topic=f'{timeline.node} (replay of {os.path.basename(path)})')
    except BaseException:
        replay_groot2.close(groot2)
        raise
    server.replay = ReplayService(timeline, path, trees=trees,
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


__all__ = ['ReplayService', 'close', 'place_events', 'recorded_trees', 'run', 'serve']
