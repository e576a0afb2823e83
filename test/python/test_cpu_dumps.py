"""A dump of XLA:CPU (``XLA_FLAGS=--xla_dump_to=DIR`` of a CPU compile) is recognised from the
topology PJRT writes beside the program's input, and every route says what its check is worth:
the text, JSON, SARIF and GitHub reports of ``hostoffload check`` and ``check()``, and
``offload-opt``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_hostoffload, run_offload_opt
from jsonschema import Draft202012Validator

from hostoffload import Report, check
from hostoffload._forms import CPU_LOWERING, dump_platform, find_dump_files

pytest.importorskip("jax")

INPUTS = REPO_ROOT / "test" / "lit" / "forms" / "Inputs"
SCHEMA = json.loads((REPO_ROOT / "python" / "hostoffload" / "report.schema.json").read_text())
# The topology.pb that jax and jaxlib 0.8.2 wrote into the input folder of a CPU compile
# (`jit_step_<id>/`, beside `module_0001.jit_step.before_optimizations.txt`): before jaxlib
# 0.10 the folder is named after the program, not the module, and its topology is binary.
JAXLIB_0_8_TOPOLOGY = REPO_ROOT / "test" / "python" / "data" / "jaxlib-0.8.2-cpu-topology.pb"


@pytest.fixture(scope="module")
def cpu_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What XLA_FLAGS=--xla_dump_to writes for the program of test/lit/forms compiled on CPU
    by the jax installed here."""
    dump = tmp_path_factory.mktemp("cpu") / "dump"
    environment = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={dump}", "JAX_PLATFORMS": "cpu"}
    script = "import program; program.compile_for_cpu()"
    subprocess.run(
        [sys.executable, "-c", script], check=True, cwd=INPUTS, env=environment, timeout=300
    )
    return dump


@pytest.fixture(scope="module")
def cpu_dump_file(cpu_dump: Path) -> Path:
    (found,) = find_dump_files(cpu_dump)
    return found


def test_a_cpu_dump_is_recognised_from_its_topology(cpu_dump_file: Path) -> None:
    assert cpu_dump_file.name.endswith("jit_step.before_optimizations.txt")
    assert dump_platform(cpu_dump_file) == "cpu"


def test_the_same_module_outside_its_dump_says_nothing_of_cpu(
    cpu_dump_file: Path, tmp_path: Path
) -> None:
    """The HLO itself does not say which backend compiled it: only the dump around it does."""
    alone = tmp_path / cpu_dump_file.name
    shutil.copy(cpu_dump_file, alone)
    assert dump_platform(alone) is None
    report = check(alone)
    assert report.platform is None and report.lowering_warning is None
    assert "XLA:CPU" not in str(report)


def test_a_dump_of_another_platform_is_named_without_a_warning(
    cpu_dump_file: Path, tmp_path: Path
) -> None:
    # The module beside the input folder jaxlib 0.10 writes, with a TPU's topology in it
    # (jaxlib before 0.10 writes a binary topology.pb in another folder: test below).
    module = tmp_path / cpu_dump_file.name
    shutil.copy(cpu_dump_file, module)
    folder = tmp_path / module.name.removesuffix(".before_optimizations.txt")
    folder.mkdir()
    (folder / "topology.textproto").write_text('platform_name: "tpu"\n')
    (found,) = find_dump_files(tmp_path)
    report = check(found)
    assert (report.platform, report.lowering_warning) == ("tpu", None)


def test_the_dump_of_jaxlib_0_8_is_recognised(cpu_dump_file: Path, tmp_path: Path) -> None:
    module = tmp_path / "module_0001.jit_step.before_optimizations.txt"
    shutil.copy(cpu_dump_file, module)
    (tmp_path / "jit_step_1796635422101").mkdir()
    shutil.copy(JAXLIB_0_8_TOPOLOGY, tmp_path / "jit_step_1796635422101" / "topology.pb")
    # Another program's folder, whose name starts with this one's.
    (tmp_path / "jit_step_fn_1796635422102").mkdir()
    assert dump_platform(module) == "cpu"
    (tmp_path / "jit_step_1796635422101" / "topology.pb").unlink()
    shutil.copy(JAXLIB_0_8_TOPOLOGY, tmp_path / "jit_step_fn_1796635422102" / "topology.pb")
    assert dump_platform(module) is None


def test_check_of_a_cpu_dump_file_warns_first(cpu_dump_file: Path) -> None:
    report = check(cpu_dump_file)
    assert report.platform == "cpu"
    assert report.lowering_warning == CPU_LOWERING
    lines = str(report).splitlines()
    assert lines[0] == f"{cpu_dump_file}: warning: {CPU_LOWERING}"
    assert any(line.startswith(f"{cpu_dump_file}: @main (CPU lowering): ") for line in lines)
    document = json.loads(report.to_json())
    assert document["platform"] == "cpu"
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    assert Report.from_json(report.to_json()).lowering_warning == CPU_LOWERING


def test_the_warning_says_what_it_means_and_what_to_run_instead() -> None:
    assert "drops every jax.device_put between memories inside jit" in CPU_LOWERING
    assert 'lower(lowering_platforms=("tpu",))' in CPU_LOWERING
    assert "hostoffload.check_jax" in CPU_LOWERING
    assert "hostoffload run" in CPU_LOWERING and "pytest --hostoffload" in CPU_LOWERING


def test_hostoffload_check_of_a_cpu_dump_directory(cpu_dump: Path, cpu_dump_file: Path) -> None:
    text = run_hostoffload("check", cpu_dump)
    assert text.stdout.splitlines()[0] == f"{cpu_dump_file}: warning: {CPU_LOWERING}"

    quiet = run_hostoffload("check", "--quiet", cpu_dump)
    assert quiet.stdout.splitlines()[0] == f"{cpu_dump_file}: warning: {CPU_LOWERING}"

    (line,) = run_hostoffload("check", "--json", cpu_dump).stdout.splitlines()
    assert json.loads(line)["platform"] == "cpu"

    log = json.loads(run_hostoffload("check", "--sarif", cpu_dump).stdout)
    (invocation,) = log["runs"][0]["invocations"]
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "warning"
    assert notification["message"]["text"] == CPU_LOWERING
    assert invocation["executionSuccessful"] is True

    github = run_hostoffload("check", "--format", "github", cpu_dump).stdout.splitlines()
    assert github[0].startswith(f"::warning file={cpu_dump_file}::XLA:CPU compiled this module")


def test_offload_opt_warns_of_a_cpu_dump_file(cpu_dump_file: Path) -> None:
    result = run_offload_opt(cpu_dump_file, "--host-offload-check", "-o", os.devnull)
    assert result.stderr.splitlines()[0] == f"{cpu_dump_file}: warning: {CPU_LOWERING}"
    # The verdict is still the check's.
    assert result.returncode == 1
    assert ": error: E1200: " in result.stderr
