# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A recording as a timeline of snapshots, for the replay viewers (no ROS in here).

:class:`Timeline` feeds the recorded ``~/snapshot`` and ``~/snapshot_delta`` messages of
one executive, in log time order, to the same :class:`~bt_executive.observe.delta.
SnapshotState` the live viewers use, and keeps every state it rebuilds as a *frame*: the
full snapshot as a live viewer showed it after that change (a heartbeat that repeats a
state makes no frame). The viewers step through the frames, find the frame of a tick,
the next (or previous) status change of a node and the next FAILURE; the recorded
``~/events`` batches are kept with the frame they belong to.

One exception to log time order: a full snapshot that would skip states (the recorder
took it before deltas published earlier) waits for those deltas, up to
:data:`HOLD_LIMIT` messages, so that every state a live viewer showed is a frame.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from bt_executive.observe.bag import Bag, read_bag
from bt_executive.observe.delta import DELTA_SCHEMA, SnapshotState

#: The topic suffixes a timeline reads.
SUFFIXES = ('/snapshot', '/snapshot_delta', '/events')


def executives(topics: Iterable[str]) -> list[str]:
    """Return the executive node names (``/ns/bt_executive``) with a recorded snapshot."""
    return sorted({topic[:-len('/snapshot')] for topic in topics
                   if topic.endswith('/snapshot')})


#: Stream messages a full snapshot ahead of the state waits for the deltas it skips.
HOLD_LIMIT = 200


def _ahead(message: dict[str, Any], current: Optional[dict[str, Any]]) -> bool:
    """Return whether ``message`` is a full snapshot that skips states of ``current``'s run.

    The recorder takes ``~/snapshot`` and ``~/snapshot_delta`` on two subscriptions, and
    its executor may take a keyframe before deltas published earlier (seen on a loaded
    machine: keyframe 100 written before deltas 99 and 100). Fed at once, the keyframe
    would make the deltas old, and the states between never a frame.
    """
    return (current is not None
            and str(message.get('schema', '')).startswith('bt_executive/snapshot/')
            and (message.get('session'), message.get('revision'))
            == (current.get('session'), current.get('revision'))
            and message.get('seq', 0) > current.get('seq', 0) + 1)


def _fills(message: dict[str, Any], held: dict[str, Any],
           current: Optional[dict[str, Any]]) -> bool:
    """Return whether ``message`` is a delta between ``current`` and the ``held`` snapshot."""
    return (current is not None and message.get('schema') == DELTA_SCHEMA
            and not message.get('heartbeat')
            and (message.get('session'), message.get('revision'))
            == (held.get('session'), held.get('revision'))
            and current.get('seq', 0) < message.get('seq', 0) <= held.get('seq', 0))


class Timeline:
    """Every state of one executive's tree in a recording, oldest first.

    Args:
        messages: ``(topic, log_time, text)`` of the recording, in log time order
        node: the executive's node name (``/robot1/bt_executive``; default: the only one)
        source: what the messages came from (for the notes)

    Raises:
        ValueError: no snapshot of that executive in the messages, or several executives
            and none chosen.

    Attributes:
        frames: the snapshots, one per recorded change, oldest first
        log_times: the log time (ns) of the message that made each frame
        events: ``(frame index, event)`` of the recorded transitions
        notes: what a viewer should say (gaps, unreadable messages, a cut-off file)
        node: the executive replayed
    """

    def __init__(self, messages: Iterable[tuple[str, int, str]], *,
                 node: Optional[str] = None, source: str = 'the recording') -> None:
        messages = list(messages)
        found = executives(topic for topic, _, _ in messages)
        if node is not None:
            node = '/' + node.strip('/')
            if node not in found:
                raise ValueError(f'{source}: no snapshot of {node} (recorded: '
                                 f'{", ".join(found) or "none"})')
        elif len(found) != 1:
            raise ValueError(f'{source}: ' + (
                'no ~/snapshot recorded' if not found else
                f'several executives recorded ({", ".join(found)}): choose one'))
        else:
            node = found[0]
        self.node = node
        self.frames: list[dict[str, Any]] = []
        self.log_times: list[int] = []
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.notes: list[str] = []
        state = SnapshotState()
        seen: set[tuple[Any, Any, Any]] = set()
        unreadable = 0
        held: Optional[tuple[int, dict[str, Any]]] = None  # a full snapshot ahead, its time
        waited = 0

        def take(log_time: int, message: dict[str, Any]) -> None:
            if not state.feed(message):
                return
            # each state passed, also those of deltas that came before their snapshot
            for snapshot in state.passed:
                key = (snapshot.get('session'), snapshot.get('revision'), snapshot.get('seq'))
                if key in seen:
                    continue
                seen.add(key)
                self.frames.append(snapshot)
                # a held snapshot's state follows states of later messages
                self.log_times.append(max(log_time, self.log_times[-1] if self.log_times
                                          else log_time))

        for topic, log_time, text in messages:
            if not topic.startswith(node + '/') or topic[len(node):] not in SUFFIXES:
                continue
            try:
                message = json.loads(text)
                if topic.endswith('/events'):
                    for event in message.get('events') or []:
                        self.events.append((max(len(self.frames) - 1, 0), event))
                    continue
                if held is not None:
                    waited += 1
                    if not _fills(message, held[1], state.snapshot) or waited > HOLD_LIMIT:
                        take(*held)
                        held = None
                if _ahead(message, state.snapshot):
                    held, waited = (log_time, message), 0
                    continue
                take(log_time, message)
                if held is not None and state.snapshot is not None \
                        and state.snapshot.get('seq', 0) >= held[1].get('seq', 0):
                    take(*held)  # caught up: the same state (its stamp may be fresher)
                    held = None
            except (ValueError, AttributeError, TypeError, KeyError):
                unreadable += 1
                continue
        if held is not None:
            take(*held)
        if not self.frames:
            raise ValueError(f'{source}: no usable snapshot of {node}')
        if state.gaps:
            self.notes.append(f'{state.gaps} gap(s) in the deltas: the states between a gap '
                              'and the next full snapshot are missing')
        if unreadable:
            self.notes.append(f'{unreadable} unreadable message(s) skipped')

    @classmethod
    def from_bag(cls, bag: Bag, node: Optional[str] = None) -> 'Timeline':
        """Return the timeline of a recording read with :func:`read_bag`."""
        timeline = cls(((m.topic, m.log_time, m.text) for m in bag.messages), node=node,
                       source=bag.path)
        if bag.truncated:
            timeline.notes.insert(0, bag.truncated)
        timeline.notes[:0] = bag.notes  # e.g. a rosbag2 directory without metadata.yaml
        return timeline

    @classmethod
    def load(cls, path: str, node: Optional[str] = None) -> 'Timeline':
        """Read the recording ``path`` (BagError, ValueError: see :func:`read_bag`)."""
        return cls.from_bag(read_bag(path), node)

    def __len__(self) -> int:
        """Return the number of frames."""
        return len(self.frames)

    def tick(self, index: int) -> int:
        """Return the tick count of frame ``index``."""
        return int((self.frames[index].get('tick') or {}).get('count', 0))

    def at_tick(self, tick: int) -> int:
        """Return the index of the state shown at tick ``tick`` (the last frame up to it)."""
        found = 0
        for index in range(len(self.frames)):
            if self.tick(index) > tick:
                break
            found = index
        return found

    def status(self, index: int, node: str) -> Optional[str]:
        """Return the status of ``node`` in frame ``index`` (None: not in that tree)."""
        entry = self.frames[index]['state'].get(node)
        return None if entry is None else str(entry['status'])

    def next_change(self, index: int, node: str, step: int = 1) -> Optional[int]:
        """Return the next frame (``step`` -1: the previous) where ``node``'s status changed."""
        current = self.status(index, node)
        probe = index + step
        while 0 <= probe < len(self.frames):
            status = self.status(probe, node)
            if status != current:
                return probe if step > 0 else self._start_of(probe, node)
            probe += step
        return None

    def _start_of(self, index: int, node: str) -> int:
        """Return the first frame of the run of equal statuses that ends at ``index``."""
        status = self.status(index, node)
        while index > 0 and self.status(index - 1, node) == status:
            index -= 1
        return index

    def next_failure(self, index: int, node: Optional[str] = None,
                     step: int = 1) -> Optional[int]:
        """Return the next (``step`` -1: previous) frame where a node turned FAILURE.

        With ``node``, only that node counts; otherwise any node.
        """
        probe = index + step
        while 0 < probe < len(self.frames):
            before, after = self.frames[probe - 1]['state'], self.frames[probe]['state']
            names = [node] if node is not None else after
            for name in names:
                now = after.get(name)
                if now is not None and now['status'] == 'FAILURE' and (
                        before.get(name) or {}).get('status') != 'FAILURE':
                    return probe
            probe += step
        return None

    def events_until(self, index: int, limit: int = 50) -> list[dict[str, Any]]:
        """Return the last ``limit`` transitions recorded up to frame ``index``."""
        return [event for at, event in self.events if at <= index][-limit:]

    def summary(self) -> dict[str, Any]:
        """Return the timeline as JSON data for a viewer (no snapshots)."""
        first = self.log_times[0]
        return {
            'node': self.node, 'notes': list(self.notes), 'count': len(self.frames),
            'frames': [{'tick': self.tick(index),
                        'time': round((self.log_times[index] - first) / 1e9, 3),
                        'root': self.frames[index].get('root_status'),
                        'revision': self.frames[index].get('revision')}
                       for index in range(len(self.frames))],
        }


__all__ = ['SUFFIXES', 'Timeline', 'executives']
