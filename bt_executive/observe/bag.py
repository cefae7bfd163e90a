# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Recordings of an executive's topics as MCAP files with ROS 2 encoding (no ROS in here).

:class:`BagWriter` writes ``std_msgs/msg/String`` messages (the executive's JSON topics:
``~/snapshot``, ``~/snapshot_delta``, ``~/events``, ``~/status``) with the ``mcap``
package: profile ``ros2``, one ``ros2msg`` schema ``std_msgs/msg/String``, one ``cdr``
channel per topic named as the topic, the QoS each was offered with in the channel
metadata (``offered_qos_profiles``, as rosbag2 writes it), so the file is a rosbag2 bag
(``ros2 bag info/play`` on a ROS install). It rotates (``run_0.mcap``, ``run_1.mcap``
...) when a file reaches ``max_size`` bytes or ``max_duration`` seconds; each new file
starts as a late joiner would: with the last message of every latched topic again and the
last 100 deltas (the delta topic's history: the chain from the latched snapshot, which the
executive publishes in full only now and then), so each replays on its own.
It flushes a chunk at least every ``flush_period`` seconds: a process killed outright
loses at most that much.

:func:`read_bag` reads such a file (or a bag recorded by ``ros2 bag record`` of those
topics) back with the ``mcap`` reader and ``mcap-ros2-support``'s decoder; a file that
was not finalised (the recorder was killed) is read up to where it was cut and reported
as such (:attr:`Bag.truncated`), never as a traceback.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import pathlib
import struct
import time
from typing import Any, BinaryIO, Callable, Iterable, Optional

from mcap.exceptions import McapError
from mcap.records import Channel, Footer, Header, Message, Schema
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, Writer
from mcap_ros2.decoder import DecoderFactory

STRING_TYPE = 'std_msgs/msg/String'
STRING_DEFINITION = b'string data\n'
#: Topics (under the executive's node) a recording holds, and whether each is latched.
TOPICS = {'snapshot': True, 'snapshot_delta': False, 'events': False, 'status': True}
#: Topics (under the executive's node) whose last messages each split starts with, beyond
#: the latched ones: the deltas' history (what a late joiner gets).
KEPT = {'snapshot_delta': 100}
#: rosbag2's ``offered_qos_profiles`` (reliable; transient local; keep last ``depth``).
_QOS = ('- history: 1\n  depth: {depth}\n  reliability: 1\n  durability: 1\n'
        '  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n'
        '  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n  liveliness: 1\n'
        '  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n'
        '  avoid_ros_namespace_conventions: false\n')


def string_cdr(text: str) -> bytes:
    """Return ``std_msgs/msg/String(data=text)`` serialised as CDR (little endian)."""
    data = text.encode('utf-8')
    return b'\x00\x01\x00\x00' + struct.pack('<I', len(data) + 1) + data + b'\x00'


def split_name(path: str, index: int) -> str:
    """Return the name of split ``index`` of ``path`` (``run.mcap`` -> ``run_3.mcap``)."""
    target = pathlib.Path(path)
    suffix = target.suffix or '.mcap'
    return str(target.with_name(f'{target.stem}_{index}{suffix}'))


class BagWriter:
    """Write string messages of some topics to MCAP, rotating by size or duration.

    Args:
        path: the file (with rotation: the name the splits are derived from)
        topics: absolute topic name -> latched (True: repeated at the start of each split)
        kept: absolute topic name -> how many of its last messages each new split starts
            with (default: 1 for a latched topic, none for the others)
        max_size: bytes per file before the next split (0: no limit)
        max_duration: seconds per file before the next split (0: no limit)
        metadata: written as the ``bt_executive`` metadata record of every file
        flush_period: seconds between forced chunk flushes
        clock: nanoseconds since the epoch (log times)
    """

    def __init__(self, path: str, topics: dict[str, bool], *, max_size: int = 0,
                 max_duration: float = 0.0, metadata: Optional[dict[str, str]] = None,
                 flush_period: float = 1.0, kept: Optional[dict[str, int]] = None,
                 clock: Callable[[], int] = time.time_ns) -> None:
        self.path = path
        self.topics = dict(topics)
        self.max_size = max_size
        self.max_duration = max_duration
        self.metadata = dict(metadata or {})
        self.flush_period = flush_period
        self.clock = clock
        self.rotating = bool(max_size or max_duration)
        #: every file written so far (the current one last)
        self.files: list[str] = []
        #: messages written per topic (over every file)
        self.counts: dict[str, int] = dict.fromkeys(topics, 0)
        self.messages = 0
        self.bytes = 0  # message data bytes (CDR), over every file
        self.started = time.monotonic()
        self._kept = {topic: int(latched) for topic, latched in self.topics.items()}
        self._kept.update(kept or {})
        self._latest: dict[str, collections.deque[tuple[bytes, int]]] = {
            topic: collections.deque(maxlen=count)
            for topic, count in self._kept.items() if count > 0}
        self._stream: Optional[BinaryIO] = None
        self._writer: Optional[Writer] = None
        self._channels: dict[str, int] = {}
        self._file_started = 0.0
        self._last_flush = 0.0
        self._open()

    def _open(self) -> None:
        name = split_name(self.path, len(self.files)) if self.rotating else self.path
        directory = os.path.dirname(os.path.abspath(name))
        os.makedirs(directory, exist_ok=True)
        self._stream = open(name, 'wb')
        self.files.append(name)
        writer = Writer(self._stream, chunk_size=256 * 1024, compression=CompressionType.ZSTD)
        writer.start(profile='ros2', library='bt_executive')
        schema = writer.register_schema(STRING_TYPE, 'ros2msg', STRING_DEFINITION)
        self._channels = {}
        for topic, latched in self.topics.items():
            self._channels[topic] = writer.register_channel(
                topic=topic, message_encoding='cdr', schema_id=schema,
                metadata={'offered_qos_profiles': _QOS.format(depth=1 if latched else 100)})
        if self.metadata:
            writer.add_metadata('bt_executive', self.metadata)
        self._writer = writer
        self._file_started = self._last_flush = time.monotonic()
        # each split starts as a late joiner would (the latched messages, the deltas' history)
        for topic, latest in self._latest.items():
            for data, stamp in latest:
                self._add(topic, data, stamp)

    def file_size(self) -> int:
        """Return the bytes written to the current file so far (flushed chunks)."""
        return self._stream.tell() if self._stream is not None else 0

    def write(self, topic: str, data: bytes, log_time: Optional[int] = None) -> None:
        """Write one message (CDR bytes of a ``std_msgs/msg/String``) of ``topic``."""
        if self._writer is None:
            raise ValueError(f'{self.path}: the recording is closed')
        if topic not in self._channels:
            raise ValueError(f'{topic} is not one of the recorded topics')
        stamp = self.clock() if log_time is None else log_time
        now = time.monotonic()
        if self.rotating and self.messages and (
                (self.max_size and self.file_size() + len(data) > self.max_size)
                or (self.max_duration and now - self._file_started >= self.max_duration)):
            self._close_file()
            self._open()
        self._add(topic, data, stamp)
        if topic in self._latest:
            self._latest[topic].append((data, stamp))
        self.counts[topic] = self.counts.get(topic, 0) + 1
        self.messages += 1
        self.bytes += len(data)
        if now - self._last_flush >= self.flush_period:
            self.flush()

    def write_text(self, topic: str, text: str, log_time: Optional[int] = None) -> None:
        """Write one message given as its text (encoded as ``std_msgs/msg/String``)."""
        self.write(topic, string_cdr(text), log_time)

    def _add(self, topic: str, data: bytes, stamp: int) -> None:
        assert self._writer is not None
        self._writer.add_message(channel_id=self._channels[topic], log_time=stamp,
                                 publish_time=stamp, data=data)

    def flush_due(self) -> None:
        """Flush if ``flush_period`` passed since the last flush (call it now and then)."""
        if time.monotonic() - self._last_flush >= self.flush_period:
            self.flush()

    def flush(self) -> None:
        """Write the chunk in progress to the file (a kill loses nothing before this)."""
        if self._writer is not None:
            self._writer.flush()  # type: ignore[no-untyped-call]
            self._last_flush = time.monotonic()

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.finish()  # type: ignore[no-untyped-call]
            self._writer = None
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def close(self) -> None:
        """Finalise the current file (summary, index, footer); idempotent."""
        self._close_file()

    def __enter__(self) -> 'BagWriter':
        """Return the writer."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Finalise the file."""
        self.close()


@dataclasses.dataclass
class BagMessage:
    """One message read back: its topic, log time (ns) and text."""

    topic: str
    log_time: int
    text: str


@dataclasses.dataclass
class Bag:
    """What :func:`read_bag` found in one file.

    Attributes:
        path: the file
        messages: the string messages of the chosen topics, in log time order
        channels: topic -> (message encoding, schema name, schema encoding)
        counts: topic -> messages read
        truncated: why the file ends early ('' for a finalised file)
        profile: the header's profile (``ros2``)
        skipped: messages of other types or that could not be decoded
    """

    path: str
    messages: list[BagMessage]
    channels: dict[str, tuple[str, str, str]]
    counts: dict[str, int]
    truncated: str = ''
    profile: str = ''
    skipped: int = 0

    @property
    def duration(self) -> float:
        """Return seconds from the first message to the last (0 without messages)."""
        if not self.messages:
            return 0.0
        return (self.messages[-1].log_time - self.messages[0].log_time) / 1e9


class BagError(Exception):
    """A file that is not a readable MCAP recording (the message says why, and where)."""


def read_bag(path: str, topics: Optional[Iterable[str]] = None) -> Bag:
    """Read the ``std_msgs/msg/String`` messages of a recording (an MCAP file).

    Args:
        path: the file
        topics: only these topics (default: every ``std_msgs/msg/String`` topic)

    Returns:
        the messages in log time order; :attr:`Bag.truncated` says whether and where the
        file was cut off (then the messages are those before the cut).

    Raises:
        BagError: the file cannot be opened, or is not MCAP at all.
    """
    wanted = None if topics is None else set(topics)
    messages: list[BagMessage] = []
    channels: dict[str, tuple[str, str, str]] = {}
    counts: dict[str, int] = {}
    truncated, profile, skipped = '', '', 0
    try:
        stream = open(path, 'rb')
    except OSError as error:
        raise BagError(f'{path}: cannot open: {error.strerror or error}') from None
    with stream:
        size = os.fstat(stream.fileno()).st_size
        if size < 8 or stream.read(8) != b'\x89MCAP0\r\n':
            raise BagError(f'{path}: not an MCAP file (no MCAP magic at the start)')
        stream.seek(0)
        factory = DecoderFactory()
        schemas: dict[int, Any] = {}
        by_id: dict[int, Any] = {}
        ended = False
        try:
            for record in StreamReader(stream, record_size_limit=1 << 30).records:
                if isinstance(record, Header):
                    profile = record.profile
                elif isinstance(record, Schema):
                    schemas[record.id] = record
                elif isinstance(record, Channel):
                    by_id[record.id] = record
                    schema = schemas.get(record.schema_id)
                    channels.setdefault(record.topic, (
                        record.message_encoding, schema.name if schema else '',
                        schema.encoding if schema else ''))
                elif isinstance(record, Message):
                    channel = by_id.get(record.channel_id)
                    if channel is None:
                        skipped += 1
                        continue
                    if wanted is not None and channel.topic not in wanted:
                        continue
                    schema = schemas.get(channel.schema_id)
                    if schema is None or schema.name != STRING_TYPE \
                            or channel.message_encoding != 'cdr':
                        skipped += 1
                        continue
                    try:
                        decode = factory.decoder_for(channel.message_encoding, schema)
                        text = decode(record.data).data if decode is not None else None
                    except (McapError, ValueError, UnicodeDecodeError, struct.error):
                        text = None
                    if not isinstance(text, str):
                        skipped += 1
                        continue
                    messages.append(BagMessage(channel.topic, record.log_time, text))
                    counts[channel.topic] = counts.get(channel.topic, 0) + 1
                elif isinstance(record, Footer):
                    ended = True
        except (McapError, struct.error, EOFError, ValueError, OSError) as error:
            detail = str(error) or type(error).__name__
            truncated = (f'{path}: the file ends early ({detail}; {size} bytes): it was not '
                         'finalised (the recorder was killed?); read what it holds')
        if not truncated and not ended:
            truncated = (f'{path}: the file has no footer ({size} bytes): it was not '
                         'finalised (the recorder was killed?); read what it holds')
    messages.sort(key=lambda message: message.log_time)
    return Bag(path, messages, channels, counts, truncated, profile, skipped)


__all__ = ['Bag', 'BagError', 'BagMessage', 'BagWriter', 'STRING_DEFINITION', 'STRING_TYPE',
           'KEPT', 'TOPICS', 'read_bag', 'split_name', 'string_cdr']
