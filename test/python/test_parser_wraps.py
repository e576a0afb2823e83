"""The wrap of MLIR's FileLineColLoc::get applies in the Python extension's link.

A wrap that stops applying (MLIR's callers no longer call the function through the linker)
changes no result, only the time of a parse: hostoffload/ParserWraps.h. A check of a text
printed with debug information must reach it, except in a build without the fast paths, which
links none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Runs in a fresh process: a wrap notes only its first call, and the test must see a parse
# make it. The module's ops carry their own locations (parsed without the lexer's positions).
PROBE = """
import json
import hostoffload
from hostoffload.mlir._mlir_libs import _hostoffload
before = _hostoffload.parser_wraps_called()
hostoffload.check('''"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: i32 loc("x.py":1:1)):
    %0 = "stablehlo.abs"(%arg0) {a = #stablehlo.x<"y">} : (i32) -> i32 loc("x.py":2:1)
    "func.return"(%0) : (i32) -> () loc("x.py":3:1)
  }) {function_type = (i32) -> i32, sym_name = "main"} : () -> () loc("x.py":4:1)
}) : () -> () loc("x.py":5:1)''')
after = _hostoffload.parser_wraps_called()
print(json.dumps([before, after, _hostoffload.describe_fast_paths()]))
"""
WRAPPED = {"mlir::FileLineColLoc::get"}
WITHOUT_FAST_PATHS = "off (built without)"


def probe(plain: str = "") -> tuple[dict[str, bool], dict[str, bool], str]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env={**os.environ, "HOSTOFFLOAD_PLAIN": plain},
        check=True,
    )
    before, after, paths = json.loads(run.stdout.splitlines()[-1])
    return before, after, paths


def test_a_check_reaches_every_wrapped_function() -> None:
    before, after, paths = probe()
    assert set(after) == WRAPPED
    assert not any(before.values())
    assert after == dict.fromkeys(WRAPPED, paths != WITHOUT_FAST_PATHS)


def test_a_wrap_turned_off_still_applies_and_calls_mlirs_function() -> None:
    _, after, paths = probe("1")
    if paths == WITHOUT_FAST_PATHS:
        assert not any(after.values())
        return
    assert paths == "off (HOSTOFFLOAD_PLAIN)"
    assert all(after.values())
