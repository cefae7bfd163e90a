# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Build a ``nav2_msgs`` with REAL ROS type support from the stand-in's shapes (tests only).

``python test/standins/build_nav2_msgs.py OUT``: writes ``.action`` definitions from the
stand-in classes (test/standins/nav2_msgs: their fields, defaults and constants), turns
them into code with the rosidl generators installed in the venv (C, introspection C,
Fast DDS C, the C dispatch and Python) and compiles that with gcc/g++ against the
venv's headers and libraries. The result is ``OUT/python/nav2_msgs`` (put it on
``PYTHONPATH``) and ``OUT/lib`` (put it on ``LD_LIBRARY_PATH``: the C dispatch finds
the Fast DDS type support library there). Its types go over DDS like any generated
package, so the sim's Nav2 actions and the executive's Action leaves can be tested
across processes; the package says ``BUILT_FROM_STANDIN = True`` so that nobody
mistakes it for Nav2's.

:func:`build` raises :class:`BuildUnavailable` with the reason when a compiler, a
header or a generator is missing.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
ACTIONS = ('NavigateToPose', 'DockRobot', 'UndockRobot')
_IDL_TYPES = {'boolean': 'bool', 'float': 'float32', 'uint16': 'uint16', 'int16': 'int16',
              'string': 'string', 'geometry_msgs/PoseStamped': 'geometry_msgs/PoseStamped',
              'builtin_interfaces/Duration': 'builtin_interfaces/Duration'}
_DEPENDENCIES = ('geometry_msgs', 'std_msgs', 'builtin_interfaces', 'action_msgs',
                 'unique_identifier_msgs', 'service_msgs', 'type_description_interfaces')
_TYPE_SUPPORTS = ('rosidl_typesupport_c', 'rosidl_typesupport_fastrtps_c',
                  'rosidl_typesupport_introspection_c')


class BuildUnavailable(RuntimeError):
    """The type support cannot be built here (no compiler, headers or generators)."""


def _standin() -> object:
    """Import the stand-in's action module from its file, under a private name."""
    spec = importlib.util.spec_from_file_location(
        '_nav2_msgs_standin_action', HERE / 'nav2_msgs' / 'action' / '__init__.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def action_definitions() -> dict[str, str]:
    """Return ``.action`` text for each action, written from the stand-in's classes."""
    module = _standin()
    texts = {}
    for name in ACTIONS:
        sections = []
        for part in ('Goal', 'Result', 'Feedback'):
            cls = getattr(getattr(module, name), part)
            lines = [f'uint16 {constant}={getattr(cls, constant)}'
                     for constant in vars(cls) if constant.isupper()]
            for field, field_type in cls.get_fields_and_field_types().items():
                default = cls._values.get(field)
                suffix = '' if default is None else f' {default!r}'
                lines.append(f'{_IDL_TYPES[field_type]} {field}{suffix}')
            sections.append('\n'.join(lines))
        texts[name] = '\n---\n'.join(sections) + '\n'
    return texts


def _generate(source: pathlib.Path, out: pathlib.Path, share: pathlib.Path) -> None:
    """Run the rosidl generators (their Python API: the CLI's entry points clash here)."""
    from rosidl_adapter.action import convert_action_to_idl
    from rosidl_generator_c.cli import GenerateC
    from rosidl_generator_py.cli import GeneratePython
    from rosidl_typesupport_c.cli import GenerateCTypesupport
    from rosidl_typesupport_fastrtps_c.cli import GenerateFastRTPSCTypesupport
    from rosidl_typesupport_introspection_c.cli import GenerateIntrospectionCTypesupport

    idl = out / 'idl'
    files = []
    for name in ACTIONS:
        convert_action_to_idl(source, 'nav2_msgs', pathlib.Path(f'action/{name}.action'),
                              idl / 'action')
        files.append(f'{idl}:action/{name}.idl')
    implementations = list(_TYPE_SUPPORTS[1:])
    for extension in (GenerateC('c'), GenerateIntrospectionCTypesupport('introspection_c'),
                      GenerateFastRTPSCTypesupport('fastrtps_c'),
                      GenerateCTypesupport('typesupport_c',
                                           typesupport_implementations=implementations),
                      GeneratePython('py', typesupport_implementations=list(_TYPE_SUPPORTS))):
        extension.generate('nav2_msgs', files, [str(share)],
                           output_path=out / 'gen' / extension.name)


def _merge_headers(gen: pathlib.Path, include: pathlib.Path) -> None:
    """Lay the generated headers out as ``nav2_msgs/...``; rename duplicate constants.

    The C generator of this rosidl version names a Feedback constant that shares its name
    with a Result constant (``NONE``) after the Result, which redeclares the enumerator;
    the second one gets a ``__DUPLICATE`` suffix (no generated code uses it).
    """
    target = include / 'nav2_msgs'
    for part in ('c', 'introspection_c', 'fastrtps_c'):
        shutil.copytree(gen / part, target, dirs_exist_ok=True)
    for header in target.rglob('*__struct.h'):
        seen: set[str] = set()
        lines = []
        for line in header.read_text().splitlines(keepends=True):
            match = re.match(r'\s+(\w+) = ', line)
            if match:
                if match.group(1) in seen:
                    line = line.replace(match.group(1), match.group(1) + '__DUPLICATE', 1)
                seen.add(match.group(1))
            lines.append(line)
        header.write_text(''.join(lines))


def _compile(gen: pathlib.Path, include: pathlib.Path, lib: pathlib.Path,
             python: pathlib.Path, venv: pathlib.Path) -> None:
    """Compile the libraries and the Python extension modules."""
    import numpy

    includes = [f'-I{include}', f'-I{venv / "include"}']
    includes += [f'-I{path}' for path in sorted((venv / 'include').iterdir()) if path.is_dir()]
    python_includes = [f"-I{sysconfig.get_paths()['include']}", f'-I{numpy.get_include()}']
    # relative run paths: the tests build in a scratch directory, then rename it
    links = [f'-L{venv / "lib"}', f'-L{lib}', '-Wl,-rpath,$ORIGIN',
             '-Wl,-rpath,$ORIGIN/../../lib', f'-Wl,-rpath,{venv / "lib"}']
    common = ['-O1', '-fPIC', '-shared', '-w']

    def deps(kind: str) -> list[str]:
        return [f'-l{package}__{kind}' for package in _DEPENDENCIES]

    def run(compiler: str, sources: list[pathlib.Path], output: pathlib.Path,
            *libraries: str, extra: tuple[str, ...] = ()) -> None:
        soname = [f'-Wl,-soname,{output.name}'] if output.name.startswith('lib') else []
        command = [compiler, *common, *extra, *includes, *map(str, sources), '-o', str(output),
                   *soname, *links, *libraries]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BuildUnavailable(f'{compiler} failed for {output.name}:\n'
                                   f'{done.stderr[-3000:]}')

    detail = gen / 'c' / 'action' / 'detail'
    own = '-lnav2_msgs__rosidl_generator_c'
    run('gcc', sorted(detail.glob('*.c')), lib / 'libnav2_msgs__rosidl_generator_c.so',
        '-lrosidl_runtime_c', '-lrcutils', *deps('rosidl_generator_c'))
    run('gcc', sorted((gen / 'introspection_c').rglob('*.c')),
        lib / 'libnav2_msgs__rosidl_typesupport_introspection_c.so', own,
        '-lrosidl_typesupport_introspection_c', '-lrosidl_runtime_c',
        *deps('rosidl_typesupport_introspection_c'), *deps('rosidl_generator_c'))
    run('g++', sorted((gen / 'fastrtps_c').rglob('*.cpp')),
        lib / 'libnav2_msgs__rosidl_typesupport_fastrtps_c.so', own,
        '-lrosidl_typesupport_fastrtps_c', '-lrosidl_typesupport_fastrtps_cpp', '-lfastcdr',
        '-lrosidl_runtime_c', '-lrmw', *deps('rosidl_typesupport_fastrtps_c'),
        *deps('rosidl_generator_c'), extra=('-std=c++17',))
    run('g++', sorted((gen / 'typesupport_c').rglob('*.cpp')),
        lib / 'libnav2_msgs__rosidl_typesupport_c.so', own, '-lrosidl_typesupport_c',
        '-lrosidl_runtime_c', '-lrcutils', '-lrcpputils', *deps('rosidl_typesupport_c'),
        extra=('-std=c++17',))
    run('gcc', sorted((gen / 'py' / 'action').glob('*_s.c')),
        lib / 'libnav2_msgs__rosidl_generator_py.so', own,
        '-lnav2_msgs__rosidl_typesupport_c', '-lrosidl_runtime_c',
        *deps('rosidl_generator_py'), *deps('rosidl_generator_c'),
        *deps('rosidl_typesupport_c'), extra=tuple(python_includes))
    package = python / 'nav2_msgs'
    (package / 'action').mkdir(parents=True, exist_ok=True)
    suffix = sysconfig.get_config_var('EXT_SUFFIX')
    for support in _TYPE_SUPPORTS:
        run('gcc', [gen / 'py' / f'_nav2_msgs_s.ep.{support}.c'],
            package / f'nav2_msgs_s__{support}{suffix}', '-lnav2_msgs__rosidl_generator_py',
            f'-lnav2_msgs__{support}', own, '-lrosidl_runtime_c',
            extra=tuple(python_includes))
    for module in (gen / 'py' / 'action').glob('*.py'):
        shutil.copy(module, package / 'action' / module.name)
    (package / '__init__.py').write_text(
        '"""nav2_msgs BUILT FROM THE TEST STAND-IN (test/standins), not Nav2\'s."""\n\n'
        'BUILT_FROM_STANDIN = True\n')


def build(out: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """Build into ``out`` (reused when complete); return (python path, library path).

    Raises:
        BuildUnavailable: Why the build is not possible or failed.
    """
    python, lib = out / 'python', out / 'lib'
    marker = out / 'complete'
    if marker.exists():
        return python, lib
    for tool in ('gcc', 'g++'):
        if shutil.which(tool) is None:
            raise BuildUnavailable(f'no {tool} on PATH')
    venv = pathlib.Path(sys.prefix)
    share = venv / 'share'
    if not (venv / 'include' / 'rosidl_runtime_c').is_dir() or not (
            share / 'geometry_msgs').is_dir():
        raise BuildUnavailable(f'no ROS headers and interface files under {venv}')
    try:
        import numpy  # noqa: F401
        import rosidl_generator_py  # noqa: F401
    except ImportError as error:
        raise BuildUnavailable(f'missing: {error}') from error
    if out.exists():
        shutil.rmtree(out)
    source = out / 'src'
    (source / 'action').mkdir(parents=True)
    for name, text in action_definitions().items():
        (source / 'action' / f'{name}.action').write_text(text)
    environment = os.environ.get('AMENT_PREFIX_PATH')
    os.environ['AMENT_PREFIX_PATH'] = str(venv) + (
        os.pathsep + environment if environment else '')
    try:
        _generate(source, out, share)
    except Exception as error:  # noqa: B902 - whatever the generators raise
        raise BuildUnavailable(f'rosidl generation failed: {type(error).__name__}: '
                               f'{error}') from error
    finally:
        if environment is None:
            del os.environ['AMENT_PREFIX_PATH']
        else:
            os.environ['AMENT_PREFIX_PATH'] = environment
    include = out / 'include'
    _merge_headers(out / 'gen', include)
    lib.mkdir()
    _compile(out / 'gen', include, lib, python, venv)
    marker.write_text('')
    return python, lib


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: build_nav2_msgs.py OUT_DIR')
    paths = build(pathlib.Path(sys.argv[1]).resolve())
    print(f'PYTHONPATH={paths[0]} LD_LIBRARY_PATH={paths[1]}')
