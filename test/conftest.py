# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Test-session setup shared by every suite: ROS isolation, the ``ros`` marker, fixtures.

This module runs before any test module, hence before anything imports rclpy; it sets the
two environment variables every ROS process started by the tests must have:

* ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, always, overriding the caller: DDS discovery
  must stay on this machine, never multicast to the network.
* ``ROS_DOMAIN_ID``, unless the caller set one: each test run gets a domain of its own,
  derived from the pid (1..100), so that test runs going on at the same time on this
  machine (other checkouts, CI, benchmarks) never see each other's nodes, topics and
  actions: two runs each starting a ``fibonacci`` action server would otherwise answer
  each other's goals. Two runs whose pids collide modulo 100 would still share a domain;
  set ``ROS_DOMAIN_ID`` explicitly to rule that out. Under pytest-xdist (``make test``
  runs ``-n``) each worker ``gwN`` takes the run's domain plus N + 1 (wrapping within
  1..232), so the workers' tests do not see each other either; the run's own domain
  (the controller's) starts no ROS process.

It also sets ``OPENBLAS_NUM_THREADS=1`` unless the caller set it, as the programs do
for themselves (bt_executive/ros/blas.py): numpy's OpenBLAS threads, which every rclpy
process would otherwise start and spin, cost each test peer, viewer and executive started
as a script about 0.1 s of CPU (some 400 processes per ``make test``).

Spawned peer processes inherit all three through ``os.environ``. (The PyPI ROS wheels re-exec
the interpreter once at start-up to set ``LD_LIBRARY_PATH``; the pid stays the same and
the re-exec happens before this module is imported, so the variables set here are not
lost. Subprocesses inherit the marker variable and do not re-exec.)

Tests marked ``ros`` are skipped, with the reason, when rclpy cannot be imported, so the
core suite still runs without ROS.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
import fcntl
import json
import os
import pathlib
import re
import subprocess
import sys
import types
from typing import Any, Optional

import pytest

os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
if not os.environ.get('ROS_DOMAIN_ID'):
    os.environ['ROS_DOMAIN_ID'] = str(1 + os.getpid() % 100)
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
_WORKER = re.fullmatch(r'gw(\d+)', os.environ.get('PYTEST_XDIST_WORKER', ''))
if _WORKER:  # an xdist worker: the run's domain plus the worker's number, within 1..232
    os.environ['ROS_DOMAIN_ID'] = str(
        1 + (int(os.environ['ROS_DOMAIN_ID']) + int(_WORKER.group(1))) % 232)
    # A session of its own, as every process the tests start already has: where the kernel
    # schedules by session (autogroup, Linux's default), the CPU is shared equally among
    # sessions, and the six workers in one got together what one busy process elsewhere got
    # (three busy loops in one session beside one in another: 2.2 s of CPU each in 6 s;
    # each in a session of its own: 3.1 s). Ctrl-C still ends them: the controller
    # terminates its workers (they and what they started were gone within 10 s).
    try:
        os.setsid()
    except OSError:  # already a session or group leader: it has its own share already
        pass

# Make ``import helpers`` work from every test directory.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from helpers import ExecutorThread, SpawnedProcess  # noqa: E402, I100

_SPAWNED = pytest.StashKey[list]()
_rclpy_error: Optional[str] = None
_rclpy_checked = False


def _rclpy_import_error() -> Optional[str]:
    """Return why ``import rclpy`` fails (checked once per session), or None if it works."""
    global _rclpy_checked, _rclpy_error
    if not _rclpy_checked:
        _rclpy_checked = True
        try:
            import rclpy  # noqa: F401
            import rclpy.executors  # noqa: F401  (loads the C extension)
        except Exception as exc:  # ImportError, or OSError from the shared libraries
            _rclpy_error = f'{type(exc).__name__}: {exc}'
    return _rclpy_error


def pytest_report_header(config: pytest.Config) -> str:
    """Show the ROS isolation settings at the top of the run."""
    return (f"ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']} "
            f"ROS_AUTOMATIC_DISCOVERY_RANGE={os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']}")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Refuse a session whose collection left test/standins on ``sys.path``.

    The stand-ins (a ``nav2_msgs`` and a py_trees_ros interface package without type
    support) are for the tests that use them: anywhere else they make every later test
    believe those packages are installed.
    """
    standins = str(pathlib.Path(__file__).resolve().parent / 'standins')
    if any(str(pathlib.Path(entry).resolve()).startswith(standins) for entry in sys.path
           if entry):
        raise pytest.UsageError(f'a test module put {standins} on sys.path at import; '
                                'load stand-ins by file or inside the test instead')


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``ros`` when rclpy cannot be imported."""
    ros_items = [item for item in items if item.get_closest_marker('ros') is not None]
    if not ros_items:
        return
    error = _rclpy_import_error()
    if error is None:
        return
    skip = pytest.mark.skip(reason=f'needs rclpy, which cannot be imported ({error}); '
                                   'install the ROS 2 wheels (make env) or source ROS')
    for item in ros_items:
        item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Optional[pytest.Item]
                            ) -> Generator[None, Any, None]:
    """With ``BT_TEST_CPU=FOLDER``, note each test's CPU seconds (tools/test_cpu.py).

    One JSON line per test in ``FOLDER/<worker>.jsonl``: its wall time, the CPU time of
    the test process and of the child processes it waited for (set-up, call and
    tear-down together). Where the suite's CPU goes is what bounds ``make test``'s wall
    time on a small machine.
    """
    folder = os.environ.get('BT_TEST_CPU')
    if not folder:
        yield
        return
    import resource
    import time

    def cpu() -> tuple[float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime)

    start, wall = cpu(), time.monotonic()
    yield
    end = cpu()
    line = json.dumps({'test': item.nodeid, 'wall': round(time.monotonic() - wall, 3),
                       'cpu': round(end[0] - start[0], 3),
                       'children': round(end[1] - start[1], 3)})
    os.makedirs(folder, exist_ok=True)
    name = os.environ.get('PYTEST_XDIST_WORKER') or 'main'
    with open(os.path.join(folder, f'{name}.jsonl'), 'a', encoding='utf-8') as out:
        out.write(line + '\n')


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo) -> Generator[None, Any, None]:
    """Attach the output of the test's spawned processes to a failure report."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for process in item.stash.get(_SPAWNED, []):
            status = process.returncode
            state = 'running' if status is None else f'exit status {status}'
            title = f'{process.name} (pid {process.pid}, {state})'
            report.sections.append((f'Captured stdout of spawned {title}',
                                    process.stdout_text() or '(nothing)\n'))
            report.sections.append((f'Captured stderr of spawned {title}',
                                    process.stderr_text() or '(nothing)\n'))


@pytest.fixture
def spawn(request: pytest.FixtureRequest,
          tmp_path: pathlib.Path) -> Iterator[Callable[..., SpawnedProcess]]:
    """Start Python scripts as real subprocesses; stop them when the test ends.

    Usage: ``server = spawn(PEERS / 'fibonacci_server.py', 'fib', 'succeed')`` starts
    ``[sys.executable, path, *args]`` with the test environment (including the two ROS
    variables); stdout and stderr go to files under ``tmp_path``. Keyword options:
    ``grace`` (seconds between SIGINT and SIGKILL at teardown, default 5) and ``env``
    (extra variables). On teardown each process gets SIGINT, then SIGKILL after the
    grace period; if the test failed, the output is attached to the report.
    """
    processes: list[SpawnedProcess] = []
    request.node.stash[_SPAWNED] = processes

    def start(path: os.PathLike | str, *args: str, grace: float = 5.0,
              env: Optional[dict[str, str]] = None) -> SpawnedProcess:
        script = pathlib.Path(path)
        name = f'{script.stem}-{len(processes)}'
        environment = dict(os.environ)
        environment.update(env or {})
        process = SpawnedProcess([sys.executable, str(script), *map(str, args)],
                                 directory=tmp_path, name=name, grace=grace,
                                 env=environment)
        processes.append(process)
        return process

    yield start
    for process in reversed(processes):
        process.stop()


@pytest.fixture
def ros_context() -> Iterator[Any]:
    """Yield a fresh, initialised rclpy Context; shut it down after the test.

    No signal handlers are installed (it is not the default context), so Ctrl-C still
    reaches pytest.
    """
    import rclpy
    from rclpy.context import Context

    context = Context()
    rclpy.init(context=context)
    try:
        yield context
    finally:
        context.try_shutdown()


@pytest.fixture
def ros_node(request: pytest.FixtureRequest, ros_context: Any) -> Iterator[Any]:
    """Yield a node in ``ros_context`` spun by a SingleThreadedExecutor in a thread.

    Entities created on the node during the test are picked up by the executor (rclpy
    wakes it). The executor is ``node.executor``. Teardown stops the spin and joins the
    thread first, then shuts the executor down and destroys the node; ``ros_context``
    shuts the context down after that (its teardown runs after this one). Shutting the
    context down to end the spin, as this fixture once did, raced with the executor
    building its next wait set: ``RCLError: failed to initialize wait set: the given
    context is not valid`` from the executor thread.
    """
    import rclpy
    from rclpy.executors import SingleThreadedExecutor

    name = 'test_' + re.sub(r'\W', '_', request.node.name)[:50]
    node = rclpy.create_node(name, context=ros_context)
    executor = SingleThreadedExecutor(context=ros_context)
    executor.add_node(node)
    spinning = ExecutorThread(executor, f'{name}-executor')
    try:
        yield node
    finally:
        stopped = spinning.stop(10.0)
        if stopped:  # else a callback still runs: leave the entities to the context
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
        assert stopped, 'the executor thread did not stop within 10 s'
        assert not spinning.errors, f'the executor thread raised: {spinning.errors!r}'


@pytest.fixture(scope='session')
def typed_standin() -> Callable[[str], Any]:
    """Give a getter of STAND-IN packages with real type support, built once per machine.

    ``typed_standin(package)`` returns the built package.

    ``package`` is one of test/standins/definitions/ (``nav2_msgs``,
    ``py_trees_ros_interfaces``; test/standins/typed.py says what each holds). The first
    use on a machine builds it with the venv's rosidl generators and gcc into
    ``<venv>/standins-cache/<package>-<hash>`` (a minute or so; in a subprocess, so this
    process imports no generator); later uses and later runs reuse that build. The
    result has ``python`` (the ``PYTHONPATH`` entry), ``lib`` (the library directory) and
    ``environment()`` (both variables with the package first, for a subprocess's ``env``).
    Its libraries are tagged, and found through their RPATH, so a real package of the
    same name elsewhere on ``PYTHONPATH`` or ``LD_LIBRARY_PATH`` never mixes in. The
    test is skipped, with the reason, where it cannot be built (no gcc, headers,
    generators or dependency).
    """
    script = pathlib.Path(__file__).resolve().parent / 'standins' / 'typed.py'
    found: dict[str, Any] = {}

    def get(package: str) -> Any:
        if package not in found:
            # one build at a time on this machine: a parallel worker asking for the same
            # package waits for the first build and reuses it instead of building it too
            with open(pathlib.Path(sys.prefix) / 'standins-cache.lock', 'a') as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                done = subprocess.run([sys.executable, str(script), package],
                                      capture_output=True, text=True, timeout=900,
                                      check=False)
            lines = done.stdout.strip().splitlines()
            try:
                answer = json.loads(lines[-1]) if lines else {}
            except ValueError:
                answer = {}
            if done.returncode == 3 and 'unavailable' in answer:
                found[package] = f'cannot build the typed stand-in {package} here: ' \
                                 f"{answer['unavailable']}"
            elif done.returncode != 0 or 'python' not in answer:
                raise RuntimeError(f'building the typed stand-in {package} failed '
                                   f'(exit status {done.returncode}):\n{done.stderr[-4000:]}')
            else:
                found[package] = _Built(answer)
        if isinstance(found[package], str):
            pytest.skip(found[package])
        return found[package]

    return get


class _Built(types.SimpleNamespace):
    """A built typed stand-in: ``package``, ``prefix``, ``python``, ``lib`` (paths)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        super().__init__(package=answer['package'], prefix=pathlib.Path(answer['prefix']),
                         python=pathlib.Path(answer['python']),
                         lib=pathlib.Path(answer['lib']))

    def environment(self, base: Optional[dict[str, str]] = None) -> dict[str, str]:
        """Return ``PYTHONPATH`` and ``LD_LIBRARY_PATH`` with this package first."""
        base = dict(os.environ) if base is None else base
        return {name: os.pathsep.join([str(first), *filter(None, [base.get(name)])])
                for name, first in (('PYTHONPATH', self.python),
                                    ('LD_LIBRARY_PATH', self.lib))}
