# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Several executives in one process, on one executor: ``fleet_executive``.

``fleet_executive --robots 30 --ros-args --params-file config/executive.yaml
-p tree_file:=config/patrol.yaml`` runs the executives /robot1/bt_executive ..
/robot30/bt_executive. Each is the same node as one ``executive`` process: its own
namespace, parameters (``ros2 param`` works per executive), ~/status, ~/snapshot,
services and tree; they share the process, the executor and the node catalogue. An
rclpy process costs some 60 MiB and a share of the CPU before it ticks anything, which is
what limits one process per robot on a small machine (BENCHMARKS.md, scale).

Parameters come as for separate processes: ``-p`` and the ``/**/bt_executive:`` section
of a parameters file apply to all, a ``/robot2/bt_executive:`` section to one.

Each executive has a blackboard of its own (:mod:`bt_executive.ros.blackboards`): its
core puts it in place around what it runs and around the callbacks it and its leaves
give rclpy (``LeafHost.own``), and outside them the blackboard refuses use. Periodic
ticks are spread over the period (executive i of N at i/N of it), so the executives'
ticks do not come due together.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Optional

from bt_executive.core.registry import Registry
from bt_executive.ros.blackboards import BlackboardSpace, guard
from bt_executive.ros.core import ExecutiveCore, ros_registry
from bt_executive.ros.executive import CoreAccess, node_options
from bt_executive.ros.memory import defer_for_programs
from bt_executive.ros.parameters import declare_parameters, PARAMETERS
from bt_executive.ros.serve import serve
from bt_executive.ros.usage import help_text
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.utilities import remove_ros_args

_USAGE = """\
usage: fleet_executive [-h] [--robots N | --namespaces NS [NS ...]] [--node-name NAME]
                       [--groot2-port PORT] [--split I/K]
                       [--ros-args -p NAME:=VALUE ... | --params-file FILE ...]

Run several executives in one process on one executor: one per namespace, each the
node <namespace>/bt_executive with the ROS interfaces of the 'executive' command
(parameters, ~/status, ~/snapshot, ~/events, ~/pause ...), its own tree and blackboard.

options:
  -h, --help            show this help and exit (no node is started)
  --robots N            the namespaces robot1 .. robotN (default 1)
  --namespaces NS ...   these namespaces instead (e.g. --namespaces alpha bravo)
  --node-name NAME      each executive's node name (default bt_executive)
  --groot2-port PORT    serve Groot2 monitoring: the i-th executive on PORT + i - 1
  --split I/K           this process is the I-th of K running one fleet, its robots
                        dealt out (executive_processes:=K): its i-th executive is robot
                        I + (i - 1) * K of the fleet, serves Groot2 on that robot's port
                        (PORT: the fleet's first) and ticks in between the executives
                        of the other processes

-p and the /**/bt_executive: section of a parameters file set every executive; a
/robot2/bt_executive: section sets one (ros2 param set /robot2/bt_executive ...).

examples:
  fleet_executive --robots 30 --ros-args --params-file config/executive.yaml \\
      -p tree_file:=config/patrol.yaml -p tick_mode:=periodic
  ros2 launch bt_executive fleet.launch.py robots:=30 shared_process:=true
"""

_EPILOGUE = """
exit status: 0 after a normal end or a signal (every tree is halted and its goals are
cancelled first, the cancels of all executives awaited together), 1 when a tree file
given at start is invalid or a goal cancel was not acknowledged within shutdown_timeout,
2 for a bad parameter value.
"""


class FleetExecutive(CoreAccess, Node):
    """An executive that shares its process: its core runs on a blackboard of its own.

    The core (:class:`~bt_executive.ros.core.ExecutiveCore`) enters this executive's
    :class:`~bt_executive.ros.blackboards.BlackboardSpace` around everything it runs (ticks,
    services, parameter changes, status) and around the callbacks it and the leaves give
    rclpy (``LeafHost.own``), where it also counts what they raise as this executive's
    ``callback_errors``. It does not pause after sends (that would hold every executive
    of the process).

    Args:
        space: this executive's blackboard
        phase: where in the period its periodic ticks fall (a fraction of the period)
        node_name, namespace, parameter_overrides, registry, context: as
            :class:`~bt_executive.ros.executive.Executive`
    """

    def __init__(self, *, space: BlackboardSpace, phase: Optional[float] = None,
                 node_name: str = 'bt_executive', namespace: Optional[str] = None,
                 parameter_overrides: Optional[list[Parameter]] = None,
                 registry: Optional[Registry] = None, context: Any = None) -> None:
        kwargs = node_options(namespace, context)
        super().__init__(node_name, parameter_overrides=parameter_overrides or [], **kwargs)
        self.blackboard_space = space
        try:
            declare_parameters(self, PARAMETERS)
        except ParameterException:
            super().destroy_node()
            raise
        try:
            self.core = ExecutiveCore(self, registry=registry, blackboard=space,
                                      tick_phase=phase, give_way_after_send=False)
            self.add_on_set_parameters_callback(self.core.on_set_parameters)
            self.core.load_first_tree()
        except BaseException:
            self.destroy_node()
            raise

    def destroy_node(self) -> None:
        """Halt and release the trees on this executive's blackboard, then destroy."""
        self.close_core()
        super().destroy_node()


def namespaces_of(options: argparse.Namespace) -> list[str]:
    """Return the namespaces the options ask for (robot1 .. robotN by default)."""
    if options.namespaces:
        names = ['/' + name.strip('/') for name in options.namespaces]
    else:
        names = [f'/robot{index}' for index in range(1, options.robots + 1)]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"namespace {', '.join(twice)} given twice")
    return names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='fleet_executive', add_help=False)
    parser.add_argument('-h', '--help', action='store_true')
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--robots', type=int, default=1)
    group.add_argument('--namespaces', nargs='+')
    parser.add_argument('--node-name', default='bt_executive')
    parser.add_argument('--groot2-port', type=int, default=0)
    parser.add_argument('--split', type=_split, default=(1, 1))
    return parser


def _split(text: str) -> tuple[int, int]:
    """Read ``--split I/K`` (1 <= I <= K)."""
    try:
        first, count = (int(part) for part in text.split('/'))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected I/K, e.g. 2/3") from None
    if not 1 <= first <= count:
        raise argparse.ArgumentTypeError(f"'{text}': expected 1 <= I <= K")
    return first, count


def start_fleet(made: list[Any], namespaces: list[str], *, node_name: str = 'bt_executive',
                groot2_port: int = 0, split: tuple[int, int] = (1, 1),
                registry: Optional[Registry] = None, context: Any = None) -> None:
    """Make one :class:`FleetExecutive` per namespace (appended to ``made`` one by one).

    They share one node catalogue. Executive i (from 0) of N ticks at i/N of the period
    and serves Groot2 (``groot2_port`` not 0) on ``groot2_port + i``. With ``split``
    (I, K), this process is the I-th of K that run one fleet with its robots dealt out
    (``executive_processes:=K``): executive i is robot I + i * K of the fleet, so it
    serves Groot2 on ``groot2_port + I - 1 + i * K`` and ticks (I - 1) / K of a slot
    later, between the executives of the other processes.
    ``context``: the rclpy context of every node (default: the global one).
    """
    registry = registry or ros_registry()
    first, count = split
    for index, namespace in enumerate(namespaces):
        overrides = [Parameter('groot2_port', value=groot2_port + first - 1 + index * count)] \
            if groot2_port else []
        phase = (index + (first - 1) / count) / len(namespaces)
        made.append(FleetExecutive(space=BlackboardSpace(namespace), phase=phase,
                                   node_name=node_name, namespace=namespace,
                                   parameter_overrides=overrides, registry=registry,
                                   context=context))


def main(args: Optional[list[str]] = None, *, registry: Optional[Registry] = None) -> int:
    """Run the executives until SIGINT/SIGTERM/SIGHUP; cancel every goal before exiting.

    Returns:
        0 after a clean stop or ``--help``; 1 when a first tree could not be loaded or a
        goal cancel was not acknowledged in time; 2 for bad arguments or parameters.
    """
    arguments = remove_ros_args(sys.argv if args is None else args)[1:]
    parser = _parser()
    try:
        options = parser.parse_args(arguments)
        if options.help:
            sys.stdout.write(help_text(PARAMETERS, usage=_USAGE, epilogue=_EPILOGUE))
            return 0
        if options.robots < 1:
            raise ValueError(f'--robots {options.robots}: expected at least 1')
        namespaces = namespaces_of(options)
        if any(item.startswith('__ns:=') for item in (sys.argv if args is None else args)):
            raise ValueError('-r __ns:=... would put every executive in one namespace; '
                             'give --namespaces instead')
    except (SystemExit, ValueError) as error:  # argparse exits on a bad argument
        if isinstance(error, ValueError):
            print(f'fleet_executive: {error}', file=sys.stderr)
        return 2
    defer_for_programs()  # messages one by one as used, no code generator (ros/memory.py)
    undo = guard()  # outside every executive, the blackboard refuses use
    try:
        return serve('fleet_executive', lambda made: start_fleet(
            made, namespaces, node_name=options.node_name, groot2_port=options.groot2_port,
            split=options.split, registry=registry), args)
    finally:
        undo()


if __name__ == '__main__':
    sys.exit(main())
