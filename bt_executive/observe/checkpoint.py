# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Persistent blackboard keys: a state file written after ticks, read back after a restart.

A tree file declares keys ``persistent`` (or the executive's ``persistent_keys``
parameter adds some); :class:`Checkpointer`, a post-tick observer, writes their values to
the executive's ``state_file`` after each tick that wrote one of them, at most once per
``min_interval`` seconds (a write held back by the bound goes out with the next tick
after it). :func:`read_state` reads the file at start: its values are restored only when
the file was written for the same tree (:func:`tree_hash`: the tree's name and the bytes
of every file of the document) with the same schema. Anything else (no file, another
tree, another schema, a file too big, truncated or corrupt) gives no values and one line
saying why: a state file never stops an executive from starting.

Invariants:

- The file on disk is always a whole state: written to ``PATH.tmp``, flushed and
  fsync'ed, then renamed over ``PATH`` (atomic on POSIX) and the directory fsync'ed. A
  process killed at any point leaves the previous state or the new one, never a mix; a
  stale ``PATH.tmp`` is ignored and overwritten by the next write.
- A value that is not JSON data or makes the file larger than :data:`MAX_STATE_BYTES`
  is never written: the previous state stays, and the error is reported (once per key).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from typing import Any, Callable, Iterable, Mapping, Optional

from bt_executive.observe.record import TickRecord

#: The schema of the state file; a file of another schema is not restored.
SCHEMA = 'bt_executive/state/1'
#: Largest state file written or read (bytes): persistent keys hold small mission state.
MAX_STATE_BYTES = 64 * 1024
#: Largest JSON text of one persistent value (bytes).
MAX_VALUE_BYTES = 8 * 1024


class StateError(ValueError):
    """A state could not be written (a value is not JSON data or is too big)."""


def tree_hash(tree_name: str, files: Iterable[str]) -> str:
    """Return the content hash of a tree: its name and the bytes of each file, in order.

    A file that cannot be read counts as its name alone (the hash then changes when it
    becomes readable: a fresh start, never a wrong resume). :mod:`hashlib` is imported
    here, by an executive with a state file only: it loads OpenSSL's libcrypto, some
    3.7 MiB of resident memory (BENCHMARKS.md, RSS per executive).
    """
    import hashlib
    digest = hashlib.sha256(tree_name.encode('utf-8') + b'\0')
    for path in files:
        digest.update(os.path.basename(path).encode('utf-8', 'replace') + b'\0')
        try:
            with open(path, 'rb') as stream:
                digest.update(hashlib.sha256(stream.read()).digest())
        except OSError:
            digest.update(b'?')
    return digest.hexdigest()


def encode_state(values: Mapping[str, Any], *, tree: str, tree_hash: str,
                 tick: int) -> bytes:
    """Return the state file's bytes for ``values`` (``key -> value``, keys without '/').

    Raises:
        StateError: naming the key whose value is not JSON data or too big, or the size.
    """
    for key, value in values.items():
        try:
            text = json.dumps(value, allow_nan=False, separators=(',', ':'))
        except (TypeError, ValueError) as error:
            raise StateError(f"persistent key '{key}': not JSON data ({error}); only "
                             'numbers, strings, booleans, lists and mappings persist') \
                from None
        if len(text) > MAX_VALUE_BYTES:
            raise StateError(f"persistent key '{key}': {len(text)} bytes as JSON, more than "
                             f'{MAX_VALUE_BYTES}')
    data = json.dumps({'schema': SCHEMA, 'tree': tree, 'tree_hash': tree_hash, 'tick': tick,
                       'written': round(time.time(), 3), 'keys': dict(values)},
                      allow_nan=False, sort_keys=True, indent=1).encode('utf-8') + b'\n'
    if len(data) > MAX_STATE_BYTES:
        raise StateError(f'the state is {len(data)} bytes, more than {MAX_STATE_BYTES}: '
                         'persist small mission state only')
    return data


def write_atomically(path: str, data: bytes, *,
                     before_replace: Optional[Callable[[], None]] = None) -> None:
    """Replace ``path`` by ``data``: temporary file, fsync, rename, fsync of the directory.

    ``before_replace`` runs between the fsync and the rename (tests kill the process
    there).

    Raises:
        OSError: the directory or the file cannot be written.
    """
    directory = os.path.dirname(os.path.abspath(path))
    temporary = path + '.tmp'
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    if before_replace is not None:
        before_replace()
    os.replace(temporary, path)
    try:
        directory_fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. a platform without directory descriptors: the rename stands
        return
    try:
        os.fsync(directory_fd)
    except OSError:
        pass
    finally:
        os.close(directory_fd)


@dataclasses.dataclass
class RestoredState:
    """What :func:`read_state` found.

    Attributes:
        values: ``key -> value`` to restore (empty when nothing is restored)
        message: one line for the log: what was restored, or why nothing was
        restored: True when the file belonged to this tree and its values apply
    """

    values: dict[str, Any]
    message: str
    restored: bool


def read_state(path: str, *, tree: str, tree_hash: str,
               keys: Iterable[str]) -> RestoredState:
    """Read the state file ``path`` for the tree ``tree`` (content hash ``tree_hash``).

    Only the ``keys`` still declared persistent are restored. Never raises for what the
    file holds: a missing, foreign, truncated or corrupt file gives no values and a
    message naming the file and the reason.
    """
    wanted = set(keys)
    try:
        size = os.path.getsize(path)
        if size > MAX_STATE_BYTES:
            return _fresh(f'state file {path}: {size} bytes, more than {MAX_STATE_BYTES}: '
                          'ignored, starting fresh')
        with open(path, 'rb') as stream:
            raw = stream.read(MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return _fresh(f'state file {path}: none yet, starting fresh')
    except OSError as error:
        return _fresh(f'state file {path}: cannot read it ({error.strerror or error}): '
                      'starting fresh')
    try:
        data = json.loads(raw.decode('utf-8'))
    except (UnicodeDecodeError, ValueError):
        return _fresh(f'state file {path}: corrupt or truncated ({len(raw)} bytes, not a '
                      'whole JSON document): ignored, starting fresh')
    if not isinstance(data, dict) or not isinstance(data.get('keys'), dict):
        return _fresh(f'state file {path}: not a bt_executive state file: ignored, '
                      'starting fresh')
    if data.get('schema') != SCHEMA:
        return _fresh(f"state file {path}: schema {str(data.get('schema'))[:60]!r}, this "
                      f"executive reads '{SCHEMA}': starting fresh")
    if data.get('tree') != tree or data.get('tree_hash') != tree_hash:
        return _fresh(f"state file {path}: written for tree '{str(data.get('tree'))[:60]}' "
                      'with other contents (the tree or a file of it changed): starting '
                      'fresh')
    values = {key: value for key, value in data['keys'].items() if key in wanted}
    shown = ', '.join(f'{key}={json.dumps(value)[:40]}' for key, value in sorted(values.items()))
    return RestoredState(values, f"state file {path}: resumed tree '{tree}' at tick "
                         f"{data.get('tick')}: {shown or 'no keys'}", True)


def _fresh(message: str) -> RestoredState:
    return RestoredState({}, message, False)


class Checkpointer:
    """A post-tick observer writing the persistent keys after each tick that wrote one.

    Args:
        path: the state file
        keys: the persistent keys (without '/')
        tree: the tree's name
        tree_hash: :func:`tree_hash` of the tree
        storage: returns the blackboard storage (``'/key' -> value``)
        min_interval: seconds between two writes at least (a later write waits for the
            next tick after the interval)
        log_error: where a failed write is reported (once per distinct message)
        clock: monotonic seconds
        background: write (and fsync) the file in a thread of its own, so a tick never
            waits for the disk; the state is taken and encoded in the tick, and a newer
            state replaces one still waiting to be written
    """

    def __init__(self, path: str, keys: Iterable[str], *, tree: str, tree_hash: str,
                 storage: Callable[[], Mapping[str, Any]], min_interval: float = 0.1,
                 log_error: Callable[[str], None] = lambda text: None,
                 clock: Callable[[], float] = time.monotonic,
                 background: bool = False) -> None:
        self.path = path
        self.keys = tuple(sorted(set(keys)))
        self._key_set = frozenset(self.keys)
        self.tree = tree
        self.tree_hash = tree_hash
        self.storage = storage
        self.min_interval = min_interval
        self.log_error = log_error
        self.clock = clock
        self.dirty = True  # a new tree (or a restored one): its first tick writes
        self.writes = 0
        self._last_write = -float('inf')
        self._reported: set[str] = set()
        self._tick = 0
        self._writer: Optional[_Writer] = _Writer(self._write) if background else None

    def on_tick(self, record: TickRecord) -> None:
        """Note a write of a persistent key; write the state file when due."""
        self._tick = record.tick
        if not self.dirty and self._key_set.isdisjoint(record.writes):
            return
        self.dirty = True
        if self.clock() - self._last_write >= self.min_interval:
            self.flush()

    def due_in(self) -> Optional[float]:
        """Return seconds until a held-back write is due (None: nothing held back)."""
        if not self.dirty:
            return None
        return max(0.0, self._last_write + self.min_interval - self.clock())

    def mark(self) -> None:
        """Note that the persistent keys changed outside a tick (a reset): write next tick."""
        self.dirty = True

    def values(self) -> dict[str, Any]:
        """Return the current value of each persistent key on the blackboard."""
        storage = self.storage()
        return {key: storage['/' + key] for key in self.keys if '/' + key in storage}

    def flush(self) -> bool:
        """Write the state file now if something changed; False when the write failed."""
        if not self.dirty:
            return True
        self._last_write = self.clock()
        try:
            data = encode_state(self.values(), tree=self.tree, tree_hash=self.tree_hash,
                                tick=self._tick)
        except StateError as error:
            self._report(error)
            return False
        self.dirty = False
        if self._writer is not None:
            self._writer.put(data)
            return True
        return self._write(data)

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until the background writer wrote what it was given; False on timeout."""
        return self._writer is None or self._writer.drain(timeout)

    def close(self, timeout: float = 10.0, *, flush: bool = True) -> None:
        """Write what is held back (``flush``) or waiting, then stop the background writer.

        Without ``flush`` (the blackboard already belongs to another tree) only the state
        handed to the writer is written.
        """
        if flush:
            self.flush()
        if self._writer is not None:
            self._writer.stop(timeout)

    def _write(self, data: bytes) -> bool:
        try:
            write_atomically(self.path, data)
        except OSError as error:
            self.dirty = True  # the next tick after the interval tries again
            self._report(error)
            return False
        self.writes += 1
        return True

    def _report(self, error: Exception) -> None:
        text = f'state file {self.path}: not written: {error}'
        if text not in self._reported:
            self._reported.add(text)
            self.log_error(text)


class _Writer:
    """A thread writing the latest state handed to it (a newer one replaces a waiting one)."""

    def __init__(self, write: Callable[[bytes], bool]) -> None:
        self._write = write
        self._condition = threading.Condition()
        self._pending: Optional[bytes] = None
        self._busy = False
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name='bt_checkpoint', daemon=True)
        self._thread.start()

    def put(self, data: bytes) -> None:
        with self._condition:
            self._pending = data
            self._condition.notify_all()

    def drain(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._condition:
            while self._pending is not None or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._condition.wait(left)
        return True

    def stop(self, timeout: float) -> None:
        self.drain(timeout)
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._condition:
                while self._pending is None and not self._stopping:
                    self._condition.wait()
                if self._pending is None:
                    return
                data, self._pending, self._busy = self._pending, None, True
            try:
                self._write(data)
            finally:
                with self._condition:
                    self._busy = False
                    self._condition.notify_all()


__all__ = ['Checkpointer', 'encode_state', 'MAX_STATE_BYTES', 'MAX_VALUE_BYTES',
           'read_state', 'RestoredState', 'SCHEMA', 'StateError', 'tree_hash',
           'write_atomically']
