# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The node-type registry: the single source of truth for node types and their parameters.

Every node type a tree file may use is declared once, as a :class:`NodeType` with its
category, child count, parameter specs, documentation and BT.CPP name. The loader validates
against the registry, the builder instantiates through it, ``bt-executive nodes`` prints it
and the language reference in ``docs/`` is generated from it.

A node type is declared where its behaviour is, on the class (as BT.CPP's
``providedPorts()`` puts the ports on the node class)::

    class Wait(py_trees.behaviour.Behaviour):
        declaration = NodeType(name='Wait', category=Category.LEAF, doc='...',
                               params=(Param('seconds', ParamType.FLOAT, 'duration'),),
                               primary='seconds')

        @classmethod
        def build(cls, ctx, name, params, children):
            return cls(name, seconds=params['seconds'], clock=ctx.clock)

:meth:`NodeType.of` turns such a class into the node type the registry holds (its
``build`` as the factory, its own module and name as the ``source``); a :class:`Registry`
takes classes and :class:`NodeType` objects alike. A :class:`NodeType` with a ``factory``
of its own is the other form, for node types without a class to carry them.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence


class Category(enum.Enum):
    """What kind of node a type is."""

    COMPOSITE = 'composite'
    """Has one or more children and decides which run."""
    DECORATOR = 'decorator'
    """Has exactly one child and changes its status or timing."""
    LEAF = 'leaf'
    """Has no children; does the work or checks a condition."""
    SUBTREE = 'subtree'
    """Runs another named tree of the document in place."""


class ParamType(enum.Enum):
    """The value type of a node parameter."""

    BOOL = 'bool'
    """true or false."""
    INT = 'int'
    """A whole number."""
    FLOAT = 'float'
    """A number (integers are accepted)."""
    STRING = 'string'
    """A string."""
    ENUM = 'enum'
    """One string out of a fixed set of choices."""
    EXPRESSION = 'expression'
    """An expression over the blackboard, written as a string."""
    KEY = 'key'
    """A blackboard key name (an identifier, dots for nested fields)."""
    LIST = 'list'
    """A list of values."""
    MAPPING = 'mapping'
    """A mapping of names to values (e.g. a goal or a message)."""
    ANY = 'any'
    """Any value."""
    INTERFACE = 'interface'
    """A ROS interface type string such as ``sensor_msgs/msg/BatteryState``."""


class _Required:
    def __repr__(self) -> str:
        return 'REQUIRED'


#: Marker for a parameter without a default value.
REQUIRED: Any = _Required()


@dataclasses.dataclass(frozen=True)
class Param:
    """The specification of one node parameter.

    Attributes:
        name: the parameter name as written in YAML (lowercase, underscores)
        type: the value type
        doc: one-line description for the catalogue
        default: the default value or :data:`REQUIRED`
        dynamic: whether the value may be a blackboard reference or expression that is
            evaluated while the tree runs (otherwise it must be known at load time)
        choices: the allowed values for :attr:`ParamType.ENUM`
        minimum: the smallest allowed number, for numeric types
        maximum: the largest allowed number, for numeric types
        writes: for :attr:`ParamType.KEY`: the node writes that key (``SetBlackboard.key``,
            ``result_key``); otherwise it reads it (``WaitForBlackboard``)
        binds: names the node itself provides to this parameter's expressions (``msg`` in
            ``TopicCondition.expr``, ``response`` in ``Service.success``): not blackboard
            keys
    """

    name: str
    type: ParamType  # noqa: A003
    doc: str
    default: Any = REQUIRED
    dynamic: bool = False
    choices: tuple[str, ...] = ()
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    writes: bool = False
    binds: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        """Tell whether the parameter has no default."""
        return self.default is REQUIRED

    def describe_type(self) -> str:
        """Render the type for messages and the catalogue."""
        if self.type is ParamType.ENUM:
            return ' | '.join(self.choices)
        text: str = self.type.value
        if self.minimum is not None and self.maximum is not None:
            text += f' in [{self.minimum:g}, {self.maximum:g}]'
        elif self.minimum is not None:
            text += f' >= {self.minimum:g}'
        return text


#: A factory builds the py_trees behaviour for one node; see ``bt_executive.core.builder``.
Factory = Callable[..., Any]


def _leaf(cls: Any) -> Factory:
    """Build ``cls(name=)``: a leaf without parameters."""
    def build(ctx: Any, name: str, params: Any, children: list[Any]) -> Any:
        return cls(name=name)
    return build


def _decorator(cls: Any) -> Factory:
    """Build ``cls(name=, child=)``: a decorator without parameters."""
    def build(ctx: Any, name: str, params: Any, children: list[Any]) -> Any:
        return cls(name=name, child=children[0])
    return build


def _composite(cls: Any) -> Factory:
    """Build ``cls(name=, children=)``: a composite without parameters."""
    def build(ctx: Any, name: str, params: Any, children: list[Any]) -> Any:
        return cls(name=name, children=children)
    return build


@dataclasses.dataclass(frozen=True)
class NodeType:
    """The specification of one node type.

    Attributes:
        name: the type name used in YAML (CamelCase)
        category: composite, decorator, leaf or subtree
        doc: one-paragraph description of the semantics
        params: parameter specifications
        factory: builds the behaviour (``factory(ctx, name, params, children)``)
        min_children: fewest children allowed
        max_children: most children allowed (None: unbounded)
        primary: the parameter that a scalar short form (``Wait: 2.0``) sets
        aliases: other accepted names (e.g. ``Fallback`` for ``Selector``)
        btcpp: the matching BehaviorTree.CPP v4 node ID, if the semantics match
        ros: whether the node talks to ROS (offline tools stub it)
        source: where the semantics come from (py_trees class or our behaviour)
    """

    name: str
    category: Category
    doc: str
    params: tuple[Param, ...] = ()
    factory: Optional[Factory] = None
    min_children: int = 0
    max_children: Optional[int] = 0
    primary: Optional[str] = None
    aliases: tuple[str, ...] = ()
    btcpp: Optional[str] = None
    ros: bool = False
    source: str = ''

    @classmethod
    def of(cls, declared: 'NodeType | type') -> 'NodeType':
        """Return the node type a behaviour class declares.

        The class declares it in its own ``declaration`` attribute (a :class:`NodeType`;
        one inherited from a base class does not count: each node type is declared by one
        class). The factory is the class's ``build`` classmethod
        (``build(ctx, name, params, children)``; an inherited one too, so a subclass whose
        constructor differs overrides it), else the declaration's own ``factory``, else, for
        a class whose constructor needs only its name and child or children, ``cls(name=)``
        (leaf), ``cls(name=, child=)`` (decorator) or ``cls(name=, children=)``
        (composite). A subtree has none: the builder expands it. The ``source`` is the
        declaration's own, else the class's module and name.

        Args:
            declared: a class with a ``declaration``, or a :class:`NodeType` (returned as is)

        Raises:
            TypeError: if ``declared`` is neither, or its ``build`` is not callable.
        """
        if isinstance(declared, NodeType):
            return declared
        declaration = vars(declared).get('declaration') if isinstance(declared, type) \
            else None
        if not isinstance(declaration, NodeType):
            raise TypeError(f'{declared!r} is neither a NodeType nor a class with a '
                            '`declaration = NodeType(...)` of its own')
        factory = getattr(declared, 'build', None)
        if factory is not None and not callable(factory):
            raise TypeError(f'{declared.__qualname__}.build is not callable')
        if factory is None:
            factory = declaration.factory
        if factory is None:
            default = {Category.LEAF: _leaf, Category.DECORATOR: _decorator,
                       Category.COMPOSITE: _composite}.get(declaration.category)
            factory = default(declared) if default is not None else None
        source = declaration.source or f'{declared.__module__}.{declared.__qualname__}'
        return dataclasses.replace(declaration, factory=factory, source=source)

    def param(self, name: str) -> Optional[Param]:
        """Return the parameter spec called ``name`` or None."""
        for param in self.params:
            if param.name == name:
                return param
        return None

    def param_names(self) -> list[str]:
        """Return the parameter names in declaration order."""
        return [param.name for param in self.params]

    def describe_children(self) -> str:
        """Say how many children the type takes, for messages."""
        low, high = self.min_children, self.max_children
        if high == 0:
            return 'no children'
        if high is None:
            return f'at least {low} child' + ('ren' if low != 1 else '')
        if low == high:
            return f'exactly {low} child' + ('ren' if low != 1 else '')
        return f'{low} to {high} children'


class Registry:
    """A closed set of node types, looked up by name or alias.

    Args:
        types: the node types: :class:`NodeType` objects or classes that declare one
            (:meth:`NodeType.of`)
        sections: top-level keys of a tree file that belong to other layers (e.g. the ROS
            layer's ``subscriptions``): the loader accepts them and keeps their YAML in
            ``Document.sections`` for that layer to validate
        section_keys: per section, a function returning the blackboard keys that section
            feeds, from its YAML (``YNode``), for the loader's check of undeclared keys
        section_schemas: per section, the JSON Schema of its value (``bt-executive
            schema`` puts it in the tree file's schema; a section without one accepts
            anything there)
    """

    def __init__(self, types: Iterable[NodeType | type] = (), *, sections: Iterable[str] = (),
                 section_keys: Optional[Mapping[str, Callable[[Any], Iterable[str]]]] = None,
                 section_schemas: Optional[Mapping[str, Mapping[str, Any]]] = None):
        self._types: dict[str, NodeType] = {}
        self._by_name: dict[str, NodeType] = {}
        self.sections: tuple[str, ...] = tuple(sections)
        self.section_keys: dict[str, Callable[[Any], Iterable[str]]] = dict(section_keys or {})
        self.section_schemas: dict[str, Mapping[str, Any]] = dict(section_schemas or {})
        for node_type in types:
            self.register(node_type)

    def register(self, node_type: NodeType | type, *, replace: bool = False) -> None:
        """Add a node type: a :class:`NodeType` or a class that declares one.

        Raises:
            ValueError: if the name or an alias is taken and ``replace`` is False.
            TypeError: if ``node_type`` declares no node type (:meth:`NodeType.of`).
        """
        node_type = NodeType.of(node_type)
        for name in (node_type.name, *node_type.aliases):
            existing = self._by_name.get(name)
            if existing is not None and not (replace and existing.name == node_type.name):
                raise ValueError(f'node type name {name!r} is already registered')
        self._types[node_type.name] = node_type
        for name in (node_type.name, *node_type.aliases):
            self._by_name[name] = node_type

    def copy(self) -> 'Registry':
        """Return a duplicate with the same types, sections, section keys and schemas."""
        return Registry(self._types.values(), sections=self.sections,
                        section_keys=self.section_keys, section_schemas=self.section_schemas)

    def with_factories(self, factories: dict[str, Factory]) -> 'Registry':
        """Return a copy whose named types use the given factories (e.g. real ROS leaves)."""
        copy = Registry(sections=self.sections, section_keys=self.section_keys,
                        section_schemas=self.section_schemas)
        for node_type in self._types.values():
            factory = factories.get(node_type.name, node_type.factory)
            copy.register(dataclasses.replace(node_type, factory=factory))
        return copy

    def get(self, name: str) -> Optional[NodeType]:
        """Return the node type for a name or alias, or None."""
        return self._by_name.get(name)

    def require(self, name: str) -> NodeType:
        """Return the node type for a name or alias of a validated spec.

        Raises:
            KeyError: if no such type is registered (a spec the loader did not check).
        """
        return self._by_name[name]

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def types(self) -> list[NodeType]:
        """Return all node types in registration order."""
        return list(self._types.values())

    def suggest(self, name: str) -> Optional[str]:
        """Return the closest known type name, for 'did you mean' hints."""
        return did_you_mean(name, self._by_name.keys())


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    """Return the candidate closest to ``name`` (case-insensitive), if any is close."""
    pool = list(candidates)
    lowered = {candidate.lower(): candidate for candidate in pool}
    if name.lower() in lowered:
        return lowered[name.lower()]
    import difflib  # only for a mistake: not loaded by a run without one

    matches = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[matches[0]] if matches else None


def hint(name: str, candidates: Sequence[str]) -> str:
    """Return ' (did you mean X?)' or an empty string."""
    suggestion = did_you_mean(name, candidates)
    return f" (did you mean '{suggestion}'?)" if suggestion else ''
