"""``hostoffload.check`` on modules over 1 MiB gives the same bytes with its fast paths as
without them, and each fast path applies to them.

The fast paths serve ``check()`` (docs/performance.md, "The fast paths"): the parse in two parts
and without the lexer's positions (hostoffload/Parse.h), and the value sink that makes the
report's objects without its JSON text (``_hostoffload.analyze_data``). On three JAX training
steps printed with debug information, each with one function body of over 1 MiB of text, the
command's JSON is byte-identical with every fast path and with none (``HOSTOFFLOAD_PLAIN=1``);
and a fast path that stops applying to them fails a test here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import hostoffload
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload

pytestmark = pytest.mark.skipif(
    _hostoffload.describe_fast_paths() != "on",
    reason="the fast paths are " + _hostoffload.describe_fast_paths(),
)

# Unrolled steps: one long function each, with and without E1200.
STEPS = [("adam_host", "e1200"), ("remat_names_unrolled", "e1200"), ("remat_dots_unrolled", "ok")]


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from bench.models import MODELS
    from hostoffload import _convert

    directory = tmp_path_factory.mktemp("large")
    made = []
    for name, variant in STEPS:
        model = MODELS[name]
        path = directory / f"{name}-{variant}.mlir"
        path.write_bytes(_convert.lowered_to_generic(model.lower(variant, model.units_for(10_000))))
        assert path.stat().st_size > 1 << 20
        made.append(path)
    return made


def test_the_json_is_the_plain_paths(steps: list[Path]) -> None:
    command = [sys.executable, "-m", "hostoffload", "check", "--json", "--json-locations"]
    command += ["table", *map(str, steps)]
    fast, plain = (
        subprocess.run(
            command, capture_output=True, cwd=REPO_ROOT, env={**os.environ, "HOSTOFFLOAD_PLAIN": v}
        )
        for v in ("", "1")
    )
    assert fast.returncode == 1, fast.stderr[-2000:]
    assert fast.stdout.count(b"\n") == len(steps)
    assert b'"E1200"' in fast.stdout
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        plain.returncode,
        plain.stdout,
        plain.stderr,
    )


def test_each_function_body_is_parsed_in_parts(steps: list[Path]) -> None:
    for step in steps:
        with ir.Context() as context:
            module, errors, in_parts = _hostoffload.parse(
                context, step.read_bytes(), os.fsencode(step), report_parts=True
            )
            assert module is not None, errors
            assert in_parts, step.name


def test_the_report_comes_through_the_value_sink(
    steps: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """check() builds its report from the values the C API hands over, never from JSON text."""

    def no_json(*args: object, **kwargs: object) -> None:
        raise AssertionError("check() read the report's JSON text")

    monkeypatch.setattr(_hostoffload, "analyze", no_json)
    report = hostoffload.check(steps[0])
    assert any(finding.code == "E1200" for finding in report.findings)
