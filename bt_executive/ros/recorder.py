# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive record``: an executive's snapshot, delta, events and status to MCAP.

A :class:`~bt_executive.ros.listener.SnapshotListener` (its own context) subscribes to
``~/snapshot``, ``~/snapshot_delta``, ``~/events`` and ``~/status`` of one executive with
the QoS they are published with (so the latched snapshot and status, and the last 100
deltas and 20 event batches, arrive at once) and takes their serialised messages as they
are (``raw``: no decoding); :class:`~bt_executive.observe.bag.BagWriter` writes them to
an MCAP file that is a rosbag2 bag. The loop runs in the caller's thread; SIGINT, SIGTERM
and SIGHUP end it, and the file is finalised before the exit (status 0). A progress line
(messages, bytes, duration) goes to stderr.
"""

from __future__ import annotations

import signal
import sys
import time
from typing import Any, Optional, TextIO

from bt_executive.observe.bag import BagWriter, KEPT, TOPICS
from bt_executive.ros.listener import DEFAULT_NODE, SnapshotListener, topic_name

#: Messages each subscription keeps until the recorder takes them.
HISTORY = 1000


def topics_of(namespace: str = '', node: str = DEFAULT_NODE) -> dict[str, bool]:
    """Return the absolute names of the recorded topics -> latched."""
    return {topic_name(namespace, node, name): latched for name, latched in TOPICS.items()}


def human_bytes(count: float) -> str:
    """Return ``count`` bytes as ``12.3 KB`` (powers of 1000)."""
    for unit in ('B', 'KB', 'MB', 'GB'):
        if count < 1000.0 or unit == 'GB':
            return f'{count:.0f} {unit}' if unit == 'B' else f'{count:.1f} {unit}'
        count /= 1000.0
    return f'{count:.1f} GB'


def progress_line(writer: BagWriter, elapsed: float) -> str:
    """Return the one-line progress of a recording."""
    minutes, seconds = divmod(int(elapsed), 60)
    hours, minutes = divmod(minutes, 60)
    parts = ', '.join(f'{topic.rsplit("/", 1)[-1]} {count}'
                      for topic, count in writer.counts.items())
    files = f', file {len(writer.files)}' if writer.rotating else ''
    return (f'recording {writer.files[-1]}: {writer.messages} messages, '
            f'{human_bytes(writer.bytes)}, {hours:02d}:{minutes:02d}:{seconds:02d} '
            f'({parts}{files})')


class Recorder:
    """Subscribe to one executive's topics and write them to a :class:`BagWriter`.

    Args:
        writer: where the messages go
        namespace: the executive's namespace
        node: the executive's node name
        args: ROS arguments for the listener's context
    """

    def __init__(self, writer: BagWriter, *, namespace: str = '', node: str = DEFAULT_NODE,
                 args: Optional[list[str]] = None) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        self.writer = writer
        self.errors: list[str] = []
        self.listener = SnapshotListener(namespace, node, name='bt_record', args=args)
        # a deep history: nothing is dropped while the file is written (the publishers
        # keep 1 or 100 for late joiners: those arrive at once)
        qos = QoSProfile(depth=HISTORY, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        for topic in topics_of(namespace, node):
            self.listener.node.create_subscription(
                String, topic, lambda data, topic=topic: self._on_message(topic, data), qos,
                raw=True)

    def _on_message(self, topic: str, data: bytes) -> None:
        try:
            self.writer.write(topic, bytes(data))
        except (OSError, ValueError) as error:
            self.errors.append(f'{topic}: {error}')

    def spin_once(self, timeout: float) -> None:
        """Take what arrived (waiting up to ``timeout`` seconds)."""
        self.listener.spin_once(timeout)

    def close(self) -> None:
        """Stop listening and finalise the file."""
        try:
            self.listener.close()
        finally:
            self.writer.close()


def run(*, output: str = 'run.mcap', namespace: str = '', node: str = DEFAULT_NODE,
        max_size: int = 0, max_duration: float = 0.0, duration: Optional[float] = None,
        stream: Optional[TextIO] = None, foxglove: bool = True) -> int:
    """Record until a signal (or ``duration`` seconds); return the exit code.

    With ``foxglove``, each file gets its Foxglove companion (``run.foxglove.mcap``).

    Returns:
        0 (also on SIGINT/SIGTERM/SIGHUP: the file is finalised); 1 when the file cannot
        be written; 2 for a namespace or node name that is not a valid ROS name.
    """
    stream = stream or sys.stderr
    try:
        topics = topics_of(namespace, node)
    except ValueError as error:
        print(f'bt-executive record: {error}', file=sys.stderr)
        return 2
    try:
        kept = {topic_name(namespace, node, name): count for name, count in KEPT.items()}
        writer = BagWriter(output, topics, max_size=max_size, max_duration=max_duration,
                           foxglove=foxglove, kept=kept,
                           metadata={'namespace': namespace, 'node': node,
                                     'started': time.strftime('%Y-%m-%dT%H:%M:%S%z')})
    except OSError as error:
        print(f'bt-executive record: cannot write {output}: {error}', file=sys.stderr)
        return 1
    for name, moved in writer.set_aside:
        print(f'bt-executive record: {name} was not finalised (its recorder was killed?): '
              f'kept as {moved} (--recover {moved} finalises it)', file=sys.stderr)
    stop: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, _: stop.append(signum))
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    recorder: Any = None
    tty = stream.isatty()
    started = time.monotonic()
    shown = 0.0
    code = 0
    try:
        recorder = Recorder(writer, namespace=namespace, node=node)
        fox = f' (Foxglove: {writer.foxglove_files[0]})' if writer.foxglove_files else ''
        print(f'bt-executive record: {", ".join(topics)} -> {output}{fox}  (Ctrl-C to stop)',
              file=stream, flush=True)
        while not stop:
            recorder.spin_once(0.2)
            now = time.monotonic()
            if recorder.errors:
                print(f'\nbt-executive record: cannot write: {recorder.errors[0]}',
                      file=sys.stderr)
                code = 1
                break
            if now - shown >= (0.5 if tty else 5.0):
                shown = now
                line = progress_line(writer, now - started)
                print(f'\r{line}\x1b[K' if tty else line, end='' if tty else '\n',
                      file=stream, flush=True)
            writer.flush_due()
            if duration is not None and now - started >= duration:
                break
    finally:
        if recorder is not None:
            recorder.close()
        else:
            writer.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    end = '\n' if tty else ''
    print(f'{end}{progress_line(writer, time.monotonic() - started)}; finalised '
          f'{", ".join(writer.files + writer.foxglove_files)}', file=stream, flush=True)
    return code


def parse_size(text: str) -> int:
    """Parse ``500M``, ``2G``, ``100k``, ``1000`` (bytes; powers of 1024) for --max-size.

    Raises:
        ValueError: not a size.
    """
    units = {'': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}
    value = text.strip().lower().removesuffix('b').removesuffix('i')
    unit = value[-1:] if value[-1:] in units else ''
    number = float(value[:-1] if unit else value)
    if number < 0 or number != number:
        raise ValueError(f'not a size: {text!r}')
    return int(number * units[unit])


__all__ = ['Recorder', 'human_bytes', 'parse_size', 'progress_line', 'run', 'topics_of']
