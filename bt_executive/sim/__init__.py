# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The built-in simulated robot: a deterministic unicycle with battery, dock and navigation.

Modules:
    model: the pure simulation (:class:`~bt_executive.sim.model.RobotModel`), no ROS
        import, stepped with a fixed time step.
    robot: the ROS 2 node (:class:`~bt_executive.sim.robot.SimRobot`) that owns a model,
        steps it on a timer, optionally publishes ``/clock`` and exposes the robot on
        standard interfaces; ``main`` is the ``sim_robot`` console script.
    nav2: Nav2's NavigateToPose, DockRobot and UndockRobot semantics on the model
        (:class:`~bt_executive.sim.nav2.Nav2Sim`), no ROS import.
    nav2_server: serves them with rclpy action servers when ``nav2_msgs`` works.

See ``docs/sim_robot.md`` for the interfaces and the navigation protocol.
"""
