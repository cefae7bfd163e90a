# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Every source file carries the copyright and licence lines; LICENSE is the Apache-2.0 text.

REP-2004 asks for a licence and a copyright statement in every source file. The header
is two comment lines at the top of the file (after a ``#!`` line or ``<!DOCTYPE html>``)::

    # Copyright 2026 bt_executive developers
    # SPDX-License-Identifier: Apache-2.0
"""

import pathlib
import re
import xml.etree.ElementTree as ElementTree

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: Where the sources are (the same places the linters check).
SOURCES = ('bt_executive', 'test', 'bench', 'launch', 'setup.py')
#: Source files by suffix, and how their comments start.
COMMENTS = {'.py': '#', '.js': '//', '.css': '/*', '.html': '<!--'}
COPYRIGHT = re.compile(r'Copyright (\d{4})(-\d{4})? bt_executive developers')
LICENSE_ID = 'SPDX-License-Identifier: Apache-2.0'


def source_files() -> list[pathlib.Path]:
    files = []
    for name in SOURCES:
        path = ROOT / name
        candidates = [path] if path.is_file() else path.rglob('*')
        files.extend(p for p in candidates if p.suffix in COMMENTS and p.is_file()
                     and '__pycache__' not in p.parts)
    return sorted(files)


def header(path: pathlib.Path) -> list[str]:
    """Return the first two lines after a ``#!`` line or an HTML doctype."""
    lines = path.read_text(encoding='utf-8').splitlines()
    if lines and (lines[0].startswith('#!') or lines[0].lower() == '<!doctype html>'):
        lines = lines[1:]
    return lines[:2]


def test_the_sources_are_found():
    files = source_files()
    suffixes = {path.suffix for path in files}
    assert suffixes == set(COMMENTS), suffixes
    assert len(files) > 100
    assert ROOT / 'setup.py' in files and ROOT / 'launch' / 'patrol.launch.py' in files


@pytest.mark.parametrize('path', source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_source_file_starts_with_the_copyright_and_licence(path):
    lines = header(path)
    comment = COMMENTS[path.suffix]
    assert len(lines) == 2 and all(line.startswith(comment) for line in lines), \
        f'{path.relative_to(ROOT)}: the file must start with\n' \
        f'{comment} Copyright 2026 bt_executive developers\n{comment} {LICENSE_ID}\n' \
        f'got: {lines}'
    assert COPYRIGHT.search(lines[0]), lines[0]
    assert LICENSE_ID in lines[1], lines[1]


def test_license_is_the_apache_2_text_and_the_metadata_agrees():
    text = (ROOT / 'LICENSE').read_text(encoding='utf-8')
    assert 'Apache License\n                           Version 2.0, January 2004' in text
    assert 'TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION' in text
    assert 'END OF TERMS AND CONDITIONS' in text
    assert len(text.splitlines()) > 190  # the full text, not a summary
    package = ElementTree.parse(ROOT / 'package.xml').getroot()
    assert [element.text for element in package.iter('license')] == ['Apache-2.0']
    assert "license='Apache-2.0'" in (ROOT / 'setup.py').read_text(encoding='utf-8')
