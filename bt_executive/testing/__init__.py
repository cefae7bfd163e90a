# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Scenario tests of trees: simulated ROS peers, simulated time, expectations, coverage.

A scenario file (docs/testing.md) names a tree file and declares simulated peers
(action servers, services, the sim's topic goal protocol, topic publishers) with scripted
behaviour, and expectations. :func:`~bt_executive.testing.harness.run_scenario` runs the
real executive node (tree host, ROS leaves, blackboard feed) and the peers in one process
on one executor, in lock-step with a /clock the harness owns, so a scenario gives the same
result every run. The modules: ``spec`` (the scenario language, located errors),
``peers`` (the scripted peers), ``harness`` (the lock-step run), ``expect`` (checking the
expectations), ``coverage`` (per-node coverage and its reports), ``command``
(``bt-executive test``) and ``pytest_plugin`` (scenario files collected as tests).
"""
