# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's Fast DDS profile: writer histories keep no buffer they no longer need."""

import os
import subprocess
import sys

from bt_executive.ros import dds_profile
import pytest

#: Prints the MiB a depth-100 history keeps after 100 large then 100 small messages.
PROBE = os.path.join(os.path.dirname(__file__), '..', '..', 'bench', 'history_memory.py')


@pytest.mark.parametrize('environ, cwd_file, reason', [
    ({}, None, None),
    ({'RMW_IMPLEMENTATION': 'rmw_fastrtps_cpp'}, None, None),
    ({'BT_EXECUTIVE_DDS_PROFILE': 'off'}, None, 'BT_EXECUTIVE_DDS_PROFILE=off'),
    ({'BT_EXECUTIVE_DDS_PROFILE': '0'}, None, 'BT_EXECUTIVE_DDS_PROFILE=0'),
    ({'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'}, None,
     'RMW_IMPLEMENTATION=rmw_cyclonedds_cpp'),
    ({'FASTDDS_DEFAULT_PROFILES_FILE': '/robot/dds.xml'}, None,
     'FASTDDS_DEFAULT_PROFILES_FILE is set'),
    ({'FASTRTPS_DEFAULT_PROFILES_FILE': '/robot/dds.xml'}, None,
     'FASTRTPS_DEFAULT_PROFILES_FILE is set'),
    ({'RMW_FASTRTPS_USE_QOS_FROM_XML': '0'}, None, 'RMW_FASTRTPS_USE_QOS_FROM_XML is set'),
    ({'RMW_FASTRTPS_PUBLICATION_MODE': 'ASYNCHRONOUS'}, None,
     'RMW_FASTRTPS_PUBLICATION_MODE is set'),
    ({}, 'DEFAULT_FASTDDS_PROFILES.xml', 'DEFAULT_FASTDDS_PROFILES.xml in'),
])
def test_a_fast_dds_configuration_of_the_users_own_is_left_alone(tmp_path, environ,
                                                                 cwd_file, reason):
    if cwd_file:
        (tmp_path / cwd_file).write_text('<dds/>')
    environ = dict(environ)
    why = dds_profile.why_not(environ, str(tmp_path))
    if reason is None:
        assert why is None
    else:
        assert why is not None and why.startswith(reason)
    before = dict(environ)
    here = os.getcwd()
    os.chdir(tmp_path)  # use_dds_profile looks in the working directory
    try:
        assert dds_profile.use_dds_profile(environ) is (reason is None)
    finally:
        os.chdir(here)  # where the worker was: later tests resolve paths from it
    if reason is None:
        assert environ['FASTDDS_DEFAULT_PROFILES_FILE'] == dds_profile.PROFILE
        assert environ['RMW_FASTRTPS_USE_QOS_FROM_XML'] == '1'
    else:
        assert environ == before


@pytest.mark.parametrize('module', ['executive', 'fleet', 'lifecycle'])
def test_the_programs_use_the_profile_before_ros_starts(monkeypatch, module):
    import importlib
    program = importlib.import_module(f'bt_executive.ros.{module}')
    # a copy: what main() sets must not reach this process's later ROS contexts
    fast_dds = {'FASTDDS_DEFAULT_PROFILES_FILE', 'RMW_FASTRTPS_USE_QOS_FROM_XML',
                dds_profile.SWITCH, 'RMW_IMPLEMENTATION', *dds_profile.USER_SETTINGS}
    monkeypatch.setattr(os, 'environ', {name: value for name, value in os.environ.items()
                                        if name not in fast_dds})
    from bt_executive.ros import serve
    seen = {}

    class RosStarts(Exception):
        pass

    def init(*args, **kwargs):
        seen['file'] = os.environ.get('FASTDDS_DEFAULT_PROFILES_FILE')
        raise RosStarts()

    monkeypatch.setattr(serve.rclpy, 'init', init)
    monkeypatch.setattr(program, 'defer_for_programs', lambda: None)
    with pytest.raises(RosStarts):
        program.main(['prog'])
    assert seen['file'] == dds_profile.PROFILE
    assert os.environ['RMW_FASTRTPS_USE_QOS_FROM_XML'] == '1'


def _retained(variant: str) -> float:
    result = subprocess.run([sys.executable, PROBE, variant], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'XMLPARSER' not in result.stderr and 'Error' not in result.stderr, result.stderr
    return float(result.stdout.split()[-1])


def test_with_the_profile_a_history_frees_the_buffers_of_messages_it_dropped():
    # rmw_fastrtps' own policy keeps 100 buffers of 200 kB for 100 messages of 10 bytes
    kept = _retained('plain')
    freed = _retained('profile')
    assert kept > 15.0, f'rmw_fastrtps default kept only {kept} MiB (expected ~19)'
    assert freed < 5.0, f'with the profile {freed} MiB stayed (rmw default: {kept} MiB)'


def test_in_effect_names_the_configuration_the_process_runs_with(tmp_path):
    assert dds_profile.PROFILE in dds_profile.in_effect(True, {}, str(tmp_path))
    user = dds_profile.in_effect(False, {'FASTRTPS_DEFAULT_PROFILES_FILE': '/robot/dds.xml'},
                                 str(tmp_path))
    assert 'FASTRTPS_DEFAULT_PROFILES_FILE is set' in user and 'not applied' in user


#: A Fast DDS profile of the user's own (valid, and changing nothing that matters here).
USER_PROFILE = """<?xml version="1.0" encoding="UTF-8" ?>
<dds xmlns="http://www.eprosima.com">
  <profiles>
    <participant profile_name="users_own" is_default_profile="true">
      <rtps><name>users_own</name></rtps>
    </participant>
  </profiles>
</dds>
"""


@pytest.mark.parametrize('variable', ['FASTRTPS_DEFAULT_PROFILES_FILE',
                                      'FASTDDS_DEFAULT_PROFILES_FILE'])
def test_an_executive_started_with_the_users_profile_keeps_it_and_says_so(tmp_path, variable):
    profile = tmp_path / 'users_own.xml'
    profile.write_text(USER_PROFILE)
    environ = {name: value for name, value in os.environ.items()
               if name not in (dds_profile.SWITCH, 'RMW_IMPLEMENTATION',
                               *dds_profile.USER_SETTINGS)}
    environ[variable] = str(profile)
    # a tree file that does not exist: the executive starts ROS, logs, and exits with 1
    result = subprocess.run(
        [sys.executable, '-m', 'bt_executive.app.programs', 'executive', '--ros-args',
         '-p', f'tree_file:={tmp_path / "missing.yaml"}'],
        capture_output=True, text=True, timeout=120, env=environ, cwd=str(tmp_path),
        stdin=subprocess.DEVNULL)
    output = result.stdout + result.stderr
    assert f"the process's own ({variable} is set)" in output, output
    assert dds_profile.PROFILE not in output, output
    assert result.returncode == 1, output


def test_an_executive_without_a_configuration_of_its_own_says_it_uses_ours(tmp_path):
    environ = {name: value for name, value in os.environ.items()
               if name not in (dds_profile.SWITCH, 'RMW_IMPLEMENTATION',
                               *dds_profile.USER_SETTINGS)}
    result = subprocess.run(
        [sys.executable, '-m', 'bt_executive.app.programs', 'executive', '--ros-args',
         '-p', f'tree_file:={tmp_path / "missing.yaml"}'],
        capture_output=True, text=True, timeout=120, env=environ, cwd=str(tmp_path),
        stdin=subprocess.DEVNULL)
    output = result.stdout + result.stderr
    assert f"bt_executive's Fast DDS profile {dds_profile.PROFILE}" in output, output
