"""The ``offload-opt`` console script and the native driver behind it."""

import os
import re
import shutil
import subprocess
from pathlib import Path

from conftest import CLEAN, EXAMPLE, run_offload_opt

import hostoffload
from hostoffload import _driver


def test_console_script_is_on_path_and_execs_the_native_driver() -> None:
    assert shutil.which("offload-opt") is not None
    result = run_offload_opt("--version")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[:2] == [f"offload-opt (hostoffload) {hostoffload.__version__}", "MLIR 22.1.8"]
    # What the library decided on its fast paths (hostoffload/FastPaths.h).
    assert len(lines) == 3 and lines[2].startswith("fast paths: "), lines


def dynamic_section(binary: Path) -> str:
    return subprocess.run(
        ["readelf", "-d", str(binary)], capture_output=True, text=True, check=True
    ).stdout


def test_native_driver_needs_only_the_c_and_cxx_runtimes() -> None:
    needed = set(re.findall(r"\(NEEDED\).*\[(.*)\]", dynamic_section(_driver.DRIVER)))
    assert needed
    assert needed <= {
        "libstdc++.so.6",
        "libm.so.6",
        "libgcc_s.so.1",
        "libc.so.6",
        "ld-linux-x86-64.so.2",
    }


def test_packaged_binaries_find_their_libraries_relative_to_themselves() -> None:
    package_dir = Path(hostoffload.__file__).parent
    binaries = [_driver.DRIVER, *package_dir.glob("mlir/_mlir_libs/*.so")]
    for binary in binaries:
        search_paths = re.findall(r"\((?:RPATH|RUNPATH)\).*\[(.*)\]", dynamic_section(binary))
        assert all(path.startswith("$ORIGIN") for path in search_paths), (binary, search_paths)


def test_bad_input_gets_a_located_error_and_exit_code_2() -> None:
    result = run_offload_opt("-", "--host-offload-check", stdin="func.func @main(%arg0: ) {\n}\n")
    assert result.returncode == 2
    assert result.stderr.startswith("<stdin>:1:23: error: expected non-function type")


def test_exit_code_1_is_only_a_verdict() -> None:
    """1 is an error in the program; a wrong option or entry name is 2, like bad input."""
    assert run_offload_opt(str(EXAMPLE), "--host-offload-check").returncode == 1
    assert run_offload_opt(str(EXAMPLE), "--host-offload-check=strict=true").returncode == 1
    wrong_entry = run_offload_opt(str(EXAMPLE), "--host-offload-check=entry=absent")
    assert wrong_entry.returncode == 2
    assert "its functions are 'main'" in wrong_entry.stderr
    assert run_offload_opt(str(EXAMPLE), "--host-offload-fix=strategy=sideways").returncode == 2
    assert run_offload_opt(str(CLEAN), "--host-offload-check", "-o", os.devnull).returncode == 0


def test_a_directory_without_dump_files_is_told_what_was_looked_for(tmp_path: Path) -> None:
    result = run_offload_opt(tmp_path, "--host-offload-check")
    assert result.returncode == 2
    assert result.stderr.startswith(f"{tmp_path}: error: no dump files found in this directory")
    assert "*.before_optimizations.txt" in result.stderr


def test_python_source_on_stdin_is_told_what_it_is() -> None:
    result = run_offload_opt("--host-offload-check", stdin="import jax\n\nprint(jax.devices())\n")
    assert result.returncode == 2
    assert result.stderr.startswith("<stdin>: error: this is Python source, not a module")
