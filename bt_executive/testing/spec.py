# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The scenario language: read a scenario file into :class:`Scenario` objects, strictly.

Every problem is reported as ``file:line:col: what was expected`` (the located YAML of
:mod:`bt_executive.core.yaml_source`), all of them at once. The language is described in
docs/testing.md. Times are kept as integer nanoseconds of simulated time, counted from the
start of the scenario, so that every run computes the same times.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from typing import Any, Callable, Optional

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.yaml_source import load_file, YMap, YNode, YScalar, YSeq
from bt_executive.ros import interfaces

#: The statuses an expectation may name.
STATUSES = ('SUCCESS', 'FAILURE', 'RUNNING', 'INVALID')
#: What a scripted goal does.
GOAL_OUTCOMES = ('succeed', 'abort', 'reject', 'hang', 'die')
#: What a scripted service call does.
CALL_OUTCOMES = ('respond', 'ignore', 'die')
#: What a peer does with a cancel request.
CANCEL_ANSWERS = ('accept', 'reject')
#: QoS names of publisher peers (as in a tree file's subscriptions).
QOS_NAMES = ('reliable', 'sensor_data', 'latched')
#: The longest scenario, in simulated seconds (a week).
MAX_DURATION = 7 * 24 * 3600.0
#: The results a substitution rule may give a node.
SUBSTITUTE_STATUSES = ('SUCCESS', 'FAILURE', 'RUNNING')


def ns(seconds: float) -> int:
    """Return simulated seconds as integer nanoseconds."""
    return int(round(seconds * 1e9))


def seconds(nanoseconds: int) -> float:
    """Return integer nanoseconds as seconds."""
    return nanoseconds / 1e9


@dataclasses.dataclass
class GoalScript:
    """What a peer does with one goal (or one service call: ``outcome`` respond/ignore/die)."""

    loc: SourceLocation
    outcome: str
    after: int = 0
    match: Optional[dict[str, Any]] = None
    result: dict[str, Any] = dataclasses.field(default_factory=dict)
    feedback: list[tuple[int, dict[str, Any]]] = dataclasses.field(default_factory=list)
    cancel: str = 'accept'


@dataclasses.dataclass
class Peer:
    """A simulated ROS peer.

    Attributes:
        kind: ``action``, ``service``, ``topic_action`` or ``publish``
        name: the action or service name, the goal topic, the published topic
        type_string: the interface type (the goal type for a topic action)
        scripts: per goal or call, in order (``match`` entries apply to every fit)
        start: when it appears (ns); before, it is absent
        stop: when it leaves the ROS graph (ns), None: never
        messages: a publisher's (time, fields) list
        every: a publisher repeats its latest message this often (ns), None: once
        qos: a publisher's QoS name
        options: topic action topics (status_topic, cancel_topic, stamp_field)
        sent_class: the class of what the tree sends it (goal, request, goal message),
            None for a publisher or a type that did not resolve
    """

    kind: str
    name: str
    loc: SourceLocation
    type_string: str = ''
    scripts: list[GoalScript] = dataclasses.field(default_factory=list)
    start: int = 0
    stop: Optional[int] = None
    messages: list[tuple[int, dict[str, Any]]] = dataclasses.field(default_factory=list)
    every: Optional[int] = None
    qos: str = 'reliable'
    options: dict[str, str] = dataclasses.field(default_factory=dict)
    sent_class: Optional[type] = None


@dataclasses.dataclass
class Expectation:
    """One expectation.

    Attributes:
        kind: ``status``, ``blackboard``, ``goal``, ``call`` or ``published``
        when: ``('at', t)``, ``('by', t)``, ``('during', a, b)`` or ``('end',)``
        values: status: node -> status; blackboard: key -> value
        name: the peer or topic of a goal/call/published expectation
        index: which goal/call/message (0-based), None: any
        fields: the fields it must have (a subset of the message)
        cancelled: whether the goal was cancelled (None: either)
        count: (lowest, highest) number of matching goals/calls/messages, None: at least one
    """

    kind: str
    loc: SourceLocation
    when: tuple[Any, ...] = ('end',)
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    value_locs: dict[str, SourceLocation] = dataclasses.field(default_factory=dict)
    name: str = ''
    index: Optional[int] = None
    fields: Optional[dict[str, Any]] = None
    cancelled: Optional[bool] = None
    count: Optional[tuple[int, Optional[int]]] = None
    text: str = ''


#: What an operator does to the executive in a scenario (``operator:``).
OPERATIONS = ('pause', 'resume', 'reset', 'reload', 'swap', 'deactivate', 'activate')


@dataclasses.dataclass
class Operation:
    """An operator's action on the executive at a time of the scenario.

    Attributes:
        at: when (ns of simulated time from the start)
        do: one of :data:`OPERATIONS` (``deactivate``/``activate``: the lifecycle's
            transitions of the tree: halted with its goals cancelled, then ticked again)
        tree: for ``swap``: the tree file set as ``tree_file`` (resolved)
        loc: where it is written
    """

    at: int
    do: str
    loc: SourceLocation
    tree: str = ''


@dataclasses.dataclass
class Substitute:
    """A substitution rule: the nodes whose path matches ``pattern`` take ``status``.

    The node's own work does not run (an Action sends no goal); the harness applies the
    rule through the debugger's substitution (bt_executive/testing/substitute.py).

    Attributes:
        pattern: a glob matched against node paths (or their ends after a '/')
        status: one of :data:`SUBSTITUTE_STATUSES`
        after: RUNNING for this long (ns of simulated time) before ``status``, None: not
        after_ticks: RUNNING for this many ticks before ``status``, None: not
        times: how many runs of the node are substituted (None: every run); a run ends
            with SUCCESS or FAILURE (a RUNNING rule: each tick is a run)
        source: where the rule comes from, for messages (``substitute`` or a JSON file's
            ``SubstitutionRules``)
    """

    loc: SourceLocation
    pattern: str
    status: str
    after: Optional[int] = None
    after_ticks: Optional[int] = None
    times: Optional[int] = None
    source: str = 'substitute'


@dataclasses.dataclass
class Scenario:
    """One scenario of a scenario file."""

    name: str
    file: str
    loc: SourceLocation
    tree_file: str
    tree_name: str
    duration: int
    parameters: dict[str, Any]
    peers: list[Peer]
    blackboard: dict[str, Any]
    expectations: list[Expectation]
    #: end the run at the first failed expectation (mutation runs: one failure decides)
    stop_at_first_failure: bool = False
    #: what an operator does, in time order
    operations: list[Operation] = dataclasses.field(default_factory=list)
    #: substitution rules, the first that matches a node applies to it
    substitutes: list[Substitute] = dataclasses.field(default_factory=list)

    @property
    def id(self) -> str:  # noqa: A003 - the scenario's id, as in test reports
        """Return ``file::name``."""
        return f'{self.file}::{self.name}'


class _Reader:
    """Collect located errors while reading YAML nodes."""

    def __init__(self) -> None:
        self.errors: list[Diagnostic] = []

    def error(self, node: Any, message: str) -> None:
        self.errors.append(Diagnostic(node.loc, message))

    def mapping(self, node: Optional[YNode], what: str, allowed: tuple[str, ...],
                required: tuple[str, ...] = ()) -> Optional[YMap]:
        if not isinstance(node, YMap):
            if node is not None:
                self.error(node, f'{what}: expected a mapping, got {node.kind}')
            return None
        for key, _ in node.entries:
            if key.value not in allowed:
                self.error(key, f"{what}: unknown key '{key.value}'"
                           f'{_suggest(str(key.value), allowed)}; expected one of '
                           f'{", ".join(allowed)}')
        for key in required:
            if node.get(key) is None:
                self.error(node, f"{what}: missing '{key}'")
        return node

    def string(self, node: Optional[YNode], what: str, default: str = '') -> str:
        if node is None:
            return default
        if not isinstance(node, YScalar) or not isinstance(node.value, str) or not node.value:
            self.error(node, f'{what}: expected a non-empty string, got {node.kind}')
            return default
        return node.value

    def number(self, node: Optional[YNode], what: str, default: float = 0.0, *,
               low: float = 0.0, high: float = MAX_DURATION, positive: bool = False) -> float:
        if node is None:
            return default
        value = node.plain() if isinstance(node, YScalar) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not low <= value <= high or (positive and value <= 0):
            bound = 'above 0' if positive else f'from {low:g}'
            self.error(node, f'{what}: expected a number of seconds {bound} up to {high:g}, '
                       f'got {node.kind if value is None else repr(value)}')
            return default
        return float(value)

    def choice(self, node: Optional[YNode], what: str, choices: tuple[str, ...],
               default: str) -> str:
        if node is None:
            return default
        value = node.plain() if isinstance(node, YScalar) else None
        if value not in choices:
            self.error(node, f'{what}: expected one of {", ".join(choices)}, got '
                       f'{value!r}{_suggest(str(value), choices)}' if value is not None else
                       f'{what}: expected one of {", ".join(choices)}, got {node.kind}')
            return default
        return str(value)

    def fields(self, node: Optional[YNode], what: str) -> dict[str, Any]:
        if node is None:
            return {}
        if not isinstance(node, YMap):
            self.error(node, f'{what}: expected a mapping of message fields, got {node.kind}')
            return {}
        return node.plain()

    def check_message(self, node: Optional[YNode], msg_class: Optional[type], what: str,
                      data: dict[str, Any], check: Callable[..., list[Any]] = (
                          interfaces.check_fields)) -> None:
        """Report what ``check`` finds wrong in ``data`` for ``msg_class``, at ``node``."""
        if msg_class is None or node is None:
            return
        for problem in check(msg_class, data, path=what):
            self.error(node, str(problem))

    def check_paths(self, node: Optional[YNode], msg_class: Optional[type], what: str,
                    data: dict[str, Any]) -> None:
        """Report each key of a pattern (``fields``, ``match``) that names no field."""
        if isinstance(node, YMap):  # else reader.fields reported it
            self.check_message(node, msg_class, what, data, interfaces.check_field_paths)

    def interface(self, node: Optional[YNode], what: str, kind: str) -> Optional[type]:
        if node is None:
            return None
        text = self.string(node, what)
        if not text:
            return None
        try:
            return interfaces.resolve(text, kind=kind)
        except interfaces.InterfaceError as error:
            self.error(node, f'{what}: {error}')
            return None


def _suggest(word: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ''


# 'mutation' (equivalent mutants) is read by bt_executive.testing.mutation
_FILE_KEYS = ('tree', 'tree_name', 'parameters', 'peers', 'substitute', 'substitute_file',
              'scenarios', 'mutation')
_SCENARIO_KEYS = ('tree', 'tree_name', 'parameters', 'duration', 'peers', 'substitute',
                  'substitute_file', 'blackboard', 'operator', 'expect')
_PEER_KINDS = ('action', 'service', 'topic_action', 'publish')


def load_scenarios(path: str) -> list[Scenario]:
    """Read a scenario file.

    Raises:
        TreeError: with every problem found (``file:line:col: what was expected``).
    """
    root = load_file(path)
    reader = _Reader()
    top = reader.mapping(root, 'scenario file', _FILE_KEYS, ('scenarios',)) \
        if root is not None else None
    if root is None:
        raise TreeError.single(SourceLocation(path), "empty scenario file: expected 'tree' "
                               "and 'scenarios'")
    if top is None:
        raise TreeError(reader.errors)
    base = os.path.dirname(path)
    shared_peers = _peers(reader, top.get('peers'))
    shared_parameters = _parameters(reader, top.get('parameters'))
    shared_substitutes = _substitutes(reader, top, base)
    scenarios: list[Scenario] = []
    body = top.get('scenarios')
    if body is not None and (not isinstance(body, YMap) or not len(body)):
        reader.error(body, 'scenarios: expected a mapping of scenario names to scenarios, '
                     f'got {body.kind if not isinstance(body, YMap) else "an empty mapping"}')
    elif isinstance(body, YMap):
        for key, node in body.entries:
            scenario = _scenario(reader, str(key.value), key.loc, node, top, base, path,
                                 shared_peers, shared_parameters)
            if scenario is not None:
                if isinstance(node, YMap):  # its own rules first: the first match applies
                    scenario.substitutes = _substitutes(reader, node, base)
                scenario.substitutes += shared_substitutes
                scenarios.append(scenario)
    if reader.errors:
        raise TreeError(reader.errors)
    return scenarios


def _parameters(reader: _Reader, node: Optional[YNode]) -> dict[str, Any]:
    """Read executive parameters: known names, values of the parameter's type."""
    from bt_executive.ros.parameters import PARAMETERS
    if node is None:
        return {}
    if not isinstance(node, YMap):
        reader.error(node, f'parameters: expected a mapping of executive parameters, got '
                     f'{node.kind}')
        return {}
    allowed = tuple(name for name in PARAMETERS if name not in ('tree_file', 'tree_name'))
    values = {}
    for key, value in node.entries:
        name = str(key.value)
        if name not in allowed:
            reader.error(key, f"parameters: unknown executive parameter '{name}'"
                         f'{_suggest(name, allowed)} (the scenario names the tree)'
                         if name in PARAMETERS else
                         f"parameters: unknown executive parameter '{name}'"
                         f'{_suggest(name, allowed)}')
            continue
        default, plain = PARAMETERS[name][0], value.plain()
        kind = type(default)
        fits = isinstance(plain, kind) and not (kind is int and isinstance(plain, bool))
        if kind is float and isinstance(plain, int) and not isinstance(plain, bool):
            plain, fits = float(plain), True
        if not fits:
            reader.error(value, f'parameters: {name}: expected {_kind_name(default)}, got '
                         f'{value.kind}')
            continue
        values[name] = plain
    return values


def _kind_name(default: Any) -> str:
    return {bool: 'true or false', int: 'a whole number', float: 'a number',
            str: 'a string', list: 'a list of strings'}.get(type(default), 'a value')


def _scenario(reader: _Reader, name: str, loc: SourceLocation, node: YNode, top: YMap,
              base: str, path: str, shared_peers: list[Peer],
              shared_parameters: dict[str, Any]) -> Optional[Scenario]:
    what = f"scenario '{name}'"
    body = reader.mapping(node, what, _SCENARIO_KEYS, ('duration',))
    if body is None:
        return None
    tree_node = body.get('tree') or top.get('tree')
    if tree_node is None:
        reader.error(body, f"{what}: missing 'tree' (here or at the top of the file)")
        return None
    tree = reader.string(tree_node, 'tree')
    tree_file = os.path.normpath(os.path.join(base, tree)) if tree else ''
    if tree and not os.path.isfile(tree_file):
        reader.error(tree_node, f"tree: no file '{tree_file}'")
    tree_name = reader.string(body.get('tree_name') or top.get('tree_name'), 'tree_name')
    duration = ns(reader.number(body.get('duration'), f'{what}: duration', positive=True))
    own = _peers(reader, body.get('peers'))
    names = {(peer.kind, peer.name) for peer in own}
    peers = [peer for peer in shared_peers if (peer.kind, peer.name) not in names] + own
    parameters = dict(shared_parameters)
    parameters.update(_parameters(reader, body.get('parameters')))
    blackboard_node = body.get('blackboard')
    blackboard: dict[str, Any] = {}
    if blackboard_node is not None:
        if isinstance(blackboard_node, YMap):
            blackboard = blackboard_node.plain()
        else:
            reader.error(blackboard_node, f'{what}: blackboard: expected a mapping of keys to '
                         f'values, got {blackboard_node.kind}')
    expectations = _expectations(reader, body.get('expect'), peers, duration)
    operations = _operations(reader, body.get('operator'), base)
    return Scenario(name=name, file=path, loc=loc, tree_file=tree_file, tree_name=tree_name,
                    duration=duration, parameters=parameters, peers=peers,
                    blackboard=blackboard, expectations=expectations, operations=operations)


def _operations(reader: _Reader, node: Optional[YNode], base: str) -> list[Operation]:
    """Read ``operator: [{at: 30, do: reset}, {at: 40, do: swap, tree: other.yaml}]``."""
    if node is None:
        return []
    if not isinstance(node, YSeq):
        reader.error(node, f'operator: expected a list of actions, got {node.kind}')
        return []
    operations = []
    for item in node:
        body = reader.mapping(item, 'operator', ('at', 'do', 'tree'), ('at', 'do'))
        if body is None:
            continue
        at = ns(reader.number(body.get('at'), 'operator: at'))
        do = reader.string(body.get('do'), 'operator: do')
        if do and do not in OPERATIONS:
            reader.error(body.get('do'), f"operator: unknown action '{do}'"
                         f'{_suggest(do, OPERATIONS)} (expected one of '
                         f"{', '.join(OPERATIONS)})")
            continue
        tree_node = body.get('tree')
        tree = ''
        if (do == 'swap') != (tree_node is not None):
            reader.error(tree_node or body, "operator: 'tree' goes with 'do: swap', and only "
                         'there (the file swapped in)')
        elif tree_node is not None:
            tree = os.path.normpath(os.path.join(base, reader.string(tree_node, 'tree')))
            if not os.path.isfile(tree):
                reader.error(tree_node, f"operator: tree: no file '{tree}'")
        if do:
            operations.append(Operation(at=at, do=do, loc=item.loc, tree=tree))
    return sorted(operations, key=lambda operation: operation.at)


# ---- peers -----------------------------------------------------------------------------

_COMMON_PEER_KEYS = ('type', 'start', 'stop')
_PEER_KEYS = {
    'action': ('action', *_COMMON_PEER_KEYS, 'goals'),
    'service': ('service', *_COMMON_PEER_KEYS, 'calls'),
    'topic_action': ('topic_action', *_COMMON_PEER_KEYS, 'goals', 'status_topic',
                     'cancel_topic', 'stamp_field'),
    'publish': ('publish', 'type', 'qos', 'every', 'messages'),
}
_GOAL_KEYS = ('outcome', 'after', 'match', 'result', 'feedback', 'cancel')
_CALL_KEYS = ('outcome', 'after', 'match', 'response')


def _peers(reader: _Reader, node: Optional[YNode]) -> list[Peer]:
    if node is None:
        return []
    if not isinstance(node, YSeq):
        reader.error(node, f'peers: expected a list of peers, got {node.kind}')
        return []
    peers: list[Peer] = []
    seen: set[tuple[str, str]] = set()
    for item in node:
        peer = _peer(reader, item)
        if peer is None:
            continue
        if (peer.kind, peer.name) in seen:
            reader.error(item, f"peers: a second {peer.kind} peer '{peer.name}'")
            continue
        seen.add((peer.kind, peer.name))
        peers.append(peer)
    return peers


def _peer(reader: _Reader, node: YNode) -> Optional[Peer]:
    if not isinstance(node, YMap):
        reader.error(node, f'peer: expected a mapping with one of {", ".join(_PEER_KINDS)}, '
                     f'got {node.kind}')
        return None
    kinds = [kind for kind in _PEER_KINDS if node.get(kind) is not None]
    if len(kinds) != 1:
        reader.error(node, f'peer: expected exactly one of {", ".join(_PEER_KINDS)} '
                     f'(what it is), got {", ".join(kinds) or "none"}')
        return None
    kind = kinds[0]
    reader.mapping(node, f'{kind} peer', _PEER_KEYS[kind], ('type',))
    name = reader.string(node.get(kind), kind)
    what = f"{kind} peer '{name}'"
    peer = Peer(kind=kind, name=name, loc=node.loc)
    peer.type_string = reader.string(node.get('type'), f'{what}: type')
    if kind == 'publish':
        return _publisher(reader, node, peer, what)
    peer.start = ns(reader.number(node.get('start'), f'{what}: start'))
    stop = node.get('stop')
    if stop is not None:
        peer.stop = ns(reader.number(stop, f'{what}: stop'))
        if peer.stop <= peer.start:
            reader.error(stop, f'{what}: stop: expected a time after start')
    if kind == 'service':
        srv = reader.interface(node.get('type'), f'{what}: type', 'srv')
        response = interfaces.response_class(srv) if srv is not None else None
        peer.sent_class = interfaces.request_class(srv) if srv is not None else None
        peer.scripts = _scripts(reader, node.get('calls'), f'{what}: calls', _CALL_KEYS,
                                CALL_OUTCOMES, 'respond', response, None, peer.sent_class)
        return peer
    if kind == 'action':
        action = reader.interface(node.get('type'), f'{what}: type', 'action')
        classes = (interfaces.result_class(action), interfaces.feedback_class(action)) \
            if action is not None else (None, None)
        peer.sent_class = interfaces.goal_class(action) if action is not None else None
        peer.scripts = _scripts(reader, node.get('goals'), f'{what}: goals', _GOAL_KEYS,
                                GOAL_OUTCOMES, 'succeed', *classes, peer.sent_class)
        return peer
    peer.sent_class = reader.interface(node.get('type'), f'{what}: type', 'msg')
    peer.options = {
        'status_topic': reader.string(node.get('status_topic'), f'{what}: status_topic',
                                      _sibling(name, 'status')),
        'cancel_topic': reader.string(node.get('cancel_topic'), f'{what}: cancel_topic',
                                      _sibling(name, 'cancel')),
        'stamp_field': reader.string(node.get('stamp_field'), f'{what}: stamp_field',
                                     'header.stamp'),
    }
    peer.scripts = _scripts(reader, node.get('goals'), f'{what}: goals',
                            tuple(k for k in _GOAL_KEYS if k not in ('result', 'feedback')),
                            GOAL_OUTCOMES, 'succeed', None, None, peer.sent_class)
    return peer


def _sibling(topic: str, name: str) -> str:
    """Return ``navigate/status`` for ``navigate/goal`` (the sim's protocol)."""
    head, _, _ = topic.rpartition('/')
    return f'{head}/{name}' if head else name


def _publisher(reader: _Reader, node: YMap, peer: Peer, what: str) -> Peer:
    msg_class = reader.interface(node.get('type'), f'{what}: type', 'msg')
    peer.qos = reader.choice(node.get('qos'), f'{what}: qos', QOS_NAMES, 'reliable')
    every = node.get('every')
    if every is not None:
        peer.every = ns(reader.number(every, f'{what}: every', positive=True))
    messages = node.get('messages')
    if not isinstance(messages, YSeq) or not len(messages):
        reader.error(messages or node, f'{what}: messages: expected a list of '
                     '{at: seconds, fields: {...}}')
        return peer
    last = -1
    for item in messages:
        entry = reader.mapping(item, f'{what}: message', ('at', 'fields'), ('at',))
        if entry is None:
            continue
        at = ns(reader.number(entry.get('at'), f'{what}: message: at'))
        if at <= last:
            reader.error(entry, f'{what}: message: at: expected times in increasing order')
        last = at
        fields = reader.fields(entry.get('fields'), f'{what}: message: fields')
        reader.check_message(entry.get('fields'), msg_class, 'fields', fields)
        peer.messages.append((at, fields))
    return peer


def _scripts(reader: _Reader, node: Optional[YNode], what: str, keys: tuple[str, ...],
             outcomes: tuple[str, ...], default: str, result_class: Optional[type],
             feedback_class: Optional[type], sent_class: Optional[type]) -> list[GoalScript]:
    if node is None:
        return [GoalScript(loc=SourceLocation(''), outcome=default)]
    if not isinstance(node, YSeq) or not len(node):
        reader.error(node, f'{what}: expected a list of scripts, one per goal or call')
        return [GoalScript(loc=node.loc, outcome=default)]
    scripts = []
    for item in node:
        entry = reader.mapping(item, what, keys)
        if entry is None:
            continue
        script = GoalScript(loc=entry.loc, outcome=reader.choice(
            entry.get('outcome'), f'{what}: outcome', outcomes, default))
        script.after = ns(reader.number(entry.get('after'), f'{what}: after'))
        match = entry.get('match')
        if match is not None:
            script.match = reader.fields(match, f'{what}: match')
            reader.check_paths(match, sent_class, 'match', script.match)
        key = 'response' if 'response' in keys else 'result'
        script.result = reader.fields(entry.get(key), f'{what}: {key}')
        reader.check_message(entry.get(key), result_class, key, script.result)
        if 'cancel' in keys:
            script.cancel = reader.choice(entry.get('cancel'), f'{what}: cancel',
                                          CANCEL_ANSWERS, 'accept')
        feedback = entry.get('feedback')
        if feedback is not None:
            if not isinstance(feedback, YSeq):
                reader.error(feedback, f'{what}: feedback: expected a list of '
                             '{after: seconds, fields: {...}}')
            else:
                for one in feedback:
                    fb = reader.mapping(one, f'{what}: feedback', ('after', 'fields'))
                    if fb is None:
                        continue
                    data = reader.fields(fb.get('fields'), f'{what}: feedback: fields')
                    reader.check_message(fb.get('fields'), feedback_class, 'fields', data)
                    script.feedback.append((ns(reader.number(
                        fb.get('after'), f'{what}: feedback: after')), data))
        scripts.append(script)
    return scripts


# ---- substitutions -----------------------------------------------------------------------

_SUBSTITUTE_KEYS = ('status', 'after', 'after_ticks', 'times')
#: BT.CPP 4.x TestNodeConfig fields that have no counterpart here (a result only).
_BTCPP_UNSUPPORTED = ('post_script', 'success_script', 'failure_script', 'complete_func')
_BTCPP_CONFIG_KEYS = ('return_status', 'async_delay', *_BTCPP_UNSUPPORTED)


def _substitutes(reader: _Reader, body: YMap, base: str) -> list[Substitute]:
    """Read ``substitute`` (rules written here), then ``substitute_file`` (BT.CPP JSON)."""
    rules = _substitute_rules(reader, body.get('substitute'))
    file_node = body.get('substitute_file')
    name = reader.string(file_node, 'substitute_file') if file_node is not None else ''
    if name and file_node is not None:
        target = os.path.normpath(os.path.join(base, name))
        if not os.path.isfile(target):
            reader.error(file_node, f"substitute_file: no file '{target}'")
        else:
            try:
                rules += load_substitution_file(target)
            except TreeError as error:
                reader.errors += error.diagnostics
    return rules


def _substitute_rules(reader: _Reader, node: Optional[YNode]) -> list[Substitute]:
    if node is None:
        return []
    if not isinstance(node, YMap) or not len(node):
        reader.error(node, 'substitute: expected a mapping of node path patterns to results '
                     '(SUCCESS, FAILURE, RUNNING or {status: ..., after: ..., times: ...})')
        return []
    rules = []
    for key, value in node.entries:
        pattern = str(key.value)
        what = f"substitute '{pattern}'"
        if isinstance(value, YScalar):
            status = reader.choice(value, what, SUBSTITUTE_STATUSES, '')
            if status:
                rules.append(Substitute(key.loc, pattern, status))
            continue
        entry = reader.mapping(value, what, _SUBSTITUTE_KEYS, ('status',))
        if entry is None:
            continue
        status = reader.choice(entry.get('status'), f'{what}: status', SUBSTITUTE_STATUSES,
                               '')
        rule = Substitute(key.loc, pattern, status)
        if entry.get('after') is not None:
            rule.after = ns(reader.number(entry.get('after'), f'{what}: after',
                                          positive=True))
        rule.after_ticks = _whole(reader, entry.get('after_ticks'), f'{what}: after_ticks')
        rule.times = _whole(reader, entry.get('times'), f'{what}: times')
        if rule.after is not None and rule.after_ticks is not None:
            reader.error(entry, f"{what}: at most one of 'after' (seconds) and "
                         "'after_ticks'")
        elif status == 'RUNNING' and (rule.after is not None or rule.after_ticks is not None):
            reader.error(entry, f'{what}: a RUNNING result has no delay; after and '
                         'after_ticks go with SUCCESS or FAILURE')
        if status:
            rules.append(rule)
    return rules


def _whole(reader: _Reader, node: Optional[YNode], what: str) -> Optional[int]:
    """Read a whole number from 1 (None when absent or wrong: the error is noted)."""
    if node is None:
        return None
    value = node.plain() if isinstance(node, YScalar) else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        reader.error(node, f'{what}: expected a whole number from 1, got '
                     f'{node.kind if value is None else repr(value)}')
        return None
    return value


def load_substitution_file(path: str) -> list[Substitute]:
    """Read a BT.CPP 4.x JSON substitution file into rules (docs/testing.md has the mapping).

    ``SubstitutionRules`` maps a node path pattern to a ``TestNodeConfigs`` entry, whose
    ``return_status`` and ``async_delay`` (milliseconds) become a rule's status and delay.
    A rule naming another node type, and the scripts of a test node, have no counterpart
    here (a substitution gives a result only): each is an error that says so.

    Raises:
        TreeError: with every problem found (``file:line:col: what was expected``).
    """
    root = load_file(path)
    if root is None:
        raise TreeError.single(SourceLocation(path), 'empty substitution file: expected '
                               '{"TestNodeConfigs": {...}, "SubstitutionRules": {...}}')
    reader = _Reader()
    top = reader.mapping(root, 'substitution file', ('TestNodeConfigs', 'SubstitutionRules'),
                         ('SubstitutionRules',))
    if top is None:
        raise TreeError(reader.errors)
    configs: dict[str, tuple[str, Optional[int]]] = {}
    for key, value in _entries(reader, top.get('TestNodeConfigs'), 'TestNodeConfigs',
                               'names to test node configs'):
        configs[str(key.value)] = _btcpp_config(reader, f"TestNodeConfigs '{key.value}'",
                                                value)
    rules: list[Substitute] = []
    for key, value in _entries(reader, top.get('SubstitutionRules'), 'SubstitutionRules',
                               'node path patterns to TestNodeConfigs names'):
        pattern = str(key.value)
        what = f"SubstitutionRules '{pattern}'"
        target = reader.string(value, what)
        if not target:
            continue
        if target not in configs:
            reader.error(value, f"{what}: '{target}' is not a TestNodeConfigs entry"
                         f'{_suggest(target, tuple(configs))}; substituting a node by '
                         'another node type is not supported (a substitution here gives '
                         f'a result only); TestNodeConfigs: {", ".join(configs) or "none"}')
            continue
        status, milliseconds = configs[target]
        rules.append(Substitute(
            key.loc, pattern, status,
            after=None if milliseconds is None else milliseconds * 1_000_000,
            source=f"{os.path.basename(path)}: SubstitutionRules '{pattern}'"))
    if reader.errors:
        raise TreeError(reader.errors)
    return rules


def _entries(reader: _Reader, node: Optional[YNode], what: str,
             expected: str) -> list[tuple[YScalar, YNode]]:
    """Return a mapping's entries ([] when absent; [] and an error when no mapping)."""
    if node is None:
        return []
    if not isinstance(node, YMap):
        reader.error(node, f'{what}: expected a mapping of {expected}, got {node.kind}')
        return []
    return list(node.entries)


def _btcpp_config(reader: _Reader, what: str, node: YNode) -> tuple[str, Optional[int]]:
    """Return a BT.CPP test node config as (status, delay in ms or None)."""
    entry = reader.mapping(node, what, _BTCPP_CONFIG_KEYS)
    if entry is None:
        return 'SUCCESS', None
    for name in _BTCPP_UNSUPPORTED:
        if entry.get(name) is not None:
            reader.error(entry.get(name), f'{what}: {name} is not supported: a substitution '
                         'here gives the node a result and runs no script (set blackboard '
                         "values with the scenario's 'blackboard')")
    status = reader.choice(entry.get('return_status'), f'{what}: return_status',
                           SUBSTITUTE_STATUSES, 'SUCCESS')
    delay = entry.get('async_delay')
    if delay is None:
        return status, None
    plain = delay.plain() if isinstance(delay, YScalar) else None
    if isinstance(plain, bool) or not isinstance(plain, int) or plain < 0:
        reader.error(delay, f'{what}: async_delay: expected whole milliseconds from 0, got '
                     f'{delay.kind if plain is None else repr(plain)}')
        return status, None
    if status == 'RUNNING' and plain:
        reader.error(delay, f'{what}: a RUNNING result has no delay; async_delay goes with '
                     'SUCCESS or FAILURE')
    return status, plain or None


# ---- expectations ------------------------------------------------------------------------

_WHEN_KEYS = ('at', 'by', 'during')
_KINDS = {
    'status': ('status',),
    'blackboard': ('blackboard',),
    'goal': ('goal', 'index', 'fields', 'cancelled', 'count'),
    'call': ('call', 'index', 'fields', 'count'),
    'published': ('published', 'index', 'fields', 'count'),
}


def _expectations(reader: _Reader, node: Optional[YNode], peers: list[Peer],
                  duration: int) -> list[Expectation]:
    if node is None:
        return []
    if not isinstance(node, YSeq):
        reader.error(node, f'expect: expected a list of expectations, got {node.kind}')
        return []
    return [e for e in (_expectation(reader, item, peers, duration) for item in node)
            if e is not None]


def _expectation(reader: _Reader, node: YNode, peers: list[Peer],
                 duration: int) -> Optional[Expectation]:
    if not isinstance(node, YMap):
        reader.error(node, f'expectation: expected a mapping with one of '
                     f'{", ".join(_KINDS)}, got {node.kind}')
        return None
    kinds = [kind for kind in _KINDS if node.get(kind) is not None]
    if len(kinds) != 1:
        reader.error(node, f'expectation: expected exactly one of {", ".join(_KINDS)}, '
                     f'got {", ".join(kinds) or "none"}')
        return None
    kind = kinds[0]
    reader.mapping(node, f'{kind} expectation', (*_KINDS[kind], *_WHEN_KEYS))
    expectation = Expectation(kind=kind, loc=node.loc, when=_when(reader, node, duration))
    expectation.text = _render(node)
    body = node.get(kind)
    if kind in ('status', 'blackboard'):
        if not isinstance(body, YMap) or not len(body):
            reader.error(body, f'{kind}: expected a mapping of '
                         f'{"node paths to statuses" if kind == "status" else "keys to values"}')
            return None
        for key, value in body.entries:
            expectation.value_locs[str(key.value)] = key.loc
            if kind == 'status':
                expectation.values[str(key.value)] = reader.choice(
                    value, f'status of {key.value}', STATUSES, 'INVALID')
            else:
                expectation.values[str(key.value)] = value.plain()
        return expectation
    expectation.name = reader.string(body, kind)
    wanted = {'goal': ('action', 'topic_action'), 'call': ('service',)}.get(kind)
    named = [p for p in peers if wanted is not None and p.kind in wanted
             and p.name == expectation.name]
    if wanted is not None and not named:
        names = tuple(p.name for p in peers if p.kind in wanted)
        reader.error(body, f"{kind}: no {' or '.join(wanted)} peer '{expectation.name}'"
                     f'{_suggest(expectation.name, names)}; declared: '
                     f'{", ".join(names) or "none"}')
    index = node.get('index')
    if index is not None:
        value = index.plain() if isinstance(index, YScalar) else None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            reader.error(index, f'index: expected a whole number from 0 (the first), got '
                         f'{index.kind}')
        else:
            expectation.index = value
    if node.get('fields') is not None:
        expectation.fields = reader.fields(node.get('fields'), 'fields')
        if named:  # published: checked once the tree's publishers exist (Checker)
            reader.check_paths(node.get('fields'), named[0].sent_class, 'fields',
                               expectation.fields)
    cancelled = node.get('cancelled')
    if cancelled is not None:
        if not isinstance(cancelled, YScalar) or not isinstance(cancelled.value, bool):
            reader.error(cancelled, f'cancelled: expected true or false, got {cancelled.kind}')
        else:
            expectation.cancelled = cancelled.value
    count = node.get('count')
    if count is not None:
        expectation.count = _count(reader, count)
        if expectation.index is not None:
            reader.error(count, "count: not together with 'index' (count the matches, or "
                         'check one of them)')
    return expectation


def _count(reader: _Reader, node: YNode) -> Optional[tuple[int, Optional[int]]]:
    def whole(item: Optional[YNode]) -> Optional[int]:
        value = item.plain() if isinstance(item, YScalar) else None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            reader.error(item or node, 'count: expected a whole number from 0, or '
                         '{min: N, max: M}')
            return None
        return value
    if isinstance(node, YMap):
        reader.mapping(node, 'count', ('min', 'max'))
        low = whole(node.get('min')) if node.get('min') is not None else 0
        high = whole(node.get('max')) if node.get('max') is not None else None
        return (low or 0, high)
    exact = whole(node)
    return None if exact is None else (exact, exact)


def _when(reader: _Reader, node: YMap, duration: int) -> tuple[Any, ...]:
    given = [key for key in _WHEN_KEYS if node.get(key) is not None]
    if len(given) > 1:
        reader.error(node, f'expectation: at most one of at, by, during; got '
                     f'{", ".join(given)}')
    if not given:
        return ('end',)
    key = given[0]
    value = node.get(key)
    limit = seconds(duration)
    if key == 'during':
        if not isinstance(value, YSeq) or len(value) != 2:
            reader.error(value, 'during: expected [from, until] in seconds')
            return ('end',)
        low = ns(reader.number(value.items[0], 'during: from', high=limit))
        high = ns(reader.number(value.items[1], 'during: until', high=limit))
        if high < low:
            reader.error(value, 'during: expected from <= until')
        return ('during', low, high)
    return (key, ns(reader.number(value, key, high=limit)))


def _render(node: YMap) -> str:
    """Return an expectation as one line of flow YAML, for messages."""
    parts = []
    for key, value in node.entries:
        parts.append(f'{key.value}: {_flow(value.plain())}')
    return '{' + ', '.join(parts) + '}'


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return '{' + ', '.join(f'{k}: {_flow(v)}' for k, v in value.items()) + '}'
    if isinstance(value, list):
        return '[' + ', '.join(_flow(v) for v in value) + ']'
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


__all__ = ['CALL_OUTCOMES', 'Expectation', 'GOAL_OUTCOMES', 'GoalScript', 'Peer',
           'STATUSES', 'SUBSTITUTE_STATUSES', 'Scenario', 'Substitute', 'load_scenarios',
           'load_substitution_file', 'ns', 'seconds']
