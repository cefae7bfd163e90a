# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive record``: its arguments, ``--info`` (what a recording holds), ``--recover``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, TYPE_CHECKING

from bt_executive.app.arguments import add_executive_arguments

if TYPE_CHECKING:
    from bt_executive.observe.bag import Bag


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``record`` arguments to ``parser``."""
    parser.add_argument('-o', '--output', metavar='FILE',
                        help='the MCAP file (default run.mcap; with rotation: FILE_0.mcap, '
                             'FILE_1.mcap ...; with --recover: the finalised copy, default '
                             'FILE.recovered.mcap)')
    add_executive_arguments(parser)
    parser.add_argument('--max-size', metavar='SIZE', default='0',
                        help='start a new file when one reaches SIZE (e.g. 500M, 2G; '
                             'default: no limit)')
    parser.add_argument('--max-duration', type=float, default=0.0, metavar='S',
                        help='start a new file every S seconds (default: no limit)')
    parser.add_argument('--duration', type=float, metavar='S',
                        help='stop after S seconds (default: until Ctrl-C)')
    parser.add_argument('--no-foxglove', dest='foxglove', action='store_false',
                        help='do not write the Foxglove companion FILE.foxglove.mcap (the '
                             "channels 'bt-executive foxglove' serves, for opening the "
                             'recording in Foxglove); the bag itself is the same either way')
    parser.add_argument('--info', metavar='FILE',
                        help='print what a recording holds (channels, counts, duration, '
                             'whether it was finalised; FILE: an MCAP file, a rosbag2 '
                             'directory or its metadata.yaml) and exit')
    parser.add_argument('--recover', metavar='FILE',
                        help='write a finalised copy of a recording whose recorder was killed '
                             '(every complete message; its Foxglove companion too) to -o '
                             '(default FILE.recovered.mcap) and exit')


def run(args: argparse.Namespace) -> int:
    """Record (or, with ``--info``, describe a recording); return the exit code."""
    if args.info:
        return info(args.info)
    if args.recover:
        return recover_file(args.recover, args.output)
    from bt_executive.ros.recorder import parse_size, run as record
    try:
        max_size = parse_size(args.max_size)
    except ValueError:
        print(f'bt-executive record: --max-size: not a size: {args.max_size!r} '
              '(expected e.g. 500M, 2G, 1000000)', file=sys.stderr)
        return 2
    if args.max_duration < 0 or (args.duration is not None and args.duration <= 0):
        print('bt-executive record: --max-duration and --duration must be positive',
              file=sys.stderr)
        return 2
    return record(output=args.output or 'run.mcap', namespace=args.ns, node=args.node,
                  max_size=max_size,
                  max_duration=args.max_duration, duration=args.duration,
                  foxglove=args.foxglove)


def info(path: str) -> int:
    """Print what the recording ``path`` holds; 1 if it is not readable or was cut off.

    Beside an MCAP file, its Foxglove companion (``run.foxglove.mcap``) is described too.
    """
    from bt_executive.observe.bag import BagError, foxglove_name, read_bag  # mcap: here only

    try:
        bag = read_bag(path)
    except BagError as error:
        print(f'bt-executive record: {error}', file=sys.stderr)
        return 1
    _describe(path, bag)
    problems = [bag.truncated] if bag.truncated else []
    companion = foxglove_name(path)
    if os.path.isfile(path) and companion != path and os.path.isfile(companion):
        try:
            fox = read_bag(companion)
        except BagError as error:
            problems.append(str(error))
        else:
            print('Foxglove view (open it in Foxglove: Open local file):')
            _describe(companion, fox)
            if fox.truncated:
                problems.append(fox.truncated)
    for note in bag.notes:
        print(f'bt-executive record: {note}', file=sys.stderr)
    for problem in problems:
        print(f'bt-executive record: {problem}', file=sys.stderr)
    return 1 if problems else 0


def recovered_name(path: str) -> str:
    """Return the default name of the finalised copy (``run.mcap`` -> ``run.recovered.mcap``)."""
    stem, suffix = os.path.splitext(path)
    return f'{stem}.recovered{suffix or ".mcap"}'


def recover_file(path: str, output: Optional[str] = None) -> int:
    """Write a finalised copy of the killed recording ``path`` (and of its companion).

    Returns:
        0 when the copy was written (or ``path`` was finalised: nothing to do), 1 when
        ``path`` is not a readable MCAP file or the copy cannot be written.
    """
    from bt_executive.observe.bag import BagError, finalised, foxglove_name, recover

    target = output or recovered_name(path)
    pairs = [(path, target)]
    companion = foxglove_name(path)
    if companion != path and os.path.isfile(companion):
        pairs.append((companion, foxglove_name(target)))
    code = 0
    for source, copy in pairs:
        if os.path.abspath(source) == os.path.abspath(copy):
            print(f'bt-executive record: --recover {source}: the copy must be another file',
                  file=sys.stderr)
            return 2
        if finalised(source):
            print(f'{source}: finalised; nothing to recover')
            continue
        try:
            result = recover(source, copy)
        except BagError as error:
            print(f'bt-executive record: {error}', file=sys.stderr)
            code = 1
            continue
        cut = (f'; the last {result.lost_bytes} bytes were an unfinished record (the chunk '
               f'being written: {result.reason})' if result.lost_bytes else '')
        print(f'{source}: {result.messages} messages recovered to {copy}{cut}')
    return code


def _describe(path: str, bag: Bag) -> None:
    total = sum(bag.counts.values())
    files = f' in {len(bag.files)} files' if len(bag.files) > 1 else ''
    print(f'{path}: profile {bag.profile or "-"}, {total} messages{files}, '
          f'{bag.duration:.1f} s')
    for topic, (encoding, schema, schema_encoding) in sorted(bag.channels.items()):
        print(f'  {topic}  {schema} ({schema_encoding}, {encoding}): '
              f'{bag.counts.get(topic, 0)} messages')
