# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The ``bt-executive`` command line.

Offline subcommands (no ROS needed): ``validate``, ``show``, ``nodes``, ``schema``,
``tick``, ``render``, ``export`` and ``import``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
import functools
import sys
from typing import Any, Optional, Sequence

from bt_executive.app.arguments import add_executive_arguments, tcp_port
from bt_executive.app.groot2_command import (add_arguments as add_groot2_arguments,
                                             add_replay_arguments as add_groot2_replay_arguments)
from bt_executive.app.record_command import add_arguments as add_record_arguments
from bt_executive.app.run_tree_command import add_arguments as add_run_tree_arguments, \
    run as cmd_run_tree
from bt_executive.app.validation import build_tree, in_file_order, uses_ros, validate_file
from bt_executive.core.errors import Diagnostic, TreeError
from bt_executive.ros.blas import one_blas_thread
from bt_executive.testing.command import add_arguments as add_test_arguments

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


def _print_errors(error: TreeError, file: str) -> None:
    """Print a file's errors and the warnings found beside them, in file order."""
    for diagnostic in in_file_order(error.diagnostics + error.warnings):
        print(str(diagnostic), file=sys.stderr)
    count, warned = len(error.diagnostics), len(error.warnings)
    also = f', {warned} warning{"s" if warned != 1 else ""}' if warned else ''
    print(f'{file}: {count} error{"s" if count != 1 else ""}{also}', file=sys.stderr)


@functools.lru_cache(maxsize=1)
def _catalogue():
    """Return the installed plugins and the catalogue plus their types (docs/plugins.md)."""
    from bt_executive.nodes.plugins import installed
    return installed()  # once per run: a broken plugin is reported once, on stderr


def _load(path: str):
    from bt_executive.core.loader import Loader
    registry = _catalogue()[1]
    return registry, Loader(registry).load(path)


#: How the command line chooses a tree, for the message when a file has several, no main.
CHOOSE_TREE = 'choose one with --tree NAME'


def ros_checks() -> tuple[Any, str]:
    """Return the ROS checks module, or None and why ROS cannot be imported here."""
    try:
        from bt_executive.ros import checks
    except Exception as error:  # noqa: B902 - ImportError, or OSError from shared libraries
        return None, f'{type(error).__name__}: {error}'
    return checks, ''


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate tree files; print every error and warning."""
    ros, why_not = ros_checks()
    if ros is None and not args.quiet:
        print(f'bt-executive validate: ROS checks skipped, ROS cannot be imported here '
              f'({why_not}): interface types, message fields, ROS names and subscriptions '
              'were not checked (the executive checks them when it loads the file)',
              file=sys.stderr)
    failed = False
    for path in args.files:
        try:
            document = validate_file(path, _catalogue()[1], tree=args.tree, ros=ros)
        except TreeError as error:
            if args.quiet:
                error.warnings = []
            _print_errors(error, path)
            failed = True
            continue
        trees = len(document.trees)
        nodes = sum(1 for tree in document.trees.values() for _ in tree.root.walk())
        main = f", main '{document.main}'" if document.main else ''
        warnings = document.warnings
        if not args.quiet:
            for warning in warnings:
                print(str(warning), file=sys.stderr)
            notes = f', {len(warnings)} warning{"s" if len(warnings) != 1 else ""}' \
                if warnings else ''
            print(f'{path}: ok ({trees} tree{"s" if trees != 1 else ""}, {nodes} nodes{main}'
                  f'{notes})')
    return EXIT_INVALID if failed else EXIT_OK


def _build(registry, document, tree_name, **context_args: Any):
    return build_tree(registry, document, tree_name, **context_args)


def cmd_show(args: argparse.Namespace) -> int:
    """Print a tree (or all trees) as a unicode outline."""
    from bt_executive.formats.text import render_document
    try:
        registry, document = _load(args.file)
        text = render_document(document, registry, tree=args.tree, ascii_only=args.ascii)
    except TreeError as error:
        _print_errors(error, args.file)
        return EXIT_INVALID
    print(text)
    return EXIT_OK


def cmd_render(args: argparse.Namespace) -> int:
    """Draw a tree as a picture: SVG or PNG (through Graphviz) or the DOT text."""
    from bt_executive.formats import dot as graph
    try:
        fmt = graph.output_format(args.format, args.output)
        registry, document = _load(args.file)
        tree = document.tree(args.tree, choose=CHOOSE_TREE).name
        dot = graph.to_dot(document, registry, tree=tree, expand_subtrees=args.expand)
        data = dot.encode('utf-8') if fmt == 'dot' else graph.render(dot, fmt)
    except TreeError as error:
        _print_errors(error, args.file)
        return EXIT_INVALID
    except graph.RenderError as error:
        print(f'bt-executive: {error}', file=sys.stderr)
        return EXIT_USAGE
    return _write_output(data, args.output)


def cmd_nodes(args: argparse.Namespace) -> int:
    """Print the node catalogue."""
    from bt_executive.formats.reference import catalogue_markdown, catalogue_text
    plugins, registry = _catalogue()
    if args.markdown:
        print(catalogue_markdown(registry), end='')
    else:
        print(catalogue_text(registry, only=args.type))
        origin = plugins.origin(args.type) if args.type else None
        if origin is not None or not args.type:
            print(f'      from {origin}' if origin else '\n' + plugins.describe())
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schema of tree files (the catalogue's and the plugins' node types)."""
    from bt_executive.formats.schema import schema_text
    return _write_output(schema_text(_catalogue()[1]), args.output)


def _parse_assignment(text: str, what: str) -> tuple[str, str]:
    if '=' not in text:
        print(f'bt-executive: {what} expects NAME=VALUE, got {text!r}', file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    name, _, value = text.partition('=')
    return name.strip(), value.strip()


def _count(text: str) -> int:
    """Parse a whole number >= 1 (``--ticks``)."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a whole number, got {text!r}') from None
    if count < 1:
        raise argparse.ArgumentTypeError(f'expected at least 1, got {text!r}')
    return count


def _seconds(text: str) -> float:
    """Parse a number of seconds above 0 (``demo --timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a number of seconds, got {text!r}') \
            from None
    if not value > 0.0 or value == float('inf'):  # also NaN
        raise argparse.ArgumentTypeError(f'expected seconds above 0, got {text!r}')
    return value


def _period(text: str) -> Fraction:
    """Parse ``--period`` exactly (``0.1`` is one tenth, not the nearest float)."""
    try:
        period = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f'expected a number of seconds, got {text!r}') \
            from None
    if period < 0:
        raise argparse.ArgumentTypeError(f'expected seconds >= 0, got {text!r}')
    return period


def _decimals(period: Fraction) -> int:
    """Return the decimals that show every multiple of ``period`` (2 to 9)."""
    for decimals in range(2, 10):
        if (period * 10 ** decimals).denominator == 1:
            return decimals
    return 9


def _load_checked(path: str, skipped: list[str]):
    """Load ``path`` with the ROS checks when it uses ROS and ROS can be imported.

    When it uses ROS and ROS cannot be imported, why is appended to ``skipped``.
    """
    from bt_executive.core.loader import Loader
    registry = _catalogue()[1]

    def check_ros(document) -> list[Diagnostic]:
        if not uses_ros(document, registry):
            return []  # nothing to check: rclpy is not even imported
        ros, why_not = ros_checks()
        if ros is None:
            skipped.append(why_not)
            return []
        problems: list[Diagnostic] = ros.document_check(registry)(document)
        return problems

    return registry, Loader(registry, checks=[check_ros]).load(path)


def _print_skipped(skipped: list[str]) -> None:
    """Say, in one line, that the ROS checks were not run and how to run them."""
    if skipped:
        print(f'bt-executive tick: ROS checks not run, ROS cannot be imported here '
              f'({skipped[0]}): interface types, message fields, ROS names and subscriptions '
              'were not checked (run bt-executive validate where rclpy imports; the executive '
              'checks them when it loads the file)', file=sys.stderr)


def cmd_tick(args: argparse.Namespace) -> int:
    """Tick a tree offline with a simulated clock and print statuses per tick.

    Tick ``n`` (from 1) runs at exactly ``(n - 1) * period`` seconds: the times are
    computed from the tick number, never summed, so no rounding builds up.
    """
    import random

    import py_trees

    from bt_executive.core import yaml_source
    from bt_executive.core.builder import apply_blackboard_defaults
    from bt_executive.core.key_check import check_reads
    from bt_executive.formats.text import render_blackboard, render_status, TICKED_MARK
    from bt_executive.nodes.plugins import stub_defaults
    from bt_executive.observe.runner import TreeRunner

    stubs: dict[str, tuple[str, int]] = {}
    for text in args.stub:
        name, value = _parse_assignment(text, '--stub')
        status, colon, ticks = value.partition(':')
        status = status.lower()  # SUCCESS as in scenario files and the tree's display
        if status not in ('success', 'failure', 'running') or colon and not ticks.isdigit():
            print(f'bt-executive: --stub {text}: expected NAME=STATUS[:TICKS], STATUS one of '
                  'success, failure, running, TICKS a whole number', file=sys.stderr)
            return EXIT_USAGE
        stubs[name] = (status, int(ticks) if ticks else 0)
    values = {}
    for text in args.set:
        key, value = _parse_assignment(text, '--set')
        try:
            values[key] = yaml_source.load_value(value, f'--set {key}')
        except TreeError as error:
            _print_errors(error, f'--set {key}')
            return EXIT_USAGE
    now = [0.0]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
    skipped: list[str] = []
    try:
        registry, document = _load_checked(args.file, skipped)
        name = document.tree(args.tree, choose=CHOOSE_TREE).name
        if not skipped and uses_ros(document, registry):
            # build as the executive does: its leaf factories check what the tree
            # arguments put into goals, requests and tests (the run below uses stubs)
            ros, _ = ros_checks()
            _build(ros.build_registry(registry), document, name)
        py_trees.blackboard.Blackboard.clear()
        apply_blackboard_defaults(document)
        for key, value in values.items():
            py_trees.blackboard.Blackboard.set('/' + key, value)
        built, context = build_tree(registry, document, name, clock=lambda: now[0],
                                    seed=seed, stubs=stubs, log_error=_log_fault)
        root = built.root
        built.setup(args.file)
    except TreeError as error:
        _print_errors(error, args.file)
        _print_skipped(skipped)
        return EXIT_INVALID
    _print_skipped(skipped)
    key_warnings = check_reads(document, registry)
    for warning in document.warnings:  # the ROS checks' (packages not installed here)
        if warning not in key_warnings:
            print(str(warning), file=sys.stderr)
    if args.seed is None and context.seed != seed:  # random nodes drew their seeds
        print(f'random nodes seeded with {seed} (repeat this run with --seed {seed})')
    also_set = {key.split('.')[0] for key in values}
    for warning in check_reads(document, registry, also_set=also_set):
        print(str(warning), file=sys.stderr)
    node_types = {built.nodes.type_name(node) for node in root.iterate()}
    defaults = stub_defaults(registry)  # the catalogue's ROS leaves and the plugins'
    ros_types = sorted(name for name in node_types if name in defaults)
    stubbed = set(ros_types) | {node.name for node in root.iterate()
                                if built.nodes.type_name(node) in defaults}
    unknown = sorted(set(stubs) - stubbed)
    if unknown:
        print(f"bt-executive: --stub {', '.join(unknown)}: no stubbed leaf has that type or "
              f"name in tree '{name}' (stubbed: {', '.join(sorted(stubbed)) or 'none'})",
              file=sys.stderr)
        return EXIT_USAGE
    if ros_types:
        print('offline: ROS leaves are stubs — ' + ', '.join(
            '{}: {}{}'.format(t, stubs.get(t, defaults[t])[0],
                              f' after {stubs.get(t, defaults[t])[1]} running ticks'
                              if stubs.get(t, defaults[t])[1] else '')
            for t in ros_types) + ' (change with --stub TYPE_OR_NAME=STATUS[:TICKS])')
    print(f'{TICKED_MARK}: ticked in this tick' + (', or written by it (blackboard)'
                                                   if args.blackboard else ''))
    runner = TreeRunner(built, clock=lambda: now[0], track_writes=args.blackboard,
                        log_error=_log_fault)
    decimals = _decimals(args.period)
    for tick in range(1, args.ticks + 1):
        now[0] = float((tick - 1) * args.period)
        record = runner.tick_once(now=now[0])
        request = record.terminated
        if not args.quiet or tick == args.ticks or request is not None:
            print(f'--- tick {tick}  t={now[0]:.{decimals}f}s  '
                  f'root: {record.root_status.name}')
            print(render_status(root, table=built.nodes, ascii_only=args.ascii,
                                stubs=ros_types,
                                ticked={behaviour.id for behaviour in record.ticked}))
            if args.blackboard:
                print(render_blackboard(py_trees.blackboard.Blackboard.storage,
                                        written=record.writes))
        if request is not None:
            path = built.nodes.path(request.node) if request.node is not None \
                else request.node_name
            print(f'terminated by {path}: {request.status.name.lower()} '
                  f'{request.reason}'.rstrip())
            break
    runner.stop()
    return EXIT_OK


def _log_fault(report: str) -> None:
    """Print the first line of a contained node fault (the node fails; the tree goes on)."""
    print(f'bt-executive: {report.splitlines()[0] if report else report}', file=sys.stderr)


def demo_epilog() -> str:
    """List the launch arguments ``bt-executive demo`` accepts as NAME:=VALUE."""
    from bt_executive.app import bringup
    lines = ['launch arguments (as launch/patrol.launch.py):']
    for argument in bringup.ARGUMENTS:
        lines += [f"  {argument.name}:={argument.default or repr('')}",
                  f'      {argument.description}']
    return '\n'.join(lines)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the patrol on the built-in simulated robot and print a summary."""
    from bt_executive.app.demo import parse_arguments, run
    try:
        arguments = parse_arguments(args.arguments)
    except ValueError as error:
        print(f'bt-executive demo: {error}', file=sys.stderr)
        return EXIT_USAGE
    return run(laps=args.laps, tree=args.tree, namespace=args.namespace, robots=args.robots,
               groot2_port=args.groot2_port, arguments=arguments, timeout=args.timeout,
               nav2=args.nav2, shared=args.shared, processes=args.executive_processes)


def _write_output(data: str | bytes, output: Optional[str]) -> int:
    """Write text (UTF-8) or bytes to the file ``output``, or to standard output if None.

    Returns:
        EXIT_OK, or EXIT_USAGE (with a message) when the file cannot be written.
    """
    binary = isinstance(data, bytes)
    if output is None:
        if binary:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return EXIT_OK
    try:
        with open(output, 'wb' if binary else 'w',
                  encoding=None if binary else 'utf-8') as stream:
            stream.write(data)
    except OSError as error:
        print(f'bt-executive: cannot write {output}: {error}', file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Write a tree file as BehaviorTree.CPP v4 XML (for Groot2 and BT.CPP)."""
    from bt_executive.formats.btcpp import export_xml
    try:
        registry, document = _load(args.file)
        text = export_xml(document, tree_name=args.tree, registry=registry,
                          all_models=args.all_models)
    except TreeError as error:
        _print_errors(error, args.file)
        return EXIT_INVALID
    return _write_output(text, args.output)


def cmd_import(args: argparse.Namespace) -> int:
    """Convert BehaviorTree.CPP v4 XML to a YAML tree file."""
    from bt_executive.formats.btcpp import import_xml, read_xml_file
    try:
        text = import_xml(read_xml_file(args.file), name=args.file, registry=_catalogue()[1])
    except TreeError as error:
        _print_errors(error, args.file)
        return EXIT_INVALID
    return _write_output(text, args.output)


def _replayed(args: argparse.Namespace) -> Optional[str]:
    """Return the executive to replay (``/ns/node``), or None for the recording's only one."""
    if not args.ns and args.node in (None, 'bt_executive'):
        return None
    from bt_executive.ros.listener import topic_name
    return topic_name(args.ns or '', args.node or 'bt_executive', 'x')[:-2]


def _groot2_only_with_replay(args: argparse.Namespace) -> Optional[int]:
    """Refuse --groot2-port without --replay (the executive serves its live tree itself)."""
    if args.groot2_port is None or args.replay:
        return None
    print(f'bt-executive {args.command}: --groot2-port serves a replay (with --replay FILE); '
          "a running executive serves Groot2 itself: its 'groot2_port' parameter "
          '(docs/groot2.md)', file=sys.stderr)
    return EXIT_USAGE


def cmd_view(args: argparse.Namespace) -> int:
    """Serve the live tree of an executive, the fleet page or a replay until Ctrl-C."""
    refused = _groot2_only_with_replay(args)
    if refused is not None:
        return refused
    others = [name for name, given in (('--replay', args.replay), ('--ns', args.ns is not None),
                                       ('--node', args.node is not None),
                                       ('--groot2-port', args.groot2_port is not None))
              if given]
    if args.tree is not None and not args.mutation:
        print('bt-executive view: --tree goes with --mutation REPORT', file=sys.stderr)
        return EXIT_USAGE
    if args.mutation:
        if others:
            print('bt-executive view: --mutation shows a report, not an executive: not '
                  f"together with {', '.join(others)}", file=sys.stderr)
            return EXIT_USAGE
        from bt_executive.viewers.mutation_web import run as show_report
        return show_report(args.mutation, tree=args.tree, host=args.host, port=args.port,
                           verbose=args.verbose)
    if args.replay:
        from bt_executive.viewers.replay_web import run as replay
        return replay(args.replay, node=_replayed(args), host=args.host, port=args.port,
                      verbose=args.verbose, groot2_port=args.groot2_port,
                      groot2_address=args.groot2_address)
    if args.ns is None and args.node is None:
        from bt_executive.viewers.fleet import run as run_fleet
        return run_fleet(host=args.host, port=args.port, verbose=args.verbose)
    from bt_executive.viewers.webview import run
    return run(namespace=args.ns or '', node=args.node or 'bt_executive', host=args.host,
               port=args.port, verbose=args.verbose)


def cmd_foxglove(args: argparse.Namespace) -> int:
    """Serve the live tree of a running executive to the Foxglove app until Ctrl-C."""
    from bt_executive.viewers.foxglove_bridge import run
    return run(namespace=args.ns, node=args.node, host=args.host, port=args.port)


def cmd_watch(args: argparse.Namespace) -> int:
    """Show the live tree of a running executive in the terminal until Ctrl-C."""
    refused = _groot2_only_with_replay(args)
    if refused is not None:
        return refused
    if args.replay:
        from bt_executive.viewers.replay_watch import run as replay
        return replay(args.replay, node=_replayed(args), tick=args.tick, once=args.once,
                      color=False if args.no_color else None, ascii_only=args.ascii,
                      groot2_port=args.groot2_port, groot2_address=args.groot2_address)
    from bt_executive.viewers.watch import run
    return run(namespace=args.ns, node=args.node, once=args.once, timeout=args.timeout,
               color=False if args.no_color else None, ascii_only=args.ascii)


def cmd_groot2(args: argparse.Namespace) -> int:
    """Play a recording for Groot2 alone until Ctrl-C."""
    from bt_executive.viewers.replay_groot2 import run
    return run(args.replay, node=_replayed(args), port=args.port, address=args.address,
               tick=args.tick, speed=args.speed, loop=args.loop)


def cmd_record(args: argparse.Namespace) -> int:
    """Record an executive's snapshot, delta, events and status topics to MCAP."""
    from bt_executive.app.record_command import run
    return run(args)


def cmd_test(args: argparse.Namespace) -> int:
    """Run scenario files against the real executive on simulated time (docs/testing.md)."""
    from bt_executive.testing.command import run
    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog='bt-executive',
        description='Behaviour trees in YAML for ROS 2: validate, inspect and run them.')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    sub.required = True

    p = sub.add_parser('validate', help='check tree files; exit 1 with every error')
    p.add_argument('files', nargs='+', metavar='FILE')
    p.add_argument('--tree', help='also build only this tree (default: every tree)')
    p.add_argument('-q', '--quiet', action='store_true', help='print errors only')
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser('show', help='print a tree as an outline')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--tree', help='tree to show (default: all, main first)')
    p.add_argument('--ascii', action='store_true', help='ASCII only, no unicode')
    p.set_defaults(func=cmd_show)

    p = sub.add_parser('render', help='draw a tree as a picture (SVG, PNG or Graphviz DOT)')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--tree', help='tree to draw (default: main)')
    p.add_argument('--format', choices=('svg', 'png', 'dot'),
                   help='output format (default: from the -o suffix, else svg)')
    p.add_argument('-o', '--output', help='write to this file (default: standard output)')
    p.add_argument('--expand', action='store_true',
                   help='draw called trees inline instead of as linked clusters')
    p.set_defaults(func=cmd_render)

    p = sub.add_parser('nodes', help='print the node catalogue')
    p.add_argument('type', nargs='?', help='show only this node type')
    p.add_argument('--markdown', action='store_true', help='print the markdown reference')
    p.set_defaults(func=cmd_nodes)

    p = sub.add_parser('schema', help='print the JSON Schema of tree files (for editors and '
                                      'validators; docs/schema.md)')
    p.add_argument('-o', '--output', help='write to this file (default: standard output)')
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser('tick', help='tick a tree offline (ROS leaves stubbed)')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--tree', help='tree to tick (default: main)')
    p.add_argument('--ticks', type=_count, default=10, help='number of ticks (default 10)')
    p.add_argument('--period', type=_period, default=Fraction(1, 10),
                   help='simulated seconds between ticks (default 0.1); tick N runs at '
                        'exactly (N - 1) * period')
    p.add_argument('--set', action='append', default=[], metavar='KEY=VALUE',
                   help='set a blackboard value (YAML) before the first tick')
    p.add_argument('--stub', action='append', default=[], metavar='NAME=STATUS[:TICKS]',
                   help='stub result for a ROS leaf type or node name')
    p.add_argument('--seed', type=int,
                   help='seed for random nodes (default: a fresh one, printed when used)')
    p.add_argument('--blackboard', action='store_true',
                   help='print the blackboard after each printed tick')
    p.add_argument('-q', '--quiet', action='store_true', help='print the last tick only')
    p.add_argument('--ascii', action='store_true', help='ASCII only, no unicode')
    p.set_defaults(func=cmd_tick)

    p = sub.add_parser('demo', help='run the patrol demo on the built-in simulated robot',
                       epilog=demo_epilog(), formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument('arguments', nargs='*', metavar='NAME:=VALUE',
                   help='launch arguments of launch/patrol.launch.py (listed below)')
    p.add_argument('--laps', type=_count, default=2,
                   help='stop when every robot completed this many laps (2)')
    p.add_argument('--robots', type=int, metavar='N',
                   help='a fleet as launch/fleet.launch.py: robot1..robotN, one /clock')
    p.add_argument('--shared', action='store_true',
                   help='with --robots: every executive in one process, every sim in '
                        'another (shared_process:=true)')
    p.add_argument('--executive-processes', type=int, default=1, metavar='K',
                   help='with --shared: split the executives over K processes, robot i '
                        'in process (i - 1) mod K (executive_processes:=K; one per core '
                        'uses every core)')
    p.add_argument('--tree', help='tree file (default: the package patrol.yaml)')
    p.add_argument('--namespace', default='', help='namespace of the nodes')
    p.add_argument('--groot2-port', type=tcp_port, metavar='PORT',
                   help='serve Groot2 on this port (a fleet: robot i on PORT + i - 1)')
    p.add_argument('--timeout', type=_seconds, default=300.0,
                   help='give up after this many wall-clock seconds (300)')
    p.add_argument('--nav2', action='store_true',
                   help="run patrol_nav2.yaml: the sim serves Nav2's actions (needs nav2_msgs)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser('export', help='write a tree file as BehaviorTree.CPP v4 XML (Groot2)')
    p.add_argument('file', metavar='FILE')
    p.add_argument('--format', choices=('btcpp',), default='btcpp',
                   help='output format (btcpp: BehaviorTree.CPP v4 XML, the default)')
    p.add_argument('--tree', help='export this tree and the trees it calls, as the main '
                                  'tree (default: every tree)')
    p.add_argument('-o', '--output', help='write to this file (default: standard output)')
    p.add_argument('--all-models', action='store_true',
                   help='declare every node type in TreeNodesModel, not only those used')
    p.set_defaults(func=cmd_export)

    p = sub.add_parser('import', help='convert BehaviorTree.CPP v4 XML to a YAML tree file')
    p.add_argument('file', metavar='FILE.xml')
    p.add_argument('-o', '--output', help='write to this file (default: standard output)')
    p.set_defaults(func=cmd_import)

    p = sub.add_parser('view', help='show the live tree of a running executive in a browser '
                       '(without --ns/--node: every executive found, the fleet page)')
    p.add_argument('--ns', default=None, metavar='NAMESPACE',
                   help="the executive's namespace ('' or / for none; without --ns and "
                        '--node: the fleet page lists every executive in the ROS graph)')
    p.add_argument('--node', default=None,
                   help="the executive's node name (default bt_executive)")
    p.add_argument('--port', type=tcp_port, default=8765,
                   help='HTTP port (default 8765; 0: any free port)')
    p.add_argument('--host', default='127.0.0.1',
                   help='address to listen on (default 127.0.0.1). UNSAFE to change: any '
                        'other address shows the tree and its blackboard, without '
                        'authentication, to whoever can reach it')
    p.add_argument('-v', '--verbose', action='store_true', help='log every HTTP request')
    p.add_argument('--replay', metavar='FILE', help='serve a recording (bt-executive record) '
                   'with a timeline instead of the live tree (docs/recording.md)')
    p.add_argument('--mutation', metavar='REPORT', help='show a mutation report (bt-executive '
                   'test --mutate --mutation-json REPORT) over its tree: surviving mutants '
                   'marked on their nodes (docs/testing.md)')
    p.add_argument('--tree', help="with --mutation: the report's tree to show (default: its "
                   'first)')
    add_groot2_replay_arguments(p)
    p.set_defaults(func=cmd_view)

    p = sub.add_parser('groot2', help='play a recording (bt-executive record) to Groot2 and '
                       'btview alone, until Ctrl-C (docs/groot2.md)')
    add_groot2_arguments(p)
    p.set_defaults(func=cmd_groot2)

    p = sub.add_parser('foxglove', help='serve the live tree of a running executive to the '
                       'Foxglove app (its WebSocket protocol)')
    add_executive_arguments(p)
    p.add_argument('--port', type=tcp_port, default=8765,
                   help="WebSocket port (default 8765, Foxglove's default; 0: any free port)")
    p.add_argument('--host', default='127.0.0.1',
                   help='address to listen on (default 127.0.0.1). UNSAFE to change: any '
                        'other address shows the tree and its blackboard, without '
                        'authentication, to whoever can reach it')
    p.set_defaults(func=cmd_foxglove)
    p = sub.add_parser('record', help="record an executive's snapshot, delta, events and "
                       'status topics to an MCAP file (a rosbag2 bag)')
    add_record_arguments(p)
    p.set_defaults(func=cmd_record)

    p = sub.add_parser('run-tree', help='run a tree on a running executive (its ExecuteTree '
                       'action), show its feedback, exit 0/1 by its result')
    add_run_tree_arguments(p)
    p.set_defaults(func=cmd_run_tree)

    p = sub.add_parser('test', help='run scenario tests: the tree against scripted ROS '
                       'peers on simulated time, with coverage (docs/testing.md)')
    add_test_arguments(p)
    p.set_defaults(func=cmd_test)

    p = sub.add_parser('watch', help='show the live tree of a running executive here')
    add_executive_arguments(p)
    p.add_argument('--once', action='store_true',
                   help='print one frame as soon as a snapshot arrives, then exit')
    p.add_argument('--timeout', type=float, metavar='S',
                   help='stop after S seconds (with --once: wait at most S, default 10, '
                        'exit 1 if nothing arrived)')
    p.add_argument('--no-color', action='store_true', help='no ANSI colours')
    p.add_argument('--ascii', action='store_true', help='ASCII only, no unicode')
    p.add_argument('--replay', metavar='FILE', help='step through a recording (bt-executive '
                   'record) instead of the live tree (docs/recording.md)')
    p.add_argument('--tick', type=int, metavar='N',
                   help='with --replay: start at tick N (without a terminal or with '
                        '--once: print the state at tick N and exit)')
    add_groot2_replay_arguments(p)
    p.set_defaults(func=cmd_watch)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; return the exit code."""
    one_blas_thread()  # before any command imports numpy (ros/blas.py)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
