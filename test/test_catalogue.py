# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""One node type, one place: each class of the catalogue declares and builds its type."""

from __future__ import annotations

import importlib
import pathlib

from bt_executive.core.builder import build
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Category, NodeType, Param, ParamType, Registry
from bt_executive.nodes.catalogue import CATALOGUE, default_registry
from bt_executive.nodes.ros_leaf_types import DEFAULT_STUBS, ROS_LEAF_TYPES
from bt_executive.nodes.stubs import StubLeaf
import py_trees
from py_trees.common import Status
import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'bt_executive'


def test_the_catalogue_is_its_classes_then_the_ros_leaves_in_order():
    names = [node_type.name for node_type in default_registry().types()]
    assert names == [cls.declaration.name for cls in CATALOGUE] \
        + [node_type.name for node_type in ROS_LEAF_TYPES]


@pytest.mark.parametrize('cls', CATALOGUE, ids=[cls.__name__ for cls in CATALOGUE])
def test_each_class_declares_its_own_type_and_its_source_names_it(cls):
    node_type = default_registry().require(cls.declaration.name)
    assert 'declaration' in vars(cls)
    assert node_type.source == f'{cls.__module__}.{cls.__qualname__}'
    module, _, name = node_type.source.rpartition('.')
    assert getattr(importlib.import_module(module), name) is cls
    assert node_type.factory is not None or node_type.category is Category.SUBTREE


def test_the_ros_leaves_name_their_classes_and_stand_in_as_stubs_offline():
    registry = default_registry()
    for declared in ROS_LEAF_TYPES:
        node_type = registry.require(declared.name)
        assert node_type.source.startswith('bt_executive.ros.leaves.')
        assert node_type.ros and declared.factory is None
        assert DEFAULT_STUBS[declared.name]
    document = Loader(registry).load_text(
        'trees: {Main: {Publish: {topic: t, type: std_msgs/msg/Empty}}}', name='t.yaml')
    assert isinstance(build(document, registry=registry).root, StubLeaf)


def test_no_module_of_the_catalogue_shares_its_name_with_another_module():
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob('*.py'):
        if path.name != '__init__.py':
            names.setdefault(path.stem, []).append(str(path.relative_to(PACKAGE)))
    for path in (PACKAGE / 'nodes').rglob('*.py'):
        if path.name != '__init__.py':
            assert names[path.stem] == [str(path.relative_to(PACKAGE))]
    assert not (PACKAGE / 'nodes' / 'catalogue').exists()


# ---- NodeType.of: the class form of a declaration ------------------------------------------

class Beep(py_trees.behaviour.Behaviour):
    """A leaf without parameters: built as ``Beep(name=)``."""

    declaration = NodeType(name='Beep', category=Category.LEAF, doc='beeps')

    def update(self) -> Status:
        return Status.SUCCESS


class Twice(py_trees.decorators.Decorator):
    """A decorator with a parameter: built by its ``build``."""

    declaration = NodeType(name='Twice', category=Category.DECORATOR, doc='d',
                           params=(Param('label', ParamType.STRING, 'l', default='x'),),
                           min_children=1, max_children=1)

    def __init__(self, name: str, child: py_trees.behaviour.Behaviour, *, label: str):
        super().__init__(name=name, child=child)
        self.label = label

    @classmethod
    def build(cls, ctx, name, params, children):
        return cls(name, children[0], label=params['label'])

    def update(self) -> Status:
        return self.decorated.status


class LoudBeep(Beep):
    """Inherits Beep's declaration: it declares nothing of its own."""


def test_a_class_declares_a_type_built_by_its_constructor_or_its_build():
    beep, twice = NodeType.of(Beep), NodeType.of(Twice)
    assert beep.source == f'{__name__}.Beep' and twice.source == f'{__name__}.Twice'
    registry = default_registry()
    registry.register(Beep)
    registry.register(twice)
    document = Loader(registry).load_text('trees: {Main: {Twice: {label: y, child: Beep}}}',
                                          name='t.yaml')
    root = build(document, registry=registry).root
    assert isinstance(root, Twice) and root.label == 'y' and isinstance(root.decorated, Beep)
    root.tick_once()
    assert root.status is Status.SUCCESS


def test_a_declaration_is_its_class_own():
    with pytest.raises(TypeError, match='neither a NodeType nor a class'):
        NodeType.of(LoudBeep)
    with pytest.raises(TypeError, match='neither a NodeType nor a class'):
        Registry([py_trees.behaviours.Success])
    declared = NodeType(name='Own', category=Category.LEAF, doc='d', source='elsewhere')
    assert NodeType.of(declared) is declared
    assert NodeType.of(type('Own', (Beep,), {'declaration': declared})).source == 'elsewhere'
