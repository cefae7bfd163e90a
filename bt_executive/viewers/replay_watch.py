# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive watch --replay run.mcap``: step through a recording in the terminal.

The recording becomes a :class:`~bt_executive.observe.replay.Timeline` (the states the
live viewers showed, one per change) and each state is drawn with the live watcher's
frame. On a terminal the keys step and play; without one (or with ``--once``) it prints
the state at ``--tick N`` (default: the last) and exits.

Keys: ``space`` play/pause, ``right``/``l`` next change, ``left``/``h`` previous,
``f``/``F`` next/previous FAILURE, ``n``/``N`` next/previous change of the chosen node,
``[``/``]`` choose the node (along the active path and the why-chain), ``+``/``-``
speed, ``home``/``end`` first/last, ``q`` quit. With ``--groot2-port`` a Groot2 server
serves the state shown (:mod:`bt_executive.viewers.replay_groot2`).
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import termios
import time
import tty
from typing import Any, Callable, Optional, TextIO

from bt_executive.observe.bag import BagError
from bt_executive.observe.groot2 import DEFAULT_ADDRESS as GROOT2_ADDRESS, Groot2Error
from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from bt_executive.viewers import replay_groot2
from bt_executive.viewers.watch import console_for, safe_frame, to_text
from rich.live import Live

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
_KEYS = {'\x1b[C': 'next', 'l': 'next', '\x1b[D': 'previous', 'h': 'previous',
         ' ': 'play', 'f': 'failure', 'F': 'failure-back', 'n': 'node', 'N': 'node-back',
         ']': 'choose', '[': 'choose-back', '+': 'faster', '=': 'faster', '-': 'slower',
         '\x1b[H': 'first', 'g': 'first', '\x1b[F': 'last', 'G': 'last', 'q': 'quit',
         '\x03': 'quit'}


class Player:
    """Where a replay is: the frame shown, playing or not, the speed, the chosen node."""

    def __init__(self, timeline: Timeline, index: int = 0) -> None:
        self.timeline = timeline
        self.index = index
        self.playing = False
        self.speed = 1.0
        self.node: Optional[str] = None
        self.message = ''
        #: shown after the position (e.g. where Groot2 is served)
        self.suffix = ''

    def header(self) -> str:
        """Return the replay's status line."""
        timeline, index = self.timeline, self.index
        seconds = (timeline.log_times[index] - timeline.log_times[0]) / 1e9
        state = f'playing x{self.speed:g}' if self.playing else 'paused'
        node = f'  node {self.node}' if self.node else ''
        text = (f'replay {index + 1}/{len(timeline)}  tick {timeline.tick(index)}  '
                f'+{seconds:.1f} s  {state}{node}{self.suffix}')
        notes = ' | '.join([*timeline.notes, self.message] if self.message else timeline.notes)
        return f'{text}  {notes}' if notes else text

    def candidates(self) -> list[str]:
        """Return the nodes worth choosing now: the active path and the why-chain."""
        snapshot = self.timeline.frames[self.index]
        names = list(snapshot.get('active_path') or [])
        names += [step['id'] for step in snapshot.get('why') or [] if step['id'] not in names]
        return names or [node['id'] for node in snapshot['nodes']]

    def act(self, action: str) -> bool:
        """Do one key's action; return False to quit."""
        timeline, found = self.timeline, None
        self.message = ''
        if action == 'quit':
            return False
        if action == 'play':
            self.playing = not self.playing
            if self.playing and self.index == len(timeline) - 1:
                self.index = 0
        elif action in ('next', 'previous'):
            self.playing = False
            step = 1 if action == 'next' else -1
            self.index = min(max(self.index + step, 0), len(timeline) - 1)
        elif action in ('first', 'last'):
            self.index = 0 if action == 'first' else len(timeline) - 1
        elif action in ('faster', 'slower'):
            at = SPEEDS.index(self.speed) + (1 if action == 'faster' else -1)
            self.speed = SPEEDS[min(max(at, 0), len(SPEEDS) - 1)]
        elif action in ('choose', 'choose-back'):
            names = self.candidates()
            at = names.index(self.node) if self.node in names else -1
            self.node = names[(at + (1 if action == 'choose' else -1)) % len(names)]
        elif action in ('failure', 'failure-back'):
            found = timeline.next_failure(self.index, step=1 if action == 'failure' else -1)
            self.message = '' if found is not None else 'no further FAILURE'
        elif action in ('node', 'node-back'):
            if self.node is None:
                self.message = 'choose a node first ([ or ])'
            else:
                found = timeline.next_change(self.index, self.node,
                                             1 if action == 'node' else -1)
                self.message = '' if found is not None else f'{self.node} does not change again'
        if found is not None:
            self.playing = False
            self.index = found
        return True

    def advance(self, elapsed: float) -> float:
        """Play: move on as the recorded times say; return seconds to the next frame."""
        timeline = self.timeline
        if not self.playing or self.index >= len(timeline) - 1:
            self.playing = False
            return 0.5
        gap = (timeline.log_times[self.index + 1] - timeline.log_times[self.index]) / 1e9
        wait = gap / self.speed - elapsed
        if wait <= 0:
            self.index += 1
            return 0.0
        return min(wait, 0.5)


def run(path: str, *, node: Optional[str] = None, tick: Optional[int] = None,
        once: bool = False, color: Optional[bool] = None, ascii_only: bool = False,
        stream: Optional[TextIO] = None, groot2_port: Optional[int] = None,
        groot2_address: str = GROOT2_ADDRESS) -> int:
    """Replay a recording; return the exit code (1: it cannot be read; 2: misused).

    With ``groot2_port`` (0: any free port) a Groot2 server serves the state shown; that
    needs the interactive replay (a terminal, no ``once``).
    """
    stream = stream or sys.stdout
    interactive = not once and stream.isatty() and sys.stdin.isatty()
    if groot2_port is not None and not interactive:
        print('bt-executive watch: --groot2-port follows the state shown on a terminal: '
              'without one (or with --once) serve a state to Groot2 with bt-executive '
              'groot2 --replay FILE --tick N --speed 0', file=sys.stderr)
        return 2
    groot2: Optional[Groot2Replay] = None
    try:
        timeline = Timeline.load(path, node)
        index = timeline.at_tick(tick) if tick is not None else len(timeline) - 1
        if groot2_port is not None:
            groot2 = replay_groot2.start(timeline, path, port=groot2_port,
                                         address=groot2_address, tool='bt-executive watch',
                                         first=index if tick is not None else 0)
    except (BagError, ValueError, Groot2Error) as error:
        print(f'bt-executive watch: {error}', file=sys.stderr)
        return 1
    for note in [*timeline.notes, *(groot2.notes if groot2 is not None else ())]:
        print(f'bt-executive watch: {note}', file=sys.stderr)
    if color is None:
        color = stream.isatty() and 'NO_COLOR' not in os.environ
    player = Player(timeline, index if tick is not None or not interactive else 0)
    if not interactive:
        print(to_text(safe_frame(timeline.frames[player.index], height=None,
                                 ascii_only=ascii_only, note=player.header()),
                      color=color, width=None if not stream.isatty() else
                      shutil.get_terminal_size().columns), file=stream)
        return 0
    if groot2 is not None:
        player.suffix = f'  Groot2 {replay_groot2.where(groot2)}'
    try:
        _interactive(player, stream=stream, color=color, ascii_only=ascii_only,
                     show=None if groot2 is None else groot2.follow)
    finally:
        replay_groot2.close(groot2)
    return 0


def _interactive(player: Player, *, stream: TextIO, color: bool, ascii_only: bool,
                 show: Optional[Callable[[int], None]] = None) -> None:
    """Draw and step until ``q`` or a signal."""
    stop: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, _: stop.append(signum))
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    console = console_for(stream, color=color)
    live = Live(console=console, screen=True, auto_refresh=False, transient=False,
                redirect_stdout=False, redirect_stderr=False)
    descriptor = sys.stdin.fileno()
    saved = termios.tcgetattr(descriptor)
    shown: Any = ''
    try:
        tty.setcbreak(descriptor)
        live.start()
        moved_at = time.monotonic()
        while not stop:  # redrawn at least twice a second (a resized terminal, too)
            if show is not None:
                show(player.index)  # Groot2 follows (nothing to do if it already shows it)
            size = shutil.get_terminal_size()
            console.size = (size.columns, size.lines)
            shown = safe_frame(player.timeline.frames[player.index], height=size.lines,
                               ascii_only=ascii_only, note=player.header())
            live.update(shown, refresh=True)
            index = player.index
            wait = player.advance(time.monotonic() - moved_at)
            if player.index != index:
                moved_at = time.monotonic()
                continue
            ready, _, _ = select.select([descriptor], [], [], wait)
            if ready:
                key = os.read(descriptor, 8).decode('utf-8', 'replace')
                if not player.act(_KEYS.get(key, '')):
                    break
                moved_at = time.monotonic()
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        try:
            live.stop()
            console.print(shown)
            console.line()
        except OSError:
            pass


__all__ = ['Player', 'SPEEDS', 'run']
