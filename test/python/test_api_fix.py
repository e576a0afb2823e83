"""hostoffload.fix and ``python -m hostoffload fix``, through the host-offload-fix pass."""

import subprocess
from pathlib import Path

import pytest
from conftest import (
    CLEAN,
    EXAMPLE,
    PROGRAMS_WITH_E1200,
    differential_module,
    e1200_outputs,
    generic_asm,
    run_hostoffload,
)

from hostoffload import InputError, check, fix
from hostoffload.mlir import ir, passmanager


def fix_pass_missing() -> bool:
    """True only when the pass is not registered; any other parse error must fail the tests."""
    with ir.Context():
        try:
            passmanager.PassManager.parse("builtin.module(host-offload-fix{strategy=host})")
        except ValueError as error:
            if "does not refer to a registered pass" in str(error):
                return True
            raise
    return False


pytestmark = pytest.mark.skipif(
    fix_pass_missing(), reason="the host-offload-fix pass is not registered in this build yet"
)


@pytest.mark.parametrize("strategy", ["host", "device"])
def test_fix_removes_every_e1200_of_the_example(strategy: str) -> None:
    fixed = fix(EXAMPLE, strategy)  # type: ignore[arg-type]
    assert fixed.lstrip().startswith(("#loc", '"builtin.module"'))
    assert e1200_outputs(check(fixed)) == []


def test_host_strategy_declares_the_outputs_pinned_host() -> None:
    fixed = check(fix(EXAMPLE, "host"))
    assert fixed.ok
    assert fixed.warnings  # the host compute is still there


def test_device_strategy_moves_the_values_back() -> None:
    fixed = fix(EXAMPLE, "device")
    assert fixed.count('_xla_buffer_placement = "device"') == 2


@pytest.mark.parametrize("strategy", ["host", "device"])
@pytest.mark.parametrize("name", PROGRAMS_WITH_E1200)
def test_fix_on_the_jax_programs(name: str, strategy: str) -> None:
    fixed = fix(differential_module(name), strategy)  # type: ignore[arg-type]
    assert e1200_outputs(check(fixed)) == []


def test_fix_leaves_a_module_without_e1200_as_it_is() -> None:
    with ir.Context():
        printed = generic_asm(ir.Module.parse(CLEAN.read_text()).operation)
    assert fix(CLEAN, "host") == printed
    assert fix(CLEAN, "device") == printed


def test_fix_never_changes_a_module_given() -> None:
    with ir.Context():
        module = ir.Module.parse(EXAMPLE.read_text())
        before = str(module)
        assert e1200_outputs(check(fix(module, "device"))) == []
        assert str(module) == before


def test_fix_entry_and_bad_input() -> None:
    assert e1200_outputs(check(fix(EXAMPLE, "host", entry="main"))) == []
    with pytest.raises(InputError, match="'@absent'"):
        fix(EXAMPLE, "host", entry="absent")
    with pytest.raises(ValueError, match="strategy must be"):
        fix(EXAMPLE, "both")  # type: ignore[arg-type]


def run_fix(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_hostoffload("fix", *args, stdin=stdin)


def test_cli_fix_to_stdout_and_to_a_file(tmp_path: Path) -> None:
    result = run_fix(str(EXAMPLE), "--strategy", "host")
    assert result.returncode == 0, result.stderr
    assert e1200_outputs(check(result.stdout)) == []

    out = tmp_path / "fixed.mlir"
    result = run_fix("-", "--strategy", "device", "-o", str(out), stdin=EXAMPLE.read_text())
    assert (result.returncode, result.stdout) == (0, "")
    assert e1200_outputs(check(out)) == []


def test_cli_fix_bad_input(tmp_path: Path) -> None:
    result = run_fix(str(tmp_path / "missing.mlir"), "--strategy", "host")
    assert result.returncode == 2
    assert "cannot read the file" in result.stderr and "Traceback" not in result.stderr
    assert run_fix(str(EXAMPLE)).returncode == 2  # --strategy is required
    unwritable = run_fix(str(EXAMPLE), "--strategy", "host", "-o", str(tmp_path / "no" / "x"))
    assert unwritable.returncode == 2
    assert unwritable.stderr.endswith("error: cannot write the file: No such file or directory\n")
