# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A pytest plugin: scenario files are collected as tests, one test per scenario.

Files named ``scenario_*.yaml``, ``*.scenario.yaml`` or ``*.scenarios.yaml`` under the
paths pytest collects become test modules (docs/testing.md). Installed packages register
the plugin through the ``pytest11`` entry point; a source checkout can load it with
``-p bt_executive.testing.pytest_plugin`` (this repository's pytest.ini does). Each test
carries the ``ros`` marker when the project declares it (``-m "not ros"`` skips them).
A failure shows the expectation (file:line:col), the time and tick, what was found and
the why-chain; ``--bt-trace`` adds the run's trace.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Iterator, Optional

import pytest

#: The file names collected as scenario files.
PATTERNS = ('scenario_*.yaml', '*.scenario.yaml', '*.scenarios.yaml')


def pytest_addoption(parser: Any) -> None:
    """Add ``--bt-trace``."""
    group = parser.getgroup('bt_executive scenarios')
    group.addoption('--bt-trace', action='store_true',
                    help='show the trace of a failed scenario (every tick that moved '
                    'something, every peer event)')


def pytest_collect_file(file_path: Any, parent: Any) -> Optional[Any]:
    """Collect scenario files."""
    if any(fnmatch.fnmatch(file_path.name, pattern) for pattern in PATTERNS):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    """A scenario file: one item per scenario (one failing item if the file is invalid)."""

    def collect(self) -> Iterator[Any]:
        """Yield the scenarios."""
        from bt_executive.core.errors import TreeError
        from bt_executive.testing.spec import load_scenarios
        try:
            scenarios = load_scenarios(str(self.path))
        except TreeError as error:
            yield ScenarioItem.from_parent(self, name='<invalid scenario file>',
                                           scenario=None, error=str(error))
            return
        for scenario in scenarios:
            yield ScenarioItem.from_parent(self, name=scenario.name, scenario=scenario,
                                           error=None)


class ScenarioFailed(Exception):
    """A scenario whose expectations did not hold, or that could not run."""


class ScenarioItem(pytest.Item):
    """One scenario, run by the harness."""

    def __init__(self, *, scenario: Any, error: Optional[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.error = error
        if any(line.split(':')[0].strip() == 'ros' for line in self.config.getini('markers')):
            self.add_marker('ros')

    def runtest(self) -> None:
        """Run the scenario; raise with every failed expectation."""
        if self.error is not None:
            raise ScenarioFailed(self.error)
        from bt_executive.testing.harness import run_scenario
        result = run_scenario(self.scenario)
        if result.error is not None:
            raise ScenarioFailed(str(result.error))
        if result.failures:
            text = '\n'.join(result.failures)
            if self.config.getoption('bt_trace'):
                text += '\ntrace:\n' + '\n'.join(result.trace)
            raise ScenarioFailed(text)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        """Show the harness's text, not a Python traceback."""
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int, str]:
        """Point at the scenario in its file."""
        line = self.scenario.loc.line - 1 if self.scenario is not None else 0
        return self.path, line, f'scenario: {self.name}'
