# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The tree core: files -> spec -> py_trees tree, with no ROS import anywhere.

errors, yaml_source, spec, loader (+ document_checks), registry, builder (+ table: the
node table beside the built tree), faults, expressions/. The core receives a
:class:`~bt_executive.core.registry.Registry`; it never imports the catalogue.
"""
