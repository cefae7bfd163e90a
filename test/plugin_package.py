# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The example plugin package of docs/plugins.md, built for real in a temporary directory.

The page marks each file of the package with ``<!-- file: PATH -->`` before its code
block (and alternatives that are only checked with ``<!-- alternative: NAME -->``).
:func:`build_package` writes those files, adds the two the page only names (the empty
``my_robot_bt/__init__.py`` and ``resource/my_robot_bt``), and runs the page's
``setup.py egg_info``: setuptools writes ``my_robot_bt.egg-info/entry_points.txt`` from the
page's own ``entry_points``, which is what colcon and pip install too. With the package
directory on ``PYTHONPATH`` (:meth:`Package.env`), ``importlib.metadata`` finds the entry
point: no network, no pip, about a second.

No rclpy here: the offline tests use it too.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import subprocess
import sys
from typing import Optional

from cli_process import run_cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / 'docs' / 'plugins.md'
#: The entry point the page declares (setup.py, setup.cfg and pyproject.toml must agree).
ENTRY_POINT = 'my_robot_bt = my_robot_bt.bt_nodes:node_types'

_BLOCK = re.compile(r'<!-- (file|alternative): (?P<name>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)```',
                    re.DOTALL)
_COMMAND = re.compile(r'^\$ bt-executive (?P<args>.+)$')


def blocks(kind: str = 'file') -> dict[str, str]:
    """Return the marked code blocks of docs/plugins.md: name -> text."""
    text = DOCS.read_text(encoding='utf-8')
    return {match['name']: match['body'] for match in _BLOCK.finditer(text)
            if match[1] == kind}


def sessions() -> list[tuple[list[str], str]]:
    """Return the ``$ bt-executive ...`` commands of the page with the output it shows."""
    text = DOCS.read_text(encoding='utf-8')
    found: list[tuple[list[str], str]] = []
    for block in re.findall(r'```\n(\$ bt-executive .*?)```', text, re.DOTALL):
        current: Optional[list[str]] = None
        output: list[str] = []
        for line in block.splitlines():
            match = _COMMAND.match(line)
            if match:
                if current is not None:
                    found.append((current, '\n'.join(output)))
                current, output = match['args'].split(), []
            else:
                output.append(line)
        if current is not None:
            found.append((current, '\n'.join(output)))
    return found


@dataclasses.dataclass
class Package:
    """The built package: its directory (the egg-info inside) and how to run things on it."""

    path: pathlib.Path

    def env(self, *extra: os.PathLike[str] | str, entry_point: bool = True) -> dict[str, str]:
        """Return the environment with the package (and ``extra`` dirs) on PYTHONPATH.

        Args:
            extra: more directories, before the package (e.g. other plugins)
            entry_point: False puts a copy of the module without the egg-info on the path,
                so the entry point is not installed
        """
        package = self.path if entry_point else self.plain()
        parts = [*map(str, extra), str(package), str(ROOT), os.environ.get('PYTHONPATH', '')]
        return {**os.environ, 'PYTHONPATH': os.pathsep.join(p for p in parts if p)}

    def plain(self) -> pathlib.Path:
        """Return a directory with only the module (no egg-info: no entry point)."""
        plain = self.path.parent / 'plain'
        if not plain.exists():
            (plain / 'my_robot_bt').mkdir(parents=True)
            for source in (self.path / 'my_robot_bt').glob('*.py'):
                (plain / 'my_robot_bt' / source.name).write_text(source.read_text())
        return plain

    def cli(self, *args: str, env: Optional[dict[str, str]] = None,
            timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        """Run ``bt-executive ARGS`` in the package directory."""
        return run_cli(*args, cwd=self.path, env=env or self.env(), timeout=timeout)


def build_package(directory: pathlib.Path) -> Package:
    """Write the package of docs/plugins.md under ``directory`` and make its egg-info."""
    path = directory / 'my_robot_bt'
    files = blocks('file')
    files.setdefault('my_robot_bt/__init__.py', '')
    files.setdefault('resource/my_robot_bt', '')
    for name, body in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding='utf-8')
    result = subprocess.run([sys.executable, 'setup.py', '--quiet', 'egg_info'], cwd=path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f'setup.py egg_info failed:\n{result.stderr}'
    return Package(path)


def write_plugin(directory: pathlib.Path, distribution: str, entry_points: dict[str, str],
                 modules: dict[str, str]) -> pathlib.Path:
    """Write modules and a minimal ``*.dist-info`` declaring ``entry_points`` (name -> value).

    Returns:
        the directory to put on PYTHONPATH
    """
    directory.mkdir(parents=True, exist_ok=True)
    info = directory / f'{distribution}-1.0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text(f'Metadata-Version: 2.1\nName: {distribution}\n'
                                   'Version: 1.0\n')
    lines = [f'{name} = {value}' for name, value in entry_points.items()]
    (info / 'entry_points.txt').write_text('[bt_executive.node_types]\n' + '\n'.join(lines)
                                           + '\n')
    for name, text in modules.items():
        (directory / name).write_text(text)
    return directory
