# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``~/execute_tree`` and ``~/list_trees``: another node runs a tree and gets its result.

:class:`ExecuteTreeServer` serves the ``bt_executive_interfaces/action/ExecuteTree``
action and the ``ListTrees`` service for one executive core (docs/execute_tree.md):

- **A goal** names a tree (and a file; default ``tree_file``), arguments for the tree's
  ``params`` and the blackboard keys it wants back. The tree is loaded and installed as
  a swap is (the running tree is halted, its goal cancels acknowledged before it is
  released; pause, reset and the back-off of failing leaves work as always) and ticked
  until its root succeeds or fails, or a ``Terminate`` node ends it. Then it is halted
  and the executive idles (nothing ticks) until the next goal, a ``tree_file`` change
  or ``~/resume``. Feedback: the tick count, the running branch and the last status
  change with its reason, on each tick that changed a status. Result: the outcome, the
  failure chain (``path: reason``, root first), the tick count and the keys asked for.
- **Cancel** halts the tree and answers only once the goal cancels its leaves sent are
  acknowledged by their servers (or ``shutdown_timeout`` passed); the goal then ends
  CANCELED.
- **A second goal** while one runs is rejected (``execute_tree_policy: reject``, the
  default) or preempts it (``preempt``: the running goal ends ABORTED, its tree is
  swapped out by the new one under the swap rules).
- A ``tree_file`` change (a swap) or a stop of the executive aborts the running goal.

Why rclpy's ``ActionServer``: the action's server side (goal ids, the status topic,
results kept for late ``get_result`` requests and their expiry) is rclpy's, tested with
its clients, and its cancel callback may await, which is what lets the cancel answer
wait for the acknowledgements. It is a Waitable (:mod:`bt_executive.ros.entities`): the
server is made once with the core and destroyed only when the node is (``close``, after
the node left the executor), never on a swap or a lifecycle transition, so no Waitable
comes and goes while the executor spins.
"""

from __future__ import annotations

import json
import time
from typing import Any, Optional

from bt_executive.core.errors import SourceLocation, TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.spec import Value
from bt_executive.core.yaml_source import load_value
from bt_executive.observe.record import TickRecord
from bt_executive.observe.snapshot import failure_chain
from bt_executive.ros import entities
from bt_executive.ros.parameters import GOAL_POLICIES
from bt_executive.ros.typed_topics import Interfaces, status_change
from py_trees.common import Status
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.task import Future

#: How the ``Result.outcome`` constants are named in the log.
OUTCOMES = {1: 'SUCCEEDED', 2: 'FAILED', 3: 'CANCELED', 4: 'ABORTED'}


def tree_arguments(parameters: Any) -> dict[str, Value]:
    """Return a goal's ``parameters`` (``KeyValue``: value as YAML) as tree arguments.

    Raises:
        TreeError: for a value that is not valid YAML, or a parameter given twice.
    """
    arguments: dict[str, Value] = {}
    for item in parameters:
        where = SourceLocation(f'<goal parameter {item.key}>')
        if item.key in arguments:
            raise TreeError.single(where, f"parameter '{item.key}' is given twice")
        arguments[item.key] = Value(load_value(item.value, str(where)), where)
    return arguments


def default_text(value: Optional[Value]) -> str:
    """Return a tree parameter's default as YAML text ('' when the caller must give one)."""
    if value is None:
        return ''
    return json.dumps(value.data, default=lambda part: getattr(part, 'text', str(part)))


class GoalRun:
    """One ExecuteTree goal: its tree, its end and the post-tick handler that sees it.

    ``finished`` is done with ``(outcome, message, failure chain)`` once the goal ends;
    the first end wins.
    """

    def __init__(self, server: ExecuteTreeServer, handle: Any) -> None:
        self.server = server
        self.handle = handle
        self.request = handle.request
        self.tree: Any = None
        self.finished = Future()
        self.tick_count = 0

    @property
    def name(self) -> str:
        """Return the tree's name as the goal gave it (or the loaded tree's)."""
        return self.tree.name if self.tree is not None else (self.request.tree or '<main>')

    def end(self, outcome: int, message: str, chain: tuple[str, ...] = ()) -> None:
        """End the goal (the first call wins)."""
        if not self.finished.done():
            self.finished.set_result((outcome, message, chain))

    def on_tick(self, record: TickRecord) -> None:
        """Publish feedback on a change; end the goal when the root succeeded or failed."""
        if record.stopped or self.finished.done():
            return
        self.tick_count = record.tick
        types = self.server.types
        moved = record.transitions
        if moved:
            tree = self.tree
            last = moved[-1]
            feedback = types.ExecuteTree.Feedback(
                tick_count=record.tick, active_path=self.server.core.host.active(),
                last_change=status_change(types, last,
                                          tree.built.nodes.type_name(last.behaviour)))
            self.handle.publish_feedback(feedback)
        status = record.root_status
        if status is Status.SUCCESS:
            self.end(1, f"tree '{self.name}' succeeded")
        elif status is Status.FAILURE:
            chain = tuple(f'{path}: {reason}' if reason else path for path, reason in
                          failure_chain(self.tree.root, ident=self.tree.built.nodes.path))
            deepest = next((line for line in reversed(chain) if ': ' in line),
                           chain[-1] if chain else '')
            if record.terminated is not None and not chain:
                deepest = self.server.core.host.terminated or 'terminated'
            self.end(2, deepest or f"tree '{self.name}' failed", chain)
        elif record.terminated is not None:  # a Terminate node with another status
            self.end(4, f'terminated by {self.server.core.host.terminated}')


class ExecuteTreeServer:
    """Serve ``~/execute_tree`` and ``~/list_trees`` for an executive core (module docstring).

    Args:
        core: the executive core (its public face: load, install, idle, host, param)
        types: the loaded bt_executive_interfaces

    ROS Action Servers:
        ~/execute_tree (bt_executive_interfaces/action/ExecuteTree)

    ROS Services:
        ~/list_trees (bt_executive_interfaces/srv/ListTrees)
    """

    def __init__(self, core: Any, types: Interfaces) -> None:
        self.core = core
        self.types = types
        self.node = core.node
        self.goal: Optional[GoalRun] = None
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        # its own reentrant group: the cancel callback awaits the leaves' cancel answers,
        # which arrive on the node's default group (SingleThreadedExecutor honours groups)
        self.server: Any = ActionServer(
            self.node, types.ExecuteTree, '~/execute_tree', execute_callback=self._execute,
            goal_callback=self._on_goal, cancel_callback=self._on_cancel,
            callback_group=ReentrantCallbackGroup())
        self.list_service = self.node.create_service(
            types.ListTrees, '~/list_trees', core.own(self._list_trees, faults=False))

    @property
    def goal_tree(self) -> str:
        """Return the tree of the goal being run ('' when none)."""
        goal = self.goal
        return goal.name if goal is not None and not goal.finished.done() else ''

    # ---- goals ------------------------------------------------------------------------

    def _on_goal(self, request: Any) -> GoalResponse:
        try:
            self.core.allowed('execute')
        except TreeError as error:
            self.core.logger.warning(f'ExecuteTree goal rejected: {error}')
            return GoalResponse.REJECT
        running = self.goal_tree
        policy = self.core.param('execute_tree_policy')
        if running and policy != 'preempt':
            self.core.logger.warning(
                f"ExecuteTree goal for tree '{request.tree or '<main>'}' rejected: tree "
                f"'{running}' is running (execute_tree_policy: {policy})")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    async def _execute(self, handle: Any) -> Any:
        run = GoalRun(self, handle)
        previous, self.goal = self.goal, run
        if previous is not None:
            previous.end(4, f"preempted by a goal for tree '{run.name}'")
        request = handle.request
        tree_file = request.file or self.core.param('tree_file')
        try:
            if not tree_file:
                raise TreeError.single(SourceLocation('<goal>'), 'no file: the goal names '
                                       'none and the tree_file parameter is empty')
            run.tree = self.core.load(tree_file, request.tree,
                                      arguments=tree_arguments(request.parameters))
        except TreeError as error:
            run.end(4, f'cannot load the tree: {error}')
        else:
            self.core.logger.info(f"ExecuteTree: running tree '{run.name}' from {tree_file}")
            self.core.install(run.tree)  # a swap: the running tree stops as on any swap
            run.tree.runner.add_observer(run)
        outcome, message, chain = await run.finished
        if self.core.host.tree is run.tree and run.tree is not None:
            self.core.idle(f"ExecuteTree goal for '{run.name}' ended")
        await self.acknowledged()
        if self.goal is run:
            self.goal = None
        result = self.types.ExecuteTree.Result(
            outcome=outcome, message=message, failure_chain=list(chain),
            tick_count=run.tick_count, blackboard=self._keys(request.result_keys))
        if handle.is_active:
            if handle.is_cancel_requested:
                handle.canceled()
            elif outcome == 1:
                handle.succeed()
            else:
                handle.abort()
        self.core.logger.info(f"ExecuteTree '{run.name}': {OUTCOMES.get(outcome)}: {message}")
        self.core.publish_status(force=True)
        return result

    async def _on_cancel(self, handle: Any) -> CancelResponse:
        run = self.goal
        if run is None or run.handle is not handle or run.finished.done():
            return CancelResponse.REJECT
        self.core.idle(f"ExecuteTree goal for '{run.name}' cancelled")
        acknowledged = await self.acknowledged()
        run.end(3, 'cancelled: the tree halted, its goal cancels (if any) acknowledged'
                if acknowledged else 'cancelled: the tree halted, but some of its goal cancels '
                'were not acknowledged within shutdown_timeout')
        return CancelResponse.ACCEPT

    async def acknowledged(self) -> bool:
        """Wait until the goal cancels of the halted trees are answered (``shutdown_timeout``).

        Woken by the cancels' answers, not by polling; a steady-clock timer bounds it.
        """
        deadline = time.monotonic() + float(self.core.param('shutdown_timeout'))
        while True:
            pending = self.core.cancels_in_flight()
            remaining = deadline - time.monotonic()
            if not pending:
                return True
            if remaining <= 0:
                self.core.logger.error('ExecuteTree: goal cancels not acknowledged within '
                                       'shutdown_timeout')
                return False
            woken = Future()

            def wake(*_: Any) -> None:
                if not woken.done():
                    woken.set_result(None)
            for future in pending:
                future.add_done_callback(wake)
            timer = self.node.create_timer(remaining, wake, clock=self._steady)
            try:
                await woken
            finally:
                entities.destroy(self.node, timer)

    def abort_running(self, why: str) -> None:
        """End the running goal as ABORTED (a swap replaced its tree, the executive stops)."""
        if self.goal is not None:
            self.goal.end(4, why)

    def on_install(self, tree: Any) -> None:
        """Abort the goal whose tree a swap replaced (the core calls this on each install)."""
        goal = self.goal
        if goal is not None and goal.tree is not None and tree is not goal.tree:
            goal.end(4, f"tree '{goal.name}' was replaced by '{tree.name}' (a tree_file "
                     'change or ~/reload)')

    def _keys(self, keys: Any) -> list[Any]:
        from bt_executive.ros.core import json_safe  # the core imports this module
        storage = self.core.blackboard_storage()
        found = {key: json_safe(storage['/' + key.lstrip('/')])
                 for key in keys if '/' + key.lstrip('/') in storage}
        return [self.types.KeyValue(key=key, value=json.dumps(value))
                for key, value in found.items()]

    # ---- the trees of a file ----------------------------------------------------------

    def _list_trees(self, request: Any, response: Any) -> Any:
        tree_file = request.file or self.core.param('tree_file')
        if not tree_file:
            response.success = False
            response.message = 'no file: the request names none and tree_file is empty'
            return response
        try:
            document = Loader(self.core.registry).load(tree_file)
        except TreeError as error:
            response.success = False
            response.message = str(error)
            return response
        KeyValue, TreeInfo = self.types.KeyValue, self.types.TreeInfo  # noqa: N806
        response.trees = [
            TreeInfo(name=name, file=spec.file, main=name == document.main,
                     parameters=[KeyValue(key=key, value=default_text(value))
                                 for key, value in spec.params.items()])
            for name, spec in document.trees.items()]
        response.success = True
        response.message = f'{len(response.trees)} trees in {tree_file}'
        return response

    def destroy(self) -> None:
        """Abort a running goal and destroy the server (the node is being destroyed)."""
        goal = self.goal
        if goal is not None and goal.handle.is_active:
            goal.end(4, 'the executive is stopping')
            try:
                goal.handle.abort()
            except Exception:  # noqa: B902 - the goal may have moved on meanwhile
                pass
        self.server.destroy()


__all__ = ['ExecuteTreeServer', 'GOAL_POLICIES', 'GoalRun', 'OUTCOMES', 'default_text',
           'tree_arguments']
