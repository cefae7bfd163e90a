# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Import BT.CPP v4 XML as our YAML: a safe, located XML reader and the conversion.

:func:`parse_xml` reads XML with expat, refusing DTDs and entities, bounded in size and
depth, keeping the line and column of every element and the comments (the
``bt_executive`` comment carries what XML has no place for). :func:`import_xml` turns the
elements into our YAML; the result is validated with the normal loader and every problem
is reported as ``file:line: element <X>: message``.

No ROS imports here: this is the core layer.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Optional, Union
from xml.parsers import expat

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.loader import child_path, Loader, strip_quotes
from bt_executive.core.registry import Category, ParamType, Registry
from bt_executive.core.spec import Document
from bt_executive.formats.btcpp.mapping import (BTCPP_BUILTINS, BTCPP_FORMAT, BUILTIN_PORTS,
                                                decode_value, DEFAULTS_MARKER, GENERIC_TAGS,
                                                IDENTIFIER, META_TAG, META_VERSION, OWN_PREFIX,
                                                read_builtin, Unsupported)
from bt_executive.formats.btcpp.yaml_dump import dump_yaml, node_yaml, NodeMap

#: Largest XML file accepted by the importer, in bytes.
MAX_XML_BYTES = 4 * 1024 * 1024
#: Deepest element nesting accepted by the importer.
MAX_XML_DEPTH = 100
#: Most elements accepted by the importer.
MAX_XML_ELEMENTS = 20_000
#: BT.CPP's pre/post-condition attributes: scripts we cannot run, refused on import.
_SCRIPT_ATTRIBUTES = frozenset((
    '_skipIf', '_successIf', '_failureIf', '_while', '_onSuccess', '_onFailure',
    '_onHalted', '_post'))


# ---- a safe, located XML reader --------------------------------------------------------------

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
    """Return the error for a problem found while reading XML."""
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


# ---- XML elements -> YAML document -----------------------------------------------------------

class _Importer:
    """Turn the elements of one XML file into a YAML document, collecting every problem."""

    def __init__(self, file: str, registry: Registry):
        self.file = file
        self.registry = registry
        self.errors: list[Diagnostic] = []
        #: node path in the generated YAML -> (element, tag), to relocate loader errors
        self.origins: dict[str, tuple[XElement, str]] = {}
        #: tree ID -> its parameters with their defaults (None: required)
        self.tree_params: dict[str, dict[str, Any]] = {}

    def error(self, element: XElement, message: str) -> None:
        """Record a problem at an element."""
        self.errors.append(Diagnostic(SourceLocation(self.file, element.line, element.column),
                                      message, f'element <{element.tag}>'))

    def document(self, root: XElement) -> dict[str, Any]:
        """Return the YAML document of the ``<root>`` element."""
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
        self.tree_params = _with_call_ports(tree_params, trees)
        tree_params = self.tree_params
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
                out_trees[name] = NodeMap(tree)
            else:
                out_trees[name] = root_node
        if not trees:
            self.error(root, 'no <BehaviorTree> in the file')
        document['trees'] = NodeMap(out_trees)
        return NodeMap(document)

    def _meta(self, root: XElement) -> dict[str, Any]:
        """Return the content of the ``bt_executive`` comment ({} without one)."""
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
        """Return tree name -> parameters with their defaults, from the SubTree models."""
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
        """Return one node element and its children in YAML (None after a problem)."""
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
            for key in attrs if bt_id in BUILTIN_PORTS else ():
                if not key.startswith('_') and key not in BUILTIN_PORTS.get(bt_id, ()):
                    expected = ', '.join(BUILTIN_PORTS.get(bt_id, ())) or 'none'
                    self.error(element, f"unknown port '{key}' for {bt_id} (ports: "
                               f'{expected})')
                    return None
            try:
                kind, params = read_builtin(bt_id, attrs, len(children), self.registry)
            except (Unsupported, ValueError) as error:
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
        display = strip_quotes(name) if name else kind
        path = child_path(parent, display, siblings)
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
        """Return a ``<SubTree>`` call as a Subtree node in YAML (None after a problem)."""
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
            if not IDENTIFIER.match(key):
                self.error(element, f"'{key}' is not a valid tree parameter name")
                continue
            try:
                params[key] = decode_value(text, ParamType.ANY, key)
            except ValueError as error:
                self.error(element, f"argument '{key}': {error}")
        for key, default in self.tree_params.get(target, {}).items():
            if default is None and key not in params and key not in defaults:
                # a port the call leaves out: BT.CPP's _autoremap reads and writes the
                # caller's entry of that name (without it, the subtree's own entry)
                params[key] = '$' + key
        display = strip_quotes(name) if name else 'Subtree'
        self.origins[child_path(parent, display, siblings)] = (element, element.tag)
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


def _with_call_ports(models: dict[str, dict[str, Any]],
                     trees: list[XElement]) -> dict[str, dict[str, Any]]:
    """Add the ports that ``<SubTree>`` calls pass to the parameters from the models.

    BT.CPP needs no model for a subtree: any attribute of a call remaps that port. A port
    that some call passes and no model declares becomes a required parameter; calls that
    leave it out get the same-named key (see :meth:`_Importer._subtree`).
    """
    params = {tree: dict(ports) for tree, ports in models.items()}
    pending = list(reversed(trees))
    while pending:  # depth first, in document order
        element = pending.pop()
        pending.extend(reversed(element.children))
        target = element.attrs.get('ID')
        if element.tag != 'SubTree' or not target:
            continue
        for key in element.attrs:
            if key not in ('ID', 'name') and not key.startswith('_') \
                    and IDENTIFIER.match(key):
                params.setdefault(target, {}).setdefault(key, None)
    return params


# ---- the API ---------------------------------------------------------------------------------

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


__all__ = ['MAX_XML_BYTES', 'MAX_XML_DEPTH', 'MAX_XML_ELEMENTS', 'XElement', 'import_document',
           'import_xml', 'parse_xml', 'read_xml_file']
