"""Out-of-process viewers: the terminal watcher and the web page."""
