# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""bt_executive: a ROS 2 behaviour-tree executive driven by YAML trees.

The public API: what a plugin author and a program embedding the tree language need
(docs/plugins.md uses nothing else). Everything else may change between releases.

Node types (a class attribute ``declaration`` on a behaviour, or a factory):
    :class:`NodeType`, :class:`Param`, :class:`ParamType`, :class:`Category`, and the
    :class:`Registry` that holds them.
Building a tree: :class:`BuildContext` (``ctx`` of ``build``), :class:`Params` (its
    ``params``), :func:`build` and :class:`Builder`, which return a :class:`BuiltTree`.
Loading and validating a file: :func:`load` (a :class:`Document`, or a
    :class:`TreeError` listing every :class:`Diagnostic` with its
    :class:`SourceLocation`) and :class:`Loader` (texts, several files).
The catalogue and plugins: :func:`default_registry` (the built-in node types),
    :func:`installed_registry` (plus the installed plugins) and :func:`load_plugins`.

The executive itself, which needs ROS, is in :mod:`bt_executive.ros`. The layers below it
(core, nodes, formats, observe) never import rclpy, and importing this package imports
none of them until a name is first read.
"""

import importlib

TYPE_CHECKING = False  # not typing's: importing this package imports nothing else
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping  # noqa: I300

__version__ = '0.1.0'

#: Public name -> the module that defines it (imported when the name is first read).
_EXPORTS = {
    'Category': 'bt_executive.core.registry',
    'NodeType': 'bt_executive.core.registry',
    'Param': 'bt_executive.core.registry',
    'ParamType': 'bt_executive.core.registry',
    'Registry': 'bt_executive.core.registry',
    'BuildContext': 'bt_executive.core.builder',
    'Builder': 'bt_executive.core.builder',
    'BuiltTree': 'bt_executive.core.builder',
    'Params': 'bt_executive.core.builder',
    'build': 'bt_executive.core.builder',
    'Loader': 'bt_executive.core.loader',
    'load': 'bt_executive.core.loader',
    'Document': 'bt_executive.core.spec',
    'Diagnostic': 'bt_executive.core.errors',
    'SourceLocation': 'bt_executive.core.errors',
    'TreeError': 'bt_executive.core.errors',
    'default_registry': 'bt_executive.nodes.catalogue',
    'installed_registry': 'bt_executive.nodes.plugins',
    'load_plugins': 'bt_executive.nodes.plugins',
}

__all__ = ['__version__', *sorted(_EXPORTS)]


def lazy_exports(package: str, exports: 'Mapping[str, str]', modules: 'Iterable[str]' = (),
                 ) -> 'tuple[Callable[[str], object], Callable[[], list[str]]]':
    """Return ``__getattr__`` and ``__dir__`` (PEP 562) for ``package``'s public names.

    A name's module is imported when the name is first read, then kept in the package.

    Args:
        package: the package's ``__name__`` (imported already)
        exports: public name -> the module that defines it
        modules: public submodules, imported when read as an attribute
    """
    namespace = importlib.import_module(package).__dict__
    submodules = tuple(modules)

    def getattr_(name: str) -> object:
        if name in submodules:
            return importlib.import_module(f'{package}.{name}')
        module = exports.get(name)
        if module is None:
            raise AttributeError(f'module {package!r} has no attribute {name!r}')
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(exports) | set(submodules))

    return getattr_, dir_


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
