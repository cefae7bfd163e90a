"""``bt-executive watch``: the live tree of a running executive, in a terminal.

Subscribes to the executive's latched ``~/snapshot`` topic and redraws the screen in
place with plain ANSI sequences (works over ssh; no curses): the tree with status marks
and colours, the active path in bold, failure reasons, the selected blackboard keys and
tick statistics. A new tree (revision) or a restarted executive (session) redraws the
whole screen; while nothing arrives it says what it is waiting for.

The frame rendering (:func:`render_frame`) needs no ROS; :func:`run` imports rclpy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import time
from typing import Any, Optional, TextIO
import uuid

SNAPSHOT_PREFIX = 'bt_executive/snapshot/'
_ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]')

_MARKS = {'SUCCESS': '\u2714', 'FAILURE': '\u2718', 'RUNNING': '\u25b6', 'INVALID': '\u00b7'}
_ASCII_MARKS = {'SUCCESS': '+', 'FAILURE': 'x', 'RUNNING': '>', 'INVALID': '-'}
_BRANCHES = ('\u251c\u2500 ', '\u2514\u2500 ', '\u2502  ', '   ')
_ASCII_BRANCHES = ('|- ', '`- ', '|  ', '   ')
_COLOURS = {'SUCCESS': '32', 'FAILURE': '31', 'RUNNING': '33', 'INVALID': '2'}
BOLD, DIM, RED, CYAN = '1', '2', '31', '36'


def topic_name(namespace: str = '', node: str = 'bt_executive') -> str:
    """Return the snapshot topic of the executive ``node`` in ``namespace``."""
    if node.startswith('/'):
        return node.rstrip('/') + '/snapshot'
    namespace = namespace.strip('/')
    return f'/{namespace}/{node}/snapshot' if namespace else f'/{node}/snapshot'


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement) from ``text``."""
    return _ANSI.sub('', text)


Segment = tuple[str, str]  # (text, SGR parameters or '')


def _line(segments: list[Segment], width: Optional[int], color: bool,
          ellipsis: str = '\u2026') -> str:
    """Join segments into one line cut to ``width`` columns, with colours if wanted."""
    out, used = [], 0
    for text, style in segments:
        if width is not None and used + len(text) > width:
            room = width - used
            text = text[:room - len(ellipsis)] + ellipsis[:room] if room > 0 else ''
        used += len(text)
        if not text:
            continue
        out.append(f'\x1b[{style}m{text}\x1b[0m' if color and style else text)
        if width is not None and used >= width:
            break
    return ''.join(out)


def _seconds(value: float) -> str:
    return f'{value:.0f} s' if value >= 10 or value == int(value) else f'{value:.1f} s'


def _value(value: Any) -> str:
    return json.dumps(value, separators=(', ', ': '), ensure_ascii=False)


def _tree_lines(snapshot: dict[str, Any], *, ascii_only: bool, fold: int
                ) -> list[list[Segment]]:
    """Render the tree, one list of segments per node.

    ``fold`` 0 shows everything; 1 folds subtrees under INVALID nodes; 2 also folds every
    subtree that is not on the active path or the failure chain.
    """
    tee, last, pipe, blank = _ASCII_BRANCHES if ascii_only else _BRANCHES
    marks = _ASCII_MARKS if ascii_only else _MARKS
    dash = ' -- ' if ascii_only else ' \u2014 '
    nodes = {node['id']: node for node in snapshot['nodes']}
    state = snapshot['state']
    active = set(snapshot.get('active_path', []))
    focus = active | {step['id'] for step in snapshot.get('why') or []} | {snapshot['root']}
    lines: list[list[Segment]] = []

    def count(ident: str) -> int:
        return sum(1 + count(child) for child in nodes[ident]['children'])

    def walk(ident: str, prefix: str, is_last: bool, top: bool) -> None:
        node = nodes[ident]
        status = state.get(ident, {}).get('status', 'INVALID')
        feedback = state.get(ident, {}).get('feedback', '')
        style = _COLOURS.get(status, '')
        if ident in active:
            style = f'{BOLD};{style}'
        head = node['type'] if node['name'] == node['type'] \
            else f'{node["type"]} "{node["name"]}"'
        branch = '' if top else prefix + (last if is_last else tee)
        segments: list[Segment] = [(branch, DIM), (f'{marks.get(status, "?")} {head}', style)]
        if feedback and status != 'INVALID':
            segments.append((dash + feedback, RED if status == 'FAILURE' else ''))
        children = node['children']
        if children and ((fold >= 1 and status == 'INVALID')
                         or (fold >= 2 and ident not in focus)):
            segments.append((f'  (+{count(ident)} folded)', DIM))
            children = []
        lines.append(segments)
        child_prefix = '' if top else prefix + (blank if is_last else pipe)
        for index, child in enumerate(children):
            walk(child, child_prefix, index == len(children) - 1, False)

    walk(snapshot['root'], '', True, True)
    return lines


def render_frame(snapshot: Optional[dict[str, Any]], *, color: bool = True,
                 width: Optional[int] = 80, height: Optional[int] = 24,
                 now: Optional[float] = None, received: Optional[float] = None,
                 started: Optional[float] = None, topic: str = '', ascii_only: bool = False,
                 note: str = '') -> str:
    """Render one screen of the watcher.

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
    rows: list[list[Segment]] = []
    ellipsis = '~' if ascii_only else '\u2026'
    if snapshot is None:
        waited = f' ({_seconds(now - started)})' if now is not None and started is not None \
            else ''
        rows.append([(f'waiting for {topic or "the snapshot topic"} ...{waited}', BOLD)])
        rows.append([('is the executive running, with the same ROS_DOMAIN_ID?', DIM)])
        if note:
            rows.append([(note, RED)])
        return '\n'.join(_line(row, width, color, ellipsis) for row in rows[:height])
    executive = snapshot.get('executive') or {}
    dot = ' - ' if ascii_only else ' \u00b7 '
    state = 'running'
    if executive.get('terminated'):
        state = f'terminated: {executive["terminated"]}'
    elif executive.get('running') is False:
        state = 'paused'
    root_status = snapshot.get('root_status', 'INVALID')
    marks = _ASCII_MARKS if ascii_only else _MARKS
    rows.append([(snapshot['tree'], BOLD), (f'  {snapshot["source_file"]}', ''),
                 (f'  rev {snapshot["revision"]}{dot}seq {snapshot["seq"]}', DIM),
                 (f'  [{state}]', RED if state != 'running' else CYAN)])
    tick = snapshot.get('tick') or {}
    stats = f'ticks {tick.get("count", 0)}{dot}{tick.get("duration_ms", 0.0):.2f} ms'
    if tick.get('interval_ms') is not None:
        stats += f'{dot}every {tick["interval_ms"]:.1f} ms'
    status_row: list[Segment] = [
        ('root ', ''), (f'{marks.get(root_status, "?")} {root_status}',
                        _COLOURS.get(root_status, '')), (f'   {stats}', DIM)]
    if now is not None and received is not None:
        age = now - received
        heartbeat = executive.get('heartbeat', 1.0) or 0.0
        if heartbeat > 0 and age > max(3.0 * heartbeat, 2.0):
            status_row.append((f'   no update for {_seconds(age)} (executive stopped?)', RED))
        else:
            status_row.append((f'   updated {_seconds(age)} ago', DIM))
    rows.append(status_row)
    if topic:
        rows.append([(topic + (f'{dot}{executive["node"]}' if executive.get('node') else ''),
                      DIM)])
    if note:
        rows.append([(note, RED)])
    rows.append([])

    footer: list[list[Segment]] = []
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

    tree = _tree_lines(snapshot, ascii_only=ascii_only, fold=0)
    if height is not None:
        footer = footer[:max(0, (height - len(rows)) // 3)]
        room = max(1, height - len(rows) - len(footer))
        for fold in (1, 2):
            if len(tree) > room:
                tree = _tree_lines(snapshot, ascii_only=ascii_only, fold=fold)
        if len(tree) > room:
            hidden = len(tree) - room + 1
            tree = tree[:room - 1] + [[(f'... {hidden} more lines (enlarge the terminal)',
                                        DIM)]]
    rows.extend(tree)
    rows.extend(footer)
    if height is not None:
        rows = rows[:height]
    return '\n'.join(_line(row, width, color, ellipsis) for row in rows)


class _Screen:
    """Redraw frames in place on a terminal (or print them plainly with ``once``)."""

    def __init__(self, stream: TextIO, *, interactive: bool):
        self.stream = stream
        self.interactive = interactive
        self.key: Any = None

    def draw(self, frame: str, key: Any) -> None:
        if not self.interactive:
            self.stream.write(frame + '\n')
        else:
            # home, each line then erase its rest, erase below; a new tree clears first
            clear = '\x1b[2J' if key != self.key else ''
            body = '\x1b[K\n'.join(frame.split('\n'))
            self.stream.write(f'{clear}\x1b[H{body}\x1b[K\x1b[J')
        self.key = key
        self.stream.flush()

    def start(self) -> None:
        if self.interactive:
            self.stream.write('\x1b[?25l\x1b[2J\x1b[H')  # hide the cursor, clear
            self.stream.flush()

    def end(self) -> None:
        if self.interactive:
            try:
                self.stream.write('\x1b[?25h\n')  # show the cursor again
                self.stream.flush()
            except OSError:  # the terminal is gone (e.g. the ssh session ended)
                pass


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
        0; 1 when ``once`` got no snapshot within the timeout.
    """
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from rclpy.signals import SignalHandlerOptions
    from std_msgs.msg import String

    stream = stream or sys.stdout
    tty = stream.isatty()
    if color is None:
        color = tty and 'NO_COLOR' not in os.environ
    if once and timeout is None:
        timeout = 10.0
    topic = topic_name(namespace, node)
    received: list[tuple[float, str]] = []

    def on_snapshot(message: String) -> None:
        received.append((time.monotonic(), message.data))
        del received[:-1]

    stop: list[int] = []

    def on_signal(signum: int, frame: Any) -> None:
        stop.append(signum)

    context = Context()
    rclpy.init(args=[], context=context, signal_handler_options=SignalHandlerOptions.NO)
    watcher = rclpy.create_node(f'bt_watch_{uuid.uuid4().hex[:8]}', context=context,
                                start_parameter_services=False)
    qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
    watcher.create_subscription(String, topic, on_snapshot, qos)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(watcher)
    screen = _Screen(stream, interactive=not once)
    previous = {signum: signal.signal(signum, on_signal)
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    started = time.monotonic()
    snapshot: Optional[dict[str, Any]] = None
    snapshot_time = started
    note = ''
    drawn = 0.0
    pending = True
    status = 0
    screen.start()
    try:
        while not stop:
            executor.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            if received:
                arrived, data = received.pop()
                try:
                    message = json.loads(data)
                    if not str(message.get('schema', '')).startswith(SNAPSHOT_PREFIX):
                        raise ValueError(f'not a snapshot: schema {message.get("schema")!r}')
                    snapshot, snapshot_time, note = message, arrived, ''
                    if not message['schema'].endswith('/1'):
                        note = f'newer snapshot format {message["schema"]}: shown as far ' \
                            'as understood'
                except (ValueError, AttributeError) as error:
                    note = f'unreadable message on {topic}: {error}'
                pending = True
            if once:
                if snapshot is not None:
                    break
                if now - started >= timeout:
                    print(f'bt-executive watch: no snapshot on {topic} within '
                          f'{_seconds(timeout)}', file=sys.stderr)
                    status = 1
                    break
                continue
            if timeout is not None and now - started >= timeout:
                break
            if pending or now - drawn >= 0.5:
                size = shutil.get_terminal_size()
                frame = _render(snapshot, color=color, width=size.columns,
                                height=size.lines - 1, now=now, received=snapshot_time,
                                started=started, topic=topic, ascii_only=ascii_only,
                                note=note)
                key = None if snapshot is None else (snapshot.get('session'),
                                                     snapshot.get('revision'))
                screen.draw(frame, key)
                drawn, pending = now, False
        if once and snapshot is not None:
            width = shutil.get_terminal_size().columns if tty else None
            screen.draw(_render(snapshot, color=color, width=width, height=None,
                                ascii_only=ascii_only, note=note), None)
    finally:
        screen.end()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        executor.shutdown()
        watcher.destroy_node()
        context.try_shutdown()
    return status


def _render(snapshot: Optional[dict[str, Any]], **options: Any) -> str:
    """Render a frame; a malformed snapshot becomes a note instead of a crash."""
    try:
        return render_frame(snapshot, **options)
    except (KeyError, TypeError, AttributeError) as error:
        options['note'] = f'cannot show this snapshot: {type(error).__name__}: {error}'
        return render_frame(None, **options)


__all__ = ['render_frame', 'run', 'strip_ansi', 'topic_name']
