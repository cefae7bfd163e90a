#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A scriptable test_msgs/action/Fibonacci action server, run as a peer process by tests.

Usage::

    fibonacci_server.py ACTION_NAME MODE [--period SECONDS] [--accept-delay SECONDS]
                        [--cancel-delay SECONDS]

Modes:
    succeed: accept; publish feedback after each step (one step per ``--period``) and
        succeed with ``order + 1`` numbers of the sequence; a cancel ends it as canceled.
    reject: reject every goal.
    abort: accept, publish one feedback, then abort with the sequence so far.
    slow: accept and keep publishing feedback every ``--period`` until cancelled
        (then canceled); it never finishes on its own.
    delay_accept: like succeed, but the goal callback waits ``--accept-delay`` seconds
        before accepting (to test cancelling before the goal response arrives).

``--cancel-delay`` (any mode) makes the cancel callback wait that long before accepting,
so a cancel stays unacknowledged for a while.

Every event is printed to stdout as one JSON line (flushed) and published as a
std_msgs/msg/String holding the same JSON on ``ACTION_NAME/events`` (reliable, transient
local, depth 100, so late subscribers get the history). Each event has ``event``,
``seq`` (1, 2, ...), ``time`` (Unix seconds) and ``source`` (the action name), plus:

    ready                              the server is up (also printed as a bare READY line)
    goal_received    order             the goal callback was called
    goal_accepted    goal_id, order    the goal was accepted (goal_id: UUID hex string)
    goal_rejected    order
    cancel_requested goal_id
    cancel_accepted  goal_id           (every cancel request is accepted)
    finished         goal_id, status (succeeded|aborted|canceled), sequence, feedback_count
    shutdown                           SIGINT or SIGTERM received; exiting

SIGINT and SIGTERM stop it cleanly (exit status 0); running goals are aborted.
"""

import argparse
import sys
from typing import Any, Optional

from peer_common import EventReporter, serve, start_node


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action_name')
    parser.add_argument('mode', choices=('succeed', 'reject', 'abort', 'slow', 'delay_accept'))
    parser.add_argument('--period', type=float, default=0.05,
                        help='seconds per step between feedback messages (default 0.05)')
    parser.add_argument('--accept-delay', type=float, default=2.0,
                        help='seconds the goal callback waits in delay_accept mode')
    parser.add_argument('--cancel-delay', type=float, default=0.0,
                        help='seconds the cancel callback waits before accepting')
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the server until SIGINT or SIGTERM."""
    args = parse_args(sys.argv[1:] if argv is None else argv)

    from rclpy.action import ActionServer, CancelResponse, GoalResponse
    from rclpy.callback_groups import ReentrantCallbackGroup
    from test_msgs.action import Fibonacci

    node, stop = start_node('fibonacci_server', args.action_name)
    events = EventReporter(node, args.action_name)

    def goal_callback(goal: Any) -> GoalResponse:
        events.emit('goal_received', order=goal.order)
        if args.mode == 'reject':
            events.emit('goal_rejected', order=goal.order)
            return GoalResponse.REJECT
        if args.mode == 'delay_accept':
            stop.wait(args.accept_delay)
        return GoalResponse.ACCEPT

    def handle_accepted(goal_handle: Any) -> None:
        events.emit('goal_accepted', goal_id=goal_id_of(goal_handle),
                    order=goal_handle.request.order)
        goal_handle.execute()

    def cancel_callback(goal_handle: Any) -> CancelResponse:
        events.emit('cancel_requested', goal_id=goal_id_of(goal_handle))
        if args.cancel_delay > 0:
            stop.wait(args.cancel_delay)
        events.emit('cancel_accepted', goal_id=goal_id_of(goal_handle))
        return CancelResponse.ACCEPT

    def execute(goal_handle: Any) -> Any:
        order = goal_handle.request.order
        sequence = [0, 1]
        feedback_count = 0

        def finish(status: str) -> Any:
            {'succeeded': goal_handle.succeed, 'aborted': goal_handle.abort,
             'canceled': goal_handle.canceled}[status]()
            events.emit('finished', goal_id=goal_id_of(goal_handle), status=status,
                        sequence=sequence, feedback_count=feedback_count)
            return Fibonacci.Result(sequence=sequence)

        step = 1
        while True:
            if goal_handle.is_cancel_requested:
                return finish('canceled')
            if stop.is_set():
                return finish('aborted')
            if args.mode != 'slow' and step >= order:
                return finish('succeeded')
            # int32 elements: in slow mode the sequence would overflow after 46 steps
            # (and abort the goal); restart it instead so a slow goal runs until cancelled
            if sequence[-1] + sequence[-2] > 2**31 - 1:
                sequence = [0, 1]
            sequence.append(sequence[-1] + sequence[-2])
            goal_handle.publish_feedback(Fibonacci.Feedback(sequence=sequence))
            feedback_count += 1
            step += 1
            if args.mode == 'abort':
                return finish('aborted')
            stop.wait(args.period)

    group = ReentrantCallbackGroup()
    server = ActionServer(node, Fibonacci, args.action_name, execute,
                          goal_callback=goal_callback, handle_accepted_callback=handle_accepted,
                          cancel_callback=cancel_callback, callback_group=group)
    serve(node, events, args.mode, stop)
    server.destroy()
    node.destroy_node()
    return 0


def goal_id_of(goal_handle: Any) -> str:
    """Return the goal's UUID as a hex string."""
    return bytes(goal_handle.goal_id.uuid).hex()


if __name__ == '__main__':
    sys.exit(main())
