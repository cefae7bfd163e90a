# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The public face of the expression language: :class:`Expression` and :func:`parse`."""

from __future__ import annotations

from collections.abc import Mapping
import math
import numbers
from typing import Any, Callable, Optional

from bt_executive.core.expressions.errors import EvaluationError, ExpressionError
from bt_executive.core.expressions.functions import DEFAULT_FUNCTIONS
from bt_executive.core.expressions.limits import (INT_LIMIT, MAX_INT_DIGITS, MAX_LENGTH,
                                                  MAX_NESTING, MAX_SUBSTITUTED_DEPTH)
from bt_executive.core.expressions.nodes import (DictDisplay, ExprNode, Field, Index, ListDisplay,
                                                 Literal, Lookup, Name)
from bt_executive.core.expressions.parser import Parser
from bt_executive.core.expressions.rendering import type_name


def _collect_names(root: ExprNode) -> frozenset[str]:
    """Return the root names referenced anywhere under ``root``."""
    names: set[str] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, Name):
            names.add(node.name)
        else:
            pending.extend(node.children())
    return frozenset(names)


class Expression:
    """A parsed, immutable expression; build one with :func:`parse` or :func:`literal`."""

    __slots__ = ('_root', '_text', '_names')

    _root: ExprNode
    _text: str
    _names: frozenset[str]

    def __init__(self, root: ExprNode, text: Optional[str] = None) -> None:
        """Wrap a syntax tree.

        Args:
            root: The root node.
            text: The source text; None uses the canonical rendering of ``root``.
        """
        object.__setattr__(self, '_root', root)
        object.__setattr__(self, '_text', root.render() if text is None else text)
        object.__setattr__(self, '_names', _collect_names(root))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError('Expression is immutable')

    def __delattr__(self, name: str) -> None:
        raise AttributeError('Expression is immutable')

    def __copy__(self) -> Expression:
        return self

    def __deepcopy__(self, memo: Any) -> Expression:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Expression, (self._root, self._text))

    @property
    def text(self) -> str:
        """Return the original source text, or the canonical text for built expressions."""
        return self._text

    @property
    def names(self) -> frozenset[str]:
        """Return the root names read by the expression: its blackboard keys."""
        return self._names

    @property
    def is_constant(self) -> bool:
        """Return whether the expression reads no names."""
        return not self._names

    @property
    def root(self) -> ExprNode:
        """Return the root node of the syntax tree."""
        return self._root

    def evaluate(self, lookup: Lookup) -> Any:
        """Evaluate the expression.

        Args:
            lookup: Returns the value of a root name, or raises KeyError.

        Returns:
            The value of the expression.

        Raises:
            EvaluationError: Whatever went wrong; no other exception escapes.
        """
        try:
            return self._root.evaluate(lookup)
        except EvaluationError:
            raise
        except RecursionError:
            raise EvaluationError('expression is nested too deeply to evaluate') from None
        except Exception as exc:  # noqa: BLE001 - the contract: only EvaluationError
            try:
                detail = str(exc)
            except Exception:  # noqa: BLE001
                detail = ''
            raise EvaluationError(f'{type(exc).__name__}: {detail}') from exc

    def field_paths(self, root: str) -> list[str]:
        """Return the dotted field paths the expression reads below the root name ``root``.

        The longest chain of each read, in reading order, an index written as ``0`` (any
        item): ``len(msg.poses[i].header.frame_id) > 0`` reads ``poses.0.header.frame_id``
        below ``msg``. A bare ``msg`` reads no path. For checking the reads of a message
        against its type before it arrives.
        """
        paths: list[str] = []
        pending = [self._root]
        while pending:
            node = pending.pop()
            parts: list[str] = []
            base = node
            while isinstance(base, (Field, Index)):
                if isinstance(base, Field):
                    parts.append(base.name)
                else:
                    parts.append('0')
                    pending.append(base.index)
                base = base.base
            if parts:
                if isinstance(base, Name) and base.name == root:
                    paths.append('.'.join(reversed(parts)))
                else:
                    pending.append(base)
            else:
                pending.extend(reversed(list(node.children())))
        return paths

    def substitute(self, bindings: Mapping[str, Expression]) -> Expression:
        """Replace root names by other expressions (names not bound stay).

        Args:
            bindings: Expressions by root name.

        Returns:
            The new expression, whose text is its canonical rendering (or ``self`` when
            no bound name is referenced).

        Raises:
            TypeError: A binding is not an Expression.
            ExpressionError: The result would be nested too deeply to evaluate safely.
        """
        roots: dict[str, ExprNode] = {}
        for name, expression in bindings.items():
            if not isinstance(expression, Expression):
                raise TypeError(
                    f"binding for '{name}' must be an Expression, "
                    f'not {type(expression).__name__}')
            if name in self._names:
                roots[name] = expression.root
        if not roots:
            return self
        limit = MAX_SUBSTITUTED_DEPTH
        if self._root.depth + max(node.depth for node in roots.values()) > limit:
            raise ExpressionError(
                f'substitution would nest the expression more than {limit} levels deep',
                1, self._text)
        return Expression(self._root.substitute(roots))

    def __str__(self) -> str:
        return self._root.render()

    def __repr__(self) -> str:
        return f'Expression({self._text!r})'

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expression):
            return NotImplemented
        return self._root == other._root

    def __hash__(self) -> int:
        return hash(self._root)


def parse(text: str, *, functions: Optional[Mapping[str, Callable[..., Any]]] = None
          ) -> Expression:
    """Parse expression text.

    Args:
        text: The expression, at most :data:`MAX_LENGTH` characters.
        functions: Callable functions by name; None means :data:`DEFAULT_FUNCTIONS`.

    Returns:
        The parsed expression.

    Raises:
        ExpressionError: The text is not a valid expression (with the column).
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f'expression text must be a str, not {type(text).__name__}')
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f'expression is too long ({len(text)} characters; the limit is {MAX_LENGTH})',
            MAX_LENGTH + 1, text)
    parser = Parser(text, DEFAULT_FUNCTIONS if functions is None else functions)
    try:
        root = parser.parse()
    except RecursionError:
        raise ExpressionError('expression is nested too deeply',
                              parser.current_column(), text) from None
    return Expression(root, text)


def literal(value: Any) -> Expression:
    """Build a constant expression from a Python value.

    Args:
        value: None, a bool, int, float or str, or a list, tuple or dict (with str keys)
            of those; tuples become lists.

    Returns:
        The constant expression; its ``str()`` parses back to an equal expression.

    Raises:
        TypeError: The value (or a part of it) has an unsupported type.
        ValueError: A float is not finite, an int is too large, or the value is nested
            more than :data:`MAX_NESTING` levels deep.
    """
    return Expression(_literal_node(value, 1))


def _literal_node(value: Any, depth: int) -> ExprNode:
    """Build the node for one literal value."""
    if depth > MAX_NESTING:
        raise ValueError(f'value is nested more than {MAX_NESTING} levels deep')
    if value is None or isinstance(value, bool):
        return Literal(None if value is None else bool(value))
    if isinstance(value, numbers.Integral):
        number = int(value)
        if not -INT_LIMIT < number < INT_LIMIT:
            raise ValueError(f'integer has more than {MAX_INT_DIGITS} digits')
        return Literal(number)
    if isinstance(value, numbers.Real):
        real = float(value)
        if not math.isfinite(real):
            raise ValueError(f'cannot write the non-finite float {real!r} as a literal')
        return Literal(real)
    if isinstance(value, str):
        return Literal(str(value))
    if isinstance(value, (list, tuple)):
        return ListDisplay(tuple(_literal_node(item, depth + 1) for item in value))
    if isinstance(value, Mapping):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f'dict keys must be strings, got {type_name(key)}')
            items.append((str(key), _literal_node(item, depth + 1)))
        return DictDisplay(tuple(items))
    raise TypeError(f'cannot make a literal from {type_name(value)}')


def referenced_names(text: str, *,
                     functions: Optional[Mapping[str, Callable[..., Any]]] = None
                     ) -> frozenset[str]:
    """Return the root names (blackboard keys) that expression text reads.

    Args:
        text: The expression text.
        functions: As for :func:`parse`.

    Returns:
        The root names.

    Raises:
        ExpressionError: The text is not a valid expression.
    """
    return parse(text, functions=functions).names
