# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Readable text for values: literal quoting and short previews for error messages."""

from __future__ import annotations

from typing import Any


def type_name(value: Any) -> str:
    """Return a short, readable name for the type of ``value``."""
    if value is None:
        return 'null'
    return type(value).__name__


def preview(value: Any, limit: int = 40) -> str:
    """Return a short representation of ``value`` that never raises."""
    try:
        if isinstance(value, str):
            text = quote_literal(value)
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001 - repr of arbitrary data must not escape
        return f'<{type_name(value)}>'
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return text


def shorten(text: str, limit: int = 40) -> str:
    """Return source text cut to ``limit`` characters for a message (``...`` marks a cut)."""
    return text if len(text) <= limit else text[:limit - 3] + '...'


def names_preview(names: Any, limit: int = 10) -> str:
    """Return a comma-separated, sorted, truncated list of names."""
    shown = sorted(str(name) for name in names)
    text = ', '.join(shown[:limit])
    if len(shown) > limit:
        text += ', ...'
    return text or 'none'


_QUOTE_ESCAPES = {'\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r'}


def quote_literal(text: str) -> str:
    """Return ``text`` as a single-quoted string literal of this language."""
    parts = ["'"]
    for char in text:
        escaped = _QUOTE_ESCAPES.get(char)
        if escaped is not None:
            parts.append(escaped)
        elif char.isprintable():
            parts.append(char)
        else:
            code = ord(char)
            if code < 0x100:
                parts.append(f'\\x{code:02x}')
            elif code < 0x10000:
                parts.append(f'\\u{code:04x}')
            else:
                parts.append(f'\\U{code:08x}')
    parts.append("'")
    return ''.join(parts)
