"""A small run of the benchmark, so that it keeps working; no timing is asserted."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT


def test_benchmark_smoke_run_measures_every_shape(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.run",
            "--smoke",
            "--data",
            str(tmp_path / "data"),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, result.stderr
    measurements = json.loads(out.read_text())
    assert sorted(m["shape"] for m in measurements) == [
        "callgraph",
        "chain",
        "fanout",
        "loops",
        "nested",
        "outputs",
    ]
    for m in measurements:
        assert m["parse_s"] > 0 and m["check_s"] > 0 and m["rss_parse_mb"] > 0
        # Timings are printed to 0.1 ms, which a fix of 2k ops can round down to 0.
        assert m["fix_host_s"] >= 0 and m["fix_device_s"] >= 0
        assert m["baseline_s"] is not None
        # Only `outputs` has E1200 errors, which end the pipeline before a second check.
        assert (m["check_again_s"] is None) == (m["shape"] == "outputs"), m
        assert m["xla_s"] is None  # XLA:TPU is timed only with --xla-python


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_instruction_count_grows_with_the_module(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.instructions"]
        + ["--sizes", "1000,4000", "--shapes", "chain", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split("|") for line in result.stdout.splitlines() if line.startswith("| chain")]
    counts = [int(row[3].strip().replace(",", "")) for row in rows]
    assert len(counts) == 2 and 0 < counts[0] < counts[1]
    assert rows[1][4].strip().endswith("for 4x ops")
