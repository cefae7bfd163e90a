#!/usr/bin/env python3
# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A scriptable std_srvs/srv/Trigger service server, run as a peer process by tests.

Usage::

    trigger_server.py SERVICE_NAME MODE [--delay SECONDS]

Modes:
    ok: respond ``success=True``, ``message='ok <n>'`` (n counts requests from 1).
    fail: respond ``success=False``, ``message='failed <n>'``.
    slow: wait ``--delay`` seconds (default 2), then respond like ok.

It also serves test_msgs/srv/BasicTypes on ``SERVICE_NAME/basic``, answering with the
request's fields copied into the response and ``string_value`` set to ``'echo <n>'``
(same mode handling: fail does not apply, slow delays).

Every event is printed to stdout as one JSON line (flushed) and published as a
std_msgs/msg/String holding the same JSON on ``SERVICE_NAME/events`` (reliable, transient
local, depth 100). Each event has ``event``, ``seq``, ``time`` (Unix seconds) and
``source`` (the service name), plus:

    ready                              the server is up (also printed as a bare READY line)
    request          service, count    a request arrived (count: requests so far, all services)
    responded        service, count, success, message
    reply_reader_missing service       the client's reply reader was not discovered in 5 s
                                       (the response is sent anyway and may be lost)
    shutdown                           SIGINT or SIGTERM received; exiting

SIGINT and SIGTERM stop it cleanly (exit status 0).
"""

import argparse
import sys
import threading
from typing import Any, Optional

from peer_common import await_reply_reader, EventReporter, serve, start_node


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('service_name')
    parser.add_argument('mode', choices=('ok', 'fail', 'slow'))
    parser.add_argument('--delay', type=float, default=2.0,
                        help='seconds before responding in slow mode (default 2)')
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the server until SIGINT or SIGTERM."""
    args = parse_args(sys.argv[1:] if argv is None else argv)

    from rclpy.callback_groups import ReentrantCallbackGroup
    from std_srvs.srv import Trigger
    from test_msgs.srv import BasicTypes

    node, stop = start_node('trigger_server', args.service_name)
    events = EventReporter(node, args.service_name)
    count_lock = threading.Lock()
    counter = [0]

    def count_request(service: str) -> int:
        with count_lock:
            counter[0] += 1
            count = counter[0]
        events.emit('request', service=service, count=count)
        if args.mode == 'slow':
            stop.wait(args.delay)
        return count

    def answer(service: str) -> None:
        if not await_reply_reader(node, service, stop):
            events.emit('reply_reader_missing', service=service)

    def on_trigger(request: Any, response: Any) -> Any:
        count = count_request(args.service_name)
        response.success = args.mode != 'fail'
        response.message = f'{"failed" if args.mode == "fail" else "ok"} {count}'
        answer(args.service_name)
        events.emit('responded', service=args.service_name, count=count,
                    success=response.success, message=response.message)
        return response

    basic_name = f'{args.service_name}/basic'

    def on_basic(request: Any, response: Any) -> Any:
        count = count_request(basic_name)
        for field in request.get_fields_and_field_types():
            setattr(response, field, getattr(request, field))
        response.string_value = f'echo {count}'
        answer(basic_name)
        events.emit('responded', service=basic_name, count=count, success=True,
                    message=response.string_value)
        return response

    group = ReentrantCallbackGroup()
    services = [
        node.create_service(Trigger, args.service_name, on_trigger, callback_group=group),
        node.create_service(BasicTypes, basic_name, on_basic, callback_group=group),
    ]
    serve(node, events, args.mode, stop)
    for service in services:
        node.destroy_service(service)
    node.destroy_node()
    return 0


if __name__ == '__main__':
    sys.exit(main())
