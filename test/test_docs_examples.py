# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Every YAML example in the docs loads and validates where the docs show it.

The test reads each ```yaml block of README.md and docs/*.md. A block is a whole tree
file unless an HTML comment on the line(s) just before it says otherwise:

``<!-- yaml: file in DIR -->``
    a whole file that lives in DIR (relative to the repository), so its includes
    resolve there (``<!-- yaml: file in config/ -->``)
``<!-- yaml: node -->``
    one node, or a list of nodes (list items): it is checked as the root of a tree
``<!-- yaml: fragment -->``
    deliberately not a whole file (a sketch with ``...``): it only has to be YAML

Files and nodes are checked like ``bt-executive validate`` checks a file (the loader,
building every tree, and the ROS checks when ROS can be imported) and must give no
warning either: an example teaches what to write.
"""

from __future__ import annotations

import dataclasses
import os
import re
import textwrap
from typing import Optional

from bt_executive.app.cli import ros_checks
from bt_executive.app.validation import validate_document
from bt_executive.core import yaml_source
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.nodes.catalogue import default_registry
import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), '..'))
_FENCE = re.compile(r'^```yaml[ \t]*\n(?P<body>.*?)^```[ \t]*$', re.S | re.M)
_MARKER = re.compile(r'<!--\s*yaml:\s*(?P<kind>file|node|fragment)'
                     r'(?:\s+in\s+(?P<dir>\S+?))?\s*-->\s*\Z')
KINDS = ('file', 'node', 'fragment')
#: The marker of a file of the plugin package on docs/plugins.md (test/plugin_package.py).
_PACKAGE_FILE = re.compile(r'<!--\s*file:\s*\S+\s*-->\s*\Z')


@dataclasses.dataclass(frozen=True)
class Example:
    """One ```yaml block of a document."""

    doc: str
    line: int
    text: str
    kind: str = 'file'
    directory: Optional[str] = None

    def __str__(self) -> str:
        return f'{self.doc}:{self.line}'


def _examples(doc: str) -> list[Example]:
    with open(os.path.join(ROOT, doc), encoding='utf-8') as stream:
        source = stream.read()
    found = []
    for match in _FENCE.finditer(source):
        before = source[:match.start()].rstrip()
        line = source.count('\n', 0, match.start()) + 2  # the block's first line
        last = before[before.rfind('\n') + 1:] if '\n' in before else before
        marker = _MARKER.search(last)
        if marker is None and _PACKAGE_FILE.search(last):
            # a file of docs/plugins.md's example package: it needs the plugin installed,
            # so test/test_plugins.py runs it; here it only has to be YAML
            found.append(Example(doc, line, match.group('body'), 'fragment'))
            continue
        found.append(Example(doc, line, match.group('body'),
                             marker.group('kind') if marker else 'file',
                             marker.group('dir') if marker else None))
    return found


def _docs() -> list[str]:
    docs = ['README.md']
    folder = os.path.join(ROOT, 'docs')
    docs += sorted(f'docs/{name}' for name in os.listdir(folder) if name.endswith('.md'))
    return docs


EXAMPLES = [example for doc in _docs() for example in _examples(doc)]


def test_the_docs_have_examples_and_the_language_reference_all_of_its_forms():
    docs = {example.doc for example in EXAMPLES}
    assert {'README.md', 'docs/language.md'} <= docs
    language = [example for example in EXAMPLES if example.doc == 'docs/language.md']
    assert len(language) >= 6, [str(example) for example in language]


def _as_file(example: Example) -> str:
    """Return the example as a tree file whose line numbers are those of the doc."""
    if example.kind == 'file':
        return '\n' * (example.line - 1) + example.text
    is_list = yaml_source.load_text(example.text, example.doc).kind == 'a list'
    head = ['trees:', '  Example:'] + (['    Sequence:'] if is_list else [])
    body = textwrap.indent(example.text, '      ' if is_list else '    ')
    return '\n' * max(0, example.line - 1 - len(head)) + '\n'.join(head) + '\n' + body


@pytest.mark.parametrize('example', EXAMPLES, ids=str)
def test_example(example: Example):
    if example.kind == 'fragment':  # raises with the location if it is not YAML
        yaml_source.load_text('\n' * (example.line - 1) + example.text, example.doc)
        return
    text = _as_file(example)
    base = os.path.join(ROOT, example.directory) if example.directory \
        else os.path.dirname(os.path.join(ROOT, example.doc))
    registry = default_registry()
    ros, _ = ros_checks()
    try:
        document = Loader(registry).load_text(text, name=example.doc, base_dir=base)
        warnings = validate_document(registry, document, ros=ros)
    except TreeError as error:
        pytest.fail(f'the example at {example} does not validate:\n{error}')
    if ros is not None:  # packages only robots have (nav2_msgs) are fine in the docs
        warnings = [w for w in warnings if 'is not installed here' not in w.message]
    assert not warnings, f'the example at {example} warns:\n' + '\n'.join(map(str, warnings))


def test_markers_name_a_known_kind():
    for doc in _docs():
        with open(os.path.join(ROOT, doc), encoding='utf-8') as stream:
            for number, line in enumerate(stream, 1):
                if re.search(r'<!--\s*yaml:', line):
                    assert _MARKER.search(line.rstrip()), \
                        f'{doc}:{number}: unknown marker {line.strip()!r} ' \
                        f"(expected <!-- yaml: {'|'.join(KINDS)} [in DIR] -->)"
