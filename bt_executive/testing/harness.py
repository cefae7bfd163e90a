# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Run a scenario: the real executive and the scripted peers in lock-step on simulated time.

One process, one rclpy context, one single-threaded executor: the executive node (its
tree host, the real ROS leaves, the blackboard feed from subscriptions) and the peer
node. The executive runs without its services (``Executive(services=False)``: the
harness drives it through its methods) and without the pause after a tick that sent
something (it gives other processes' receivers time; here everything is in the one
executor). The context's DDS participant discovers nothing outside
the process (``ROS_AUTOMATIC_DISCOVERY_RANGE=OFF`` for this context), so no other process
on the machine can disturb a run, whatever ``ROS_DOMAIN_ID`` it uses; within the
participant Fast DDS matches endpoints and delivers messages synchronously.

The run is a discrete-event simulation. Time moves from one *step* to the next: a
scripted peer action, a tick the executive's tick mode calls for, an expectation's time,
the end. At each step the harness sets the ROS time of every node on simulated time
(``use_sim_time`` is on) -- the call rclpy's time source makes for each /clock message,
without the message: one DDS delivery and one executor wait less per step, and every
timer on the ROS clock sees the jump as it would -- and spins until the executor has
nothing left to do (every message, request and response in flight has been handled),
runs the peer actions due (spinning after each), ticks the tree if a tick is due --
through :meth:`~bt_executive.ros.executive.Executive.tick_once`, the executive's own tick
path (tree host, ``TreeRunner.tick_once``, observers) -- spins again and checks the
expectations. When a tick is due follows the executive's ``tick_mode``: ``periodic``
ticks every ``1 / tick_rate`` simulated seconds; ``event`` ticks on the leaves' and the
feed's requests, after a tick that did not settle, at the deadlines of time-based nodes
and on the heartbeat, never closer than ``1 / max_tick_rate`` -- all in simulated time
(:class:`LockstepTicker`). A 10-minute scenario therefore takes as many steps as things
happen in it, and the same steps every run.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
from typing import Any, Callable, Optional

from bt_executive.core.errors import Diagnostic, TreeError
from bt_executive.core.schedule import EventSchedule
from bt_executive.observe.debugger import DebugController
from bt_executive.observe.record import TickRecord
from bt_executive.ros.executive import Executive
from bt_executive.testing import expect
from bt_executive.testing.coverage import Coverage, CoverageObserver
from bt_executive.testing.peers import PEER_CLASSES, Recorder, Schedule
from bt_executive.testing.spec import Operation, Scenario, seconds
from bt_executive.testing.substitute import Substituter
import py_trees
from py_trees.common import Status
import rclpy
from rclpy.clock import ClockType
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, ShutdownException, \
    SingleThreadedExecutor, TimeoutException
import rclpy.logging
from rclpy.parameter import Parameter
from rclpy.time import Time

#: ROS time of the scenario's t = 0 (a zero stamp means "no time" to many nodes).
EPOCH = 1000 * 10 ** 9
#: Callbacks run in one spin before the harness calls the system livelocked.
MAX_CALLBACKS_PER_SPIN = 100_000
#: Steps a scenario may take (a tree that never settles, ticking at max_tick_rate).
MAX_STEPS = 2_000_000

_ENV_LOCK = threading.Lock()


@dataclasses.dataclass
class ScenarioResult:
    """What a scenario run found.

    Attributes:
        scenario: the scenario
        failures: one text per failed expectation (empty: passed)
        ticks: the ticks of the tree
        trace: one line per tick that moved something and per peer event (same every run)
        error: a scenario or tree that could not run (located)
    """

    scenario: Scenario
    failures: list[str] = dataclasses.field(default_factory=list)
    ticks: int = 0
    trace: list[str] = dataclasses.field(default_factory=list)
    error: Optional[TreeError] = None

    @property
    def passed(self) -> bool:
        """Tell whether every expectation held."""
        return self.error is None and not self.failures


class LockstepTicker:
    """The executive's ticker under the harness: it only notes, the harness decides.

    A :class:`~bt_executive.ros.ticking.Ticker`; :meth:`next_tick` says when the next
    tick is due, in scenario nanoseconds, the way ``periodic`` or ``event`` ticking would:
    event ticking by the executive's own rule
    (:class:`~bt_executive.core.schedule.EventSchedule`), in simulated time.
    """

    def __init__(self, *, event_driven: bool, period: float, min_interval: float,
                 heartbeat: float) -> None:
        self.event_driven = event_driven
        self.period = None if event_driven else period
        self.interval: Optional[float] = min_interval if event_driven else period
        self._period = _ns(period)
        self.schedule = EventSchedule(min_interval=_ns(min_interval), heartbeat=_ns(heartbeat))
        self.requested = True  # the first tick
        self.again = False
        self.deadline: Optional[int] = None
        self._last: Optional[int] = None

    @property
    def last(self) -> Optional[int]:
        """Return when the last tick was (scenario ns), None before the first."""
        return self._last

    @last.setter
    def last(self, when: Optional[int]) -> None:
        self._last = when
        if when is not None:
            self.schedule.ticked(when, asked=self._asked)

    def request(self, source: Any = None) -> None:
        """Note a request for a tick (from a leaf or the blackboard feed)."""
        self.requested = True

    def request_now(self, source: Any = None) -> None:
        """Note a request for a tick, as :meth:`request`."""
        self.requested = True

    def ticked(self, start: float) -> Optional[float]:
        """Forget the requests: the tick answers them."""
        self._asked = self.requested or self.again
        self.requested = False
        return None

    def plan(self, *, again: bool, deadline: Optional[float]) -> None:
        """Note what the executive planned after a tick (node-clock seconds)."""
        self.again = again
        self.deadline = None if deadline is None else _ns(deadline) - EPOCH

    def explain(self, record: Any, name: Callable[[Any], str], *, settled: bool,
                deadline: Optional[float]) -> str:
        """Describe a tick for the executive's debug log."""
        return f'#{record.tick} (scenario harness): root {record.root_status.name}'

    def destroy(self) -> None:
        """Nothing to release."""

    def next_tick(self) -> Optional[int]:
        """Return when the next tick is due (scenario ns), or None."""
        if self.last is None:
            return 0
        if not self.event_driven:
            return self.last + self._period
        return int(self.schedule.next_tick(requested=self.requested, again=self.again,
                                           deadline=self.deadline))

    _asked = True


def _ns(value: float) -> int:
    return int(round(value * 1e9))


class _Run:
    """One run of one scenario (see the module docstring)."""

    def __init__(self, scenario: Scenario, coverage: Optional[Coverage],
                 log: Optional[Callable[[str], None]]) -> None:
        self.scenario = scenario
        self.coverage = coverage
        self.log_line = log
        self.result = ScenarioResult(scenario)
        self.schedule = Schedule()
        self.context: Any = None
        self.executor: Any = None
        self.nodes: list[Any] = []
        self.executive: Any = None
        self.peers: dict[tuple[str, str], Any] = {}
        self.recorders: dict[str, Recorder] = {}
        self.ticker: Optional[LockstepTicker] = None
        self.last_record: Optional[TickRecord] = None
        self.substituter: Optional[Substituter] = None
        self.sim_clocks: list[Any] = []
        self._order: dict[str, int] = {}

    # ---- the trace --------------------------------------------------------------------

    def trace(self, text: str) -> None:
        line = f'{seconds(self.schedule.now):10.3f}  {text}'
        self.result.trace.append(line)
        if self.log_line is not None:
            self.log_line(line)

    def on_tick(self, record: TickRecord) -> None:
        """Observer: note the transitions of each tick in the trace."""
        if record.stopped:
            return
        self.last_record = record
        for note in record.debug:  # substitutions begun and ended (substitute:)
            self.trace(f'tick {record.tick}: {note.text}')
        # in tree order: the tracker finds the nodes a halt stopped in no set order
        moved = sorted(record.transitions, key=lambda c: self._order.get(c.id, 0))
        if moved:
            parts = [f'{c.id.rsplit("/", 1)[-1]} {c.new.name}'
                     + (f' ({c.reason})' if c.new is Status.FAILURE and c.reason else '')
                     for c in moved]
            self.trace(f'tick {record.tick}: ' + '; '.join(parts))

    # ---- set-up -----------------------------------------------------------------------

    def start(self) -> None:
        with _ENV_LOCK:
            saved = os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE')
            os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'OFF'
            try:
                self.context = rclpy.Context()
                rclpy.init(context=self.context, domain_id=_domain())
            finally:
                if saved is None:
                    del os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE']
                else:
                    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = saved
        self.executor = SingleThreadedExecutor(context=self.context)
        # Nothing outside the process talks to these nodes: no parameter, type description
        # or rosout entities, so each wait of the executor (several per simulated step)
        # looks at fewer of them.
        quiet: dict[str, Any] = {
            'context': self.context, 'start_parameter_services': False,
            'enable_rosout': False,
            'parameter_overrides': [Parameter('start_type_description_service', value=False)]}
        self.peer_node = rclpy.create_node('scenario_peers', **quiet)
        self.nodes = [self.peer_node]
        overrides = [Parameter('use_sim_time', value=True),
                     Parameter('start_type_description_service', value=False),
                     Parameter('tree_file', value=self.scenario.tree_file),
                     Parameter('tree_name', value=self.scenario.tree_name)]
        overrides += [Parameter(name, value=value)
                      for name, value in self.scenario.parameters.items()
                      if name not in ('tree_file', 'tree_name', 'use_sim_time')]
        rclpy.logging.set_logger_level(
            'bt_executive', rclpy.logging.LoggingSeverity.INFO if self.log_line is not None
            else rclpy.logging.LoggingSeverity.FATAL)
        try:
            self.executive = Executive(parameter_overrides=overrides, context=self.context,
                                       services=False, give_way_after_send=False)
        except TreeError:
            raise
        except (ParameterException, TypeError, ValueError) as error:
            raise TreeError.single(self.scenario.loc, f'parameters: {error}') from None
        self.nodes.append(self.executive)
        # the harness decides when to tick: the executive's own ticker goes before any spin
        params = self.executive.get_parameter
        self.ticker = LockstepTicker(
            event_driven=params('tick_mode').value == 'event',
            period=1.0 / params('tick_rate').value,
            min_interval=1.0 / params('max_tick_rate').value,
            heartbeat=params('heartbeat_period').value)
        assert self.executive.core is not None
        self.executive.core.use_ticker(self.ticker)
        # the peers are found before simulated time starts: the leaves' discovery waits
        # need no wall-time floor here, and a run must not depend on the machine's speed
        self.executive.core.steady_clock = self.executive.core.now_seconds
        for node in self.nodes:
            self.executor.add_node(node)
        #: the clocks each step sets: those of the nodes on simulated time
        self.sim_clocks = [node.get_clock() for node in self.nodes
                           if node.get_parameter('use_sim_time').value]
        self.set_clock()
        for peer in self.scenario.peers:
            self.peers[(peer.kind, peer.name)] = PEER_CLASSES[peer.kind](
                peer, self.peer_node, self.schedule, self.trace)
        self.spin()
        tree = self.executive.host.tree
        assert tree is not None
        for key, value in self.scenario.blackboard.items():
            py_trees.blackboard.Blackboard.set('/' + key.lstrip('/'), value)
        self.checker = expect.Checker(self.scenario, tree, self)
        problems = self.checker.resolve()
        problems += self._substitute(tree)
        for name, msg_class in self.checker.published_types(problems).items():
            self.recorders[name] = Recorder(self.peer_node, name, msg_class, self.schedule)
        if problems:
            raise TreeError(sorted(problems, key=lambda p: (p.location.line,
                                                            p.location.column)))
        self._watch(tree)
        for operation in self.scenario.operations:
            self.schedule.at(operation.at, functools.partial(self.operate, operation))
        self.spin()

    def _substitute(self, tree: Any) -> list[Diagnostic]:
        """Give a tree (the first, a swapped-in one) the scenario's substitution rules.

        They go through the debugger of the tree's revision: the executive's own when
        ``debug`` is on, else one made here. Returns the patterns that match no node.
        """
        if not self.scenario.substitutes:
            return []
        core = self.executive.core
        debugger = core.debugger or DebugController(
            tree.built, tree.runner, lookup=tree.feed.lookup, storage=core.blackboard_storage)
        assert self.ticker is not None
        self.substituter = Substituter(self.scenario.substitutes, tree, debugger,
                                       self.schedule, self.ticker.request)
        return self.substituter.resolve()

    def _watch(self, tree: Any) -> None:
        """Trace a tree's ticks and count its coverage (the first tree, a swapped-in one)."""
        self._order = {ident: index for index, (_, ident, _, _)
                       in enumerate(tree.runner.tracker.order)}
        tree.runner.add_observer(self)
        substituter = self.substituter
        if substituter is not None:
            tree.runner.add_observer(substituter)  # before coverage: it reads .substituted
            substituter.start()
        if self.coverage is not None:
            tree.runner.add_observer(CoverageObserver(
                self.coverage, tree, self.scenario,
                skip=None if substituter is None else lambda: substituter.substituted))

    def operate(self, operation: Operation) -> None:
        """Do what the operator does at this step, through the executive's own controls."""
        core = self.executive.core
        self.trace(f'operator: {operation.do} {operation.tree}'.rstrip())
        before = self.executive.host.tree
        if operation.do == 'swap':
            result = self.executive.set_parameters(
                [Parameter('tree_file', value=operation.tree)])[0]
            if not result.successful:
                raise TreeError.single(operation.loc, f'swap refused: {result.reason}')
        elif operation.do == 'deactivate':  # the lifecycle's transition of the tree
            core.hold('deactivated')
        elif operation.do == 'activate':
            core.start_ticking()
            core.use_ticker(self.ticker)  # start_ticking made a real one: the harness ticks
            core.request_tick('activate')
        else:
            getattr(core, operation.do)()
        tree = self.executive.host.tree
        if tree is not None and tree is not before:  # a swap or a reload
            self.checker.follow(tree)
            problems = self._substitute(tree)  # the rules are the scenario's: they follow
            if problems:
                raise TreeError(problems)
            self._watch(tree)

    # ---- spinning and time --------------------------------------------------------------

    def spin(self) -> None:
        """Run callbacks until none is ready: every message in flight has been handled."""
        executor = self.executor
        total = 0
        while True:
            ran = 0
            try:
                while True:
                    handler, _, _ = executor.wait_for_ready_callbacks(timeout_sec=0.0)
                    handler()
                    error = handler.exception()
                    if error is not None:
                        raise error
                    ran += 1
            except TimeoutException:
                pass
            except (ShutdownException, ExternalShutdownException):
                return
            total += ran
            if ran == 0:
                return
            if total > MAX_CALLBACKS_PER_SPIN:
                raise RuntimeError(f'more than {MAX_CALLBACKS_PER_SPIN} callbacks at '
                                   f't={seconds(self.schedule.now):.3f} s without quiet: '
                                   'a livelock between the tree and the peers?')

    def set_clock(self) -> None:
        """Set the simulated time of the current step on every node, then spin."""
        now = Time(nanoseconds=EPOCH + self.schedule.now, clock_type=ClockType.ROS_TIME)
        for clock in self.sim_clocks:
            clock.set_ros_time_override(now)
        self.spin()

    # ---- the run ----------------------------------------------------------------------

    def run(self) -> ScenarioResult:
        scenario = self.scenario
        ticker = self.ticker
        assert ticker is not None
        marks = sorted(self.checker.times() | {scenario.duration})
        steps = 0
        while True:
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError(f'more than {MAX_STEPS} steps: does the tree ever settle?')
            self.set_clock()
            now = self.schedule.now
            self.run_due()
            due = ticker.next_tick()
            if due is not None and due <= now:
                record = self.executive.tick_once()  # None: the tree terminated
                ticker.last = now
                self.spin()
                self.run_due()
                self.result.ticks += record is not None
            self.checker.step(now, last=now >= scenario.duration)
            if now >= scenario.duration:
                break
            candidates = [when for when in (self.schedule.next_time(), ticker.next_tick())
                          if when is not None]
            candidates += [mark for mark in marks if mark > now][:1]
            self.schedule.now = max(now + 1, min(candidates))
        self.result.failures = self.checker.failures
        return self.result

    def run_due(self) -> None:
        while True:
            action = self.schedule.pop_due()
            if action is None:
                return
            action()
            self.spin()

    # ---- what expectations read --------------------------------------------------------

    def records(self, kind: str, name: str) -> list[Any]:
        """Return the goals, calls or messages a peer or recorder got."""
        if kind == 'published':
            recorder = self.recorders.get(name)
            return recorder.records if recorder is not None else []
        kinds = {'goal': ('action', 'topic_action'), 'call': ('service',)}[kind]
        for peer_kind in kinds:
            peer = self.peers.get((peer_kind, name))
            if peer is not None:
                return peer.records
        return []

    def tick_count(self) -> int:
        """Return the ticks so far."""
        return self.result.ticks

    # ---- tear-down ----------------------------------------------------------------------

    def close(self) -> None:
        try:
            if self.executive is not None:
                tree = self.executive.host.tree
                if tree is not None:  # the final halt is not part of the scenario
                    tree.runner.observers.clear()
                try:
                    self.executive.host.release_all()
                except Exception:  # noqa: B902 - release what can be released
                    pass
            if self.executor is not None:
                for node in self.nodes:
                    self.executor.remove_node(node)
                    node.destroy_node()
                self.executor.shutdown(timeout_sec=0.0)
        finally:
            if self.context is not None:
                if self.context.ok():
                    rclpy.shutdown(context=self.context)
                # finalise now: the DDS participant and its threads go with it
                self.context.destroy()
            py_trees.blackboard.Blackboard.storage.clear()


def _domain() -> int:
    """Return the DDS domain of the run: ROS_DOMAIN_ID if valid, else 0.

    With discovery off nothing leaves the process, so any domain is private.
    """
    try:
        domain = int(os.environ.get('ROS_DOMAIN_ID', '0'))
    except ValueError:
        return 0
    return domain if 0 <= domain <= 232 else 0


def run_scenario(scenario: Scenario, *, coverage: Optional[Coverage] = None,
                 log: Optional[Callable[[str], None]] = None) -> ScenarioResult:
    """Run one scenario; return what it found (never raises for the tree's or file's faults).

    Args:
        scenario: the scenario (from :func:`~bt_executive.testing.spec.load_scenarios`)
        coverage: collects per-node coverage when given
        log: gets each trace line as it happens (``--trace``)
    """
    run = _Run(scenario, coverage, log)
    try:
        run.start()
        return run.run()
    except TreeError as error:
        run.result.error = error
        return run.result
    except RuntimeError as error:
        run.result.error = TreeError([Diagnostic(scenario.loc, f"scenario '{scenario.name}'"
                                                 f': {error}')])
        return run.result
    finally:
        run.close()


__all__ = ['EPOCH', 'LockstepTicker', 'ScenarioResult', 'run_scenario']
