# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Serve a replay to Groot2: ``--groot2-port`` of the replay viewers, ``bt-executive groot2``.

:func:`start` opens the Groot2 server (:mod:`bt_executive.observe.groot2`) over a
:class:`~bt_executive.observe.groot2_replay.Groot2Replay`; the viewers call
``replay.follow(index)`` whenever the state they show changes (served from a thread of
its own, so a far jump never holds up the viewer). :func:`run` is
``bt-executive groot2 --replay run.mcap``: the replay played (or held at a tick) for
Groot2 alone, until Ctrl-C.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any, Callable, Optional, TextIO

from bt_executive.observe.addresses import url_host
from bt_executive.observe.bag import BagError
from bt_executive.observe.groot2 import DEFAULT_ADDRESS, DEFAULT_PORT, Groot2Error, Groot2Server
from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline


class _Say:
    """A logger for the Groot2 server that prints ``tool: message`` on stderr."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    def _print(self, message: str) -> None:
        print(f'{self.tool}: {message}', file=sys.stderr)

    info = warning = error = _print


def start(timeline: Timeline, recording: str, *, port: int, address: str = DEFAULT_ADDRESS,
          tool: str = 'bt-executive', first: int = 0) -> Groot2Replay:
    """Serve ``timeline`` to Groot2 at state ``first``; ``replay.server`` is the server.

    Raises:
        Groot2Error: the port cannot be bound (in use, a bad address) or a tree of the
            recording cannot be served.
    """
    replay = Groot2Replay(timeline, recording=recording)
    replay.server = Groot2Server(port, address, logger=_Say(tool), view=replay.view(first))
    replay.shown = first  # served from the first request on
    return replay


def where(replay: Groot2Replay) -> str:
    """Return where Groot2 connects (``127.0.0.1:1667``)."""
    server = replay.server
    assert server is not None
    host = server.address or DEFAULT_ADDRESS
    return f'{url_host(host)}:{server.port}'


def close(replay: Optional[Groot2Replay]) -> None:
    """Stop serving (idempotent; None: nothing to do)."""
    if replay is not None:
        replay.close()


def run(path: str, *, node: Optional[str] = None, port: int = DEFAULT_PORT,
        address: str = DEFAULT_ADDRESS, tick: Optional[int] = None, speed: float = 1.0,
        loop: bool = False, out: Optional[Callable[[str], None]] = None,
        stream: Optional[TextIO] = None) -> int:
    """Play a recording for Groot2 until SIGINT or SIGTERM; return the exit code.

    It starts at ``tick`` (default: the first state) and plays at ``speed`` times the
    recorded pace (0: stays at that state); at the last state it stays there, or starts
    again with ``loop``.
    """
    from bt_executive.viewers.replay_watch import Player

    tool = 'bt-executive groot2'
    stream = stream or sys.stdout
    out = out or (lambda line: print(line, file=stream, flush=True))  # a pipe sees each line
    if speed < 0:
        print(f'{tool}: --speed must be >= 0 (0: stay at --tick), got {speed:g}',
              file=sys.stderr)
        return 2
    try:
        timeline = Timeline.load(path, node)
        index = timeline.at_tick(tick) if tick is not None else 0
        replay = start(timeline, path, port=port, address=address, tool=tool, first=index)
    except (BagError, ValueError, Groot2Error) as error:
        print(f'{tool}: {error}', file=sys.stderr)
        return 1
    for note in [*timeline.notes, *replay.notes]:
        print(f'{tool}: {note}', file=sys.stderr)
    player = Player(timeline, index)
    player.speed, player.playing = speed or 1.0, speed > 0
    stop = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stop.set())
                for signum in (signal.SIGINT, signal.SIGTERM)}
    tty = stream.isatty()
    state = f'playing at x{speed:g}' if speed else 'holding'
    out(f'{tool}: Groot2 on {where(replay)}  (replay of {path}: {len(timeline)} states of '
        f'{timeline.node}, from tick {timeline.tick(index)}, {state}; Ctrl-C to stop)')
    try:
        play_states(player, replay, stop, loop=loop and speed > 0, progress=(lambda text: print(
            f'\r{text}\x1b[K', end='', file=stream, flush=True)) if tty else None,
            out=out)
    finally:
        if tty:
            print(file=stream)
        close(replay)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def play_states(player: Any, replay: Groot2Replay, stop: threading.Event, *, loop: bool,
                progress: Optional[Callable[[str], None]], out: Callable[[str], None]) -> None:
    """Move through the states as the player says, serving each, until ``stop``."""
    timeline = player.timeline
    last, start = len(timeline) - 1, player.index
    moved_at = time.monotonic()
    said_end = False
    while not stop.is_set():
        replay.show(player.index)
        if progress is not None:
            progress(player.header())
        index = player.index
        wait = player.advance(time.monotonic() - moved_at)
        if player.index != index:
            moved_at = time.monotonic()
            continue
        if not player.playing and index == last and not said_end:
            if loop:
                player.index, player.playing, moved_at = 0, True, time.monotonic()
                continue
            said_end = True
            if progress is None and index != start:
                out(f'bt-executive groot2: the last state (tick {timeline.tick(index)}) '
                    'is served until Ctrl-C')
        stop.wait(wait)


__all__ = ['close', 'run', 'start', 'where']
