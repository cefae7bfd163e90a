# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Fast DDS writer histories that hold what they hold, not their largest message ever.

rmw_fastrtps makes every writer's history PREALLOCATED_WITH_REALLOC: each place in the
history keeps a buffer as large as the largest message it ever held. Over a long run a
history then costs its depth times the topic's largest messages, and the executive's
latched histories are deep (~/snapshot_delta keeps 100 deltas for late joiners): the
patrol's RSS crept up 2 MiB over ten simulated hours (RELIABILITY.md). With the
DYNAMIC policy a sample's buffer is allocated for it and freed with it.

rmw_fastrtps leaves that choice to Fast DDS's XML profiles only when
``RMW_FASTRTPS_USE_QOS_FROM_XML=1``; then it also leaves the publish mode and data
sharing to them. So the executive's programs (executive, fleet_executive and
lifecycle_executive: ``serve()`` in ros/serve.py, right before ``rclpy.init``) point Fast
DDS at fastdds_profile.xml,
which restates rmw_fastrtps' own choices (synchronous publishing, no data sharing,
readers PREALLOCATED_WITH_REALLOC) and changes only the writers' memory policy. QoS set
from ROS (reliability, durability, depth...) applies as before.

The user's configuration always wins: nothing is changed when the process is told
otherwise: ``BT_EXECUTIVE_DDS_PROFILE=off``, another RMW implementation, or any Fast DDS
configuration of the user's own (the profile-file variables,
``RMW_FASTRTPS_USE_QOS_FROM_XML``, ``RMW_FASTRTPS_PUBLICATION_MODE``, a
DEFAULT_FASTDDS_PROFILES.xml in the working directory). The programs log which
configuration is in effect (:func:`in_effect`).
"""

from __future__ import annotations

import os
from typing import MutableMapping, Optional

#: The profile file, installed beside this module.
PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fastdds_profile.xml')
#: Set to ``off`` (or 0, false, no) to keep rmw_fastrtps' own memory policy.
SWITCH = 'BT_EXECUTIVE_DDS_PROFILE'
#: Variables through which a user configures Fast DDS: any of them set, ours stays out.
USER_SETTINGS = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE',
                 'RMW_FASTRTPS_USE_QOS_FROM_XML', 'RMW_FASTRTPS_PUBLICATION_MODE',
                 'SKIP_DEFAULT_XML')
#: Files Fast DDS loads from the working directory by itself.
USER_FILES = ('DEFAULT_FASTDDS_PROFILES.xml', 'DEFAULT_FASTRTPS_PROFILES.xml')
FAST_DDS_RMWS = ('rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp')


def why_not(environ: MutableMapping[str, str], cwd: str) -> Optional[str]:
    """Say why the profile must not be used in this environment (None: use it)."""
    if environ.get(SWITCH, '').strip().lower() in ('off', '0', 'false', 'no'):
        return f'{SWITCH}={environ[SWITCH]}'
    rmw = environ.get('RMW_IMPLEMENTATION', '')
    if rmw and rmw not in FAST_DDS_RMWS:
        return f'RMW_IMPLEMENTATION={rmw}'
    for name in USER_SETTINGS:
        if name in environ:
            return f'{name} is set'
    for name in USER_FILES:
        if os.path.exists(os.path.join(cwd, name)):
            return f'{name} in {cwd}'
    if not os.path.isfile(PROFILE):
        return f'{PROFILE} is missing'
    return None


def use_dds_profile(environ: Optional[MutableMapping[str, str]] = None) -> bool:
    """Point Fast DDS at fastdds_profile.xml unless told otherwise; True if it was.

    Must run before the process's first ROS context is initialised (``rclpy.init``):
    rmw_fastrtps reads these variables when it makes the participant.
    """
    environ = os.environ if environ is None else environ
    if why_not(environ, os.getcwd()) is not None:
        return False
    environ['FASTDDS_DEFAULT_PROFILES_FILE'] = PROFILE
    environ['RMW_FASTRTPS_USE_QOS_FROM_XML'] = '1'
    return True


def in_effect(applied: bool, environ: Optional[MutableMapping[str, str]] = None,
              cwd: Optional[str] = None) -> str:
    """Say which DDS configuration the process runs with (the programs log it at start).

    Args:
        applied: what :func:`use_dds_profile` returned
        environ: the environment it was given (default: ``os.environ``)
        cwd: the working directory it looked in (default: the current one)
    """
    if applied:
        return (f"DDS configuration: bt_executive's Fast DDS profile {PROFILE} (writer "
                f"histories freed per message; {SWITCH}=off keeps rmw_fastrtps' own)")
    environ = os.environ if environ is None else environ
    reason = why_not(environ, os.getcwd() if cwd is None else cwd)
    return (f"DDS configuration: the process's own ({reason}); bt_executive's Fast DDS "
            'profile is not applied')


__all__ = ['in_effect', 'PROFILE', 'SWITCH', 'use_dds_profile', 'USER_SETTINGS', 'why_not']
