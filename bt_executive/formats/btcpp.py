"""BehaviorTree.CPP v4 XML: export trees for BT.CPP and Groot2, import BT.CPP XML as YAML.

Export (:func:`export_xml`) writes one ``<BehaviorTree>`` per named tree, maps our node
types to BT.CPP built-ins where the semantics match (``docs/btcpp.md`` has the table),
writes every other node in the explicit form ``<Action ID="Publish" .../>`` with its
ports declared in ``<TreeNodesModel>``, and keeps what XML has no place for (initial
blackboard, subscriptions, descriptions) in a ``<!-- bt_executive {...} -->`` comment so
that importing the file gives the same document back. With ``uids`` it writes the tree
the way BT.CPP's Groot2 publisher sends a running tree: one ``<BehaviorTree>`` per
subtree *instance* with ``_fullpath``, and ``_uid`` on every node (:func:`uid_map`).

Import (:func:`import_xml`) reads BT.CPP v4 XML with expat, refusing DTDs and entities,
bounded in size and depth, and turns it into our YAML; the result is validated with the
normal loader and every problem is reported as ``file:line: element <X>: message``.

No ROS imports here: this is the core layer.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from typing import Any, Iterable, Mapping, Optional, Union
from xml.parsers import expat

from bt_executive.core import yaml_source
from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.loader import _child_path, _strip_quotes, Loader
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value
import yaml

#: The XML format version written and accepted (``<root BTCPP_format="4">``).
BTCPP_FORMAT = '4'
#: Largest XML file accepted by the importer, in bytes.
MAX_XML_BYTES = 4 * 1024 * 1024
#: Deepest element nesting accepted by the importer.
MAX_XML_DEPTH = 100
#: Most elements accepted by the importer.
MAX_XML_ELEMENTS = 20_000
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

#: BT.CPP's pre/post-condition attributes: scripts we cannot run, refused on import.
_SCRIPT_ATTRIBUTES = frozenset((
    '_skipIf', '_successIf', '_failureIf', '_while', '_onSuccess', '_onFailure',
    '_onHalted', '_post'))

_REFERENCE = re.compile(r'\$[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*\Z')
_IDENTIFIER = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')
_INT = re.compile(r'[-+]?\d+\Z')
_FLOAT = re.compile(r'[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?\Z')
_XML_INVALID = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_MISSING = object()


# ---- values <-> port strings ---------------------------------------------------------------
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
    text = json.dumps(data, ensure_ascii=False, separators=(', ', ': '))
    if _XML_INVALID.search(text):
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
    if same and not _XML_INVALID.search(raw):
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
    return millis // 1000 if millis % 1000 == 0 else millis / 1000


# ---- the mapping to BT.CPP built-ins --------------------------------------------------------

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
    MappingRule('Parallel', 'Parallel', 'success: all, synchronise: true (defaults)',
                'success_count="-1" failure_count="1"',
                'All must succeed, the first failure fails; finished children are not ticked '
                'again. BT.CPP stops ticking the remaining children in the tick it decides, '
                'py_trees ticks them all first. success: one is not mapped: when one child '
                'succeeds and another fails in the same tick, py_trees fails and BT.CPP '
                'decides by child order.'),
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
        if _static(spec, 'success', 'all') != 'all' \
                or _static(spec, 'synchronise', True) is not True:
            return None
        return 'Parallel', {'success_count': '-1', 'failure_count': '1'}
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
                or not _IDENTIFIER.match(key.data):
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
        if key is None or not key.is_static or not _IDENTIFIER.match(key.data):
            return None
        return 'UnsetBlackboard', {'key': key.data}
    return None


class _Unsupported(ValueError):
    """A BT.CPP element we read but cannot express."""


#: BT.CPP built-ins the importer understands, with their ports.
_BUILTIN_PORTS = {
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
        _Unsupported: when the built-in or these port values have no equivalent.
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
        raise _Unsupported(f'Parallel with success_count={success} failure_count={failure} '
                           'has no equivalent (supported: success_count -1 or the number '
                           'of children, failure_count 1)')
    if bt_id in ('Repeat', 'RetryUntilSuccessful'):
        port = 'num_cycles' if bt_id == 'Repeat' else 'num_attempts'
        if port not in ports:
            raise _Unsupported(f"{bt_id} needs the port '{port}'")
        value = decode_value(ports[port], ParamType.INT, port)
        if value == -1:
            return ('SuccessIsRunning' if bt_id == 'Repeat' else 'UntilSuccess'), {}
        if bt_id == 'Repeat':
            return 'Repeat', {'times': value}
        return 'Retry', {'attempts': value}
    if bt_id in ('Timeout', 'Delay', 'Sleep'):
        port = 'delay_msec' if bt_id == 'Delay' else 'msec'
        if port not in ports:
            raise _Unsupported(f"{bt_id} needs the port '{port}'")
        text = ports[port].strip()
        if not _INT.match(text) or int(text) < 0:
            raise _Unsupported(f'{port} must be a whole number of milliseconds, got '
                               f"'{ports[port]}' (a blackboard pointer would need a "
                               'unit conversion)')
        return ('Wait' if bt_id == 'Sleep' else bt_id), {'seconds': _seconds(int(text))}
    if bt_id == 'RunOnce':
        if decode_value(ports.get('then_skip', 'true'), ParamType.BOOL) is not False:
            raise _Unsupported('RunOnce with then_skip="true" returns SKIPPED, which '
                               'bt_executive has no status for; use then_skip="false"')
        return 'OneShot', {}
    if bt_id == 'SetBlackboard':
        for port in ('output_key', 'value'):
            if port not in ports:
                raise _Unsupported(f"SetBlackboard needs the port '{port}'")
        key = ports['output_key'].strip()
        if key.startswith('{') and key.endswith('}'):
            key = key[1:-1].strip()
        if not _IDENTIFIER.match(key):
            raise _Unsupported(f"output_key must be a blackboard key, got '{key}'")
        return 'SetBlackboard', {'key': key,
                                 'value': decode_value(ports['value'], ParamType.ANY)}
    if bt_id == 'UnsetBlackboard':
        if 'key' not in ports:
            raise _Unsupported("UnsetBlackboard needs the port 'key'")
        return 'UnsetBlackboard', {'key': ports['key']}
    reason = _UNSUPPORTED.get(bt_id, 'bt_executive has no node with its semantics')
    raise _Unsupported(f'BT.CPP node {bt_id} has no bt_executive equivalent: {reason}')


# ---- export ---------------------------------------------------------------------------------

class _Element:
    """An XML element being written."""

    def __init__(self, tag: str, attrs: Iterable[tuple[str, str]] = (),
                 text: Optional[str] = None):
        self.tag = tag
        self.attrs = list(attrs)
        self.children: list[Union['_Element', '_Comment']] = []
        self.text = text

    def add(self, child: Union['_Element', '_Comment']) -> Any:
        self.children.append(child)
        return child

    def write(self, lines: list[str], indent: int) -> None:
        pad = '  ' * indent
        attrs = ''.join(f' {key}="{_attr(value)}"' for key, value in self.attrs)
        if self.text:
            lines.append(f'{pad}<{self.tag}{attrs}>{_text(self.text)}</{self.tag}>')
        elif not self.children:
            lines.append(f'{pad}<{self.tag}{attrs}/>')
        else:
            lines.append(f'{pad}<{self.tag}{attrs}>')
            for child in self.children:
                child.write(lines, indent + 1)
            lines.append(f'{pad}</{self.tag}>')


@dataclasses.dataclass
class _Comment:
    text: str

    def write(self, lines: list[str], indent: int) -> None:
        lines.append(f"{'  ' * indent}<!-- {self.text} -->")


def _attr(value: str) -> str:
    return (value.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            .replace('"', '&quot;').replace('\n', '&#10;').replace('\r', '&#13;')
            .replace('\t', '&#9;'))


def _text(value: str) -> str:
    return value.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')


def own_id(type_name: str) -> str:
    """Return the BT.CPP node ID of our node type when it is not mapped to a built-in."""
    return OWN_PREFIX + type_name if type_name in RESERVED_IDS else type_name


def model_tag(node_type: NodeType) -> str:
    """Return the TreeNodesModel category element of one of our node types."""
    if node_type.category is Category.COMPOSITE:
        return 'Control'
    if node_type.category is Category.DECORATOR:
        return 'Decorator'
    if node_type.category is Category.SUBTREE:
        return 'SubTree'
    return 'Condition' if node_type.name in CONDITION_LEAVES else 'Action'


_PORT_TYPES = {ParamType.BOOL: 'bool', ParamType.INT: 'int', ParamType.FLOAT: 'double'}


def _port_model(param: Param) -> _Element:
    attrs = [('name', param.name), ('type', _PORT_TYPES.get(param.type, 'std::string'))]
    if not param.required and param.default is not None:
        attrs.append(('default', encode_value(param.default, param.type)))
    doc = param.doc
    if param.type is ParamType.ENUM:
        doc += f" (one of: {', '.join(param.choices)})"
    elif param.type in (ParamType.LIST, ParamType.MAPPING):
        doc += ' (json: and the value as JSON)'
    elif param.type is ParamType.EXPRESSION:
        doc += ' (a bt_executive expression)'
    elif param.type is ParamType.ANY:
        doc += ' (text, number, true/false, {key} or json:...)'
    if param.dynamic:
        doc += ' [runtime: {key} or ${expression}]'
    return _Element('input_port', attrs, text=doc)


class _Exporter:
    def __init__(self, document: Document, registry: Registry,
                 uids: Optional[Mapping[str, int]]):
        self.document = document
        self.registry = registry
        self.uids = uids
        self.errors: list[Diagnostic] = []
        self.own_types: dict[str, NodeType] = {}
        #: our path of a subtree call -> BT.CPP ``_fullpath`` of its instance
        self.fullpaths: dict[str, str] = {}

    def node(self, spec: NodeSpec, prefix: str = '') -> _Element:
        node_type = self.registry.get(spec.type)
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        attrs: list[tuple[str, str]] = []
        if node_type.category is Category.SUBTREE:
            return self._subtree(spec, node_type, path, attrs)
        mapped = _builtin_form(spec, node_type, self.registry)
        if mapped is not None:
            bt_id, ports, markers = mapped
            element = _Element(bt_id)
        else:
            # The compact form <Publish .../>: BT.CPP 4.8 rejects the explicit form
            # <Action ID="Publish"/> under ReactiveSequence and ReactiveFallback.
            element = _Element(own_id(spec.type))
            self.own_types[spec.type] = node_type
            ports, markers = {}, {}
            for name, value in spec.params.items():
                param = node_type.param(name)
                try:
                    ports[name] = encode_value(value.data, param.type)
                except ValueError as error:
                    self.errors.append(Diagnostic(value.loc, f"parameter '{name}' cannot be "
                                                  f'written as XML: {error}', spec.path))
        if spec.name != spec.type:
            attrs.append(('name', spec.name))
        elif self.uids is not None:
            attrs.append(('name', element.tag))  # BT.CPP names an unnamed node by its ID
        if self.uids is not None:
            attrs.append(('_uid', str(self._uid(path))))
        attrs.extend(ports.items())
        attrs.extend(markers.items())
        element.attrs = attrs
        self._check_text(spec, attrs)
        for child in spec.children:
            element.add(self.node(child, prefix))
        return element

    def _uid(self, path: str) -> int:
        if path not in self.uids:
            raise ValueError(f"no uid for node '{path}'")
        return self.uids[path]

    def _subtree(self, spec: NodeSpec, node_type: NodeType, path: str,
                 attrs: list[tuple[str, str]]) -> _Element:
        target = spec.params['tree'].data
        attrs.append(('ID', target))
        if self.uids is None:
            if spec.name != spec.type:
                attrs.append(('name', spec.name))
        else:
            attrs.append(('_fullpath', self.fullpaths[path]))
            attrs.append(('_uid', str(self._uid(path))))
        for name, value in spec.params.items():
            if name == 'tree':
                continue
            if name in ('name', 'ID'):
                self.errors.append(Diagnostic(value.loc, f"argument '{name}' cannot be a "
                                              'BT.CPP port (the name is reserved); rename '
                                              'the tree parameter', spec.path))
                continue
            try:
                attrs.append((name, encode_value(value.data, ParamType.ANY)))
            except ValueError as error:
                self.errors.append(Diagnostic(value.loc, f"argument '{name}' cannot be "
                                              f'written as XML: {error}', spec.path))
        if self.uids is None:
            # _autoremap gives the subtree the caller's blackboard, as ours have; BT.CPP
            # 4.8 then ignores the defaults declared in TreeNodesModel, so they are passed
            # here too, and _bte_defaults names them for the importer.
            called = self.document.trees.get(target)
            filled = []
            for name, default in (called.params.items() if called else ()):
                if name not in spec.params and default is not None:
                    attrs.append((name, encode_value(default.data, ParamType.ANY)))
                    filled.append(name)
            attrs.append(('_autoremap', 'true'))
            if filled:
                attrs.append((DEFAULTS_MARKER, ' '.join(filled)))
        self._check_text(spec, attrs)
        return _Element('SubTree', attrs)

    def _check_text(self, spec: NodeSpec, attrs: list[tuple[str, str]]) -> None:
        for key, value in attrs:
            if _XML_INVALID.search(value):
                self.errors.append(Diagnostic(spec.loc, f"'{key}' holds a control character "
                                              'that XML cannot carry', spec.path))

    # -- the Groot2 form: one BehaviorTree per subtree instance -----------------------------

    def instances(self, tree: TreeSpec) -> list[_Element]:
        """Return the BehaviorTree elements of a running tree, as BT.CPP sends them."""
        result: list[_Element] = []
        self.fullpaths = {}

        def emit(tree: TreeSpec, fullpath: str, prefix: str) -> None:
            element = _Element('BehaviorTree', [('ID', tree.name), ('_fullpath', fullpath)])
            result.append(element)
            self._plan(tree.root, fullpath, prefix)
            element.add(self.node(tree.root, prefix))
            for spec in tree.root.walk():
                if self.registry.get(spec.type).category is Category.SUBTREE:
                    path = f'{prefix}/{spec.path}' if prefix else spec.path
                    called = self.document.trees[spec.params['tree'].data]
                    emit(called, self.fullpaths[path], path)

        emit(tree, '', '')
        return result

    def _plan(self, root: NodeSpec, fullpath: str, prefix: str) -> None:
        taken = set(self.fullpaths.values())
        for spec in root.walk():
            if self.registry.get(spec.type).category is not Category.SUBTREE:
                continue
            path = f'{prefix}/{spec.path}' if prefix else spec.path
            segment = spec.name if spec.name != spec.type else \
                f"{spec.params['tree'].data}::{self._uid(path)}"
            full = f'{fullpath}/{segment}' if fullpath else segment
            if full in taken:
                full = f'{full}::{self._uid(path)}'
            taken.add(full)
            self.fullpaths[path] = full


def _builtin_form(spec: NodeSpec, node_type: NodeType, registry: Registry
                  ) -> Optional[tuple[str, dict[str, str], dict[str, str]]]:
    """Return (BT.CPP ID, ports, markers) when the node maps exactly to a built-in."""
    forward = _forward(spec)
    if forward is None:
        return None
    bt_id, ports = forward
    try:
        back_type, back_params = _reverse(bt_id, ports, len(spec.children))
    except (_Unsupported, ValueError):
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
        check_type, check_params = _read_builtin(bt_id, {**ports, **markers},
                                                 len(spec.children), registry)
    except (_Unsupported, ValueError):
        return None
    if check_type != spec.type or canonical(check_params) != canonical(ours):
        return None
    return bt_id, ports, markers


def _read_builtin(bt_id: str, attrs: Mapping[str, str], children: int,
                  registry: Registry) -> tuple[str, dict]:
    """Read a built-in element's ports and markers into our type and YAML-level params."""
    ports = {k: v for k, v in attrs.items() if not k.startswith('_')}
    kind, params = _reverse(bt_id, ports, children)
    if TYPE_MARKER in attrs:
        kind = attrs[TYPE_MARKER]
        if registry.get(kind) is None:
            raise _Unsupported(f"{TYPE_MARKER}='{kind}' is not a bt_executive node type")
        kind = registry.get(kind).name
    node_type = registry.get(kind)
    for key, text in attrs.items():
        if key.startswith(PARAM_MARKER) and key != TYPE_MARKER:
            name = key[len(PARAM_MARKER):]
            param = node_type.param(name)
            if param is None:
                raise _Unsupported(f"{key}: {kind} has no parameter '{name}'")
            params[name] = decode_value(text, param.type, name)
    return kind, params


def _top_description(document: Document) -> Optional[str]:
    """Return the main file's top-level ``description`` (the Document does not keep it)."""
    if not os.path.isfile(document.path):
        return None
    try:
        root = yaml_source.load_file(document.path)
    except TreeError:
        return None
    if isinstance(root, yaml_source.YMap):
        node = root.get('description')
        if isinstance(node, yaml_source.YScalar) and isinstance(node.value, str):
            return node.value
    return None


def _called_trees(document: Document, start: str, registry: Registry) -> list[str]:
    """Return ``start`` and every tree it calls, directly or not, in document order."""
    reached = {start}
    pending = [start]
    while pending:
        tree = document.trees[pending.pop()]
        for spec in tree.root.walk():
            if registry.get(spec.type).category is Category.SUBTREE:
                target = spec.params['tree'].data
                if isinstance(target, str) and target not in reached \
                        and target in document.trees:
                    reached.add(target)
                    pending.append(target)
    return [name for name in document.trees if name in reached]


def _meta(document: Document, trees: list[str]) -> dict[str, Any]:
    meta: dict[str, Any] = {'version': META_VERSION}
    description = _top_description(document)
    if description:
        meta['description'] = description
    if document.blackboard:
        meta['blackboard'] = {key: yamlish(value.data)
                              for key, value in document.blackboard.items()}
    subscriptions: list[Any] = []
    for section in document.sections.get('subscriptions', []):
        plain = section.plain() if hasattr(section, 'plain') else section
        if isinstance(plain, list):
            subscriptions.extend(plain)
        else:
            subscriptions.append(plain)
    if subscriptions:
        meta['subscriptions'] = subscriptions
    docs = {name: document.trees[name].doc for name in trees if document.trees[name].doc}
    if docs:
        meta['tree_descriptions'] = docs
    if document.files:
        meta['files'] = [os.path.basename(file) for file in document.files]
    return meta


def _meta_comment(meta: dict[str, Any]) -> str:
    text = json.dumps(meta, ensure_ascii=False, separators=(', ', ': '))
    if _XML_INVALID.search(text):
        text = json.dumps(meta, ensure_ascii=True, separators=(', ', ': '))
    # A comment may not hold '--'; in JSON it can only occur inside strings.
    return f"{META_TAG} {text.replace('--', '-' + chr(92) + 'u002d')}"


def _models(exporter: _Exporter, trees: list[str], document: Document,
            registry: Registry, all_models: bool) -> _Element:
    models = _Element('TreeNodesModel')
    types = registry.types() if all_models else list(exporter.own_types.values())
    for node_type in sorted(types, key=lambda t: own_id(t.name)):
        if node_type.category is Category.SUBTREE:
            continue
        element = models.add(_Element(model_tag(node_type), [('ID', own_id(node_type.name))]))
        for param in node_type.params:
            element.add(_port_model(param))
    for name in trees:
        tree = document.trees[name]
        if not tree.params:
            continue
        element = models.add(_Element('SubTree', [('ID', name)]))
        for param, default in tree.params.items():
            attrs = [('name', param)]
            if default is not None:
                attrs.append(('default', encode_value(default.data, ParamType.ANY)))
            element.add(_Element('input_port', attrs))
    return models


def export_xml(document: Document, *, tree_name: Optional[str] = None,
               uids: Optional[Mapping[str, int]] = None,
               registry: Optional[Registry] = None, all_models: bool = False) -> str:
    """Return a BT.CPP v4 XML document for a loaded document.

    Args:
        document: the loaded document
        tree_name: without ``uids``: export this tree and the trees it calls, as the main
            tree (default: every tree, ``main_tree_to_execute`` the document's main);
            with ``uids``: the tree being run (default: the main tree)
        uids: node path -> BT.CPP uid (see :func:`uid_map`); when given the result is the
            tree as BT.CPP's Groot2 publisher sends it: one ``<BehaviorTree>`` per subtree
            instance with ``_fullpath``, ``_uid`` and ``name`` on every node
        registry: the node types (default: the whole catalogue)
        all_models: declare every node type of the catalogue in TreeNodesModel, not only
            the ones used

    Raises:
        TreeError: if a value cannot be written as XML, or there is no such tree.
        ValueError: if ``uids`` lacks a node of the tree.
    """
    if registry is None:
        from bt_executive.nodes.catalogue import default_registry
        registry = default_registry()
    computed = [Diagnostic(spec.loc, 'a Subtree whose tree is a parameter cannot be '
                           'written as BT.CPP XML (SubTree needs a literal ID)', spec.path)
                for tree in document.trees.values() for spec in tree.root.walk()
                if registry.get(spec.type).category is Category.SUBTREE
                and not isinstance(spec.params['tree'].data, str)]
    if computed:
        raise TreeError(computed)
    exporter = _Exporter(document, registry, uids)
    root = _Element('root', [('BTCPP_format', BTCPP_FORMAT)])
    if uids is not None:
        tree = document.tree(tree_name)
        trees = _called_trees(document, tree.name, registry)
        for element in exporter.instances(tree):
            root.add(element)
    else:
        if tree_name is not None:
            main: Optional[str] = document.tree(tree_name).name
            trees = _called_trees(document, main, registry)
        else:
            main = document.main if document.main is not None or len(document.trees) != 1 \
                else next(iter(document.trees))
            trees = list(document.trees)
        if main is not None:
            root.attrs.append(('main_tree_to_execute', main))
        root.add(_Comment(_meta_comment(_meta(document, trees))))
        for name in trees:
            element = root.add(_Element('BehaviorTree', [('ID', name)]))
            element.add(exporter.node(document.trees[name].root))
    if exporter.errors:
        raise TreeError(exporter.errors)
    root.add(_models(exporter, trees, document, registry, all_models))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    root.write(lines, 0)
    return '\n'.join(lines) + '\n'


def digest(document: Document) -> dict[str, Any]:
    """Return a comparable summary of a document, without source locations.

    Trees (parameters, description, every node's type, name, parameters as written and
    children), main, initial blackboard and subscriptions: what a round trip through XML
    must keep. Values compare with :func:`canonical` (1 equals 1.0, not true).
    """
    def node(spec: NodeSpec) -> Any:
        return (spec.type, spec.name,
                tuple((name, canonical(yamlish(value.data)))
                      for name, value in spec.params.items()),
                tuple(node(child) for child in spec.children))

    subscriptions: list[Any] = []
    for section in document.sections.get('subscriptions', []):
        plain = section.plain() if hasattr(section, 'plain') else section
        subscriptions.extend(plain if isinstance(plain, list) else [plain])
    return {
        'main': document.main,
        'trees': {name: (tuple((param, None if default is None
                                else canonical(yamlish(default.data)))
                               for param, default in tree.params.items()),
                         tree.doc, node(tree.root))
                  for name, tree in document.trees.items()},
        'blackboard': canonical({key: yamlish(value.data)
                                 for key, value in document.blackboard.items()}),
        'subscriptions': canonical(subscriptions),
    }


# ---- uids ------------------------------------------------------------------------------------

def uid_map(root: Any) -> dict[str, int]:
    """Return node path -> BT.CPP uid for a built py_trees tree.

    BT.CPP numbers nodes from 1 in the order it creates them: depth first, parents before
    children, a subtree's nodes right after its SubTree node. The builder wraps every
    subtree in a behaviour with its own path, whose child is the called tree's root, so a
    pre-order walk over the behaviours that have a ``bt_path`` gives the same order.
    """
    uids: dict[str, int] = {}
    stack = [root]
    while stack:
        behaviour = stack.pop()
        path = getattr(behaviour, 'bt_path', None)
        if path is not None and path not in uids:
            uids[path] = len(uids) + 1
        stack.extend(reversed(list(getattr(behaviour, 'children', []))))
    return uids


def spec_uid_map(document: Document, tree_name: Optional[str] = None,
                 registry: Optional[Registry] = None) -> dict[str, int]:
    """Return the uids :func:`uid_map` gives the built tree, computed from the spec alone."""
    if registry is None:
        from bt_executive.nodes.catalogue import default_registry
        registry = default_registry()
    uids: dict[str, int] = {}

    def visit(spec: NodeSpec, prefix: str) -> None:
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        uids[path] = len(uids) + 1
        if registry.get(spec.type).category is Category.SUBTREE:
            visit(document.trees[spec.params['tree'].data].root, path)
        for child in spec.children:
            visit(child, prefix)

    visit(document.tree(tree_name).root, '')
    return uids


# ---- import: a safe, located XML reader --------------------------------------------------------

@dataclasses.dataclass
class XElement:
    """An element read from XML, with its line."""

    tag: str
    attrs: dict[str, str]
    line: int
    column: int = 0
    children: list['XElement'] = dataclasses.field(default_factory=list)
    text: str = ''
    comments: list[tuple[int, str]] = dataclasses.field(default_factory=list)


def _xml_error(file: str, line: int, message: str, tag: str = '',
               column: int = 0) -> TreeError:
    return TreeError.single(SourceLocation(file, line, column), message,
                            f'element <{tag}>' if tag else '')


def parse_xml(data: Union[bytes, str], file: str = '<string>') -> XElement:
    """Parse XML safely into located elements: no DTD, no entities, bounded size and depth.

    Raises:
        TreeError: for malformed or refused input, with the line.
    """
    if isinstance(data, str):
        data = data.encode('utf-8')
    if len(data) > MAX_XML_BYTES:
        raise _xml_error(file, 0, f'file is larger than {MAX_XML_BYTES // (1024 * 1024)} MiB')
    parser = expat.ParserCreate()
    parser.ordered_attributes = False
    stack: list[XElement] = []
    result: list[XElement] = []
    count = [0]

    def refuse(what: str) -> Any:
        def handler(*_args: Any) -> Any:
            raise _xml_error(file, parser.CurrentLineNumber,
                             f'{what} is not allowed in tree files',
                             column=parser.CurrentColumnNumber + 1)
        return handler

    def start(tag: str, attrs: dict[str, str]) -> None:
        count[0] += 1
        if count[0] > MAX_XML_ELEMENTS:
            raise _xml_error(file, parser.CurrentLineNumber,
                             f'more than {MAX_XML_ELEMENTS} elements', tag,
                             parser.CurrentColumnNumber + 1)
        if len(stack) >= MAX_XML_DEPTH:
            raise _xml_error(file, parser.CurrentLineNumber,
                             f'elements nested deeper than {MAX_XML_DEPTH}', tag,
                             parser.CurrentColumnNumber + 1)
        element = XElement(tag, dict(attrs), parser.CurrentLineNumber,
                           parser.CurrentColumnNumber + 1)
        if stack:
            stack[-1].children.append(element)
        else:
            result.append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    def comment(data: str) -> None:
        if stack:
            stack[-1].comments.append((parser.CurrentLineNumber, data))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.CommentHandler = comment
    parser.StartDoctypeDeclHandler = refuse('a DOCTYPE (DTD)')
    parser.EntityDeclHandler = refuse('an entity declaration')
    parser.UnparsedEntityDeclHandler = refuse('an entity declaration')
    parser.NotationDeclHandler = refuse('a notation declaration')
    parser.ExternalEntityRefHandler = refuse('an external entity')
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise _xml_error(file, error.lineno, f'malformed XML: {expat.ErrorString(error.code)}',
                         column=error.offset + 1) from None
    except RecursionError:  # pragma: no cover - bounded by MAX_XML_DEPTH
        raise _xml_error(file, 0, 'nesting too deep') from None
    if not result:
        raise _xml_error(file, 0, 'no root element')
    return result[0]


# ---- import: XML elements -> YAML document ------------------------------------------------

class _Importer:
    def __init__(self, file: str, registry: Registry):
        self.file = file
        self.registry = registry
        self.errors: list[Diagnostic] = []
        #: node path in the generated YAML -> (element, tag), to relocate loader errors
        self.origins: dict[str, tuple[XElement, str]] = {}

    def error(self, element: XElement, message: str) -> None:
        self.errors.append(Diagnostic(SourceLocation(self.file, element.line, element.column),
                                      message, f'element <{element.tag}>'))

    def document(self, root: XElement) -> dict[str, Any]:
        if root.tag != 'root':
            self.error(root, 'expected <root BTCPP_format="4"> as the document element')
            return {}
        fmt = root.attrs.get('BTCPP_format')
        if fmt is not None and fmt.strip() != BTCPP_FORMAT:
            self.error(root, f'BTCPP_format="{fmt}" is not supported: only version 4 XML '
                       '(BTCPP_format="4") can be imported')
            return {}
        for key in root.attrs:
            if key not in ('BTCPP_format', 'main_tree_to_execute', 'project_name'):
                self.error(root, f"unknown attribute '{key}' (expected: BTCPP_format, "
                           'main_tree_to_execute)')
        self.origins[''] = (root, 'root')
        meta = self._meta(root)
        tree_params: dict[str, dict[str, Any]] = {}
        trees: list[XElement] = []
        for element in root.children:
            if element.tag == 'BehaviorTree':
                trees.append(element)
            elif element.tag == 'TreeNodesModel':
                tree_params.update(self._models(element))
            elif element.tag == 'include':
                self.error(element, '<include> is not supported: put every tree in one file')
            else:
                self.error(element, 'unexpected element at the top level (expected '
                           '<BehaviorTree> or <TreeNodesModel>)')
        document: dict[str, Any] = {}
        if meta.get('description'):
            document['description'] = meta['description']
        main = root.attrs.get('main_tree_to_execute')
        if main:
            document['main'] = main
        if meta.get('blackboard'):
            document['blackboard'] = meta['blackboard']
        if meta.get('subscriptions'):
            document['subscriptions'] = meta['subscriptions']
        descriptions = meta.get('tree_descriptions') or {}
        out_trees: dict[str, Any] = {}
        for element in trees:
            name = element.attrs.get('ID')
            if not name:
                self.error(element, "a <BehaviorTree> needs the attribute 'ID' (the tree "
                           'name)')
                continue
            if name in out_trees:
                self.error(element, f"duplicate tree '{name}'")
                continue
            self.origins[name] = (element, element.tag)
            nodes = element.children
            if len(nodes) != 1:
                self.error(element, f'a <BehaviorTree> holds exactly one root node, '
                           f'found {len(nodes)}')
                continue
            root_node = self.node(nodes[0], name, {})
            if root_node is None:
                continue
            params = tree_params.get(name)
            description = descriptions.get(name) if isinstance(descriptions, dict) else None
            if params or description:
                tree: dict[str, Any] = {}
                if params:
                    tree['params'] = params
                if description:
                    tree['description'] = description
                tree['root'] = root_node
                out_trees[name] = _NodeMap(tree)
            else:
                out_trees[name] = root_node
        if not trees:
            self.error(root, 'no <BehaviorTree> in the file')
        document['trees'] = _NodeMap(out_trees)
        return _NodeMap(document)

    def _meta(self, root: XElement) -> dict[str, Any]:
        for line, text in root.comments:
            text = text.strip()
            if not text.startswith(META_TAG + ' '):
                continue
            try:
                meta = json.loads(text[len(META_TAG) + 1:])
            except ValueError as error:
                self.errors.append(Diagnostic(SourceLocation(self.file, line),
                                              f'bad {META_TAG} comment: {error}'))
                return {}
            if not isinstance(meta, dict) or meta.get('version') != META_VERSION:
                self.errors.append(Diagnostic(SourceLocation(self.file, line),
                                              f'unsupported {META_TAG} comment (expected '
                                              f'version {META_VERSION})'))
                return {}
            return meta
        return {}

    def _models(self, models: XElement) -> dict[str, dict[str, Any]]:
        params: dict[str, dict[str, Any]] = {}
        for model in models.children:
            if model.tag != 'SubTree':
                continue  # our node types come from the registry, not from the file
            name = model.attrs.get('ID')
            if not name:
                self.error(model, "a model needs the attribute 'ID'")
                continue
            ports: dict[str, Any] = {}
            for port in model.children:
                if port.tag not in ('input_port', 'output_port', 'inout_port'):
                    continue
                port_name = port.attrs.get('name')
                if not port_name:
                    self.error(port, "a port needs the attribute 'name'")
                    continue
                if port_name.startswith('_'):
                    continue  # _autoremap and other BT.CPP internals
                default = port.attrs.get('default')
                try:
                    ports[port_name] = None if default is None \
                        else decode_value(default, ParamType.ANY, port_name)
                except ValueError as error:
                    self.error(port, f"default of '{port_name}': {error}")
            if ports:
                params[name] = ports
        return params

    def node(self, element: XElement, parent: str, siblings: dict[str, int]) -> Any:
        tag = element.tag
        attrs = dict(element.attrs)
        for key in attrs:
            if key in _SCRIPT_ATTRIBUTES:
                self.error(element, f"'{key}' is a BT.CPP script pre/post-condition; "
                           'bt_executive cannot run BT.CPP scripts')
                return None
        if tag in GENERIC_TAGS:
            bt_id = attrs.pop('ID', None)
            if not bt_id:
                self.error(element, f"<{tag}> needs the attribute 'ID' (the node type)")
                return None
        elif tag == 'SubTree':
            return self._subtree(element, attrs, parent, siblings)
        else:
            bt_id = tag
            attrs.pop('ID', None)
        name = attrs.pop('name', None)
        children = element.children
        if bt_id in BTCPP_BUILTINS:
            for key in attrs if bt_id in _BUILTIN_PORTS else ():
                if not key.startswith('_') and key not in _BUILTIN_PORTS.get(bt_id, ()):
                    expected = ', '.join(_BUILTIN_PORTS.get(bt_id, ())) or 'none'
                    self.error(element, f"unknown port '{key}' for {bt_id} (ports: "
                               f'{expected})')
                    return None
            try:
                kind, params = _read_builtin(bt_id, attrs, len(children), self.registry)
            except (_Unsupported, ValueError) as error:
                self.error(element, str(error))
                return None
            node_type = self.registry.get(kind)
        else:
            type_name = bt_id[len(OWN_PREFIX):] if bt_id.startswith(OWN_PREFIX) else bt_id
            node_type = self.registry.get(type_name)
            if node_type is None or node_type.category is Category.SUBTREE:
                from bt_executive.core.registry import hint
                known = [t.name for t in self.registry.types()] + sorted(BTCPP_BUILTINS)
                self.error(element, f"unknown node ID '{bt_id}'{hint(bt_id, known)}: "
                           'expected a BT.CPP built-in or a bt_executive node type '
                           "(run 'bt-executive nodes')")
                return None
            kind = node_type.name
            params = {}
            for key, text in attrs.items():
                if key.startswith('_'):
                    continue
                param = node_type.param(key)
                if param is None:
                    from bt_executive.core.registry import hint
                    expected = ', '.join(node_type.param_names()) or 'none'
                    self.error(element, f"unknown port '{key}' for {kind}"
                               f'{hint(key, node_type.param_names())} (ports: {expected})')
                    continue
                try:
                    params[key] = decode_value(text, param.type, key)
                except ValueError as error:
                    self.error(element, f"port '{key}': {error}")
        display = _strip_quotes(name) if name else kind
        path = _child_path(parent, display, siblings)
        self.origins[path] = (element, tag)
        child_nodes = []
        child_siblings: dict[str, int] = {}
        for child in children:
            converted = self.node(child, path, child_siblings)
            if converted is not None:
                child_nodes.append(converted)
        return node_yaml(kind, display if name else None, params, child_nodes,
                         node_type.primary)

    def _subtree(self, element: XElement, attrs: dict[str, str], parent: str,
                 siblings: dict[str, int]) -> Any:
        target = attrs.pop('ID', None)
        if not target:
            self.error(element, "<SubTree> needs the attribute 'ID' (the tree to run)")
            return None
        if element.children:
            self.error(element, '<SubTree> takes no child elements')
        name = attrs.pop('name', None)
        params: dict[str, Any] = {'tree': target}
        defaults = set(attrs.get(DEFAULTS_MARKER, '').split())
        for key, text in attrs.items():
            if key.startswith('_') or key in defaults:
                continue  # _autoremap: our subtrees always see the whole blackboard
            if not _IDENTIFIER.match(key):
                self.error(element, f"'{key}' is not a valid tree parameter name")
                continue
            try:
                params[key] = decode_value(text, ParamType.ANY, key)
            except ValueError as error:
                self.error(element, f"argument '{key}': {error}")
        display = _strip_quotes(name) if name else 'Subtree'
        self.origins[_child_path(parent, display, siblings)] = (element, element.tag)
        return node_yaml('Subtree', display if name else None, params, [], 'tree')

    def relocate(self, diagnostic: Diagnostic) -> Diagnostic:
        """Point a loader diagnostic about the generated YAML at the XML element."""
        path = diagnostic.node_path
        while path and path not in self.origins:
            path = path.rpartition('/')[0]
        origin = self.origins.get(path) or self.origins.get('')
        if origin is None:
            return Diagnostic(SourceLocation(self.file), diagnostic.message)
        element, tag = origin
        return Diagnostic(SourceLocation(self.file, element.line, element.column),
                          diagnostic.message, f'element <{tag}>')


_NODE_NAME = re.compile(r'[^\n\r]+\Z')


def node_yaml(kind: str, name: Optional[str], params: dict[str, Any],
              children: list[Any], primary: Optional[str] = None) -> Any:
    """Return one node in the YAML short form (the explicit form for awkward names)."""
    if name is not None and name != kind and (
            not _NODE_NAME.match(name) or _strip_quotes(name) != name):
        node: dict[str, Any] = _NodeMap(type=kind, name=name)
        if params:
            node['params'] = params
        if children:
            node['children'] = children
        return node
    key = kind if name is None or name == kind else f'{kind} {name}'
    if params and children:
        return _NodeMap({key: _NodeMap({**params, 'children': children})})
    if children:
        return _NodeMap({key: children})
    if not params:
        return key
    if primary is not None and list(params) == [primary] \
            and not isinstance(params[primary], (dict, list)) and params[primary] is not None:
        return _NodeMap({key: params[primary]})
    return _NodeMap({key: params})


class _NodeMap(dict):
    """A node mapping: written in block style (parameter mappings may be flow style)."""


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper that writes node mappings in block style."""


_Dumper.add_representer(_NodeMap, lambda dumper, data: dumper.represent_mapping(
    'tag:yaml.org,2002:map', data.items(), flow_style=False))


def dump_yaml(document: dict[str, Any], header: str = '') -> str:
    """Write a YAML document built by the importer."""
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=None, width=100)
    return header + text


def import_document(data: Union[bytes, str], *, name: str = '<string>',
                    registry: Optional[Registry] = None) -> tuple[str, Document]:
    """Convert BT.CPP v4 XML to our YAML text and the loaded document.

    Raises:
        TreeError: with every problem, as ``file:line: element <X>: message``.
    """
    if registry is None:
        from bt_executive.nodes.catalogue import default_registry
        registry = default_registry()
    root = parse_xml(data, name)
    importer = _Importer(name, registry)
    document = importer.document(root)
    if importer.errors:
        raise TreeError(importer.errors)
    header = (f'# Imported from {os.path.basename(name)} (BehaviorTree.CPP v4 XML) by '
              "'bt-executive import'.\n")
    text = dump_yaml(document, header)
    try:
        loaded = Loader(registry).load_text(text, name=name + '.yaml')
    except TreeError as error:
        raise TreeError([importer.relocate(d) for d in error.diagnostics]) from None
    return text, loaded


def import_xml(data: Union[bytes, str], *, name: str = '<string>',
               registry: Optional[Registry] = None) -> str:
    """Convert BT.CPP v4 XML to our YAML text (validated with the loader).

    Raises:
        TreeError: with every problem, as ``file:line: element <X>: message``.
    """
    return import_document(data, name=name, registry=registry)[0]


def read_xml_file(path: str) -> bytes:
    """Read an XML file with the size limit.

    Raises:
        TreeError: if it cannot be read or is too large.
    """
    try:
        with open(path, 'rb') as stream:
            data = stream.read(MAX_XML_BYTES + 1)
    except FileNotFoundError:
        raise TreeError.single(SourceLocation(path), 'file not found') from None
    except OSError as error:
        raise TreeError.single(SourceLocation(path), f'cannot read: {error.strerror}') \
            from None
    if len(data) > MAX_XML_BYTES:
        raise TreeError.single(SourceLocation(path), f'file is larger than '
                               f'{MAX_XML_BYTES // (1024 * 1024)} MiB')
    return data


__all__ = ['BTCPP_BUILTINS', 'MAPPINGS', 'MappingRule', 'canonical', 'decode_value', 'digest',
           'encode_value', 'export_xml', 'import_document', 'import_xml', 'mapping_table',
           'parse_xml', 'spec_uid_map', 'uid_map', 'yamlish']
