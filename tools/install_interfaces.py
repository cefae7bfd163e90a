# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Build bt_executive_interfaces and install it into a virtual environment (``make env``).

The pip path's counterpart of ``colcon build`` for the interface package beside
bt_executive (``bt_executive_interfaces/``): its ``.msg``, ``.srv`` and ``.action``
files go through the rosidl generators of the PyPI wheels and gcc/g++
(tools/build_interfaces.py; no CMake, no fetched sources). The result is an install
prefix inside the venv::

    <venv>/opt/bt_executive_interfaces/python/bt_executive_interfaces/   (imported)
    <venv>/opt/bt_executive_interfaces/lib/                             (type support)
    <venv>/opt/bt_executive_interfaces/share/                           (definitions,
                                                                        ament index)

and a ``bt_executive_interfaces.pth`` in the venv's site-packages that puts its Python
package on ``sys.path``; the libraries are found by RPATH, so no ``LD_LIBRARY_PATH``.

When the build is not possible here (no C compiler, no ROS headers), it says why, writes
the reason to ``<venv>/opt/bt_executive_interfaces.unavailable`` (the tests skip with it)
and exits 0: the executive runs without the typed interfaces, as it says in its log.

``python tools/install_interfaces.py [--prefix DIR]`` (the venv's python; ``--prefix``
builds elsewhere and writes no .pth, for trying a change without touching the venv).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import pathlib
import shutil
import sys
import sysconfig
import tempfile
import time
from typing import Optional, Sequence

PACKAGE = 'bt_executive_interfaces'
ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / PACKAGE
INIT = (f'"""{PACKAGE}: the typed interfaces of bt_executive (built by make env from '
        f'{PACKAGE}/)."""\n')


def _builder():  # noqa: ANN202 - a module loaded by file
    name = '_bt_executive_build_interfaces'
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / 'tools' /
                                                      'build_interfaces.py')
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while defining
        spec.loader.exec_module(module)
    return sys.modules[name]


def default_prefix() -> pathlib.Path:
    """Return where ``make env`` installs the package: ``<venv>/opt/<package>``."""
    return pathlib.Path(sys.prefix) / 'opt' / PACKAGE


def unavailable_note(prefix: Optional[pathlib.Path] = None) -> pathlib.Path:
    """Return the file that says why the package was not built (absent when it was)."""
    prefix = default_prefix() if prefix is None else prefix
    return prefix.with_name(prefix.name + '.unavailable')


def _write_ament_index(prefix: pathlib.Path, definitions: Sequence[str]) -> None:
    """Register the package as ROS tools find packages (``AMENT_PREFIX_PATH``)."""
    index = prefix / 'share' / 'ament_index' / 'resource_index'
    (index / 'packages').mkdir(parents=True, exist_ok=True)
    (index / 'packages' / PACKAGE).write_text('')
    (index / 'rosidl_interfaces').mkdir(parents=True, exist_ok=True)
    (index / 'rosidl_interfaces' / PACKAGE).write_text(
        '\n'.join(sorted(definitions) + [name.rsplit('.', 1)[0] + '.idl'
                                         for name in sorted(definitions)]) + '\n')
    shutil.copy(SOURCE / 'package.xml', prefix / 'share' / PACKAGE / 'package.xml')


def install(prefix: pathlib.Path, *, write_pth: bool) -> int:
    """Build into ``prefix`` (replaced as a whole) and, with ``write_pth``, add the .pth."""
    builder = _builder()
    note = unavailable_note(prefix)
    definitions = builder.read_definitions(SOURCE)
    print(f'==> building {PACKAGE} ({len(definitions)} definitions) into {prefix}',
          flush=True)
    started = time.monotonic()
    prefix.parent.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f'.{PACKAGE}.', dir=prefix.parent))
    try:
        builder.build(PACKAGE, definitions, scratch / 'out', init=INIT,
                      progress=lambda line: print(f'    {line}', flush=True))
        _write_ament_index(scratch / 'out', list(definitions))
        # the generated modules are large (the action's is 80 kB): compiled at every
        # start (make exports PYTHONDONTWRITEBYTECODE) they cost each executive 3 MiB
        compileall.compile_dir(str(scratch / 'out' / 'python'), quiet=1)
        if prefix.exists():
            shutil.rmtree(prefix)
        os.rename(scratch / 'out', prefix)
    except builder.BuildUnavailable as error:
        note.write_text(f'{error}\n')
        print(f'==> {PACKAGE} NOT built: {error}\n'
              '    the executive runs without ExecuteTree, ListTrees and the typed topics; '
              'their tests are skipped', flush=True)
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    note.unlink(missing_ok=True)
    if write_pth:
        site = pathlib.Path(sysconfig.get_paths()['purelib'])
        (site / f'{PACKAGE}.pth').write_text(f'{prefix / "python"}\n')
        print(f'    on sys.path through {site / (PACKAGE + ".pth")}', flush=True)
    else:
        print(f'    PYTHONPATH={prefix / "python"}', flush=True)
    print(f'==> {PACKAGE} built in {time.monotonic() - started:.0f} s', flush=True)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Build and install the package (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--prefix', type=pathlib.Path,
                        help='build here and write no .pth (default: <venv>/opt/'
                             f'{PACKAGE}, on sys.path through a .pth)')
    args = parser.parse_args(argv)
    if args.prefix is not None:
        return install(args.prefix.resolve(), write_pth=False)
    return install(default_prefix(), write_pth=True)


if __name__ == '__main__':
    sys.exit(main())
