"""A small run of the benchmark, so that it keeps working; no timing is asserted."""

import importlib.util
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


def test_sizes_of_a_shape_are_measured_round_by_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import run

    rounds: list[str] = []

    def sample_runs(offload_opt: str, path: Path) -> dict[str, list[float]]:
        rounds.append(path.name)
        # Each size's samples differ by round, so a median taken over the wrong runs shows.
        ops = int(path.stem.split("-")[1])
        seconds = ops * 1e-6 * len(rounds)
        return {
            "fix_host": [seconds],
            "fix_device": [seconds],
            "run": [seconds],
            "verdict": [seconds],
            "parse": [10 * seconds],
            "check": [seconds, 2 * seconds],
            "cpu_ratio": [1.0],
            "rss_check": [1.0],
            "rss_parse": [1.0],
        }

    monkeypatch.setattr(run, "sample_runs", sample_runs)
    monkeypatch.setattr(run, "python_seconds", lambda script, path: 0.0)
    measured = run.measure_shape("offload-opt", "chain", [1000, 2000], tmp_path, 0, None, 0, 3)
    assert rounds == ["chain-1000.mlir", "chain-2000.mlir"] * 3
    assert [m.ops for m in measured] == [1000, 2000]
    # Rounds 1, 3, 5 measured 1000 ops, rounds 2, 4, 6 measured 2000: the medians are rounds 3, 4,
    # and the first check's, of both its samples in each round, lies between rounds 3 and 5.
    assert measured[0].parse_s == pytest.approx(10 * 1000e-6 * 3)
    assert measured[1].parse_s == pytest.approx(10 * 2000e-6 * 4)
    assert measured[0].check_s == pytest.approx(1000e-6 * (3 + 5) / 2)
    assert measured[1].check_s == pytest.approx(2000e-6 * (4 + 6) / 2)
    assert measured[1].check_again_s is None


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


def test_models_benchmark_smoke_run_gives_each_model_its_verdict(tmp_path: Path) -> None:
    out = tmp_path / "models.json"
    result = subprocess.run(
        [sys.executable, "-m", "bench.models_run", "--smoke", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text())
    models = {
        "remat_names_scan",
        "remat_names_unrolled",
        "remat_dots_scan",
        "remat_dots_unrolled",
        "adam_host",
    }
    assert {(r["model"], r["variant"]) for r in rows} == {
        (model, variant) for model in models for variant in ("ok", "e1200")
    }
    for r in rows:
        assert r["ops"] > 1000, r
        assert r["paths"] == "on", r  # the library's own word: without --plain, the fast paths
        assert r["mode"] == ""
        assert r["lower_s"] > 0 and r["opt_rss_mb"] > 0 and r["rss_checked_mb"] > 0
        for key in ("check_s", "opt_wall_s", "opt_parse_s", "opt_pass_s", "opt_verify_s"):
            assert len(r[key]) == 1 and r[key][0] >= 0, (key, r)
        assert r["check_s"][0] > 0 and r["opt_wall_s"][0] > 0 and r["opt_parse_s"][0] > 0
        # The API and offload-opt agree, and only the E1200 variant has E1200.
        assert r["offload_opt_e1200"] == r["report_e1200"], r
        (found,) = r["report_e1200"]
        # So does offload-opt on the pretty text, and its messages stay small.
        assert r["pretty_e1200"] == found, r
        assert r["pretty_messages_mb"] < 1, r
        assert (found > 0) == (r["variant"] == "e1200"), r
        assert r["report_ok"] == (r["variant"] == "ok"), r
        assert "xla_s" not in r  # XLA:TPU is timed only with --xla
    assert "| remat_names_scan | ok |" in result.stdout


def test_models_benchmark_measures_each_mode_of_the_fast_paths_on_its_routes(
    tmp_path: Path,
) -> None:
    out = tmp_path / "modes.json"
    command = [sys.executable, "-m", "bench.models_run", "--smoke", "--json", str(out)]
    command += ["--models", "adam_host", "--variants", "e1200", "--no-pretty"]
    command += ["--check-pieces", "lexer-positions", "--opt-pieces", "parse-in-parts"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    rows = {r["mode"]: r for r in json.loads(out.read_text())}
    assert list(rows) == ["", "1", "lexer-positions", "parse-in-parts"]
    # Each mode is what the library (check) or offload-opt said it ran with.
    assert rows[""]["paths"] == "on"
    assert rows["1"]["paths"].startswith("off")
    assert rows["lexer-positions"]["paths"] == "on but lexer-positions (HOSTOFFLOAD_PLAIN)"
    assert rows["parse-in-parts"]["paths"] == "on but parse-in-parts (HOSTOFFLOAD_PLAIN)"
    # A piece named for one route is measured on that route only; every mode agrees.
    assert rows["lexer-positions"]["check_s"] and not rows["lexer-positions"]["opt_wall_s"]
    assert rows["parse-in-parts"]["opt_wall_s"] and not rows["parse-in-parts"]["check_s"]
    verdicts = {tuple(r["report_e1200"] or r["offload_opt_e1200"]) for r in rows.values()}
    assert len(verdicts) == 1 and verdicts.pop()[0] > 0
    assert "| adam_host | e1200 | 2,1" in result.stdout and "| lexer-positions |" in result.stdout


def test_models_benchmark_xla_needs_libtpu(tmp_path: Path) -> None:
    if importlib.util.find_spec("libtpu") is not None:
        pytest.skip("libtpu is installed")
    result = subprocess.run(
        [sys.executable, "-m", "bench.models_run", "--smoke", "--xla"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert result.returncode != 0
    assert "--xla needs libtpu" in result.stderr and "Traceback" not in result.stderr
