# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Read YAML into located nodes, safely: bounded size, depth and alias expansion.

PyYAML's composer gives every node a start mark; this module turns its node graph
into small immutable classes (``YScalar``, ``YMap``, ``YSeq``) that keep a
:class:`~bt_executive.core.errors.SourceLocation` for every value, so that every later
error can name file, line and column. Hostile input (binary, huge files, alias
bombs, absurd nesting, duplicate keys) becomes a one-line :class:`TreeError`.

Plain scalars are typed by the YAML 1.2 core schema, not by PyYAML's YAML 1.1 rules
(:func:`resolve_plain`): ``on``, ``yes`` and ``no`` are strings, ``1e-3`` is a number,
``017`` is seventeen. Mapping keys are always the text as written.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Any, Iterator, Optional, Union

from bt_executive.core.errors import Diagnostic, excerpt, SourceLocation, TreeError
import yaml

#: libyaml's parser when PyYAML was built with it (about 10x faster), else pure Python.
_BASE_LOADER: Any = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)

_TAG = 'tag:yaml.org,2002:'
STR_TAG = _TAG + 'str'
NULL_TAG = _TAG + 'null'
BOOL_TAG = _TAG + 'bool'
INT_TAG = _TAG + 'int'
FLOAT_TAG = _TAG + 'float'
MERGE_TAG = _TAG + 'merge'
TIMESTAMP_TAG = _TAG + 'timestamp'

# The YAML 1.2 core schema (YAML 1.2.2, section 10.3.2), nothing more.
_NULL = re.compile(r'null|Null|NULL|~|')
_BOOLS = {'true': True, 'True': True, 'TRUE': True,
          'false': False, 'False': False, 'FALSE': False}
_INT = re.compile(r'[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+')
_FLOAT = re.compile(r'[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?')
_INF = re.compile(r'[-+]?\.(inf|Inf|INF)')
_NAN = re.compile(r'\.(nan|NaN|NAN)')


def resolve_plain(text: str) -> str:
    """Return the YAML tag of an unquoted scalar by the YAML 1.2 core schema.

    ``null``/``~``/nothing is null; only ``true``/``false`` (also ``True``, ``TRUE``...)
    are booleans; ``12``, ``-3``, ``0o17``, ``0x1F`` are integers; ``1.5``, ``1e-3``,
    ``.5``, ``.inf``, ``-.inf``, ``.nan`` are floats; everything else is a string
    (``on``, ``yes``, ``1_000``, ``0b101``, ``2024-01-01``). ``<<`` is kept as a merge key
    so that it can be refused with a clear message.
    """
    if _NULL.fullmatch(text):
        return NULL_TAG
    if text in _BOOLS:
        return BOOL_TAG
    if _INT.fullmatch(text):
        return INT_TAG
    if _FLOAT.fullmatch(text) or _INF.fullmatch(text) or _NAN.fullmatch(text):
        return FLOAT_TAG
    if text == '<<':
        return MERGE_TAG
    return STR_TAG


def construct_scalar(tag: str, text: str) -> Any:
    """Return the value of a scalar with ``tag`` written as ``text`` (core schema rules).

    Raises:
        ValueError: with the reason, when ``text`` is not a value of that tag, a number
            is out of range, or the tag is not one a tree file may use.
    """
    if tag in (STR_TAG, MERGE_TAG, TIMESTAMP_TAG):
        return text  # timestamps: trees have no use for dates, keep what was written
    if tag == NULL_TAG and _NULL.fullmatch(text):
        return None
    if tag == BOOL_TAG and text in _BOOLS:
        return _BOOLS[text]
    if tag in (INT_TAG, FLOAT_TAG) and _INT.fullmatch(text):
        if text.startswith(('0x', '0o')):
            number = int(text[2:], 16 if text[1] == 'x' else 8)
        else:
            try:
                number = int(text, 10)
            except ValueError:  # over Python's limit of digits
                raise ValueError(f'integer of {len(text)} digits is too long') from None
        return number if tag == INT_TAG else _finite(float(number), text)
    if tag == FLOAT_TAG:
        if _INF.fullmatch(text):
            return -math.inf if text.startswith('-') else math.inf
        if _NAN.fullmatch(text):
            return math.nan
        if _FLOAT.fullmatch(text):
            return _finite(float(text), text)
    expected = _EXPECTED.get(tag)
    if expected is not None:
        raise ValueError(f'bad scalar {text[:40]!r}: !!{tag[len(_TAG):]} expects {expected}')
    raise ValueError(f'unsupported YAML tag {tag!r}')


_EXPECTED = {NULL_TAG: 'null, ~ or nothing', BOOL_TAG: 'true or false',
             INT_TAG: 'an integer (digits, 0x.. or 0o..)', FLOAT_TAG: 'a number'}


def _finite(number: float, text: str) -> float:
    """Return ``number``, refusing a finite literal that overflowed to infinity."""
    if math.isinf(number):
        raise ValueError(f'number {text[:40]!r} is out of range: beyond the largest 64-bit '
                         'float (1.8e308); write .inf or -.inf for infinity')
    return number


def format_number(number: float) -> str:
    """Write a number as YAML does (``.inf``, ``-.inf``, ``.nan`` for the non-finite)."""
    if math.isnan(number):
        return '.nan'
    if math.isinf(number):
        return '.inf' if number > 0 else '-.inf'
    return repr(number)


class _Loader(_BASE_LOADER):  # type: ignore[misc]
    """The safe loader, with plain scalars typed by :func:`resolve_plain` (YAML 1.2)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """Return the tag of a node: plain scalars by the core schema, others as strings."""
        if kind is yaml.ScalarNode:
            return resolve_plain(value) if implicit[0] else STR_TAG
        tag: str = super().resolve(kind, value, implicit)
        return tag


_LOADER = _Loader

#: Largest tree file accepted, in bytes.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Deepest nesting of YAML collections accepted.
MAX_DEPTH = 100
#: Most YAML nodes visited while expanding one document (counts alias re-use).
MAX_NODES = 200_000
#: Longest scalar accepted, in characters.
MAX_SCALAR_CHARS = 64 * 1024


@dataclasses.dataclass(frozen=True, eq=False)
class YNode:
    """A YAML value with the location where it starts."""

    loc: SourceLocation

    def plain(self) -> Any:
        """Return the value as plain Python data (dicts, lists, scalars)."""
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """Describe the kind of value for error messages."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, eq=False)
class YScalar(YNode):
    """A scalar: string, number, bool or null."""

    value: Any = None
    quoted: bool = False
    #: the scalar could not be read (a number out of range...): its error is reported
    #: already, and whatever uses the value stays silent about it (``value`` is None)
    invalid: bool = False

    def plain(self) -> Any:
        """Return the scalar value."""
        return self.value

    @property
    def kind(self) -> str:
        """Describe the scalar's type."""
        return describe(self.value)


@dataclasses.dataclass(frozen=True, eq=False)
class YSeq(YNode):
    """A sequence of located values."""

    items: tuple[YNode, ...] = ()

    def plain(self) -> list[Any]:
        """Return the items as a list of plain values."""
        return [item.plain() for item in self.items]

    @property
    def kind(self) -> str:
        """Describe the value as a list."""
        return 'a list'

    def __iter__(self) -> Iterator[YNode]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclasses.dataclass(frozen=True, eq=False)
class YMap(YNode):
    """A mapping with string keys, in document order; keys keep their locations."""

    entries: tuple[tuple[YScalar, YNode], ...] = ()

    def plain(self) -> dict[str, Any]:
        """Return the mapping as a plain dict."""
        return {key.value: value.plain() for key, value in self.entries}

    @property
    def kind(self) -> str:
        """Describe the value as a mapping."""
        return 'a mapping'

    def keys(self) -> list[str]:
        """Return the keys in document order."""
        return [key.value for key, _ in self.entries]

    def get(self, key: str) -> Optional[YNode]:
        """Return the value for ``key`` or None."""
        for k, value in self.entries:
            if k.value == key:
                return value
        return None

    def key_node(self, key: str) -> Optional[YScalar]:
        """Return the located key scalar for ``key`` or None."""
        for k, _ in self.entries:
            if k.value == key:
                return k
        return None

    def __len__(self) -> int:
        return len(self.entries)


YValue = Union[YScalar, YSeq, YMap]


def has_invalid(node: YNode) -> bool:
    """Tell whether ``node`` holds a scalar that could not be read (already reported)."""
    if isinstance(node, YScalar):
        return node.invalid
    if isinstance(node, YSeq):
        return any(has_invalid(item) for item in node)
    if isinstance(node, YMap):
        return any(has_invalid(value) for _, value in node.entries)
    return False


def describe(value: Any) -> str:
    """Name the type of a plain value for error messages ('a string', 'a number', ...)."""
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, int):
        return 'an integer'
    if isinstance(value, float):
        return 'a number'
    if isinstance(value, str):
        return 'a string'
    if isinstance(value, (list, tuple)):
        return 'a list'
    if isinstance(value, dict):
        return 'a mapping'
    return type(value).__name__


def _location(file: str, mark: Any) -> SourceLocation:
    if mark is None:
        return SourceLocation(file)
    return SourceLocation(file, mark.line + 1, mark.column + 1)


class _Expander:
    """Convert a composed PyYAML node graph into located values within budgets."""

    def __init__(self, file: str):
        self.file = file
        self.visited = 0
        self.errors: list[Diagnostic] = []
        #: converted nodes (id -> value, height): an alias is converted once
        self._done: dict[int, tuple[YNode, int]] = {}

    def convert(self, node: yaml.Node, depth: int = 0) -> YNode:
        done = self._done.get(id(node))
        if done is not None:  # an alias of a converted node: values are immutable, share
            result, height = done
            if depth + height > MAX_DEPTH:
                raise TreeError.single(_location(self.file, node.start_mark),
                                       f'nesting deeper than {MAX_DEPTH} levels')
            return result
        result = self._convert(node, depth)
        height = 1 + max((self._done[id(child)][1] for child in _children(node)
                          if id(child) in self._done), default=-1)
        self._done[id(node)] = (result, height)
        return result

    def _convert(self, node: yaml.Node, depth: int) -> YNode:
        self.visited += 1
        if self.visited > MAX_NODES:
            raise TreeError.single(
                _location(self.file, node.start_mark),
                f'document expands to more than {MAX_NODES} values '
                '(YAML aliases used as a bomb?)')
        if depth > MAX_DEPTH:
            raise TreeError.single(_location(self.file, node.start_mark),
                                   f'nesting deeper than {MAX_DEPTH} levels')
        loc = _location(self.file, node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, loc)
        if node.tag not in _SAFE_TAGS:
            raise TreeError.single(loc, f'unsupported YAML tag {node.tag!r}')
        if isinstance(node, yaml.SequenceNode):
            return YSeq(loc, tuple(self.convert(child, depth + 1) for child in node.value))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, loc, depth)
        raise TreeError.single(loc, f'unsupported YAML node {type(node).__name__}')

    def _scalar(self, node: yaml.ScalarNode, loc: SourceLocation) -> YScalar:
        if len(node.value) > MAX_SCALAR_CHARS:
            raise TreeError.single(
                loc, f'scalar of {len(node.value)} characters is longer than '
                f'{MAX_SCALAR_CHARS}')
        try:
            value = construct_scalar(node.tag, node.value)
        except ValueError as error:  # reported, and the rest of the file is still read
            self.errors.append(Diagnostic(loc, str(error)))
            return YScalar(loc, None, quoted=node.style in ('"', "'"), invalid=True)
        return YScalar(loc, value, quoted=node.style in ('"', "'"))

    def _key(self, node: yaml.Node, depth: int) -> YScalar:
        """Return a mapping key: always the text as written (``on``, ``1``, ``null``)."""
        loc = _location(self.file, node.start_mark)
        if not isinstance(node, yaml.ScalarNode):
            raise TreeError.single(loc, 'mapping keys must be plain scalars')
        if node.tag == MERGE_TAG:
            raise TreeError.single(loc, "YAML merge keys ('<<') are not supported")
        if node.tag not in _SAFE_SCALAR_TAGS:
            raise TreeError.single(loc, f'unsupported YAML tag {node.tag!r}')
        self.visited += 1
        if len(node.value) > MAX_SCALAR_CHARS:
            raise TreeError.single(
                loc, f'key of {len(node.value)} characters is longer than {MAX_SCALAR_CHARS}')
        return YScalar(loc, node.value, quoted=node.style in ('"', "'"))

    def _mapping(self, node: yaml.MappingNode, loc: SourceLocation, depth: int) -> YMap:
        entries: list[tuple[YScalar, YNode]] = []
        seen: dict[str, SourceLocation] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node, depth + 1)
            text = key.value
            if text in seen:
                self.errors.append(Diagnostic(
                    key.loc, f"duplicate key '{excerpt(text)}' (first at line "
                    f'{seen[text].line})'))
                continue
            seen[text] = key.loc
            entries.append((key, self.convert(value_node, depth + 1)))
        return YMap(loc, tuple(entries))


_SAFE_SCALAR_TAGS = frozenset({
    STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG, TIMESTAMP_TAG, MERGE_TAG})
_SAFE_TAGS = _SAFE_SCALAR_TAGS | {_TAG + 'seq', _TAG + 'map'}


def _check_depth(text: str, file: str, loader: Any = None) -> None:
    """Reject absurd nesting with the event stream, before the recursive composer runs.

    libyaml (PyYAML >= 6.0.4) has a nesting limit of its own and may scan far ahead in a
    flow collection before it yields events; when it reports that limit, the pure-Python
    parser (which yields each event as it reads it) finds where ours is passed.
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader or _LOADER):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise TreeError.single(_location(file, event.start_mark),
                                           f'nesting deeper than {MAX_DEPTH} levels')
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        if loader is None and 'nesting depth' in str(exc.problem or ''):
            _check_depth(text, file, yaml.SafeLoader)
        raise


def decode(data: bytes, file: str) -> str:
    """Decode file bytes as UTF-8 text, rejecting binary and oversize input."""
    if len(data) > MAX_FILE_BYTES:
        raise TreeError.single(SourceLocation(file),
                               f'file is {len(data)} bytes, larger than the '
                               f'{MAX_FILE_BYTES} byte limit for tree files')
    if b'\x00' in data:
        raise TreeError.single(SourceLocation(file), 'file is binary (contains NUL bytes), '
                               'expected YAML text')
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b'\n') + 1
        raise TreeError.single(SourceLocation(file, line, 1),
                               f'invalid UTF-8 at byte {exc.start}, expected YAML text') from None
    return text


#: PyYAML contexts whose mark is where the user's mistake is: the key that lacks its
#: ':', the quote that is never closed (the problem is found lines later).
_MISTAKE_AT_CONTEXT = ('while scanning a simple key', 'while scanning a quoted scalar',
                       'while scanning a block scalar')


def _syntax_error(text: str, exc: yaml.MarkedYAMLError) -> tuple[Any, str]:
    """Return where a YAML syntax error was made, and the message for it.

    PyYAML reports where it noticed the problem, often the line after the mistake
    (``Running work`` without its ':' is noticed at the next key). This returns the
    place the user wrote wrong: the context's mark for the contexts above, the start of
    a plain text that ran on into a ':' on a later line; else the problem's mark, with
    the context's place named when it is on another line.
    """
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or 'invalid YAML'
    context = f' ({exc.context})' if exc.context and exc.problem else ''
    if mark is not None and _char_at(text, mark) == '\t':
        return mark, 'a tab character; YAML indentation must use spaces'
    if exc.context in _MISTAKE_AT_CONTEXT and exc.context_mark is not None:
        return exc.context_mark, f'{problem}{context}'
    if (exc.problem or '').startswith('mapping values are not allowed') and mark is not None:
        start = _run_on_plain_text(text, mark)
        if start is not None:
            return start, (f"the text here runs on to line {mark.line + 1}, where a ':' is "
                           f"not allowed: a ':' missing here, or line {mark.line + 1} "
                           'indented too deep?')
    if (exc.context or '').startswith('while ') and exc.context_mark is not None \
            and mark is not None and exc.context_mark.line != mark.line:
        context = f' ({exc.context} at line {exc.context_mark.line + 1}, column ' \
            f'{exc.context_mark.column + 1})'
    return mark, f'{problem}{context}'


def _run_on_plain_text(text: str, mark: Any) -> Any:
    """Return where the plain scalar before the ':' at ``mark`` starts, if on an earlier line."""
    last = None
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if token.start_mark.index >= mark.index:
                break
            last = token
    except yaml.MarkedYAMLError:
        pass
    if isinstance(last, yaml.ScalarToken) and last.plain and last.start_mark.line < mark.line:
        return last.start_mark
    return None


def _char_at(text: str, mark: Any) -> str:
    lines = text.split('\n')
    line: int = mark.line
    column: int = mark.column
    if 0 <= line < len(lines) and 0 <= column < len(lines[line]):
        return lines[line][column]
    return ''


def _children(node: yaml.Node) -> list[yaml.Node]:
    """Return a composed node's children in the order the expander visits them."""
    if isinstance(node, yaml.SequenceNode):
        items: list[yaml.Node] = node.value
        return items
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _expanded_sizes(root: yaml.Node) -> Optional[dict[int, int]]:
    """Count the values each composed node expands to (aliases re-use nodes).

    Work is proportional to the distinct nodes, so an alias bomb is measured without
    being expanded. Counts are capped just above :data:`MAX_NODES`.

    Returns:
        ``id(node) -> count``, or None for a recursive alias (the expander rejects those).
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if leaving:
            active.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            sizes[key] = min(total, MAX_NODES + 1)
            continue
        if key in sizes:
            continue
        if key in active:
            return None
        active.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes


def _overflow_node(root: yaml.Node, sizes: dict[int, int]) -> yaml.Node:
    """Return the node at which expanding ``root`` would pass :data:`MAX_NODES` values."""
    visited = 0
    node = root
    while True:
        visited += 1
        if visited > MAX_NODES:
            return node
        for child in _children(node):
            if visited + sizes[id(child)] <= MAX_NODES:
                visited += sizes[id(child)]
            else:
                node = child
                break
        else:
            return node


def load_text(text: str, file: str, *,
              problems: Optional[list[Diagnostic]] = None) -> Optional[YNode]:
    """Parse one YAML document into located values; None for an empty document.

    Args:
        text: the YAML text
        file: the name locations use
        problems: when given, the problems that leave the rest of the document readable
            (a duplicate key, a scalar that is no value of its type: ``1e400``) are
            appended here, each at its own place, and the document is returned with those
            values left out or marked :attr:`YScalar.invalid`; when None they are raised

    Raises:
        TreeError: on any syntax error or hostile structure; on a duplicate key or an
            unreadable scalar too when ``problems`` is None.
    """
    try:
        _check_depth(text, file)
        composed = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark, message = _syntax_error(text, exc)
        raise TreeError.single(_location(file, mark), f'YAML syntax error: {message}') \
            from None
    except yaml.YAMLError as exc:
        raise TreeError.single(SourceLocation(file),
                               f'YAML error: {str(exc).splitlines()[0]}') from None
    except RecursionError:
        raise TreeError.single(SourceLocation(file),
                               f'nesting deeper than {MAX_DEPTH} levels') from None
    if composed is None:
        return None
    sizes = _expanded_sizes(composed)
    if sizes is not None and sizes[id(composed)] > MAX_NODES:
        # refuse an alias bomb before expanding it, naming where the expansion would stop
        node = _overflow_node(composed, sizes)
        raise TreeError.single(_location(file, node.start_mark),
                               f'document expands to more than {MAX_NODES} values '
                               '(YAML aliases used as a bomb?)')
    expander = _Expander(file)
    try:
        result = expander.convert(composed)
    except RecursionError:
        raise TreeError.single(SourceLocation(file),
                               f'nesting deeper than {MAX_DEPTH} levels') from None
    if expander.errors:
        if problems is None:
            raise TreeError(expander.errors)
        problems.extend(expander.errors)
    return result


def _read(path: str) -> bytes:
    """Read at most one byte more than the limit (a FIFO without a writer reads empty)."""
    # non-blocking open: a named pipe nobody writes to must not hang the loader
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        os.set_blocking(descriptor, True)
        stream = os.fdopen(descriptor, 'rb')
    except BaseException:
        os.close(descriptor)
        raise
    with stream:
        return stream.read(MAX_FILE_BYTES + 1)


def load_value(text: str, file: str = '<value>') -> Any:
    """Parse a YAML value (e.g. a command-line ``--set``) into plain data, same rules.

    Raises:
        TreeError: as :func:`load_text`.
    """
    node = load_text(text, file)
    return None if node is None else node.plain()


def load_file(path: str, *, display_name: Optional[str] = None,
              problems: Optional[list[Diagnostic]] = None) -> Optional[YNode]:
    """Read and parse a YAML file; the error locations use ``display_name`` or ``path``.

    ``problems`` is as for :func:`load_text`.
    """
    name = display_name or path
    try:
        data = _read(path)
    except FileNotFoundError:
        raise TreeError.single(SourceLocation(name), 'file not found') from None
    except IsADirectoryError:
        raise TreeError.single(SourceLocation(name), 'is a directory, expected a YAML file') \
            from None
    except OSError as exc:
        raise TreeError.single(SourceLocation(name), f'cannot read: {exc.strerror}') from None
    return load_text(decode(data, name), name, problems=problems)
