"""The checker against XLA:TPU's verdicts on the other compile errors of the host offloader.

``tools/differential/catalogue_sibling.py`` (opt-in, needs libtpu) compiled each program of
its catalogue with XLA:TPU, with the XLA flags the program names, and recorded in
``test/differential/sibling/verdicts*.json``, one file per libtpu release (``verdicts.json``
0.0.42.1, ``verdicts-libtpu-0.0.52.json`` 0.0.52), XLA's status: ``ok``, ``e1200``,
``parameter_not_host`` (``Entry computation parameter "<name>" ... is not in host memory
space.``, with every parameter XLA names once the ones before are declared in host memory) or
``host_compute_disabled`` (``Automatic host compute offloading is disabled.``). Here the
installed checker, run with the options that mirror those flags and modelling the XLA release
that libtpu carries (known by its build line), must give the same status and, for
``parameter_not_host``, the same set of parameters (docs/differential.md).
"""

import json
import re
from pathlib import Path
from typing import Any

import pytest

import hostoffload
from hostoffload.releases import newest_xla_release, xla_release_of_platform_version, xla_releases
from tools.differential import layout

SIBLING_DIR = layout.SIBLING_SUITE
# Each recording by its file name: what one libtpu release said of every program.
RECORDINGS: dict[str, dict[str, Any]] = {
    path.name: json.loads(path.read_text()) for path in sorted(SIBLING_DIR.glob("verdicts*.json"))
}
MODULES: dict[str, Any] = RECORDINGS["verdicts.json"]["modules"]
STRICT_FLAG = "xla_disable_automatic_host_compute_offload"
H2H_FLAG = "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled"
PARAMETER = re.compile(r'^HOE102: Entry computation parameter "([^"]+)" \(shape index')
# XLA names a parameter after the value it came from, with a number: `buf.1`.
XLA_NUMBER = re.compile(r"\.\d+$")
# What XLA raises while it follows host memory, before it looks at the writes into buffers.
WALK_CODES = {"E1200": "e1200", "HOE101": "host_compute_disabled"}
WRITE_CODES = {"HOE102": "parameter_not_host", "HOE101": "host_compute_disabled"}
# HOE101 of a write into a buffer (XLA's HandleDynamicUpdateSlices), not of the walk.
WRITE_HOST_COMPUTE = "writes a tensor in host memory (its update)"


def xla_release_of(recording: str) -> str:
    """The XLA release the libtpu of ``recording`` carries."""
    return xla_release_of_platform_version(RECORDINGS[recording]["generated"]["platform_version"])


def checked(name: str, recording: str) -> hostoffload.Report:
    flags = MODULES[name]["xla_flags"]
    return hostoffload.check(
        Path(SIBLING_DIR / f"{name}.mlir"),
        strict=bool(flags.get(STRICT_FLAG)),
        allow_h2h_copy=bool(flags.get(H2H_FLAG)),
        xla_release=xla_release_of(recording),
    )


def recorded(status: str | None = None) -> list[tuple[str, str]]:
    """Every (recording, program), or those whose XLA status is ``status``."""
    return [
        (recording, name)
        for recording, document in RECORDINGS.items()
        for name, entry in sorted(document["modules"].items())
        if status in (None, entry["xla"]["status"])
    ]


def possible_statuses(report: hostoffload.Report) -> set[str]:
    """XLA's status if it raises the first of our errors: the walk's errors come first."""
    walk = {
        WALK_CODES[f.code]
        for f in report.errors
        if f.code in WALK_CODES and WRITE_HOST_COMPUTE not in f.message
    }
    if walk:
        return walk
    writes = {WRITE_CODES[f.code] for f in report.errors if f.code in WRITE_CODES}
    return writes or {"ok"}


@pytest.mark.parametrize("recording", sorted(RECORDINGS))
def test_recorded_data_is_complete(recording: str) -> None:
    generated = RECORDINGS[recording]["generated"]
    for key in ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date"):
        assert generated.get(key), key
    on_disk = {path.stem for path in SIBLING_DIR.glob("*.mlir")}
    modules = RECORDINGS[recording]["modules"]
    assert on_disk == set(modules)
    assert len(modules) >= 12
    statuses = {entry["xla"]["status"] for entry in modules.values()}
    assert {"ok", "parameter_not_host", "host_compute_disabled"} <= statuses


def test_recordings_span_the_oldest_and_the_newest_xla() -> None:
    """The rules that differ by release are held against XLA both ways."""
    releases = {xla_release_of(recording) for recording in RECORDINGS}
    assert {next(iter(xla_releases())), newest_xla_release()} <= releases
    assert len(releases) == len(RECORDINGS), "two recordings of one XLA release"


@pytest.mark.parametrize(("recording", "name"), recorded())
def test_status_is_xlas(recording: str, name: str) -> None:
    report = checked(name, recording)
    status = RECORDINGS[recording]["modules"][name]["xla"]["status"]
    assert status in possible_statuses(report), [f.message for f in report.errors]


@pytest.mark.parametrize(("recording", "name"), recorded("parameter_not_host"))
def test_parameters_are_xlas(recording: str, name: str) -> None:
    xla = RECORDINGS[recording]["modules"][name]["xla"]
    assert xla["after_declaring_them_host"] in ("ok", "host_compute_disabled")
    ours = [m[1] for f in checked(name, recording).errors if (m := PARAMETER.match(f.message))]
    assert sorted(ours) == sorted(XLA_NUMBER.sub("", p) for p in xla["parameters"])
