"""Our E1200 check against the verdicts of the real XLA:TPU compiler, without libtpu.

``tools/differential/run.py`` (opt-in, needs libtpu) lowered every program of its catalogue
for TPU, compiled it with XLA:TPU and recorded in ``test/differential/verdicts.json`` the exact
set of entry outputs XLA rejects with E1200 (XLA names only the first; the harness found the
others by re-declaring outputs ``pinned_host`` and recompiling). Here every recorded module
must give exactly XLA's set with the installed checker, modelling the XLA release of the libtpu
that recorded them (known by its build line): through the Python extension (its analysis, which
is what ``host-offload-check`` reports) on every module, through ``offload-opt`` on every
program, and the check must leave every module as it was. Each recording is checked under its
own release: ``verdicts.json`` (libtpu 0.0.42.1, XLA 2026-06) and
``verdicts-libtpu-0.0.52.json`` (XLA 2026-09), which compiled the same modules. Where XLA fails
with ``Unimplemented DMA from hbm to hbm`` instead, the checker must say so (HOE104). A module
that aborted libtpu has no verdict. See docs/differential.md.

A disagreement is never resolved by editing the recorded data: it is listed in
``KNOWN_DISAGREEMENTS`` (conftest.py) with the reason, and its test is a strict xfail until the
checker is fixed.
"""

import hashlib
import json
from typing import Any

import pytest
from conftest import (
    ALL_PROGRAMS,
    CHIP_HALTS,
    DIFFERENTIAL_DIR,
    DMA_HBM_TO_HBM,
    KNOWN_DISAGREEMENTS,
    MODULES,
    RECORDED_VERSIONS,
    RECORDED_XLA_RELEASE,
    RECORDINGS,
    VERDICTS,
    crash_markers_in,
    differential_module,
    e1200_outputs_in,
    generic_asm,
    recorded_release,
    run_offload_opt,
    xla_e1200_outputs,
)

from hostoffload.mlir import ir, passmanager
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.releases import newest_xla_release, xla_releases
from tools.differential import layout, outcomes


def xla_release_of(recording: str) -> str:
    """The XLA release the libtpu of ``recording`` carries, known by its build line."""
    return recorded_release(RECORDINGS[recording])


def recorded_outputs(recording: str, name: str) -> list[int] | None:
    """The outputs XLA rejected with E1200 in ``name`` in ``recording``; None: no verdict."""
    outputs = RECORDINGS[recording]["modules"][name]["xla"]["e1200_outputs"]
    return None if outputs is None else list(outputs)


def with_known_disagreements(names: list[str], only_reason: str | None = None) -> list[Any]:
    """``names`` as parameters, a known disagreement (of ``only_reason``, if given) a strict
    xfail."""
    params = []
    for name in names:
        marks = []
        reason = KNOWN_DISAGREEMENTS.get(name)
        if reason and only_reason in (None, reason):
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def compared(names: list[str]) -> list[Any]:
    """``(recording, name)`` of every recording that gave ``names`` a verdict (a module that
    timed out or aborted libtpu has nothing to compare), a known disagreement a strict xfail."""
    params = []
    for recording in RECORDINGS:
        for param in with_known_disagreements(names):
            name = param.values[0]
            recorded = name in RECORDINGS[recording]["modules"]
            if recorded and recorded_outputs(recording, name) is not None:
                params.append(
                    pytest.param(recording, name, marks=param.marks, id=f"{recording}:{name}")
                )
    return params


COMPARED = compared(sorted(MODULES))


def parse(name: str, context: ir.Context) -> ir.Module:
    """Module ``name`` parsed and verified by our C API: MLIR's own verifier (that of
    ``ir.Module.parse``) rejects a func.call inside a shard_map body."""
    module, errors = _hostoffload.parse(context, differential_module(name).read_bytes())
    assert module is not None, errors
    return module


def findings(name: str, release: str = RECORDED_XLA_RELEASE) -> list[dict[str, Any]]:
    """Our analysis' findings on ``name``, modelling XLA ``release``."""
    with ir.Context() as context:
        module = parse(name, context)
        ran, report_json = _hostoffload.analyze(module.operation, xla_release=release)
    report = json.loads(report_json)
    assert ran and not report["errors"], report["errors"]
    assert report["xla_release"] == release
    found: list[dict[str, Any]] = report["findings"]
    return found


def analyze(name: str, release: str = RECORDED_XLA_RELEASE) -> list[int]:
    """The outputs for which our analysis reports E1200."""
    return sorted({f["output_index"] for f in findings(name, release) if f["code"] == "E1200"})


def fails_without_e1200(name: str, recording: str = "verdicts.json") -> bool:
    """Whether XLA:TPU failed on ``name`` without an E1200 where the check's errors say so: a
    compile error or an abort of libtpu that no warning alone stands for (HOW106, HOW108), or,
    once compiled, a halt of the core whatever the inputs."""
    outcome = outcomes.xla_outcome(RECORDINGS[recording]["modules"][name], None)
    warned = {failure.name for failure in outcomes.FAILURES if not failure.errors}
    if name in CHIP_HALTS:
        return True
    return outcome not in (outcomes.COMPILED, outcomes.E1200, None, *warned)


def test_recorded_data_is_complete() -> None:
    generated = VERDICTS["generated"]
    for key in ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date"):
        assert generated.get(key), key
    # Every module in the folder of its kind; sibling/ is a suite of its own.
    on_disk = {
        str(path.relative_to(DIFFERENTIAL_DIR))
        for path in DIFFERENTIAL_DIR.rglob("*.mlir")
        if not path.is_relative_to(layout.SIBLING_SUITE)
    }
    listed = {str(differential_module(name).relative_to(DIFFERENTIAL_DIR)) for name in MODULES}
    assert sorted(listed - on_disk) == [], "listed in verdicts.json but missing"
    assert sorted(on_disk - listed) == [], "stray .mlir: not in verdicts.json, or not in its kind"
    programs = [n for n, e in MODULES.items() if e["kind"] == "program"]
    assert len(programs) >= 40
    for name, entry in MODULES.items():
        assert entry["kind"] in layout.KIND_FOLDERS, name
        assert isinstance(entry["description"], str) and entry["description"], name
        outputs = xla_e1200_outputs(name)
        if outputs is not None:
            assert outputs == sorted(set(outputs)), name
            assert all(0 <= i < len(entry["declared_memory_kinds"]) for i in outputs), name
            assert (entry["xla"]["status"] == "e1200") == bool(outputs), name


def test_other_releases_compiled_the_recorded_modules() -> None:
    """Each other recording compiled modules of verdicts.json, as they are on disk."""
    for recording, document in RECORDINGS.items():
        generated = document["generated"]
        for key in RECORDED_VERSIONS:
            assert generated.get(key), (recording, key)
        if recording == "verdicts.json":
            continue
        assert sorted(set(document["modules"]) - set(MODULES)) == [], recording
        for name, entry in document["modules"].items():
            text = differential_module(name).read_bytes()
            assert entry["module_sha256"] == hashlib.sha256(text).hexdigest(), (
                f"{name} changed since {recording} compiled it: compile it again "
                "(python -m tools.differential.run --recompile, docs/differential.md)"
            )


def test_the_oldest_and_the_newest_release_are_recorded() -> None:
    """The rules that differ by release are held against XLA both ways."""
    releases = [xla_release_of(recording) for recording in RECORDINGS]
    assert {next(iter(xla_releases())), newest_xla_release()} <= set(releases)
    assert len(set(releases)) == len(releases), "two recordings of one XLA release"


def test_an_abort_is_no_verdict() -> None:
    """A module that ended libtpu's process has no verdict in any recording."""
    for recording, document in RECORDINGS.items():
        for name, entry in document["modules"].items():
            if entry["xla"]["status"] in ("crash", "timeout"):
                assert entry["xla"]["e1200_outputs"] is None, (recording, name)
                assert entry["agrees"] is None, (recording, name)


def test_known_disagreements_are_recorded_modules() -> None:
    assert sorted(set(KNOWN_DISAGREEMENTS) - set(MODULES)) == []


@pytest.mark.parametrize(("recording", "name"), COMPARED)
def test_checker_agrees_with_xla(recording: str, name: str) -> None:
    expected = recorded_outputs(recording, name)
    assert expected is not None
    message = RECORDINGS[recording]["modules"][name]["xla"]["message"]
    assert analyze(name, xla_release_of(recording)) == expected, f"XLA: {message}"


@pytest.mark.parametrize(("recording", "name"), COMPARED)
def test_checker_predicts_xlas_other_failure(recording: str, name: str) -> None:
    """HOE104, with XLA's sentence, exactly where XLA fails with it."""
    release = xla_release_of(recording)
    predicted = [f["message"] for f in findings(name, release) if f["code"] == "HOE104"]
    if RECORDINGS[recording]["modules"][name]["xla"]["message"] == DMA_HBM_TO_HBM:
        assert len(predicted) == 1
        assert predicted[0].startswith(f"HOE104: {DMA_HBM_TO_HBM[:-1]};"), predicted
    else:
        assert predicted == [], RECORDINGS[recording]["modules"][name]["xla"]["message"]


@pytest.mark.parametrize(("recording", "name"), compared(ALL_PROGRAMS))
def test_driver_reports_the_same(recording: str, name: str) -> None:
    """Every program through ``offload-opt --host-offload-check``, as users run it."""
    result = run_offload_opt(
        differential_module(name), f"--host-offload-check=xla-release={xla_release_of(recording)}"
    )
    assert crash_markers_in(result.stderr) == [], result.stderr
    expected = recorded_outputs(recording, name)
    fails = bool(expected) or fails_without_e1200(name, recording)
    if name not in outcomes.UNPREDICTED:
        assert result.returncode == (1 if fails else 0), result.stderr
    assert e1200_outputs_in(result.stderr) == expected, result.stderr


@pytest.mark.parametrize("name", with_known_disagreements(sorted(MODULES)))
def test_check_never_changes_the_module(name: str) -> None:
    with ir.Context() as context:
        module = parse(name, context)
        before = generic_asm(module.operation)
        pipeline = passmanager.PassManager.parse(
            f"builtin.module(host-offload-check{{xla-release={RECORDED_XLA_RELEASE}}})"
        )
        try:
            pipeline.run(module.operation)
        except ir.MLIRError:
            assert analyze(name) or fails_without_e1200(name), "the check failed on a clean module"
        assert generic_asm(module.operation) == before
