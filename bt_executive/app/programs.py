# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The programs' entry points: each makes the process-wide deferrals, then runs its main.

``executive``, ``fleet_executive``, ``lifecycle_executive`` and ``sim_robot`` (console
scripts, setup.py) start here, and so do the demo's processes
(``python -m bt_executive.app.programs executive --ros-args ...``). Before anything
imports py_trees or rclpy, :func:`~bt_executive.ros.memory.defer_for_programs` places the
modules such a process never runs (BENCHMARKS.md: 11-13 MiB of RSS per executive);
``BT_EXECUTIVE_DEFER_IMPORTS=off`` turns that off. Before that,
:func:`~bt_executive.ros.blas.one_blas_thread` keeps numpy's OpenBLAS to one thread.
Importing this module does nothing.
"""

from __future__ import annotations

import importlib
import sys
from typing import Optional

from bt_executive.ros.blas import one_blas_thread
from bt_executive.ros.memory import defer_for_programs

#: Program name -> the module whose ``main(args)`` runs it.
PROGRAMS = {
    'executive': 'bt_executive.ros.executive',
    'fleet_executive': 'bt_executive.ros.fleet',
    'lifecycle_executive': 'bt_executive.ros.lifecycle',
    'sim_robot': 'bt_executive.sim.robot',
}


def run(program: str, args: Optional[list[str]] = None) -> int:
    """Make the deferrals, then run ``program``'s ``main(args)``; its exit status."""
    one_blas_thread()
    defer_for_programs()
    module = importlib.import_module(PROGRAMS[program])
    return int(module.main(args) or 0)


def executive() -> int:
    """Run the ``executive`` console script."""
    return run('executive')


def fleet_executive() -> int:
    """Run the ``fleet_executive`` console script."""
    return run('fleet_executive')


def lifecycle_executive() -> int:
    """Run the ``lifecycle_executive`` console script."""
    return run('lifecycle_executive')


def sim_robot() -> int:
    """Run the ``sim_robot`` console script."""
    return run('sim_robot')


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m bt_executive.app.programs PROGRAM [ARGS...]``: run one program."""
    argv = list(sys.argv if argv is None else argv)
    if len(argv) < 2 or argv[1] not in PROGRAMS:
        print(f'usage: {argv[0]} {{{",".join(PROGRAMS)}}} [ARGS...]', file=sys.stderr)
        return 2
    return run(argv[1], [argv[0], *argv[2:]])


if __name__ == '__main__':
    sys.exit(main())
