"""The benchmark of the check, run from the repository root: ``python -m bench.run``."""
