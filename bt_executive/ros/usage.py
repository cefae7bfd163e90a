# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The executive's command line: ``executive --help`` and arguments outside ``--ros-args``.

The executive is configured with ROS parameters only; what the command line takes besides
``--ros-args ...`` is ``-h``/``--help``, which prints the parameters (from the node
shell's table) and exits without starting a node.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any, Mapping, Optional, Sequence, TextIO

from bt_executive.ros.exit_guard import GUARD_MARGIN
from bt_executive.ros.watchdog import CLEANUP_TIMEOUT

#: ``name -> (default, description, (lowest, highest) or None, read-only)``
ParameterTable = Mapping[str, tuple[Any, str, Optional[tuple[float, float]], bool]]

_USAGE = """\
usage: executive [-h] [--ros-args -p NAME:=VALUE ... | --params-file FILE ...]

Run a behaviour tree from a YAML file as the ROS 2 node 'bt_executive': load and validate
the tree, tick it, and control it through ~/pause, ~/resume, ~/reset and ~/reload
(std_srvs/srv/Trigger); ~/status, ~/snapshot and ~/events report it.

options:
  -h, --help   show this help and exit (no node is started)

examples:
  executive --ros-args -p tree_file:=config/patrol.yaml -p tick_mode:=event
  executive --ros-args --params-file config/executive.yaml -r __ns:=/robot1
  ros2 run bt_executive executive --ros-args -p tree_file:=/path/to/tree.yaml
  ros2 param set /bt_executive tree_file other.yaml     # swap the tree at runtime
"""

_EPILOGUE = """
exit status: 0 after a stop by SIGINT, SIGTERM or SIGHUP (the tree is halted and its
goal cancels acknowledged first, as ROS nodes do: ros2 launch reports no death) or a ROS
shutdown, and after --help; 1 when the tree file given at start is invalid (every error
is logged as file:line:col: node path: what was expected) or a goal cancel was not
acknowledged within shutdown_timeout; 2 for a bad parameter value.
"""

#: The end of every executive program's exit status text (``executive``,
#: ``fleet_executive``, ``lifecycle_executive``: they all stop through ros/serve.py), so
#: ``--help``, the README and the code say one thing (test_executive_errors.py).
HUNG_EXIT = textwrap.fill(
    'a stop that hangs ends anyway: status 1 from the exit watchdog, shutdown_timeout + '
    f"{CLEANUP_TIMEOUT:g} s after the signal (every thread's stack on stderr), or, when "
    'even that cannot run (a callback stuck in C code holding the GIL), SIGKILL from the '
    f'exit guard at shutdown_timeout + {CLEANUP_TIMEOUT + GUARD_MARGIN:g} s (-9 in ros2 '
    'launch, 137 in a shell).', width=88)


def help_text(parameters: ParameterTable, *, usage: str = _USAGE,
              epilogue: str = _EPILOGUE) -> str:
    """Return the ``--help`` text: usage, then every ROS parameter with its default."""
    lines = [usage, 'ROS parameters (-p NAME:=VALUE; read-only ones only at start):']
    width = max(len(name) for name in parameters)
    for name, (default, description, bounds, read_only) in parameters.items():
        notes = [f'default {_yaml(default)}']
        if bounds is not None:
            notes.append(f'{bounds[0]:g} to {bounds[1]:g}')
        if read_only:
            notes.append('read at start')
        lines.append(textwrap.fill(f'{description} ({", ".join(notes)})', width=88,
                                   initial_indent=f'  {name:<{width}}  ',
                                   subsequent_indent=' ' * (width + 4)))
    return '\n'.join(lines) + '\n' + epilogue + HUNG_EXIT + '\n'


def _yaml(value: Any) -> str:
    """Render a default as it is written on the command line."""
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return '[' + ', '.join(_yaml(item) for item in value) + ']'
    return str(value)


def handle_arguments(arguments: Sequence[str], parameters: ParameterTable, *,
                     out: TextIO = sys.stdout, err: TextIO = sys.stderr,
                     program: str = 'executive', usage: str = _USAGE,
                     epilogue: str = _EPILOGUE) -> Optional[int]:
    """Act on the arguments outside ``--ros-args`` (the program name excluded).

    ``program``, ``usage`` and ``epilogue`` name and describe the executable (the
    lifecycle executive has its own).

    Returns:
        The exit status when the executive must not start (0 after ``--help``), else None;
        other arguments are reported on ``err`` as ignored.
    """
    if any(argument in ('-h', '--help') for argument in arguments):
        out.write(help_text(parameters, usage=usage, epilogue=epilogue))
        return 0
    if arguments:
        err.write(f"{program}: ignoring {' '.join(arguments)}: the executive takes ROS "
                  f"parameters only ('{program} --help' lists them)\n")
    return None


__all__ = ['handle_arguments', 'help_text']
