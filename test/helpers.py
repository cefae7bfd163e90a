"""Helpers shared by the test suites: bounded waits, spawned peer processes, peer events.

Nothing here imports rclpy at module level, so the core (non-ROS) tests can use it too.

Waiting rules for every test in this repository:

* Prefer event-based waits: a ``threading.Event`` set from a callback, awaited with
  :func:`wait_event`, or an rclpy future awaited with :func:`wait_future`.
* Where no event exists, :func:`wait_for` polls a predicate with short sleeps. The sleeps
  are only the polling mechanism of a bounded wait; never sleep to "give something time".
"""

from __future__ import annotations

from collections.abc import Callable
import json
import os
import pathlib
import signal
import subprocess
import threading
import time
from typing import Any, Optional, TypeVar

T = TypeVar('T')

DEFAULT_TIMEOUT = 10.0
"""Seconds the harness waits for a peer to come up or an answer to arrive by default."""


def wait_for(predicate: Callable[[], T], timeout: float, message: str, *,
             interval: float = 0.02) -> T:
    """Poll ``predicate`` until it returns a truthy value, at most ``timeout`` seconds.

    Args:
        predicate: Called repeatedly; its first truthy result is returned.
        timeout: Seconds to wait at most.
        message: What is awaited, for the error message.
        interval: Seconds between polls.

    Returns:
        The first truthy value returned by ``predicate``.

    Raises:
        AssertionError: ``'timed out after {timeout}s waiting for {message}'``.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f'timed out after {timeout}s waiting for {message}')
        time.sleep(min(interval, remaining))


def wait_event(event: threading.Event, timeout: float, message: str) -> None:
    """Wait until ``event`` is set, at most ``timeout`` seconds.

    Raises:
        AssertionError: ``'timed out after {timeout}s waiting for {message}'``.
    """
    if not event.wait(timeout):
        raise AssertionError(f'timed out after {timeout}s waiting for {message}')


def wait_future(future: Any, timeout: float, message: str) -> Any:
    """Wait for an rclpy future completed by an executor spinning in another thread.

    The wait is event-based: a done-callback sets a ``threading.Event``.

    Args:
        future: An ``rclpy.task.Future`` (e.g. from ``send_goal_async``).
        timeout: Seconds to wait at most.
        message: What is awaited, for the error message.

    Returns:
        The future's result.

    Raises:
        AssertionError: On timeout.
        Exception: Whatever the future raised.
    """
    done = threading.Event()
    future.add_done_callback(lambda _future: done.set())
    wait_event(done, timeout, message)
    return future.result()


class SpawnedProcess:
    """A peer script running as a real subprocess, with its output captured to files.

    Stdout is read line by line by a thread that appends to ``stdout_path`` and wakes
    waiters, so :meth:`wait_for_line` and :meth:`wait_for_event` are event-based.

    Attributes:
        name: Short name for reports (the script's file name).
        popen: The underlying ``subprocess.Popen``.
        stdout_path: File receiving the process's stdout.
        stderr_path: File receiving the process's stderr.
        grace: Seconds :meth:`stop` waits after SIGINT before sending SIGKILL.
    """

    def __init__(self, args: list[str], *, directory: pathlib.Path, name: str,
                 grace: float = 5.0, env: Optional[dict[str, str]] = None) -> None:
        """Start the process.

        Args:
            args: Full command line.
            directory: Where the output files go.
            name: Short name for reports and file names.
            grace: Seconds to wait after SIGINT before SIGKILL on :meth:`stop`.
            env: Environment; defaults to a copy of ``os.environ``.
        """
        self.name = name
        self.grace = grace
        self.stdout_path = directory / f'{name}.stdout'
        self.stderr_path = directory / f'{name}.stderr'
        self._lines: list[str] = []
        self._changed = threading.Condition()
        self._stderr_file = open(self.stderr_path, 'wb')
        self.popen = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr_file,
            env=dict(os.environ) if env is None else env, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read_stdout, name=f'{name}-stdout',
                                        daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """Return the process id."""
        return self.popen.pid

    @property
    def returncode(self) -> Optional[int]:
        """Return the exit status, or None while running (negative: killed by a signal)."""
        return self.popen.poll()

    def _read_stdout(self) -> None:
        """Copy stdout lines to the file and to memory, waking waiters per line."""
        assert self.popen.stdout is not None
        with open(self.stdout_path, 'w', encoding='utf-8') as copy:
            for line in self.popen.stdout:
                copy.write(line)
                copy.flush()
                with self._changed:
                    self._lines.append(line.rstrip('\n'))
                    self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def lines(self) -> list[str]:
        """Return the stdout lines received so far."""
        with self._changed:
            return list(self._lines)

    def events(self) -> list[dict[str, Any]]:
        """Return the JSON event lines printed so far, parsed."""
        return [json.loads(line) for line in self.lines() if line.startswith('{')]

    def wait_for_line(self, wanted: str, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait until a stdout line equals ``wanted``; fail early if the process exits.

        Raises:
            AssertionError: On timeout or if the process ended first.
        """
        return self._wait(lambda line: line == wanted, timeout, f'line {wanted!r}')

    def wait_for_event(self, predicate: Callable[[dict[str, Any]], bool], *,
                       timeout: float = DEFAULT_TIMEOUT,
                       message: str = 'a matching event') -> dict[str, Any]:
        """Wait until a printed JSON event satisfies ``predicate`` and return it.

        Raises:
            AssertionError: On timeout or if the process ended first.
        """
        def matches(line: str) -> bool:
            return line.startswith('{') and predicate(json.loads(line))

        return json.loads(self._wait(matches, timeout, message))

    def _wait(self, matches: Callable[[str], bool], timeout: float, message: str) -> str:
        """Wait on the line condition for the first line for which ``matches`` holds."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for line in self._lines[seen:]:
                    if matches(line):
                        return line
                seen = len(self._lines)
                if not self._reader.is_alive():
                    raise AssertionError(
                        f'{self.name} exited (status {self._exit_status()}) before '
                        f'{message}; stderr:\n{self.stderr_text()}')
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f'timed out after {timeout}s waiting for {message} '
                                         f'from {self.name}')
                self._changed.wait(remaining)

    def _exit_status(self) -> Optional[int]:
        """Return the exit status once stdout has closed (None if still running after 1 s)."""
        try:
            return self.popen.wait(1.0)
        except subprocess.TimeoutExpired:
            return None

    def stderr_text(self) -> str:
        """Return everything the process wrote to stderr so far."""
        return self.stderr_path.read_text(encoding='utf-8', errors='replace')

    def stdout_text(self) -> str:
        """Return everything the process wrote to stdout so far."""
        if not self.stdout_path.exists():
            return ''
        return self.stdout_path.read_text(encoding='utf-8', errors='replace')

    def stop(self) -> int:
        """Stop the process: SIGINT, then SIGKILL after ``grace`` seconds.

        Returns:
            The exit status (negative for a signal, e.g. ``-signal.SIGKILL``).
        """
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
            try:
                self.popen.wait(self.grace)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(self.grace)
        self._reader.join(self.grace)
        if self.popen.stdout is not None:
            self.popen.stdout.close()
        self._stderr_file.close()
        return self.popen.returncode


class PeerEvents:
    """Collect the JSON events a peer publishes on ``<name>/events`` (std_msgs/String).

    The subscription uses the same QoS as the peers (reliable, transient local, depth
    100), so events published before the subscription existed are still delivered.
    """

    def __init__(self, node: Any, topic: str) -> None:
        """Subscribe on ``node`` (whose executor must be spinning) to ``topic``."""
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self._events: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._node = node
        self.topic = topic
        self.subscription = node.create_subscription(String, topic, self._on_message, qos)

    def _on_message(self, msg: Any) -> None:
        """Store one event and wake waiters."""
        with self._changed:
            self._events.append(json.loads(msg.data))
            self._changed.notify_all()

    def events(self) -> list[dict[str, Any]]:
        """Return the events received so far."""
        with self._changed:
            return list(self._events)

    def all(self, name: str, **fields: Any) -> list[dict[str, Any]]:  # noqa: A003
        """Return the events called ``name`` whose fields equal ``fields``, so far."""
        return [event for event in self.events() if event.get('event') == name
                and all(event.get(key) == value for key, value in fields.items())]

    def find(self, name: str, **fields: Any) -> Optional[dict[str, Any]]:
        """Return the first event called ``name`` matching ``fields``, or None (no wait)."""
        matches = self.all(name, **fields)
        return matches[0] if matches else None

    def names(self) -> list[str]:
        """Return the ``event`` field of each event received so far."""
        return [event['event'] for event in self.events()]

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], *,
                 timeout: float = DEFAULT_TIMEOUT,
                 message: str = 'a matching event') -> dict[str, Any]:
        """Wait until an event satisfies ``predicate`` and return it (event-based).

        Raises:
            AssertionError: ``'timed out after {timeout}s waiting for {message}'``.
        """
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for event in self._events[seen:]:
                    if predicate(event):
                        return event
                seen = len(self._events)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f'timed out after {timeout}s waiting for {message} on {self.topic}; '
                        f'got {self._events}')
                self._changed.wait(remaining)

    def wait_for_name(self, name: str, *, timeout: float = DEFAULT_TIMEOUT,
                      **fields: Any) -> dict[str, Any]:
        """Wait for an event called ``name`` whose other fields match ``fields``."""
        def matches(event: dict[str, Any]) -> bool:
            return event.get('event') == name and all(
                event.get(key) == value for key, value in fields.items())

        return self.wait_for(matches, timeout=timeout, message=f'event {name!r} {fields}')

    def close(self) -> None:
        """Destroy the subscription."""
        self._node.destroy_subscription(self.subscription)
