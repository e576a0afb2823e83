"""The plain path gives what the fast paths give, byte for byte.

``HOSTOFFLOAD_PLAIN=1`` turns off every fast path the library and ``offload-opt`` can turn off
at run time (cpp/include/hostoffload/FastPaths.h; docs/performance.md, "The fast paths"). On the
examples and a sample of the differential suite, ``offload-opt``'s check and both fixes (the
module printed, the diagnostics, the exit status) and ``hostoffload check --format json`` are
run with the switch and without, and must not differ. With ``HOSTOFFLOAD_PLAIN_OFFLOAD_OPT``
naming an ``offload-opt`` built with ``-DHOSTOFFLOAD_FAST_PATHS=OFF``, its runs are compared
with the installed native driver's instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from hostoffload._driver import DRIVER
from hostoffload.mlir._mlir_libs import _hostoffload

PLAIN = "HOSTOFFLOAD_PLAIN"
# An offload-opt built without the fast paths, to compare with the installed one.
PLAIN_BUILD = os.environ.get("HOSTOFFLOAD_PLAIN_OFFLOAD_OPT")
# Every this-many-th module of the differential suite, in sorted order: about forty, of every
# kind the suite holds (programs, mutants, fixes, meshes, sibling errors).
SAMPLE_EVERY = 25
OFFLOAD_OPT_RUNS = {
    "check": ["--host-offload-check"],
    "fix-host": ["--host-offload-fix=strategy=host", "--mlir-print-op-generic"],
    "fix-device": [
        "--host-offload-fix=strategy=device",
        "--mlir-print-op-generic",
        "--mlir-print-debuginfo",
    ],
}


def environment(plain: bool) -> dict[str, str]:
    """This process's environment with the switch set, or cleared."""
    return {**os.environ, PLAIN: "1" if plain else ""}


def offload_opt(plain: bool) -> str:
    """The offload-opt run on the fast path or on the plain one."""
    if PLAIN_BUILD:
        return PLAIN_BUILD if plain else str(DRIVER)
    return "offload-opt"


def fast_paths(plain: bool) -> str:
    """What ``offload-opt --version`` says of its fast paths."""
    version = subprocess.run(
        [offload_opt(plain), "--version"],
        env=environment(plain),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return version.split("fast paths: ", 1)[1].strip()


# Inputs of the lit suite whose diagnostics show what the fast paths of offload-opt's handler
# format differently (lines of the input, wide lines cut to a window, the note on debug info).
DRIVER_INPUTS = [
    "cached-diagnostics.mlir",
    "cached-diagnostics-call-stack.mlir",
    "debug-info-hint.mlir",
    "long-source-lines.mlir",
    "Inputs/input-lines.mlir",
]


def sample() -> list[Path]:
    """The modules compared: the examples, a few inputs of the lit suite and every
    SAMPLE_EVERY-th module of the differential suite."""
    differential = sorted((REPO_ROOT / "test" / "differential").rglob("*.mlir"))
    driver = [REPO_ROOT / "test" / "lit" / "driver" / name for name in DRIVER_INPUTS]
    return sorted((REPO_ROOT / "examples").glob("*.mlir")) + driver + differential[::SAMPLE_EVERY]


MODULES = sample()


@pytest.fixture(scope="module", autouse=True)
def the_switch_applies() -> None:
    """Without fast paths built in, both runs are the plain path and compare nothing."""
    fast = fast_paths(plain=False)
    if fast != "on":
        pytest.skip(f"the fast paths are {fast}")
    plain = "off (built without)" if PLAIN_BUILD else "off (HOSTOFFLOAD_PLAIN)"
    assert fast_paths(plain=True) == plain


def run(command: list[str], plain: bool, out: Path | None = None) -> tuple[int, str, bytes | None]:
    """Runs ``command`` from the repository root; its exit status, stderr, and the bytes of
    ``out`` (None where a failed run left none), else of stdout."""
    result = subprocess.run(
        command, env=environment(plain), capture_output=True, cwd=REPO_ROOT, timeout=300
    )
    written = result.stdout
    if out is not None:
        written = out.read_bytes() if out.exists() else None
    return result.returncode, result.stderr.decode(errors="surrogateescape"), written


def test_the_sample_covers_the_suite() -> None:
    assert len(MODULES) >= 30
    assert any("fix" in module.name for module in MODULES)


@pytest.mark.parametrize("name", list(OFFLOAD_OPT_RUNS))
@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.name)
def test_offload_opt_is_the_same_on_the_plain_path(module: Path, name: str, tmp_path: Path) -> None:
    outputs = []
    for plain in (False, True):
        out = tmp_path / f"{name}-{plain}.mlir"
        command = [offload_opt(plain), str(module), *OFFLOAD_OPT_RUNS[name], "-o", str(out)]
        outputs.append(run(command, plain, out))
    fast, plain = outputs
    assert fast[0] in (0, 1, 2), fast[1]
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
    assert fast[2] == plain[2]


def test_offload_opt_discarding_its_output_reports_the_same() -> None:
    """With the output discarded (not printed on the fast path), the diagnostics and exit
    status are those of the plain path, which prints it."""
    for module in MODULES[:: max(1, len(MODULES) // 8)]:
        runs = []
        for plain in (False, True):
            command = [offload_opt(plain), str(module), "--host-offload-check"]
            runs.append(run([*command, "-o", os.devnull], plain)[:2])
        fast, plain = runs
        assert fast == plain, module


@pytest.mark.skipif(PLAIN_BUILD is not None, reason="the library is the installed one's")
def test_check_json_is_the_same_on_the_plain_path() -> None:
    command = [sys.executable, "-m", "hostoffload", "check", "--format", "json"]
    command += [str(module) for module in MODULES]
    fast, plain = (run(command, plain) for plain in (False, True))
    assert fast[0] in (0, 1, 2), fast[1]
    assert fast[2] is not None and fast[2].count(b"\n") == len(MODULES)
    assert fast == plain


# The modules each fast path is turned off alone on: the examples, the driver's inputs and a
# few of the differential suite.
FEW = MODULES[: len(DRIVER_INPUTS) + 1] + MODULES[len(DRIVER_INPUTS) + 1 :: 8]


def described(value: str) -> str:
    """What offload-opt says of its fast paths with HOSTOFFLOAD_PLAIN=value."""
    version = subprocess.run(
        ["offload-opt", "--version"],
        env={**os.environ, PLAIN: value},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return version.split("fast paths: ", 1)[1].strip()


@pytest.mark.skipif(PLAIN_BUILD is not None, reason="names only a build with fast paths has")
def test_each_fast_path_can_be_turned_off_alone() -> None:
    names = _hostoffload.fast_path_names()
    assert len(names) == len(set(names)) >= 2
    for name in names:
        assert described(name) == f"on but {name} (HOSTOFFLOAD_PLAIN)"
    assert (
        described(f"{names[1]}, {names[0]}") == f"on but {names[0]},{names[1]} (HOSTOFFLOAD_PLAIN)"
    )
    # A name of no fast path turns them all off, and says so.
    assert described(f"{names[0]},no-such-path") == (
        "off (HOSTOFFLOAD_PLAIN names no fast path 'no-such-path')"
    )
    assert described("0") == described("") == "on"


@pytest.mark.skipif(PLAIN_BUILD is not None, reason="names only a build with fast paths has")
@pytest.mark.parametrize("name", _hostoffload.fast_path_names())
def test_each_fast_path_off_alone_is_the_same(name: str, tmp_path: Path) -> None:
    """A fast path turned off alone, the others on (a mix the plain path never runs), gives
    what all of them on give."""
    for module in FEW:
        runs = []
        for value in ("", name):
            out = tmp_path / f"{module.stem}-{bool(value)}.mlir"
            command = ["offload-opt", str(module), "--host-offload-check", "-o", str(out)]
            result = subprocess.run(
                command, env={**os.environ, PLAIN: value}, capture_output=True, cwd=REPO_ROOT
            )
            runs.append(
                (result.returncode, result.stderr, out.read_bytes() if out.exists() else None)
            )
        assert runs[0] == runs[1], (module, name)
    command = [sys.executable, "-m", "hostoffload", "check", "--format", "json"]
    command += [str(module) for module in FEW]
    fast, plain = (
        subprocess.run(
            command, env={**os.environ, PLAIN: value}, capture_output=True, cwd=REPO_ROOT
        )
        for value in ("", name)
    )
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        plain.returncode,
        plain.stdout,
        plain.stderr,
    )
