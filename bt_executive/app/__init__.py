"""The applications: the command line, the demo and the bring-up of the patrol."""
