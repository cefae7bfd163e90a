# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the benchmarks: generated trees, timing, processes and a bench node."""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Iterator, Optional, Sequence


def flat_tree_yaml(nodes: int) -> str:
    """Return a tree file with one Sequence over ``nodes - 1`` Success leaves."""
    lines = ['trees:', '  Main:', '    Sequence:']
    lines += ['      - Success' for _ in range(nodes - 1)]
    return '\n'.join(lines) + '\n'


def bushy_tree_yaml(nodes: int, fanout: int = 9) -> str:
    """Return a Selector of Sequences with about ``nodes`` nodes, all ticked every tick.

    Each sequence runs its Success leaves and fails on a last Condition, so the selector
    visits every sequence; the final sequence ends in a true condition.
    """
    groups = []
    count = 1
    while count < nodes:
        size = min(fanout, nodes - count - 1)
        groups.append(size)
        count += size + 1
    lines = ['blackboard: {x: 1}', 'trees:', '  Main:', '    Selector:']
    for index, size in enumerate(groups):
        lines.append('      - Sequence:')
        for _ in range(max(size - 1, 0)):
            lines.append('          - Success')
        last = 'x > 0' if index == len(groups) - 1 else 'x < 0'
        lines.append(f'          - Condition: {last}')
    return '\n'.join(lines) + '\n'


@contextlib.contextmanager
def tree_files(nodes: int) -> Iterator[list[tuple[str, str, str]]]:
    """Write the flat and the bushy tree of ``nodes`` nodes to files; remove them at the end.

    Yields:
        (label, YAML text, file path) of each tree: ``flat``, then ``bushy``.
    """
    with tempfile.TemporaryDirectory(prefix='bt_bench_trees_') as directory:
        trees = []
        for label, text in (('flat', flat_tree_yaml(nodes)), ('bushy', bushy_tree_yaml(nodes))):
            path = os.path.join(directory, f'{label}.yaml')
            with open(path, 'w') as stream:
                stream.write(text)
            trees.append((label, text, path))
        yield trees


@contextlib.contextmanager
def ros_context() -> Iterator[Any]:
    """Yield an initialised rclpy Context of its own; shut it down on the way out."""
    import rclpy
    from rclpy.context import Context

    context = Context()
    rclpy.init(context=context)
    try:
        yield context
    finally:
        context.try_shutdown()


@contextlib.contextmanager
def floor_node(name: str) -> Iterator[tuple[Any, Any, list[int]]]:
    """Run a floor process's node (latency_floor.py, idle_floor.py); clean up on the way out.

    Yields:
        (node, executor, signals received): SIGINT and SIGTERM are noted in the list (the
        caller's loop ends when it is not empty); the executor is rclpy's EventsExecutor,
        the executive's own, with the node added.
    """
    import rclpy
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    received: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: received.append(number))
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node(name)
    try:  # as bt_executive.ros.executive.make_executor
        from rclpy.experimental import EventsExecutor
        executor = EventsExecutor()
    except ImportError:
        executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        yield node, executor, received
    except ExternalShutdownException:
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


def best_of(function: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Return the median seconds of ``number`` calls, over ``repeat`` rounds."""
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        rounds.append((time.perf_counter() - start) / number)
    return statistics.median(rounds)


# ---- multi-process benchmarks: processes, a bench node, /proc readings ----------------

#: ROS_DOMAIN_ID used when the caller set none (bench/run.py and every module).
DEFAULT_DOMAIN_ID = '73'
#: Seconds after which BenchNode.set_parameters sends its request again.
RESEND_PERIOD = 2.0

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(REPO, 'config')


def ros_environment() -> None:
    """Keep DDS on loopback and give the bench its domain (a caller-set one is kept)."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    if not os.environ.get('ROS_DOMAIN_ID'):
        os.environ['ROS_DOMAIN_ID'] = DEFAULT_DOMAIN_ID


def progress(message: str) -> None:
    """Report progress of a slow benchmark on stderr."""
    print(f'  .. {message}', file=sys.stderr, flush=True)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Return the nearest-rank value at ``fraction`` (0..1) of the sorted ``values``."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def ratio(ours: float, reference: float) -> str:
    """Format ours / reference as a ratio cell."""
    if not reference or math.isnan(ours) or math.isnan(reference):
        return '-'
    return f'{ours / reference:.2f}x'


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system, every thread) used so far by process ``pid``.

    Sums the nanosecond run times in ``/proc/<pid>/task/*/schedstat``; falls back to the
    clock-tick resolution of ``/proc/<pid>/stat`` where schedstat is missing.
    """
    total = 0
    try:
        for task in os.listdir(f'/proc/{pid}/task'):
            try:
                with open(f'/proc/{pid}/task/{task}/schedstat') as stream:
                    total += int(stream.read().split()[0])
            except (OSError, ValueError, IndexError):  # the thread ended meanwhile
                pass
        if total:
            return total / 1e9
    except OSError:
        pass
    with open(f'/proc/{pid}/stat', 'rb') as stream:
        fields = stream.read().rsplit(b')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def rss_mb(pid: int) -> float:
    """Return the resident set size of process ``pid`` in MiB (``VmRSS``)."""
    with open(f'/proc/{pid}/status') as stream:
        for line in stream:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    return math.nan


def private_memory_mb(pid: int) -> tuple[float, float]:
    """Return (USS, PSS) of process ``pid`` in MiB, from ``/proc/<pid>/smaps_rollup``.

    USS: the pages only this process maps (``Private_Clean`` + ``Private_Dirty``), what
    ending it would free. PSS: each page divided by the number of processes mapping it,
    so shared libraries count in part; it moves with what else runs on the machine.
    """
    fields = {}
    with open(f'/proc/{pid}/smaps_rollup') as stream:
        for line in stream:
            parts = line.split()
            if len(parts) == 3 and parts[2] == 'kB':
                fields[parts[0].rstrip(':')] = int(parts[1]) / 1024.0
    return fields['Private_Clean'] + fields['Private_Dirty'], fields['Pss']


def patrol_commands(namespace: str, *, tick_mode: str = 'periodic', tick_rate: float = 10.0,
                    sim: bool = True, sim_time: bool = False,
                    executive_params: Optional[dict[str, Any]] = None,
                    sim_params: Optional[dict[str, Any]] = None,
                    tree: Optional[str] = None,
                    ros_args: Sequence[str] = ()) -> list[tuple[str, list[str]]]:
    """Return (name, argv) of the patrol bringup in ``namespace`` (bt_executive/app/bringup.py).

    The same command lines ``bt-executive demo`` runs, with the parameter files of
    config/. ``sim_time`` False runs everything on wall-clock time: the sim steps in real
    time without publishing /clock (so several sims can share the machine) and
    ``tick_rate`` means ticks per wall-clock second. Extra parameters go last (``-p``
    wins over the parameter files), then ``ros_args`` (e.g. remappings) for both nodes.
    """
    from bt_executive.app import bringup

    values = {'namespace': namespace, 'tick_mode': tick_mode, 'tick_rate': str(tick_rate),
              'use_sim': str(sim).lower(), 'use_sim_time': str(sim_time).lower(),
              'publish_clock': str(sim_time).lower()}
    if tree:
        values['tree'] = tree
    extra = {'executive': dict(executive_params or {}),
             'sim_robot': dict(sim_params or {})}
    commands = []
    for launch, argv in bringup.command_lines(values, sys.executable, REPO):
        for key, value in extra[launch.executable].items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            argv += ['-p', f'{key}:={text}']
        commands.append((launch.name, argv + list(ros_args)))
    return commands


def executive_command(namespace: str, tree_file: str, **params: Any) -> list[str]:
    """Return the argv of an executive on ``tree_file`` in ``namespace`` (no parameters file)."""
    argv = [sys.executable, '-m', 'bt_executive.app.programs', 'executive', '--ros-args',
            '-r', f"__ns:=/{namespace.strip('/')}", '-p', f'tree_file:={tree_file}']
    for key, value in params.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        argv += ['-p', f'{key}:={text}']
    return argv


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f'signal {signum}')


class Processes:
    """Subprocesses of one benchmark: started in their own process groups, always stopped.

    Use as a context manager: leaving it (normally or by an exception) sends SIGINT to
    every process still running, waits (bounded), then kills what is left, group and all.
    Output goes to one log file per process under a temporary directory.
    """

    def __init__(self, label: str) -> None:
        self.logs = tempfile.mkdtemp(prefix=f'bt_bench_{label}_')
        self.started: list[tuple[str, subprocess.Popen]] = []
        self.early: set[int] = set()
        self.hung: list[str] = []

    def __enter__(self) -> 'Processes':
        # SIGTERM (``timeout``, a CI job cancelled) unwinds like Ctrl-C, so the processes
        # started here, each in a session of its own, are stopped and not left running
        self._sigterm = None
        if threading.current_thread() is threading.main_thread():
            self._sigterm = signal.signal(signal.SIGTERM, _interrupt)
        return self

    def __exit__(self, exc_type: Any, *exc_info: Any) -> None:
        try:
            self.stop()
        finally:
            if self._sigterm is not None:
                signal.signal(signal.SIGTERM, self._sigterm)
        if exc_type is None and not self.hung:  # keep the logs when something went wrong
            shutil.rmtree(self.logs, ignore_errors=True)
        else:
            progress(f'the logs of the processes are in {self.logs}')

    def spawn(self, name: str, argv: list[str], *, early: bool = False,
              env: Optional[dict[str, Optional[str]]] = None) -> subprocess.Popen:
        """Start ``argv`` with its output in ``<logs>/<name>.log``.

        ``early`` processes are stopped before the others (an executive before its sim,
        so that it can still cancel its goals). ``env`` changes the environment: a name
        mapped to None is removed.
        """
        environment = {**os.environ, 'PYTHONUNBUFFERED': '1', 'PYTHONFAULTHANDLER': '1'}
        for variable, value in (env or {}).items():
            if value is None:
                environment.pop(variable, None)
            else:
                environment[variable] = value
        with open(os.path.join(self.logs, f'{name}.log'), 'wb') as log:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True,
                                       env=environment)
        self.started.append((name, process))
        if early:
            self.early.add(process.pid)
        return process

    def tail(self, name: str, lines: int = 15) -> str:
        """Return the end of a process's log."""
        try:
            with open(os.path.join(self.logs, f'{name}.log'), 'rb') as stream:
                return b''.join(stream.readlines()[-lines:]).decode('utf-8', 'replace')
        except OSError:
            return '(no log)'

    def check(self) -> None:
        """Raise if a process has exited, with the end of its log."""
        for name, process in self.started:
            if process.poll() is not None:
                raise RuntimeError(f'{name} exited with status {process.returncode}; the end '
                                   f'of {self.logs}/{name}.log:\n{self.tail(name)}')

    def stop(self, processes: Optional[list[subprocess.Popen]] = None,
             timeout: float = 30.0) -> None:
        """SIGINT the given (default: all) processes, wait up to ``timeout``, then kill.

        The ``early`` ones go first, each group with its own ``timeout``.
        """
        chosen = [(n, p) for n, p in self.started if processes is None or p in processes]
        first = [(n, p) for n, p in chosen if p.pid in self.early]
        for group in (first, [item for item in chosen if item not in first]):
            self.hung += self._stop_group(group, timeout)
        self.started = [(n, p) for n, p in self.started if p.poll() is None]

    @staticmethod
    def _stop_group(group: list[tuple[str, subprocess.Popen]], timeout: float) -> list[str]:
        """Stop ``group``; return the names of the processes that ignored SIGINT."""
        hung = []
        for _, process in group:
            if process.poll() is None:
                try:
                    process.send_signal(signal.SIGINT)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + timeout
        for name, process in group:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                # SIGABRT first: PYTHONFAULTHANDLER makes it print every thread's stack
                progress(f'{name} did not stop within {timeout:.0f} s of SIGINT; its stacks '
                         'go to its log (SIGABRT), then it is killed')
                hung.append(name)
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGABRT)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(3.0)
            try:  # the whole group: nothing the process started survives it
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(5.0)
            except subprocess.TimeoutExpired:
                progress(f'{name} (pid {process.pid}) could not be killed')
        return hung


class StatusWatch:
    """The latest ~/status JSON of one executive, with a way to wait for a condition."""

    def __init__(self, condition: threading.Condition) -> None:
        self.latest: dict[str, Any] = {}
        self.received_at: Optional[float] = None
        self.first_at: Optional[float] = None
        self._condition = condition

    def on_message(self, text: str) -> None:
        """Store one status message (called from the executor thread)."""
        import json
        with self._condition:
            self.latest = json.loads(text)
            self.received_at = time.monotonic()
            if self.first_at is None:
                self.first_at = self.received_at
            self._condition.notify_all()


class BenchNode:
    """A ROS node of the benchmark, spun by a background thread on its own context.

    Args:
        name: node name
        threads: executor threads (more than one for blocking callbacks, e.g. an action
            server's execute callbacks)
        events: spin rclpy's EventsExecutor (single-threaded, the executive's own); it
            deadlocks when entities are created while it spins in another thread, so
            create them all first and then call :meth:`start`
    """

    def __init__(self, name: str, threads: int = 1, *, events: bool = False) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor
        from rclpy.signals import SignalHandlerOptions

        ros_environment()
        self.condition = threading.Condition()
        self.context = Context()
        # no rclpy signal handlers: Ctrl-C must raise KeyboardInterrupt, so that the
        # benchmark's ``with Processes`` blocks stop what they started
        rclpy.init(context=self.context, signal_handler_options=SignalHandlerOptions.NO)
        self.node = rclpy.create_node(name, context=self.context)
        if events:
            from rclpy.experimental import EventsExecutor
            self.executor = EventsExecutor(context=self.context)
        elif threads > 1:
            self.executor = MultiThreadedExecutor(num_threads=threads, context=self.context)
        else:
            self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._spin, name=f'{name}-spin', daemon=True)
        if not events:
            self._thread.start()

    def start(self) -> None:
        """Start spinning an EventsExecutor node (the others spin from the start)."""
        if not self._thread.is_alive():
            self._thread.start()

    def _spin(self) -> None:
        from rclpy.executors import Executor, ExternalShutdownException
        try:
            if isinstance(self.executor, Executor):
                self.executor.spin()
                return
            while not self._stopping.is_set():  # an EventsExecutor: see close()
                self.executor.spin_once(timeout_sec=0.05)
        except (ExternalShutdownException, RuntimeError):
            pass

    def watch_status(self, namespace: str, node_name: str = 'bt_executive') -> StatusWatch:
        """Subscribe to ``/<namespace>/<node_name>/status`` (latched)."""
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String

        watch = StatusWatch(self.condition)
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        prefix = f"/{namespace.strip('/')}" if namespace.strip('/') else ''
        self.node.create_subscription(String, f'{prefix}/{node_name}/status',
                                      lambda message: watch.on_message(message.data), latched)
        return watch

    def wait_for(self, predicate: Callable[[], Any], timeout: float, what: str,
                 processes: Optional[Processes] = None) -> Any:
        """Wait until ``predicate()`` is true (re-checked on every status and each 0.5 s).

        Raises:
            TimeoutError: naming ``what`` when it does not happen within ``timeout``.
            RuntimeError: when one of ``processes`` exited meanwhile.
        """
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                value = predicate()
                if value:
                    return value
                if processes is not None:
                    processes.check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f'timed out after {timeout:.0f} s waiting for {what}')
                self.condition.wait(min(left, 0.5))

    def set_parameters(self, node: str, values: dict[str, Any], timeout: float = 10.0) -> None:
        """Set parameters of another node through its ~/set_parameters service."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter

        client = self.node.create_client(SetParameters, f'{node}/set_parameters')
        try:
            if not client.wait_for_service(timeout_sec=timeout):
                raise TimeoutError(f'{node}/set_parameters did not appear in {timeout} s')
            request = SetParameters.Request(parameters=[
                Parameter(name, value=value).to_parameter_msg()
                for name, value in values.items()])
            # wait_for_service sees the request side only: with dozens of processes the
            # server may not yet know this new client's response reader, and rmw_fastrtps
            # then drops the response ('failed to send response (timeout)'); the request
            # is sent again (setting the same values twice is harmless)
            futures = [client.call_async(request)]
            deadline = time.monotonic() + timeout
            resend = time.monotonic() + RESEND_PERIOD
            while not any(future.done() for future in futures):
                if time.monotonic() > deadline:
                    raise TimeoutError(f'{node}/set_parameters did not answer in {timeout} s '
                                       f'({len(futures)} requests sent)')
                if time.monotonic() > resend:
                    futures.append(client.call_async(request))
                    resend = time.monotonic() + RESEND_PERIOD
                time.sleep(0.01)
            answer = next(future for future in futures if future.done())
            failed = [r.reason for r in answer.result().results if not r.successful]
            if failed:
                raise RuntimeError(f'{node} rejected {values}: {failed}')
        finally:
            self.node.destroy_client(client)

    def close(self) -> None:
        """Stop spinning and release the node and the context."""
        from rclpy.executors import Executor

        if isinstance(self.executor, Executor):
            self.executor.shutdown(timeout_sec=2.0)
            self.node.destroy_node()
            self.context.try_shutdown()
            if self._thread.is_alive():
                self._thread.join(2.0)
            return
        # the EventsExecutor is not thread-safe: end its spin loop before anything else
        # touches it, the node or the context
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(5.0)
        self.executor.shutdown(timeout_sec=2.0)
        self.node.destroy_node()
        self.context.try_shutdown()
