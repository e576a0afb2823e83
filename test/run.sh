#!/usr/bin/env bash
# Runs the whole test suite (lit, then pytest) against the installed hostoffload.
# Exits non-zero if either suite fails; both always run.
set -u
cd "$(dirname "$0")/.."
status=0
lit -v test/lit || status=1
python -m pytest -q test/python || status=1
exit $status
