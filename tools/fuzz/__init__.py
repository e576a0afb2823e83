"""The structured fuzzer of check and fix: ``python -m tools.fuzz.fuzz``."""
