# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""BehaviorTree.CPP v4 XML: export trees for BT.CPP and Groot2, import BT.CPP XML as YAML.

The package, one module per job:

* :mod:`.mapping`: port values (:func:`encode_value`, :func:`decode_value`) and the node
  mapping table (:data:`MAPPINGS`, rendered in ``docs/btcpp.md``);
* :mod:`.export`: :func:`export_element` builds the XML with :mod:`xml.etree.ElementTree`,
  :func:`export_xml` writes it; :func:`digest` says what a round trip must keep;
* :mod:`.importer`: :func:`parse_xml` (expat, with line numbers, no DTDs or entities)
  and :func:`import_xml` / :func:`import_document` (XML to our YAML, validated);
* :mod:`.uids`: BT.CPP's node uids (:func:`uid_map`, :func:`spec_uid_map`) for Groot2;
* :mod:`.yaml_dump`: the YAML the importer writes (:func:`node_yaml`, :func:`dump_yaml`).

Every public name is available from here: ``from bt_executive.formats import btcpp``.
No ROS imports here: this is the core layer.
"""

# xml_attribute: what the tests use to write XML the exporter's way
from bt_executive.formats.btcpp.export import (digest, export_element, export_xml,  # noqa: F401
                                               INDENT, model_tag, own_id, xml_attribute,
                                               XML_DECLARATION)
from bt_executive.formats.btcpp.importer import (
    import_document, import_xml, MAX_XML_BYTES, MAX_XML_DEPTH, MAX_XML_ELEMENTS, parse_xml,
    read_xml_file, XElement)
from bt_executive.formats.btcpp.mapping import (
    BTCPP_BUILTINS, BTCPP_FORMAT, canonical, CONDITION_LEAVES, decode_value, DEFAULTS_MARKER,
    encode_value, GENERIC_TAGS, mapping_table, MappingRule, MAPPINGS, META_TAG, META_VERSION,
    NOT_MAPPED, OWN_PREFIX, PARAM_MARKER, RESERVED_IDS, TYPE_MARKER, yamlish)
from bt_executive.formats.btcpp.uids import spec_uid_map, uid_map
from bt_executive.formats.btcpp.yaml_dump import dump_yaml, node_yaml

__all__ = ['BTCPP_BUILTINS', 'BTCPP_FORMAT', 'CONDITION_LEAVES', 'DEFAULTS_MARKER',
           'GENERIC_TAGS', 'INDENT', 'MAPPINGS', 'MAX_XML_BYTES', 'MAX_XML_DEPTH',
           'MAX_XML_ELEMENTS', 'META_TAG', 'META_VERSION', 'MappingRule', 'NOT_MAPPED',
           'OWN_PREFIX', 'PARAM_MARKER', 'RESERVED_IDS', 'TYPE_MARKER', 'XElement',
           'XML_DECLARATION', 'canonical', 'decode_value', 'digest', 'dump_yaml',
           'encode_value', 'export_element', 'export_xml', 'import_document', 'import_xml',
           'mapping_table', 'model_tag', 'node_yaml', 'own_id', 'parse_xml', 'read_xml_file',
           'spec_uid_map', 'uid_map', 'yamlish']
