# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""numpy's BLAS threads in a bt_executive program: one, unless the user says otherwise.

Every rclpy process imports numpy (rclpy's service client imports ``service_msgs``,
whose generated messages hold numpy arrays), and numpy's OpenBLAS starts one worker thread
per core at import, which spin for a while waiting for work that never comes: no
bt_executive program multiplies a matrix. Measured here (2 cores): a bare rclpy node's
start costs 0.41 s of CPU with them and 0.30 s without, the patrol executive's start
0.59 s against 0.45 s (BENCHMARKS.md, "Why the tricks are there").

A bt_executive program calls :func:`one_blas_thread` first thing, before anything
imports numpy: ``bt_executive.app.programs.run`` (the executives and the simulated robot,
as console scripts and as the demo's processes) and ``bt-executive``'s ``main``. It sets
``OPENBLAS_NUM_THREADS=1`` for the process and the processes it starts, unless the
environment already names a value (the user's always wins) or numpy is already imported
(then it would change nothing: importing ``bt_executive.ros.executive`` imports rclpy,
hence numpy, so each executive's ``main`` is too late for it). Importing this module does
nothing; a library user's process is left as it is.
"""

from __future__ import annotations

import os
import sys

#: The environment variable OpenBLAS reads when numpy loads it.
BLAS_THREADS = 'OPENBLAS_NUM_THREADS'


def one_blas_thread() -> bool:
    """Ask OpenBLAS for one thread in this process and its children; True if asked.

    Leaves a value the environment already has, and does nothing once numpy is imported.
    """
    if BLAS_THREADS in os.environ or 'numpy' in sys.modules:
        return False
    os.environ[BLAS_THREADS] = '1'
    return True
