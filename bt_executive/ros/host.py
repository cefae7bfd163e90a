# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The tree host: load, validate, swap, tick and halt the executive's tree on a ROS node.

The host owns the running :class:`LoadedTree` (the built tree, its blackboard feed and
its :class:`~bt_executive.observe.runner.TreeRunner`) and the trees retired by a swap
until their goal cancels are acknowledged. It knows nothing of ROS parameters, services
or publishers: the node shell (:mod:`bt_executive.ros.executive`) owns it, passes it
its settings and registers the observers of each new tree (``on_install``).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
from typing import Any, Callable, Mapping, Optional

from bt_executive.core.builder import apply_blackboard_defaults, BuildContext, Builder
from bt_executive.core.errors import SourceLocation, TreeError
from bt_executive.core.registry import Registry
from bt_executive.core.spec import Document, Value
from bt_executive.core.table import BuiltTree
from bt_executive.nodes.decorators import reset_limits
from bt_executive.observe.record import TickRecord
from bt_executive.observe.runner import TreeRunner
from bt_executive.observe.snapshot import active_path, failure_reason
from bt_executive.ros import checks, entities
from bt_executive.ros.debuglog import DebugLog
from bt_executive.ros.leaves import backoff
from bt_executive.ros.leaves.common import LeafHost
from bt_executive.ros.subscriptions import BlackboardFeed
import py_trees
from py_trees.common import Status


#: How the executive chooses a tree, for the message when a file has several and no main.
CHOOSE_TREE = "set the executive's 'tree_name' parameter"


@dataclasses.dataclass
class LoadedTree:
    """A built tree with everything it owns on the node."""

    document: Document
    name: str
    built: BuiltTree
    feed: BlackboardFeed
    file: str
    runner: TreeRunner
    retired_at: float = 0.0  # when a swap stopped it (monotonic seconds)

    @property
    def root(self) -> py_trees.behaviour.Behaviour:
        """Return the root behaviour."""
        return self.built.root

    def behaviours(self) -> list[py_trees.behaviour.Behaviour]:
        """Return every behaviour of the tree."""
        return list(self.root.iterate())

    @functools.cached_property
    def backoffs(self) -> list[backoff.Backoff]:
        """Return the back-offs of the tree's leaves (found once: a built tree keeps its shape)."""
        return backoff.backoffs(self.root)

    def timed(self) -> list[Callable[[], Optional[float]]]:
        """Return the ``wake_at`` methods of the time-based behaviours (and the feed)."""
        methods = [behaviour.wake_at for behaviour in self.root.iterate()
                   if callable(getattr(behaviour, 'wake_at', None))]
        methods += [waiting.wake_at for waiting in self.backoffs]
        return methods + [self.feed.wake_at]

    def readers(self) -> dict[str, list[Optional[Callable[[Any], Any]]]]:
        """Return, per root blackboard key, the probes of the behaviours reading it.

        A probe (the node table's ``probe``) computes a pure reader's outcome from a
        lookup; None stands for a reader without one (any new value may matter to it).
        """
        readers: dict[str, list[Optional[Callable[[Any], Any]]]] = {}
        table = self.built.nodes
        for behaviour in self.root.iterate():
            keys = set(table.reads(behaviour))
            for client in behaviour.blackboards:
                keys |= {key.lstrip('/').split('/')[0] for key in client.read}
            probe = table.probe(behaviour)
            for key in keys:
                readers.setdefault(key, []).append(probe)
        return readers

    def outstanding(self) -> list[Any]:
        """Return the futures still in flight (cancels the robot must acknowledge)."""
        futures = []
        for behaviour in self.root.iterate():
            method = getattr(behaviour, 'outstanding', None)
            if method is not None:
                futures.extend(f for f in method() if not f.done())
        return futures

    def stop(self) -> TickRecord:
        """Halt the tree: running leaves are terminated with INVALID (goals cancelled)."""
        return self.runner.stop(Status.INVALID)

    def destroy(self) -> None:
        """Release every subscription, client and publisher the tree created."""
        release(self.root.iterate(), self.feed)


def ros_log_sink(logger: Any) -> Callable[[str, str], None]:
    """Return where ``Log`` nodes write in the executive: ``logger`` (the node's) at their level.

    So their lines reach the console (``ros2 launch`` output), /rosout and rqt_console.
    (rclpy refuses one call site logging at two severities: one call per level.)
    """
    def sink(level: str, text: str) -> None:
        if level == 'info':
            logger.info(text)
        elif level == 'warning':
            logger.warning(text)
        elif level == 'error':
            logger.error(text)
        elif level == 'debug':
            logger.debug(text)
        else:
            logger.fatal(text)
    return sink


def release(behaviours: Any, feed: BlackboardFeed) -> None:
    """Shut ``behaviours`` down, drop their blackboard clients and destroy ``feed``."""
    for behaviour in behaviours:
        try:
            behaviour.shutdown()
        except Exception as error:  # noqa: B902 - keep releasing the others
            print(f'bt_executive: shutting down {behaviour.name} failed: {error}',
                  file=sys.stderr)
        for client in behaviour.blackboards:
            try:
                client.unregister(clear=False)
            except KeyError:  # the blackboard was cleared under us (e.g. by a reset)
                pass
        behaviour.blackboards = []
    feed.destroy()


class TreeHost:
    """Host the executive's tree: load, validate, swap, tick, halt.

    Args:
        node: the ROS node the leaves and the blackboard feed use
        registry: the node catalogue with the real ROS leaves
        clock: the node clock in seconds (ROS time under ``use_sim_time``)
        logger: the node's logger
        on_install: called with each new tree before its first tick (observers attach)
        leaf_host: what the ROS leaves get as ``setup(host=...)`` (the executive core;
            None: the leaves use the node alone)
        own: makes a callback the executive's (``LeafHost.own``; the blackboard feed's
            subscriptions use it)
    """

    def __init__(self, node: Any, registry: Registry, *, clock: Callable[[], float],
                 logger: Any, on_install: Callable[[LoadedTree], None],
                 leaf_host: Optional[LeafHost] = None,
                 own: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda f: f
                 ) -> None:
        self.node = node
        self.leaf_host = leaf_host
        self.own = own
        self.registry = registry
        self.clock = clock
        self.logger = logger
        self.debug = DebugLog(logger)  # rate-limited 'tree' lines: loads, swaps, releases
        self.on_install = on_install
        self.tree: Optional[LoadedTree] = None
        self.retiring: list[LoadedTree] = []
        self.running = True
        self.paused = False
        self.held = False  # a managed node outside its active state: no tree ticks
        self.terminated: Optional[str] = None
        self.last_failure = ''
        self.last_status = Status.INVALID
        self._stopped_ticks = 0  # the count of the tree stop_all() released

    @property
    def tick_count(self) -> int:
        """Return the ticks of the current tree since it was installed or reset."""
        return self.tree.runner.tick_count if self.tree is not None else self._stopped_ticks

    # ---- loading and swapping --------------------------------------------------------

    def load(self, tree_file: str, tree_name: str = '', *,
             setup_timeout: float = 5.0,
             arguments: Optional[Mapping[str, Value]] = None) -> LoadedTree:
        """Load, validate, build and set up a tree without touching the running one.

        ``arguments`` replace the defaults of the tree's ``params`` (an ExecuteTree goal's
        parameters); a name the tree does not declare is an error.

        Raises:
            TreeError: with every problem found; nothing is left behind on the node.
        """
        # the loader's and the ROS checks' problems, all in one TreeError (file order)
        document, specs = checks.load(tree_file, self.registry)
        tree = document.tree(tree_name or None, choose=CHOOSE_TREE)
        if arguments:
            unknown = sorted(set(arguments) - set(tree.params))
            if unknown:
                declared = ', '.join(tree.params) or 'none'
                raise TreeError.single(arguments[unknown[0]].loc, f"tree '{tree.name}' has no "
                                       f"parameter {', '.join(map(repr, unknown))} (it has: "
                                       f'{declared})')
            tree.params = {**tree.params, **arguments}  # this load's own document
        for warning in document.warnings:
            self.logger.warning(str(warning))
        waitables = entities.waitables(self.node)
        feed = BlackboardFeed(self.node, specs, self.clock, own=self.own)
        context = BuildContext(registry=self.registry, document=document,
                               lookup=feed.lookup, clock=self.clock,
                               extras={'node': self.node}, log_error=self.logger.error,
                               log=ros_log_sink(self.logger))
        try:
            built = Builder(context).build(tree.name)
            extras = {} if self.leaf_host is None else {'host': self.leaf_host}
            built.setup(tree_file, timeout=setup_timeout, node=self.node, **extras)
        except Exception as error:  # noqa: B902 - rejected: release what was made so far
            release(context.nodes.values(), feed)
            if isinstance(error, TreeError):
                raise
            raise TreeError.single(SourceLocation(tree_file), f'cannot build the tree: '
                                   f'{type(error).__name__}: {error}') from error
        added = entities.waitables(self.node) - waitables
        if added and entities.waitables_unsafe():
            self.logger.warning(entities.waitables_warning(tree_file, added))
        runner = TreeRunner(built, clock=self.clock, track_writes=True,
                            log_error=self.logger.error)
        return LoadedTree(document=document, name=built.name, built=built, feed=feed,
                          file=tree_file, runner=runner)

    def install(self, new: LoadedTree, *, shutdown_timeout: float) -> None:
        """Stop the running tree (cancelling its goals) and start ``new``."""
        old = self.tree
        if old is not None:
            old.stop()
            self.retiring.append(old)
            self.debug('tree', lambda: f"swap: tree '{old.name}' halted with "
                       f'{len(old.outstanding())} goal cancels in flight; '
                       f"installing '{new.name}' from {new.file}")
            self.retire(shutdown_timeout)
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(new.document)
        self.tree = new
        self.terminated = None
        # a tree swapped in while paused waits for resume; while held, for activation
        self.running = not self.paused and not self.held
        self.last_failure = ''
        self.last_status = Status.INVALID
        self.on_install(new)
        self.logger.info(f"running tree '{new.name}' from {new.file}" if not self.held else
                         f"loaded tree '{new.name}' from {new.file}; it ticks once activated")

    def retire(self, shutdown_timeout: float) -> None:
        """Destroy stopped trees once their cancels are acknowledged (or the timeout)."""
        still, now = [], time.monotonic()
        for tree in self.retiring:
            tree.retired_at = tree.retired_at or now
            if tree.outstanding() and now - tree.retired_at < shutdown_timeout:
                still.append(tree)
                continue
            if tree.outstanding():  # e.g. the server died: nobody will ever answer
                self.logger.error(f"tree '{tree.name}': goal cancels not acknowledged "
                                  'within shutdown_timeout; releasing it anyway')
            else:
                self.debug('tree', f"released the retired tree '{tree.name}': its goal "
                           'cancels are acknowledged')
            tree.destroy()
        self.retiring = still

    # ---- ticking -------------------------------------------------------------------

    def tick_once(self, now: float) -> Optional[TickRecord]:
        """Tick the tree once (None when there is no tree or it is paused).

        Applies what the blackboard feed stored, ticks through the tree's runner (whose
        observers get the record), notes the reason of a new root FAILURE or of a failed
        leaf that talks to the robot (a branch that keeps failing shows even when a
        fallback catches it) and, when a Terminate node ended the tick (the runner halted
        the tree), stops ticking and notes who did it.
        """
        tree = self.tree
        if tree is None or not self.running:
            return None
        tree.feed.apply()
        record = tree.runner.tick_once(now=now)
        status = record.root_status
        self.last_failure = backoff.leaf_failure(record, self.logger.warning) \
            or self.last_failure
        if status is Status.FAILURE and (status is not self.last_status
                                         or record.terminated is not None
                                         or not self.last_failure):
            self.last_failure = failure_reason(tree.root, ident=tree.built.nodes.path)
        self.last_status = status
        request = record.terminated
        if request is not None:
            self.running = False
            path = tree.built.nodes.path(request.node) if request.node is not None \
                else request.node_name
            self.terminated = f'{path}: {request.status.name.lower()} ' \
                f'{request.reason}'.strip()
            self.logger.info(f'tree terminated by {self.terminated}')
        return record

    def active(self) -> list[str]:
        """Return the node paths of the running branch, root first."""
        tree = self.tree
        return active_path(tree.root, ident=tree.built.nodes.path) if tree else []

    def backing_off(self) -> dict[str, str]:
        """Return ``node path -> reason`` of the leaves waiting out a back-off now."""
        tree = self.tree
        return backoff.waiting(tree.backoffs, tree.built.nodes.path) if tree else {}

    # ---- runtime control -------------------------------------------------------------

    def halt(self, why: str = 'paused') -> None:
        """Halt the tree (cancelling its goals) and stop ticking; ``why`` is for the log."""
        if self.tree is not None:
            self.tree.stop()
            self.debug('tree', f"{why}: tree '{self.tree.name}' halted")
        self.running = False

    def pause(self) -> None:
        """Halt the tree (cancelling its goals) and stop ticking until :meth:`resume`."""
        self.halt()
        self.paused = True

    def resume(self) -> None:
        """Tick again (the tree restarts from its root; the blackboard is kept)."""
        self.running = True
        self.paused = False
        self.terminated = None

    def reset(self) -> bool:
        """Halt the tree, restore the initial blackboard and limits; False without a tree."""
        tree = self.tree
        if tree is None:
            return False
        tree.stop()
        reset_limits(tree.root)
        backoff.reset_backoffs(tree.root)
        py_trees.blackboard.Blackboard.storage.clear()
        apply_blackboard_defaults(tree.document)
        tree.runner.tick_count = 0
        self.last_failure = ''
        self.terminated = None
        self.paused = False
        self.running = True
        return True

    def halt_all(self) -> None:
        """Halt the tree (its goal cancels are sent) and stop ticking; nothing is awaited.

        :meth:`stop_all` then awaits the cancels: executives sharing a process halt every
        tree first and await all their cancels together (bt_executive/ros/serve.py).
        """
        self.running = False
        if self.tree is not None:
            self.tree.stop()
            self._stopped_ticks = self.tree.runner.tick_count  # the final status says it
            self.retiring.append(self.tree)
            self.tree = None

    def outstanding(self) -> list[Any]:
        """Return the goal cancels (futures) of the halted trees not yet acknowledged."""
        return [future for tree in self.retiring for future in tree.outstanding()]

    def stop_all(self, executor: Any, timeout: float, *, waited: float = 0.0) -> bool:
        """Halt every tree and spin until goal cancels are acknowledged (bounded).

        ``waited``: seconds of ``timeout`` already spent awaiting them (after
        :meth:`halt_all`).

        Returns:
            True if every cancel was acknowledged within the timeout.
        """
        self.halt_all()
        deadline = time.monotonic() + timeout - waited
        self.debug('tree', lambda: f'stopping: {len(self.retiring)} trees halted, waiting up '
                   f'to {timeout:g} s for {sum(len(t.outstanding()) for t in self.retiring)} '
                   'goal cancels')
        while time.monotonic() < deadline:
            if not self.outstanding():
                break
            executor.spin_once(timeout_sec=min(0.05, max(0.0, deadline - time.monotonic())))
        acknowledged = not any(tree.outstanding() for tree in self.retiring)
        if not acknowledged:
            self.logger.error(f'some goal cancels were not acknowledged within {timeout} s')
        for tree in self.retiring:
            tree.destroy()
        self.retiring = []
        return acknowledged

    def release_all(self) -> None:
        """Halt and release every tree without waiting for anything."""
        for tree in ([self.tree] if self.tree is not None else []) + self.retiring:
            tree.stop()
            tree.destroy()
        self.tree = None
        self.retiring = []


__all__ = ['CHOOSE_TREE', 'LoadedTree', 'TreeHost', 'release']
