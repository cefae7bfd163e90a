# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Node types from other packages: the ``bt_executive.node_types`` entry points.

A package declares its node types with an entry point in the group :data:`GROUP`
(``my_nodes = my_package.bt_nodes:node_types``). Each entry point names a callable that
returns node types, or an iterable of them: behaviour classes that declare one, as the
catalogue's own do (``declaration = NodeType(...)``, :meth:`NodeType.of
<bt_executive.core.registry.NodeType.of>`), or :class:`~bt_executive.core.registry.NodeType`
objects with a factory. :func:`installed_registry` returns the catalogue plus the node
types of every installed plugin: the executive (``ros_registry()``) and every offline
command (``bt-executive validate``, ``tick``, ``nodes``, ...) use it, so a plugin type is
known everywhere once its package is installed. docs/plugins.md walks through one.

A broken plugin never takes the tools down. An entry point that cannot be imported, whose
callable raises or returns something else than node types is skipped with a warning; a
node type that is malformed (name, category, children, parameters, no factory) is skipped
with a warning; a node type whose name or alias is taken (by the catalogue or by another
plugin) is an error naming both, and the plugin's type is skipped (between two plugins,
both are: neither is the obvious one to run). Each report names the entry point.

Plugin types are never trusted as the catalogue's own: their ``source`` is made to name
the plugin's module when it is empty or claims bt_executive or py_trees, so the builder
guards them with a :class:`~bt_executive.core.faults.FaultGuard` (an exception fails the
node, not the tick). Offline, a plugin leaf declared ``ros=True`` is replaced by a stub,
as the catalogue's ROS leaves are (``bt-executive tick --stub`` changes its outcome).

This module uses :mod:`importlib.metadata`, never rclpy, and imports it only when a
distribution on ``sys.path`` may declare a plugin (:func:`may_declare`): most runs have
none, and the module with what it imports (email, zipfile, csv) is some 2 MB of an
executive's memory.
"""

from __future__ import annotations

from collections.abc import Iterable
import dataclasses
import importlib
import os
import re
import sys
import traceback
from typing import Any, Callable, Optional, Protocol

from bt_executive.core.registry import Category, NodeType, Param, Registry
from bt_executive.nodes.catalogue import default_registry
from bt_executive.nodes.ros_leaf_types import DEFAULT_STUBS
from bt_executive.nodes.stubs import PLUGIN_STUB, stub_factory

__all__ = ['GROUP', 'Logger', 'METADATA_MODULES', 'Origin', 'PLUGIN_STUB', 'PluginProblem',
           'PluginType', 'Plugins', 'installed', 'installed_entry_points', 'installed_registry',
           'load_plugins', 'may_declare', 'on_path_may_declare', 'stub_defaults']

#: The entry-point group in which packages declare node types.
GROUP = 'bt_executive.node_types'

_TYPE_NAME = re.compile(r'[A-Z][A-Za-z0-9_]*\Z')
_PARAM_NAME = re.compile(r'[a-z][a-z0-9_]*\Z')
_TRUSTED = ('bt_executive.', 'py_trees.')


class Logger(Protocol):
    """Where plugin problems go: a :class:`logging.Logger` or a ROS node's logger."""

    def warning(self, message: str) -> Any:
        """Report a plugin that was skipped."""

    def error(self, message: str) -> Any:
        """Report a name clash."""


class _Stderr:
    """The default :class:`Logger`: one line per problem on standard error."""

    def warning(self, message: str) -> None:
        print(f'bt_executive: warning: {message}', file=sys.stderr)

    def error(self, message: str) -> None:
        print(f'bt_executive: error: {message}', file=sys.stderr)


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a plugin node type comes from.

    Attributes:
        name: the entry point's name
        value: what it names (``module:callable``)
        distribution: the installed distribution and its version ('' if unknown)
    """

    name: str
    value: str
    distribution: str = ''

    @classmethod
    def of(cls, entry_point: Any) -> 'Origin':
        """Describe an :class:`importlib.metadata.EntryPoint`."""
        dist = getattr(entry_point, 'dist', None)
        distribution = ''
        if dist is not None:
            try:
                distribution = f"{dist.metadata['Name'] or '?'} {dist.version or '?'}"
            except Exception:  # noqa: B902 - a broken METADATA must not hide the plugin
                distribution = ''
        return cls(entry_point.name, entry_point.value, distribution)

    @property
    def module(self) -> str:
        """Return the module the entry point imports."""
        return self.value.partition(':')[0].strip()

    def __str__(self) -> str:
        where = f'{self.value} from {self.distribution}' if self.distribution else self.value
        return f"plugin '{self.name}' ({where})"


@dataclasses.dataclass(frozen=True)
class PluginProblem:
    """Something wrong with a plugin; what it affected was skipped.

    Attributes:
        origin: the entry point
        message: what is wrong and what was skipped
        error: a name clash (reported as an error) rather than a broken plugin (warning)
    """

    origin: Origin
    message: str
    error: bool = False

    def __str__(self) -> str:
        return f'{self.origin}: {self.message}'


@dataclasses.dataclass(frozen=True)
class PluginType:
    """A node type declared by a plugin, with its origin."""

    node_type: NodeType
    origin: Origin


@dataclasses.dataclass(frozen=True)
class Plugins:
    """What the installed plugins declare: the usable node types and the problems.

    Attributes:
        types: the node types to add to the catalogue, in entry-point order
        problems: every problem found, in entry-point order
    """

    types: tuple[PluginType, ...] = ()
    problems: tuple[PluginProblem, ...] = ()

    def origin(self, name: str) -> Optional[Origin]:
        """Return the plugin that declares the node type ``name`` (or an alias), if any."""
        for plugin_type in self.types:
            if name in (plugin_type.node_type.name, *plugin_type.node_type.aliases):
                return plugin_type.origin
        return None

    def registry(self, base: Registry, *, offline: bool = True) -> Registry:
        """Return a copy of ``base`` with the plugin node types added.

        Args:
            base: the catalogue (the types were checked against it by :func:`load_plugins`)
            offline: replace the plugins' ROS leaves (``ros=True``) by stubs, as the
                catalogue's own are until the ROS layer supplies real factories
        """
        registry = base.copy()
        for plugin_type in self.types:
            node_type = plugin_type.node_type
            if offline and node_type.ros and node_type.category is Category.LEAF:
                node_type = dataclasses.replace(node_type, factory=stub_factory(node_type.name))
            registry.register(node_type)
        return registry

    def report(self, logger: Optional[Logger] = None) -> None:
        """Send every problem to ``logger`` (default: standard error)."""
        out: Logger = logger if logger is not None else _Stderr()
        for problem in self.problems:
            (out.error if problem.error else out.warning)(str(problem))

    def describe(self) -> str:
        """Render the plugins and their node types for ``bt-executive nodes``."""
        origins: dict[Origin, list[str]] = {}
        for plugin_type in self.types:
            origins.setdefault(plugin_type.origin, []).append(plugin_type.node_type.name)
        for problem in self.problems:
            origins.setdefault(problem.origin, [])
        if not origins:
            return (f'Plugins: none installed (entry-point group {GROUP}; see '
                    'docs/plugins.md)')
        lines = [f'Plugins (entry-point group {GROUP})']
        for origin, names in origins.items():
            lines.append(f'  {origin.name} = {origin.value}'
                         + (f'  [{origin.distribution}]' if origin.distribution else ''))
            lines.append('      ' + (', '.join(names) if names else 'no node types'))
        return '\n'.join(lines)


def stub_defaults(registry: Registry) -> dict[str, tuple[str, int]]:
    """Return how offline tools stand in for each ROS leaf of ``registry`` by default."""
    return {node_type.name: DEFAULT_STUBS.get(node_type.name, PLUGIN_STUB)
            for node_type in registry.types()
            if node_type.ros and node_type.category is Category.LEAF}


def _where(error: BaseException) -> str:
    """Return ' at file:line' of the innermost frame of ``error`` in the plugin's code."""
    machinery = os.path.dirname(importlib.__file__ or '')
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if not frame.filename.startswith(('<', machinery)) and frame.filename != __file__]
    return f' at {frames[-1].filename}:{frames[-1].lineno}' if frames else ''


def _declared(entry_point: Any, origin: Origin) -> tuple[list[NodeType], list[PluginProblem]]:
    """Import one entry point and call it; return its node types or why it is skipped."""
    def skipped(message: str) -> tuple[list[NodeType], list[PluginProblem]]:
        return [], [PluginProblem(origin, f'{message}; its node types are skipped')]

    try:
        target = entry_point.load()
    except (Exception, SystemExit) as error:  # noqa: B902 - whatever a plugin's import raises
        return skipped(f"cannot import '{entry_point.value}': "
                       f'{type(error).__name__}: {error}{_where(error)}')
    if _declares(target):
        return _node_types([target], entry_point, skipped)
    if not callable(target) or isinstance(target, type):
        what = 'a class' if isinstance(target, type) else _short(target)
        return skipped(f"'{entry_point.value}' is {what}, not a function returning node types")
    try:
        result = target()
    except (Exception, SystemExit) as error:  # noqa: B902 - whatever a plugin's callable raises
        return skipped(f"'{entry_point.value}' raised {type(error).__name__}: {error}"
                       f'{_where(error)}')
    if _declares(result):
        return _node_types([result], entry_point, skipped)
    if isinstance(result, (str, bytes)) or not isinstance(result, Iterable):
        return skipped(f"'{entry_point.value}' returned {_short(result)}, not a NodeType or "
                       'a list of NodeType')
    try:
        items = list(result)
    except (Exception, SystemExit) as error:  # noqa: B902 - a generator may raise as well
        return skipped(f"iterating what '{entry_point.value}' returned raised "
                       f'{type(error).__name__}: {error}{_where(error)}')
    for index, item in enumerate(items):
        if not _declares(item):
            return skipped(f"'{entry_point.value}' returned {_short(item)} as item {index}, "
                           'not a NodeType (bt_executive.core.registry) nor a class that '
                           'declares one')
    return _node_types(items, entry_point, skipped)


def _declares(item: Any) -> bool:
    """Tell whether ``item`` is a node type: a NodeType, or a class with a declaration."""
    return isinstance(item, NodeType) or (
        isinstance(item, type) and isinstance(vars(item).get('declaration'), NodeType))


def _node_types(items: list[Any], entry_point: Any,
                skipped: Callable[[str], tuple[list[NodeType], list[PluginProblem]]]
                ) -> tuple[list[NodeType], list[PluginProblem]]:
    """Return the node types of NodeTypes and declaring classes (:meth:`NodeType.of`)."""
    types: list[NodeType] = []
    for item in items:
        try:
            types.append(NodeType.of(item))
        except TypeError as error:  # e.g. a class whose build is not callable
            return skipped(f"'{entry_point.value}' returned {_short(item)}: {error}")
    return types, []


def _short(value: Any) -> str:
    """Render a value for a message: its repr (shortened) and type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + '...'
    return f'{text} ({type(value).__name__})'


def _param_problem(param: Any) -> Optional[str]:
    """Say what is wrong with a parameter declaration, if anything."""
    if not isinstance(param, Param):
        return f'parameter {_short(param)} is not a Param'
    if not isinstance(param.name, str) or not _PARAM_NAME.match(param.name) \
            or param.name in ('child', 'children'):
        return (f'parameter name {param.name!r} must be lowercase letters, digits and '
                "underscores, and not 'child' or 'children'")
    return None


def _problem(node_type: NodeType) -> Optional[str]:
    """Say why a plugin's node type cannot be used, or None when it can."""
    try:
        return _shape_problem(node_type)
    except Exception as error:  # noqa: B902 - fields of the wrong type, say
        return f'it is malformed: {type(error).__name__}: {error}'


def _shape_problem(node_type: NodeType) -> Optional[str]:
    """Check the fields of a plugin's node type (:func:`_problem`); may raise."""
    if not isinstance(node_type.aliases, (tuple, list)):
        return f'aliases must be a tuple of names, not {_short(node_type.aliases)}'
    for name in (node_type.name, *node_type.aliases):
        if not isinstance(name, str) or not _TYPE_NAME.match(name):
            return (f'node type name {name!r} must start with an uppercase letter and hold '
                    'only letters, digits and underscores')
    if not isinstance(node_type.category, Category):
        return f'category {node_type.category!r} is not a Category'
    if node_type.category is Category.SUBTREE:
        return 'a plugin cannot declare a subtree type (Subtree is built in)'
    if not callable(node_type.factory):
        return 'it has no factory (factory(ctx, name, params, children) -> behaviour)'
    low, high = node_type.min_children, node_type.max_children
    shape = {Category.LEAF: (0, 0), Category.DECORATOR: (1, 1)}.get(node_type.category)
    if shape is not None and (low, high) != shape:
        return (f'a {node_type.category.value} takes min_children={shape[0]}, '
                f'max_children={shape[1]}, not {low} and {high}')
    if node_type.category is Category.COMPOSITE and (
            low < 0 or high == 0 or (high is not None and high < low)):
        return f'a composite needs 0 <= min_children <= max_children >= 1, not {low}, {high}'
    names = []
    for param in node_type.params:
        problem = _param_problem(param)
        if problem:
            return problem
        if param.name in names:
            return f'parameter {param.name!r} is declared twice'
        names.append(param.name)
    if node_type.primary is not None and node_type.primary not in names:
        return f'its primary parameter {node_type.primary!r} is not one of its parameters'
    return None


def _untrusted(node_type: NodeType, origin: Origin) -> NodeType:
    """Make the ``source`` of a plugin type name the plugin (so the builder guards it)."""
    source = node_type.source
    if source and not source.startswith(_TRUSTED):
        return node_type
    module = origin.module or origin.name
    return dataclasses.replace(node_type, source=f'{module} ({source})' if source else module)


def _names(node_type: NodeType) -> tuple[str, ...]:
    """Return the name and the aliases of a node type, each once."""
    return tuple(dict.fromkeys((node_type.name, *node_type.aliases)))


def _described(node_type: NodeType) -> str:
    """Name a built-in node type for a clash message."""
    return f"the built-in node type '{node_type.name}'" + (
        f' ({node_type.source})' if node_type.source else '')


def _on_name(name: str, own: str, other: str) -> str:
    """Say which name two clashing types share, unless it is the name of both."""
    return '' if name == own == other else f" on the name '{name}'"


def _unclaimed(candidates: list[PluginType]) -> tuple[list[PluginType], list[PluginProblem]]:
    """Split plugin types into those whose names no other plugin type claims, and errors."""
    claims: dict[str, list[PluginType]] = {}
    for candidate in candidates:
        for name in _names(candidate.node_type):
            claims.setdefault(name, []).append(candidate)
    usable: list[PluginType] = []
    problems: list[PluginProblem] = []
    for candidate in candidates:
        own = candidate.node_type.name
        rivals = dict.fromkeys(
            f"node type '{other.node_type.name}' of {other.origin}"
            f'{_on_name(name, own, other.node_type.name)}'
            for name in _names(candidate.node_type) for other in claims[name]
            if other is not candidate)
        if rivals:
            problems.append(PluginProblem(
                candidate.origin, f"node type '{own}' clashes with {'; '.join(rivals)}; both "
                'are skipped (rename one)', error=True))
        else:
            usable.append(candidate)
    return usable, problems


def load_plugins(*, base: Optional[Registry] = None,
                 entry_points: Optional[Iterable[Any]] = None) -> Plugins:
    """Import the plugins and check the node types they declare against ``base``.

    Args:
        base: the node types a plugin may not redeclare (default: the catalogue)
        entry_points: the entry points to load (default: the installed ones of
            :data:`GROUP`, in the order :mod:`importlib.metadata` lists them)

    Returns:
        the usable node types and every problem (nothing raises for a broken plugin)
    """
    if base is None:
        base = default_registry()
    if entry_points is None:
        entry_points = installed_entry_points()
    problems: list[PluginProblem] = []
    candidates: list[PluginType] = []
    for entry_point in entry_points:
        origin = Origin.of(entry_point)
        declared, skipped = _declared(entry_point, origin)
        problems.extend(skipped)
        for node_type in declared:
            problem = _problem(node_type)
            if problem:
                problems.append(PluginProblem(
                    origin, f'node type {node_type.name!r} skipped: {problem}'))
                continue
            taken = next((name for name in _names(node_type) if name in base), None)
            if taken is not None:
                builtin = base.require(taken)
                problems.append(PluginProblem(
                    origin, f"node type '{node_type.name}' clashes with {_described(builtin)}"
                    f"{_on_name(taken, node_type.name, builtin.name)}; the plugin's type is "
                    'skipped (rename it)', error=True))
                continue
            candidates.append(PluginType(_untrusted(node_type, origin), origin))
    usable, clashes = _unclaimed(candidates)
    return Plugins(tuple(usable), tuple(problems + clashes))


#: The modules whose import means another distribution finder may be in use.
METADATA_MODULES = ('importlib.metadata', 'importlib_metadata')


def installed_entry_points(group: str = GROUP) -> Iterable[Any]:
    """Return the installed entry points of ``group`` (none without importlib.metadata).

    :mod:`importlib.metadata` is imported only when :func:`may_declare` finds that a
    distribution may declare one.
    """
    if not may_declare(group):
        return ()
    import importlib.metadata
    return importlib.metadata.entry_points(group=group)


def may_declare(group: str = GROUP) -> bool:
    """Tell whether an installed distribution may declare entry points of ``group``.

    Reads what :mod:`importlib.metadata` would read for path-based distributions: the
    ``entry_points.txt`` of every ``*.dist-info`` and ``*.egg-info`` directory in the
    folders of ``sys.path``, looking for the group's ``[group]`` header. Whatever this
    does not read itself answers True (importlib.metadata then decides): a zip file or an
    egg on ``sys.path``, and a process that has imported importlib.metadata (or its
    backport) already. The last covers distribution finders other than the standard one:
    such a finder hands out ``Distribution`` objects, so it has imported the module that
    defines them, and asking it costs nothing more then.
    """
    return any(name in sys.modules for name in METADATA_MODULES) or on_path_may_declare(group)


def on_path_may_declare(group: str = GROUP) -> bool:
    """Tell whether a distribution in the folders of ``sys.path`` may declare ``group``.

    The part of :func:`may_declare` that reads files: True where a ``*.dist-info`` or
    ``*.egg-info`` directory's ``entry_points.txt`` has the group's header, and where this
    cannot tell (a zip file or an egg on ``sys.path``).
    """
    header = re.compile(r'^\s*\[\s*' + re.escape(group) + r'\s*\]', re.MULTILINE)
    for entry in sys.path:
        folder = entry or '.'
        if not isinstance(folder, str) or folder.lower().endswith('.egg'):
            return True
        try:
            names = os.listdir(folder)
        except NotADirectoryError:  # a zip file or an egg
            return True
        except OSError:  # missing or unreadable: importlib.metadata finds nothing there
            continue
        for name in names:
            low = name.lower()
            if low.endswith('.egg'):
                return True
            if not low.endswith(('.dist-info', '.egg-info')):
                continue
            try:
                with open(os.path.join(folder, name, 'entry_points.txt'),
                          encoding='utf-8', errors='replace') as stream:
                    if header.search(stream.read()):
                        return True
            except OSError:  # none, or an egg-info file: no entry points
                continue
    return False


def installed(*, offline: bool = True,
              logger: Optional[Logger] = None) -> tuple[Plugins, Registry]:
    """Return the installed plugins and the catalogue plus their node types.

    Problems with plugins are reported to ``logger`` (default: standard error) and the
    plugins or types concerned are left out; see the module docstring.

    Args:
        offline: replace the plugins' ROS leaves by stubs (what the offline tools need);
            the ROS layer passes False
        logger: receives a warning per skipped plugin or type and an error per name clash
    """
    base = default_registry()
    plugins = load_plugins(base=base)
    plugins.report(logger)
    return plugins, plugins.registry(base, offline=offline)


def installed_registry(*, offline: bool = True, logger: Optional[Logger] = None) -> Registry:
    """Return the catalogue plus the node types of the installed plugins (see installed())."""
    return installed(offline=offline, logger=logger)[1]
