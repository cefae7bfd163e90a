# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""BT.CPP v4 values and node mapping: port strings, and our node types as BT.CPP built-ins.

A port value is a string; :func:`encode_value` and :func:`decode_value` translate our
typed values (with blackboard references and expressions) to and from it. The mapping
table (:data:`MAPPINGS`, rendered in ``docs/btcpp.md``) says which of our node types
become which BT.CPP built-in: :func:`_forward` and :func:`_reverse` implement it, and
:func:`builtin_form` keeps only the mappings that read back to the same node.

No ROS imports here: this is the core layer.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Mapping, Optional, Union

from bt_executive.core.registry import NodeType, ParamType, Registry
from bt_executive.core.spec import Dynamic, NodeSpec, Value

#: The XML format version written and accepted (``<root BTCPP_format="4">``).
BTCPP_FORMAT = '4'
#: Prefix of the comment that carries what XML has no place for.
META_TAG = 'bt_executive'
#: Version of the comment's JSON content.
META_VERSION = 1
#: Prefix of our own node IDs whose name is taken by a BT.CPP built-in.
OWN_PREFIX = 'bte_'
#: Attribute naming our node type on a built-in element when it is not the default one.
TYPE_MARKER = '_bte_type'
#: Prefix of attributes carrying parameters a built-in expresses by its ID only.
PARAM_MARKER = '_bte_'
#: SubTree attribute naming the arguments that are the called tree's defaults.
DEFAULTS_MARKER = '_bte_defaults'

#: Node IDs BehaviorTree.CPP 4.8 registers itself (its factory's built-in models, as sent
#: to Groot2 by ``behaviortreepy`` 0.1.4, plus ``SubTree``). Our own types never use these.
BTCPP_BUILTINS = frozenset((
    'AlwaysFailure', 'AlwaysSuccess', 'AsyncFallback', 'AsyncSequence', 'Delay', 'Fallback',
    'ForceFailure', 'ForceSuccess', 'IfThenElse', 'Inverter', 'KeepRunningUntilFailure',
    'LoopBool', 'LoopDouble', 'LoopInt', 'LoopString', 'Parallel', 'ParallelAll',
    'Precondition', 'ReactiveFallback', 'ReactiveSequence', 'Repeat', 'RetryUntilSuccessful',
    'RunOnce', 'Script', 'ScriptCondition', 'Sequence', 'SequenceWithMemory', 'SetBlackboard',
    'SkipUnlessUpdated', 'Sleep', 'SubTree', 'Switch2', 'Switch3', 'Switch4', 'Switch5',
    'Switch6', 'Timeout', 'UnsetBlackboard', 'WaitValueUpdate', 'WasEntryUpdated',
    'WhileDoElse'))

#: Element names of BT.CPP's explicit form ``<Action ID="X"/>`` (read, never written).
GENERIC_TAGS = ('Action', 'Condition', 'Control', 'Decorator')
#: Names our own node IDs may not take: BT.CPP's built-ins and its XML element names.
RESERVED_IDS = BTCPP_BUILTINS | frozenset(GENERIC_TAGS) | frozenset((
    'BehaviorTree', 'TreeNodesModel', 'root', 'include'))

#: Our leaves that never return RUNNING: declared as ``Condition`` in the models.
CONDITION_LEAVES = frozenset(('Condition', 'TopicCondition', 'BlackboardExists'))

_REFERENCE = re.compile(r'\$[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*\Z')
IDENTIFIER = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')
_INT = re.compile(r'[-+]?\d+\Z')
_FLOAT = re.compile(r'[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?\Z')
XML_INVALID = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_MISSING = object()


# ---- values <-> port strings -----------------------------------------------------------------
#
# A port value is a string. Ours are typed data that may hold blackboard references and
# expressions. The encoding (docs/btcpp.md, "Values"):
#   literal scalar        as text: 0.25, 3, true, cmd_vel ($ doubled: $$5 is the string $5)
#   $key reference        a BT.CPP blackboard pointer: {key}, {dock.x}
#   ${expr} expression    the text as written: ${battery.percentage * 100}
#   expression parameter  the expression text as written (Condition expr, ...)
#   list / mapping / null json: followed by JSON of the value written as in YAML
#   anything ambiguous    json: too (e.g. the string "42" for an untyped parameter)


def yamlish(data: Any) -> Any:
    """Return a parameter value as it is written in YAML (references and ``$$`` as text)."""
    if isinstance(data, Dynamic):
        return data.text
    if isinstance(data, str):
        return '$' + data if data.startswith('$') else data
    if isinstance(data, dict):
        return {key: yamlish(item) for key, item in data.items()}
    if isinstance(data, list):
        return [yamlish(item) for item in data]
    return data


def canonical(data: Any) -> Any:
    """Return a comparable form of YAML-level data: 1 and 1.0 match, 1 and true do not."""
    if isinstance(data, bool):
        return ('bool', data)
    if isinstance(data, (int, float)):
        return ('number', data)
    if isinstance(data, str):
        return ('str', data)
    if data is None:
        return ('null',)
    if isinstance(data, dict):
        return ('map', tuple((canonical(key), canonical(item)) for key, item in data.items()))
    if isinstance(data, list):
        return ('list', tuple(canonical(item) for item in data))
    return ('other', repr(data))


def _json(data: Any) -> str:
    """Return ``json:`` and the JSON of YAML-level data (ASCII when XML needs it)."""
    text = json.dumps(data, ensure_ascii=False, separators=(', ', ': '))
    if XML_INVALID.search(text):
        text = json.dumps(data, ensure_ascii=True, separators=(', ', ': '))
    return 'json:' + text


def _check_keys(data: Any) -> Optional[str]:
    """Return a problem if a mapping in ``data`` has a key JSON cannot keep, else None."""
    if isinstance(data, dict):
        for key, item in data.items():
            if not isinstance(key, str):
                return f'mapping key {key!r} is not a string'
            problem = _check_keys(item)
            if problem:
                return problem
    elif isinstance(data, list):
        for item in data:
            problem = _check_keys(item)
            if problem:
                return problem
    return None


def encode_value(data: Any, kind: ParamType = ParamType.ANY) -> str:
    """Encode a parameter value (which may hold :class:`Dynamic` parts) as a port string.

    Raises:
        ValueError: if the value cannot be written (a mapping key that is not a string).
    """
    if kind is ParamType.EXPRESSION:
        return data.text if isinstance(data, Dynamic) else str(data)
    if isinstance(data, Dynamic):
        if _REFERENCE.match(data.text):
            return '{' + data.text[1:] + '}'
        return data.text
    written = yamlish(data)
    problem = _check_keys(written)
    if problem:
        raise ValueError(problem)
    if isinstance(data, (dict, list)) or data is None:
        return _json(written)
    if isinstance(data, bool):
        raw = 'true' if data else 'false'
    elif isinstance(data, float):
        raw = repr(data)
    else:
        raw = str(written)
    try:
        same = canonical(decode_value(raw, kind)) == canonical(written)
    except ValueError:
        same = False
    if same and not XML_INVALID.search(raw):
        return raw
    return _json(written)


def decode_value(text: str, kind: ParamType = ParamType.ANY, port: str = '') -> Any:
    """Decode a port string into the value as written in YAML (see :func:`encode_value`).

    Raises:
        ValueError: with what was expected, for text that cannot be decoded.
    """
    if kind is ParamType.EXPRESSION:
        return text
    if text.startswith('json:'):
        try:
            return json.loads(text[5:])
        except ValueError as error:
            raise ValueError(f'bad JSON after json: ({error})') from None
    stripped = text.strip()
    if stripped.startswith('{') and stripped.endswith('}'):
        inner = stripped[1:-1].strip()
        if inner == '=' and port:
            inner = port
        if not _REFERENCE.match('$' + inner):
            raise ValueError(f"blackboard pointer '{text}' must name a key like {{battery}} "
                             'or {dock.x}')
        return '$' + inner
    if text.startswith('$'):
        return text
    if kind is ParamType.BOOL:
        lowered = stripped.lower()
        if lowered in ('true', '1'):
            return True
        if lowered in ('false', '0'):
            return False
        raise ValueError(f"expected true or false, got '{text}'")
    if kind is ParamType.INT:
        if _INT.match(stripped):
            return int(stripped)
        raise ValueError(f"expected an integer, got '{text}'")
    if kind is ParamType.FLOAT:
        if _INT.match(stripped):
            return int(stripped)
        if _FLOAT.match(stripped):
            return float(stripped)
        raise ValueError(f"expected a number, got '{text}'")
    if kind is ParamType.ANY:
        if text in ('true', 'false'):
            return text == 'true'
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text):
            return float(text)
    return text


def _milliseconds(value: Optional[Value]) -> Optional[int]:
    """Return whole milliseconds for a static number of seconds that converts exactly."""
    if value is None or not value.is_static:
        return None
    seconds = value.data
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        return None
    try:
        millis = round(seconds * 1000)
    except (OverflowError, ValueError):
        return None
    return millis if millis / 1000 == seconds and millis < 2 ** 32 else None


def _seconds(millis: int) -> Union[int, float]:
    """Return seconds for milliseconds: an int when whole."""
    return millis // 1000 if millis % 1000 == 0 else millis / 1000


# ---- the mapping to BT.CPP built-ins ---------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class MappingRule:
    """One row of the mapping table: our node type and the BT.CPP built-in it becomes.

    Attributes:
        ours: our node type (canonical name)
        btcpp: the BT.CPP node ID
        when: the condition on our parameters (empty: always)
        ports: how the parameters become BT.CPP ports
        note: why the semantics match, or the difference that remains
    """

    ours: str
    btcpp: str
    when: str
    ports: str
    note: str


#: The mapping table, also rendered in docs/btcpp.md (a test keeps them in sync).
MAPPINGS = (
    MappingRule('Sequence', 'Sequence', 'memory: true (default)', '',
                'BT.CPP Sequence resumes a RUNNING child and restarts after a FAILURE, like '
                'py_trees Sequence(memory=True). SequenceWithMemory does not restart after a '
                'FAILURE, so it has no equivalent.'),
    MappingRule('Sequence', 'ReactiveSequence', 'memory: false', '',
                'Same as our ReactiveSequence; `_bte_type` and `_bte_memory` keep the spelling.'),
    MappingRule('ReactiveSequence', 'ReactiveSequence', '', '',
                'py_trees Sequence(memory=False): every child re-checked each tick, a later '
                'RUNNING child halted when an earlier one runs or fails.'),
    MappingRule('Selector', 'ReactiveFallback', 'memory: false (default)', '',
                'py_trees Selector(memory=False): higher priorities re-checked each tick, the '
                'running lower one halted when a higher one runs or succeeds.'),
    MappingRule('Selector', 'Fallback', 'memory: true', '',
                'BT.CPP Fallback resumes a RUNNING child without re-checking earlier ones.'),
    MappingRule('ActiveSelector', 'ReactiveFallback', '', '',
                'ActiveSelector is Selector(memory=False); `_bte_type` keeps the name.'),
    MappingRule('Parallel', 'Parallel',
                'success: all, failure: one, synchronise: true (defaults)',
                'success_count="-1" failure_count="1"',
                'All must succeed, the first failure fails; finished children are not ticked '
                'again. BT.CPP stops ticking the remaining children in the tick it decides, '
                'py_trees ticks them all first. success: one with failure: one is not '
                'mapped: when one child succeeds and another fails in the same tick, '
                'py_trees fails and BT.CPP decides by child order. success: all with '
                'failure: all is not mapped: BT.CPP fails as soon as success is out of '
                'reach, ours waits for the children still running.'),
    MappingRule('Parallel', 'Parallel', 'success: one, failure: all',
                'success_count="1" failure_count="-1"',
                'The first child to succeed wins at once (the children after it are not '
                'ticked, the running ones are halted); a failed child is out and the others '
                'go on; FAILURE when every child failed.'),
    MappingRule('IfThenElse', 'IfThenElse', '', '',
                'Condition checked once at the start; no else-branch and false: FAILURE.'),
    MappingRule('Inverter', 'Inverter', '', '', ''),
    MappingRule('ForceSuccess', 'ForceSuccess', '', '', ''),
    MappingRule('ForceFailure', 'ForceFailure', '', '', ''),
    MappingRule('SuccessIsRunning', 'KeepRunningUntilFailure', '', '',
                'SUCCESS becomes RUNNING (the child restarts), FAILURE fails.'),
    MappingRule('Repeat', 'Repeat', '', 'times -> num_cycles',
                'BT.CPP may run several cycles within one tick, py_trees one per tick.'),
    MappingRule('Retry', 'RetryUntilSuccessful', '', 'attempts -> num_attempts',
                'BT.CPP may retry within one tick, py_trees retries on the next tick.'),
    MappingRule('Timeout', 'Timeout', 'seconds: a literal, whole milliseconds',
                'seconds -> msec', 'Ours runs on the node clock (sim time), BT.CPP on the '
                'steady clock.'),
    MappingRule('Delay', 'Delay', 'seconds: a literal, whole milliseconds',
                'seconds -> delay_msec', 'As Timeout.'),
    MappingRule('Wait', 'Sleep', 'seconds: a literal, whole milliseconds', 'seconds -> msec',
                'As Timeout.'),
    MappingRule('OneShot', 'RunOnce', 'on: completion (default)', 'then_skip="false"',
                'After the first run the stored result is returned; then_skip="true" returns '
                'SKIPPED, which py_trees has no status for. on: success has no equivalent.'),
    MappingRule('Success', 'AlwaysSuccess', '', '', ''),
    MappingRule('Failure', 'AlwaysFailure', '', '', ''),
    MappingRule('SetBlackboard', 'SetBlackboard',
                'key without dots, value a literal number, string or bool, no `overwrite`',
                'key -> output_key, value -> value',
                'BT.CPP stores the text and converts it when a port reads it (so do '
                '`Blackboard::get<int>` and `<double>`, not `get<bool>`). References (BT.CPP '
                '4.8 fails copying `{key}`), expressions, structures, nested keys and '
                '`overwrite` keep our node.'),
    MappingRule('UnsetBlackboard', 'UnsetBlackboard', 'key without dots', 'key -> key', ''),
    MappingRule('Subtree', 'SubTree', '', 'arguments -> ports, `_autoremap="true"`',
                'Our subtrees read and write the one global blackboard; `_autoremap` gives '
                'BT.CPP the same view. Tree parameters are SubTree ports with their defaults '
                'in TreeNodesModel; BT.CPP 4.8 ignores those under `_autoremap`, so defaults '
                'are also written in the call and listed in `_bte_defaults`.'),
)

#: Types that have a BT.CPP counterpart we deliberately do not use, and why.
NOT_MAPPED = {
    'Condition': 'BT.CPP ScriptCondition speaks another expression language (no field '
                 'access, no functions), so Condition keeps its own ID and expression text.',
    'While': 'BT.CPP WhileDoElse is a reactive if-then-else that returns the branch result; '
             'our While loops the body while the condition holds.',
    'UntilSuccess': 'exported as our own node; imported from RetryUntilSuccessful '
                    'num_attempts="-1".',
}


def mapping_table() -> str:
    """Return the mapping table as markdown (it is part of docs/btcpp.md)."""
    lines = ['| our node | when | BT.CPP node | ports | notes |', '|---|---|---|---|---|']
    for row in MAPPINGS:
        cells = (f'`{row.ours}`', row.when or 'always', f'`{row.btcpp}`', row.ports or '—',
                 row.note or 'same semantics')
        lines.append('| ' + ' | '.join(cell.replace('|', '\\|') for cell in cells) + ' |')
    return '\n'.join(lines) + '\n'


def _static(spec: NodeSpec, name: str, default: Any) -> Any:
    """Return a static parameter value, ``default`` if absent, _MISSING if dynamic."""
    value = spec.params.get(name)
    if value is None:
        return default
    return value.data if value.is_static else _MISSING


def _forward(spec: NodeSpec) -> Optional[tuple[str, dict[str, str]]]:
    """Return the BT.CPP built-in ID and ports for a node, or None to keep our own ID."""
    kind = spec.type
    if kind == 'Sequence':
        memory = _static(spec, 'memory', True)
        if memory is _MISSING:
            return None
        return ('Sequence' if memory else 'ReactiveSequence'), {}
    if kind == 'Selector':
        memory = _static(spec, 'memory', False)
        if memory is _MISSING:
            return None
        return ('Fallback' if memory else 'ReactiveFallback'), {}
    if kind == 'Parallel':
        success, failure = _static(spec, 'success', 'all'), _static(spec, 'failure', 'one')
        if success == 'all' and failure == 'one' \
                and _static(spec, 'synchronise', True) is True:
            return 'Parallel', {'success_count': '-1', 'failure_count': '1'}
        if success == 'one' and failure == 'all':
            return 'Parallel', {'success_count': '1', 'failure_count': '-1'}
        return None
    simple = {'ReactiveSequence': 'ReactiveSequence', 'ActiveSelector': 'ReactiveFallback',
              'IfThenElse': 'IfThenElse', 'Inverter': 'Inverter',
              'ForceSuccess': 'ForceSuccess', 'ForceFailure': 'ForceFailure',
              'SuccessIsRunning': 'KeepRunningUntilFailure', 'Success': 'AlwaysSuccess',
              'Failure': 'AlwaysFailure'}
    if kind in simple:
        return simple[kind], {}
    if kind in ('Repeat', 'Retry'):
        param, port, bt_id = (('times', 'num_cycles', 'Repeat') if kind == 'Repeat'
                              else ('attempts', 'num_attempts', 'RetryUntilSuccessful'))
        value = spec.params.get(param)
        if value is None:
            return None
        return bt_id, {port: encode_value(value.data, ParamType.INT)}
    if kind in ('Timeout', 'Delay', 'Wait'):
        millis = _milliseconds(spec.params.get('seconds'))
        if millis is None:
            return None
        bt_id, port = {'Timeout': ('Timeout', 'msec'), 'Delay': ('Delay', 'delay_msec'),
                       'Wait': ('Sleep', 'msec')}[kind]
        return bt_id, {port: str(millis)}
    if kind == 'OneShot':
        if _static(spec, 'on', 'completion') != 'completion':
            return None
        return 'RunOnce', {'then_skip': 'false'}
    if kind == 'SetBlackboard':
        key, value = spec.params.get('key'), spec.params.get('value')
        if set(spec.params) != {'key', 'value'} or not key.is_static \
                or not IDENTIFIER.match(key.data):
            return None
        data = value.data
        if isinstance(data, (Dynamic, dict, list)) or data is None:
            return None  # BT.CPP 4.8 fails copying {key} entries; the rest is not text
        encoded = encode_value(data, ParamType.ANY)
        if encoded.startswith(('json:', '$')):
            return None  # BT.CPP would store the encoding itself ($$ is our escape)
        return 'SetBlackboard', {'output_key': key.data, 'value': encoded}
    if kind == 'UnsetBlackboard':
        key = spec.params.get('key')
        if key is None or not key.is_static or not IDENTIFIER.match(key.data):
            return None
        return 'UnsetBlackboard', {'key': key.data}
    return None


class Unsupported(ValueError):
    """A BT.CPP element we read but cannot express."""


#: BT.CPP built-ins the importer understands, with their ports.
BUILTIN_PORTS = {
    'Sequence': (), 'ReactiveSequence': (), 'Fallback': (), 'ReactiveFallback': (),
    'Parallel': ('success_count', 'failure_count'), 'IfThenElse': (), 'Inverter': (),
    'ForceSuccess': (), 'ForceFailure': (), 'KeepRunningUntilFailure': (),
    'Repeat': ('num_cycles',), 'RetryUntilSuccessful': ('num_attempts',),
    'Timeout': ('msec',), 'Delay': ('delay_msec',), 'Sleep': ('msec',),
    'RunOnce': ('then_skip',), 'AlwaysSuccess': (), 'AlwaysFailure': (),
    'SetBlackboard': ('output_key', 'value'), 'UnsetBlackboard': ('key',),
}

#: Why the BT.CPP built-ins we do not import have no equivalent.
_UNSUPPORTED = {
    'SequenceWithMemory': 'it keeps its place after a FAILURE; no bt_executive node does',
    'WhileDoElse': 'it is a reactive if-then-else; bt_executive has IfThenElse (checked '
                   'once) and While (a loop)',
    'Script': 'BT.CPP scripts are not bt_executive expressions; use SetBlackboard with '
              '${...}',
    'ScriptCondition': 'BT.CPP scripts are not bt_executive expressions; use Condition',
    'Precondition': 'BT.CPP scripts are not bt_executive expressions; use IfThenElse with '
                    'a Condition',
    'ParallelAll': 'use Marathon',
    'AsyncSequence': 'use Sequence', 'AsyncFallback': 'use Selector with memory: true',
}


def _reverse(bt_id: str, ports: Mapping[str, str], children: int) -> tuple[str, dict]:
    """Map a BT.CPP built-in with its ports to our type and YAML-level parameters.

    Raises:
        Unsupported: when the built-in or these port values have no equivalent.
    """
    if bt_id in ('Sequence', 'ReactiveSequence', 'IfThenElse', 'Inverter', 'ForceSuccess',
                 'ForceFailure'):
        return bt_id, {}
    if bt_id == 'Fallback':
        return 'Selector', {'memory': True}
    if bt_id == 'ReactiveFallback':
        return 'Selector', {}
    if bt_id == 'KeepRunningUntilFailure':
        return 'SuccessIsRunning', {}
    if bt_id in ('AlwaysSuccess', 'AlwaysFailure'):
        return bt_id[6:], {}
    if bt_id == 'Parallel':
        success = decode_value(ports.get('success_count', '-1'), ParamType.INT)
        failure = decode_value(ports.get('failure_count', '1'), ParamType.INT)
        if success in (-1, children) and failure == 1:
            return 'Parallel', {}
        if success == 1 and failure in (-1, children):
            return 'Parallel', {'success': 'one', 'failure': 'all'}
        raise Unsupported(f'Parallel with success_count={success} failure_count={failure} '
                          'has no equivalent (supported: success_count -1 or the number '
                          'of children with failure_count 1, and success_count 1 with '
                          'failure_count -1 or the number of children)')
    if bt_id in ('Repeat', 'RetryUntilSuccessful'):
        port = 'num_cycles' if bt_id == 'Repeat' else 'num_attempts'
        if port not in ports:
            raise Unsupported(f"{bt_id} needs the port '{port}'")
        value = decode_value(ports[port], ParamType.INT, port)
        if value == -1:
            return ('SuccessIsRunning' if bt_id == 'Repeat' else 'UntilSuccess'), {}
        if bt_id == 'Repeat':
            return 'Repeat', {'times': value}
        return 'Retry', {'attempts': value}
    if bt_id in ('Timeout', 'Delay', 'Sleep'):
        port = 'delay_msec' if bt_id == 'Delay' else 'msec'
        if port not in ports:
            raise Unsupported(f"{bt_id} needs the port '{port}'")
        text = ports[port].strip()
        if not _INT.match(text) or int(text) < 0:
            raise Unsupported(f'{port} must be a whole number of milliseconds, got '
                              f"'{ports[port]}' (a blackboard pointer would need a "
                              'unit conversion)')
        return ('Wait' if bt_id == 'Sleep' else bt_id), {'seconds': _seconds(int(text))}
    if bt_id == 'RunOnce':
        if decode_value(ports.get('then_skip', 'true'), ParamType.BOOL) is not False:
            raise Unsupported('RunOnce with then_skip="true" returns SKIPPED, which '
                              'bt_executive has no status for; use then_skip="false"')
        return 'OneShot', {}
    if bt_id == 'SetBlackboard':
        for port in ('output_key', 'value'):
            if port not in ports:
                raise Unsupported(f"SetBlackboard needs the port '{port}'")
        key = ports['output_key'].strip()
        if key.startswith('{') and key.endswith('}'):
            key = key[1:-1].strip()
        if not IDENTIFIER.match(key):
            raise Unsupported(f"output_key must be a blackboard key, got '{key}'")
        return 'SetBlackboard', {'key': key,
                                 'value': decode_value(ports['value'], ParamType.ANY)}
    if bt_id == 'UnsetBlackboard':
        if 'key' not in ports:
            raise Unsupported("UnsetBlackboard needs the port 'key'")
        return 'UnsetBlackboard', {'key': ports['key']}
    reason = _UNSUPPORTED.get(bt_id, 'bt_executive has no node with its semantics')
    raise Unsupported(f'BT.CPP node {bt_id} has no bt_executive equivalent: {reason}')


# ---- both directions: a built-in only when it reads back as the same node --------------------

def builtin_form(spec: NodeSpec, node_type: NodeType, registry: Registry
                 ) -> Optional[tuple[str, dict[str, str], dict[str, str]]]:
    """Return (BT.CPP ID, ports, markers) when the node maps exactly to a built-in."""
    forward = _forward(spec)
    if forward is None:
        return None
    bt_id, ports = forward
    try:
        back_type, back_params = _reverse(bt_id, ports, len(spec.children))
    except (Unsupported, ValueError):
        return None
    markers: dict[str, str] = {}
    if back_type != spec.type:
        markers[TYPE_MARKER] = spec.type
    ours = {name: yamlish(value.data) for name, value in spec.params.items()}
    for name, written in ours.items():
        if canonical(back_params.get(name, _MISSING)) != canonical(written):
            value = spec.params[name]
            param = node_type.param(name)
            if not value.is_static or param is None:
                return None
            markers[PARAM_MARKER + name] = encode_value(value.data, param.type)
    try:
        check_type, check_params = read_builtin(bt_id, {**ports, **markers},
                                                len(spec.children), registry)
    except (Unsupported, ValueError):
        return None
    if check_type != spec.type or canonical(check_params) != canonical(ours):
        return None
    return bt_id, ports, markers


def read_builtin(bt_id: str, attrs: Mapping[str, str], children: int,
                 registry: Registry) -> tuple[str, dict]:
    """Read a built-in element's ports and markers into our type and YAML-level params."""
    ports = {k: v for k, v in attrs.items() if not k.startswith('_')}
    kind, params = _reverse(bt_id, ports, children)
    if TYPE_MARKER in attrs:
        kind = attrs[TYPE_MARKER]
        if registry.get(kind) is None:
            raise Unsupported(f"{TYPE_MARKER}='{kind}' is not a bt_executive node type")
        kind = registry.get(kind).name
    node_type = registry.get(kind)
    for key, text in attrs.items():
        if key.startswith(PARAM_MARKER) and key != TYPE_MARKER:
            name = key[len(PARAM_MARKER):]
            param = node_type.param(name)
            if param is None:
                raise Unsupported(f"{key}: {kind} has no parameter '{name}'")
            params[name] = decode_value(text, param.type, name)
    return kind, params


__all__ = ['BTCPP_BUILTINS', 'BTCPP_FORMAT', 'CONDITION_LEAVES', 'DEFAULTS_MARKER',
           'GENERIC_TAGS', 'MAPPINGS', 'META_TAG', 'META_VERSION', 'MappingRule', 'NOT_MAPPED',
           'OWN_PREFIX', 'PARAM_MARKER', 'RESERVED_IDS', 'TYPE_MARKER', 'canonical',
           'decode_value', 'encode_value', 'mapping_table', 'yamlish']
