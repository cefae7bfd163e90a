# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Print the shape of an interface package's Python types as JSON (tests only).

``python describe.py PACKAGE``: for every message, service part and action part of
``PACKAGE.msg``, ``.srv`` and ``.action`` as importable in this interpreter, the field
names and types (``get_fields_and_field_types()``), the constants (upper-case class
attributes) and the defaults of a new instance (``repr``), keyed ``msg/Name``,
``srv/Name/Request``, ``action/Name/Feedback``; plus ``__file__``, where the package
was imported from. Run in a subprocess, so the test process imports neither package,
and compare the stand-in's answer with the real package's.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

PARTS = {'msg': ('',), 'srv': ('Request', 'Response'), 'action': ('Goal', 'Result', 'Feedback')}


def describe(package: str) -> dict[str, Any]:
    """Return the shapes of ``package``'s types (see the module's docstring)."""
    shapes: dict[str, Any] = {'__file__': importlib.import_module(package).__file__}
    for kind, parts in PARTS.items():
        try:
            module = importlib.import_module(f'{package}.{kind}')
        except ImportError:
            continue
        for name in sorted(vars(module)):
            interface = getattr(module, name)
            if name.startswith('_') or not isinstance(interface, type) or not all(
                    hasattr(interface, part) for part in parts if part):
                continue  # also the parts a module exports by themselves (Name_Request)
            for part in parts:
                cls = getattr(interface, part) if part else interface
                if not hasattr(cls, 'get_fields_and_field_types'):
                    continue
                instance = cls()
                fields = cls.get_fields_and_field_types()
                shapes['/'.join(filter(None, (kind, name, part)))] = {
                    'fields': fields,
                    'constants': {key: getattr(cls, key) for key in dir(cls)
                                  if key.isupper() and not key.startswith('_')
                                  and key != 'SLOT_TYPES'},
                    'defaults': {field: repr(getattr(instance, field)) for field in fields}}
    return shapes


if __name__ == '__main__':
    print(json.dumps(describe(sys.argv[1]), sort_keys=True))
