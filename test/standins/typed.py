# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The STAND-INS WITH REAL TYPE SUPPORT: which packages, built from which definitions.

``definitions/<package>/{msg,srv,action}/`` holds the interface definitions of each
stand-in, written down from the real package (fields, types, defaults, constants: facts;
the first line of each file names the release). :func:`build` turns them into a package
with real type support through tools/build_interfaces.py, once per machine (cached in the
venv), with its libraries tagged ``__standin`` so that it never loads a library of the
real package (build_interfaces.py explains how). Its Python package says
``BUILT_FROM_STANDIN = True``.

- ``nav2_msgs``: NavigateToPose, DockRobot and UndockRobot of Nav2 Kilted (1.4.2).
- ``py_trees_ros_interfaces``: the snapshot-stream messages and services of
  py_trees_ros_interfaces 2.1 (BehaviourTree, Behaviour, ActivityItem, Statistics,
  KeyValue, SnapshotStreamParameters, Open/Close/ReconfigureSnapshotStream). It uses
  ``diagnostic_msgs`` (``ros-diagnostic-msgs`` from PyPI, requirements-test.txt).

``python typed.py PACKAGE`` builds (or finds) one and prints its paths as JSON; the
``typed_standin`` fixture (test/conftest.py) runs that in a subprocess.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import json
import pathlib
import sys
from types import ModuleType

HERE = pathlib.Path(__file__).resolve().parent
DEFINITIONS = HERE / 'definitions'
BUILDER = HERE.parents[1] / 'tools' / 'build_interfaces.py'
TAG = 'standin'


def packages() -> list[str]:
    """Return the names of the typed stand-ins."""
    return sorted(path.name for path in DEFINITIONS.iterdir() if path.is_dir())


def _builder() -> ModuleType:
    """Import build_interfaces.py by file, leaving ``sys.path`` alone."""
    name = '_bt_executive_build_interfaces'
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BUILDER)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while defining
        spec.loader.exec_module(module)
    return sys.modules[name]


def definitions(package: str) -> dict[str, str]:
    """Return the stand-in's definitions: ``{'msg/Name.msg': text, ...}``."""
    if package not in packages():
        raise KeyError(f'no typed stand-in {package!r} (there are: {", ".join(packages())})')
    return _builder().read_definitions(DEFINITIONS / package)


def init_text(package: str) -> str:
    """Return the ``__init__.py`` of the built Python package."""
    return (f'"""{package} BUILT FROM THE TEST STAND-IN (bt_executive test/standins), '
            'not the real package."""\n\nBUILT_FROM_STANDIN = True\n')


def build(package: str) -> object:
    """Build the stand-in (or reuse the cached build); return build_interfaces.Built.

    Raises:
        build_interfaces.BuildUnavailable: Why it cannot be built here.
    """
    return _builder().build_cached(package, definitions(package), tag=TAG,
                                   init=init_text(package), optimize='-O0')


def main(argv: list[str]) -> int:
    """Build one stand-in; print its paths as JSON, or why not (exit status 3)."""
    if len(argv) != 1:
        print(f'usage: typed.py PACKAGE (one of {", ".join(packages())})', file=sys.stderr)
        return 2
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the generators' progress lines
            built = build(argv[0])
    except _builder().BuildUnavailable as error:
        print(json.dumps({'unavailable': str(error)}))
        return 3
    print(json.dumps({key: (str(value) if isinstance(value, pathlib.Path) else
                            [str(item) for item in value] if isinstance(value, tuple) else value)
                      for key, value in dataclasses.asdict(built).items()}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
