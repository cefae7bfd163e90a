# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive run-tree NAME``: run a tree on a running executive and wait for its end.

A thin client of the executive's ``~/execute_tree`` action (docs/execute_tree.md): it
sends the goal, prints each feedback (tick, running branch, last status change), then
the result (outcome, failure chain, the blackboard keys asked for with ``--key``).
Ctrl-C cancels the goal and waits for the cancel's end (the executive answers once the
goals its tree sent are cancelled).

Exit status: 0 when the tree succeeded, 1 when it failed, was cancelled or aborted, 2
when no goal could be run (bt_executive_interfaces missing, no executive answering,
the goal rejected, a bad ``--param``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable, Optional

from bt_executive.app.arguments import add_executive_arguments

EXIT_SUCCEEDED, EXIT_FAILED, EXIT_UNAVAILABLE = 0, 1, 2
OUTCOMES = {1: 'SUCCEEDED', 2: 'FAILED', 3: 'CANCELED', 4: 'ABORTED'}
STATUSES = ('INVALID', 'RUNNING', 'SUCCESS', 'FAILURE')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``run-tree`` arguments to ``parser``."""
    parser.add_argument('tree', metavar='NAME', nargs='?', default='',
                        help="the tree to run (default: the file's main tree)")
    parser.add_argument('--param', action='append', default=[], metavar='KEY=VALUE',
                        help="an argument for the tree's params (VALUE in YAML); repeatable")
    parser.add_argument('--key', action='append', default=[], metavar='KEY',
                        help='a blackboard key whose value the result shows; repeatable')
    parser.add_argument('--file', default='',
                        help="the tree file (default: the executive's tree_file)")
    add_executive_arguments(parser)
    parser.add_argument('--wait', type=float, default=10.0, metavar='S',
                        help='seconds to wait for the executive to answer (default 10)')
    parser.add_argument('--quiet', action='store_true', help='print only the result')


def parse_params(items: list[str]) -> list[tuple[str, str]]:
    """Split ``KEY=VALUE`` arguments; raise ValueError naming a malformed one."""
    pairs = []
    for item in items:
        key, sep, value = item.partition('=')
        if not sep or not key.strip():
            raise ValueError(f'--param {item!r}: expected KEY=VALUE')
        pairs.append((key.strip(), value))
    return pairs


def describe_feedback(feedback: Any) -> str:
    """Return one line for a feedback message."""
    change = feedback.last_change
    branch = ' > '.join(feedback.active_path) or '-'
    line = (f'tick {feedback.tick_count}: {branch} | {change.node_path} '
            f'{STATUSES[change.previous_status]} -> {STATUSES[change.status]}')
    return f'{line}: {change.reason}' if change.reason else line


def describe_result(result: Any) -> list[str]:
    """Return the lines that show a result."""
    lines = [f'{OUTCOMES.get(result.outcome, result.outcome)}: {result.message} '
             f'({result.tick_count} ticks)']
    lines += [f'  failed: {step}' for step in result.failure_chain]
    lines += [f'  {item.key} = {item.value}' for item in result.blackboard]
    return lines


def run(args: argparse.Namespace) -> int:
    """Send the goal, show its feedback and result; return the exit status."""
    try:
        params = parse_params(args.param)
    except ValueError as error:
        print(f'bt-executive run-tree: {error}', file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        from bt_executive_interfaces.action import ExecuteTree
        from bt_executive_interfaces.msg import KeyValue
    except ImportError:
        print('bt-executive run-tree: bt_executive_interfaces is not installed (make env or '
              'colcon build builds it; docs/execute_tree.md)', file=sys.stderr)
        return EXIT_UNAVAILABLE
    import rclpy
    from rclpy.action import ActionClient
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor

    name = '/'.join(part.strip('/') for part in (args.ns, args.node, 'execute_tree')
                    if part.strip('/'))
    from rclpy.signals import SignalHandlerOptions
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)  # Ctrl-C: cancel
    node = rclpy.create_node('bt_executive_run_tree')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    say: Callable[[str], None] = (lambda text: None) if args.quiet else print
    try:
        client = ActionClient(node, ExecuteTree, '/' + name)
        if not client.wait_for_server(timeout_sec=args.wait):
            print(f'bt-executive run-tree: no ExecuteTree server at /{name} within '
                  f'{args.wait:g} s (is the executive running, with bt_executive_interfaces '
                  'installed?)', file=sys.stderr)
            return EXIT_UNAVAILABLE
        goal = ExecuteTree.Goal(tree=args.tree, file=args.file, result_keys=args.key,
                                parameters=[KeyValue(key=k, value=v) for k, v in params])
        sent = client.send_goal_async(
            goal, feedback_callback=lambda message: say(describe_feedback(message.feedback)))
        handle = _complete(executor, sent, args.wait)
        if handle is None or not handle.accepted:
            print(f"bt-executive run-tree: the goal for tree '{args.tree or '<main>'}' was "
                  f'{"not answered" if handle is None else "rejected"} (another goal running? '
                  "see the executive's log)", file=sys.stderr)
            return EXIT_UNAVAILABLE
        say(f"running tree '{args.tree or '<main>'}' on /{name}")
        result_future = handle.get_result_async()
        try:
            _complete(executor, result_future, None)
        except KeyboardInterrupt:
            print('cancelling ...', file=sys.stderr)
            _complete(executor, handle.cancel_goal_async(), args.wait)
            _complete(executor, result_future, args.wait)
        response = result_future.result() if result_future.done() else None
        if response is None:
            print('bt-executive run-tree: no result', file=sys.stderr)
            return EXIT_FAILED
        for line in describe_result(response.result):
            print(line)
        return EXIT_SUCCEEDED if response.result.outcome == 1 else EXIT_FAILED
    except ExternalShutdownException:
        return EXIT_FAILED
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


def _complete(executor: Any, future: Any, timeout: Optional[float]) -> Any:
    """Spin until ``future`` is done (at most ``timeout`` s; None: no limit); its result."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not future.done():
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return None
        executor.spin_once(timeout_sec=0.5 if left is None else min(0.5, left))
    return future.result()


__all__ = ['add_arguments', 'describe_feedback', 'describe_result', 'parse_params', 'run']
