# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Crash and resume: the patrol's real executive SIGKILLed in each phase and respawned.

Runs bench/crash_resume.py (the sim and the executive as real processes, a state file)
with one kill point per phase: driving, docking, charging, undocking. ``make crash-soak``
runs 50. Every wait in it is bounded and names what it waited for.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

BENCH = pathlib.Path(__file__).resolve().parents[2] / 'bench'
TIMEOUT = 600.0


def crash_resume(tmp_path: pathlib.Path, *options: str) -> tuple[int, dict, str]:
    report = tmp_path / 'report.json'
    process = subprocess.Popen(
        [sys.executable, str(BENCH / 'crash_resume.py'), '--json', str(report), *options],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ), start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGTERM)  # it stops the processes it started
        output, _ = process.communicate(timeout=60)
        pytest.fail(f'crash_resume.py did not end within {TIMEOUT} s:\n{output[-3000:]}')
    data = json.loads(report.read_text()) if report.exists() else {}
    return process.returncode, data, output


def test_killed_in_every_phase_the_patrol_resumes_where_it_was(tmp_path):
    code, report, output = crash_resume(tmp_path, '--kills', '4', '--seed', '3',
                                        '--laps', '1')
    assert code == 0, output[-4000:]
    assert report['phases'] == {'driving': 1, 'docking': 1, 'charging': 1, 'undocking': 1}
    assert report['problems'] == []
    assert report['state_files'].get('whole', 0) >= 3, report['state_files']
    assert report['final']['skipped'] == 0 and report['final']['laps'] >= 1
