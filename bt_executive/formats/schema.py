# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The JSON Schema of the tree language, generated from a node registry.

``bt-executive schema`` prints it (docs/schema.md). Editors use it through the YAML
language server's ``# yaml-language-server: $schema=...`` modeline, and any JSON Schema
validator checks a tree file with it before bt_executive sees the file.

The schema follows the loader (``bt_executive/core/loader.py``) so that it never rejects a
file the loader accepts: the short and the explicit node form, node keys ``Type [name]``
of every registered type and alias, each type's parameters with their types, children
counts, subtree arguments, tree definitions with ``params``/``root``, ``blackboard``,
``include`` and the sections the registry declares (``subscriptions``). What it cannot
express is left to the loader: expression syntax, subtree and ``main`` references to
trees, arguments against the called tree's parameters, recursion, files included, limits
(size, depth, node count) and what a factory refuses (docs/schema.md lists them).

Only keywords that draft-07 tools understand the same way are used (no
``unevaluatedProperties``, no ``$ref`` with siblings that matter), so older versions of
the YAML language server, which know only draft-07, check what a 2020-12 validator
checks. Regular expressions are written to mean the same in Python's ``re`` and in
ECMA-262 (JavaScript, where editors run them).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Optional

from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry, REQUIRED

#: The schema's identifier (a tree file's schema depends on the installed plugins).
SCHEMA_ID = 'urn:bt-executive:schema:tree:1'
#: The JSON Schema dialect.
DIALECT = 'https://json-schema.org/draft/2020-12/schema'

#: Python's ``\s`` (``str.isspace``) spelled out, so that ECMA-262 engines match the same.
WHITESPACE = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f' \
    '\\u205f\\u3000]'
#: The optional node name after the type in a node key (``Sequence patrol``).
_NAME = f'{WHITESPACE}+[^\\n]+'
#: Any node key, known type or not (``loader.is_node_key``): keys that start children.
NODE_KEY = f'^[A-Z][A-Za-z0-9_]*(?:{_NAME})?$'
#: A name of a tree or of a tree argument.
_IDENTIFIER = '[A-Za-z][A-Za-z0-9_]*'
_LOWER_IDENTIFIER = '^[a-z][A-Za-z0-9_]*$'
#: A blackboard reference after ``$`` (the loader's, with ASCII digits as the lexer reads).
_REFERENCE = '\\$[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*|\\[[0-9]+\\])*'
#: A value evaluated while the tree runs: ``$reference`` or ``${expression}``.
DYNAMIC = f'^(?:\\$\\{{[\\s\\S]*\\}}|{_REFERENCE})$'
#: A string that may stand anywhere in a parameter value: not starting with ``$``, or
#: ``$$`` (an escaped dollar), or a reference or an expression.
_STRING = f'^(?!\\$)|^\\$\\$|{DYNAMIC}'
#: A string in a value that must be known when the tree is built, in a tree without
#: parameters: a reference would read the blackboard, a ``${constant expression}`` is fine.
_FIXED_STRING = '^(?!\\$)|^\\$\\$|^\\$\\{[\\s\\S]*\\}$'
#: An expression that must read no blackboard key (the schema cannot check which it reads).
_CONSTANT_EXPRESSION = '^\\$\\{[\\s\\S]*\\}$'
#: A string where only literals are allowed (``blackboard:``): no reference or expression.
_LITERAL_STRING = '^(?!\\$)|^\\$\\$'
_KEY = '^[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*$'
_INTERFACE = '^[a-z][a-z0-9_]*/(?:msg|srv|action)/[A-Z][A-Za-z0-9]*$'
#: The largest finite number: JSON Schema has no "finite", this keeps .inf out.
_LARGEST = 1.7976931348623157e308

_SCALAR_TYPES = ['string', 'number', 'boolean']
#: The scalars a parameter may be given (strings: a $reference or ${expression} too).
_SCALAR_KINDS = {
    ParamType.BOOL: ['boolean', 'string'], ParamType.INT: ['integer', 'string'],
    ParamType.FLOAT: ['number', 'string'], ParamType.EXPRESSION: ['string', 'boolean'],
    ParamType.STRING: ['string'], ParamType.ENUM: ['string'], ParamType.KEY: ['string'],
    ParamType.INTERFACE: ['string'], ParamType.LIST: ['string'],
    ParamType.MAPPING: ['string'],
}


def _ref(name: str) -> dict[str, str]:
    return {'$ref': f'#/$defs/{name}'}


def _def_name(prefix: str, node_type: NodeType, index: int) -> str:
    """Return a ``$defs`` name for a type (plain characters only, for JSON pointers)."""
    if re.fullmatch('[A-Za-z0-9_]+', node_type.name):
        return f'{prefix}_{node_type.name}'
    return f'{prefix}_{index}'


def _names(node_type: NodeType) -> list[str]:
    return list(dict.fromkeys((node_type.name, *node_type.aliases)))


def _alternation(names: Iterable[str]) -> str:
    return '(?:' + '|'.join(re.escape(name) for name in names) + ')'


def _default_text(param: Param) -> str:
    if param.default is REQUIRED:
        return 'required'
    if param.default is None:
        return 'optional'
    return f'default {json.dumps(param.default)}'


def _param_description(param: Param) -> str:
    runtime = '; runtime value ok ($reference or ${expression})' if param.dynamic else ''
    return f'{param.doc} ({param.describe_type()}, {_default_text(param)}{runtime})'


#: The suffix of the ``$defs`` of nodes in a tree with parameters (a ``$reference`` in a
#: parameter that must be known when the tree is built may name a tree parameter there).
_IN_TREE_WITH_PARAMS = '_ptree'


class _Generator:
    """Build the schema of one registry.

    Nodes are described twice: as they may be written in a tree without parameters (where
    ``$reference`` in a parameter that must be known when the tree is built is an error)
    and in a tree with parameters (``$speed`` there may name a tree parameter; which names
    are parameters the schema cannot tell, so it accepts any reference).
    """

    def __init__(self, registry: Registry):
        self.registry = registry
        self.types = registry.types()
        self.value_defs = {id(t): _def_name('node', t, i) for i, t in enumerate(self.types)}
        self.params_defs = {id(t): _def_name('params', t, i) for i, t in enumerate(self.types)}
        every = [name for t in self.types for name in _names(t)]
        self.known_key = f'^{_alternation(every)}(?:{_NAME})?$' if every else '^(?!)'
        #: the schema of every parameter value, by ``$defs`` name (each written once)
        self.param_defs: dict[str, dict[str, Any]] = {}
        #: "at least j of the parameters i.. of a type are present", by ``$defs`` name
        self.count_defs: dict[str, dict[str, Any]] = {}

    def ref(self, name: str, fixed: bool) -> dict[str, str]:
        """Return a reference to a definition of the family of nodes ``fixed`` or not."""
        return _ref(name if fixed else name + _IN_TREE_WITH_PARAMS)

    # ---- values -------------------------------------------------------------------

    def param(self, param: Param, node_type: NodeType, fixed: bool) -> dict[str, str]:
        """Return a reference to the schema of a parameter's value (defined once)."""
        same = param.dynamic or param.type is ParamType.EXPRESSION  # in both families
        index = self.types.index(node_type)
        name = _def_name('param', node_type, index) + f'.{param.name}'
        if not re.fullmatch('[a-z0-9_]+', param.name):
            name = _def_name('param', node_type, index) + f'.{node_type.params.index(param)}'
        if not (fixed or same):
            name += _IN_TREE_WITH_PARAMS
        if name not in self.param_defs:
            self.param_defs[name] = self.param_value(param, node_type, fixed or same)
        return _ref(name)

    def param_value(self, param: Param, node_type: NodeType, fixed: bool) -> dict[str, Any]:
        """Return the schema of a parameter's value, as the loader checks it.

        Args:
            param: the parameter
            node_type: its node type
            fixed: the node is in a tree without parameters: a parameter that must be
                known when the tree is built may not hold a ``$reference`` there
        """
        kind = param.type
        runtime = param.dynamic or not fixed
        value = _ref('value' if runtime else 'fixed_value')
        # a $reference or ${expression} (only ${constant expression} where the value must
        # be known when the tree is built and no tree parameter can be named)
        dynamic = DYNAMIC if runtime else _CONSTANT_EXPRESSION
        schema: dict[str, Any]
        literal: dict[str, Any] = {}
        if kind is ParamType.EXPRESSION:  # the text, or true/false
            schema = {'type': ['string', 'boolean']}
        elif kind is ParamType.ANY:
            schema = {'allOf': [value]}
        elif kind is ParamType.STRING and not (
                node_type.category is Category.SUBTREE and param.name == 'tree'):
            schema = {'type': 'string', 'pattern': _STRING if runtime else _FIXED_STRING}
        else:
            if kind is ParamType.BOOL:
                literal = {'type': 'boolean'}
            elif kind is ParamType.INT:
                literal = {'type': 'integer', **self._bounds(param)}
            elif kind is ParamType.FLOAT:
                literal = {'type': 'number', 'minimum': -_LARGEST, 'maximum': _LARGEST,
                           **self._bounds(param)}
            elif kind is ParamType.ENUM:
                literal = {'enum': list(param.choices)}
            elif kind is ParamType.KEY:
                literal = {'type': 'string', 'pattern': _KEY}
            elif kind is ParamType.INTERFACE:
                literal = {'type': 'string', 'pattern': _INTERFACE}
            elif kind is ParamType.LIST:
                literal = {'type': 'array', 'items': value}
            elif kind is ParamType.MAPPING:
                literal = {'type': 'object', 'additionalProperties': value}
            else:  # the tree a Subtree calls: a tree name
                literal = {'type': 'string', 'pattern': f'^{_IDENTIFIER}$'}
            # a string starting with '$' is a reference or an expression, else a literal
            schema = {'if': {'type': 'string', 'pattern': '^\\$'},
                      'then': {'pattern': dynamic}, 'else': literal}
            if kind in (ParamType.ENUM, ParamType.BOOL):  # editors complete these
                schema['examples'] = list(param.choices) or [True, False]
        if param.dynamic and kind not in (ParamType.LIST, ParamType.MAPPING, ParamType.ANY,
                                          ParamType.EXPRESSION):
            # evaluated while the tree runs: a structure holding references loads too
            schema = {'anyOf': [schema, {'allOf': [{'type': ['array', 'object']},
                                                   _ref('value'), _ref('holds_dynamic')]}]}
        schema['description'] = _param_description(param)
        if param.default is not REQUIRED and param.default is not None:
            schema['default'] = param.default
        return schema

    @staticmethod
    def _bounds(param: Param) -> dict[str, float]:
        bounds = {}
        if param.minimum is not None:
            bounds['minimum'] = param.minimum
        if param.maximum is not None:
            bounds['maximum'] = param.maximum
        return bounds

    # ---- nodes ----------------------------------------------------------------------

    def node_value(self, node_type: NodeType, fixed: bool) -> dict[str, Any]:
        """Return the schema of the value under a node key ``Type [name]:``."""
        required = [p.name for p in node_type.params if p.required]
        low, high = node_type.min_children, node_type.max_children
        schema: dict[str, Any] = {'title': node_type.name,
                                  'description': self._node_description(node_type)}
        kinds = []
        if low == 0 and not required:
            kinds.append('null')  # nothing: no parameters, no children
        if not required:  # a list: the children
            kinds.append('array')
            schema['items'] = self.ref('node', fixed)
            schema.update(self._item_bounds(low, high))
        kinds.append('object')
        primary = node_type.param(node_type.primary) if node_type.primary else None
        if primary is not None and low == 0 and set(required) <= {primary.name}:
            scalars = _SCALAR_KINDS.get(primary.type, _SCALAR_TYPES)
            kinds += scalars  # a scalar: the primary parameter
            schema['if'] = {'type': scalars}
            schema['then'] = self.param(primary, node_type, fixed)
        schema['type'] = kinds
        schema.update(self._mapping_form(node_type, required, fixed))
        return schema

    @staticmethod
    def _item_bounds(low: int, high: Optional[int]) -> dict[str, int]:
        bounds = {}
        if low > 0:
            bounds['minItems'] = low
        if high is not None:
            bounds['maxItems'] = high
        return bounds

    def _mapping_form(self, node_type: NodeType, required: list[str],
                      fixed: bool) -> dict[str, Any]:
        """Return the keywords for a mapping: parameters and children (object-only)."""
        low, high = node_type.min_children, node_type.max_children
        names = node_type.param_names()
        properties: dict[str, Any] = {p.name: self.param(p, node_type, fixed)
                                      for p in node_type.params}
        keywords: dict[str, Any] = {'properties': properties}
        if required:
            keywords['required'] = required
        allowed: list[dict[str, Any]] = []
        if high == 0:  # an empty 'children' list is all a childless node may have
            keywords['patternProperties'] = {'^children$': {'type': 'array', 'maxItems': 0}}
            allowed.append({'enum': names + ['children']})
        else:
            properties['children'] = {
                'type': 'array', 'items': self.ref('node', fixed),
                'description': 'the children in order (instead of node keys)'}
            properties['child'] = {'allOf': [self.ref('node', fixed)],
                                   'description': 'a child (instead of a node key)'}
            allowed += [{'enum': names + ['children', 'child']}, _ref('node_key')]
            keywords['allOf'] = [self.ref('child_keys', fixed),
                                 *self._count_rules(node_type, low, high)]
        if node_type.category is Category.SUBTREE:  # the called tree's arguments
            argument = '^(?!child$)[a-z][A-Za-z0-9_]*$'
            keywords.setdefault('patternProperties', {})[argument] = _ref('argument')
            allowed.append({'pattern': argument})
        keywords['propertyNames'] = allowed[0] if len(allowed) == 1 else {'anyOf': allowed}
        return keywords

    def _count_rules(self, node_type: NodeType, low: int,
                     high: Optional[int]) -> list[dict[str, Any]]:
        """Return the rules on the number of children of the mapping form."""
        names = node_type.param_names()
        either = {'anyOf': [{'required': ['children']}, {'required': ['child']}]}
        rules: list[dict[str, Any]] = [
            # children go either under 'children'/'child' or as node keys
            {'if': either, 'then': {'propertyNames': {'not': _ref('any_node_key')}}}]
        with_child: dict[str, Any] = {}
        bounds = self._item_bounds(max(low - 1, 0), None if high is None else high - 1)
        if bounds:
            with_child['properties'] = {'children': bounds}
        if low > 1:
            with_child['required'] = ['children']
        if with_child:
            rules.append({'if': {'required': ['child']}, 'then': with_child})
        bounds = self._item_bounds(low, high)
        if bounds:
            rules.append({'if': {'required': ['children'], 'not': {'required': ['child']}},
                          'then': {'properties': {'children': bounds}}})
        if low == 0 and high is None:
            return rules
        # children as node keys: their number is the number of keys less the parameters
        # present, counted exactly through "at least j of the parameters i.. are present"
        count = len(names)
        counts: list[Any] = [self._property_bounds(low, None if high is None
                                                   else count + high)]
        if high is not None:  # m keys: at least m - high of them are parameters
            counts += [{'if': {'minProperties': keys},
                        'then': self._at_least(node_type, names, 0, keys - high)}
                       for keys in range(high + 1, count + high + 1)]
        if low > 0:  # at most m keys: at most m - low of them are parameters
            counts += [{'if': {'maxProperties': keys},
                        'then': {'not': self._at_least(node_type, names, 0, keys - low + 1)}}
                       for keys in range(low, count + low)]
        rules.append({'if': {'not': either}, 'then': {'allOf': counts}})
        return rules

    def _at_least(self, node_type: NodeType, names: list[str], index: int,
                  count: int) -> Any:
        """Return a schema: at least ``count`` of ``names[index:]`` are keys (in ``$defs``)."""
        if count <= 0:
            return True
        if count > len(names) - index:
            return False
        name = _def_name('present', node_type, self.types.index(node_type)) \
            + f'.{index}.{count}'
        if name not in self.count_defs:
            self.count_defs[name] = {}  # placeholder: the definition refers further on
            self.count_defs[name] = {
                'if': {'required': [names[index]]},
                'then': self._at_least(node_type, names, index + 1, count - 1),
                'else': self._at_least(node_type, names, index + 1, count)}
        return _ref(name)

    @staticmethod
    def _property_bounds(low: int, high: Optional[int]) -> dict[str, int]:
        bounds = {}
        if low > 0:
            bounds['minProperties'] = low
        if high is not None:
            bounds['maxProperties'] = high
        return bounds

    def explicit_params(self, node_type: NodeType, fixed: bool) -> dict[str, Any]:
        """Return the schema of ``params:`` in the explicit form."""
        schema: dict[str, Any] = {
            'type': 'object',
            'properties': {p.name: self.param(p, node_type, fixed) for p in node_type.params},
            'additionalProperties': False,
        }
        required = [p.name for p in node_type.params if p.required]
        if required:
            schema['required'] = required
        if node_type.category is Category.SUBTREE:
            schema['patternProperties'] = {_LOWER_IDENTIFIER: _ref('argument')}
        return schema

    def _explicit_rule(self, node_type: NodeType, fixed: bool) -> dict[str, Any]:
        low, high = node_type.min_children, node_type.max_children
        then: dict[str, Any] = {'properties': {
            'params': self.ref(self.params_defs[id(node_type)], fixed)}}
        bounds = self._item_bounds(low, high)
        if bounds:
            then['properties']['children'] = bounds
        if any(p.required for p in node_type.params):
            then['required'] = ['params']
        if high == 0 or low > 1:
            then['not'] = {'required': ['child']}
        if low > 0:
            then['anyOf'] = [{'required': ['child']}, {'required': ['children']}]
        return {'if': {'properties': {'type': {'enum': _names(node_type)}}}, 'then': then}

    def _node_description(self, node_type: NodeType) -> str:
        parts = [node_type.doc, f'Children: {node_type.describe_children()}.']
        if node_type.params:
            names = [p.name + ('*' if p.name == node_type.primary else '')
                     for p in node_type.params]
            parts.append('Parameters: ' + ', '.join(names) + '.')
        if node_type.aliases:
            parts.append('Also written: ' + ', '.join(node_type.aliases) + '.')
        return ' '.join(parts)

    # ---- the document ---------------------------------------------------------------

    def node_defs(self, fixed: bool) -> dict[str, Any]:
        """Return the ``$defs`` of one family of nodes (in a tree with parameters or not)."""
        every = [name for t in self.types for name in _names(t)]
        where = 'in a tree without parameters' if fixed else 'in a tree with parameters'
        defs: dict[str, Any] = {
            'node': {
                'title': 'node',
                'description': ('A node: {Type [name]: value} (short form), {type: Type, '
                                'name, params, children | child} (explicit form), or a '
                                f"bare 'Type [name]' for a node without parameters; {where}."),
                'type': ['string', 'object'],
                'if': {'type': 'string'},
                'then': _ref('bare_node'),
                'else': {'if': {'type': 'object', 'required': ['type']},
                         'then': self.ref('explicit_node', fixed),
                         'else': self.ref('short_node', fixed)},
            },
            'short_node': {
                'description': 'one key, the node type and an optional name: Type [name]',
                'type': 'object',
                'minProperties': 1,
                'maxProperties': 1,
                'propertyNames': _ref('node_key'),
                'properties': {name: self.ref(self.value_defs[id(t)], fixed)
                               for t in self.types for name in _names(t)},
                'patternProperties': {
                    f'^{_alternation(_names(t))}{_NAME}$':
                        self.ref(self.value_defs[id(t)], fixed) for t in self.types},
            },
            'explicit_node': {
                'description': 'the explicit form (what generators should emit)',
                'type': 'object',
                'required': ['type'],
                'properties': {
                    'type': {'enum': every, 'description': 'the node type'},
                    'name': {'type': ['string', 'integer', 'boolean'],
                             'description': 'the node name (default: the type)'},
                    'params': {'type': 'object', 'description': 'the parameters'},
                    'children': {'type': 'array', 'items': self.ref('node', fixed),
                                 'description': 'the children in order'},
                    'child': {'allOf': [self.ref('node', fixed)],
                              'description': 'the only child'},
                },
                'additionalProperties': False,
                'not': {'required': ['children', 'child']},
                'allOf': [self._explicit_rule(t, fixed) for t in self.types],
            },
            'child_keys': {  # children written as node keys (no description: hovers
                # show the node type's); the bare type names are listed for completion
                'properties': {name: self.ref(self.value_defs[id(t)], fixed)
                               for t in self.types for name in _names(t)},
                'patternProperties': {
                    f'^{_alternation(_names(t))}(?:{_NAME})?$':
                        self.ref(self.value_defs[id(t)], fixed) for t in self.types},
            },
        }
        for node_type in self.types:
            defs[self.value_defs[id(node_type)]] = self.node_value(node_type, fixed)
            defs[self.params_defs[id(node_type)]] = self.explicit_params(node_type, fixed)
        suffix = '' if fixed else _IN_TREE_WITH_PARAMS
        return {name + suffix: schema for name, schema in defs.items()}

    def defs(self) -> dict[str, Any]:
        """Return every ``$defs`` entry."""
        bare = [name for t in self.types if t.min_children == 0
                and not any(p.required for p in t.params) for name in _names(t)]
        defs: dict[str, Any] = {
            'tree': {
                'description': ('a tree: its root node, or {params: {...}, root: node} for a '
                                'tree with parameters'),
                'if': {'type': 'object', 'required': ['root']},
                'then': _ref('tree_with_params'),
                'else': {
                    'if': {'type': 'object', 'required': ['params'],
                           'not': {'required': ['type']}},
                    'then': {'required': ['root'],
                             'description': "a tree with 'params' needs 'root'"},
                    'else': _ref('node'),
                },
            },
            'tree_with_params': {
                'type': 'object',
                'required': ['root'],
                'properties': {
                    'params': {
                        'type': 'object',
                        'description': ('the parameters and their defaults (null: a '
                                        'required argument)'),
                        'propertyNames': {'pattern': _LOWER_IDENTIFIER},
                        'additionalProperties': _ref('argument'),
                    },
                    'root': {'allOf': [self.ref('node', False)], 'description': 'the root node'},
                    'description': {'description': 'what the tree does'},
                },
                'additionalProperties': False,
            },
            'node_key': {
                'description': 'a node key: a known node type, then optionally a name',
                'pattern': self.known_key,
            },
            'any_node_key': {
                'description': 'a key that starts a child node: CamelCase, then a name',
                'pattern': NODE_KEY,
            },
            'bare_node': {
                'description': 'a node type (and name) that needs no parameter or child',
                'type': 'string',
                'pattern': f'^{_alternation(bare)}(?:{_NAME})?$' if bare else '^(?!)',
            },
            'dynamic': {
                'description': ('a blackboard reference ($battery.percentage) or an '
                                'expression (${battery.percentage * 100}), evaluated while '
                                'the tree runs'),
                'type': 'string',
                'pattern': DYNAMIC,
            },
            'value': {
                'description': ('a value: literals, $references and ${expressions} '
                                "anywhere inside ('$$' writes a literal '$')"),
                'pattern': _STRING,
                'items': _ref('value'),
                'additionalProperties': _ref('value'),
            },
            'fixed_value': {
                'description': ('a value known when the tree is built: literals and '
                                "${constant expressions} ('$$' writes a literal '$')"),
                'pattern': _FIXED_STRING,
                'items': _ref('fixed_value'),
                'additionalProperties': _ref('fixed_value'),
            },
            'argument': {
                'description': ('an argument for a parameter of the called tree: a literal, '
                                'a $reference or an ${expression} (numbers finite)'),
                'pattern': _STRING,
                'minimum': -_LARGEST,
                'maximum': _LARGEST,
                'items': _ref('argument'),
                'additionalProperties': _ref('argument'),
            },
            'literal': {
                'description': "a literal value (no $reference or ${expression}; '$$' "
                               "writes a literal '$')",
                'pattern': _LITERAL_STRING,
                'items': _ref('literal'),
                'additionalProperties': _ref('literal'),
            },
            'holds_dynamic': {
                'anyOf': [_ref('dynamic'),
                          {'type': 'array', 'contains': _ref('holds_dynamic')},
                          {'type': 'object',
                           'not': {'additionalProperties': {'not': _ref('holds_dynamic')}}}],
            },
        }
        defs.update(self.node_defs(True))
        defs.update(self.node_defs(False))
        defs.update(sorted(self.param_defs.items()))
        defs.update(sorted(self.count_defs.items()))
        return defs

    def document(self) -> dict[str, Any]:
        """Return the whole schema."""
        file_name = {'type': 'string', 'minLength': 1, 'pattern': '^[^\\x00]*$'}
        properties: dict[str, Any] = {
            'main': {'type': 'string', 'pattern': f'^{_IDENTIFIER}$',
                     'description': 'the tree that runs (optional with a single tree)'},
            'include': {
                'description': ('more tree files (paths relative to this file): their trees '
                                "join this file's"),
                'anyOf': [file_name, {'type': 'array', 'items': file_name}]},
            'trees': {
                'type': 'object',
                'description': 'the named trees',
                'propertyNames': {'pattern': f'^{_IDENTIFIER}$'},
                'additionalProperties': _ref('tree'),
            },
            'blackboard': {
                'type': 'object',
                'description': 'initial blackboard values (literals)',
                'propertyNames': {'pattern': '^[A-Za-z_][A-Za-z0-9_]*$'},
                'additionalProperties': _ref('literal'),
            },
            'persistent': {
                'type': 'array',
                'description': ('blackboard keys the executive saves after each tick that '
                                'writes one and restores after a restart (state_file)'),
                'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*$'},
            },
            'description': {'description': 'what the file is for'},
        }
        for section in self.registry.sections:
            schema = self.registry.section_schemas.get(section)
            properties[section] = dict(schema) if schema is not None else {
                'description': f'read by another layer ({section})'}
        return {
            '$schema': DIALECT,
            '$id': SCHEMA_ID,
            'title': 'bt_executive tree file',
            'description': (
                'A behaviour-tree file of bt_executive (docs/language.md), generated by '
                "'bt-executive schema' from the node types of the catalogue"
                + (' and the installed plugins' if self._has_plugins() else '')
                + '. The loader checks more: expressions, references to trees, arguments '
                'against tree parameters, includes (docs/schema.md).'),
            'type': 'object',
            'properties': properties,
            'additionalProperties': False,
            # a file that says which tree runs defines trees; one without 'main' may be a
            # part that other files include (only subscriptions, say)
            'if': {'required': ['main'], 'not': {'required': ['include']}},
            'then': {'required': ['trees'], 'properties': {'trees': {'minProperties': 1}}},
            '$defs': self.defs(),
        }

    def _has_plugins(self) -> bool:
        return any(not t.source.startswith(('bt_executive', 'py_trees')) and t.source
                   for t in self.types)


def tree_schema(registry: Registry) -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of tree files using the types of ``registry``."""
    return _Generator(registry).document()


def schema_text(registry: Registry) -> str:
    """Return :func:`tree_schema` as JSON text, as ``bt-executive schema`` writes it."""
    return json.dumps(tree_schema(registry), indent=1, ensure_ascii=True) + '\n'


__all__ = ['DIALECT', 'DYNAMIC', 'NODE_KEY', 'SCHEMA_ID', 'WHITESPACE', 'schema_text',
           'tree_schema']
