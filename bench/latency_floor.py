# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The latency floor of bench_latency: the same reaction without a tree, in plain rclpy.

``python bench/latency_floor.py NAMESPACE`` keeps one ``test_msgs/action/Fibonacci`` goal
active on ``NAMESPACE/navigate`` while the last ``NAMESPACE/battery_state`` percentage is
at least 0.2, and cancels it straight from the subscription callback when it drops
below. No tree, no tick, no snapshot: what is left is DDS delivery, rclpy's executor (the
EventsExecutor, as the executive's) and the cancel request, the part of the executive's
reaction latency it cannot remove.
``--realtime`` gives the floor the executive's real-time mode (bt_executive/ros/realtime.py,
with its defaults: SCHED_FIFO 10 for the spinning and DDS reception threads, memory
locked, the collector between callbacks), applied by the same function at the same point:
after the node exists, before spinning. Runs until SIGINT or SIGTERM.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import floor_node  # noqa: E402, I100

#: Seconds before the first goal is sent again when the server has not answered it.
FIRST_GOAL_RETRY = 2.0


def main(argv: list[str]) -> int:
    """Run the reflex until SIGINT or SIGTERM."""
    # a name per reactor: bench_latency runs two (the floor and its control)
    name = 'latency_floor_' + argv[0].rstrip('/').rsplit('_', 1)[-1]
    with floor_node(name) as (node, executor, received):
        between = None
        if '--realtime' in argv[1:]:
            from bt_executive.ros.realtime import enter_realtime, RealtimeSettings
            state = enter_realtime(RealtimeSettings(enabled=True), node.get_logger())
            between = state.between_callbacks if state is not None else None
        reflex(node, executor, received, argv[0], between=between)
    return 0


def reflex(node: Any, executor: Any, received: list[int], namespace: str, *,
           between: Any = None) -> None:
    """Keep a goal active while the battery is high; cancel it when it drops.

    ``between`` runs after each callback of the main loop (the real-time mode's collector).
    """
    import uuid

    import rclpy
    from rclpy.action import ActionClient
    from rclpy.action.client import ClientGoalHandle
    from sensor_msgs.msg import BatteryState
    from test_msgs.action import Fibonacci
    from unique_identifier_msgs.msg import UUID

    client = ActionClient(node, Fibonacci, f'{namespace}/navigate')
    # 'sending': the id of the goal sent and not answered yet
    state: dict[str, Any] = {'handle': None, 'sending': None, 'low': False}

    def on_goal_response(goal_id: Any, future: Any) -> None:
        handle = future.result()
        current = state['sending'] is goal_id
        if current:
            state['sending'] = None
        if not handle.accepted:
            return
        if state['low'] or not current:  # cancelled by id already, or a goal since
            handle.cancel_goal_async()
        else:
            state['handle'] = handle

    def send() -> None:
        goal_id = state['sending'] = UUID(uuid=list(uuid.uuid4().bytes))
        client.send_goal_async(Fibonacci.Goal(order=10), goal_uuid=goal_id).add_done_callback(
            lambda future: on_goal_response(goal_id, future))

    def on_battery(message: BatteryState) -> None:
        state['low'] = message.percentage < 0.2
        if state['low'] and state['handle'] is not None:
            state['handle'].cancel_goal_async()
            state['handle'] = None
        elif state['low'] and state['sending'] is not None:
            # not answered yet, and the answer may be lost (Fast DDS drops a response to a
            # client it has not matched yet): cancel by the goal's id, as the executive does
            ClientGoalHandle(client, state['sending'],
                             Fibonacci.Impl.SendGoalService.Response()).cancel_goal_async()
            state['sending'] = None  # an answer that still comes is cancelled again
        elif not state['low'] and state['handle'] is None and state['sending'] is None:
            send()

    node.create_subscription(BatteryState, f'{namespace}/battery_state', on_battery, 10)
    while not received and not client.server_is_ready():
        executor.spin_once(timeout_sec=0.1)
    # The first goal again while unanswered: a request written just after discovery can be
    # lost (the server's reader not yet matched to the client's writer), and the bench
    # would wait for it for ever. An answer that still comes is cancelled (not current).
    sent_at = -float('inf')
    while not received and state['handle'] is None and not state['low']:
        if time.monotonic() - sent_at >= FIRST_GOAL_RETRY:
            if sent_at > 0:
                print(f'{namespace}: the first goal is unanswered after {FIRST_GOAL_RETRY} s: '
                      'sent again', file=sys.stderr, flush=True)
            sent_at = time.monotonic()
            send()
        executor.spin_once(timeout_sec=0.1)
    while rclpy.ok() and not received:
        executor.spin_once(timeout_sec=0.1)
        if between is not None:
            between()
    if state['handle'] is not None:
        future = state['handle'].cancel_goal_async()
        executor.spin_until_future_complete(future, timeout_sec=2.0)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
