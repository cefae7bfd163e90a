# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The real-time mode (ros/realtime.py): the reacting thread's class, or one line saying why not.

The executive runs as a real subprocess; the scheduling class is read back from the
kernel (``os.sched_getscheduler`` on the thread's native id, and ``/proc``). Nothing is
timed. Where this machine refuses a real-time class (no CAP_SYS_NICE, ``ulimit -r`` 0),
the test of the granted mode is skipped; the refused mode is tested everywhere (as root,
by starting the executive without CAP_SYS_NICE and with an RLIMIT_RTPRIO of 0).
"""

from __future__ import annotations

import gc
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any, Optional

from bt_executive.ros import realtime
from helpers import SpawnedProcess
import pytest

pytestmark = pytest.mark.ros

TREE = """\
blackboard: {flag: false}
subscriptions:
  - {topic: realtime_probe, type: std_msgs/msg/Bool, field: data, key: flag}
trees:
  Main:
    Sequence:
      - Log: first tick
      - Condition: flag
"""

#: The first words of the mode's one log line.
LINE = 'real-time mode:'
#: /proc/<pid>/task/<tid>/stat fields (1-based, after the command name): rt_priority, policy.
RT_PRIORITY, POLICY = 40, 41


def _permitted(priority: int) -> bool:
    """Tell whether this process may take a real-time class of ``priority``."""
    return subprocess.run(['chrt', '-f', str(priority), 'true'], capture_output=True
                          ).returncode == 0 if shutil.which('chrt') else False


def _task_stat(pid: int, tid: int) -> tuple[str, int, int]:
    """Return (name, rt_priority, policy) of thread ``tid`` of ``pid`` from /proc."""
    text = pathlib.Path(f'/proc/{pid}/task/{tid}/stat').read_text()
    name = text[text.index('(') + 1:text.rindex(')')]
    fields = text[text.rindex(')') + 2:].split()  # fields from the 3rd on
    return name, int(fields[RT_PRIORITY - 3]), int(fields[POLICY - 3])


def _threads(pid: int) -> dict[int, tuple[str, int, int]]:
    return {int(tid): _task_stat(pid, int(tid)) for tid in os.listdir(f'/proc/{pid}/task')}


def _locked_kib(pid: int) -> int:
    """Return the VmLck of ``pid`` (KiB of locked mappings)."""
    for line in pathlib.Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmLck:'):
            return int(line.split()[1])
    raise AssertionError(f'no VmLck in /proc/{pid}/status')


@pytest.fixture
def start_executive(tmp_path: pathlib.Path) -> Any:
    """Start ``executive`` on TREE with extra parameters; stopped (SIGINT) at the end."""
    tree = tmp_path / 'tree.yaml'
    tree.write_text(TREE)
    started: list[SpawnedProcess] = []

    def start(*parameters: str, prefix: Optional[list[str]] = None) -> SpawnedProcess:
        argv = [*(prefix or []), sys.executable, '-m', 'bt_executive.app.programs',
                'executive', '--ros-args', '-p', f'tree_file:={tree}', '-p',
                'tick_mode:=event']
        for parameter in parameters:
            argv += ['-p', parameter]
        env = dict(os.environ, RCUTILS_LOGGING_USE_STDOUT='1',
                   PYTHONPATH=os.pathsep.join(filter(None, [
                       str(pathlib.Path(__file__).resolve().parents[2]),
                       os.environ.get('PYTHONPATH')])))
        # a stop (SIGINT: exit status 0) may take long on a loaded machine: no SIGKILL at 5 s
        process = SpawnedProcess(argv, directory=tmp_path, name=f'executive-{len(started)}',
                                 env=env, grace=30.0)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


def test_the_mode_gives_the_reacting_threads_the_class_and_no_other(start_executive):
    if not _permitted(20):
        pytest.skip('this machine refuses SCHED_FIFO (no CAP_SYS_NICE, ulimit -r < 20)')
    executive = start_executive('realtime:=true', 'realtime_priority:=20')
    line = executive.wait_for_match(lambda text: LINE in text, timeout=120.0,
                                    message='the real-time line')
    assert '[INFO]' in line and 'refused' not in line, line
    executive.wait_for_match(lambda text: 'first tick' in text, timeout=60.0,
                             message='the first tick')
    pid = executive.pid
    # the spinning thread is the main thread: its native id is the pid
    assert os.sched_getscheduler(pid) == os.SCHED_FIFO
    assert os.sched_getparam(pid).sched_priority == 20
    threads = _threads(pid)
    assert threads[pid][1:] == (20, os.SCHED_FIFO)
    reception = {tid: stat for tid, stat in threads.items()
                 if realtime.RECEPTION_THREAD.fullmatch(stat[0])}
    assert reception, f'no DDS reception thread among {sorted(threads.values())}'
    for tid, (name, priority, policy) in reception.items():
        assert (priority, policy) == (20, os.SCHED_FIFO), (tid, name)
    # what does not react keeps the normal class: the shared-memory watchdog, the
    # middleware's event thread, logging...
    others = [stat for stat in threads.values() if stat[0] in ('dds.shm.wdog', 'dds.ev.0')]
    assert others and all(policy == os.SCHED_OTHER for _, _, policy in others), others
    assert _locked_kib(pid) > 0  # mlockall: the locked mappings
    assert executive.stop() == 0
    assert sum(LINE in text for text in executive.lines()) == 1


def test_refused_the_executive_says_it_once_and_runs_as_before(start_executive):
    prefix = None
    if os.geteuid() == 0 or _permitted(10):
        if shutil.which('setpriv') is None:
            pytest.skip('running with CAP_SYS_NICE and setpriv is missing to drop it')
        prefix = ['setpriv', '--inh-caps=-sys_nice', '--bounding-set=-sys_nice',
                  'prlimit', '--rtprio=0:0', '--']
    executive = start_executive('realtime:=true', prefix=prefix)
    line = executive.wait_for_match(lambda text: LINE in text, timeout=120.0,
                                    message='the real-time line')
    assert '[WARN]' in line, line
    assert 'refused SCHED_FIFO priority 10' in line, line
    for how in ('CAP_SYS_NICE', 'ulimit -r 10', 'prlimit --rtprio=10',
                'runs at normal priority'):
        assert how in line, f'{how!r} not in {line!r}'
    executive.wait_for_match(lambda text: 'first tick' in text, timeout=60.0,
                             message='the first tick after the refusal')
    assert os.sched_getscheduler(executive.pid) == os.SCHED_OTHER
    assert all(policy == os.SCHED_OTHER for _, _, policy in _threads(executive.pid).values())
    assert executive.stop() == 0
    assert sum(LINE in text for text in executive.lines()) == 1, executive.lines()


def test_off_the_mode_changes_nothing_and_says_nothing(start_executive):
    executive = start_executive()
    executive.wait_for_match(lambda text: 'first tick' in text, timeout=120.0,
                             message='the first tick')
    assert all(policy == os.SCHED_OTHER for _, _, policy in _threads(executive.pid).values())
    assert _locked_kib(executive.pid) == 0
    assert executive.stop() == 0
    assert not any(LINE in text for text in executive.lines())


# ---- the pieces, in this process ------------------------------------------------------

@pytest.mark.parametrize('values, error', [
    ({'realtime_policy': 'deadline'}, "realtime_policy must be 'fifo' or 'rr'"),
    ({'realtime_priority': 0}, 'realtime_priority must be 1 to 99'),
    ({'realtime_cpus': [1, -2]}, 'CPU numbers are 0 or more'),
    ({'realtime_cpus': ['a']}, 'realtime_cpus must be a list'),
])
def test_values_the_mode_cannot_use_are_errors(values, error):
    with pytest.raises(realtime.RealtimeSettingsError, match=error):
        realtime.RealtimeSettings.from_values(values)


def test_the_settings_read_the_parameter_table():
    defaults = {name: value[0] for name, value in realtime.PARAMETERS.items()}
    assert realtime.RealtimeSettings.from_values(defaults) == realtime.RealtimeSettings()
    settings = realtime.RealtimeSettings.from_values(
        {**defaults, 'realtime': True, 'realtime_policy': 'RR', 'realtime_cpus': [1, 0]})
    assert (settings.enabled, settings.policy, settings.cpus) == (True, 'rr', {0, 1})


class _Logger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def info(self, text: str) -> None:
        self.lines.append(('info', text))

    def warning(self, text: str) -> None:
        self.lines.append(('warning', text))


def test_off_nothing_is_applied_or_logged():
    logger = _Logger()
    thresholds = gc.get_threshold()
    assert realtime.enter_realtime(realtime.RealtimeSettings(), logger) is None
    assert logger.lines == [] and gc.get_threshold() == thresholds


class _RefusingLibc:
    """A C library whose mlockall fails as with a small RLIMIT_MEMLOCK."""

    def mlockall(self, flags: int) -> int:
        import ctypes
        import errno
        ctypes.set_errno(errno.ENOMEM)
        return -1


def test_every_refusal_is_named_on_the_one_line(monkeypatch):
    def refuse(*args: Any) -> None:
        raise PermissionError(1, 'Operation not permitted')

    monkeypatch.setattr(realtime.os, 'sched_setscheduler', refuse)
    logger = _Logger()
    settings = realtime.RealtimeSettings(enabled=True, policy='rr', priority=30,
                                         cpus=frozenset({4096}))  # a CPU nobody has
    affinity = os.sched_getaffinity(0)
    state = realtime.enter_realtime(settings, logger, libc=_RefusingLibc())
    try:
        assert len(logger.lines) == 1 and logger.lines[0][0] == 'warning', logger.lines
        text = logger.lines[0][1]
        for part in ('refused SCHED_RR priority 30', 'ulimit -r 30', 'chrt -r 30 true',
                     'refused CPU affinity 4096', 'refused mlockall', 'ulimit -l unlimited',
                     'realtime_lock_memory:=false', 'garbage collected between callbacks',
                     'runs at normal priority'):
            assert part in text, f'{part!r} not in {text!r}'
        assert state is not None and state.scheduled is None and not state.locked
        assert not state.cpus and os.sched_getaffinity(0) == affinity
    finally:
        realtime.leave_realtime(state)


def test_the_collector_runs_between_callbacks_what_the_thresholds_would():
    collector = realtime.QuietCollector()
    try:
        first = collector.thresholds[0]
        assert gc.get_threshold()[0] == first * 50
        gc.collect()
        collector.between_callbacks()
        assert collector.collections == [0, 0, 0]
        garbage = [[] for _ in range(first + 10)]  # tracked allocations
        collector.between_callbacks()
        assert collector.collections[0] + collector.collections[1] \
            + collector.collections[2] == 1
        del garbage
    finally:
        collector.close()
    assert gc.get_threshold()[0] == first
