# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The web view's debugger: ``/debug`` of ``bt-executive view``, forwarded to ``~/debug/...``.

The page (``debug.js``) asks and the view server forwards, as a ROS client of the
executive (:class:`~bt_executive.ros.debug_client.DebugClient`), always with the origin
:data:`ORIGIN`; the executive decides and its answer is passed on as it is, refusals
included (the server never answers for it). Only a live executive's view has it: replays
and mutation reports answer 404.

=================  =================================================================
``GET /debug``     ``{"success", "message", "state"}``: the executive's
                   ``~/debug/state`` (``success`` false and the reason when its
                   debugging is off)
``POST /debug``    one request as JSON (the fields of DebugCommand but ``origin``):
                   ``{"success", "message", "state"}``, the executive's answer
=================  =================================================================

Either answers 504 with ``{"error": ...}`` when the executive did not answer in time,
400 when the body is not a request. The HTTP side (the content type, the same-origin
check, the size limit) is :class:`~bt_executive.viewers.webview.ViewRequestHandler`'s.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from bt_executive.ros.debug_client import DebugAnswer, DebugUnreachable
from bt_executive.ros.debug_services import FIELDS

#: Who the executive is told asks (``~/events``: "substituted by web view: SUCCESS").
ORIGIN = 'web view'
#: Largest request body taken, in bytes.
MAX_BODY = 4096
#: Longest text of one field.
MAX_FIELD = 1000
#: Seconds the server waits for the executive's answer.
TIMEOUT = 5.0


class DebugRequester(Protocol):
    """What :class:`DebugService` needs of a client (a :class:`DebugClient`)."""

    def request(self, fields: dict[str, Any], *, timeout: float) -> DebugAnswer:
        """Send one request; raise DebugUnreachable without an answer in time."""

    def state(self, *, timeout: float) -> DebugAnswer:
        """Ask for the state; raise DebugUnreachable without an answer in time."""


def parse_request(body: bytes) -> dict[str, Any]:
    """Return the fields of a request body, ``origin`` set to :data:`ORIGIN`.

    Raises:
        ValueError: the body is not a JSON object of DebugCommand's fields (the message
            is the 400's sentence).
    """
    try:
        data = json.loads(body.decode('utf-8'))
    except (UnicodeDecodeError, ValueError):
        raise ValueError('the body must be a JSON object (UTF-8)') from None
    if not isinstance(data, dict):
        raise ValueError('the body must be a JSON object')
    allowed = [name for name in FIELDS if name != 'origin']
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ValueError(f'unknown field {unknown[0]!r} (fields: {", ".join(allowed)}; the '
                         f'origin is always {ORIGIN!r})')
    if not isinstance(data.get('command'), str) or not data['command']:
        raise ValueError("'command' must be given, as a string")
    fields: dict[str, Any] = {}
    for name, value in data.items():
        if name == 'ticks':
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
                raise ValueError("'ticks' must be a whole number from 0 (0: until removed)")
        elif not isinstance(value, str) or len(value) > MAX_FIELD:
            raise ValueError(f'{name!r} must be a string of at most {MAX_FIELD} characters')
        fields[name] = value
    fields['origin'] = ORIGIN
    return fields


class DebugService:
    """Answer ``/debug`` (see the module docstring) with a client of the executive.

    Args:
        client: sends the requests (a DebugClient on the view's listener node)
        timeout: seconds to wait for the executive's answer
    """

    def __init__(self, client: DebugRequester, *, timeout: float = TIMEOUT) -> None:
        self.client = client
        self.timeout = timeout
        #: the largest request body taken, in bytes
        self.max_body = MAX_BODY

    def answer_get(self) -> tuple[int, dict[str, Any]]:
        """Return ``(HTTP code, JSON data)`` for ``GET /debug``."""
        try:
            answer = self.client.state(timeout=self.timeout)
        except DebugUnreachable as error:
            return 504, {'error': f'504 {error}'}
        return 200, answer._asdict()

    def answer_post(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """Return ``(HTTP code, JSON data)`` for ``POST /debug`` with ``body``."""
        try:
            fields = parse_request(body)
        except ValueError as error:
            return 400, {'error': f'400 {error}'}
        try:
            answer = self.client.request(fields, timeout=self.timeout)
        except DebugUnreachable as error:
            return 504, {'error': f'504 {error}'}
        return 200, answer._asdict()


__all__ = ['DebugRequester', 'DebugService', 'MAX_BODY', 'ORIGIN', 'TIMEOUT',
           'parse_request']
