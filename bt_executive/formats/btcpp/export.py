# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Export trees as BehaviorTree.CPP v4 XML for BT.CPP and Groot2, built with ElementTree.

:func:`export_element` builds the document as an :class:`xml.etree.ElementTree.Element`
and :func:`export_xml` writes it. Every named tree becomes one ``<BehaviorTree>``; our
node types become BT.CPP built-ins where the semantics match (``docs/btcpp.md`` has the
table) and every other node is written as ``<Publish .../>`` with its ports declared in
``<TreeNodesModel>``; what XML has no place for (initial blackboard, subscriptions,
descriptions) goes into a ``<!-- bt_executive {...} -->`` comment so that importing the
file gives the same document back. With ``uids`` the result is the tree the way BT.CPP's
Groot2 publisher sends a running tree: one ``<BehaviorTree>`` per subtree *instance* with
``_fullpath``, and ``_uid`` on every node (:func:`~bt_executive.formats.btcpp.uid_map`).

No ROS imports here: this is the core layer.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping, Optional
from xml.etree import ElementTree

from bt_executive.core import yaml_source
from bt_executive.core.errors import Diagnostic, TreeError
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.core.spec import Document, NodeSpec, TreeSpec
from bt_executive.formats.btcpp.mapping import (BTCPP_FORMAT, builtin_form, canonical,
                                                CONDITION_LEAVES, DEFAULTS_MARKER, encode_value,
                                                META_TAG, META_VERSION, OWN_PREFIX, RESERVED_IDS,
                                                XML_INVALID, yamlish)

#: The XML declaration that starts an exported document.
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'
#: One level of indentation in an exported document.
INDENT = '  '


def _element(tag: str, attrs: Iterable[tuple[str, str]] = (),
             text: Optional[str] = None) -> ElementTree.Element:
    """Return a new element with attributes in the given order and optional text."""
    element = ElementTree.Element(tag, dict(attrs))
    element.text = text
    return element


def xml_attribute(value: str) -> str:
    """Return an attribute value escaped as the exporter writes it between double quotes."""
    written = ElementTree.tostring(ElementTree.Element('a', v=value), encoding='unicode')
    return written[len('<a v="'):-len('" />')]


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


def _port_model(param: Param) -> ElementTree.Element:
    """Return the ``<input_port>`` model of one of our parameters, documented."""
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
    return _element('input_port', attrs, text=doc)


class _Exporter:
    """Turn node specs into elements, collecting the problems and the node types used."""

    def __init__(self, document: Document, registry: Registry,
                 uids: Optional[Mapping[str, int]]):
        self.document = document
        self.registry = registry
        self.uids = uids
        self.errors: list[Diagnostic] = []
        self.own_types: dict[str, NodeType] = {}
        #: our path of a subtree call -> BT.CPP ``_fullpath`` of its instance
        self.fullpaths: dict[str, str] = {}

    def node(self, spec: NodeSpec, prefix: str = '') -> ElementTree.Element:
        """Return the element of a node and its children (``prefix``: a subtree call path)."""
        node_type = self.registry.get(spec.type)
        path = f'{prefix}/{spec.path}' if prefix else spec.path
        attrs: list[tuple[str, str]] = []
        if node_type.category is Category.SUBTREE:
            return self._subtree(spec, node_type, path, attrs)
        mapped = builtin_form(spec, node_type, self.registry)
        if mapped is not None:
            bt_id, ports, markers = mapped
            tag = bt_id
        else:
            # The compact form <Publish .../>: BT.CPP 4.8 rejects the explicit form
            # <Action ID="Publish"/> under ReactiveSequence and ReactiveFallback.
            tag = own_id(spec.type)
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
            attrs.append(('name', tag))  # BT.CPP names an unnamed node by its ID
        if self.uids is not None:
            attrs.append(('_uid', str(self._uid(path))))
        attrs.extend(ports.items())
        attrs.extend(markers.items())
        self._check_text(spec, attrs)
        element = _element(tag, attrs)
        element.extend(self.node(child, prefix) for child in spec.children)
        return element

    def _uid(self, path: str) -> int:
        """Return the uid of a node path.

        Raises:
            ValueError: if the uids lack it.
        """
        if path not in self.uids:
            raise ValueError(f"no uid for node '{path}'")
        return self.uids[path]

    def _subtree(self, spec: NodeSpec, node_type: NodeType, path: str,
                 attrs: list[tuple[str, str]]) -> ElementTree.Element:
        """Return the ``<SubTree>`` element of a subtree call."""
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
        return _element('SubTree', attrs)

    def _check_text(self, spec: NodeSpec, attrs: list[tuple[str, str]]) -> None:
        """Record a problem for every attribute value XML cannot carry."""
        for key, value in attrs:
            if XML_INVALID.search(value):
                self.errors.append(Diagnostic(spec.loc, f"'{key}' holds a control character "
                                              'that XML cannot carry', spec.path))

    # -- the Groot2 form: one BehaviorTree per subtree instance -----------------------------

    def instances(self, tree: TreeSpec) -> list[ElementTree.Element]:
        """Return the BehaviorTree elements of a running tree, as BT.CPP sends them."""
        result: list[ElementTree.Element] = []
        self.fullpaths = {}

        def emit(tree: TreeSpec, fullpath: str, prefix: str) -> None:
            element = _element('BehaviorTree', [('ID', tree.name), ('_fullpath', fullpath)])
            result.append(element)
            self._plan(tree.root, fullpath, prefix)
            element.append(self.node(tree.root, prefix))
            for spec in tree.root.walk():
                if self.registry.get(spec.type).category is Category.SUBTREE:
                    path = f'{prefix}/{spec.path}' if prefix else spec.path
                    called = self.document.trees[spec.params['tree'].data]
                    emit(called, self.fullpaths[path], path)

        emit(tree, '', '')
        return result

    def _plan(self, root: NodeSpec, fullpath: str, prefix: str) -> None:
        """Give every subtree call under ``root`` its instance's unique ``_fullpath``."""
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
    """Return what XML has no place for: the content of the ``bt_executive`` comment."""
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
    """Return the text of the ``bt_executive`` comment (without the spaces around it)."""
    text = json.dumps(meta, ensure_ascii=False, separators=(', ', ': '))
    if XML_INVALID.search(text):
        text = json.dumps(meta, ensure_ascii=True, separators=(', ', ': '))
    # A comment may not hold '--'; in JSON it can only occur inside strings.
    return f"{META_TAG} {text.replace('--', '-' + chr(92) + 'u002d')}"


def _models(exporter: _Exporter, trees: list[str], document: Document,
            registry: Registry, all_models: bool) -> ElementTree.Element:
    """Return ``<TreeNodesModel>``: our node types used (or all) and the tree parameters."""
    models = _element('TreeNodesModel')
    types = registry.types() if all_models else list(exporter.own_types.values())
    for node_type in sorted(types, key=lambda t: own_id(t.name)):
        if node_type.category is Category.SUBTREE:
            continue
        element = ElementTree.SubElement(models, model_tag(node_type),
                                         {'ID': own_id(node_type.name)})
        element.extend(_port_model(param) for param in node_type.params)
    for name in trees:
        tree = document.trees[name]
        if not tree.params:
            continue
        element = ElementTree.SubElement(models, 'SubTree', {'ID': name})
        for param, default in tree.params.items():
            port = ElementTree.SubElement(element, 'input_port', {'name': param})
            if default is not None:
                port.set('default', encode_value(default.data, ParamType.ANY))
    return models


def export_element(document: Document, *, tree_name: Optional[str] = None,
                   uids: Optional[Mapping[str, int]] = None, registry: Optional[Registry] = None,
                   all_models: bool = False) -> ElementTree.Element:
    """Return the ``<root>`` element of a BT.CPP v4 XML document for a loaded document.

    It is what :func:`export_xml` writes: indented with :func:`ElementTree.indent`, the
    ``bt_executive`` comment first in ``<root>`` (without ``uids``).

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
    root = _element('root', [('BTCPP_format', BTCPP_FORMAT)])
    if uids is not None:
        tree = document.tree(tree_name)
        trees = _called_trees(document, tree.name, registry)
        root.extend(exporter.instances(tree))
    else:
        if tree_name is not None:
            main: Optional[str] = document.tree(tree_name).name
            trees = _called_trees(document, main, registry)
        else:
            main = document.main if document.main is not None or len(document.trees) != 1 \
                else next(iter(document.trees))
            trees = list(document.trees)
        if main is not None:
            root.set('main_tree_to_execute', main)
        # ElementTree writes a comment as <!--text-->: the spaces make it <!-- text -->
        root.append(ElementTree.Comment(f' {_meta_comment(_meta(document, trees))} '))
        for name in trees:
            element = ElementTree.SubElement(root, 'BehaviorTree', {'ID': name})
            element.append(exporter.node(document.trees[name].root))
    if exporter.errors:
        raise TreeError(exporter.errors)
    root.append(_models(exporter, trees, document, registry, all_models))
    ElementTree.indent(root, INDENT)
    return root


def export_xml(document: Document, *, tree_name: Optional[str] = None,
               uids: Optional[Mapping[str, int]] = None,
               registry: Optional[Registry] = None, all_models: bool = False) -> str:
    """Return a BT.CPP v4 XML document for a loaded document.

    The arguments and errors are those of :func:`export_element`; the text is its element
    after the XML declaration, with a final newline.
    """
    root = export_element(document, tree_name=tree_name, uids=uids, registry=registry,
                          all_models=all_models)
    return f"{XML_DECLARATION}\n{ElementTree.tostring(root, encoding='unicode')}\n"


def digest(document: Document) -> dict[str, Any]:
    """Return a comparable summary of a document, without source locations.

    Trees (parameters, description, every node's type, name, parameters as written and
    children), main (the only tree of a file without ``main``), initial blackboard and
    subscriptions: what a round trip through XML must keep. Values compare with
    :func:`canonical` (1 equals 1.0, not true).
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
    main = document.main
    if main is None and len(document.trees) == 1:
        main = next(iter(document.trees))  # the only tree is the main tree
    return {
        'main': main,
        'trees': {name: (tuple((param, None if default is None
                                else canonical(yamlish(default.data)))
                               for param, default in tree.params.items()),
                         tree.doc, node(tree.root))
                  for name, tree in document.trees.items()},
        'blackboard': canonical({key: yamlish(value.data)
                                 for key, value in document.blackboard.items()}),
        'subscriptions': canonical(subscriptions),
    }


__all__ = ['INDENT', 'XML_DECLARATION', 'digest', 'export_element', 'export_xml', 'model_tag',
           'own_id', 'xml_attribute']
