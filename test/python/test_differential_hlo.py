"""Our E1200 check on HLO text against XLA:TPU's verdicts, without libtpu.

``tools/differential/catalogue_hlo.py`` (opt-in, needs libtpu) compiled recorded programs of
the differential suite with XLA:TPU, kept two HLO dumps of each compile (the module XLA starts
from, and the module HostOffloader ran on) and recorded in ``test/differential/hlo/
verdicts.json`` XLA's exact set of rejected outputs and its message; ``verdicts-libtpu-0.0.52.json``
holds those of libtpu 0.0.52, which compiled the same programs again (``catalogue_hlo.py
--recompile``). Here every dump must give exactly XLA's set under the XLA release of each
recording's libtpu, and the instruction our E1200 names beside its own description must be the
one XLA's message names. See docs/differential.md.
"""

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    RECORDED_VERSIONS,
    e1200_outputs_in,
    recorded_release,
    recordings,
    run_offload_opt,
)

import hostoffload
from hostoffload import _convert, _forms
from hostoffload.report import Report
from tools.differential import layout

pytest.importorskip("jax", reason="HLO text is converted through jaxlib")

HLO_DIR = layout.HLO_SUITE
# Each libtpu release's verdicts on the programs, by file name.
RECORDINGS = recordings(HLO_DIR)
VERDICTS: dict[str, Any] = RECORDINGS["verdicts.json"]
MODULES: dict[str, dict[str, Any]] = VERDICTS["modules"]
# The XLA release of the libtpu that recorded the verdicts, which the checker models.
RECORDED_XLA_RELEASE = recorded_release(VERDICTS)
# ``(recording, module)`` of every verdict: a module that aborted libtpu has none.
COMPARED = [
    pytest.param(recording, name, id=f"{recording}:{name}")
    for recording, document in RECORDINGS.items()
    for name, entry in sorted(document["modules"].items())
    if entry["xla"]["e1200_outputs"] is not None
]
XLA_NAME_IN_MESSAGE = re.compile(r"\(starting from [^)]*, XLA: '([^']+)'\)")

# Modules whose E1200 names no XLA instruction, with the reason: XLA names an instruction
# that is not in the HLO given, or that the HLO importer drops. Naming none is the deliberate
# difference; naming another one would be a wrong answer.
UNNAMED: dict[str, str] = {
    "device_put_host_host_out_shardings__out0_device.before_optimizations": (
        "XLA names its MoveToHost (custom-call.1) that replaces the second of two "
        "annotations: a name the dump before optimizations does not have"
    ),
    "hlo_host_call_then_offload__out0_device.before_optimizations": (
        "XLA names its MoveToHost (custom-call.1) that replaces the second of two "
        "annotations: a name the dump before optimizations does not have"
    ),
    "scan_offload_ys__out1_device.before_optimizations": (
        "the move to host is in a callee: XLA inlines it and renames what it inlined"
    ),
}


def path_of(name: str) -> Path:
    return HLO_DIR / f"{name}.hlo.txt"


@functools.cache
def generic(name: str) -> str:
    """Module ``name`` converted in this process (one jaxlib import for all;
    ``test_driver_reports_the_same`` takes the route users take)."""
    path = path_of(name)
    return _convert.to_generic(path.read_bytes(), _forms.Form.HLO, path.name, str(path)).decode()


@functools.cache
def check(name: str, release: str = RECORDED_XLA_RELEASE) -> Report:
    """Our report on module ``name``, modelling XLA ``release``."""
    return hostoffload.check(generic(name), xla_release=release)


def test_recorded_data_is_complete() -> None:
    generated = VERDICTS["generated"]
    for key in ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date"):
        assert generated.get(key), key
    on_disk = {path.name.removesuffix(".hlo.txt") for path in HLO_DIR.glob("*.hlo.txt")}
    assert sorted(set(MODULES) ^ on_disk) == []
    programs = {entry["program"] for entry in MODULES.values()}
    assert len(programs) >= 15
    for name, entry in MODULES.items():
        assert entry["form"] in {"before_optimizations", "host_offloader"}, name
        assert name == f"{entry['program']}.{entry['form']}"
        outputs = entry["xla"]["e1200_outputs"]
        assert (entry["xla"]["status"] == "e1200") == bool(outputs), name
        assert (entry["xla"]["xla_name"] is not None) == bool(outputs), name
    assert sorted(set(UNNAMED) - set(MODULES)) == []


def test_other_releases_compiled_the_recorded_programs() -> None:
    """Each other recording compiled the programs whose dumps are on disk, as they are."""
    for recording, document in RECORDINGS.items():
        generated = document["generated"]
        for key in RECORDED_VERSIONS:
            assert generated.get(key), (recording, key)
        if recording == "verdicts.json":
            continue
        assert sorted(document["modules"]) == sorted(MODULES), recording
        for name, entry in document["modules"].items():
            text = path_of(name).read_bytes()
            assert entry["module_sha256"] == hashlib.sha256(text).hexdigest(), (
                f"{name} changed since {recording} compiled it: compile it again "
                "(catalogue_hlo.py --recompile, docs/differential.md)"
            )
            outputs = entry["xla"]["e1200_outputs"]
            if outputs is None:  # an abort: no verdict
                assert entry["xla"]["status"] == "crash", (recording, name)
                continue
            assert (entry["xla"]["status"] == "e1200") == bool(outputs), (recording, name)
            assert (entry["xla"]["xla_name"] is not None) == bool(outputs), (recording, name)


def test_the_catalogue_has_host_calls_of_both_outcomes() -> None:
    """Host calls whose output XLA keeps in device memory and one it keeps in host memory."""
    with_host_calls = [
        name for name in MODULES if 'async_execution_thread="host"' in path_of(name).read_text()
    ]
    programs = {MODULES[name]["program"] for name in with_host_calls}
    assert "compute_on_host_arg" in programs
    assert "compute_on_device_host_to_host" in programs


@pytest.mark.parametrize(("recording", "name"), COMPARED)
def test_checker_agrees_with_xla(recording: str, name: str) -> None:
    """Under the XLA release of the recording's libtpu."""
    xla = RECORDINGS[recording]["modules"][name]["xla"]
    report = check(name, recorded_release(RECORDINGS[recording]))
    errors = [f for f in report.errors if f.code == "E1200"]
    assert sorted({f.output_index for f in errors}) == xla["e1200_outputs"], xla["message"]
    names = {found for f in errors for found in XLA_NAME_IN_MESSAGE.findall(f.message)}
    if name in UNNAMED:
        assert names == set(), UNNAMED[name]
    elif errors:
        assert names == {xla["xla_name"]}, xla["message"]


@pytest.mark.parametrize("name", [n for n in sorted(MODULES) if n not in UNNAMED])
def test_the_start_of_the_report_has_the_xla_name(name: str) -> None:
    """The JSON's start carries the name the message shows."""
    expected = MODULES[name]["xla"]["xla_name"]
    report = Report.from_json(json.loads(check(name).to_json()))
    first_starts = {f.starts[0].xla_name for f in report.errors if f.code == "E1200"}
    assert first_starts == ({expected} if expected else set())


# One module of each outcome, through offload-opt as users run it.
DRIVER_MODULES = [
    "compute_on_host_arg.host_offloader",
    "host_arg_three_outputs.before_optimizations",
    "device_put_host_then_compute__out0_device.host_offloader",
]


@pytest.mark.parametrize("name", DRIVER_MODULES)
def test_driver_reports_the_same(name: str) -> None:
    xla = MODULES[name]["xla"]
    result = run_offload_opt(
        path_of(name), f"--host-offload-check=xla-release={RECORDED_XLA_RELEASE}"
    )
    assert result.returncode == (1 if xla["e1200_outputs"] else 0), result.stderr
    assert e1200_outputs_in(result.stderr) == xla["e1200_outputs"], result.stderr
    if xla["xla_name"]:
        assert f"XLA: '{xla['xla_name']}'" in result.stderr
