"""tools/differential/chip.py, the harness for a machine with a TPU, tried on CPU.

CI has no TPU, so this runs the harness with the CPU as its "chip": XLA:CPU has no host
offloader, so its verdicts are not XLA:TPU's, but the fixed modules run, beside the modules
they fix, and their values and output memory kinds are compared as on a chip.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

pytest.importorskip("jax")

ONLY = "^device_put_host_and_back__out0_device"


def run_chip(tmp_path: Path, only: str) -> dict[str, Any]:
    """The harness's results on CPU for the modules matching ``only``."""
    out = tmp_path / "chip.json"
    command = [sys.executable, "-m", "tools.differential.chip", "--platform", "cpu"]
    result = subprocess.run(
        [*command, "--out", str(out), "--only", only],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(out.read_text())
    return document


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_fixed_modules_run_beside_the_modules_they_fix(tmp_path: Path) -> None:
    document = run_chip(tmp_path, ONLY)
    modules = document["modules"]
    # The mutant and its two fixes, each compiled; both fixes run.
    assert set(modules) == {
        "device_put_host_and_back__out0_device",
        "device_put_host_and_back__out0_device__fix_device",
        "device_put_host_and_back__out0_device__fix_host",
    }
    assert document["machine"]["jax"]
    fixed_on_host = modules["device_put_host_and_back__out0_device__fix_host"]
    assert fixed_on_host["declared_memory_kinds"] == ["pinned_host", "device"]
    assert fixed_on_host["output_memory_kinds"] == ["pinned_host", "device"]
    assert fixed_on_host["values_equal"] and fixed_on_host["kinds_equal"]
    summary = document["summary"]
    assert (summary["fixes_run"], summary["values_equal"], summary["crash"]) == (2, 2, 0)


@pytest.mark.usefixtures("cpu_host_memory")
def test_a_root_special_case_runs_beside_itself(tmp_path: Path) -> None:
    # HOW102: on a chip, where XLA:TPU puts the lone output it copies to host memory and back.
    name = "device_put_host_no_out_shardings__out0_device"
    document = run_chip(tmp_path, f"^{name}$")
    module = document["modules"][name]
    assert module["declared_memory_kinds"] == ["device"]
    assert module["output_memory_kinds"] == ["device"]
    assert module["values_equal"] and module["kinds_equal"]
    summary = document["summary"]
    assert (summary["root_special_case_run"], summary["root_special_case_in_device_memory"]) == (
        1,
        1,
    )
    assert summary["fixes_run"] == 0
