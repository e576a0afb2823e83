"""The plain path gives what the fast paths give, byte for byte.

``HOSTOFFLOAD_PLAIN=1`` turns off every fast path the library can turn off at run time
(cpp/include/hostoffload/FastPaths.h; docs/performance.md, "The fast paths"); they all serve
``hostoffload.check``. On the examples and a sample of the differential suite,
``hostoffload check --format json`` is run with the switch and without, and must not differ.
``offload-opt`` takes no fast path: it is MLIR's MlirOptMain (test_large_plain.py compares
modules over 1 MiB; CI builds the C++ without the fast paths and runs lit on it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from hostoffload.mlir._mlir_libs import _hostoffload

PLAIN = "HOSTOFFLOAD_PLAIN"
# Every this-many-th module of the differential suite, in sorted order: about forty, of every
# kind the suite holds (programs, mutants, fixes, meshes, sibling errors).
SAMPLE_EVERY = 25


def environment(plain: bool) -> dict[str, str]:
    """This process's environment with the switch set, or cleared."""
    return {**os.environ, PLAIN: "1" if plain else ""}


def sample() -> list[Path]:
    """The modules compared: the examples and every SAMPLE_EVERY-th module of the
    differential suite."""
    differential = sorted((REPO_ROOT / "test" / "differential").rglob("*.mlir"))
    return sorted((REPO_ROOT / "examples").glob("*.mlir")) + differential[::SAMPLE_EVERY]


MODULES = sample()


@pytest.fixture(scope="module", autouse=True)
def the_switch_applies() -> None:
    """Without fast paths built in, both runs are the plain path and compare nothing."""
    fast = _hostoffload.describe_fast_paths()
    if fast != "on":
        pytest.skip(f"the fast paths are {fast}")


def run(command: list[str], plain: bool) -> tuple[int, str, bytes]:
    """Runs ``command`` from the repository root; its exit status, stderr and stdout."""
    result = subprocess.run(
        command, env=environment(plain), capture_output=True, cwd=REPO_ROOT, timeout=300
    )
    return result.returncode, result.stderr.decode(errors="surrogateescape"), result.stdout


def test_the_sample_covers_the_suite() -> None:
    assert len(MODULES) >= 30
    assert any("fix" in module.name for module in MODULES)


def test_check_json_is_the_same_on_the_plain_path() -> None:
    command = [sys.executable, "-m", "hostoffload", "check", "--format", "json"]
    command += [str(module) for module in MODULES]
    fast, plain = (run(command, plain) for plain in (False, True))
    assert fast[0] in (0, 1, 2), fast[1]
    assert fast[2].count(b"\n") == len(MODULES)
    assert fast == plain


# The modules each fast path is turned off alone on: a few of the sample.
FEW = MODULES[::8]


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


def test_each_fast_path_can_be_turned_off_alone() -> None:
    names = _hostoffload.fast_path_names()
    assert len(names) == len(set(names)) >= 2
    for name in names:
        assert described(name) == f"on but {name} (HOSTOFFLOAD_PLAIN)"
    # Every one named, in any order, with blanks: all off.
    assert described(", ".join(reversed(names))) == "off (HOSTOFFLOAD_PLAIN)"
    # A name of no fast path turns them all off, and says so.
    assert described(f"{names[0]},no-such-path") == (
        "off (HOSTOFFLOAD_PLAIN names no fast path 'no-such-path')"
    )
    assert described("0") == described("") == "on"


@pytest.mark.parametrize("name", _hostoffload.fast_path_names())
def test_each_fast_path_off_alone_is_the_same(name: str) -> None:
    """A fast path turned off alone, the others on (a mix the plain path never runs), gives
    what all of them on give."""
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
