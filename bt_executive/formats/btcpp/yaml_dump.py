# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Write imported trees as YAML: nodes in our short form, node mappings in block style.

No ROS imports here: this is the core layer.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from bt_executive.core.loader import strip_quotes
from bt_executive.core.yaml_source import resolve_plain, STR_TAG
import yaml

_NODE_NAME = re.compile(r'[^\n\r]+\Z')


def node_yaml(kind: str, name: Optional[str], params: dict[str, Any],
              children: list[Any], primary: Optional[str] = None) -> Any:
    """Return one node in the YAML short form (the explicit form for awkward names)."""
    if name is not None and name != kind and (
            not _NODE_NAME.match(name) or strip_quotes(name) != name):
        node: dict[str, Any] = NodeMap(type=kind, name=name)
        if params:
            node['params'] = params
        if children:
            node['children'] = children
        return node
    key = kind if name is None or name == kind else f'{kind} {name}'
    if params and children:
        return NodeMap({key: NodeMap({**params, 'children': children})})
    if children:
        return NodeMap({key: children})
    if not params:
        return key
    if primary is not None and list(params) == [primary] \
            and not isinstance(params[primary], (dict, list)) and params[primary] is not None:
        return NodeMap({key: params[primary]})
    return NodeMap({key: params})


class NodeMap(dict):
    """A node mapping: written in block style (parameter mappings may be flow style)."""


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper that writes node mappings in block style.

    A string is written unquoted only when both YAML 1.1 (PyYAML, other tools) and the
    YAML 1.2 core schema our loader uses read it back as a string: ``'1e-3'`` and
    ``'on'`` stay quoted.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """Return the tag a plain scalar would get from either schema (str if both)."""
        tag: str = super().resolve(kind, value, implicit)
        if kind is yaml.ScalarNode and implicit[0] and tag == STR_TAG:
            return resolve_plain(value)
        return tag


_Dumper.add_representer(NodeMap, lambda dumper, data: dumper.represent_mapping(
    'tag:yaml.org,2002:map', data.items(), flow_style=False))


def dump_yaml(document: dict[str, Any], header: str = '') -> str:
    """Write a YAML document built by the importer."""
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=None, width=100)
    return header + text


__all__ = ['dump_yaml', 'node_yaml']
