# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Mutation testing of trees: would the scenarios notice a broken tree.

``bt-executive test SCENARIOS --mutate`` (docs/testing.md) first runs every scenario on
the tree as written (the *baseline*: all must pass), recording which nodes each one
reaches. Then it makes the mutants of the tree under test
(:mod:`~bt_executive.testing.mutation_operators`: one realistic defect each, made on the
loaded tree description), writes each one as a copy of the tree files in a temporary
directory and runs the scenarios against it, in worker processes, on the scenarios'
simulated time. A mutant is

* **killed** when a scenario fails on it (an expectation, or the scenario could no longer
  run, e.g. it names a node the mutant deleted): the scenarios notice this defect;
* **killed by timeout** when a scenario on it takes longer than its timeout (wall clock,
  :func:`scenario_timeout`): the worker is killed and replaced, and the mutant counted
  apart;
* **survived** when every scenario passes on it -- a defect no scenario notices;
* **equivalent** when the scenario file marks it so, with a reason (not run);
* **not viable** when the mutated file does not load (left out of everything).

Only the scenarios whose baseline run reached the mutated node run against a mutant (one
that never reaches it runs the mutant exactly as the tree, the runs being deterministic),
cheapest first (fewest baseline ticks), and a mutant stops at its first failing
scenario. The mutation score is killed (timeouts included) over the mutants that are
neither equivalent nor not viable. The same files, seed and options give the same
mutants, numbered and run in the same order, and the same report.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from multiprocessing.connection import wait
import os
import random
import shutil
import sys
import tempfile
import time
from typing import Any, Callable, Optional, TextIO

from bt_executive.core.errors import Diagnostic, SourceLocation, TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import Registry
from bt_executive.core.yaml_source import load_file, YMap, YScalar, YSeq
from bt_executive.testing.mutation_operators import make_mutants, Mutant, mutated_file, \
    OPERATOR_NAMES
from bt_executive.testing.spec import Scenario
import yaml

#: The JSON report's schema name.
SCHEMA = 'bt_executive/mutation/1'
#: The outcomes of a mutant, in report order.
OUTCOMES = ('killed', 'timeout', 'survived', 'equivalent')
#: The least wall-clock time a scenario gets on a mutant, in seconds.
MIN_TIMEOUT = 20.0
#: A scenario's timeout on a mutant is this many times its baseline wall time (or more).
TIMEOUT_FACTOR = 10.0


def scenario_timeout(baseline_seconds: float) -> float:
    """Return the wall-clock timeout of a scenario on a mutant, from its baseline time."""
    return max(MIN_TIMEOUT, TIMEOUT_FACTOR * baseline_seconds)


# ---- equivalent mutants marked in scenario files --------------------------------------

@dataclasses.dataclass(frozen=True)
class Mark:
    """A scenario file's ``mutation: equivalent:`` entry: this mutant cannot be killed."""

    key: str
    reason: str
    loc: SourceLocation


def read_marks(path: str) -> list[Mark]:
    """Read the equivalent-mutant marks of a scenario file (none without a section).

    Raises:
        TreeError: with every problem found, located.
    """
    root = load_file(path)
    section = root.get('mutation') if isinstance(root, YMap) else None
    if section is None:
        return []
    errors: list[Diagnostic] = []
    marks: list[Mark] = []
    if not isinstance(section, YMap):
        raise TreeError.single(section.loc, 'mutation: expected a mapping with '
                               "'equivalent'")
    for key, _ in section.entries:
        if key.value != 'equivalent':
            errors.append(Diagnostic(key.loc, f"mutation: unknown key '{key.value}'; "
                                     'expected equivalent'))
    listed = section.get('equivalent')
    if listed is not None and not isinstance(listed, YSeq):
        errors.append(Diagnostic(listed.loc, 'mutation: equivalent: expected a list of '
                                 '{mutant: ..., reason: ...}'))
        listed = None
    for item in listed or ():
        texts = {}
        if isinstance(item, YMap):
            for key, value in item.entries:
                if key.value not in ('mutant', 'reason'):
                    errors.append(Diagnostic(key.loc, 'equivalent: unknown key '
                                             f"'{key.value}'; expected mutant, reason"))
                elif isinstance(value, YScalar) and isinstance(value.value, str) \
                        and value.value.strip():
                    texts[key.value] = value.value.strip()
        if set(texts) != {'mutant', 'reason'}:
            errors.append(Diagnostic(item.loc, 'equivalent: expected {mutant: NAME as the '
                                     'report prints it, reason: why no scenario can tell '
                                     'it from the tree}'))
            continue
        marks.append(Mark(texts['mutant'], texts['reason'], item.loc))
    if errors:
        raise TreeError(errors)
    return marks


# ---- results ----------------------------------------------------------------------------

@dataclasses.dataclass
class MutantResult:
    """What the scenarios made of one mutant.

    Attributes:
        number: the mutant's number (1-based, in generation order)
        mutant: the mutant
        outcome: one of :data:`OUTCOMES`
        scenario: the scenario that killed it
        detail: the first line of why (the failed expectation, the error)
        reason: why it is equivalent (the mark's reason)
        reached_by: the scenarios whose baseline run reached its node
    """

    number: int
    mutant: Mutant
    outcome: str = 'survived'
    scenario: str = ''
    detail: str = ''
    reason: str = ''
    reached_by: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class TreeMutation:
    """The mutation run of one tree under test."""

    file: str
    tree: str
    scenarios: list[str]
    results: list[MutantResult] = dataclasses.field(default_factory=list)
    generated: int = 0
    not_viable: int = 0
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        """Return how many mutants had ``outcome``."""
        return sum(1 for result in self.results if result.outcome == outcome)

    def score(self) -> float:
        """Return killed (timeouts included) over the non-equivalent mutants, in percent."""
        counted = len(self.results) - self.count('equivalent')
        killed = self.count('killed') + self.count('timeout')
        return 100.0 if not counted else 100.0 * killed / counted

    def survivors(self) -> list[MutantResult]:
        """Return the surviving mutants."""
        return [result for result in self.results if result.outcome == 'survived']


def total_score(runs: list[TreeMutation]) -> float:
    """Return the mutation score over every tree, in percent (100 without mutants)."""
    counted = sum(len(r.results) - r.count('equivalent') for r in runs)
    killed = sum(r.count('killed') + r.count('timeout') for r in runs)
    return 100.0 if not counted else 100.0 * killed / counted


# ---- worker processes -------------------------------------------------------------------

def _serve(connection: Any) -> None:
    """Run the jobs the parent sends, one at a time (in a worker process)."""
    from bt_executive.testing.coverage import Coverage
    from bt_executive.testing.harness import run_scenario
    from bt_executive.testing.spec import load_scenarios
    loaded: dict[str, dict[str, Scenario]] = {}
    while True:
        job = connection.recv()
        if job is None:
            return
        for index, (file, name) in enumerate(job['scenarios']):
            if file not in loaded:
                loaded[file] = {s.name: s for s in load_scenarios(file)}
            scenario = loaded[file][name]
            if job['tree'] is not None:  # a mutant: its first failure decides
                scenario = dataclasses.replace(scenario, tree_file=job['tree'],
                                               stop_at_first_failure=True)
            connection.send(('start', index))
            coverage = Coverage() if job['coverage'] else None
            began = time.perf_counter()
            result = run_scenario(scenario, coverage=coverage)
            took = time.perf_counter() - began
            reached = sorted({(os.path.abspath(node.file), node.line, node.column)
                              for count in (coverage.trees.values() if coverage else ())
                              for node in count.nodes.values() if node.reached})
            why = str(result.error) if result.error is not None else \
                result.failures[0] if result.failures else ''
            connection.send(('scenario', index, {
                'passed': result.passed, 'error': result.error is not None,
                'why': why, 'ticks': result.ticks, 'seconds': took, 'reached': reached}))
            if job['stop_at_failure'] and not result.passed:
                break
        connection.send(('end', None))


@dataclasses.dataclass
class _Job:
    """Scenarios to run, in order, on a tree file (None: as the scenarios name it)."""

    tree: Optional[str]
    scenarios: list[tuple[str, str]]
    coverage: bool = False
    stop_at_failure: bool = True
    timeouts: Optional[list[float]] = None
    #: per scenario run: the worker's report; ``{'timeout': True}`` when it was killed
    results: list[dict[str, Any]] = dataclasses.field(default_factory=list)


class _Worker:
    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.job: Optional[_Job] = None
        self.deadline: Optional[float] = None

    def send(self, job: _Job) -> None:
        self.job = job
        self.deadline = None
        self.connection.send({'tree': job.tree, 'scenarios': job.scenarios,
                              'coverage': job.coverage,
                              'stop_at_failure': job.stop_at_failure})

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.kill()


def _run_jobs(jobs: list[_Job], workers: int, done: Callable[[int], None]) -> None:
    """Run the jobs on up to ``workers`` processes; call ``done(index)`` as each ends.

    A scenario that passes its job's timeout has its worker killed (and a new one
    started) and ``{'timeout': True}`` as its result.
    """
    context = multiprocessing.get_context('spawn')
    pending = list(range(len(jobs)))
    pending.reverse()
    pool: list[_Worker] = []
    running: dict[int, int] = {}  # id(worker) -> job index
    try:
        while pending or running:
            while pending and len(running) < workers:
                idle = [w for w in pool if id(w) not in running]
                worker = idle[0] if idle else _Worker(context)
                if not idle:
                    pool.append(worker)
                index = pending.pop()
                worker.send(jobs[index])
                running[id(worker)] = index
            busy = [w for w in pool if id(w) in running]
            deadlines = [w.deadline for w in busy if w.deadline is not None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            ready = wait([w.connection for w in busy], timeout=timeout)
            for worker in busy:
                index = running[id(worker)]
                job = jobs[index]
                if worker.connection in ready:
                    try:
                        kind, position, *rest = worker.connection.recv()
                    except EOFError:
                        raise RuntimeError('a mutation worker process died') from None
                    if kind == 'start':
                        limits = job.timeouts
                        worker.deadline = None if limits is None else \
                            time.monotonic() + limits[position]
                    elif kind == 'scenario':
                        worker.deadline = None
                        job.results.append(rest[0])
                    else:
                        del running[id(worker)]
                        worker.job = None
                        done(index)
                elif worker.deadline is not None and time.monotonic() >= worker.deadline:
                    worker.kill()
                    pool.remove(worker)
                    del running[id(worker)]
                    job.results.append({'timeout': True})
                    done(index)
    finally:
        for worker in pool:
            if id(worker) in running:
                worker.kill()
            else:
                worker.stop()


# ---- progress ---------------------------------------------------------------------------

class Progress:
    """A progress bar with an ETA on a terminal, a line per tenth otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.done = 0
        self._last_tenth = 0

    def step(self, counts: dict[str, int]) -> None:
        """Note one more mutant done."""
        self.done += 1
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        summary = ', '.join(f'{counts.get(name, 0)} {name}' for name in OUTCOMES[:3])
        if self.tty:
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(f'\r[{"#" * filled}{"." * (width - filled)}] '
                              f'{self.done}/{self.total} mutants ({summary}), '
                              f'ETA {_duration(eta)}  ')
            if self.done == self.total:
                self.stream.write('\n')
            self.stream.flush()
            return
        tenth = 10 * self.done // max(self.total, 1)
        if tenth > self._last_tenth or self.done == self.total:
            self._last_tenth = tenth
            self.stream.write(f'{self.done}/{self.total} mutants ({summary}), '
                              f'{_duration(elapsed)} so far, ETA {_duration(eta)}\n')
            self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f'{seconds // 60}m{seconds % 60:02d}s' if seconds >= 60 else f'{seconds}s'


# ---- the run ------------------------------------------------------------------------------

@dataclasses.dataclass
class Options:
    """How to mutate (the ``--mutate`` options).

    Attributes:
        operators: the operators to apply
        limit: run at most this many mutants (a sample drawn with ``seed``), None: all
        seed: the seed of the sample
        jobs: worker processes
        progress: where the progress goes (None: nowhere)
        numbers: run only the mutants with these numbers (the reports' ``#N``), None: all
    """

    operators: tuple[str, ...] = OPERATOR_NAMES
    limit: Optional[int] = None
    numbers: Optional[frozenset[int]] = None
    seed: int = 0
    jobs: int = 2
    progress: Optional[TextIO] = None


@dataclasses.dataclass
class Baseline:
    """The scenarios on the tree as written: what each reached and how long it took."""

    passed: bool
    lines: list[str]
    ticks: dict[str, int]
    seconds: dict[str, float]
    reached: dict[str, set[tuple[str, int, int]]]


def run_baseline(scenarios: list[Scenario], jobs: int) -> Baseline:
    """Run every scenario on the tree as written (in workers), with coverage."""
    work = [_Job(tree=None, scenarios=[(s.file, s.name)], coverage=True) for s in scenarios]
    _run_jobs(work, jobs, lambda index: None)
    baseline = Baseline(True, [], {}, {}, {})
    for scenario, job in zip(scenarios, work):
        (report,) = job.results
        baseline.ticks[scenario.id] = report['ticks']
        baseline.seconds[scenario.id] = report['seconds']
        baseline.reached[scenario.id] = {tuple(item) for item in report['reached']}
        if report['passed']:
            baseline.lines.append(f'ok     {scenario.id}  ({report["ticks"]} ticks in '
                                  f'{report["seconds"]:.2f} s)')
        else:
            baseline.passed = False
            baseline.lines.append(f'FAIL   {scenario.id}\n' + _indent(report['why']))
    return baseline


def mutate(scenarios: list[Scenario], registry: Registry, options: Options,
           baseline: Baseline) -> list[TreeMutation]:
    """Make the mutants of each tree under test and run the scenarios against them.

    Raises:
        TreeError: an equivalent mark names no mutant, or a mark cannot be read.
    """
    groups: dict[tuple[str, str], list[Scenario]] = {}
    for scenario in scenarios:
        key = (os.path.abspath(scenario.tree_file), scenario.tree_name)
        groups.setdefault(key, []).append(scenario)
    runs: list[TreeMutation] = []
    jobs: list[_Job] = []
    owners: list[tuple[TreeMutation, MutantResult]] = []
    with tempfile.TemporaryDirectory(prefix='bt_mutants_') as scratch:
        for number, members in enumerate(groups.values()):
            run, run_jobs = _plan(members, registry, options, baseline,
                                  os.path.join(scratch, f'tree{number}'))
            runs.append(run)
            for job, result in run_jobs:
                jobs.append(job)
                owners.append((run, result))
        counts: dict[str, int] = {}
        progress = Progress(len(jobs), options.progress) if options.progress and jobs \
            else None
        started = time.monotonic()

        def done(index: int) -> None:
            result = owners[index][1]
            _judge(result, jobs[index])
            counts[result.outcome] = counts.get(result.outcome, 0) + 1
            if progress is not None:
                progress.step(counts)

        _run_jobs(jobs, options.jobs, done)
        took = time.monotonic() - started
    for run in runs:
        run.seconds = took
    return runs


def _plan(members: list[Scenario], registry: Registry, options: Options, baseline: Baseline,
          scratch: str) -> tuple[TreeMutation, list[tuple[_Job, MutantResult]]]:
    """Make the mutants of one tree under test; return its run and the jobs to do."""
    first = members[0]
    document = Loader(registry).load(first.tree_file)
    tree = document.tree(first.tree_name or None)
    run = TreeMutation(file=first.tree_file, tree=tree.name,
                       scenarios=[s.id for s in members])
    everything = make_mutants(document, registry, tree.name)
    marks: dict[str, Mark] = {}
    for file in dict.fromkeys(s.file for s in members):
        for mark in read_marks(file):
            marks[mark.key] = mark
    known = {mutant.key for mutant in everything}
    stale = [Diagnostic(mark.loc, f"equivalent: no mutant '{mark.key}' (the tree changed? "
                        'the report names every surviving mutant)')
             for mark in marks.values() if mark.key not in known]
    if stale:
        raise TreeError(stale)
    chosen = [(number, mutant) for number, mutant in enumerate(everything, 1)
              if mutant.operator in options.operators
              and (options.numbers is None or number in options.numbers)]
    run.generated = len(chosen)
    if options.limit is not None:
        chosen = [chosen[index] for index in sample(len(chosen), options.limit, options.seed)]
    files = [os.path.abspath(f) for f in document.files]
    top = os.path.commonpath([os.path.dirname(f) for f in files])
    main = os.path.relpath(os.path.abspath(first.tree_file), top)
    texts = {file: _read(file) for file in files}
    jobs: list[tuple[_Job, MutantResult]] = []
    for number, mutant in chosen:
        result = MutantResult(number, mutant)
        site = (os.path.abspath(mutant.site.file), mutant.site.line, mutant.site.column)
        reaching = sorted((s for s in members if site in baseline.reached.get(s.id, ())),
                          key=lambda s: (baseline.ticks[s.id], s.id))
        result.reached_by = [s.id for s in reaching]
        marked = marks.get(mutant.key)
        if marked is not None:
            result.outcome, result.reason = 'equivalent', marked.reason
            run.results.append(result)
            continue
        folder = os.path.join(scratch, f'm{number}')
        changed = os.path.abspath(mutant.mutated.file)
        for file in files:
            target = os.path.join(folder, os.path.relpath(file, top))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'w', encoding='utf-8') as stream:
                if file == changed:
                    yaml.safe_dump(mutated_file(mutant, _plain), stream, sort_keys=False,
                                   allow_unicode=True, width=1000)
                else:
                    stream.write(texts[file])
        tree_file = os.path.join(folder, main)
        try:
            Loader(registry).load(tree_file)
        except TreeError:
            run.not_viable += 1
            shutil.rmtree(folder, ignore_errors=True)
            continue
        run.results.append(result)
        if not reaching:
            result.detail = 'no scenario reaches the node'
            continue
        jobs.append((_Job(tree=tree_file, scenarios=[(s.file, s.name) for s in reaching],
                          timeouts=[scenario_timeout(baseline.seconds[s.id])
                                    for s in reaching]), result))
    return run, jobs


def sample(count: int, limit: int, seed: int) -> list[int]:
    """Return which of ``count`` mutants ``--mutate-limit`` runs: indexes, in order.

    The same count, limit and seed give the same indexes (a seeded ``random.Random``).
    """
    if limit >= count:
        return list(range(count))
    return sorted(random.Random(seed).sample(range(count), limit))


def _read(path: str) -> str:
    with open(path, encoding='utf-8') as stream:
        return stream.read()


def _plain(path: str) -> Any:
    root = load_file(path)
    return root.plain() if root is not None else {}


def _judge(result: MutantResult, job: _Job) -> None:
    """Set a mutant's outcome from its scenario runs."""
    for position, report in enumerate(job.results):
        scenario = result.reached_by[position]
        if report.get('timeout'):
            result.outcome, result.scenario = 'timeout', scenario
            result.detail = 'killed at the timeout'
            return
        if not report['passed']:
            result.outcome, result.scenario = 'killed', scenario
            result.detail = report['why'].splitlines()[0] if report['why'] else ''
            return
    result.outcome = 'survived'


# ---- reports ------------------------------------------------------------------------------

def text_report(runs: list[TreeMutation], *, seconds: Optional[float] = None) -> str:
    """Return the report for people: counts, score, every survivor as a diff of the tree."""
    lines = []
    for run in runs:
        lines.append(f'mutation testing of {run.tree} ({run.file}): {len(run.results)} '
                     f'mutants of {run.generated} ({run.not_viable} not viable), '
                     f'{len(run.scenarios)} scenarios')
        lines.append(f'  killed {run.count("killed")}, killed by timeout '
                     f'{run.count("timeout")}, survived {run.count("survived")}, '
                     f'equivalent {run.count("equivalent")}: mutation score '
                     f'{run.score():.1f} %')
        survivors = run.survivors()
        if survivors:
            lines.append('  surviving mutants:')
        for result in survivors:
            mutant = result.mutant
            lines.append(f'    #{result.number} {mutant.operator}  {mutant.loc}  {mutant.node}')
            lines.append(f'      - {mutant.before}')
            lines.append(f'      + {mutant.after}')
            reached = ', '.join(s.split('::', 1)[-1] for s in result.reached_by)
            lines.append(f'      reached by: {reached or "no scenario"}')
            lines.append('      if no scenario can tell it from the tree, mark it in the '
                         'scenario file:')
            lines.append(f'        - {{mutant: {_quoted(mutant.key)}, reason: ...}}')
    lines.append(f'total: mutation score {total_score(runs):.1f} %'
                 + (f' in {seconds:.1f} s' if seconds is not None else ''))
    return '\n'.join(lines)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def json_report(runs: list[TreeMutation], options: Options) -> str:
    """Return the JSON report (schema ``bt_executive/mutation/1``, docs/testing.md)."""
    trees = []
    for run in runs:
        trees.append({
            'file': run.file, 'tree': run.tree, 'scenarios': run.scenarios,
            'generated': run.generated, 'not_viable': run.not_viable,
            'counts': {outcome: run.count(outcome) for outcome in OUTCOMES},
            'score': round(run.score(), 3),
            'mutants': [{'number': r.number, 'key': r.mutant.key,
                         'operator': r.mutant.operator, 'file': r.mutant.loc.file,
                         'line': r.mutant.loc.line, 'column': r.mutant.loc.column,
                         'node': r.mutant.node, 'before': r.mutant.before,
                         'after': r.mutant.after, 'outcome': r.outcome,
                         'scenario': r.scenario, 'detail': r.detail, 'reason': r.reason,
                         'reached_by': r.reached_by} for r in run.results]})
    return json.dumps({'schema': SCHEMA, 'seed': options.seed,
                       'operators': list(options.operators), 'limit': options.limit,
                       'numbers': sorted(options.numbers) if options.numbers else None,
                       'score': round(total_score(runs), 3), 'trees': trees},
                      indent=1) + '\n'


def _indent(text: str) -> str:
    return '\n'.join('    ' + line for line in text.splitlines())


def run_command(scenarios: list[Scenario], options: Options, *,
                json_path: Optional[str] = None, min_score: Optional[float] = None,
                out: Callable[[str], None] = print) -> int:
    """Run ``bt-executive test --mutate``; return the exit status (docs/testing.md)."""
    from bt_executive.nodes.plugins import installed_registry
    import rclpy  # noqa: F401 - set up the ROS libraries here, before the workers start
    registry = installed_registry(offline=True)
    started = time.monotonic()
    baseline = run_baseline(scenarios, options.jobs)
    for line in baseline.lines:
        out(line)
    if not baseline.passed:
        out('the scenarios must pass on the tree as written before its mutants can be '
            'judged')
        return 1
    try:
        runs = mutate(scenarios, registry, options, baseline)
    except TreeError as error:
        print(error, file=sys.stderr)
        return 2
    out(text_report(runs, seconds=time.monotonic() - started))
    if json_path:
        with open(json_path, 'w', encoding='utf-8') as stream:
            stream.write(json_report(runs, options))
    score = total_score(runs)
    if min_score is not None and score < min_score:
        out(f'mutation score {score:.1f} % is below --min-mutation-score {min_score:g} %')
        return 1
    return 0


def parse_operators(text: str) -> tuple[str, ...]:
    """Parse ``--operators swap,delete``.

    Raises:
        ValueError: naming the unknown operators and the known ones.
    """
    names = tuple(name.strip() for name in text.split(',') if name.strip())
    unknown = [name for name in names if name not in OPERATOR_NAMES]
    if unknown or not names:
        raise ValueError(f'unknown operator {", ".join(unknown) or "(none given)"}; '
                         f'expected some of {", ".join(OPERATOR_NAMES)}')
    return tuple(name for name in OPERATOR_NAMES if name in names)


__all__ = ['Baseline', 'Mark', 'MutantResult', 'OUTCOMES', 'Options', 'Progress', 'SCHEMA',
           'TreeMutation', 'json_report', 'mutate', 'parse_operators', 'read_marks',
           'run_baseline', 'run_command', 'sample', 'scenario_timeout', 'text_report',
           'total_score']
