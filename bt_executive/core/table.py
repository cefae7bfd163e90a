# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What the builder knows about each behaviour, kept beside the tree instead of on it.

py_trees behaviours know only themselves. Everything bt_executive needs to say about a
built node -- its stable path, its node type, where it was written, which blackboard keys
it reads, how to predict its outcome, its fault guard -- lives in a :class:`NodeTable`
keyed by the behaviour's ``id`` (a py_trees UUID, unique per behaviour). The builder
returns a :class:`BuiltTree`: the root plus that table. Every reader (snapshots, the
Groot2 server, the BT.CPP uid map, event ticking, the fault guard) asks the table.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any, Callable, Iterator, Optional
import uuid

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
import py_trees

#: ``lookup -> outcome``: computes a pure reader's result from a blackboard lookup.
Probe = Callable[[Callable[[str], Any]], Any]


def log_to_stderr(text: str) -> None:
    """Log an error through the ``bt_executive`` logger (stderr unless configured)."""
    logging.getLogger('bt_executive').error(text)


@dataclasses.dataclass
class NodeInfo:
    """What the builder recorded about one behaviour.

    Attributes:
        path: the stable node id (``Tree/Parent/Name``; subtree nodes under the call)
        type: the node type name as written in the tree file
        loc: where the node was written
        reads: every root blackboard key the node's parameters read
        probe: computes the node's outcome from a lookup, for a pure reader (Condition,
            WaitUntil): event ticking wakes the tree only when that outcome changes
        guard: the fault guard containing the node's exceptions, once it has one
        log_error: where the node's fault reports go
    """

    path: str
    type: str  # noqa: A003 - the node type, as written in the tree file
    loc: Optional[SourceLocation] = None
    reads: frozenset[str] = frozenset()
    probe: Optional[Probe] = None
    guard: Any = None
    log_error: Callable[[str], None] = log_to_stderr


class NodeTable(dict[uuid.UUID, NodeInfo]):
    """``behaviour.id -> NodeInfo`` for every behaviour the builder made."""

    def info(self, behaviour: py_trees.behaviour.Behaviour) -> Optional[NodeInfo]:
        """Return what is known of ``behaviour``, or None (not built by the builder)."""
        return self.get(behaviour.id)

    def path(self, behaviour: py_trees.behaviour.Behaviour) -> str:
        """Return the node path of ``behaviour`` (its name if the builder did not make it)."""
        info = self.get(behaviour.id)
        return behaviour.name if info is None else info.path

    def type_name(self, behaviour: py_trees.behaviour.Behaviour) -> str:
        """Return the node type of ``behaviour`` (its class name if not built here)."""
        info = self.get(behaviour.id)
        return type(behaviour).__name__ if info is None else info.type

    def loc(self, behaviour: py_trees.behaviour.Behaviour) -> Optional[SourceLocation]:
        """Return where ``behaviour`` was written, or None."""
        info = self.get(behaviour.id)
        return None if info is None else info.loc

    def reads(self, behaviour: py_trees.behaviour.Behaviour) -> frozenset[str]:
        """Return the root blackboard keys ``behaviour``'s parameters read."""
        info = self.get(behaviour.id)
        return frozenset() if info is None else info.reads

    def probe(self, behaviour: py_trees.behaviour.Behaviour) -> Optional[Probe]:
        """Return the outcome probe of a pure reader, else None."""
        info = self.get(behaviour.id)
        return None if info is None else info.probe

    def guard(self, behaviour: py_trees.behaviour.Behaviour) -> Any:
        """Return the fault guard of ``behaviour``, or None."""
        info = self.get(behaviour.id)
        return None if info is None else info.guard


@dataclasses.dataclass
class BuiltTree:
    """A built tree: the py_trees root and what the builder knows about each node.

    Attributes:
        root: the root behaviour
        nodes: the node table
        name: the name of the tree that was built
    """

    root: py_trees.behaviour.Behaviour
    nodes: NodeTable = dataclasses.field(default_factory=NodeTable)
    name: str = ''

    def iterate(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """Yield every behaviour of the tree, root first."""
        return self.root.iterate()

    def setup(self, file: str, *, timeout: Optional[float] = None, **kwargs: Any) -> None:
        """Set up every behaviour of the tree, root first (py_trees' setup protocol).

        Args:
            file: the tree file, for errors of behaviours the builder did not make
            timeout: seconds allowed for all of them; each gets what is left of it as
                its ``timeout`` argument (None: no limit, no ``timeout`` argument)
            kwargs: passed to every ``setup()`` (the ROS layer passes ``node``)

        Raises:
            TreeError: at the node whose setup raised, or ended past the deadline.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        for behaviour in self.root.iterate():
            if deadline is not None:
                kwargs['timeout'] = max(0.0, deadline - time.monotonic())
            try:
                behaviour.setup(**kwargs)
            except Exception as error:  # noqa: B902 - any failure is the node's problem
                raise self._located(behaviour, file, f'cannot set up '
                                    f'{self.nodes.type_name(behaviour)}: '
                                    f'{_describe(error)}') from error
            if deadline is not None and time.monotonic() > deadline:
                raise self._located(behaviour, file, 'setting up the leaves took longer '
                                    f'than setup_timeout {timeout} s (this node was still '
                                    'setting up)')

    def _located(self, behaviour: py_trees.behaviour.Behaviour, file: str,
                 message: str) -> TreeError:
        """Return an error at ``behaviour``, or at its nearest ancestor the table knows."""
        node: Optional[py_trees.behaviour.Behaviour] = behaviour
        while node is not None and node.id not in self.nodes:
            node = node.parent
        if node is None:
            return TreeError.single(SourceLocation(file), message, behaviour.name)
        info = self.nodes[node.id]
        return TreeError([Diagnostic(info.loc or SourceLocation(file), message, info.path)])

    def by_path(self, path: str) -> py_trees.behaviour.Behaviour:
        """Return the behaviour whose node path is ``path`` (KeyError if none)."""
        for behaviour in self.root.iterate():
            if self.nodes.path(behaviour) == path:
                return behaviour
        raise KeyError(path)


def _describe(error: Exception) -> str:
    """Return an exception as a one-line message: its text, or its type when it has none.

    A text of several lines (rclpy's name errors draw the name with a caret under it)
    becomes one: its lines joined, a line holding only the caret left out.
    """
    try:
        text = str(error)
    except Exception:  # noqa: B902 - a broken __str__ must not hide the error
        text = ''
    lines = [line.strip() for line in text.splitlines()]
    return ' '.join(line for line in lines if line.strip('^~ ')) or type(error).__name__


def table_for(root: py_trees.behaviour.Behaviour) -> NodeTable:
    """Return a table for a tree not made by the builder: paths from the names."""
    table = NodeTable()

    def visit(node: py_trees.behaviour.Behaviour, parent: Optional[str]) -> None:
        path = f'{parent}/{node.name}' if parent else node.name
        table[node.id] = NodeInfo(path=path, type=type(node).__name__)
        for child in node.children:
            visit(child, path)

    visit(root, None)
    return table


__all__ = ['BuiltTree', 'NodeInfo', 'NodeTable', 'Probe', 'log_to_stderr', 'table_for']
