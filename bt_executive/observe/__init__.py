"""Observing a running tree: the tick record, the snapshot model, the Groot2 server (no ROS)."""
