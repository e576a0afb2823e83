"""Our E1200 check against the verdicts of the real XLA:TPU compiler, without libtpu.

``tools/differential/run.py`` (opt-in, needs libtpu) lowered every program of its catalogue
for TPU, compiled it with XLA:TPU and recorded in ``test/differential/verdicts.json`` the exact
set of entry outputs XLA rejects with E1200 (XLA names only the first; the harness found the
others by re-declaring outputs ``pinned_host`` and recompiling). Here every recorded module
must give exactly XLA's set with the installed checker (its analysis through the Python
extension, which is what ``host-offload-check`` reports; a few modules also through
``offload-opt``). See docs/differential.md.

A disagreement is never resolved by editing the recorded data: it is listed in
``KNOWN_DISAGREEMENTS`` with the reason, and its test is a strict xfail until the checker is
fixed.
"""

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload

REPO_ROOT = Path(__file__).resolve().parents[2]
DIFFERENTIAL_DIR = REPO_ROOT / "test" / "differential"
VERDICTS: dict[str, Any] = json.loads((DIFFERENTIAL_DIR / "verdicts.json").read_text())
MODULES: dict[str, dict[str, Any]] = VERDICTS["modules"]

E1200_OUTPUT = re.compile(r"error: E1200: .*?; output (\d+)")

# Why our checker does not give XLA's verdict, per module (a strict xfail each, with the reason);
# empty while the checker agrees with XLA on every recorded module.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def xla_outputs(name: str) -> list[int] | None:
    outputs = MODULES[name]["xla"]["e1200_outputs"]
    return None if outputs is None else list(outputs)


def compared_modules() -> list[Any]:
    params = []
    for name in sorted(MODULES):
        if xla_outputs(name) is None:
            continue  # no XLA verdict (timeout or crash of the compile): nothing to compare
        marks = []
        if name in KNOWN_DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def analyze(name: str) -> list[int]:
    """The outputs for which our analysis reports E1200."""
    with ir.Context():
        module = ir.Module.parse((DIFFERENTIAL_DIR / f"{name}.mlir").read_text())
        ran, report_json = _hostoffload.analyze(module.operation)
    report = json.loads(report_json)
    assert ran and not report["errors"], report["errors"]
    return sorted({f["output_index"] for f in report["findings"] if f["code"] == "E1200"})


def check(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["offload-opt", str(DIFFERENTIAL_DIR / f"{name}.mlir"), "--host-offload-check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )


def test_recorded_data_is_complete() -> None:
    generated = VERDICTS["generated"]
    for key in ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date"):
        assert generated.get(key), key
    on_disk = {path.stem for path in DIFFERENTIAL_DIR.glob("*.mlir")}
    assert sorted(set(MODULES) - on_disk) == [], "listed in verdicts.json but missing"
    assert sorted(on_disk - set(MODULES)) == [], "stray .mlir not listed in verdicts.json"
    programs = [n for n, e in MODULES.items() if e["kind"] == "program"]
    assert len(programs) >= 40
    for name, entry in MODULES.items():
        assert entry["kind"] in {"program", "jax_mutant", "attr_mutant", "fix_host", "fix_device"}
        assert entry["description"], name
        outputs = xla_outputs(name)
        if outputs is not None:
            assert outputs == sorted(set(outputs)), name
            assert all(0 <= i < len(entry["declared_memory_kinds"]) for i in outputs), name
            assert (entry["xla"]["status"] == "e1200") == bool(outputs), name


def test_known_disagreements_are_recorded_modules() -> None:
    assert sorted(set(KNOWN_DISAGREEMENTS) - set(MODULES)) == []


@pytest.mark.parametrize("name", compared_modules())
def test_checker_agrees_with_xla(name: str) -> None:
    expected = xla_outputs(name)
    assert expected is not None
    assert analyze(name) == expected, f"XLA: {MODULES[name]['xla']['message']}"


# One module per kind of verdict, through the driver as users run it.
DRIVER_SAMPLES = ["host_arg_returned_twice", "pytree_no_out_shardings", "remat_offload_scan_grad"]


@pytest.mark.parametrize("name", DRIVER_SAMPLES)
def test_driver_reports_the_same(name: str) -> None:
    result = check(name)
    assert "Stack dump" not in result.stderr, result.stderr
    assert "PLEASE submit a bug report" not in result.stderr, result.stderr
    found = sorted({int(index) for index in E1200_OUTPUT.findall(result.stderr)})
    assert found == analyze(name) == xla_outputs(name), result.stderr
    assert result.returncode == (1 if found else 0), result.stderr
