# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The node catalogue: composites, decorators and leaves as py_trees behaviours.

:mod:`~bt_executive.nodes.catalogue` declares every node type a tree file may use. The
behaviours py_trees lacks are in :mod:`~bt_executive.nodes.composites`,
:mod:`~bt_executive.nodes.conditionals`, :mod:`~bt_executive.nodes.decorators`,
:mod:`~bt_executive.nodes.leaves` and :mod:`~bt_executive.nodes.blackboard` (helpers they
share in :mod:`~bt_executive.nodes.common`); py_trees' own nodes are reused through
:mod:`~bt_executive.nodes.reused`, which adds the reasons they do not give.

Each of them subclasses :class:`py_trees.composites.Composite`,
:class:`py_trees.decorators.Decorator` or :class:`py_trees.behaviour.Behaviour` and follows
the py_trees lifecycle: ``initialise()`` on the first tick of a run, ``terminate()`` through
``stop()``, and children that a node abandons while they are RUNNING are stopped with
``Status.INVALID``. This package imports no ROS code. Time-based behaviours read time from an
injectable ``clock`` (seconds; ``time.monotonic`` by default) so that the ROS layer can drive
them from the ROS clock (``use_sim_time``). Random behaviours own a ``random.Random(seed)``.

Every behaviour sets ``feedback_message`` to a short human reason when it returns FAILURE
(test/test_failure_reasons.py ticks every node type into FAILURE and checks it).

py_trees nodes reused (with a reason added by :mod:`~bt_executive.nodes.reused` where
py_trees gives none):

* ``composites.Sequence`` / ``composites.Selector`` (with or without memory) and
  ``composites.Parallel`` (``SuccessOnAll`` / ``SuccessOnOne``; the failure policy ``all``
  is :class:`~bt_executive.nodes.composites.ParallelFailureOnAll`).
* ``decorators.Repeat(name, child, num_success)``: the child must succeed ``num_success`` times
  (one run per tick; each success but the last returns RUNNING); a failure aborts with FAILURE.
  That is our "repeat N times" semantics (``reused.Repeat`` only adds the reason).
* ``decorators.Retry(name, child, num_failures)``: FAILURE on the ``num_failures``-th failure,
  i.e. ``num_failures`` is the total number of attempts, not the number of retries.
* ``decorators.Inverter``, ``SuccessIsFailure``, ``FailureIsSuccess``, ``RunningIsFailure``,
  ``RunningIsSuccess``, ``EternalGuard`` and ``OneShot``.
* ``behaviours.Success`` / ``Failure`` / ``Running`` (no ``SetStatus`` here),
  ``TickCounter``, ``SuccessEveryN`` and ``Periodic`` (every phase exactly ``n`` ticks).

Not reused: ``decorators.Timeout`` (reads ``time.monotonic`` and ticks the child once more after
the deadline) and ``timers.Timer`` (reads ``time.time``); see
:class:`~bt_executive.nodes.decorators.Timeout` and :class:`~bt_executive.nodes.leaves.Wait`.
"""
