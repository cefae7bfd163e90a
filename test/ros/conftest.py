"""Fixtures shared by the ROS leaf tests: a private ROS environment and peer servers."""

from collections.abc import Callable, Iterator
import pathlib
from typing import Any

from executive_host import Host
from helpers import PeerEvents, SpawnedProcess
import pytest
from tree_runner import RosEnv, unique_name

PEERS = pathlib.Path(__file__).resolve().parent / 'peers'
DISCOVERY_TIMEOUT = 15.0

StartPeer = Callable[..., tuple[str, PeerEvents]]


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
