#!/usr/bin/env bash
# Runs the whole test suite (lit, then pytest) against the installed hostoffload.
# Exits non-zero if either suite fails; both always run.
set -u
cd "$(dirname "$0")/.."
status=0
# A lit test that runs longer than 300 s (the slowest takes about 8 s) fails as timed out.
lit -v --timeout 300 test/lit || status=1
python -m pytest -q test/python || status=1
exit $status
