# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The lifecycle (managed) executive: the executive as a ROS 2 lifecycle node.

``lifecycle_executive --ros-args -p tree_file:=tree.yaml`` (or ``python -m
bt_executive.ros.lifecycle``) starts *unconfigured* and ticks nothing until a lifecycle
manager (Nav2's ``lifecycle_manager``, ``ros2 lifecycle set``) drives it through
``~/change_state`` (lifecycle_msgs/srv/ChangeState; ``~/get_state`` says where it is):

* configure: load and validate ``tree_file``, build the tree and set up its leaves
  (their clients, subscriptions and publishers on the node). An invalid file fails the
  transition, every error logged as ``file:line:col: node path: what``, and the node stays
  unconfigured, so it can be configured again once the file is fixed.
* activate: tick (``tick_mode`` periodic or event, as the plain executive).
* deactivate: halt the tree, cancel its goals and wait until their servers acknowledge
  the cancels (at most ``shutdown_timeout``); the tree stays loaded, nothing ticks.
* cleanup: release the tree and everything it created on the node.
* shutdown, from unconfigured, inactive or active: stop as deactivate and cleanup do,
  then the process exits (status 0; 1 if a cancel was not acknowledged in time).

SIGINT, SIGTERM and SIGHUP stop it from any state the way they stop the plain
executive (goals cancelled and awaited, status 0), then run the shutdown transition.

Everything else -- the parameters, ``~/status``, ``~/snapshot``, ``~/events``, the
Trigger services, swapping the tree by setting ``tree_file`` -- is the plain executive's
(both hold an :class:`~bt_executive.ros.core.ExecutiveCore`; the transitions call its
``load``, ``install``, ``start_ticking``, ``hold`` and ``release``); ``~/status``
adds ``lifecycle_state`` and ``lifecycle_error``. ``~/pause``, ``~/resume`` and
``~/reset`` answer only while active; ``~/reload`` and ``tree_file`` swaps need a
configured node (a tree swapped in while inactive waits for activation).

Waiting for the cancels: the transition callbacks of rclpy's lifecycle node are plain
functions, run inside the executor, which cannot spin again from there. So the
``~/change_state`` service gets a coroutine handler in front of rclpy's own: for a
transition that leaves the active state it halts the tree and awaits the cancels (the
executor keeps running the action clients' callbacks meanwhile), then hands the request
to rclpy, whose ``on_deactivate``/``on_shutdown`` find the tree already stopped.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, Callable, Optional

from bt_executive.core.errors import SourceLocation, TreeError
from bt_executive.core.registry import Registry
from bt_executive.ros.core import ExecutiveCore
from bt_executive.ros.executive import CoreAccess, node_options
from bt_executive.ros.memory import defer_for_programs
from bt_executive.ros.parameters import declare_parameters, PARAMETERS, TREE_PARAMETERS
from bt_executive.ros.serve import serve
from bt_executive.ros.usage import handle_arguments
from lifecycle_msgs.msg import Transition
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.exceptions import ParameterException
from rclpy.lifecycle import LifecycleNodeMixin, LifecycleState, TransitionCallbackReturn
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.task import Future
from rclpy.utilities import remove_ros_args

#: Seconds between two looks at the goal cancels while a transition waits for them.
CANCEL_POLL = 0.02

#: Seconds the process keeps spinning after the shutdown transition, so that the
#: ChangeState response reaches the manager before the node is destroyed.
FINAL_LINGER = 0.5

#: The transitions (by label) that leave the active state.
_LEAVING_ACTIVE_LABELS = ('deactivate', 'shutdown')
_LEAVING_ACTIVE_IDS = (Transition.TRANSITION_DEACTIVATE, Transition.TRANSITION_ACTIVE_SHUTDOWN)

USAGE = """\
usage: lifecycle_executive [-h] [--ros-args -p NAME:=VALUE ... | --params-file FILE ...]

Run a behaviour tree from a YAML file as the ROS 2 lifecycle (managed) node
'bt_executive'. It starts unconfigured; drive it through ~/change_state
(lifecycle_msgs/srv/ChangeState), e.g. with Nav2's lifecycle_manager (node_names:
['bt_executive'], bond_timeout: 0.0) or ros2 lifecycle set: configure loads and
validates tree_file, activate ticks, deactivate halts the tree and cancels its goals,
cleanup releases the tree, shutdown ends the process. ~/status says the state.

options:
  -h, --help   show this help and exit (no node is started)

examples:
  lifecycle_executive --ros-args -p tree_file:=config/patrol.yaml -p tick_mode:=event
  ros2 run bt_executive lifecycle_executive --ros-args --params-file config/executive.yaml
  ros2 lifecycle set /bt_executive configure      # then: activate, deactivate, ...
"""

EPILOGUE = """
exit status: 0 after the shutdown transition or a signal (SIGINT, SIGTERM, SIGHUP: the
tree is halted and its goals cancelled first), 1 when a goal cancel was not acknowledged
within shutdown_timeout at that stop, 2 for a bad parameter value. A tree file that does
not load fails the configure transition (every error logged as file:line:col: node path:
what was expected); the node stays unconfigured and the process keeps running.
"""

_SUCCESS = TransitionCallbackReturn.SUCCESS
_FAILURE = TransitionCallbackReturn.FAILURE


class LifecycleExecutive(CoreAccess, LifecycleNodeMixin, Node):
    """The executive as a lifecycle node: configure loads, activate ticks (module docstring).

    Takes the same arguments and ROS parameters as
    :class:`~bt_executive.ros.executive.Executive`; its lifecycle services
    (``~/change_state``, ``~/get_state``, ...) and ``~/transition_event`` are rclpy's.

    Attributes:
        finalized: the shutdown transition ran (the process should exit)
        clean: False once a stop left goal cancels unacknowledged (exit status 1)
    """

    _state_label = 'unconfigured'
    _transition_error = ''
    finalized = False
    clean = True

    def __init__(self, *, node_name: str = 'bt_executive', namespace: Optional[str] = None,
                 parameter_overrides: Optional[list[Parameter]] = None,
                 registry: Optional[Registry] = None, context: Any = None):
        kwargs = node_options(namespace, context)
        Node.__init__(self, node_name, parameter_overrides=parameter_overrides or [],
                      **kwargs)
        try:
            declare_parameters(self, PARAMETERS)
        except ParameterException:  # a value of the wrong type or out of range
            Node.destroy_node(self)  # nothing of ours exists yet
            raise
        try:
            # idle until activated; the configure transition loads the tree
            self.core = ExecutiveCore(self, registry=registry, ticking=False,
                                      check=self._only_when_active, status_extra=lambda: {
                                          'lifecycle_state': self._state_label,
                                          'lifecycle_error': self._transition_error})
            self.add_on_set_parameters_callback(self._on_parameters)
            self.get_logger().info('unconfigured: the configure transition loads tree_file '
                                   f"('{self._param('tree_file')}')")
            self.publish_status(force=True)
        except BaseException:
            self.destroy_node()
            raise
        # reentrant: a change_state handler awaiting goal cancels must not block the
        # action clients' callbacks under a SingleThreadedExecutor (BT_EXECUTIVE_EXECUTOR)
        LifecycleNodeMixin.__init__(self, callback_group=ReentrantCallbackGroup())
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._wrap_change_state()

    # ---- the state machine -----------------------------------------------------------

    def lifecycle_state(self) -> str:
        """Return the label of the current lifecycle state ('unconfigured', 'active', ...)."""
        machine = getattr(self, '_state_machine', None)
        return machine.current_state[1] if machine is not None else 'unconfigured'

    def _wrap_change_state(self) -> None:
        """Put a coroutine in front of rclpy's ~/change_state handler (module docstring)."""
        service = self._service_change_state
        apply = service.callback

        async def change_state(request: Any, response: Any) -> Any:
            leaving = self._leaving_active(request.transition)
            if leaving:
                await self._halt_and_wait(leaving)
            return apply(request, response)

        service.callback = change_state

    def _leaving_active(self, transition: Any) -> str:
        """Return the transition state if ``transition`` ends the active state, else ''."""
        if self.lifecycle_state() != 'active':
            return ''
        if transition.label:
            leaving = transition.label in _LEAVING_ACTIVE_LABELS
            shutdown = transition.label == 'shutdown'
        else:
            leaving = transition.id in _LEAVING_ACTIVE_IDS
            shutdown = transition.id == Transition.TRANSITION_ACTIVE_SHUTDOWN
        if not leaving:
            return ''
        return 'shuttingdown' if shutdown else 'deactivating'

    async def _halt_and_wait(self, why: str) -> None:
        """Halt the tree, then wait (at most shutdown_timeout) for its goal cancels."""
        self._hold(why)
        self._report(why)
        deadline = time.monotonic() + self._param('shutdown_timeout')
        done: Future = Future()

        def check() -> None:
            if not done.done() and (not self.cancels_in_flight()
                                    or time.monotonic() >= deadline):
                done.set_result(None)

        check()
        timer = self.create_timer(CANCEL_POLL, check, clock=self._steady)
        try:
            await done
        finally:
            self.destroy_timer(timer)

    def cancels_in_flight(self) -> list[Any]:
        """Return the unanswered goal cancels (futures) of the tree and of swapped-out ones."""
        return self._core().cancels_in_flight()

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Load, validate and set up ``tree_file``; FAILURE (still unconfigured) if invalid."""
        return self._transition('configure', self._configure)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start ticking the tree (from its root; the blackboard is kept)."""
        return self._transition('activate', self._activate)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Halt the tree and cancel its goals (awaited by the ~/change_state handler)."""
        return self._transition('deactivate', self._deactivate)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release the tree and everything it created on the node."""
        return self._transition('cleanup', self._cleanup)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop and release everything (from any state); the process then exits."""
        return self._transition('shutdown', self._shutdown)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything after a transition raised; back to unconfigured."""
        self.get_logger().error(f'a transition from {state.label} raised; releasing the tree '
                                'and going back to unconfigured')
        self._release('unconfigured', error=self._transition_error)
        return _SUCCESS

    def _transition(self, name: str, body: Callable[[], TransitionCallbackReturn]
                    ) -> TransitionCallbackReturn:
        """Run a transition; log an exception with its traceback (rclpy would say nothing)."""
        try:
            return body()
        except Exception as error:  # noqa: B902 - becomes ERROR, then on_error
            self._transition_error = f'{name} raised {type(error).__name__}: {error}'
            self.get_logger().error(f'{self._transition_error}\n{traceback.format_exc()}')
            return TransitionCallbackReturn.ERROR

    def _configure(self) -> TransitionCallbackReturn:
        tree_file = self._param('tree_file')
        if not tree_file:
            return self._refuse('configure failed: the tree_file parameter is empty (set it '
                                'with -p tree_file:=FILE or in the parameters file)')
        try:
            loaded = self.load(tree_file, self._param('tree_name'))
        except TreeError as error:
            return self._refuse(f'configure failed: cannot load {tree_file}:\n{error}')
        self._hold('configured')
        self._core().install(loaded)
        self._report('inactive')
        return _SUCCESS

    def _refuse(self, reason: str) -> TransitionCallbackReturn:
        """Fail a transition with ``reason`` (logged, and in ~/status as lifecycle_error)."""
        self.get_logger().error(reason)
        self._report(self._state_after_failure(), error=reason)
        return _FAILURE

    def _state_after_failure(self) -> str:
        """Return the primary state a failed transition goes back to."""
        return {'configuring': 'unconfigured', 'activating': 'inactive',
                'deactivating': 'active', 'cleaningup': 'inactive'}.get(
                    self.lifecycle_state(), self.lifecycle_state())

    def _activate(self) -> TransitionCallbackReturn:
        core = self._core()
        tree = core.host.tree  # type: ignore[union-attr]
        if tree is None:
            return self._refuse('activate failed: no tree is loaded (configure first)')
        core.start_ticking()
        self._report('active')
        self.get_logger().info(f"activated: ticking tree '{tree.name}' "
                               f"({self._param('tick_mode')} ticking)")
        return _SUCCESS

    def _deactivate(self) -> TransitionCallbackReturn:
        self._hold('deactivated')
        if self._check_cancels('deactivate'):
            self.get_logger().info('deactivated: the tree is halted and its goal cancels '
                                   'are acknowledged')
        self._core().host.retire(self._param('shutdown_timeout'))  # type: ignore[union-attr]
        self._report('inactive')
        return _SUCCESS

    def _cleanup(self) -> TransitionCallbackReturn:
        self._release('unconfigured')
        self.get_logger().info('cleaned up: the tree and its ROS entities are released')
        return _SUCCESS

    def _shutdown(self) -> TransitionCallbackReturn:
        self._hold('shutting down')
        if not self._check_cancels('shutdown'):
            self.clean = False
        self._release('finalized')
        self.finalized = True
        self.get_logger().info('shut down: finalized, exiting')
        return _SUCCESS

    def _check_cancels(self, name: str) -> bool:
        """Log an error if goal cancels are still unanswered; True if there are none."""
        pending = self.cancels_in_flight()
        if pending:
            self.get_logger().error(
                f"{name}: {len(pending)} goal cancel{'s' if len(pending) > 1 else ''} not "
                f"acknowledged within shutdown_timeout ({self._param('shutdown_timeout'):g} "
                's); a goal may still be active on the robot')
        return not pending

    def _param(self, name: str) -> Any:
        return self.get_parameter(name).value

    def _hold(self, why: str) -> None:
        """Stop ticking and halt the tree (its goals are cancelled); idempotent."""
        self._core().hold(why)

    def _release(self, state: str, error: str = '') -> TransitionCallbackReturn:
        """Halt and release every tree, forget its state; report ``state``."""
        self._core().release()
        self._report(state, error=error)
        return _SUCCESS

    def _report(self, state: str, *, error: str = '') -> None:
        """Publish ~/status saying ``state`` (and why the last transition failed)."""
        self._state_label = state
        self._transition_error = error
        self.publish_status(force=True)

    def finish(self) -> None:
        """Run the shutdown transition unless it ran (call after :meth:`stop_tree`)."""
        if self.finalized:
            return
        try:
            self.trigger_shutdown()
        except Exception as error:  # noqa: B902 - e.g. mid-transition: destroy anyway
            self.get_logger().warning(f'could not run the shutdown transition: {error}')

    # ---- what the core asks of the lifecycle -----------------------------------------

    def _on_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        """Swap trees as the plain executive does once configured; before, only record them."""
        if self._core().host.tree is None \
                and self.lifecycle_state() in ('unconfigured', 'finalized'):
            parameters = [p for p in parameters if p.name not in TREE_PARAMETERS]
        return self._core().on_set_parameters(parameters)

    def _only_when_active(self, control: str) -> None:
        """Refuse a runtime control outside the states it works in (the core asks)."""
        if control == 'reload':
            self._only_when(('inactive', 'active'), '~/reload')
        else:
            self._only_when(('active',), f'~/{control}')

    def _only_when(self, wanted: tuple[str, ...], what: str) -> None:
        state = self.lifecycle_state()
        if state not in wanted:
            raise TreeError.single(SourceLocation('<lifecycle>'), f'the executive is {state}: '
                                   f"{what} works only when {' or '.join(wanted)} (drive it "
                                   'through ~/change_state)')

    def destroy_node(self) -> None:
        """Halt the tree (goal cancels are sent) and release everything, then destroy."""
        self.close_core()
        Node.destroy_node(self)


def main(args: Optional[list[str]] = None, *, registry: Optional[Registry] = None) -> int:
    """Run the lifecycle executive until the shutdown transition or a signal.

    Args:
        args: command-line arguments for rclpy (default: ``sys.argv``)
        registry: the node types (default: the catalogue, ROS leaves and plugins)

    Returns:
        0 after the shutdown transition or a signal, as ROS nodes do, and after ``--help``;
        1 when a goal cancel was not acknowledged within ``shutdown_timeout`` at that stop
        (a stop that hangs is ended by the exit watchdog, also with 1); 2 for a bad
        parameter value.
    """
    done = handle_arguments(remove_ros_args(sys.argv if args is None else args)[1:],
                            PARAMETERS, program='lifecycle_executive', usage=USAGE,
                            epilogue=EPILOGUE)
    if done is not None:
        return done
    defer_for_programs()  # messages one by one as used, no code generator (ros/memory.py)
    made: list[LifecycleExecutive] = []

    def start(executives: list[Any]) -> None:
        made.append(LifecycleExecutive(registry=registry))  # no tree yet: configure loads
        executives.extend(made)

    # the shutdown transition ends the process too, once its response has gone out
    return serve('lifecycle_executive', start, args, finished=lambda: made[0].finalized,
                 linger=FINAL_LINGER)


__all__ = ['LifecycleExecutive', 'main']

if __name__ == '__main__':
    sys.exit(main())
