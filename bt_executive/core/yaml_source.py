# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Read YAML into located nodes, safely: bounded size, depth and alias expansion.

PyYAML's composer gives every node a start mark; this module turns its node graph
into small immutable classes (``YScalar``, ``YMap``, ``YSeq``) that keep a
:class:`~bt_executive.core.errors.SourceLocation` for every value, so that every later
error can name file, line and column. Hostile input (binary, huge files, alias
bombs, absurd nesting, duplicate keys) becomes a one-line :class:`TreeError`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Optional, Union

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
import yaml

#: libyaml's parser when PyYAML was built with it (about 10x faster), else pure Python.
_LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)

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
        self._constructor = yaml.SafeLoader('')
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
            value = self._constructor.construct_object(node, deep=True)
        except Exception:  # noqa: B902 - PyYAML raises KeyError, AttributeError, ...
            kind = node.tag.rsplit(':', 1)[-1]
            raise TreeError.single(loc, f'bad scalar {node.value[:40]!r}: not a valid '
                                   f'{kind} (quote it to make it a string)') from None
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            # timestamps, binary: keep the source text, trees have no use for those types
            value = node.value
        return YScalar(loc, value, quoted=node.style in ('"', "'"))

    def _mapping(self, node: yaml.MappingNode, loc: SourceLocation, depth: int) -> YMap:
        entries: list[tuple[YScalar, YNode]] = []
        seen: dict[str, SourceLocation] = {}
        for key_node, value_node in node.value:
            key = self.convert(key_node, depth + 1)
            if not isinstance(key, YScalar) or isinstance(key.value, (list, dict)):
                raise TreeError.single(key.loc, 'mapping keys must be plain scalars')
            if key_node.tag == 'tag:yaml.org,2002:merge':
                raise TreeError.single(key.loc, "YAML merge keys ('<<') are not supported")
            text = key.value if isinstance(key.value, str) else str(key.value)
            key = YScalar(key.loc, text, key.quoted)
            if text in seen:
                self.errors.append(Diagnostic(
                    key.loc, f"duplicate key '{text}' (first at line {seen[text].line})"))
                continue
            seen[text] = key.loc
            entries.append((key, self.convert(value_node, depth + 1)))
        return YMap(loc, tuple(entries))


_SAFE_SCALAR_TAGS = frozenset({
    'tag:yaml.org,2002:str', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float',
    'tag:yaml.org,2002:bool', 'tag:yaml.org,2002:null', 'tag:yaml.org,2002:timestamp',
    'tag:yaml.org,2002:merge',
})
_SAFE_TAGS = _SAFE_SCALAR_TAGS | {'tag:yaml.org,2002:seq', 'tag:yaml.org,2002:map'}


def _check_depth(text: str, file: str) -> None:
    """Reject absurd nesting with the event stream, before the recursive composer runs."""
    depth = 0
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise TreeError.single(_location(file, event.start_mark),
                                       f'nesting deeper than {MAX_DEPTH} levels')
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


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


def load_text(text: str, file: str) -> Optional[YNode]:
    """Parse one YAML document into located values; None for an empty document.

    Raises:
        TreeError: on any syntax error, hostile structure or duplicate key.
    """
    try:
        _check_depth(text, file)
        composed = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or 'invalid YAML'
        context = f' ({exc.context})' if exc.context and exc.problem else ''
        if mark is not None and _char_at(text, mark) == '\t':
            problem, context = 'a tab character; YAML indentation must use spaces', ''
        raise TreeError.single(_location(file, mark),
                               f'YAML syntax error: {problem}{context}') from None
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
        raise TreeError(expander.errors)
    return result


def load_file(path: str, *, display_name: Optional[str] = None) -> Optional[YNode]:
    """Read and parse a YAML file; the error locations use ``display_name`` or ``path``."""
    name = display_name or path
    try:
        with open(path, 'rb') as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise TreeError.single(SourceLocation(name), 'file not found') from None
    except IsADirectoryError:
        raise TreeError.single(SourceLocation(name), 'is a directory, expected a YAML file') \
            from None
    except OSError as exc:
        raise TreeError.single(SourceLocation(name), f'cannot read: {exc.strerror}') from None
    return load_text(decode(data, name), name)
