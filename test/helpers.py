# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the test suites: bounded waits, spawned peer processes, peer events.

Also what several suites share besides: the snapshot schema validators, free ports and
open descriptors, and a few ROS calls (created on a node the caller spins).

Nothing here imports rclpy at module level, so the core (non-ROS) tests can use it too.

Waiting rules for every test in this repository:

* Prefer event-based waits: a ``threading.Event`` set from a callback, awaited with
  :func:`wait_event`, or an rclpy future awaited with :func:`wait_future`.
* Where no event exists, :func:`wait_for` polls a predicate with short sleeps. The sleeps
  are only the polling mechanism of a bounded wait; never sleep to "give something time".
"""

from __future__ import annotations

from collections.abc import Callable
import functools
import importlib.util
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Optional, TypeVar

from bt_executive.observe.snapshot import load_schema
import jsonschema

T = TypeVar('T')

DEFAULT_TIMEOUT = 10.0
"""Seconds the harness waits for a peer to come up or an answer to arrive by default."""

_SCHEMA = load_schema()
SNAPSHOT_VALIDATOR = jsonschema.Draft202012Validator(_SCHEMA)
"""Validates a snapshot (``~/snapshot``, ``SnapshotBuilder.full()``) against the schema."""
EVENTS_VALIDATOR = jsonschema.Draft202012Validator(
    {'$ref': '#/$defs/event_batch', '$defs': _SCHEMA['$defs']})
"""Validates an event batch (``~/events``, ``SnapshotBuilder.events()``)."""

SELECTOR_TREE = """
    blackboard: {x: 1}
    trees:
      Main:
        Selector root:
          - Condition blocked: x > 5
          - Sequence work:
              - Success ok
              - Running busy
    """
"""A small tree for the snapshot tests: a failed branch and a running one, settled."""


def wait_for(predicate: Callable[[], T], timeout: float, message: str, *,
             interval: float = 0.02, pause: Callable[[float], object] = time.sleep,
             describe: Optional[Callable[[], object]] = None) -> T:
    """Poll ``predicate`` until it returns a truthy value, at most ``timeout`` seconds.

    The one polling wait of the test tree: a spin-until is this with ``pause`` set to
    :func:`spinning` (an executor), a tick-until a ``predicate`` that ticks first.

    Args:
        predicate: Called repeatedly; its first truthy result is returned. It may raise
            (an AssertionError) to end the wait early, e.g. when a process exited.
        timeout: Seconds to wait at most.
        message: What is awaited, for the error message.
        interval: Seconds between polls.
        pause: Called with the seconds to wait between two polls (at most ``interval``):
            a sleep by default, or e.g. :func:`spinning` an executor.
        describe: Called on timeout; what it returns is added to the error message
            (the state that was seen instead).

    Returns:
        The first truthy value returned by ``predicate``.

    Raises:
        AssertionError: ``'timed out after {timeout}s waiting for {message}'``, then
            ``'; '`` and ``describe()`` if given.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            seen = '' if describe is None else f'; {describe()}'
            raise AssertionError(f'timed out after {timeout}s waiting for {message}{seen}')
        pause(min(interval, remaining))


def spinning(executor: Any) -> Callable[[float], None]:
    """Return a ``pause`` for :func:`wait_for` that spins ``executor`` once.

    The executor runs at most one piece of ready work (a callback, a timer), waiting up
    to the seconds given for it, instead of the thread sleeping: the predicate is checked
    again after every callback, so a wait sees each state a callback leaves behind.
    """
    def pause(seconds: float) -> None:
        executor.spin_once(timeout_sec=seconds)
    return pause


def wait_on(changed: threading.Condition, find: Callable[[], Optional[T]], timeout: float,
            failure: Callable[[], str]) -> T:
    """Wait, holding ``changed``, until ``find()`` returns something other than None.

    ``find`` runs with the condition's lock held, at once and again whenever the
    condition is notified; it may raise to end the wait early.

    Args:
        changed: The condition the producer notifies after each change.
        find: Returns what is awaited, or None while it is not there yet.
        timeout: Seconds to wait at most.
        failure: Returns the error message on timeout (called with the lock held).

    Returns:
        The first result of ``find`` that is not None.

    Raises:
        AssertionError: ``failure()`` on timeout.
    """
    deadline = time.monotonic() + timeout
    with changed:
        while True:
            found = find()
            if found is not None:
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(failure())
            changed.wait(remaining)


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

    def wait_for_match(self, matches: Callable[[str], bool], *,
                       timeout: float = DEFAULT_TIMEOUT, message: str = 'a matching line') -> str:
        """Wait until a stdout line satisfies ``matches`` and return it (fail if it exits).

        Raises:
            AssertionError: On timeout or if the process ended first.
        """
        return self._wait(matches, timeout, message)

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
        seen = 0

        def find() -> Optional[str]:
            nonlocal seen
            for line in self._lines[seen:]:
                if matches(line):
                    return line
            seen = len(self._lines)
            if not self._reader.is_alive():
                raise AssertionError(
                    f'{self.name} exited (status {self._exit_status()}) before '
                    f'{message}; stderr:\n{self.stderr_text()}')
            return None

        return wait_on(self._changed, find, timeout,
                       lambda: f'timed out after {timeout}s waiting for {message} '
                               f'from {self.name}')

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
        seen = 0

        def find() -> Optional[dict[str, Any]]:
            nonlocal seen
            for event in self._events[seen:]:
                if predicate(event):
                    return event
            seen = len(self._events)
            return None

        return wait_on(self._changed, find, timeout,
                       lambda: f'timed out after {timeout}s waiting for {message} on '
                               f'{self.topic}; got {self._events}')

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


def run_python(code: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (this one's); return it finished, output as text."""
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          timeout=timeout)


def installed_here(package: str) -> Optional[str]:
    """Return where ``package`` imports from in this process (``sys.path`` now), or None."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    return spec.origin or ', '.join(spec.submodule_search_locations or []) or package


@functools.lru_cache(maxsize=None)
def installed_for_children(package: str) -> Optional[str]:
    """Return where ``package`` imports from in a fresh interpreter, or None.

    A subprocess started with this process's environment sees ``PYTHONPATH``, not the
    entries a fixture added to this process's ``sys.path`` (a stand-in).
    """
    done = run_python('import importlib.util, sys\n'
                      f'spec = importlib.util.find_spec({package!r})\n'
                      'print(spec.origin or list(spec.submodule_search_locations) '
                      'if spec else "")')
    return done.stdout.strip() or None


def skip_if_installed(package: str, *, children: bool = False) -> None:
    """Skip the calling test, which checks what happens without ``package``, if it is there.

    ``children``: ask a fresh interpreter (for a test whose subprocesses need it absent).
    """
    where = installed_for_children(package) if children else installed_here(package)
    if where is not None:
        import pytest
        pytest.skip(f'{package} is installed here ({where}): this test checks what happens '
                    'without it')


def skip_unless_installed(package: str) -> None:
    """Skip the calling test, which needs ``package``, if it cannot be imported here."""
    if installed_here(package) is None:
        import pytest
        pytest.skip(f'{package} is not installed here: this test needs it')


def free_port(*, pair: bool = False) -> int:
    """Return a TCP port free on 127.0.0.1 (and the next one too, for BT.CPP's publisher)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            port = probe.getsockname()[1]
        if not pair:
            return port
        with socket.socket() as probe:
            try:
                probe.bind(('127.0.0.1', port + 1))
            except OSError:
                continue
        return port
    raise AssertionError('no free port pair found')


def listening_possible(port: int) -> bool:
    """Return True if nothing listens on the port (connections in TIME_WAIT may remain)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(('127.0.0.1', port))
            probe.listen()
        except OSError:
            return False
    return True


def open_descriptors() -> int:
    """Return how many file descriptors this process has open."""
    return len(os.listdir('/proc/self/fd'))


def recv_all(connection: socket.socket) -> bytes:
    """Read from ``connection`` until the peer closes it; return everything read."""
    chunks = []
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            return b''.join(chunks)
        chunks.append(chunk)


def collect_json(node: Any, topic: str, *, depth: int = 10) -> list[dict[str, Any]]:
    """Subscribe ``node`` to a latched std_msgs/String topic of JSON (e.g. ~/status).

    Args:
        node: A node whose executor spins (the messages arrive in its callbacks).
        topic: The topic.
        depth: History depth (reliable, transient local: late joiners get the history).

    Returns:
        The list the subscription appends each parsed message to.
    """
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    received: list[dict[str, Any]] = []
    latched = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(String, topic, lambda msg: received.append(json.loads(msg.data)),
                             latched)
    return received


def collect_states(node: Any, executive: str) -> list[dict[str, Any]]:
    """Subscribe ``node`` to an executive's ~/snapshot and ~/snapshot_delta, as viewers do.

    By default the executive publishes the full snapshot only now and then (a structure
    change, a keyframe) and every change as a delta: this rebuilds the state with a
    :class:`~bt_executive.observe.delta.SnapshotState`.

    Args:
        node: A node whose executor spins (the messages arrive in its callbacks).
        executive: The executive's fully qualified name (``/ns/bt_executive``).

    Returns:
        The list each rebuilt state is appended to (one per change, heartbeats included).
    """
    from bt_executive.observe.delta import SnapshotState
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    model = SnapshotState()
    states: list[dict[str, Any]] = []

    def take(message: Any) -> None:
        if model.feed_text(message.data) and model.snapshot is not None:
            states.append(model.snapshot)

    for topic, depth in (('snapshot', 1), ('snapshot_delta', 100)):
        qos = QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
        node.create_subscription(String, f'{executive}/{topic}', take, qos)
    return states


def set_tree_file(node: Any, namespace: str, tree_file: str,
                  wait: Callable[[Callable[[], Any], str], Any]) -> Any:
    """Swap the executive in ``namespace`` to ``tree_file`` through its parameter service.

    The same request as ``ros2 param set <namespace>/bt_executive tree_file <file>``.

    Args:
        node: A node whose executor spins (it answers the service future).
        namespace: The executive's namespace (``/name``).
        tree_file: The new tree file.
        wait: Bounded wait, called as ``wait(predicate, message)``: for the service and
            for its answer.

    Returns:
        The SetParametersResult (``successful``, ``reason``).
    """
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter

    client = node.create_client(SetParameters, f'{namespace}/bt_executive/set_parameters')
    wait(client.service_is_ready, 'the parameter service')
    request = SetParameters.Request(
        parameters=[Parameter('tree_file', value=tree_file).to_parameter_msg()])
    future = client.call_async(request)
    wait(future.done, 'the parameter change')
    return future.result().results[0]


class ExecutorThread:
    """Spin an rclpy executor on a thread until :meth:`stop`, which joins the thread.

    The teardown order that avoids rclpy's shutdown race: :meth:`stop` (the executor
    leaves its wait and the thread ends), then ``executor.shutdown()``, destroy the nodes,
    and only then shut the context down. Shutting the context down first, to wake the
    spin, races with the executor building its next wait set (``RCLError: failed to
    initialize wait set: the given context is not valid``).

    The thread spins with ``spin_until_future_complete`` on a private future: completing
    it wakes the executor at once (rclpy's own mechanism). An exception raised by a
    callback is kept in :attr:`errors` and the thread spins on; ``InvalidHandle`` (an
    entity destroyed by the test while the executor was about to wait on it) is not an
    error, nor is an ``ActionClient`` the test thread is still constructing (rclpy adds
    the client to its node, which wakes this executor, a few lines before it creates the
    client's ``_lock``: a wait set built in between raises ``AttributeError``; seen once in
    about 15 suite runs, test_harness.py).

    Args:
        executor: The executor, with its nodes added.
        name: The thread's name.
    """

    def __init__(self, executor: Any, name: str) -> None:
        from rclpy.task import Future

        self.executor = executor
        self.errors: list[BaseException] = []
        self._stop: Any = Future()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """Spin until stopped (or until the context is shut down under the executor)."""
        from rclpy.exceptions import InvalidHandle
        from rclpy.executors import ExternalShutdownException, ShutdownException

        context = self.executor.context
        while not self._stop.done() and context.ok():
            try:
                self.executor.spin_until_future_complete(self._stop)
            except (ExternalShutdownException, ShutdownException):
                return
            except InvalidHandle:
                continue
            except AttributeError as error:
                if not _half_built_action_client(error):
                    self.errors.append(error)
            except BaseException as error:  # noqa: B902 - reported by the owner's teardown
                self.errors.append(error)

    def stop(self, timeout: float = 10.0) -> bool:
        """Wake the executor out of its wait, end the spin and join the thread.

        Returns:
            True if the thread ended within ``timeout`` seconds (a callback may still
            be running otherwise: do not shut the context down under it).
        """
        if not self._stop.done():
            self._stop.set_result(None)
        self._thread.join(timeout)
        return not self._thread.is_alive()


def _half_built_action_client(error: AttributeError) -> bool:
    """Tell whether ``error`` came from an ``ActionClient`` whose ``__init__`` still runs."""
    return str(error) == "'ActionClient' object has no attribute '_lock'"


#: A Fast DDS profile whose participants are dropped 3 s after they die (20 s by default).
SHORT_LEASE = """<?xml version="1.0" encoding="UTF-8" ?>
<dds xmlns="http://www.eprosima.com">
  <profiles>
    <participant profile_name="short_lease" is_default_profile="true">
      <rtps><builtin><discovery_config>
        <leaseDuration><sec>3</sec></leaseDuration>
        <leaseAnnouncement><sec>1</sec></leaseAnnouncement>
      </discovery_config></builtin></rtps>
    </participant>
  </profiles>
</dds>
"""


def short_lease(directory: pathlib.Path) -> dict[str, str]:
    """Return the environment that gives a process to be killed the short lease.

    The lease is the dying participant's own setting: the others drop it from the graph
    3 s after a SIGKILL instead of 20 s, and their discovery stops waiting on it sooner.
    """
    path = directory / 'short_lease.xml'
    path.write_text(SHORT_LEASE)
    return {'FASTDDS_DEFAULT_PROFILES_FILE': str(path)}
