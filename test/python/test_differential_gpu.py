"""The check for XLA:GPU against XLA:GPU's own verdicts, recorded without a GPU.

``tools/differential/gpu.py`` and ``run.py --recompile --gpu-target`` (opt-in, in a venv with
``.[oracle-gpu]``: jax-cuda12-plugin, no GPU, no CUDA) compiled every recorded module of the
differential suite (the mesh modules on as many devices of a GPU topology), the sibling suite's
programs with their XLA flags, and the HLO dumps, with XLA:GPU for two targets (H100, A100:
XLA's specs in ``tools/differential/gpu_targets/``), into ``test/differential/gpu/``. Here the
installed checker, asked for XLA:GPU (``platform="cuda"``) and modelling the XLA release of
the plugin, must give XLA:GPU's exact set of E1200 outputs on every module with a verdict, its
status and parameters on the sibling suite, and its set on the HLO dumps; and it must report
what XLA:GPU does instead of compiling where XLA:GPU fails otherwise. The records must be of
the modules on disk. See docs/differential.md.

A difference is never resolved by editing the recorded data: it goes in ``KNOWN_DIFFERENCES``
with the reason, and its test is a strict xfail until the checker models it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import MODULES, differential_module

import hostoffload
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from tools.differential import gpu, layout

GPU_DIR = gpu.RECORDS
TARGETS = sorted(gpu.TARGETS)


def record(suite: str, target: str) -> dict[str, Any]:
    name = f"{target}.json" if suite == "main" else f"{suite}-{target}.json"
    document: dict[str, Any] = json.loads((GPU_DIR / name).read_text())
    return document


RECORDS = {
    (suite, target): record(suite, target)
    for suite in ("main", "sibling", "hlo")
    for target in TARGETS
}
# What a recording says of the compiler that made it.
GPU_VERSIONS = ("jax", "jaxlib", "jax_cuda12_plugin", "platform_version", "device_kind", "date")

# Modules on which the checker does not give XLA:GPU's verdict, with the reason.
KNOWN_DIFFERENCES: dict[str, str] = {}
# Modules XLA:GPU fails on otherwise, where the check does not say so (HOE111), with the reason.
UNPREDICTED_FAILURES: dict[str, str] = {
    "slice_written_into_device_arg__fix_device": (
        "XLA:GPU rewrites the scatter of a host slice into a device argument as a "
        "dynamic-update-slice and fails its verifier there; HOE111 looks at "
        "dynamic_update_slice ops only"
    ),
}


def release_of(document: dict[str, Any]) -> str:
    """The XLA release of the jax-cuda12-plugin that made a recording."""
    return gpu.xla_release_of_plugin(document["generated"]["jax_cuda12_plugin"])


def verdicts(suite: str, known: dict[str, str] = KNOWN_DIFFERENCES) -> list[Any]:
    """``(target, module)`` of every module a recording of ``suite`` has a verdict on, those
    in ``known`` strict xfails."""
    params = []
    for target in TARGETS:
        for name, entry in sorted(RECORDS[suite, target]["modules"].items()):
            if suite != "sibling" and entry["xla"]["e1200_outputs"] is None:
                continue
            reason = known.get(name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(target, name, marks=marks, id=f"{target}:{name}"))
    return params


@functools.cache
def findings(name: str, release: str) -> list[dict[str, Any]]:
    """The analysis' findings on module ``name`` of the main suite, for XLA:GPU."""
    with ir.Context() as context:
        module, errors = _hostoffload.parse(context, differential_module(name).read_bytes())
        assert module is not None, errors
        ran, report_json = _hostoffload.analyze(
            module.operation, xla_release=release, platform="cuda"
        )
    report = json.loads(report_json)
    assert ran and not report["errors"], report["errors"]
    found: list[dict[str, Any]] = report["findings"]
    return found


@pytest.mark.parametrize("target", TARGETS)
def test_records_are_of_the_modules_on_disk(target: str) -> None:
    for suite, suite_dir, suffix in (
        ("main", None, ""),
        ("sibling", layout.SIBLING_SUITE, ".mlir"),
        ("hlo", layout.HLO_SUITE, ".hlo.txt"),
    ):
        document = RECORDS[suite, target]
        for key in GPU_VERSIONS:
            assert document["generated"].get(key), (suite, key)
        assert gpu.TARGETS[target], target
        assert document["generated"]["gpu_target"] == target
        if suite == "main":
            assert set(document["modules"]) == set(MODULES)
        for name, entry in document["modules"].items():
            path = (
                differential_module(name)
                if suite_dir is None
                else Path(suite_dir) / f"{name}{suffix}"
            )
            assert entry["module_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), (
                f"{path} changed since XLA:GPU compiled it: record it again (docs/differential.md)"
            )


@pytest.mark.parametrize(("target", "name"), verdicts("main"))
def test_checker_agrees_with_xla_gpu(target: str, name: str) -> None:
    xla = RECORDS["main", target]["modules"][name]["xla"]
    release = release_of(RECORDS["main", target])
    ours = sorted({f["output_index"] for f in findings(name, release) if f["code"] == "E1200"})
    assert ours == xla["e1200_outputs"], f"XLA:GPU: {xla['message']}"


# XLA:GPU's verifier after HostOffloader: a write of host memory into a device buffer (HOE111),
# a conditional whose result is host memory from one branch only (HOE112).
OTHER_FAILURES = {
    "HOE111": lambda message: "DynamicUpdateSlice instruction shouldn't change layout" in message,
    "HOE112": lambda message: (
        "Expected instruction to have shape equal to" in message and "conditional(" in message
    ),
}


@pytest.mark.parametrize(("target", "name"), verdicts("main", UNPREDICTED_FAILURES))
def test_checker_predicts_xla_gpus_other_failure(target: str, name: str) -> None:
    """HOE111 and HOE112 where XLA:GPU fails with their sentences; neither where XLA:GPU
    compiles. Past E1200 XLA:GPU stops: a module it rejects with E1200 may hold them too."""
    xla = RECORDS["main", target]["modules"][name]["xla"]
    release = release_of(RECORDS["main", target])
    for code, fails_so in OTHER_FAILURES.items():
        predicted = [f["message"] for f in findings(name, release) if f["code"] == code]
        if fails_so(xla["message"]):
            assert predicted, (code, xla["message"])
        elif xla["status"] == "ok":
            assert predicted == [], code


@pytest.mark.parametrize(("target", "name"), verdicts("sibling"))
def test_sibling_status_is_xla_gpus(target: str, name: str) -> None:
    from test_differential_sibling import H2H_FLAG, STRICT_FLAG, possible_statuses

    entry = RECORDS["sibling", target]["modules"][name]
    report = hostoffload.check(
        layout.SIBLING_SUITE / f"{name}.mlir",
        strict=bool(entry["xla_flags"].get(STRICT_FLAG)),
        allow_h2h_copy=bool(entry["xla_flags"].get(H2H_FLAG)),
        xla_release=release_of(RECORDS["sibling", target]),
        platform="cuda",
    )
    statuses = possible_statuses(report)
    # XLA:GPU's verifier runs after HostOffloader: HOE111 is its status when nothing before.
    if statuses == {"ok"} and any(f.code == "HOE111" for f in report.errors):
        statuses = {"error"}
    assert entry["xla"]["status"] in statuses, entry["xla"]["message"]


@pytest.mark.parametrize(("target", "name"), verdicts("sibling"))
def test_sibling_parameters_are_xla_gpus(target: str, name: str) -> None:
    from test_differential_sibling import PARAMETER, XLA_NUMBER

    entry = RECORDS["sibling", target]["modules"][name]
    if entry["xla"]["status"] != "parameter_not_host":
        return
    report = hostoffload.check(
        layout.SIBLING_SUITE / f"{name}.mlir",
        xla_release=release_of(RECORDS["sibling", target]),
        platform="cuda",
    )
    ours = [m[1] for f in report.errors if (m := PARAMETER.match(f.message))]
    assert sorted(ours) == sorted(XLA_NUMBER.sub("", p) for p in entry["xla"]["parameters"])


@pytest.mark.parametrize(("target", "name"), verdicts("hlo"))
def test_hlo_dump_is_xla_gpus(target: str, name: str) -> None:
    pytest.importorskip("jax", reason="HLO text is converted through jaxlib")
    xla = RECORDS["hlo", target]["modules"][name]["xla"]
    report = hostoffload.check(
        layout.HLO_SUITE / f"{name}.hlo.txt",
        xla_release=release_of(RECORDS["hlo", target]),
        platform="cuda",
    )
    ours = sorted({f.output_index for f in report.errors if f.code == "E1200"})
    assert ours == xla["e1200_outputs"], xla["message"]


@pytest.mark.parametrize("name", ["unpinned_host_single_output", "unpinned_host_arg"])
def test_tpu_only_findings_are_never_reported_for_gpu(name: str) -> None:
    """XLA:GPU compiles both (recorded); XLA:TPU fails on them, as HOE104 and HOW106 say."""
    path = differential_module(name)
    for target in TARGETS:
        assert RECORDS["main", target]["modules"][name]["xla"]["status"] == "ok"
    tpu = hostoffload.check(path, xla_release="2026-06")
    gpu_report = hostoffload.check(path, xla_release="2026-06", platform="cuda")
    assert any("XLA:TPU" in f.message for f in tpu.findings)
    assert not any(
        "XLA:TPU" in f.message or f.code in ("HOE104", "HOW108") for f in gpu_report.findings
    )
    assert gpu_report.ok
    assert "modelled on XLA:GPU, XLA 2026-06: xla_release='2026-06'" in gpu_report.to_text()
    assert '"compiled_for": "cuda"' in gpu_report.to_json()


def test_the_gpu_release_is_that_of_the_jaxlib_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unless told, XLA:GPU is the XLA of the jaxlib installed here (its plugin's version)."""
    from importlib import metadata

    from hostoffload.releases import JAXLIB_XLA_RELEASES

    monkeypatch.delenv("HOSTOFFLOAD_XLA_RELEASE", raising=False)
    report = hostoffload.check(differential_module("unpinned_host_arg"), platform="cuda")
    version = metadata.version("jaxlib")
    if version in JAXLIB_XLA_RELEASES:
        expected = f"XLA:GPU, XLA {JAXLIB_XLA_RELEASES[version]}: jaxlib {version}, installed here"
    else:
        expected = f"for jaxlib {version}, which is not one known"
    assert expected in report.to_text()


FIXES = {target: record("fixes", target) for target in TARGETS}
# What XLA:GPU fails a fix with where the check says so (HOE111, HOE112), by the code.
PREDICTED_FAILURES = ("HOE111", "HOE112")
# Fixes for XLA:GPU that XLA:GPU fails, where the check does not say so, with the reason.
DONATED = (
    "XLA:GPU's `Copy-start ... doesn't have correct host memory space color S(5)`: the device "
    "fix of a donated pinned_host argument computed on; not modelled"
)
REMAT = (
    "the weights left in pinned_host make the scanned layer host compute, and XLA:GPU's check "
    "of shapes refuses the loop's tuple (XLA:TPU fails both fixes too); not modelled"
)
SCATTER = UNPREDICTED_FAILURES["slice_written_into_device_arg__fix_device"]
UNPREDICTED_FIX_FAILURES: dict[str, str] = {
    "m2_donated_host_arg_compute__out0_device__gpu_fix_device": DONATED,
    "m2_donated_host_arg_compute__out0_unpinned_host__gpu_fix_device": DONATED,
    "m8_donated_host_arg_compute__out0_device__gpu_fix_device": DONATED,
    "m8_donated_host_arg_compute__out0_unpinned_host__gpu_fix_device": DONATED,
    "remat_offload_scan_grad_weights_on_host__gpu_fix_device": REMAT,
    "remat_offload_scan_grad_weights_on_host__gpu_fix_host": REMAT,
    "slice_written_into_device_arg__gpu_fix_device": SCATTER,
    "slice_written_into_device_arg__gpu_fix_host": SCATTER,
}


def gpu_fixes() -> list[Any]:
    """``(target, fix)`` of every fix the check for XLA:GPU made that XLA:GPU gave a verdict on
    (``host_arg_sort``'s abort it, as libtpu 0.0.42.1)."""
    params = []
    for target in TARGETS:
        for name, entry in sorted(FIXES[target]["modules"].items()):
            if entry.get("xla", {}).get("status") == "crash":
                continue
            reason = UNPREDICTED_FIX_FAILURES.get(name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(target, name, marks=marks, id=f"{target}:{name}"))
    return params


@functools.cache
def fixed_for_gpu(base: str, strategy: str, release: str) -> tuple[str, dict[str, Any]]:
    """The fix for XLA:GPU of module ``base`` with ``strategy`` (as ``gpu.py fixes`` makes it:
    ``offload-opt``, generic form with locations), and the check for XLA:GPU of it."""
    from tools.differential import run

    with tempfile.TemporaryDirectory() as staging:
        settings = run.Settings(
            offload_opt="offload-opt",
            timeout=300.0,
            memory_gb=8.0,
            topology=gpu.TOPOLOGY,
            lock_wait=0.0,
            staging=Path(staging),
            xla_release=release,
            gpu_target=TARGETS[0],
        )
        fixed, log = run.fixed(settings, differential_module(base).read_text(), strategy)
        assert fixed is not None, log
        return fixed, run.check(settings, fixed)


@pytest.mark.parametrize(("target", "name"), gpu_fixes())
def test_each_fix_for_gpu_compiles_or_the_check_says_why(target: str, name: str) -> None:
    """Every fix the check for XLA:GPU offers (both strategies, every module it finds E1200
    in): the fix made now is the one recorded; XLA:GPU compiles it and the check finds no
    error in it, or XLA:GPU fails it and the check says so (HOE111, HOE112)."""
    entry = FIXES[target]["modules"][name]
    assert "fix_failed" not in entry, entry.get("fix_failed")
    base = differential_module(entry["base"]).read_bytes()
    assert hashlib.sha256(base).hexdigest() == entry["base_sha256"]
    fixed, ours = fixed_for_gpu(entry["base"], entry["strategy"], release_of(FIXES[target]))
    assert hashlib.sha256(fixed.encode()).hexdigest() == entry["fixed_sha256"], (
        "the fix for XLA:GPU changed since XLA:GPU compiled it: record it again"
    )
    xla = entry["xla"]
    assert xla["status"] in ("ok", "error"), f"XLA:GPU: {xla['message']}"
    assert ours["e1200_outputs"] == []
    predicted = [code for code in ours["errors"] if code in PREDICTED_FAILURES]
    assert bool(predicted) == (xla["status"] == "error"), (predicted, xla["message"])
