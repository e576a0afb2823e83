"""HOE105, HOE106, HOE107 and HOW109 against what XLA:TPU and the chip did.

``test/differential/chip.json`` holds a TPU v5e's runs: the suite's fixed modules and the
modules the check says halt the core, each run beside itself or its original on CPU, and
``async_slices``, the probes of ``tools/differential/chip_slices.py`` (a slice of a
``pinned_host`` argument returned in device memory, over shapes, element types, starts and
lengths). The recorded compile-only verdicts hold XLA:TPU's compile errors.
"""

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

import hostoffload
from tools.differential import layout
from tools.differential.chip_slices import SliceProbe, module_text

SUITE = REPO_ROOT / "test" / "differential"
CHIP = json.loads((SUITE / "chip.json").read_text())
HALTS = {"HOE105", "HOW109"}
LIMITS = {"HOE105", "HOE106", "HOE107"}


@cache
def verdicts(name: str) -> dict[str, Any]:
    return json.loads((SUITE / name).read_text())["modules"]


def codes_of(text: str) -> set[str]:
    return {finding.code for finding in hostoffload.check(text).findings}


def codes_of_module(name: str) -> set[str]:
    module = verdicts("verdicts.json")[name]
    return codes_of(layout.module_path(layout.SUITE, name, module).read_text())


RAN = sorted(name for name, run in CHIP["modules"].items() if "values_equal" in run)
HALTED = sorted(CHIP["summary"]["halted"])


def test_the_chip_halted_on_the_modules_the_check_says_halt() -> None:
    # Every fixed slice program and the programs reading a slice off a chunk.
    assert len(HALTED) == 18
    for name in HALTED:
        assert codes_of_module(name) & HALTS, name


@pytest.mark.parametrize("name", RAN)
def test_a_module_that_ran_on_the_chip_has_no_error_of_xla_tpus_limits(name: str) -> None:
    assert not codes_of_module(name) & LIMITS


def test_every_module_with_hoe105_that_ran_halted() -> None:
    ran_or_halted = set(RAN) | set(HALTED)
    predicted = [n for n in sorted(ran_or_halted) if "HOE105" in codes_of_module(n)]
    assert predicted and set(predicted) <= set(HALTED)


PROBES = CHIP["async_slices"]["probes"]


@pytest.mark.parametrize("probe", PROBES, ids=[p["name"] for p in PROBES])
def test_the_async_slice_probes(probe: dict[str, Any]) -> None:
    slice_probe = SliceProbe(
        tuple(probe["shape"]),
        probe["dtype"],
        tuple(probe["start"]),
        tuple(probe["sizes"]),
        probe["dynamic"],
    )
    codes = codes_of(module_text(slice_probe))
    outcome = probe["outcome"]
    if outcome == "ran":
        assert not codes & (LIMITS | {"E1200"})
    elif outcome == "halt":
        assert codes & (HALTS if slice_probe.dynamic else {"HOE105"})
    elif "E1200" in probe["message"]:
        # A slice of the whole tensor is no slice: the tensor itself reaches the output.
        assert "E1200" in codes
    else:
        assert "Async slice only supports slicing in 1 dimension" in probe["message"]
        assert "HOE106" in codes


@pytest.mark.parametrize("record", ["verdicts.json", "verdicts-libtpu-0.0.52.json"])
def test_hoe107_is_xla_tpus_host_gather_failure(record: str) -> None:
    failing = set()
    for name, module in verdicts(record).items():
        path = layout.module_path(layout.SUITE, name, module)
        xla = module.get("xla", {})
        if xla.get("status") == "error" and "Fusion must have backend config" in xla["message"]:
            assert path.is_file(), name
            failing.add(name)
    assert failing == {"host_arg_gather__fix_device", "host_arg_gather__fix_host"}
    for name in failing:
        assert "HOE107" in codes_of_module(name)
    # The program itself, before either fix.
    assert "HOE107" in codes_of_module("host_arg_gather")


def test_the_chip_json_records_both_rules() -> None:
    outcomes = {p["outcome"] for p in PROBES}
    assert outcomes == {"ran", "halt", "compile_error"}
    assert CHIP["machine"]["device_kind"] == "TPU v5 lite"


def test_module_text_is_read_by_the_check(tmp_path: Path) -> None:
    probe = SliceProbe((8,), "f32", (2,), (4,))
    path = tmp_path / "probe.mlir"
    path.write_text(module_text(probe))
    report = hostoffload.check(path)
    (finding,) = [f for f in report.findings if f.code == "HOE105"]
    assert "starting at element 2" in finding.message
    assert "multiple of 128 elements" in finding.message
