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
With ``foxglove``, each file ``run.mcap`` gets a companion
``run.foxglove.mcap`` with the Foxglove channels the live bridge serves
(:mod:`bt_executive.observe.foxglove`: JSON with JSON schemas). They are not in the bag
itself: rosbag2's reader refuses a bag whose topics mix serialisation formats (``cdr``
and ``json``), and so does every rosbag2 reader that expects ROS message definitions.

:func:`read_bag` reads such a file (or a bag recorded by ``ros2 bag record`` of those
topics, or a rosbag2 directory: its ``metadata.yaml`` and MCAP files) back with the
``mcap`` reader and ``mcap-ros2-support``'s decoder; a file that was not finalised (the
recorder was killed) is read up to where it was cut and reported as such
(:attr:`Bag.truncated`), never as a traceback.

Crash guarantee: every file is written through :class:`WriteThrough` (each MCAP record
goes to the OS whole, with one ``write``), and the chunk in progress is written at least
every ``flush_period`` seconds (:meth:`BagWriter.flush_due`; the executive calls it from a
timer), so a process killed outright (SIGKILL, a segfault, the OOM killer) leaves a file
that ends at a record boundary and loses only the chunk in progress: at most
``flush_period`` seconds of messages and never more than :data:`CHUNK_SIZE` bytes of them
(a chunk is written when it reaches that size). Such a file has no summary and no footer;
:func:`read_bag` reads it (and says it was cut off), and :func:`recover` writes a
finalised copy that every MCAP and rosbag2 reader opens (``bt-executive record
--recover``). A new :class:`BagWriter` renames such a file instead of overwriting it.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import pathlib
import struct
import time
from typing import Any, BinaryIO, Callable, cast, IO, Iterable, Optional

from bt_executive.observe.foxglove import FoxgloveMessage, FoxgloveView
from mcap.exceptions import McapError
from mcap.records import (Attachment, Channel, DataEnd, Footer, Header, Message, Metadata,
                          Schema)
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, Writer
from mcap_ros2.decoder import DecoderFactory
import yaml

STRING_TYPE = 'std_msgs/msg/String'
STRING_DEFINITION = b'string data\n'
#: Topics (under the executive's node) a recording holds, and whether each is latched.
TOPICS = {'snapshot': True, 'snapshot_delta': False, 'events': False, 'status': True}
#: Topics (under the executive's node) whose last messages each split starts with, beyond
#: the latched ones: the deltas' history (what a late joiner gets).
KEPT = {'snapshot_delta': 100}
#: Uncompressed bytes of messages a chunk collects before it is written: with
#: ``flush_period`` the bound on what a process killed outright loses.
CHUNK_SIZE = 256 * 1024
#: The MCAP magic (start and end of a file).
MAGIC = b'\x89MCAP0\r\n'
#: Bytes of a Footer record (opcode, length, summary start, summary offset start, CRC).
_FOOTER_SIZE = 1 + 8 + 8 + 8 + 4
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


def string_text(data: bytes) -> Optional[str]:
    """Return the text of a CDR ``std_msgs/msg/String`` (None: not one)."""
    if len(data) < 9 or data[1] not in (0, 1):
        return None
    size = int.from_bytes(data[4:8], 'little' if data[1] == 1 else 'big')
    if size < 1 or 8 + size > len(data) or data[8 + size - 1] != 0:
        return None
    try:
        return data[8:8 + size - 1].decode('utf-8')
    except UnicodeDecodeError:
        return None


class WriteThrough:
    """A file opened for writing whose every ``write`` goes to the OS at once, whole.

    The ``mcap`` writer puts each record together in memory and writes it with one call;
    through this file a process killed outright leaves only whole records behind, where a
    buffered file (or ``open(..., buffering=0)``, which the writer wraps in a buffer
    again) leaves whatever part of its buffer had gone out. Not an ``io`` class on purpose.
    """

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        self._position = 0

    def write(self, data: bytes) -> int:
        """Write all of ``data`` (a short write is continued)."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        self._position += len(data)
        return len(data)

    def tell(self) -> int:
        """Return the bytes written so far."""
        return self._position

    def flush(self) -> None:
        """Do nothing: nothing is held back."""

    def as_file(self) -> IO[bytes]:
        """Return this object typed as a file for the ``mcap`` writer (write, tell, flush)."""
        return cast(IO[bytes], self)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def foxglove_name(path: str) -> str:
    """Return the Foxglove companion of a recording (``run.mcap`` -> ``run.foxglove.mcap``)."""
    target = pathlib.Path(path)
    return str(target.with_name(f'{target.stem}.foxglove{target.suffix or ".mcap"}'))


class FoxgloveFile:
    """An MCAP file of Foxglove channels: JSON messages with ``jsonschema`` schemas.

    A channel is registered when its first message comes, with that message's schema:
    one channel per topic (every message of a channel carries the same schema,
    :data:`~bt_executive.observe.foxglove.SCHEMAS`).
    """

    def __init__(self, path: str, metadata: Optional[dict[str, str]] = None) -> None:
        self.path = path
        self._stream: Optional[WriteThrough] = WriteThrough(path)  # see CHUNK_SIZE
        self._writer: Optional[Writer] = Writer(self._stream.as_file(), chunk_size=CHUNK_SIZE,
                                                compression=CompressionType.ZSTD)
        self._writer.start(profile='', library='bt_executive')
        if metadata:
            self._writer.add_metadata('bt_executive', metadata)
        self._channels: dict[str, int] = {}
        self.messages = 0

    def write(self, topic: str, message: FoxgloveMessage, log_time: int) -> None:
        """Write ``message`` on ``topic`` at ``log_time`` (ns)."""
        assert self._writer is not None
        channel = self._channels.get(topic)
        if channel is None:
            schema = self._writer.register_schema(message.schema_name, 'jsonschema',
                                                  message.schema.encode('utf-8'))
            channel = self._channels[topic] = self._writer.register_channel(
                topic=topic, message_encoding='json', schema_id=schema)
        self._writer.add_message(channel_id=channel, log_time=log_time,
                                 publish_time=log_time, data=message.encode())
        self.messages += 1

    def flush(self) -> None:
        """Write the chunk in progress."""
        if self._writer is not None:
            self._writer.flush()  # type: ignore[no-untyped-call]

    def close(self) -> None:
        """Finalise the file (idempotent)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.finish()  # type: ignore[no-untyped-call]
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def split_name(path: str, index: int) -> str:
    """Return the name of split ``index`` of ``path`` (``run.mcap`` -> ``run_3.mcap``)."""
    target = pathlib.Path(path)
    suffix = target.suffix or '.mcap'
    return str(target.with_name(f'{target.stem}_{index}{suffix}'))


#: Seconds a split is written to at least before the next (BagWriter's ``min_split``).
MIN_SPLIT = 1.0


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
        foxglove: also write each file's Foxglove companion (:func:`foxglove_name`)
        min_split: seconds a file is written to at least before the next split. Each
            split starts with the current state again (snapshot, status, the last
            deltas), so with a size below that a split per message would follow
            (``--max-size 1``: thousands of files an hour); a file may then pass
            ``max_size`` by what arrives in this time.
    """

    def __init__(self, path: str, topics: dict[str, bool], *, max_size: int = 0,
                 max_duration: float = 0.0, metadata: Optional[dict[str, str]] = None,
                 flush_period: float = 1.0, kept: Optional[dict[str, int]] = None,
                 clock: Callable[[], int] = time.time_ns, foxglove: bool = False,
                 min_split: float = MIN_SPLIT) -> None:
        self.path = path
        self.topics = dict(topics)
        self.max_size = max_size
        self.max_duration = max_duration
        self.metadata = dict(metadata or {})
        self.flush_period = flush_period
        self.clock = clock
        self.rotating = bool(max_size or max_duration)
        self.min_split = min_split
        #: every file written so far (the current one last)
        self.files: list[str] = []
        #: messages written per topic (over every file)
        self.counts: dict[str, int] = dict.fromkeys(topics, 0)
        self.messages = 0
        self.bytes = 0  # message data bytes (CDR), over every file
        self.started = time.monotonic()
        self.foxglove = foxglove
        #: the Foxglove companions written so far (the current one last)
        self.foxglove_files: list[str] = []
        #: messages written to the Foxglove companions
        self.foxglove_messages = 0
        #: (name, new name) of files a killed run left unfinalised where this one writes
        self.set_aside: list[tuple[str, str]] = []
        self._views: dict[str, FoxgloveView] = {}
        self._fox: Optional[FoxgloveFile] = None
        self._kept = {topic: int(latched) for topic, latched in self.topics.items()}
        self._kept.update(kept or {})
        self._latest: dict[str, collections.deque[tuple[bytes, int]]] = {
            topic: collections.deque(maxlen=count)
            for topic, count in self._kept.items() if count > 0}
        self._stream: Optional[WriteThrough] = None
        self._writer: Optional[Writer] = None
        self._channels: dict[str, int] = {}
        self._file_started = 0.0
        self._last_flush = 0.0
        self._open()

    def _open(self) -> None:
        name = split_name(self.path, len(self.files)) if self.rotating else self.path
        directory = os.path.dirname(os.path.abspath(name))
        os.makedirs(directory, exist_ok=True)
        self._set_aside(name)
        if self.foxglove:
            self._set_aside(foxglove_name(name))
        self._stream = WriteThrough(name)  # a kill cuts no record
        self.files.append(name)
        writer = Writer(self._stream.as_file(), chunk_size=CHUNK_SIZE,
                        compression=CompressionType.ZSTD)
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
        if self.foxglove:
            self._fox = FoxgloveFile(foxglove_name(name), self.metadata)
            self.foxglove_files.append(self._fox.path)
            stamp = max((kept[-1][1] for kept in self._latest.values() if kept), default=0)
            for prefix, view in self._views.items():  # the current state again
                for message in view.latest():
                    self._fox.write(f'{prefix}/{message.channel}', message, stamp)
        self._file_started = self._last_flush = time.monotonic()
        # each split starts as a late joiner would (the latched messages, the deltas' history)
        for topic, latest in self._latest.items():
            for data, stamp in latest:
                self._add(topic, data, stamp)

    def _set_aside(self, name: str) -> None:
        """Rename a file left unfinalised at ``name`` (a killed run) instead of overwriting it.

        A respawned executive recording to the same name would otherwise erase the
        recording of the run that died; it becomes ``run.unfinished.mcap`` (``-1``,
        ``-2`` ... when taken), for ``bt-executive record --recover``.
        """
        if not os.path.isfile(name) or os.path.getsize(name) == 0 or finalised(name):
            return
        stem, suffix = os.path.splitext(name)
        target, number = f'{stem}.unfinished{suffix}', 0
        while os.path.exists(target):
            number += 1
            target = f'{stem}.unfinished-{number}{suffix}'
        os.replace(name, target)
        self.set_aside.append((name, target))

    def file_size(self) -> int:
        """Return the bytes written to the current file so far (flushed chunks)."""
        return self._stream.tell() if self._stream is not None else 0

    def write(self, topic: str, data: bytes, log_time: Optional[int] = None,
              text: Optional[str] = None) -> None:
        """Write one message (CDR bytes of a ``std_msgs/msg/String``) of ``topic``.

        ``text`` is its text when the caller has it (else decoded for the companion).
        """
        if self._writer is None:
            raise ValueError(f'{self.path}: the recording is closed')
        if topic not in self._channels:
            raise ValueError(f'{topic} is not one of the recorded topics')
        stamp = self.clock() if log_time is None else log_time
        now = time.monotonic()
        if self.rotating and self.messages and now - self._file_started >= self.min_split and (
                (self.max_size and self.file_size() + len(data) > self.max_size)
                or (self.max_duration and now - self._file_started >= self.max_duration)):
            self._close_file()
            self._open()
        self._add(topic, data, stamp)
        if topic in self._latest:
            self._latest[topic].append((data, stamp))
        if self._fox is not None:
            self._to_foxglove(topic, string_text(data) if text is None else text, stamp)
        self.counts[topic] = self.counts.get(topic, 0) + 1
        self.messages += 1
        self.bytes += len(data)
        if now - self._last_flush >= self.flush_period:
            self.flush()

    def write_text(self, topic: str, text: str, log_time: Optional[int] = None) -> None:
        """Write one message given as its text (encoded as ``std_msgs/msg/String``)."""
        self.write(topic, string_cdr(text), log_time, text)

    def _to_foxglove(self, topic: str, text: Optional[str], stamp: int) -> None:
        assert self._fox is not None
        prefix, _, kind = topic.rpartition('/')
        view = self._views.get(prefix)
        if view is None:
            view = self._views[prefix] = FoxgloveView()
        if text is None:
            view.errors.append(f'{topic}: not a std_msgs/msg/String')
            return
        for message in view.put(kind, text, stamp / 1e9):
            self._fox.write(f'{prefix}/{message.channel}', message, stamp)
            self.foxglove_messages += 1

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
        if self._fox is not None:
            self._fox.flush()

    def _close_file(self) -> None:
        if self._fox is not None:
            fox, self._fox = self._fox, None
            fox.close()
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
    """What :func:`read_bag` found in a recording (one MCAP file or a rosbag2 directory).

    Attributes:
        path: the file or directory read
        messages: the string messages of the chosen topics, in log time order
        channels: topic -> (message encoding, schema name, schema encoding)
        counts: topic -> messages read (strings; JSON messages of Foxglove channels)
        truncated: why the recording ends early ('' for finalised files)
        profile: the header's profile (``ros2``)
        skipped: messages of other types or that could not be decoded
        files: the MCAP files read, in order
        notes: what else a reader should know (a rosbag2 directory without its
            metadata.yaml)
        log_times: (first, last) log time (ns) over every message counted
    """

    path: str
    messages: list[BagMessage]
    channels: dict[str, tuple[str, str, str]]
    counts: dict[str, int]
    truncated: str = ''
    profile: str = ''
    skipped: int = 0
    files: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    log_times: tuple[int, int] = (0, 0)

    @property
    def duration(self) -> float:
        """Return seconds from the first message to the last (0 without messages)."""
        return (self.log_times[1] - self.log_times[0]) / 1e9


class BagError(Exception):
    """A file that is not a readable MCAP recording (the message says why, and where)."""


def bag_files(path: str) -> tuple[list[str], list[str]]:
    """Return the MCAP files of a recording and notes on them.

    ``path`` is an MCAP file, a rosbag2 directory (``ros2 bag record -s mcap``: its
    ``metadata.yaml`` lists the files in order) or that ``metadata.yaml``. A directory
    without ``metadata.yaml`` (a recorder killed before writing it) gives its ``.mcap``
    files in the order of their split number.

    Raises:
        BagError: no such path, a bag in another storage (sqlite3), a compressed bag, a
            metadata.yaml that is not rosbag2's, a directory without MCAP files.
    """
    target = pathlib.Path(path)
    if target.name == 'metadata.yaml' and target.is_file():
        target = target.parent
    if not target.is_dir():
        return [path], []
    metadata = target / 'metadata.yaml'
    if not metadata.is_file():
        found = sorted(target.glob('*.mcap'), key=_split_order)
        if not found:
            sqlite = sorted(target.glob('*.db3'))
            raise BagError(f'{path}: ' + (
                f'a rosbag2 bag in sqlite3 storage ({sqlite[0].name}): only MCAP storage is '
                'read; convert it with `ros2 bag convert` (storage_id: mcap)' if sqlite else
                'no metadata.yaml and no .mcap file: not a rosbag2 bag'))
        return [str(file) for file in found], [
            f'{path}: no metadata.yaml (the recorder was killed?): read '
            f'{", ".join(file.name for file in found)}']
    try:
        info = (yaml.safe_load(metadata.read_text(encoding='utf-8')) or {}
                ).get('rosbag2_bagfile_information')
    except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError) as error:
        raise BagError(f'{metadata}: not a rosbag2 metadata.yaml ({error})') from None
    if not isinstance(info, dict):
        raise BagError(f'{metadata}: not a rosbag2 metadata.yaml (no '
                       'rosbag2_bagfile_information)')
    storage = str(info.get('storage_identifier') or '')
    if storage != 'mcap':
        raise BagError(f'{path}: a rosbag2 bag in {storage or "unknown"} storage: only MCAP '
                       'storage is read; convert it with `ros2 bag convert` (storage_id: '
                       'mcap)')
    if info.get('compression_mode') or info.get('compression_format'):
        raise BagError(f'{path}: a compressed rosbag2 bag (compression_mode '
                       f'{info.get("compression_mode")!r}, format '
                       f'{info.get("compression_format")!r}) is not read; convert it without '
                       'compression (`ros2 bag convert`); MCAP chunk compression is fine')
    names = info.get('relative_file_paths') or []
    if not isinstance(names, list) or not names:
        raise BagError(f'{metadata}: lists no files (relative_file_paths)')
    return [str(target / str(name)) for name in names], []


def _split_order(file: pathlib.Path) -> tuple[int, str]:
    number = file.stem.rpartition('_')[2]
    return (int(number) if number.isdigit() else -1, file.name)


def read_bag(path: str, topics: Optional[Iterable[str]] = None) -> Bag:
    """Read the ``std_msgs/msg/String`` messages of a recording.

    Args:
        path: an MCAP file, a rosbag2 directory or its metadata.yaml (see :func:`bag_files`)
        topics: only these topics (default: every ``std_msgs/msg/String`` topic)

    Returns:
        the messages in log time order; :attr:`Bag.truncated` says whether and where a
        file was cut off (then the messages are those before the cut). Messages of JSON
        channels (a Foxglove companion) are counted, not kept.

    Raises:
        BagError: a file cannot be opened, or is not MCAP at all (see :func:`bag_files`).
    """
    files, notes = bag_files(path)
    bag = Bag(path, [], {}, {}, files=files, notes=notes)
    wanted = None if topics is None else set(topics)
    times: list[int] = []
    for file in files:
        truncated = _read_file(file, bag, wanted, times)
        if truncated and not bag.truncated:
            bag.truncated = truncated
    bag.messages.sort(key=lambda message: message.log_time)
    if times:
        bag.log_times = (min(times), max(times))
    return bag


def _open_mcap(path: str) -> tuple[BinaryIO, int]:
    """Open the MCAP file ``path`` for reading at its start; return it and its size.

    Raises:
        BagError: it cannot be opened, or does not start with the MCAP magic.
    """
    try:
        stream = open(path, 'rb')
    except OSError as error:
        raise BagError(f'{path}: cannot open: {error.strerror or error}') from None
    size = os.fstat(stream.fileno()).st_size
    if size < len(MAGIC) or stream.read(len(MAGIC)) != MAGIC:
        stream.close()
        raise BagError(f'{path}: not an MCAP file (no MCAP magic at the start)')
    stream.seek(0)
    return stream, size


def _read_file(path: str, bag: Bag, wanted: Optional[set[str]], times: list[int]) -> str:
    """Add what the MCAP file ``path`` holds to ``bag``; return why it ends early, or ''."""
    truncated = ''
    stream, size = _open_mcap(path)
    with stream:
        factory = DecoderFactory()
        schemas: dict[int, Any] = {}
        by_id: dict[int, Any] = {}
        ended = False
        try:
            for record in StreamReader(stream, record_size_limit=1 << 30).records:
                if isinstance(record, Header):
                    bag.profile = bag.profile or record.profile
                elif isinstance(record, Schema):
                    schemas[record.id] = record
                elif isinstance(record, Channel):
                    by_id[record.id] = record
                    schema = schemas.get(record.schema_id)
                    bag.channels.setdefault(record.topic, (
                        record.message_encoding, schema.name if schema else '',
                        schema.encoding if schema else ''))
                elif isinstance(record, Message):
                    _read_message(record, by_id, schemas, factory, bag, wanted, times)
                elif isinstance(record, Footer):
                    ended = True
        except (McapError, struct.error, EOFError, ValueError, OSError) as error:
            detail = str(error) or type(error).__name__
            truncated = (f'{path}: the file ends early ({detail}; {size} bytes): it was not '
                         'finalised (the recorder was killed?); read what it holds')
        if not truncated and not ended:
            truncated = (f'{path}: the file has no footer ({size} bytes): it was not '
                         'finalised (the recorder was killed?); read what it holds')
    return truncated


def _read_message(record: Message, by_id: dict[int, Any], schemas: dict[int, Any],
                  factory: DecoderFactory, bag: Bag, wanted: Optional[set[str]],
                  times: list[int]) -> None:
    channel = by_id.get(record.channel_id)
    if channel is None:
        bag.skipped += 1
        return
    if wanted is not None and channel.topic not in wanted:
        return
    if channel.message_encoding == 'json':  # a Foxglove channel: counted, not kept
        bag.counts[channel.topic] = bag.counts.get(channel.topic, 0) + 1
        times.append(record.log_time)
        return
    schema = schemas.get(channel.schema_id)
    if schema is None or schema.name != STRING_TYPE or channel.message_encoding != 'cdr':
        bag.skipped += 1
        return
    try:
        decode = factory.decoder_for(channel.message_encoding, schema)
        text = decode(record.data).data if decode is not None else None
    except (McapError, ValueError, UnicodeDecodeError, struct.error):
        text = None
    if not isinstance(text, str):
        bag.skipped += 1
        return
    bag.messages.append(BagMessage(channel.topic, record.log_time, text))
    bag.counts[channel.topic] = bag.counts.get(channel.topic, 0) + 1
    times.append(record.log_time)


def finalised(path: str) -> bool:
    """Tell whether the MCAP file ``path`` ends with a footer and the closing magic.

    A file that does not (a recorder killed outright) is what :func:`recover` repairs.
    """
    try:
        with open(path, 'rb') as stream:
            size = os.fstat(stream.fileno()).st_size
            if size < 2 * len(MAGIC) + _FOOTER_SIZE:
                return False
            stream.seek(size - len(MAGIC) - _FOOTER_SIZE)
            tail = stream.read()
    except OSError:
        return False
    return tail[0] == 0x02 and tail.endswith(MAGIC)  # 0x02: the Footer opcode


@dataclasses.dataclass
class Recovered:
    """What :func:`recover` kept of a recording that was not finalised.

    Attributes:
        source: the file read
        output: the finalised copy written
        messages: messages copied (every message of every complete chunk)
        kept_bytes: bytes of ``source`` that held complete records
        lost_bytes: bytes after them (an unfinished record, usually the chunk being written)
        reason: why the reading stopped there ('' when the file simply ended)
    """

    source: str
    output: str
    messages: int
    kept_bytes: int
    lost_bytes: int
    reason: str = ''


def recover(path: str, output: str) -> Recovered:
    """Write a finalised copy of the MCAP file ``path`` (cut off by a kill) to ``output``.

    Every complete record is copied in order (schemas, channels, metadata, attachments,
    the messages of every chunk whose CRC holds); reading stops at the first record that
    is cut off or damaged. The copy gets a summary, indexes and a footer, so the ``mcap``
    library's default (seeking) reader and rosbag2 readers (``rosbags``, ``ros2 bag``)
    open it. A finalised file is copied the same way.

    Raises:
        BagError: ``path`` cannot be read or is not MCAP; ``output`` cannot be written.
    """
    stream, size = _open_mcap(path)
    with stream:
        try:
            target = open(output, 'wb')
        except OSError as error:
            raise BagError(f'{output}: cannot write: {error.strerror or error}') from None
        with target:
            result = _copy_records(stream, Writer(target, chunk_size=CHUNK_SIZE,
                                                  compression=CompressionType.ZSTD))
    kept, messages, reason = result
    if kept == size:
        reason = ''  # the file ended at a record boundary: nothing was cut
    return Recovered(path, output, messages, kept, size - kept, reason)


def _copy_records(stream: BinaryIO, writer: Writer) -> tuple[int, int, str]:
    """Copy the complete records of ``stream`` to ``writer``; finish it.

    Returns:
        (bytes read that held complete records, messages copied, why the copy stopped)
    """
    schemas: dict[int, int] = {}
    channels: dict[int, int] = {}
    kept, messages, reason, started = len(MAGIC), 0, '', False
    try:
        for record in StreamReader(stream, record_size_limit=1 << 30,
                                   validate_crcs=True).records:
            if isinstance(record, Header):
                writer.start(profile=record.profile, library=record.library)
                started = True
            elif isinstance(record, Schema) and record.id not in schemas:
                schemas[record.id] = writer.register_schema(record.name, record.encoding,
                                                            record.data)
            elif isinstance(record, Channel) and record.id not in channels:
                channels[record.id] = writer.register_channel(
                    topic=record.topic, message_encoding=record.message_encoding,
                    schema_id=schemas.get(record.schema_id, 0), metadata=record.metadata)
            elif isinstance(record, Message) and record.channel_id in channels:
                writer.add_message(channel_id=channels[record.channel_id],
                                   log_time=record.log_time, data=record.data,
                                   publish_time=record.publish_time, sequence=record.sequence)
                messages += 1
            elif isinstance(record, Metadata):
                writer.add_metadata(record.name, record.metadata)
            elif isinstance(record, Attachment):
                writer.add_attachment(record.create_time, record.log_time, record.name,
                                      record.media_type, record.data)
            elif isinstance(record, (DataEnd, Footer)):
                break  # the summary that follows is written anew
            kept = stream.tell()  # the records of a chunk come once it was read whole
    except Exception as error:  # noqa: B902 - a cut or damaged record (any decoder's error)
        reason = str(error) or type(error).__name__
    if not started:
        writer.start(profile='', library='bt_executive')
    writer.finish()  # type: ignore[no-untyped-call]
    return kept, messages, reason


__all__ = ['Bag', 'BagError', 'BagMessage', 'BagWriter', 'CHUNK_SIZE', 'FoxgloveFile', 'KEPT',
           'MAGIC', 'MIN_SPLIT', 'Recovered', 'STRING_DEFINITION', 'STRING_TYPE', 'TOPICS',
           'WriteThrough',
           'bag_files', 'finalised', 'foxglove_name', 'read_bag', 'recover', 'split_name',
           'string_cdr', 'string_text']
