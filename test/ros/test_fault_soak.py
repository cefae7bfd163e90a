# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The soak (bench/soak.py) cut down to one minute, as part of the normal suite.

One minute of the patrol on the sim at 10x: a few dozen laps and several dockings. The
run must end with no error line in either process's log, the executive stopping cleanly
on SIGINT, laps driven and memory sampled. The memory slope limit is loose here (a
minute is mostly warm-up); the hour-long soak (``make soak``) holds the real limit.
"""

from collections.abc import Callable
import json
import pathlib

from helpers import SpawnedProcess
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

SOAK = pathlib.Path(__file__).resolve().parents[2] / 'bench' / 'soak.py'


def test_a_one_minute_soak_passes(spawn: Callable[..., SpawnedProcess],
                                  tmp_path: pathlib.Path) -> None:
    report_path = tmp_path / 'soak.json'
    soak = spawn(SOAK, '--minutes', '1', '--sample-period', '2', '--warmup', '0.3',
                 '--max-rss-slope', '2048', '--min-laps', '2', '--json', str(report_path),
                 grace=40.0)
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
