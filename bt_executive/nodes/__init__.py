"""The node catalogue: composites, decorators and leaves as py_trees behaviours."""
