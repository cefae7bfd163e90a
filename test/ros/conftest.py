# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fixtures shared by the ROS tests: a private ROS environment, peer servers, executives.

Also the view server fed by a bare hub that the web viewer tests share (no ROS), and the
worker's headless Chromium with a window of it per browser test (test/ros/devtools.py).
"""

from collections.abc import Callable, Iterator
import pathlib
import threading
from typing import Any

from bt_executive.viewers.webview import SnapshotHub, ViewServer
from devtools import Browser, BROWSERS, find_browser, Window
from executive_host import Host
from helpers import PeerEvents, SpawnedProcess
import pytest
from tree_runner import DISCOVERY_TIMEOUT, RosEnv, StartPeer, unique_name

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'


@pytest.fixture
def env(request: pytest.FixtureRequest) -> Iterator[RosEnv]:
    """Yield a private ROS environment (context, node, executor) for the test."""
    with RosEnv(request.node.name) as environment:
        yield environment


def _peer(spawn: Callable[..., SpawnedProcess], node: Any, script: str,
          prefix: str) -> StartPeer:
    """Return a starter: run peers/<script>.py in a mode; give (name, its events)."""
    def start(mode: str, *options: str) -> tuple[str, PeerEvents]:
        name = unique_name(prefix)
        process = spawn(PEERS / f'{script}.py', name, mode, *options)
        process.wait_for_line('READY', timeout=DISCOVERY_TIMEOUT)
        return name, PeerEvents(node, f'{name}/events')

    return start


@pytest.fixture
def fibonacci(spawn: Callable[..., SpawnedProcess], env: RosEnv) -> StartPeer:
    """Start a Fibonacci server in the given mode; return (action name, its events)."""
    return _peer(spawn, env.node, 'fibonacci_server', 'fib')


@pytest.fixture
def trigger(spawn: Callable[..., SpawnedProcess], env: RosEnv) -> StartPeer:
    """Start a Trigger server in the given mode; return (service name, its events)."""
    return _peer(spawn, env.node, 'trigger_server', 'trigger')


@pytest.fixture(scope='session')
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Browser]]:
    """Give this worker's headless Chromium: started on first use, again if it has died."""
    started: list[Browser] = []

    def running() -> Browser:
        executable = find_browser()
        if executable is None:
            pytest.skip('needs Chromium for the headless browser test: none of '
                        f'{", ".join(BROWSERS)} is on PATH and BT_EXECUTIVE_CHROMIUM is '
                        'not set (Debian: apt-get install chromium; `make test` installs it '
                        'when run as root)')
        if started and not started[0].running():
            started.pop().close()
        if not started:
            started.append(Browser(executable, tmp_path_factory.mktemp('chromium')))
        return started[0]

    yield running
    for browser in started:
        browser.close()


@pytest.fixture
def browser_window(chromium: Callable[[], Browser]) -> Iterator[Callable[..., Window]]:
    """Give an opener of windows (browser contexts) of the worker's Chromium.

    ``browser_window(width=1280, height=900)``; teardown disposes each with its pages.
    """
    windows: list[Window] = []

    def open_window(width: int = 1280, height: int = 900) -> Window:
        windows.append(Window(chromium(), width=width, height=height))
        return windows[-1]

    yield open_window
    for window in windows:
        window.close()


@pytest.fixture
def browser(browser_window: Callable[..., Window]) -> Window:
    """Give a 1280 x 900 window of the worker's Chromium (a module may override the size)."""
    return browser_window()


@pytest.fixture
def view_server() -> Iterator[Callable[..., ViewServer]]:
    """Give a starter of view servers on free loopback ports, each fed by a bare hub.

    ``view_server(max_clients=8, poll_interval=0.1)``: the hub's stream client limit and
    the serve loop's poll interval. Teardown closes the hub, shuts the server down and
    asserts that no handler recorded an error.
    """
    started: list[tuple[ViewServer, threading.Thread]] = []

    def start(*, max_clients: int, poll_interval: float) -> ViewServer:
        hub = SnapshotHub(max_clients=max_clients)
        server = ViewServer(('127.0.0.1', 0), hub, topic='/t/bt_executive/snapshot',
                            events_topic='/t/bt_executive/events')
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': poll_interval}, daemon=True)
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.hub.close()
        server.shutdown()
        thread.join(5.0)
        server.server_close()
    for server, _ in started:
        assert not server.errors, server.errors


@pytest.fixture
def host() -> Iterator[Callable[..., Host]]:
    """Give a starter of in-process executives (tree file, then parameters by name)."""
    hosts: list[Host] = []

    def start(tree_file: str, **parameters: Any) -> Host:
        created = Host(tree_file, **parameters)
        hosts.append(created)
        return created

    yield start
    for created in hosts:
        created.close()
