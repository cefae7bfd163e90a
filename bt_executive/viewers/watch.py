# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive watch``: the live tree of a running executive, in a terminal.

Subscribes to the executive's latched ``~/snapshot`` and its ``~/snapshot_delta`` topics
(the state rebuilt by :class:`~bt_executive.observe.delta.SnapshotState`) and shows it
with ``rich``
(ANSI sequences only: works over ssh; no curses): the tree with status marks and
colours, the active path in bold, failure reasons, the selected blackboard keys and tick
statistics. The live view (``rich.live.Live``) takes the terminal's alternate screen and
redraws all of it, on every snapshot and twice a second; on exit the terminal comes
back with the last frame printed below what was there. It follows tree swaps and
executive restarts; while nothing arrives it says what it is waiting for. Column widths
are rich's: CJK names and emoji take their two cells, long lines end in an ellipsis.

Without a terminal it still redraws in place (e.g. ``ssh host bt-executive watch``
without ``-t``), without colours; ``--once`` prints one plain frame instead.

The frame rendering (:func:`frame`, :func:`render_frame`) needs no ROS; :func:`run`
listens through :class:`bt_executive.ros.listener.SnapshotListener`.
"""

from __future__ import annotations

import collections
import io
import json
import os
import re
import shutil
import signal
import sys
import time
from typing import Any, Optional, TextIO

from bt_executive.observe.delta import SnapshotState
from bt_executive.ros.listener import topic_name
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text
from rich.tree import Tree

SNAPSHOT_PREFIX = 'bt_executive/snapshot/'
#: ``--once``: seconds without a message after which the state rebuilt is taken as current
ONCE_QUIET = 0.3
_ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]')
_CONTROL = re.compile(r'[\x00-\x1f\x7f-\x9f]')

_MARKS = {'SUCCESS': '\u2714', 'FAILURE': '\u2718', 'RUNNING': '\u25b6', 'INVALID': '\u00b7'}
_ASCII_MARKS = {'SUCCESS': '+', 'FAILURE': 'x', 'RUNNING': '>', 'INVALID': '-'}
#: rich tree guides (space, continue, fork, end), three columns wide
_GUIDES = ('   ', '\u2502  ', '\u251c\u2500 ', '\u2514\u2500 ')
_ASCII_GUIDES = ('   ', '|  ', '|- ', '`- ')
_COLOURS = {'SUCCESS': 'green', 'FAILURE': 'red', 'RUNNING': 'yellow', 'INVALID': 'dim'}
BOLD, DIM, RED, CYAN = 'bold', 'dim', 'red', 'cyan'
#: the width of a frame without a width limit (``--once`` into a pipe or a file)
_UNLIMITED = 1 << 16


def format_duration(value: float) -> str:
    """Format a duration for people: ``0.4 s``, ``3 s``, ``9.5 s``, ``12 s``."""
    return f'{value:.0f} s' if value >= 10 or value == int(value) else f'{value:.1f} s'


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement) from ``text``."""
    return _ANSI.sub('', text)


Segments = list[tuple[str, str]]  # (text, rich style or '')


def _row(segments: Segments) -> Text:
    """Build one line of text; control characters from the snapshot become spaces."""
    text = Text(no_wrap=True, overflow='crop')
    for part, style in segments:
        text.append(_CONTROL.sub(' ', part), style or None)
    return text


class _Line:
    """One line of text, cut to the width it is given with an ellipsis (never wrapped)."""

    def __init__(self, text: Text, ellipsis: str) -> None:
        self.text = text
        self.ellipsis = ellipsis

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        text = self.text
        if text.cell_len > width:
            text = text.copy()
            text.truncate(max(0, width - len(self.ellipsis)), overflow='crop')
            text.rstrip()  # also the space that stands in for half a wide character
            style = text.get_style_at_offset(console, len(text) - 1) if len(text) else ''
            text.append(self.ellipsis[:width], style)
        yield text


class _NodeTree(Tree):
    """A rich tree drawn with three-column guides (the ASCII set with ``ascii_only``)."""

    def __init__(self, label: RenderableType, *, ascii_only: bool) -> None:
        super().__init__(label, style='none', guide_style=DIM)
        guides = _ASCII_GUIDES if ascii_only else _GUIDES
        self.ASCII_GUIDES = guides
        self.TREE_GUIDES = [guides, guides, guides]


class _Frame:
    """Renderables stacked into lines, each line cut to the width (no wrapping).

    Args:
        parts: the renderables, top to bottom
        height: the most lines shown (None: all)
    """

    def __init__(self, parts: list[RenderableType], height: Optional[int] = None) -> None:
        self.parts = parts
        self.height = height

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        lines = console.render_lines(Group(*self.parts), options.update(height=None),
                                     pad=False, new_lines=False)
        for index, line in enumerate(lines[:self.height]):
            if index:
                yield Segment.line()
            yield from Segment.adjust_line_length(line, width, pad=False)


def _value(value: Any) -> str:
    return json.dumps(value, separators=(', ', ': '), ensure_ascii=False)


def _tree_entries(snapshot: dict[str, Any], *, ascii_only: bool, fold: int
                  ) -> list[tuple[int, Text]]:
    """Return the tree's lines as ``(depth, label)`` in drawing order.

    ``fold`` 0 shows everything; 1 folds subtrees under INVALID nodes; 2 also folds every
    subtree that is not on the active path or the failure chain.
    """
    marks = _ASCII_MARKS if ascii_only else _MARKS
    dash = ' -- ' if ascii_only else ' \u2014 '
    nodes = {node['id']: node for node in snapshot['nodes']}
    state = snapshot['state']
    active = set(snapshot.get('active_path', []))
    focus = active | {step['id'] for step in snapshot.get('why') or []} | {snapshot['root']}
    entries: list[tuple[int, Text]] = []

    def count(ident: str) -> int:
        return sum(1 + count(child) for child in nodes[ident]['children'])

    def walk(ident: str, depth: int) -> None:
        node = nodes[ident]
        status = state.get(ident, {}).get('status', 'INVALID')
        feedback = state.get(ident, {}).get('feedback', '')
        style = _COLOURS.get(status, '')
        if ident in active:
            style = f'{BOLD} {style}'.strip()
        head = node['type'] if node['name'] == node['type'] \
            else f'{node["type"]} "{node["name"]}"'
        segments: Segments = [(f'{marks.get(status, "?")} {head}', style)]
        if feedback and status != 'INVALID':
            segments.append((dash + feedback, RED if status == 'FAILURE' else ''))
        children = node['children']
        if children and ((fold >= 1 and status == 'INVALID')
                         or (fold >= 2 and ident not in focus)):
            segments.append((f'  (+{count(ident)} folded)', DIM))
            children = []
        entries.append((depth, _row(segments)))
        for child in children:
            walk(child, depth + 1)

    walk(snapshot['root'], 0)
    return entries


def _tree(entries: list[tuple[int, Text]], *, ascii_only: bool, ellipsis: str) -> Tree:
    """Build the rich tree of ``entries`` (see :func:`_tree_entries`)."""
    root = _NodeTree(_Line(entries[0][1], ellipsis), ascii_only=ascii_only)
    stack: list[Tree] = [root]
    for depth, label in entries[1:]:
        del stack[depth:]
        stack.append(stack[-1].add(_Line(label, ellipsis)))
    return root


def frame(snapshot: Optional[dict[str, Any]], *, height: Optional[int] = 24,
          now: Optional[float] = None, received: Optional[float] = None,
          started: Optional[float] = None, topic: str = '', ascii_only: bool = False,
          note: str = '') -> RenderableType:
    """Return one screen of the watcher as a rich renderable (see :func:`render_frame`).

    Lines never wrap: each is cut to the console's width with an ellipsis.

    Raises:
        KeyError, TypeError, AttributeError: the snapshot lacks what a frame shows.
    """
    ellipsis = '~' if ascii_only else '\u2026'
    rows: list[Segments] = []
    if snapshot is None:
        waited = f' ({format_duration(now - started)})' \
            if now is not None and started is not None else ''
        rows.append([(f'waiting for {topic or "the snapshot topic"} ...{waited}', BOLD)])
        rows.append([('is the executive running, with the same ROS_DOMAIN_ID?', DIM)])
        if note:
            rows.append([(note, RED)])
        return _Frame([_Line(_row(row), ellipsis) for row in rows], height)
    executive = snapshot.get('executive') or {}
    dot = ' - ' if ascii_only else ' \u00b7 '
    state = 'running'
    if executive.get('terminated'):
        state = f'terminated: {executive["terminated"]}'
    elif executive.get('paused', executive.get('running') is False):
        state = 'paused'  # (an older executive says only running: false)
    elif executive.get('running') is False:
        state = 'stopped'
    root_status = snapshot.get('root_status', 'INVALID')
    marks = _ASCII_MARKS if ascii_only else _MARKS
    rows.append([(snapshot['tree'], BOLD), (f'  {snapshot["source_file"]}', ''),
                 (f'  rev {snapshot["revision"]}{dot}seq {snapshot["seq"]}', DIM),
                 (f'  [{state}]', RED if state != 'running' else CYAN)])
    tick = snapshot.get('tick') or {}
    stats = f'ticks {tick.get("count", 0)}{dot}{tick.get("duration_ms", 0.0):.2f} ms'
    if tick.get('interval_ms') is not None:
        stats += f'{dot}every {tick["interval_ms"]:.1f} ms'
    status_row: Segments = [
        ('root ', ''), (f'{marks.get(root_status, "?")} {root_status}',
                        _COLOURS.get(root_status, '')), (f'   {stats}', DIM)]
    if now is not None and received is not None:
        age = now - received
        heartbeat = executive.get('heartbeat', 1.0) or 0.0
        if heartbeat > 0 and age > max(3.0 * heartbeat, 2.0):
            status_row.append((f'   no update for {format_duration(age)} '
                               '(executive stopped?)', RED))
        else:
            status_row.append((f'   updated {format_duration(age)} ago', DIM))
    rows.append(status_row)
    if topic:
        rows.append([(topic + (f'{dot}{executive["node"]}' if executive.get('node') else ''),
                      DIM)])
    if note:
        rows.append([(note, RED)])
    rows.append([])

    footer: list[Segments] = []
    why = snapshot.get('why') or []
    last_failure = snapshot.get('last_failure')
    arrow = ' <- ' if ascii_only else ' \u2190 '
    if why:
        steps = [f'{step["id"].rsplit("/", 1)[-1]}' + (f': {step["reason"]}'
                                                       if step['reason'] else '')
                 for step in reversed(why)]
        footer.append([('why ', BOLD), (arrow.join(steps), RED)])
    elif last_failure:
        footer.append([(f'last failure (tick {last_failure["tick"]}): ', DIM),
                       (last_failure['reason'], '')])
    elif executive.get('last_failure'):  # a leaf failed though the root did not
        footer.append([('last failure: ', DIM), (executive['last_failure'], '')])
    blackboard = snapshot.get('blackboard') or {}
    unset = snapshot.get('unset') or {}
    if blackboard or unset:
        footer.append([('blackboard', BOLD)])
        for key in sorted({*blackboard, *unset}):
            if key in blackboard:
                footer.append([(f'  {key} = ', CYAN), (_value(blackboard[key]), '')])
            else:
                reason = f': {unset[key]}' if unset[key] else ''
                footer.append([(f'  {key} (unset{reason})', DIM)])
    if footer:
        footer.insert(0, [])

    entries = _tree_entries(snapshot, ascii_only=ascii_only, fold=0)
    more: list[Segments] = []
    if height is not None:
        footer = footer[:max(0, (height - len(rows)) // 3)]
        room = max(1, height - len(rows) - len(footer))
        for fold in (1, 2):
            if len(entries) > room:
                entries = _tree_entries(snapshot, ascii_only=ascii_only, fold=fold)
        if len(entries) > room:
            hidden = len(entries) - room + 1
            entries = entries[:room - 1]
            more = [[(f'... {hidden} more lines (enlarge the terminal)', DIM)]]
        footer = (more + footer)[:max(0, height - len(rows) - len(entries))]
    parts: list[RenderableType] = [_Line(_row(row), ellipsis) for row in rows]
    if entries:
        parts.append(_tree(entries, ascii_only=ascii_only, ellipsis=ellipsis))
    parts.extend(_Line(_row(row), ellipsis) for row in footer)
    return _Frame(parts, height)


def console_for(stream: TextIO, *, color: bool, width: Optional[int] = None,
                height: Optional[int] = None) -> Console:
    """Return a rich console that writes ANSI to ``stream`` (colours only with ``color``)."""
    return Console(file=stream, width=width, height=height, force_terminal=True,
                   force_interactive=True, color_system='standard' if color else None,
                   no_color=not color, highlight=False, markup=False, emoji=False,
                   legacy_windows=False, soft_wrap=False)


def render_frame(snapshot: Optional[dict[str, Any]], *, color: bool = True,
                 width: Optional[int] = 80, height: Optional[int] = 24,
                 now: Optional[float] = None, received: Optional[float] = None,
                 started: Optional[float] = None, topic: str = '', ascii_only: bool = False,
                 note: str = '') -> str:
    """Render one screen of the watcher as text.

    Args:
        snapshot: the latest snapshot (None: nothing received yet)
        color: use ANSI colours
        width: columns (lines are cut to fit; None: no limit)
        height: rows (the tree is folded, then cut, to fit; None: no limit)
        now: the current monotonic time (for ages)
        received: monotonic time the snapshot arrived
        started: monotonic time the watcher started waiting
        topic: the snapshot topic, for the header
        ascii_only: ASCII marks and branches only
        note: an extra line for the header (e.g. a message that could not be read)

    Returns:
        The frame, lines separated by newlines, no trailing newline.
    """
    renderable = frame(snapshot, height=height, now=now, received=received,
                       started=started, topic=topic, ascii_only=ascii_only, note=note)
    return to_text(renderable, color=color, width=width)


def to_text(renderable: RenderableType, *, color: bool, width: Optional[int]) -> str:
    buffer = io.StringIO()
    console = console_for(buffer, color=color, width=width or _UNLIMITED, height=25)
    console.print(renderable, end='')
    return buffer.getvalue().rstrip('\n')


def safe_frame(snapshot: Optional[dict[str, Any]], **options: Any) -> RenderableType:
    """Build a frame; a malformed snapshot becomes a note instead of a crash."""
    try:
        return frame(snapshot, **options)
    except (KeyError, TypeError, AttributeError) as error:
        options['note'] = f'cannot show this snapshot: {type(error).__name__}: {error}'
        return frame(None, **options)


class Received:
    """The snapshots and deltas received, and the state they rebuild (a SnapshotState)."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.pending: collections.deque[tuple[float, str]] = collections.deque(maxlen=10000)
        self.model = SnapshotState()
        self.snapshot: Optional[dict[str, Any]] = None
        self.time = time.monotonic()
        self.note = ''
        #: a heartbeat delta matched the state: it is the executive's current one
        self.confirmed = False

    def on_message(self, text: str) -> None:
        self.pending.append((time.monotonic(), text))

    def take(self) -> bool:
        """Apply the messages that came (in order); return whether any did."""
        if not self.pending:
            return False
        while self.pending:
            arrived, data = self.pending.popleft()
            try:
                message = json.loads(data)
                if not isinstance(message, dict):
                    raise ValueError('not a JSON object')
                if self.model.feed(message) and message.get('heartbeat'):
                    self.confirmed = True  # nothing newer was published before it
                self.time = arrived  # the executive is alive, even while behind (a gap)
                self.note = self.model.waiting
                schema = str(message.get('schema', ''))
                if schema.startswith(SNAPSHOT_PREFIX) and not schema.endswith('/1'):
                    self.note = f'newer snapshot format {schema}: shown as far as understood'
            except (ValueError, AttributeError, KeyError, TypeError) as error:
                self.note = f'unreadable message on {self.topic}: {error}'
        self.snapshot = self.model.snapshot
        return True


def run(*, namespace: str = '', node: str = 'bt_executive', once: bool = False,
        timeout: Optional[float] = None, color: Optional[bool] = None,
        ascii_only: bool = False, stream: Optional[TextIO] = None) -> int:
    """Watch an executive's snapshots until Ctrl-C (or ``timeout``; ``once``: one frame).

    Args:
        namespace: the executive's namespace
        node: the executive's node name (or its fully qualified name)
        once: print one frame as soon as a snapshot arrives, then exit
        timeout: seconds to run (``once``: to wait for a snapshot; default 10)
        color: ANSI colours (None: when the output is a terminal and NO_COLOR is unset)
        ascii_only: ASCII marks and branches
        stream: where to draw (default: stdout)

    Returns:
        0; 1 when ``once`` got no snapshot within the timeout; 2 for a namespace or node
        name that is not a valid ROS name.
    """
    from bt_executive.ros.listener import SnapshotListener

    stream = stream or sys.stdout
    tty = stream.isatty()
    if color is None:
        color = tty and 'NO_COLOR' not in os.environ
    if once and timeout is None:
        timeout = 10.0
    try:
        topic = topic_name(namespace, node)
    except ValueError as error:
        print(f'bt-executive watch: {error}', file=sys.stderr)
        return 2
    received = Received(topic)
    stop: list[int] = []
    resized: list[int] = []
    listener = SnapshotListener(namespace, node, on_snapshot=received.on_message,
                                on_delta=received.on_message, name='bt_watch')
    handlers = {signum: stop.append for signum in (signal.SIGINT, signal.SIGTERM,
                                                   signal.SIGHUP)}
    handlers[signal.SIGWINCH] = resized.append
    previous = {signum: signal.signal(signum, lambda signum, _, h=handler: h(signum))
                for signum, handler in handlers.items()}
    try:
        if once:
            return _once(listener, received, stop, timeout=timeout, color=color, tty=tty,
                         ascii_only=ascii_only, stream=stream)
        _live(listener, received, stop, resized, timeout=timeout, color=color,
              ascii_only=ascii_only, stream=stream)
        return 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        listener.close()


def _once(listener: Any, received: Received, stop: list[int], *, timeout: float,
          color: bool, tty: bool, ascii_only: bool, stream: TextIO) -> int:
    """Wait for the current state, print it as one frame; return the exit code.

    The latched snapshot may be a keyframe older than the deltas kept after it (another
    topic, delivered in a burst of its own): the frame is printed once a heartbeat
    confirmed the state or the stream has been quiet for :data:`ONCE_QUIET` seconds
    without a gap; a gap waits for the next keyframe until the timeout, then prints the
    last good state with the note saying what is missing.
    """
    started = time.monotonic()
    matched: Optional[float] = None  # when the delta subscription met the executive's
    deltas = getattr(listener, 'delta_subscription', None)
    while not stop:
        listener.spin_once(timeout_sec=0.1)
        received.take()
        now = time.monotonic()
        if matched is None and (deltas is None or deltas.get_publisher_count() > 0):
            matched = now  # its history (the deltas kept) comes right after this
        settled = received.confirmed or (
            matched is not None and now - max(received.time, matched) >= ONCE_QUIET)
        if received.snapshot is not None and (
                (settled and not received.model.waiting) or now - started >= timeout):
            width = shutil.get_terminal_size().columns if tty else None
            text = to_text(safe_frame(received.snapshot, height=None, ascii_only=ascii_only,
                                      note=received.note), color=color, width=width)
            stream.write(text + '\n')
            stream.flush()
            return 0
        if time.monotonic() - started >= timeout:
            print(f'bt-executive watch: no snapshot on {received.topic} within '
                  f'{format_duration(timeout)}', file=sys.stderr)
            return 1
    return 0


def _live(listener: Any, received: Received, stop: list[int], resized: list[int], *,
          timeout: Optional[float], color: bool, ascii_only: bool, stream: TextIO) -> None:
    """Redraw the live view until a signal (or ``timeout``)."""
    console = console_for(stream, color=color)
    live = Live(console=console, screen=True, auto_refresh=False, transient=False,
                redirect_stdout=False, redirect_stderr=False)
    started = time.monotonic()
    drawn = 0.0
    shown: RenderableType = ''
    live.start()
    try:
        while not stop:
            listener.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            pending = received.take() or bool(resized)
            if timeout is not None and now - started >= timeout:
                break
            if pending or now - drawn >= 0.5:
                del resized[:]
                size = shutil.get_terminal_size()
                console.size = (size.columns, size.lines)
                shown = safe_frame(received.snapshot, height=size.lines, now=now,
                                   received=received.time, started=started,
                                   topic=received.topic, ascii_only=ascii_only,
                                   note=received.note)
                live.update(shown, refresh=True)
                drawn = now
    finally:
        try:
            live.stop()  # the cursor back, the main screen back
            console.print(shown)  # and the last frame stays visible there
            console.line()
        except OSError:  # the terminal is gone (e.g. the ssh session ended)
            pass


__all__ = ['console_for', 'format_duration', 'frame', 'Received', 'render_frame', 'run',
           'safe_frame', 'strip_ansi', 'to_text', 'topic_name']
