# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""What ``bt-executive validate`` (and ``tick``) check of a tree file, all in one run.

Each stage reports what it can judge even when an earlier one found errors: the loader
with the ROS checks as its document checks (:mod:`bt_executive.ros.checks`, when ROS can
be imported), then the build of every tree no error is in. The ROS checks are passed in
as a module, so nothing here imports ROS.
"""

from __future__ import annotations

from typing import Any, Optional, TYPE_CHECKING

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError

if TYPE_CHECKING:  # the command line imports this module; py_trees only when it builds
    from bt_executive.core.builder import BuildContext, BuiltTree
    from bt_executive.core.registry import Registry
    from bt_executive.core.spec import Document

__all__ = ['build_tree', 'buildable_trees', 'damaged_trees', 'in_file_order', 'uses_ros',
           'validate_document', 'validate_file']


def build_tree(registry: Registry, document: Document, tree_name: Optional[str],
               **context_args: Any) -> tuple[BuiltTree, BuildContext]:
    """Build a tree of ``document``; return it and its build context.

    Raises:
        TreeError: when the tree cannot be built.
    """
    from bt_executive.core.builder import BuildContext, Builder
    context = BuildContext(registry=registry, document=document, **context_args)
    return Builder(context).build(tree_name), context


def validate_file(path: str, registry: Registry, *, tree: Optional[str] = None,
                  ros: Any = None) -> Document:
    """Run every check the tools run when they load ``path``; return the document.

    The loader's checks and, given the ROS checks module ``ros``, the checks the executive
    runs at load (subscriptions, ROS leaves, names, message fields) run on the file as far
    as it loads; then the trees are built (:func:`validate_document`). When the loader
    found errors, each tree no loader error is in (nor in a tree it calls) is still
    built, with the offline leaves, so its build problems are reported in the same run
    (a ROS check's error leaves the tree whole: it is built too).

    Raises:
        TreeError: with every problem found (and the warnings found beside them).
    """
    from bt_executive.core.loader import Loader
    from_ros: list[Diagnostic] = []

    def ros_checks(document: Document) -> list[Diagnostic]:
        found: list[Diagnostic] = ros.document_check(registry)(document)
        from_ros.extend(found)
        return found

    loader = Loader(registry, checks=[ros_checks] if ros else [])
    try:
        document = loader.load(path)
    except TreeError as error:
        if loader.document is None:
            raise
        errors = list(error.diagnostics)
        loader_errors = [found for found in errors if found not in from_ros]
        for name in _trees_to_build(loader.document, tree, loader_errors):
            try:
                build_tree(registry, loader.document, name)
            except TreeError as built:
                errors.extend(built.diagnostics)
        raise TreeError(in_file_order(errors), warnings=error.warnings) from None
    document.warnings = validate_document(registry, document, tree=tree, ros=ros,
                                          checked=True)
    return document


def validate_document(registry: Registry, document: Document, *, tree: Optional[str] = None,
                      ros: Any = None, checked: bool = False) -> list[Diagnostic]:
    """Run the checks the tools run when they load a file; return the warnings.

    The loader's checks already ran (and the ROS checks, when ``checked``). Given the ROS
    checks module ``ros``, this runs the checks the executive runs at load (unless
    ``checked``) and builds with the executive's leaf factories; it builds ``tree``
    (default: every tree that can be built on its own, :func:`buildable_trees`).

    Raises:
        TreeError: with every problem found.
    """
    warnings = list(document.warnings)
    errors: list[Diagnostic] = []
    if ros is not None and not checked:
        for diagnostic in ros.document_check(registry)(document):
            (warnings if diagnostic.warning else errors).append(diagnostic)
    # build the leaves as the executive does (with ROS problems: stubs, else reported twice)
    build_with = ros.build_registry(registry) if ros is not None and not errors \
        else registry
    for name in _trees_to_build(document, tree, []):  # the ROS checks leave trees whole
        try:
            build_tree(build_with, document, name)
        except TreeError as error:
            errors.extend(error.diagnostics)
    if errors:
        raise TreeError(in_file_order(errors), warnings=warnings)
    if tree is None and document.needs_tree_choice:
        warnings.append(Diagnostic(
            SourceLocation(document.path), "the file defines several trees and no 'main': "
            "to run it, set the executive's 'tree_name' parameter or give bt-executive tick "
            f"and render --tree NAME (trees: {', '.join(sorted(document.trees))})",
            warning=True))
    return warnings


def _trees_to_build(document: Document, tree: Optional[str],
                    errors: list[Diagnostic]) -> list[str]:
    """Return ``tree`` or the buildable trees, without those the loader ``errors`` damaged.

    In place of a damaged tree come the trees it calls that can be built on their own
    (no required parameter), so their problems are not left for the next run.
    """
    damaged = damaged_trees(document, errors)
    calls = _calls(document)
    pending = [tree] if tree else buildable_trees(document)
    names: list[str] = []
    while pending:
        name = pending.pop(0)
        if name in names or name not in document.trees:
            continue
        if name not in damaged:
            names.append(name)
            continue
        pending.extend(called for called in sorted(calls[name])
                       if called in document.trees and all(
                           value is not None for value in document.trees[called].params.values()))
    return names


def _calls(document: Document) -> dict[str, set[str]]:
    """Return the trees each tree calls directly (its literal ``Subtree`` targets)."""
    return {name: {node.params['tree'].data for node in tree.root.walk()
                   if node.type == 'Subtree' and 'tree' in node.params}
            for name, tree in document.trees.items()}


def damaged_trees(document: Document, errors: list[Diagnostic]) -> set[str]:
    """Return the trees an error is in, and every tree that calls one of them.

    An error belongs to the tree its node path starts with, or, without a path, to the
    tree whose definition it is written in. Building such a tree would report what is
    missing from it again, not new problems.
    """
    starts = sorted((tree.loc.file, tree.loc.line, name)
                    for name, tree in document.trees.items())
    damaged = set()
    for error in errors:
        head = error.node_path.split('/', 1)[0]
        if head in document.trees:
            damaged.add(head)
        elif not error.node_path:
            inside = [name for file, line, name in starts
                      if file == error.location.file and line <= error.location.line]
            if inside:
                damaged.add(inside[-1])
    calls = _calls(document)
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            if name not in damaged and any(c in damaged or c not in document.trees
                                           for c in called):
                damaged.add(name)
                changed = True
    return damaged


def buildable_trees(document: Document) -> list[str]:
    """Return the trees to build when validating: main, plus trees main never calls.

    Trees with required parameters are only built through their callers.
    """
    names = []
    if document.main is not None:
        names.append(document.main)
    reached = set()
    if document.main in document.trees:
        pending = [document.trees[document.main]]
        while pending:
            tree = pending.pop()
            for node in tree.root.walk():
                target = node.params.get('tree') if node.type == 'Subtree' else None
                if target is not None and target.data not in reached \
                        and target.data in document.trees:
                    reached.add(target.data)
                    pending.append(document.trees[target.data])
    for name, tree in document.trees.items():
        if name not in names and name not in reached \
                and all(value is not None for value in tree.params.values()):
            names.append(name)
    return names


def uses_ros(document: Document, registry: Registry) -> bool:
    """Tell whether a document has ROS leaves or subscriptions (what the ROS checks check)."""
    return bool(document.sections.get('subscriptions')) or any(
        getattr(registry.get(node.type), 'ros', False)
        for tree in document.trees.values() for node in tree.root.walk())


def in_file_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sort diagnostics by file (in order of first appearance), line and column."""
    files: dict[str, int] = {}
    for diagnostic in diagnostics:
        files.setdefault(diagnostic.location.file, len(files))
    return sorted(diagnostics, key=lambda d: (files[d.location.file], d.location.line,
                                              d.location.column))
