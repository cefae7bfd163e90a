# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Load tree files into a validated :class:`~bt_executive.core.spec.Document`.

The language (see ``docs/language.md``)::

    main: Patrol                 # which tree runs
    include: [common.yaml]       # more trees, paths relative to this file
    blackboard: {laps: 0}        # initial blackboard values
    trees:
      Patrol:
        Selector root:           # short form: "Type [name]: children | params | primary"
          - Subtree: EmergencyStop
          - Sequence:
              - Condition: battery.percentage > 0.3
              - Wait: 1.0

Loading is strict and reports every problem of every file in one
:class:`~bt_executive.core.errors.TreeError`, each as ``file:line:col: node path: what was
expected``.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterable, Optional, Sequence

from bt_executive.core import yaml_source
from bt_executive.core.document_checks import check_document
from bt_executive.core.errors import Diagnostic, excerpt, SourceLocation, TreeError
from bt_executive.core.expressions import ExpressionError, parse as parse_expression
from bt_executive.core.key_check import check_reads
from bt_executive.core.registry import Category, hint, NodeType, Param, ParamType, Registry
from bt_executive.core.spec import Document, Dynamic, NodeSpec, TreeSpec, Value
from bt_executive.core.values import check_type, is_key
from bt_executive.core.yaml_source import has_invalid, YMap, YNode, YScalar, YSeq

#: A check of a loaded document that the core cannot make (the ROS layer's): it gets the
#: document as far as it loaded (see :attr:`Document.complete`) and returns its problems
#: (warnings among them are kept as the document's warnings).
DocumentCheck = Callable[[Document], list[Diagnostic]]
#: Top-level keys the core understands.
CORE_SECTIONS = ('main', 'include', 'trees', 'blackboard', 'persistent', 'description')
#: Keys of the explicit node form.
EXPLICIT_KEYS = ('type', 'name', 'params', 'children', 'child')
#: Keys of a tree definition with parameters.
TREE_KEYS = ('root', 'params', 'description')

_IDENTIFIER = re.compile(r'[A-Za-z][A-Za-z0-9_]*\Z')
_REFERENCE = re.compile(r'\$[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*\Z')
_NODE_KEY = re.compile(r'(?P<type>[A-Z][A-Za-z0-9_]*)(\s+(?P<name>.+))?\Z')

#: Most nodes accepted in one document (all files together).
MAX_NODES = 20_000


def strip_quotes(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in '"\'':
        return text[1:-1]
    return text


def is_node_key(key: Any) -> bool:
    """Tell whether a mapping key starts a node in the short form (``Type [name]``)."""
    return isinstance(key, str) and bool(_NODE_KEY.match(key))


class Loader:
    """Load and validate tree files against a registry.

    Every stage reports what it can judge, even when an earlier one found errors: the YAML
    reader keeps reading past a value it cannot read, the loader checks every node it can,
    the document checks skip only calls to trees that did not load, and ``checks`` run on
    the document as far as it loaded. So one run reports every independent problem.

    Args:
        registry: the node types the files may use
        checks: more checks of each loaded document (the ROS layer's), run after the
            loader's own, also when those found errors
    """

    def __init__(self, registry: Registry, *, checks: Sequence[DocumentCheck] = ()):
        self.registry = registry
        self.checks = tuple(checks)
        self.errors: list[Diagnostic] = []
        #: the last document read, as far as it loaded (also when loading raised)
        self.document: Optional[Document] = None
        self._node_count = 0

    # ---- entry points ------------------------------------------------------------

    def load(self, path: str) -> Document:
        """Load ``path`` and its includes.

        Raises:
            TreeError: with every problem found.
        """
        return self._load_document(
            path, lambda document: self._load_file(path, document, stack=[], is_main=True))

    def load_text(self, text: str, *, name: str = '<string>',
                  base_dir: Optional[str] = None) -> Document:
        """Load a document from a string (includes resolve against ``base_dir``).

        Raises:
            TreeError: with every problem found.
        """
        def read(document: Document) -> None:
            root = yaml_source.load_text(text, name, problems=self.errors)
            self._load_root(root, name, document, stack=[name],
                            base_dir=base_dir or os.getcwd(), is_main=True)

        return self._load_document(name, read)

    def _load_document(self, path: str, read: Callable[[Document], None]) -> Document:
        """Read a new document named ``path`` with ``read``, then check it as a whole.

        Raises:
            TreeError: with every problem found.
        """
        self.errors = []
        self._node_count = 0
        self._declared_trees: set[str] = set()
        self._partial_trees: set[str] = set()
        self._trees_lost = False
        document = Document(path=path, trees={})
        self.document = document
        try:
            read(document)
            self._check_persistent(document)
            if not self.errors:
                check_document(document, self.registry, self._error,
                               getattr(self, '_main_loc', None))
            elif not self._trees_lost:
                # every tree was seen, some did not load: check the calls that can be
                # checked, so one run reports every error (calls to those trees skipped)
                check_document(document, self.registry, self._error,
                               getattr(self, '_main_loc', None),
                               failed=(self._declared_trees - set(document.trees))
                               | self._partial_trees)
            if not self.errors:
                document.warnings = check_reads(document, self.registry)
        except TreeError as error:
            self.errors.extend(error.diagnostics)
        else:
            document.complete = document.complete and not self._trees_lost
            for check in self.checks:
                for diagnostic in check(document):
                    (document.warnings if diagnostic.warning else self.errors).append(
                        diagnostic)
        if self.errors:
            raise TreeError(_in_file_order(_unique(self.errors), document.files),
                            warnings=_in_file_order(document.warnings, document.files))
        return document

    # ---- files and sections ---------------------------------------------------------

    def _error(self, loc: SourceLocation, message: str, path: str = '') -> None:
        self.errors.append(Diagnostic(loc, message, path))

    def _lost(self) -> None:
        """Note that a node did not load: the document is incomplete."""
        if self.document is not None:
            self.document.complete = False

    def _load_file(self, path: str, document: Document, *, stack: list[str],
                   is_main: bool, include_loc: Optional[SourceLocation] = None) -> None:
        real = os.path.realpath(path)
        if real in stack:
            cycle = ' -> '.join(os.path.basename(p) for p in stack[stack.index(real):])
            self._trees_lost = True
            self._error(include_loc or SourceLocation(path),
                        f'include cycle: {cycle} -> {os.path.basename(real)}')
            return
        if real in (os.path.realpath(f) for f in document.files):
            return  # included twice through different routes: load once
        first = len(self.errors)
        try:
            root = yaml_source.load_file(path, problems=self.errors)
        except TreeError as error:
            self._trees_lost = True
            self.errors.extend(error.diagnostics)
        else:
            self._load_root(root, path, document, stack=stack + [real],
                            base_dir=os.path.dirname(path) or '.', is_main=is_main)
        finally:  # unreadable, a directory, empty...: at the include line
            if include_loc is not None:
                self.errors[first:] = [self._at_include(d, path, include_loc)
                                       for d in self.errors[first:]]

    @staticmethod
    def _at_include(diagnostic: Diagnostic, path: str,
                    include_loc: SourceLocation) -> Diagnostic:
        """Move a problem of a whole included file (no line) to the ``include:`` line."""
        if diagnostic.location != SourceLocation(path):
            return diagnostic
        if diagnostic.message == 'file not found':
            return Diagnostic(include_loc, f"included file '{excerpt(path)}' not found")
        return Diagnostic(include_loc, f"included file '{excerpt(path)}': "
                          f'{diagnostic.message}', diagnostic.node_path)

    def _load_root(self, root: Optional[YNode], file: str, document: Document, *,
                   stack: list[str], base_dir: str, is_main: bool) -> None:
        document.files.append(file)
        if root is None:
            self._error(SourceLocation(file), "file is empty, expected a mapping with 'trees'")
            return
        if not isinstance(root, YMap):
            self._trees_lost = True
            self._error(root.loc, f"expected a mapping with 'trees' at the top level, "
                        f'got {root.kind}')
            return
        unknown = self._check_keys(root, CORE_SECTIONS + self.registry.sections,
                                   'top-level key')
        main = root.get('main')
        if main is not None:
            if not isinstance(main, YScalar) or not isinstance(main.value, str):
                self._error(main.loc, f"'main' must be a tree name, got {main.kind}")
            elif is_main:
                document.main = main.value
                self._main_loc = main.loc
        include = root.get('include')
        if include is not None:
            listed = len(self.errors)
            items = self._string_list(include, 'include')
            if len(self.errors) > listed:  # a file not named right: its trees are unknown
                self._trees_lost = True
            for item in items:
                if not item.value or '\0' in item.value:
                    self._trees_lost = True
                    self._error(item.loc, f"include '{excerpt(item.value)}': not a file name")
                    continue
                target = item.value if base_dir in ('', '.') or os.path.isabs(item.value) \
                    else os.path.join(base_dir, item.value)
                self._load_file(target, document, stack=stack,
                                is_main=False, include_loc=item.loc)
        blackboard = root.get('blackboard')
        if blackboard is not None:
            self._load_blackboard(blackboard, document)
        persistent = root.get('persistent')
        if persistent is not None:
            self._load_persistent(persistent, document)
        trees = root.get('trees')
        if trees is None:
            if is_main and include is None and not unknown:
                self._error(root.loc, "no 'trees' section: expected a mapping of tree "
                            'names to trees')
        elif not isinstance(trees, YMap):
            self._trees_lost = True
            self._error(trees.loc, f"'trees' must map tree names to trees, got {trees.kind}")
        else:
            for key, value in trees.entries:
                self._load_tree(key, value, document)
        for section in self.registry.sections:
            found = root.get(section)
            if found is not None:
                document.sections.setdefault(section, []).append(found)

    def _check_keys(self, node: YMap, known: Sequence[str], what: str, where: str = '',
                    path: str = '') -> bool:
        """Report each key of ``node`` that is not in ``known``; return whether there was one.

        Args:
            node: the mapping whose keys are checked.
            known: the keys allowed there.
            what: how the message names a key ('key', 'top-level key').
            where: appended to the quoted key (" in tree 'Patrol'").
            path: the node path the errors belong to.
        """
        unknown = False
        for key, _ in node.entries:
            if key.value not in known:
                unknown = True
                self._error(key.loc, f"unknown {what} '{excerpt(key.value)}'{where}"
                            f"{hint(key.value, known)} (expected: {', '.join(known)})", path)
        return unknown

    def _string_list(self, node: YNode, what: str) -> list[YScalar]:
        items = [node] if isinstance(node, YScalar) else list(node) \
            if isinstance(node, YSeq) else None
        if items is None:
            self._error(node.loc, f"'{what}' must be a file name or a list of file names")
            return []
        good = []
        for item in items:
            if isinstance(item, YScalar) and isinstance(item.value, str) and item.value:
                good.append(item)
            else:
                self._error(item.loc, f"'{what}' entries must be file names, got {item.kind}")
        return good

    def _load_blackboard(self, node: YNode, document: Document) -> None:
        if not isinstance(node, YMap):
            self._error(node.loc, f"'blackboard' must map keys to initial values, "
                        f'got {node.kind}')
            return
        for key, value in node.entries:
            if not is_key(key.value) or '.' in key.value:
                self._error(key.loc, f"blackboard key '{excerpt(key.value)}' must be an "
                            'identifier (letters, digits, underscores)')
                continue
            parsed = self._value(value, '', allow_dynamic=False,
                                 what=f"blackboard value '{key.value}'")
            if parsed is not None:
                document.blackboard[key.value] = parsed

    def _load_persistent(self, node: YNode, document: Document) -> None:
        items = [node] if isinstance(node, YScalar) else list(node) \
            if isinstance(node, YSeq) else None
        if items is None:
            self._error(node.loc, f"'persistent' must be a list of blackboard keys, "
                        f'got {node.kind}')
            return
        for item in items:
            if not isinstance(item, YScalar) or not isinstance(item.value, str) \
                    or not is_key(item.value) or '.' in item.value:
                shown = excerpt(str(item.value)) if isinstance(item, YScalar) else item.kind
                self._error(item.loc, f"persistent key '{shown}' must be an identifier "
                            '(letters, digits, underscores)')
                continue
            document.persistent.setdefault(item.value, item.loc)

    def _check_persistent(self, document: Document) -> None:
        """Report persistent keys without an initial value (its type and its reset)."""
        for key, loc in document.persistent.items():
            if key not in document.blackboard:
                self._error(loc, f"persistent key '{excerpt(key)}' has no initial value: "
                            "give it one under 'blackboard' (a resumed mission and a reset "
                            'start from it)')

    def _load_tree(self, key: YScalar, node: YNode, document: Document) -> None:
        name = key.value
        self._declared_trees.add(name)  # even when it does not load (see _load_document)
        if not _IDENTIFIER.match(name):
            self._error(key.loc, f"tree name '{excerpt(name)}' must be an identifier "
                        '(a letter, then letters, digits or underscores)')
            return
        if name in document.trees:
            first = document.trees[name].loc
            self._error(key.loc, f"duplicate tree name '{excerpt(name)}' (first defined at "
                        f'{first})')
            return
        params: dict[str, Optional[Value]] = {}
        doc = ''
        before = len(self.errors)
        root_node: Optional[YNode] = node
        if isinstance(node, YMap) and 'root' in node.keys():
            self._check_keys(node, TREE_KEYS, 'key', f" in tree '{excerpt(name)}'", name)
            root_node = node.get('root')
            params = self._tree_params(node.get('params'), name)
            description = node.get('description')
            if isinstance(description, YScalar) and isinstance(description.value, str):
                doc = description.value
        elif isinstance(node, YMap) and 'params' in node.keys() and 'type' not in node.keys():
            # a tree definition without its root ({type: ..., params: ...} is a node)
            self._error(node.loc, f"tree '{excerpt(name)}' has 'params' but no 'root': write "
                        'params: {...} and root: <node>', name)
            return
        if root_node is None:
            self._error(node.loc, f"tree '{excerpt(name)}' has no root node", name)
            return
        self._tree_param_names = set(params)
        if len(self.errors) > before:  # its parameters, as loaded, may lack some
            self._partial_trees.add(name)
        root = self._node(root_node, name, siblings={})
        if root is None:
            self._lost()
        self._tree_param_names = set()
        if root is not None:
            document.trees[name] = TreeSpec(name=name, root=root, loc=key.loc,
                                            params=params, doc=doc)

    def _tree_params(self, node: Optional[YNode], tree: str) -> dict[str, Optional[Value]]:
        if node is None:
            return {}
        if not isinstance(node, YMap):
            self._error(node.loc, f"'params' of tree '{tree}' must map parameter names to "
                        'defaults (null for a required parameter)', tree)
            return {}
        params: dict[str, Optional[Value]] = {}
        for key, value in node.entries:
            if not _IDENTIFIER.match(key.value) or not key.value[0].islower():
                self._error(key.loc, f"tree parameter '{excerpt(key.value)}' must be a lowercase "
                            'identifier', tree)
                continue
            if isinstance(value, YScalar) and value.value is None:
                params[key.value] = None
            else:
                params[key.value] = self._value(value, tree, allow_dynamic=True,
                                                what=f"default of '{key.value}'")
        return params

    # ---- nodes ---------------------------------------------------------------------

    _tree_param_names: set[str] = set()

    def _node(self, node: YNode, parent_path: str,
              siblings: dict[str, int]) -> Optional[NodeSpec]:
        self._node_count += 1
        if self._node_count > MAX_NODES:
            raise TreeError.single(node.loc, f'more than {MAX_NODES} nodes in one document')
        if isinstance(node, YScalar) and isinstance(node.value, str):
            match = _NODE_KEY.match(node.value)
            if match:
                return self._make_node(match.group('type'), match.group('name'), None,
                                       node.loc, node.loc, parent_path, siblings)
        if not isinstance(node, YMap):
            self._error(node.loc, 'expected a node: a mapping like {Sequence: [...]} or '
                        f'{{type: Sequence, children: [...]}}, got {node.kind}', parent_path)
            return None
        keys = node.keys()
        if 'type' in keys:
            return self._explicit_node(node, parent_path, siblings)
        if len(node) != 1 or not is_node_key(keys[0]):
            bad = next((k for k, _ in node.entries if not is_node_key(k.value)),
                       node.entries[0][0]) if len(node) else None
            if len(node) == 0:
                self._error(node.loc, 'empty mapping, expected a node', parent_path)
            elif len(node) > 1 and all(is_node_key(k) for k in keys):
                self._error(node.entries[1][0].loc, 'a node mapping holds exactly one node '
                            f"type key, found {len(node)} ({excerpt(', '.join(keys))}); write "
                            'sibling nodes as list items', parent_path)
            else:
                assert bad is not None  # the mapping is not empty
                self._error(bad.loc, f"expected a node type (CamelCase, e.g. 'Sequence'), "
                            f"got '{excerpt(bad.value)}'; for the explicit form add 'type:'",
                            parent_path)
            return None
        key, value = node.entries[0]
        match = _NODE_KEY.match(key.value)
        assert match is not None  # is_node_key(keys[0]) held
        return self._make_node(match.group('type'), match.group('name'), value, key.loc,
                               node.loc, parent_path, siblings)

    def _explicit_node(self, node: YMap, parent_path: str,
                       siblings: dict[str, int]) -> Optional[NodeSpec]:
        self._check_keys(node, EXPLICIT_KEYS, 'key', ' in explicit node', parent_path)
        type_node = node.get('type')
        if not isinstance(type_node, YScalar) or not isinstance(type_node.value, str):
            self._error(node.loc if type_node is None else type_node.loc,
                        "'type' must be a node type name", parent_path)
            return None
        name_node = node.get('name')
        name = None
        if name_node is not None:
            if isinstance(name_node, YScalar) and isinstance(name_node.value, (str, int)):
                name = str(name_node.value)
            else:
                self._error(name_node.loc, "'name' must be a string", parent_path)
        params = node.get('params')
        if params is not None and not isinstance(params, YMap):
            self._error(params.loc, f"'params' must be a mapping, got {params.kind}",
                        parent_path)
            params = None
        children: list[YNode] = []
        children_node = node.get('children')
        child_node = node.get('child')
        if children_node is not None and child_node is not None:
            self._error(child_node.loc, "use either 'children' or 'child', not both",
                        parent_path)
        if children_node is not None:
            if isinstance(children_node, YSeq):
                children = list(children_node)
            else:
                self._error(children_node.loc, f"'children' must be a list of nodes, "
                            f'got {children_node.kind}', parent_path)
        elif child_node is not None:
            children = [child_node]
        return self._finish_node(type_node.value, name, params.entries if params else (),
                                 children, type_node.loc, node.loc, parent_path, siblings,
                                 type_loc=type_node.loc)

    def _make_node(self, type_name: str, name: Optional[str], value: Optional[YNode],
                   key_loc: SourceLocation, node_loc: SourceLocation, parent_path: str,
                   siblings: dict[str, int]) -> Optional[NodeSpec]:
        node_type = self.registry.get(type_name)
        params: list[tuple[YScalar, YNode]] = []
        children: list[YNode] = []
        if value is None or (isinstance(value, YScalar) and value.value is None
                             and not value.invalid):
            pass
        elif isinstance(value, YSeq):
            children = list(value)
        elif isinstance(value, YMap):
            uppercase = [(k, v) for k, v in value.entries if is_node_key(k.value)]
            params = [(k, v) for k, v in value.entries
                      if not is_node_key(k.value) and k.value not in ('children', 'child')]
            explicit = [(k, v) for k, v in value.entries if k.value in ('children', 'child')]
            if explicit and uppercase:
                self._error(uppercase[0][0].loc, "write children either under 'children:' "
                            'or as node keys, not both', parent_path)
            for key, item in explicit:
                if key.value == 'children':
                    if isinstance(item, YSeq):
                        children.extend(item)
                    else:
                        self._error(item.loc, f"'children' must be a list of nodes, "
                                    f'got {item.kind}', parent_path)
                else:
                    children.append(item)
            for key, item in uppercase:
                children.append(YMap(key.loc, ((key, item),)))
        else:  # scalar short form: the primary parameter
            if node_type is not None and node_type.primary is None:
                path = child_path(parent_path, name or type_name, {})
                self._error(value.loc, f'{node_type.name} takes '
                            f'{_short_form_help(node_type)}, not {value.kind}', path)
                return None
            primary = node_type.primary if node_type is not None else '?'
            params = [(YScalar(value.loc, primary), value)]
        return self._finish_node(type_name, name, params, children, key_loc, node_loc,
                                 parent_path, siblings, type_loc=key_loc)

    def _finish_node(self, type_name: str, name: Optional[str],
                     params: Iterable[tuple[YScalar, YNode]], children: list[YNode],
                     key_loc: SourceLocation, node_loc: SourceLocation, parent_path: str,
                     siblings: dict[str, int], *, type_loc: SourceLocation) -> Optional[NodeSpec]:
        node_type = self.registry.get(type_name)
        display = strip_quotes(name) if name else type_name
        path = child_path(parent_path, display, siblings)
        if node_type is None:
            self._error(type_loc, f"unknown node type '{excerpt(type_name)}'"
                        f'{hint(type_name, [t.name for t in self.registry.types()])}'
                        " (run 'bt-executive nodes' for the catalogue)", path)
            # still walk the children so their errors are reported too
            child_names: dict[str, int] = {}
            for child in children:
                self._node(child, path, child_names)
            return None
        values = self._params(node_type, params, key_loc, path)
        child_specs: list[NodeSpec] = []
        child_names = {}
        for child in children:
            spec = self._node(child, path, child_names)
            if spec is not None:
                child_specs.append(spec)
            else:
                self._lost()
        count = len(children)
        low, high = node_type.min_children, node_type.max_children
        if count < low or (high is not None and count > high):
            self._error(key_loc, f'{node_type.name} takes {node_type.describe_children()}, '
                        f'got {count}', path)
        return NodeSpec(type=node_type.name, name=display, params=values,
                        children=child_specs, loc=key_loc, path=path)

    # ---- parameters ------------------------------------------------------------------

    def _params(self, node_type: NodeType, entries: Iterable[tuple[YScalar, YNode]],
                node_loc: SourceLocation, path: str) -> dict[str, Value]:
        values: dict[str, Value] = {}
        is_subtree = node_type.category is Category.SUBTREE
        for key, node in entries:
            name = key.value
            param = node_type.param(name)
            if param is None:
                if is_subtree and _IDENTIFIER.match(name):
                    # arguments to the called tree; checked against its params later
                    value = self._value(node, path, allow_dynamic=True,
                                        what=f"argument '{name}'")
                    if value is not None:
                        values[name] = value
                    continue
                expected = ', '.join(node_type.param_names()) or 'none'
                self._error(key.loc, f"unknown parameter '{excerpt(name)}' for {node_type.name}"
                            f'{hint(name, node_type.param_names())} (expected: {expected})',
                            path)
                continue
            value = self._param_value(param, node, path)
            if value is not None:
                values[name] = value
        for param in node_type.params:
            if param.required and param.name not in values and not any(
                    k.value == param.name for k, _ in entries):
                self._error(node_loc, f"{node_type.name} needs parameter '{param.name}' "
                            f'({param.describe_type()}: {param.doc})', path)
        return values

    def _param_value(self, param: Param, node: YNode, path: str) -> Optional[Value]:
        what = f"parameter '{param.name}'"
        if has_invalid(node):
            return None  # the YAML reader reported it
        if param.type is ParamType.EXPRESSION:
            if isinstance(node, YScalar) and isinstance(node.value, bool):
                return Value(Dynamic(parse_expression('true' if node.value else 'false'),
                                     node.loc, str(node.value).lower()), node.loc)
            if not isinstance(node, YScalar) or not isinstance(node.value, str):
                self._error(node.loc, f'{what} must be an expression string, got {node.kind}',
                            path)
                return None
            text = node.value
            if text.startswith('${') and text.endswith('}'):
                inner, offset = text[2:-1], 2
            elif _REFERENCE.match(text):
                inner, offset = text[1:], 1
            else:
                inner, offset = text, 0
            dynamic = self._expression(inner, node, path, offset)
            return Value(dynamic, node.loc) if dynamic else None
        value = self._value(node, path, allow_dynamic=True, what=what)
        if value is None:
            return None
        if not value.is_static:
            if not param.dynamic:
                outside = value.names() - self._tree_param_names
                if outside:
                    self._error(node.loc, f'{what} must be known when the tree is built: '
                                'use a literal or a tree parameter, not the blackboard '
                                f"value '{excerpt(sorted(outside)[0])}'", path)
                    return None
            return value
        problem = check_type(param, value.data)
        if problem:
            self._error(node.loc, f'{what}: {problem}', path)
            return None
        return value

    def _expression(self, text: str, node: YScalar, path: str,
                    offset: int) -> Optional[Dynamic]:
        try:
            expression = parse_expression(text)
        except ExpressionError as error:
            column_shift = offset + (1 if node.quoted else 0) + error.column - 1
            self._error(node.loc.shifted(column_shift),
                        f"bad expression '{excerpt(text, error.column)}': {error.message}", path)
            return None
        return Dynamic(expression, node.loc, node.value)

    def _value(self, node: YNode, path: str, *, allow_dynamic: bool,
               what: str) -> Optional[Value]:
        if has_invalid(node):
            return None  # the YAML reader reported it
        ok = True

        def convert(item: YNode) -> Any:
            nonlocal ok
            if isinstance(item, YMap):
                return {key.value: convert(value) for key, value in item.entries}
            if isinstance(item, YSeq):
                return [convert(value) for value in item]
            assert isinstance(item, YScalar)
            text = item.value
            if not isinstance(text, str) or not text.startswith('$'):
                return text
            if text.startswith('$$'):
                return text[1:]
            if not allow_dynamic:
                self._error(item.loc, f'{what} must be a literal, not a blackboard '
                            f"reference or expression ('{excerpt(text)}'); write '$$' for a "
                            "literal '$'", path)
                ok = False
                return None
            if text.startswith('${') and text.endswith('}'):
                dynamic = self._expression(text[2:-1], item, path, 2)
            elif _REFERENCE.match(text):
                dynamic = self._expression(text[1:], item, path, 1)
            else:
                self._error(item.loc, f"bad reference '{excerpt(text)}': expected a blackboard "
                            'reference like $battery.percentage or an expression like '
                            "${battery.percentage * 100} (write '$$' for a literal '$')",
                            path)
                dynamic = None
            if dynamic is None:
                ok = False
            return dynamic

        data = convert(node)
        return Value(data, node.loc) if ok else None


def child_path(parent: str, name: str, siblings: dict[str, int]) -> str:
    count = siblings.get(name, 0) + 1
    siblings[name] = count
    segment = name.replace('/', '\u2215')
    if count > 1:
        segment = f'{segment}#{count}'
    return f'{parent}/{segment}' if parent else segment


def _short_form_help(node_type: NodeType) -> str:
    if node_type.category is Category.COMPOSITE:
        return 'a list of children (or a mapping of parameters with children)'
    if node_type.category is Category.DECORATOR:
        return 'a mapping with its child node (and parameters)'
    return 'a mapping of parameters'


def _in_file_order(diagnostics: list[Diagnostic], files: list[str]) -> list[Diagnostic]:
    """Sort problems by file (main file first, then includes as read), line, column."""
    rank = {file: index for index, file in enumerate(files)}
    return sorted(diagnostics, key=lambda d: (rank.get(d.location.file, len(rank)),
                                              d.location.line, d.location.column))


def _unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[str] = set()
    result = []
    for diagnostic in diagnostics:
        text = str(diagnostic)
        if text not in seen:
            seen.add(text)
            result.append(diagnostic)
    return result


def load(path: str, registry: Registry) -> Document:
    """Load and validate a tree file with the node types of ``registry``.

    Raises:
        TreeError: with every problem found in the file and its includes.
    """
    return Loader(registry).load(path)
