# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The soak (bench/soak.py) cut down to a smoke test of a quarter of a minute.

Fifteen seconds of the patrol on the sim at 20x (five simulated minutes): a few laps and
a docking. The run must end with no error line in either process's log, the executive
stopping cleanly on SIGINT, laps driven and memory sampled. The memory slope limit is
loose here (the run is mostly warm-up): long soaks stay out of the suite, the hour-long
one (``make soak``) holds the real limit, ``make soak ARGS='--minutes 1'`` is the
one-minute soak this test used to be.
"""

from collections.abc import Callable
import json
import pathlib

from helpers import SpawnedProcess
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

SOAK = pathlib.Path(__file__).resolve().parents[2] / 'bench' / 'soak.py'


def test_a_short_soak_passes(spawn: Callable[..., SpawnedProcess],
                             tmp_path: pathlib.Path) -> None:
    report_path = tmp_path / 'soak.json'
    soak = spawn(SOAK, '--minutes', '0.25', '--time-scale', '20', '--sample-period', '1',
                 '--warmup', '0.3', '--max-rss-slope', '2048', '--min-laps', '2',
                 '--json', str(report_path), grace=40.0)
    status = soak.popen.wait(150)
    assert report_path.exists(), soak.stdout_text() + soak.stderr_text()
    report = json.loads(report_path.read_text())
    assert status == 0, soak.stdout_text()
    assert report['passed'] and report['failures'] == []
    assert report['errors'] == 0 and report['error_lines'] == {}
    assert report['executive_exit_status'] == 0
    assert report['laps'] >= 2 and report['dockings'] >= 1
    assert report['samples'] >= 10 and report['ticks'] > 0
    assert set(report['rss_mb_last']) == {'bt_executive', 'sim_robot'}
    assert report['rss_slope_kib_per_min']['bt_executive'] is not None
    assert 'soak report' in soak.stdout_text()
