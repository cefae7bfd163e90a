# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's memory: modules it never uses are not run, the heap is trimmed at start.

A bt_executive program (``executive``, ``fleet_executive``, ``lifecycle_executive``,
``sim_robot``: bt_executive/app/programs.py) calls :func:`defer_for_programs` first
thing, before it imports py_trees or rclpy. That places, for three kinds of module, a
:class:`DeferredModule` in ``sys.modules``: a module object made from the module's real
spec (``__file__``, ``__spec__``, ``__path__``... are set) whose body runs when an
attribute it does not have yet is first read. No import hook is installed; a module
already imported is left as it is; a library user's process is never touched.

- **Whole modules** (:data:`UNUSED_PY_TREES`): py_trees imports its demos, programs,
  tests, display (with pydot and subprocess), utilities (with multiprocessing), trees,
  visitors, ports... from its ``__init__``; an executive uses none of them, and
  ``py_trees.display.dot_tree(...)`` still works, later.
- **ROS interface packages** (``<package>.msg``, ``.srv``, ``.action``): their generated
  ``__init__`` imports every message of the package (sensor_msgs: 28 modules) to offer
  its names. When the ``__init__`` holds only such imports (checked line by line;
  anything else: an ordinary import), reading a name imports only the module that
  defines it; a name it does not list, ``dir()`` or ``import *`` runs the whole
  ``__init__``. The packages of :data:`COMMON_INTERFACES` are placed at once; the type
  resolver (ros/interfaces) places any other before it imports it
  (:func:`defer_interface_package`), and a type read from a deferred package places the
  packages of its fields' types.
- **Code generators** (:data:`UNUSED_CODE_GENERATORS`): every rclpy process imports
  ``rosidl_generator_py``'s IDL-to-Python generator (8 MiB) to reach one small function
  beside it. The names its importer reads are stand-ins that run it on their first call.

Each answers the attributes the import system sets without running anything, so
``inspect.getmodule`` (which rclpy's logger calls on every log line, walking
``sys.modules``) does not load them. What each saves is in BENCHMARKS.md (the patrol
executive's RSS: 67 MiB with all three, 78-80 MiB without). ``BT_EXECUTIVE_DEFER_IMPORTS=off``
turns all of them off. :func:`trim_heap` hands the C heap's free pages back after
start-up.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
import threading
import types
from typing import Any, Mapping, Optional, Sequence

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
            for package in _field_packages(value):  # before its type support imports them
                for kind in INTERFACE_KINDS:
                    defer_interface_package(f'{package}.{kind}')
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


#: Set to ``off`` (or 0, false, no) to import every module as usual.
SWITCH = 'BT_EXECUTIVE_DEFER_IMPORTS'
#: Interface packages placed deferred by :func:`defer_for_programs` (those installed and
#: not imported yet): what rclpy, the catalogue's leaves and the sim robot use.
COMMON_INTERFACES = ('action_msgs', 'builtin_interfaces', 'geometry_msgs',
                     'lifecycle_msgs', 'nav_msgs', 'rcl_interfaces', 'rosgraph_msgs',
                     'sensor_msgs', 'service_msgs', 'std_msgs', 'std_srvs',
                     'type_description_interfaces', 'unique_identifier_msgs')
#: A package name inside a field type string (``std_msgs/Header``, ``sequence<a/B, 3>``).
_FIELD_PACKAGE = re.compile(r'([a-z][a-z0-9_]*)/')

_interfaces_deferred = False


def enabled(environ: Optional[Mapping[str, str]] = None) -> bool:
    """Return whether deferral is on (:data:`SWITCH` not set to off)."""
    environ = os.environ if environ is None else environ
    return environ.get(SWITCH, '').strip().lower() not in ('off', '0', 'false', 'no')


def _place(name: str, *, interface: bool = False, stand_ins: Sequence[str] = ()) -> bool:
    """Put a deferred ``name`` into ``sys.modules`` unless it is imported; True if placed."""
    with _lock:
        if name in sys.modules:
            return False
        parent, _, child = name.rpartition('.')
        if interface:  # an interface package's own ``__init__`` is empty: import it as usual
            try:
                parent_module = importlib.import_module(parent)
            except ImportError:
                return False
            locations = getattr(parent_module, '__path__', None)
        else:  # its parent's ``__init__`` imports it: that must find it deferred
            parent_spec = importlib.util.find_spec(parent) if parent else None
            locations = parent_spec.submodule_search_locations if parent_spec else None
            parent_module = None
        if parent and not locations:
            return False
        spec = importlib.machinery.PathFinder.find_spec(name, locations)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return False
        names = interface_names(name, spec.origin) if interface else None
        if interface and not names:
            return False
        spec.loader = _DeferringLoader(spec.loader, names, stand_ins)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        if parent_module is not None:
            setattr(parent_module, child, module)
        return True


def defer_unused_py_trees() -> None:
    """Place the py_trees modules of :data:`UNUSED_PY_TREES` (no effect once py_trees is in)."""
    if 'py_trees' in sys.modules:
        return
    for name in UNUSED_PY_TREES:
        _place(name)


def defer_interface_package(name: str) -> None:
    """Place interface package ``name`` (``'std_msgs.msg'``) if interface deferral is on."""
    if _interfaces_deferred and name not in sys.modules:
        package, _, kind = name.rpartition('.')
        if kind in INTERFACE_KINDS and package and '.' not in package:
            _place(name, interface=True)


def defer_interface_packages(packages: Sequence[str] = COMMON_INTERFACES) -> None:
    """Import ROS interface packages' messages one by one, as their names are read."""
    global _interfaces_deferred
    _interfaces_deferred = True
    for package in packages:
        if importlib.util.find_spec(package) is None:
            continue
        for kind in INTERFACE_KINDS:
            defer_interface_package(f'{package}.{kind}')


def defer_code_generators(generators: Mapping[str, Sequence[str]] = UNUSED_CODE_GENERATORS
                          ) -> None:
    """Place the modules of :data:`UNUSED_CODE_GENERATORS` (no effect once imported).

    Args:
        generators: module -> the names its importers read (bound to stand-ins)
    """
    for name, stand_ins in generators.items():
        _place(name, stand_ins=stand_ins)


def defer_for_programs() -> bool:
    """Make the deferrals of a bt_executive program, for its whole process; True if made.

    Called by the programs (bt_executive/app/programs.py, and each executive's ``main()``)
    before anything else, unless :data:`SWITCH` says ``off``. A library user's process is
    left as it is.
    """
    if not enabled():
        return False
    defer_unused_py_trees()
    defer_interface_packages()
    defer_code_generators()
    return True


def _field_packages(cls: Any) -> set[str]:
    """Return the packages named by the field types of interface class ``cls`` and its parts."""
    packages = set()
    for part in (cls, *(getattr(cls, attribute, None) for attribute in
                        ('Request', 'Response', 'Goal', 'Result', 'Feedback'))):
        fields = getattr(part, '_fields_and_field_types', None)
        if isinstance(fields, dict):
            for type_text in fields.values():
                packages.update(_FIELD_PACKAGE.findall(str(type_text)))
    return packages


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


__all__ = ['COMMON_INTERFACES', 'defer_code_generators', 'defer_for_programs',
           'defer_interface_package', 'defer_interface_packages', 'defer_unused_py_trees',
           'deferred', 'DeferredModule', 'enabled', 'interface_names', 'SWITCH', 'trim_heap',
           'UNUSED_CODE_GENERATORS', 'UNUSED_PY_TREES']
