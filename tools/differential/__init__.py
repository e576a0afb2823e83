"""The differential harness against XLA:TPU: ``python -m tools.differential.run``."""
