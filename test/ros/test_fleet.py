# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive demo --robots N``: N patrols, each in its namespace, on exactly one /clock.

The demo runs as a real process (it starts N sims and N executives itself); this test
counts the /clock publishers from its own node the whole time and reads the demo's
report. Also: the demo ends, and stops every node, when an executive exits.
"""

import pathlib
import re

from helpers import wait_for
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / 'bt_executive' / 'app' / 'cli.py'
ROBOTS = 3
#: Wall-clock bound of a whole run (the demo's own --timeout is below it).
TIMEOUT = 240.0


def test_a_fleet_completes_its_laps_on_every_robot_on_one_clock(spawn, ros_node):
    demo = spawn(CLI, 'demo', '--robots', str(ROBOTS), '--laps', '1',
                 '--timeout', str(TIMEOUT - 30), grace=30.0)
    counts: list[int] = []

    def finished() -> bool:
        counts.append(ros_node.count_publishers('/clock'))
        return demo.returncode is not None

    wait_for(finished, TIMEOUT, 'the fleet demo to end', interval=0.1)
    output = '\n'.join(demo.lines())
    assert demo.returncode == 0, output + demo.stderr_text()
    # seen from outside: one /clock publisher at most, and there was one
    assert max(counts) == 1, counts
    # the demo's report: every robot did its lap; it saw one /clock publisher too
    report = output[output.index('fleet summary'):]
    rows = {m[1]: int(m[2]) for m in re.finditer(r'^  (robot\d+) +(\d+) ', report, re.M)}
    assert rows == {f'robot{i}': rows.get(f'robot{i}', 0) for i in range(1, ROBOTS + 1)}
    assert all(laps >= 1 for laps in rows.values()), report
    assert '/clock publishers  1 ' in report, report
    for index in range(1, ROBOTS + 1):
        assert f'starting robot{index}/sim_robot' in output
        assert f'starting robot{index}/bt_executive' in output


def test_the_demo_ends_when_an_executive_exits(spawn, tmp_path):
    broken = tmp_path / 'broken.yaml'
    broken.write_text('trees:\n  Main:\n    NoSuchNode: {}\n', encoding='utf-8')
    demo = spawn(CLI, 'demo', '--robots', '2', f'tree:={broken}', '--timeout', '120',
                 grace=30.0)
    wait_for(lambda: demo.returncode is not None, TIMEOUT, 'the demo to end')
    output = '\n'.join(demo.lines())
    assert demo.returncode == 1, output
    assert re.search(r'demo: robot\d/bt_executive exited with status 1', output), output
    assert 'NoSuchNode' in output  # the end of the executive's log says why
