# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Whole-document checks of a loaded tree file: subtree calls, their arguments, recursion.

The :class:`~bt_executive.core.loader.Loader` runs these once every file of a document
has been read: all of them when it loaded without errors, else those that do not involve
a tree that failed to load (none when a file or a ``trees`` section could not be read,
since then which trees exist is not known). Problems are handed to a
``report(loc, message, path)`` callback, so they join the loader's other diagnostics.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Collection, Optional

from bt_executive.core.errors import excerpt, SourceLocation
from bt_executive.core.registry import Category, hint, Registry
from bt_executive.core.spec import Document, NodeSpec, TreeSpec

#: Receives one problem: where it is, what is wrong, and the node path it belongs to.
Report = Callable[..., None]


def check_document(document: Document, registry: Registry, report: Report,
                   main_loc: Optional[SourceLocation] = None, *,
                   failed: Optional[Collection[str]] = None) -> None:
    """Check main and subtree references, subtree arguments and recursion.

    The document must define trees; ``main`` and every statically named subtree call must
    name one of them, each call must pass exactly the parameters the called tree takes
    (all required ones included), and no tree may call itself, directly or not.

    Args:
        document: the loaded document.
        registry: the node types the document was loaded with.
        report: called as ``report(loc, message[, path])`` for each problem.
        main_loc: where ``main`` was set; defaults to the document's file.
        failed: for a document that has errors already (then ``no trees defined`` is not
            one more): the trees that are defined but did not load whole, whose calls are
            not checked. The loader passes these so that one run reports every problem.
    """
    if not document.trees:
        if failed is None:
            report(SourceLocation(document.path), 'no trees defined')
        return
    failed = failed or ()
    defined = list(document.trees) + [name for name in failed if name not in document.trees]
    if document.main is not None and document.main not in document.trees \
            and document.main not in failed:
        report(main_loc if main_loc is not None else SourceLocation(document.path),
               f"main tree '{excerpt(document.main)}' is not defined"
               f'{hint(document.main, defined)} '
               f"(trees: {', '.join(sorted(defined))})")
    calls: dict[str, list[tuple[str, NodeSpec]]] = {}
    for tree in document.trees.values():
        for name, default in tree.params.items():
            if default is not None and _non_finite(default.data):
                report(default.loc, f"default of '{name}': {NOT_FINITE}", tree.name)
        for node in tree.root.walk():
            if registry.require(node.type).category is not Category.SUBTREE:
                continue
            target = node.params.get('tree')
            if target is None or not target.is_static or target.data in failed:
                continue
            called = document.trees.get(target.data)
            if called is None:
                report(target.loc, f"unknown tree '{excerpt(str(target.data))}'"
                       f'{hint(str(target.data), defined)} '
                       f"(trees: {', '.join(sorted(defined))})", node.path)
                continue
            calls.setdefault(tree.name, []).append((called.name, node))
            _check_arguments(node, called, registry, report)
    _check_recursion(document, calls, report)


def _check_arguments(node: NodeSpec, called: TreeSpec, registry: Registry,
                     report: Report) -> None:
    reserved = {p.name for p in registry.require(node.type).params}
    for name, value in node.params.items():
        if name in reserved:
            continue
        if _non_finite(value.data):
            report(value.loc, f"argument '{name}': {NOT_FINITE}", node.path)
        if name not in called.params:
            expected = ', '.join(called.params) or 'none'
            report(value.loc, f"tree '{called.name}' has no parameter '{excerpt(name)}'"
                   f'{hint(name, list(called.params))} (parameters: {expected})',
                   node.path)
    for name, default in called.params.items():
        if default is None and name not in node.params:
            report(node.loc, f"tree '{called.name}' needs argument '{name}' "
                   f'(declared at {called.loc})', node.path)


#: Why a tree argument cannot be .inf or .nan: arguments become expression literals.
NOT_FINITE = 'numbers passed to a tree must be finite (not .inf or .nan)'


def _non_finite(data: Any) -> bool:
    """Tell whether plain data holds a float that is infinite or NaN."""
    if isinstance(data, float):
        return not math.isfinite(data)
    if isinstance(data, dict):
        return any(_non_finite(item) for item in data.values())
    if isinstance(data, list):
        return any(_non_finite(item) for item in data)
    return False


def _check_recursion(document: Document, calls: dict[str, list[tuple[str, NodeSpec]]],
                     report: Report) -> None:
    """Report every subtree cycle once, at the call that closes it (iterative DFS)."""
    done: set[str] = set()
    for start in document.trees:
        if start in done:
            continue
        route = [start]
        on_route = {start}
        iterators = [iter(calls.get(start, []))]
        while iterators:
            step = next(iterators[-1], None)
            if step is None:
                iterators.pop()
                finished = route.pop()
                done.add(finished)
                on_route.discard(finished)
                continue
            target, node = step
            if target in on_route:
                cycle = route[route.index(target):] + [target]
                report(node.loc, f"subtree recursion: {' -> '.join(cycle)}", node.path)
            elif target not in done:
                route.append(target)
                on_route.add(target)
                iterators.append(iter(calls.get(target, [])))
