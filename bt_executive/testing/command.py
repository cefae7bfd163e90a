# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive test SCENARIOS.yaml ...``: run scenario files, report, measure coverage.

Exit status: 0 when every scenario passed (and the coverage reached ``--min-coverage``),
1 when one failed or the coverage is too low, 2 when a scenario file or its tree is
invalid (every problem printed as ``file:line:col: what was expected``). With
``--mutate`` (:mod:`bt_executive.testing.mutation`): 0 when the scenarios pass on the tree
and the mutation score reached ``--min-mutation-score``, 1 when not, 2 as above or when
an equivalent-mutant mark names no mutant.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Optional

from bt_executive.core.errors import TreeError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``bt-executive test``."""
    parser.add_argument('files', nargs='+', metavar='SCENARIOS.yaml',
                        help='scenario files (docs/testing.md)')
    parser.add_argument('-k', '--scenario', action='append', default=[], metavar='NAME',
                        help='run only the scenarios whose name contains NAME (repeatable)')
    parser.add_argument('--substitute', action='append', default=[], metavar='RULES.json',
                        help="substitute nodes' results in every scenario by BT.CPP-style "
                        'JSON rules (TestNodeConfigs, SubstitutionRules; docs/testing.md), '
                        "before the scenarios' own rules (repeatable)")
    parser.add_argument('--trace', action='store_true',
                        help='print every tick that moved something and every peer event, '
                        'with the simulated time, and the executive log')
    parser.add_argument('--coverage', action='store_true',
                        help='print which nodes never ran and which outcomes were never '
                        'seen')
    parser.add_argument('--json', metavar='PATH',
                        help='write the coverage as JSON (implies --coverage)')
    parser.add_argument('--xml', metavar='PATH',
                        help='write the coverage as Cobertura-style XML for CI tools '
                        '(implies --coverage)')
    parser.add_argument('--min-coverage', type=_percent, metavar='P',
                        help='fail when fewer than P percent of the nodes were reached '
                        '(implies --coverage)')
    group = parser.add_argument_group(
        'mutation testing', 'would the scenarios notice if the tree were wrong? '
        '(docs/testing.md)')
    group.add_argument('--mutate', action='store_true',
                       help='run the scenarios against mutants of the tree (one defect '
                       'each) and report the mutation score and every surviving mutant')
    group.add_argument('--mutate-limit', type=_positive, metavar='N',
                       help='run only N mutants, a sample drawn with --seed')
    group.add_argument('--operators', type=_operators, metavar='NAME,...',
                       help='apply only these mutation operators (default: all; '
                       'docs/testing.md lists them)')
    group.add_argument('--mutants', type=_numbers, metavar='N,...',
                       help="run only the mutants with these numbers (the report's #N), "
                       'e.g. the survivors of the last run')
    group.add_argument('--seed', type=int, default=0, metavar='N',
                       help='the seed of the --mutate-limit sample (default 0)')
    group.add_argument('--jobs', type=_positive, metavar='N',
                       help='worker processes (default: the number of CPUs)')
    group.add_argument('--mutation-json', metavar='PATH',
                       help='write the mutation report as JSON')
    group.add_argument('--min-mutation-score', type=_percent, metavar='P',
                       help='fail when fewer than P percent of the non-equivalent mutants '
                       'are killed')


def _percent(text: str) -> float:
    """Parse a percentage from 0 to 100 (``--min-coverage``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a percentage, got {text!r}') from None
    if not 0.0 <= value <= 100.0:  # also NaN
        raise argparse.ArgumentTypeError(f'expected a percentage from 0 to 100, got {text!r}')
    return value


def _positive(text: str) -> int:
    """Parse a whole number from 1 (``--mutate-limit``, ``--jobs``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a whole number, got {text!r}') from None
    if value < 1:
        raise argparse.ArgumentTypeError(f'expected a whole number from 1, got {text!r}')
    return value


def _numbers(text: str) -> frozenset[int]:
    """Parse ``--mutants 3,17``."""
    try:
        numbers = frozenset(int(part) for part in text.split(',') if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected mutant numbers like 3,17, got {text!r}') \
            from None
    if not numbers or min(numbers) < 1:
        raise argparse.ArgumentTypeError(f'expected mutant numbers from 1, got {text!r}')
    return numbers


def _operators(text: str) -> tuple[str, ...]:
    """Parse ``--operators swap,delete``."""
    from bt_executive.testing.mutation import parse_operators
    try:
        return parse_operators(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    """Run ``bt-executive test`` with parsed arguments; return the exit status."""
    from bt_executive.testing.coverage import Coverage
    from bt_executive.testing.harness import run_scenario
    from bt_executive.testing.spec import load_scenarios, load_substitution_file
    scenarios: list[Any] = []
    invalid = False
    rules: list[Any] = []
    for load, paths, into in ((load_substitution_file, args.substitute, rules),
                              (load_scenarios, args.files, scenarios)):
        for path in paths:
            try:
                into += load(path)
            except TreeError as error:
                print(error, file=sys.stderr)
                invalid = True
    if invalid:
        return 2
    for scenario in scenarios:  # the command line's rules first: the first match applies
        scenario.substitutes[:0] = rules
    if args.scenario:
        scenarios = [s for s in scenarios if any(part in s.name for part in args.scenario)]
        if not scenarios:
            print(f'no scenario name contains {" or ".join(args.scenario)}', file=sys.stderr)
            return 2
    measure = args.coverage or args.json or args.xml or args.min_coverage is not None
    mutation_only = [name for name, given in (
        ('--mutate-limit', args.mutate_limit is not None),
        ('--mutants', args.mutants is not None),
        ('--operators', args.operators is not None),
        ('--mutation-json', bool(args.mutation_json)),
        ('--min-mutation-score', args.min_mutation_score is not None)) if given]
    if args.mutate:
        if args.substitute:  # the workers read the scenario files again, not the options
            print('--mutate: not together with --substitute (write substitute_file: in the '
                  'scenario file instead)', file=sys.stderr)
            return 2
        if measure or args.trace:
            print('--mutate runs the scenarios on many trees: not together with --trace, '
                  '--coverage, --json, --xml or --min-coverage', file=sys.stderr)
            return 2
        return _mutate(args, scenarios)
    if mutation_only:
        print(f'{", ".join(mutation_only)}: only with --mutate', file=sys.stderr)
        return 2
    coverage: Optional[Coverage] = Coverage() if measure else None
    failed = broken = 0
    started = time.perf_counter()
    for scenario in scenarios:
        if args.trace:
            print(f'--- {scenario.id}')
        began = time.perf_counter()
        result = run_scenario(scenario, coverage=coverage,
                              log=print if args.trace else None)
        took = time.perf_counter() - began
        if result.error is not None:
            broken += 1
            print(f'ERROR  {scenario.id}\n{result.error}')
        elif result.failures:
            failed += 1
            print(f'FAIL   {scenario.id}  ({result.ticks} ticks, '
                  f'{_simulated(scenario.duration)} simulated in {took:.2f} s)')
            for failure in result.failures:
                print(_indent(failure))
        else:
            print(f'ok     {scenario.id}  ({result.ticks} ticks, '
                  f'{_simulated(scenario.duration)} simulated in {took:.2f} s)')
    total = time.perf_counter() - started
    passed = len(scenarios) - failed - broken
    print(f'{passed} passed, {failed} failed, {broken} could not run, in {total:.2f} s')
    status = 2 if broken else 1 if failed else 0
    if coverage is not None:
        print(coverage.text())
        for path, data in ((args.json, coverage.to_json), (args.xml, coverage.to_cobertura)):
            if path:
                with open(path, 'w', encoding='utf-8') as stream:
                    stream.write(data())
        if args.min_coverage is not None and coverage.percent() < args.min_coverage:
            print(f'coverage {coverage.percent():.1f} % is below --min-coverage '
                  f'{args.min_coverage:g} %')
            status = max(status, 1)
    return status


def _mutate(args: argparse.Namespace, scenarios: list[Any]) -> int:
    from bt_executive.testing.mutation import Options, run_command
    from bt_executive.testing.mutation_operators import OPERATOR_NAMES
    options = Options(operators=args.operators or OPERATOR_NAMES, limit=args.mutate_limit,
                      numbers=args.mutants,
                      seed=args.seed, jobs=args.jobs or os.cpu_count() or 1,
                      progress=sys.stderr)
    return run_command(scenarios, options, json_path=args.mutation_json,
                       min_score=args.min_mutation_score)


def _simulated(duration: int) -> str:
    return f'{duration / 1e9:g} s'


def _indent(text: str) -> str:
    return '\n'.join('    ' + line for line in text.splitlines())


__all__ = ['add_arguments', 'run']
