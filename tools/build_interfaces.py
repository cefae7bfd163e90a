# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Build a ROS 2 interface package with REAL type support from its definitions.

Used by ``make env`` for ``bt_executive_interfaces`` (tools/install_interfaces.py) and by
the tests for the typed stand-ins (test/standins/typed.py).

The package's ``.msg``, ``.srv`` and ``.action`` texts go through the rosidl generators
installed in the venv (their Python API: C, introspection C, Fast DDS C, the C dispatch
and Python), and the generated code is compiled with gcc/g++ against the headers and
libraries of the packages it uses. No CMake, no ament: only what the PyPI wheels ship.

The result is laid out as an install prefix (``OUT``)::

    OUT/python/<package>/...          put on PYTHONPATH
    OUT/lib/lib<L>__rosidl_*.so       the libraries (L: the package name, or see ``tag``)
    OUT/include/<package>/<package>/  the headers, as the wheels lay theirs out
    OUT/share/<package>/{msg,srv,action}/  the definitions, .idl and type description
                                      .json, so another package built here can use it

Every library and extension module links with RPATH (``--disable-new-dtags``) to its own
directory and to the prefixes of the packages it uses, so the dynamic linker takes them
from there *before* ``LD_LIBRARY_PATH``; and the C dispatch library (the one rclpy loads)
names its Fast DDS and introspection libraries as needed, so they are loaded together
with it, from the same directory. (The dispatch looks its implementations up by bare
name with ``dlopen``, which without that would search ``LD_LIBRARY_PATH`` first.)

``tag`` (a stand-in's): the libraries are called ``lib<package>__<tag>__rosidl_*.so``
instead of ``lib<package>__rosidl_*.so``, and the dispatch looks its implementations up
by that name, so the stand-in can never load, nor be mistaken for, a library of the real
package, whatever ``LD_LIBRARY_PATH`` says and whichever was loaded first in a process.
The Python package keeps its name, and the types their names and type hashes: on the
wire they are the real package's.

:func:`build` builds into a directory; :func:`build_cached` builds once per definitions
into a cache directory shared by every run on the machine (built in a scratch directory,
then renamed: two processes building at once both succeed). Both raise
:class:`BuildUnavailable` with the reason when a compiler, a header, a dependency or a
generator is missing.

Command line (by hand): ``python build_interfaces.py OUT PACKAGE DIR [DEPENDENCY_PREFIX
...]`` builds every ``msg/*.msg``, ``srv/*.srv`` and ``action/*.action`` under ``DIR``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Callable, Optional

KINDS = ('msg', 'srv', 'action')
#: packages the generated code of every service or action uses besides its fields'
_SERVICE_PACKAGES = ('service_msgs', 'builtin_interfaces')
_ACTION_PACKAGES = ('action_msgs', 'unique_identifier_msgs', 'builtin_interfaces',
                    'service_msgs')
_INCLUDE = re.compile(r'^#include "(\w+)/(?:msg|srv|action)/\w+\.idl"', re.MULTILINE)
_DISPATCH = 'rosidl_typesupport_c'
_IMPLEMENTATIONS = ('rosidl_typesupport_fastrtps_c', 'rosidl_typesupport_introspection_c')


class BuildUnavailable(RuntimeError):
    """The type support cannot be built here (no compiler, headers, dependency or generator)."""


@dataclasses.dataclass(frozen=True)
class Built:
    """A built package: the ``PYTHONPATH`` entry and the library directory to hand on."""

    package: str
    prefix: pathlib.Path
    python: pathlib.Path
    lib: pathlib.Path
    #: library directories of the packages it uses (already in the RPATH)
    dependency_libs: tuple[pathlib.Path, ...] = ()

    def environment(self, base: Optional[Mapping[str, str]] = None) -> dict[str, str]:
        """Return ``PYTHONPATH`` and ``LD_LIBRARY_PATH`` with this package first."""
        base = os.environ if base is None else base
        python = [str(self.python), *filter(None, [base.get('PYTHONPATH')])]
        libs = [str(self.lib), *filter(None, [base.get('LD_LIBRARY_PATH')])]
        return {'PYTHONPATH': os.pathsep.join(python), 'LD_LIBRARY_PATH': os.pathsep.join(libs)}


def library_name(package: str, tag: str = '') -> str:
    """Return the stem of the package's library names: ``pkg`` or ``pkg__tag``."""
    return f'{package}__{tag}' if tag else package


def read_definitions(directory: pathlib.Path) -> dict[str, str]:
    """Return ``{'msg/Name.msg': text, ...}`` for every definition under ``directory``."""
    found = {}
    for kind in KINDS:
        for path in sorted((directory / kind).glob(f'*.{kind}')):
            found[f'{kind}/{path.name}'] = path.read_text()
    return found


def find_prefix(package: str, prefixes: Iterable[pathlib.Path] = ()) -> Optional[pathlib.Path]:
    """Return the install prefix holding ``share/<package>``'s .idl files, or None.

    Looked for in ``prefixes``, then next to where ``package`` imports from (a venv, a
    colcon install, /opt/ros/<distro>, another build of this module), then in the venv
    and ``AMENT_PREFIX_PATH``.
    """
    candidates = list(prefixes)
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        candidates += pathlib.Path(spec.origin).resolve().parents
    candidates.append(pathlib.Path(sys.prefix))
    candidates += [pathlib.Path(entry) for entry in
                   os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if entry]
    for prefix in candidates:
        share = prefix / 'share' / package
        if any(any((share / kind).glob('*.idl')) for kind in KINDS if (share / kind).is_dir()):
            return prefix
    return None


def _check_tools() -> None:
    for tool in ('gcc', 'g++'):
        if shutil.which(tool) is None:
            raise BuildUnavailable(f'no {tool} on PATH (apt-get install build-essential)')
    venv = pathlib.Path(sys.prefix)
    if not (venv / 'include' / 'rosidl_runtime_c').is_dir():
        raise BuildUnavailable(f'no ROS headers under {venv}/include (the PyPI ROS wheels '
                               'are not installed in this interpreter)')
    missing = [module for module in ('numpy', 'rosidl_adapter', 'rosidl_cli',
                                     'rosidl_generator_c', 'rosidl_generator_py',
                                     'rosidl_typesupport_c', 'rosidl_typesupport_fastrtps_c',
                                     'rosidl_typesupport_introspection_c',
                                     'rosidl_generator_type_description')
               if importlib.util.find_spec(module) is None]
    if missing:
        raise BuildUnavailable(f'missing rosidl generators: {", ".join(missing)} '
                               '(pip install -r requirements-test.txt)')


def _write_sources(package: str, definitions: Mapping[str, str],
                   share: pathlib.Path) -> list[str]:
    """Write the definitions and their .idl into ``share``; return the .idl names."""
    from rosidl_adapter.action import convert_action_to_idl
    from rosidl_adapter.msg import convert_msg_to_idl
    from rosidl_adapter.srv import convert_srv_to_idl

    convert = {'msg': convert_msg_to_idl, 'srv': convert_srv_to_idl,
               'action': convert_action_to_idl}
    names = []
    for relative, text in sorted(definitions.items()):
        kind, name = relative.split('/')
        stem, suffix = name.rsplit('.', 1)
        if kind not in KINDS or suffix != kind:
            raise ValueError(f'{relative}: expected msg/Name.msg, srv/Name.srv or '
                             'action/Name.action')
        (share / kind).mkdir(parents=True, exist_ok=True)
        (share / relative).write_text(text)
        convert[kind](share, package, pathlib.Path(relative), share / kind)
        names.append(f'{kind}/{stem}.idl')
    return names


def _dependencies(package: str, share: pathlib.Path, idl_names: list[str],
                  prefixes: Sequence[pathlib.Path]) -> dict[str, pathlib.Path]:
    """Return every package the definitions use, transitively: name -> install prefix."""
    wanted: list[str] = []
    if any(name.startswith('srv/') for name in idl_names):
        wanted += _SERVICE_PACKAGES
    if any(name.startswith('action/') for name in idl_names):
        wanted += _ACTION_PACKAGES
    texts = [(share / name).read_text() for name in idl_names]
    found: dict[str, pathlib.Path] = {}
    while texts or wanted:
        for text in texts:
            wanted += _INCLUDE.findall(text)
        texts = []
        for name in wanted:
            if name == package or name in found:
                continue
            prefix = find_prefix(name, prefixes)
            if prefix is None:
                raise BuildUnavailable(f'{package} uses {name}, which is not installed here '
                                       '(no share/{name}/ with .idl files)')
            found[name] = prefix
            for kind in KINDS:
                texts += [path.read_text() for path in
                          (prefix / 'share' / name / kind).glob('*.idl')]
        wanted = []
    found.setdefault('type_description_interfaces', pathlib.Path(sys.prefix))
    return found


@contextlib.contextmanager
def _each_text_parsed_once() -> Iterator[None]:
    """Within the block, parse each IDL text once, however often it is asked for.

    Every generator, the type hashes and the constants check each parse every ``.idl``
    again (seven parses per file), and the parse (lark, in
    ``rosidl_parser.parser.get_ast_from_idl_string``, a pure function of the text whose
    tree the callers only read) is most of what the rosidl step costs outside the
    templates. Measured on nav2_msgs' three actions: the rosidl step took 6.2-6.7 s of
    CPU instead of 8.1-8.3 s, and generated the same files. The function is restored
    afterwards.
    """
    from rosidl_parser import parser

    original = parser.get_ast_from_idl_string
    parser.get_ast_from_idl_string = functools.lru_cache(maxsize=None)(original)
    try:
        yield
    finally:
        parser.get_ast_from_idl_string = original


def _generate(package: str, share: pathlib.Path, idl_names: list[str],
              include_paths: list[str], gen: pathlib.Path) -> None:
    """Run the generators (their Python API: the CLI's entry points clash here)."""
    from rosidl_cli.command.hash.api import generate_type_hashes
    from rosidl_generator_c.cli import GenerateC
    from rosidl_generator_py.cli import GeneratePython
    from rosidl_typesupport_c.cli import GenerateCTypesupport
    from rosidl_typesupport_fastrtps_c.cli import GenerateFastRTPSCTypesupport
    from rosidl_typesupport_introspection_c.cli import GenerateIntrospectionCTypesupport

    files = [f'{share}:{name}' for name in idl_names]
    # the type descriptions (.json) go beside the .idl, where dependents look for them
    descriptions = [str(path) for path in generate_type_hashes(
        package_name=package, interface_files=files, include_paths=include_paths,
        output_path=share)]
    extensions = [(GenerateC('c'), True),
                  (GenerateIntrospectionCTypesupport('introspection_c'), True),
                  (GenerateFastRTPSCTypesupport('fastrtps_c'), True),
                  (GenerateCTypesupport('typesupport_c',
                                        typesupport_implementations=list(_IMPLEMENTATIONS)),
                   True),
                  (GeneratePython('py', typesupport_implementations=[_DISPATCH]), False)]
    for extension, takes_descriptions in extensions:
        keywords = {'type_description_files': descriptions} if takes_descriptions else {}
        try:
            extension.generate(package, files, include_paths,
                               output_path=gen / extension.name, **keywords)
        except TypeError:  # a generator of another rosidl version: no such argument
            extension.generate(package, files, include_paths,
                               output_path=gen / extension.name)


def _check_constants(package: str, definitions: Mapping[str, str], share: pathlib.Path,
                     idl_names: list[str]) -> None:
    """Refuse definitions whose constants rosidl_parser would give to the wrong part.

    rosidl_parser (4.9) finds the module of a constant by comparing parse trees by value,
    so two parts of one action or service declaring the same constant with the same value
    and no comment (``uint16 NONE=0`` in a Result and a Feedback) both get it in the first
    part: the second part loses it, the first declares it twice. Nav2's own files escape
    this because a comment sits right above the Result's first constant.
    """
    from rosidl_adapter.parser import parse_action_string, parse_service_string
    from rosidl_parser.definition import Action, IdlLocator, Service
    from rosidl_parser.parser import parse_idl_file

    for idl in idl_names:
        kind, name = idl[:-len('.idl')].split('/')
        if kind == 'msg':
            continue
        text = definitions[f'{kind}/{name}.{kind}']
        if kind == 'srv':
            spec = parse_service_string(package, name, text)
            wanted = [spec.request, spec.response]
        else:
            spec = parse_action_string(package, name, text)
            wanted = [spec.goal, spec.result, spec.feedback]
        content = parse_idl_file(IdlLocator(share.parent, pathlib.Path(package) / idl)).content
        if kind == 'srv':
            service = content.get_elements_of_type(Service)[0]
            parsed = [service.request_message, service.response_message]
        else:
            action = content.get_elements_of_type(Action)[0]
            parsed = [action.goal, action.result, action.feedback]
        for expected, got in zip(wanted, parsed):
            names = [constant.name for constant in expected.constants]
            if [constant.name for constant in got.constants] != names:
                raise BuildUnavailable(
                    f'{kind}/{name}: rosidl_parser gives {got.structure.namespaced_type.name} '
                    f'the constants {[c.name for c in got.constants]} instead of {names} (a '
                    'constant declared alike in two parts); put a comment line right above '
                    'the first constant of the earlier part')


def _lay_out_headers(package: str, gen: pathlib.Path, include: pathlib.Path) -> None:
    """Lay the generated headers out as ``<package>/<package>/...``, as the wheels do."""
    target = include / package / package
    for part in ('c', 'introspection_c', 'fastrtps_c'):
        shutil.copytree(gen / part, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns('*.json', 'tmp'))


def _retag_dispatch(package: str, tag: str, gen: pathlib.Path) -> None:
    """Make the C dispatch look its implementations up as ``lib<package>__<tag>__...``."""
    for source in (gen / 'typesupport_c').rglob('*.cpp'):
        text = source.read_text()
        retagged = text.replace(f'\n  "{package}",\n', f'\n  "{library_name(package, tag)}",\n')
        if retagged == text:
            raise BuildUnavailable(f'cannot find the package name in the type support map '
                                   f'of {source.name} (another rosidl version?)')
        source.write_text(retagged)


def _compile(package: str, tag: str, optimize: str, gen: pathlib.Path, out: pathlib.Path,
             dependencies: Mapping[str, pathlib.Path]) -> None:
    """Compile the libraries and the Python extension module."""
    import numpy

    include, lib, python = out / 'include', out / 'lib', out / 'python' / package
    stem = library_name(package, tag)
    venv = pathlib.Path(sys.prefix)
    prefixes = list(dict.fromkeys([venv, *dependencies.values()]))
    includes = [f'-I{include / package}']
    for prefix in prefixes:
        includes += [f'-I{prefix / "include"}']
        includes += [f'-I{path}' for path in sorted((prefix / 'include').glob('*'))
                     if path.is_dir()]
    python_includes = (f"-I{sysconfig.get_paths()['include']}", f'-I{numpy.get_include()}')
    # RPATH, not RUNPATH: searched before LD_LIBRARY_PATH; relative to the file, since
    # the cache builds in a scratch directory and renames it
    runpaths = ['$ORIGIN', *[str(prefix / 'lib') for prefix in prefixes]]
    links = ['-Wl,--disable-new-dtags', f'-L{lib}',
             *[f'-L{prefix / "lib"}' for prefix in prefixes]]
    common = [optimize, '-fPIC', '-shared', '-w']

    def deps(kind: str) -> list[str]:
        return [f'-l{name}__{kind}' for name in dependencies]

    def run(compiler: str, sources: list[pathlib.Path], output: pathlib.Path,
            *libraries: str, extra: tuple[str, ...] = (), rpath: Sequence[str] = ()) -> None:
        if not sources:
            raise BuildUnavailable(f'nothing was generated for {output.name}')
        soname = [f'-Wl,-soname,{output.name}'] if output.name.startswith('lib') else []
        command = [compiler, *common, *extra, *includes, *map(str, sources), '-o',
                   str(output), *soname, *links,
                   *[f'-Wl,-rpath,{path}' for path in [*rpath, *runpaths]], *libraries]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BuildUnavailable(f'{compiler} failed for {output.name}:\n'
                                   f'{done.stderr[-3000:]}')

    def own(kind: str) -> str:
        return f'-l{stem}__{kind}'

    def library(kind: str) -> pathlib.Path:
        return lib / f'lib{stem}__{kind}.so'

    lib.mkdir(parents=True)
    run('gcc', sorted((gen / 'c').rglob('*.c')), library('rosidl_generator_c'),
        '-lrosidl_runtime_c', '-lrcutils', *deps('rosidl_generator_c'))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        jobs = [pool.submit(
            run, 'gcc', sorted((gen / 'introspection_c').rglob('*.c')),
            library('rosidl_typesupport_introspection_c'), own('rosidl_generator_c'),
            '-lrosidl_typesupport_introspection_c', '-lrosidl_runtime_c',
            *deps('rosidl_typesupport_introspection_c'), *deps('rosidl_generator_c')),
            pool.submit(
            run, 'g++', sorted((gen / 'fastrtps_c').rglob('*.cpp')),
            library('rosidl_typesupport_fastrtps_c'), own('rosidl_generator_c'),
            '-lrosidl_typesupport_fastrtps_c', '-lrosidl_typesupport_fastrtps_cpp',
            '-lfastcdr', '-lrosidl_runtime_c', '-lrmw',
            *deps('rosidl_typesupport_fastrtps_c'), *deps('rosidl_generator_c'),
            extra=('-std=c++17',))]
        for job in jobs:
            job.result()
    # the dispatch needs its implementations: loaded with it, by RPATH, never looked up
    run('g++', sorted((gen / 'typesupport_c').rglob('*.cpp')), library(_DISPATCH),
        own('rosidl_generator_c'), '-Wl,--no-as-needed',
        *[own(kind) for kind in _IMPLEMENTATIONS], '-Wl,--as-needed',
        '-lrosidl_typesupport_c', '-lrosidl_runtime_c', '-lrcutils', '-lrcpputils',
        *deps('rosidl_typesupport_c'), extra=('-std=c++17',))
    run('gcc', sorted((gen / 'py').rglob('*_s.c')), library('rosidl_generator_py'),
        own('rosidl_generator_c'), own(_DISPATCH), '-lrosidl_runtime_c',
        *deps('rosidl_generator_py'), *deps('rosidl_generator_c'),
        *deps('rosidl_typesupport_c'), extra=python_includes)
    python.mkdir(parents=True)
    suffix = sysconfig.get_config_var('EXT_SUFFIX')
    run('gcc', [gen / 'py' / f'_{package}_s.ep.{_DISPATCH}.c'],
        python / f'{package}_s__{_DISPATCH}{suffix}', own('rosidl_generator_py'),
        own(_DISPATCH), own('rosidl_generator_c'), '-lrosidl_runtime_c',
        extra=python_includes, rpath=('$ORIGIN/../../lib',))
    for kind in KINDS:
        modules = sorted((gen / 'py' / kind).glob('*.py'))
        if modules:
            (python / kind).mkdir()
            for module in modules:
                shutil.copy(module, python / kind / module.name)


def build(package: str, definitions: Mapping[str, str], out: pathlib.Path, *,
          tag: str = '', prefixes: Sequence[pathlib.Path] = (), init: str = '',
          optimize: str = '-O1',
          progress: Callable[[str], None] = lambda line: None) -> Built:
    """Build ``package`` from ``definitions`` (``{'msg/Name.msg': text}``) into ``out``.

    Args:
        package: The package name (also the Python package's).
        definitions: The ``.msg``/``.srv``/``.action`` texts by relative path.
        out: The directory to build into; removed first if it exists.
        tag: Name the libraries ``lib<package>__<tag>__...`` (a stand-in's; see above).
        prefixes: Install prefixes to look for the packages it uses in first.
        init: The text of the Python package's ``__init__.py``.
        optimize: The compilers' optimisation option: ``-O0`` for a build only tests use
            (nav2_msgs' stand-in: 5.5 s of compiling instead of 7.6 s).
        progress: Called with a line on each step (generating, compiling).

    Raises:
        BuildUnavailable: Why the build is not possible or failed.
    """
    _check_tools()
    if out.exists():
        shutil.rmtree(out)
    share = out / 'share' / package
    share.mkdir(parents=True)
    idl_names = _write_sources(package, definitions, share)
    with _each_text_parsed_once():
        _check_constants(package, definitions, share, idl_names)
        dependencies = _dependencies(package, share, idl_names,
                                     [pathlib.Path(p) for p in prefixes])
        include_paths = list(dict.fromkeys(
            [str(out / 'share'), *[str(prefix / 'share') for prefix in dependencies.values()]]))
        venv = pathlib.Path(sys.prefix)
        environment = os.environ.get('AMENT_PREFIX_PATH')
        os.environ['AMENT_PREFIX_PATH'] = str(venv) + (
            os.pathsep + environment if environment else '')
        gen = out / 'gen'
        progress(f'generating the C and Python code of {len(idl_names)} interfaces (rosidl)')
        try:
            _generate(package, share, idl_names, include_paths, gen)
        except BuildUnavailable:
            raise
        except Exception as error:  # noqa: B902 - whatever the generators raise
            raise BuildUnavailable(f'rosidl generation failed: {type(error).__name__}: '
                                   f'{error}') from error
        finally:
            if environment is None:
                del os.environ['AMENT_PREFIX_PATH']
            else:
                os.environ['AMENT_PREFIX_PATH'] = environment
    if tag:
        _retag_dispatch(package, tag, gen)
    _lay_out_headers(package, gen, out / 'include')
    progress('compiling the type support libraries and the Python extension (gcc, g++)')
    _compile(package, tag, optimize, gen, out, dependencies)
    (out / 'python' / package / '__init__.py').write_text(init)
    shutil.rmtree(gen)
    libs = tuple(dict.fromkeys(prefix / 'lib' for prefix in dependencies.values()))
    return Built(package, out, out / 'python', out / 'lib', libs)


def cache_root() -> pathlib.Path:
    """Return the machine's cache of built packages: ``<venv>/standins-cache``.

    It lives in the venv, so it goes with it (``make clean``) and survives test runs; a
    temp directory when the venv is not writable.
    """
    root = pathlib.Path(sys.prefix) / 'standins-cache'
    try:
        root.mkdir(exist_ok=True)
        if os.access(root, os.W_OK):
            return root
    except OSError:
        pass
    root = pathlib.Path(tempfile.gettempdir()) / f'bt_executive_standins_{os.getuid()}'
    root.mkdir(exist_ok=True)
    return root


def build_cached(package: str, definitions: Mapping[str, str], *, tag: str = '',
                 prefixes: Sequence[pathlib.Path] = (), init: str = '', optimize: str = '-O1',
                 root: Optional[pathlib.Path] = None) -> Built:
    """Build once into ``<root>/<package>-<hash>`` and reuse it; see :func:`build`.

    The hash covers the definitions, ``tag``, ``init``, ``optimize``, the prefixes, this
    file and the interpreter, so a change to any of them builds anew. Safe when several
    processes build at once: each builds in a scratch directory and renames it into place;
    the first rename wins and the others use its result.
    """
    root = cache_root() if root is None else root
    digest = hashlib.sha256()
    for key, text in sorted(definitions.items()):
        digest.update(f'{key}\0{text}\0'.encode())
    digest.update(f'{package}\0{tag}\0{init}\0{optimize}\0{sys.prefix}\0'.encode())
    digest.update('\0'.join(map(str, prefixes)).encode())
    # where the packages the definitions name are installed (their paths are in the RPATH)
    used = sorted({name for text in definitions.values()
                   for name in re.findall(r'^\s*(\w+)/\w+', text, re.MULTILINE)} - {package})
    digest.update(repr([(name, find_prefix(name, prefixes)) for name in used]).encode())
    digest.update(pathlib.Path(__file__).read_bytes())
    target = root / f'{package}-{digest.hexdigest()[:16]}'
    if not (target / 'complete').exists():
        scratch = pathlib.Path(tempfile.mkdtemp(prefix=f'.{target.name}.', dir=root))
        try:
            build(package, definitions, scratch / 'out', tag=tag, prefixes=prefixes,
                  init=init, optimize=optimize)
            (scratch / 'out' / 'complete').write_text('')
            try:
                os.rename(scratch / 'out', target)
            except OSError:  # another process renamed its build first
                if not (target / 'complete').exists():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    dependencies = _dependencies(package, target / 'share' / package,
                                 [str(path.relative_to(target / 'share' / package))
                                  for kind in KINDS for path in
                                  sorted((target / 'share' / package / kind).glob('*.idl'))],
                                 [pathlib.Path(p) for p in prefixes])
    libs = tuple(dict.fromkeys(prefix / 'lib' for prefix in dependencies.values()))
    return Built(package, target, target / 'python', target / 'lib', libs)


def main(argv: Sequence[str]) -> int:
    """Build a package from a directory of definitions (by hand)."""
    if len(argv) < 3:
        print('usage: build_interfaces.py OUT PACKAGE DEFINITIONS_DIR [PREFIX ...]',
              file=sys.stderr)
        return 2
    out, package, source = pathlib.Path(argv[0]).resolve(), argv[1], pathlib.Path(argv[2])
    try:
        built = build(package, read_definitions(source), out,
                      prefixes=[pathlib.Path(p).resolve() for p in argv[3:]])
    except BuildUnavailable as error:
        print(f'build_interfaces: {error}', file=sys.stderr)
        return 1
    print(f'PYTHONPATH={built.python} LD_LIBRARY_PATH={built.lib}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
