"""The idle floor of bench_idle: a bare rclpy node hearing what the parked executive hears.

``python bench/idle_floor.py NAMESPACE`` subscribes to ``NAMESPACE/battery_state`` and
``NAMESPACE/emergency_stop`` (the topics the parked patrol's sim keeps publishing), stores
nothing, and spins rclpy's EventsExecutor (the executive's own) until SIGINT or SIGTERM.
Its CPU use is what any ROS 2 Python process pays for those messages and for DDS
housekeeping (discovery, reliable-delivery heartbeats): the part of the executive's idle
cost it cannot remove.
"""

from __future__ import annotations

import signal
import sys


def main(argv: list[str]) -> int:
    """Spin until SIGINT or SIGTERM."""
    import rclpy
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.signals import SignalHandlerOptions
    from sensor_msgs.msg import BatteryState
    from std_msgs.msg import Bool

    namespace = argv[0].rstrip('/')
    received: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: received.append(number))
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node('idle_floor')
    node.create_subscription(BatteryState, f'{namespace}/battery_state', lambda m: None, 10)
    node.create_subscription(Bool, f'{namespace}/emergency_stop', lambda m: None, 10)
    try:  # the executive's own executor (bt_executive.ros.executive.make_executor)
        from rclpy.experimental import EventsExecutor
        executor = EventsExecutor()
    except ImportError:
        executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        while rclpy.ok() and not received:
            executor.spin_once(timeout_sec=0.5)
    except ExternalShutdownException:
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
