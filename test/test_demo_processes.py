# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The demo's process supervision: an exit ends the run, or is respawned (use_respawn)."""

import io
import os
import sys
import time

from bt_executive.app.processes import Processes
from bt_executive.sim.follow import ClockFollower
from helpers import wait_for
import pytest

EXIT_3 = [sys.executable, '-c', 'import sys; print("bye"); sys.exit(3)']


def test_an_exit_ends_the_run_with_the_end_of_the_log(tmp_path):
    processes = Processes(str(tmp_path), respawn=False, respawn_delay=0.0, out=io.StringIO())
    processes.start('robot1/bt_executive', 'executive', EXIT_3)
    failure = wait_for(lambda: processes.check(time.monotonic()), 30.0, 'the exit to show')
    assert failure.startswith('demo: robot1/bt_executive exited with status 3; the end')
    assert failure.rstrip().endswith('bye')


def test_with_respawn_an_exited_node_starts_again_after_the_delay(tmp_path):
    out = io.StringIO()
    processes = Processes(str(tmp_path), respawn=True, respawn_delay=0.2, out=out)
    node = processes.start('sim_robot', 'sim_robot', EXIT_3)
    wait_for(lambda: processes.check(time.monotonic()) is None and node.restarts >= 2, 30.0,
             'two respawns')
    assert 'sim_robot exited with status 3; respawning it in 0.2 s (use_respawn)' in \
        out.getvalue()
    assert (tmp_path / 'sim_robot.log').read_text().count('bye') >= 2


def _records_sigint(name: str, log: str) -> list[str]:
    """Return a command that notes ``name`` in ``log`` on SIGINT, after noting it is ready."""
    code = ('import signal, sys, time\n'
            'def stop(*_):\n'
            f'    open({log!r}, "a").write("stopped {name}\\n"); sys.exit(0)\n'
            'signal.signal(signal.SIGINT, stop)\n'
            f'open({log!r}, "a").write("ready {name}\\n")\n'
            'time.sleep(60)\n')
    return [sys.executable, '-c', code]


def test_stop_ends_the_executives_before_the_sims(tmp_path):
    log = str(tmp_path / 'order.log')
    processes = Processes(str(tmp_path), respawn=False, respawn_delay=0.0, out=io.StringIO())
    for robot in ('robot1', 'robot2'):
        processes.start(f'{robot}/sim_robot', 'sim_robot', _records_sigint(f'{robot}/sim', log))
        processes.start(f'{robot}/bt_executive', 'executive',
                        _records_sigint(f'{robot}/executive', log))
    wait_for(lambda: open(log).read().count('ready') == 4 if os.path.exists(log) else False,
             30.0, 'the four processes to be ready')
    processes.stop(timeout=20.0)
    stopped = [line.split()[1] for line in open(log).read().splitlines()
               if line.startswith('stopped')]
    assert sorted(stopped[:2]) == ['robot1/executive', 'robot2/executive'], stopped
    assert sorted(stopped[2:]) == ['robot1/sim', 'robot2/sim'], stopped
    assert all(node.exited() == 0 for node in processes.nodes)


def test_a_followed_clock_becomes_steps_of_at_most_max_step():
    follower = ClockFollower(0.02)
    assert follower.advance(0) == []  # no /clock yet
    assert follower.advance(5 * 10**9) == []  # the first reading is the reference
    steps = follower.advance(5 * 10**9 + 200_000_000)  # a 0.2 s jump
    assert len(steps) == 10 and sum(steps) == pytest.approx(0.2)
    assert follower.advance(5 * 10**9 + 210_000_000) == pytest.approx([0.01])
    assert follower.advance(10**9) == []  # the clock went back: a new reference
    assert follower.advance(10**9 + 20_000_000) == pytest.approx([0.02])
    with pytest.raises(ValueError, match='max_step'):
        ClockFollower(0.0)


@pytest.mark.parametrize('options, reason', [
    ({'arguments': {'tick_rate': 'fast'}}, 'demo: tick_rate:=fast: expected float'),
    ({'arguments': {'use_respawn': 'maybe'}}, "demo: expected true or false, got 'maybe'"),
    ({'robots': 2, 'namespace': 'x'}, 'demo: namespace is set per robot in a fleet'),
    ({'robots': 2, 'arguments': {'publish_clock': 'true'}},
     'demo: publish_clock is set per robot in a fleet'),
    ({'robots': 0}, 'demo: --robots 0: expected at least 1 robot'),
])
def test_invalid_demo_arguments_exit_2_with_the_reason_before_starting_anything(options,
                                                                                reason):
    from bt_executive.app import demo

    out, err = io.StringIO(), io.StringIO()
    assert demo.run(out=out, err=err, **options) == 2
    assert err.getvalue().startswith(reason), err.getvalue()
    assert out.getvalue() == ''  # nothing started
