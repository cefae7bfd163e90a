# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The node catalogue: composites, decorators and leaves as py_trees behaviours.

One node type, one class, one module: each behaviour class carries its node type's
declaration (``declaration = NodeType(...)``: name, category, children, parameters with
their types and documentation, aliases, BT.CPP ID) and builds itself from its parameters
(``build``, a classmethod; a class whose constructor takes only its name and child or
children needs none). :mod:`~bt_executive.nodes.catalogue` lists the classes and makes the
registry every tool uses. The modules, one per concept:

* :mod:`~bt_executive.nodes.composites`: Sequence, ReactiveSequence, Selector,
  ActiveSelector, Parallel, Race, Marathon (and :class:`BaseComposite
  <bt_executive.nodes.composites.BaseComposite>`, the plumbing of our composites)
* :mod:`~bt_executive.nodes.random_composites`: RandomSelector, RandomSequence
* :mod:`~bt_executive.nodes.conditionals`: Monitor, Filter, IfThenElse, While
* :mod:`~bt_executive.nodes.status_decorators`: Inverter, ForceSuccess, ForceFailure,
  RunningIsFailure, RunningIsSuccess, FailureIsRunning, SuccessIsRunning, PassThrough
* :mod:`~bt_executive.nodes.decorators`: Repeat, Retry, UntilSuccess, UntilFailure, Limit,
  Timeout, Delay, Cooldown, OneShot
* :mod:`~bt_executive.nodes.status_leaves`: Success, Failure, Running, Wait, TickCounter,
  SuccessEveryN, Periodic
* :mod:`~bt_executive.nodes.log`: Log; :mod:`~bt_executive.nodes.terminate`: Terminate
  (and the termination protocol the tree runner follows)
* :mod:`~bt_executive.nodes.predicates`: Condition, WaitUntil
* :mod:`~bt_executive.nodes.blackboard_leaves`: SetBlackboard, UnsetBlackboard,
  BlackboardExists, WaitForBlackboard
* :mod:`~bt_executive.nodes.ros_leaf_types`: the ROS leaves' declarations, without ROS (their
  classes are in :mod:`bt_executive.ros.leaves`), and :mod:`~bt_executive.nodes.stubs`, the
  stand-in offline tools build for them
* :mod:`~bt_executive.nodes.sections`: the ``subscriptions:`` section of a tree file, as
  the registry declares it
* :mod:`~bt_executive.nodes.plugins`: node types of installed packages
* :mod:`~bt_executive.nodes.support`: what the modules share (the clock, argument checks,
  failure reasons, common parameters, :func:`~bt_executive.nodes.support.declare_reads`)

Each behaviour subclasses :class:`py_trees.composites.Composite`,
:class:`py_trees.decorators.Decorator` or :class:`py_trees.behaviour.Behaviour` and follows
the py_trees lifecycle: ``initialise()`` on the first tick of a run, ``terminate()`` through
``stop()``, and children that a node abandons while they are RUNNING are stopped with
``Status.INVALID``. This package imports no ROS code. Time-based behaviours read time from an
injectable ``clock`` (seconds; ``time.monotonic`` by default) so that the ROS layer can drive
them from the ROS clock (``use_sim_time``). Random behaviours own a ``random.Random(seed)``.

Every behaviour sets ``feedback_message`` to a short human reason when it returns FAILURE
(test/test_failure_reasons.py ticks every node type into FAILURE and checks it).

py_trees nodes reused, each declared by a thin subclass that adds the reason py_trees does
not give where it gives none:

* ``composites.Sequence`` / ``composites.Selector`` (with or without memory) and
  ``composites.Parallel`` (``SuccessOnAll`` / ``SuccessOnOne``; the failure policy ``all``
  is :class:`~bt_executive.nodes.composites.ParallelFailureOnAll`).
* ``decorators.Repeat(name, child, num_success)``: the child must succeed ``num_success`` times
  (one run per tick; each success but the last returns RUNNING); a failure aborts with FAILURE.
  That is our "repeat N times" semantics (our ``Repeat`` only adds the reason).
* ``decorators.Retry(name, child, num_failures)``: FAILURE on the ``num_failures``-th failure,
  i.e. ``num_failures`` is the total number of attempts, not the number of retries.
* ``decorators.Inverter``, ``SuccessIsFailure``, ``FailureIsSuccess``, ``RunningIsFailure``,
  ``RunningIsSuccess``, ``FailureIsRunning``, ``SuccessIsRunning``, ``PassThrough`` and
  ``OneShot``.
* ``behaviours.Success`` / ``Failure`` / ``Running`` (no ``SetStatus`` here),
  ``TickCounter``, ``SuccessEveryN`` and ``Periodic`` (every phase exactly ``n`` ticks).

Not reused: ``decorators.Timeout`` (reads ``time.monotonic`` and ticks the child once more after
the deadline) and ``timers.Timer`` (reads ``time.time``); see
:class:`~bt_executive.nodes.decorators.Timeout` and
:class:`~bt_executive.nodes.status_leaves.Wait`.
"""
