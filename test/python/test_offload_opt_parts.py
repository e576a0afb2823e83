"""offload-opt parses a function body of over 1 MiB in two parts (hostoffload/Parse.h): its
check, both fixes and its output are those of a parse of the whole text (the plain path), on a
JAX training step printed with debug information."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hostoffload._driver import DRIVER
from hostoffload.mlir._mlir_libs import _hostoffload

pytestmark = pytest.mark.skipif(
    not _hostoffload.fast_path_enabled("parse-in-parts"),
    reason="the parse in parts is a fast path, off here: " + _hostoffload.describe_fast_paths(),
)

RUNS = {
    "check": ["--host-offload-check"],
    "fix-host": ["--host-offload-fix=strategy=host"],
    "fix-device": ["--host-offload-fix=strategy=device"],
}


@pytest.fixture(scope="module")
def long_step(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e1200 variant of an unrolled training step, one function body of over 1 MiB."""
    from bench.models import MODELS
    from hostoffload import _convert

    model = MODELS["adam_host"]
    lowered = model.lower("e1200", model.units_for(10_000))
    path = tmp_path_factory.mktemp("parts") / "step.mlir"
    path.write_bytes(_convert.lowered_to_generic(lowered))
    assert path.stat().st_size > 1 << 20
    return path


@pytest.mark.parametrize("run", RUNS)
def test_offload_opt_on_a_module_parsed_in_parts_is_the_plain_paths(
    long_step: Path, run: str
) -> None:
    def offload_opt(plain: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(DRIVER), str(long_step), *RUNS[run]],
            capture_output=True,
            env={**os.environ, "HOSTOFFLOAD_PLAIN": plain},
        )

    in_parts, whole = offload_opt(""), offload_opt("parse-in-parts")
    assert in_parts.returncode == whole.returncode, in_parts.stderr[-2000:]
    assert in_parts.returncode == (1 if run == "check" else 0)
    assert in_parts.stdout == whole.stdout
    assert in_parts.stderr == whole.stderr
    if run == "check":
        assert b"error: E1200" in in_parts.stderr
