# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's memory: modules it never uses are not run, the heap is trimmed at start.

Three kinds of deferred import (a meta path finder placed first in ``sys.meta_path``):

- **Whole modules** (:data:`UNUSED_PY_TREES`): py_trees imports its demos, programs,
  tests, display (with pydot and subprocess), utilities (with multiprocessing), trees,
  visitors, ports... from its ``__init__``; an executive uses none of them. Such a
  module is created as usual (``__file__``, ``__spec__``, ``__path__``... are set) but
  its body runs when an attribute it does not have yet is first read, so
  ``py_trees.display.dot_tree(...)`` still works, later.
- **ROS interface packages** (``<package>.msg``, ``.srv``, ``.action``): their generated
  ``__init__`` imports every message of the package (sensor_msgs: 28 modules) to offer
  its names. When the ``__init__`` holds only such imports (checked line by line;
  anything else: an ordinary import), reading a name imports only the module that
  defines it; a name it does not list, ``dir()`` or ``import *`` runs the whole
  ``__init__``.
- **Code generators** (:data:`UNUSED_CODE_GENERATORS`): every rclpy process imports
  ``rosidl_generator_py``'s IDL-to-Python generator (8 MiB) to reach one small function
  beside it. The names its importer reads are stand-ins that run it on their first call.

Each answers the attributes the import system sets without running anything, so
``inspect.getmodule`` (which rclpy's logger calls on every log line, walking
``sys.modules``) does not load them. :func:`defer_unused_py_trees` is installed when
``bt_executive.ros`` is imported (before py_trees is); the other two by
:func:`defer_for_programs`, which the executives' ``main()`` and ``bt_executive.sim``
call (a process-wide choice, made by the programs). :func:`trim_heap` hands the C
heap's free pages back after start-up.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import re
import sys
import threading
import types
from typing import Any, Optional, Sequence

#: py_trees modules an executive never uses: its ``__init__`` imports them all, but
#: bt_executive builds and ticks trees with behaviours, composites, decorators and the
#: blackboard only (``BehaviourTree``, visitors, display, ports... run when first used).
UNUSED_PY_TREES = ('py_trees.demos', 'py_trees.display', 'py_trees.idioms',
                   'py_trees.ports', 'py_trees.programs', 'py_trees.syntax_highlighting',
                   'py_trees.tests', 'py_trees.trees', 'py_trees.utilities',
                   'py_trees.visitors')
#: Code generators every rclpy process imports without using them: a message's
#: ``__import_type_support__`` imports ``rosidl_generator_py`` for its
#: ``import_type_support``, and that package's ``__init__`` also imports
#: ``generate_py_impl``, the IDL-to-Python generator (lark, empy, rosidl_parser's grammar,
#: hashlib with OpenSSL, json, pickle, tempfile...): 8 MiB of RSS in every ROS process,
#: a bare rclpy node included. Module -> the names its importers read at import time;
#: each is bound at once to a stand-in that runs the module on its first call.
UNUSED_CODE_GENERATORS = {'rosidl_generator_py.generate_py_impl': ('generate_py',)}
#: The subpackages of a ROS interface package whose ``__init__`` may be deferred.
INTERFACE_KINDS = ('msg', 'srv', 'action')

#: One line of a generated interface ``__init__``: ``from pkg.msg._name import Name``.
_IMPORT_LINE = re.compile(r'from ([\w.]+) import (\w+)(?: as (\w+))?\s*(#.*)?')

_lock = threading.RLock()


class DeferredModule(types.ModuleType):
    """A module whose body has not run yet; reading a missing attribute runs what it needs."""

    def __getattr__(self, name: str) -> Any:
        if name == '__path__':  # set before the body runs, on packages only: a module
            raise AttributeError(name)  # (the import system asks; running would not add it)
        pending = _pending.get(self.__name__)
        if pending is not None and pending.names is not None and name in pending.names:
            source, attribute = pending.names[name]  # an interface: import its one module
            value = getattr(importlib.import_module(source), attribute)
            setattr(self, name, value)
            return value
        _run(self)
        return getattr(self, name)

    def __dir__(self) -> list[str]:
        _run(self)
        return sorted(self.__dict__)


class _Pending:
    """The real loader of a deferred module, and where its names come from."""

    def __init__(self, loader: Any, names: Optional[dict[str, tuple[str, str]]]) -> None:
        self.loader = loader
        self.names = names  # interface package: name -> (module, attribute); None: whole


def _run(module: types.ModuleType) -> None:
    """Run a deferred module's body (once, whichever thread asks first): it becomes ordinary."""
    with _lock:
        pending = _pending.pop(module.__name__, None)
        if pending is None or not isinstance(module, DeferredModule):
            return
        module.__class__ = types.ModuleType
        module.__loader__ = pending.loader
        if module.__spec__ is not None:
            module.__spec__.loader = pending.loader
        try:
            pending.loader.exec_module(module)
        except BaseException:
            if sys.modules.get(module.__name__) is module:  # as a failed import does
                del sys.modules[module.__name__]
            raise


_pending: dict[str, _Pending] = {}


def _stand_in(module: types.ModuleType, name: str) -> Any:
    """Return a function that runs deferred ``module`` and calls its real ``name``."""

    def stand_in(*args: Any, **kwargs: Any) -> Any:
        _run(module)
        real = getattr(module, name)
        if real is stand_in:  # the module's body did not define it (another version)
            raise AttributeError(f"module '{module.__name__}' has no attribute '{name}'")
        return real(*args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__module__ = module.__name__
    stand_in.__doc__ = f'{module.__name__}.{name}, whose module runs on this first call.'
    return stand_in


class _DeferringLoader:
    """Loader that creates the module but leaves its body for :class:`DeferredModule`."""

    def __init__(self, loader: Any, names: Optional[dict[str, tuple[str, str]]],
                 stand_ins: Sequence[str] = ()) -> None:
        self.loader = loader
        self.names = names
        self.stand_ins = stand_ins

    def create_module(self, spec: Any) -> Optional[types.ModuleType]:
        return None  # the default module; exec_module changes its class

    def exec_module(self, module: types.ModuleType) -> None:
        with _lock:
            _pending[module.__name__] = _Pending(self.loader, self.names)
            module.__class__ = DeferredModule
            for name in self.stand_ins:  # what ``from module import name`` reads now
                setattr(module, name, _stand_in(module, name))

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, is_package...
        return getattr(self.loader, name)


class _DeferringFinder:
    """Meta path finder that defers the modules named, and ROS interface packages if asked."""

    def __init__(self) -> None:
        self.whole: set[str] = set()
        self.stand_ins: dict[str, Sequence[str]] = {}
        self.interfaces = False

    def find_spec(self, name: str, path: Optional[Sequence[str]],
                  target: Optional[types.ModuleType] = None) -> Any:
        package, _, kind = name.rpartition('.')
        whole = name in self.whole or name in self.stand_ins
        if not whole and not (self.interfaces and kind in INTERFACE_KINDS and package
                              and '.' not in package):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None  # let the other finders answer as usual
        names = None if whole else interface_names(name, spec.origin)
        if not whole and not names:
            return None
        spec.loader = _DeferringLoader(spec.loader, names, self.stand_ins.get(name, ()))
        return spec


def interface_names(package: str, origin: Optional[str]) -> Optional[dict[str, tuple[str, str]]]:
    """Return name -> (module, attribute) of a generated interface ``__init__`` at ``origin``.

    None unless every line is blank, a comment or ``from <package>._<module> import <Name>``.
    """
    if not origin or not origin.endswith('__init__.py'):
        return None
    try:
        with open(origin, encoding='utf-8') as stream:
            lines = stream.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    names: dict[str, tuple[str, str]] = {}
    prefix = package + '._'
    for line in lines:
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        match = _IMPORT_LINE.fullmatch(line)
        if not match or not match[1].startswith(prefix) or '.' in match[1][len(prefix):]:
            return None
        names[match[3] or match[2]] = (match[1], match[2])
    return names


_finder = _DeferringFinder()


def _install() -> None:
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def defer_unused_py_trees() -> None:
    """Defer the py_trees modules of :data:`UNUSED_PY_TREES` (no effect once py_trees is in)."""
    _finder.whole.update(UNUSED_PY_TREES)
    _install()


def defer_interface_packages() -> None:
    """Import ROS interface packages' messages one by one, as their names are read."""
    _finder.interfaces = True
    _install()


def defer_code_generators() -> None:
    """Defer the modules of :data:`UNUSED_CODE_GENERATORS` (no effect once imported)."""
    _finder.stand_ins.update(UNUSED_CODE_GENERATORS)
    _install()


def defer_for_programs() -> None:
    """Make the deferrals of a bt_executive program, for its whole process (its ``main()``).

    Interface packages import their messages one by one, and the code generators wait
    for a first call. A library user's process is left as it is.
    """
    defer_interface_packages()
    defer_code_generators()


def deferred(name: str) -> bool:
    """Return whether module ``name`` is imported but its body (or ``__init__``) not run."""
    return isinstance(sys.modules.get(name), DeferredModule)


def trim_heap() -> None:
    """Return the C heap's free memory to the system (glibc ``malloc_trim``; else nothing)."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass


__all__ = ['defer_code_generators', 'defer_for_programs', 'defer_interface_packages',
           'defer_unused_py_trees', 'deferred', 'DeferredModule',
           'interface_names', 'trim_heap', 'UNUSED_CODE_GENERATORS', 'UNUSED_PY_TREES']
