""".pre-commit-hooks.yaml: the hooks pre-commit offers from this repository read as pre-commit
reads them, and each one's command checks the files it is given.

The manifest is in YAML's JSON form, so that it is read here without a YAML library (PyYAML is
no dependency of the suite); where PyYAML is installed, it must read the same.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, REPO_ROOT

from hostoffload import _forms

MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"
# The keys of a hook in pre-commit's manifest schema (pre_commit/clientlib.py), and those it needs.
HOOK_KEYS = {
    "id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
    "exclude_types", "additional_dependencies", "args", "always_run", "fail_fast",
    "pass_filenames", "description", "language_version", "log_file", "require_serial",
    "stages", "verbose", "minimum_pre_commit_version",
}  # fmt: skip
REQUIRED_KEYS = {"id", "name", "entry", "language"}
# An XLA dump of a program whose output 1 fails with E1200 (test/differential/hlo), under the
# name XLA gives it.
HLO_DUMP = (
    REPO_ROOT / "test/differential/hlo/scan_offload_ys__out1_device.before_optimizations.hlo.txt"
)
HLO_DUMP_NAME = "module_0001.jit_step.before_optimizations.txt"


def manifest() -> list[dict[str, Any]]:
    text = MANIFEST.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    hooks = json.loads(body)
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        return hooks
    assert yaml.safe_load(text) == hooks
    return hooks


def hook(hook_id: str) -> dict[str, Any]:
    (found,) = [entry for entry in manifest() if entry["id"] == hook_id]
    return found


def test_the_manifest_is_what_pre_commit_reads() -> None:
    hooks = manifest()
    assert [entry["id"] for entry in hooks] == ["hostoffload-check", "hostoffload-check-hlo"]
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    for entry in hooks:
        assert REQUIRED_KEYS <= entry.keys() <= HOOK_KEYS, entry["id"]
        # pre-commit installs the repository with pip and runs a command of it.
        assert entry["language"] == "python"
        assert shlex.split(entry["entry"])[0] in scripts
        re.compile(entry["files"])
        # The converter's jaxlib releases, as the `jax` extra allows them.
        assert entry["additional_dependencies"] == [
            f"jaxlib>={_forms.OLDEST_JAXLIB},<{_forms.FIRST_JAXLIB_AFTER}"
        ]


def test_the_hooks_take_every_dump_file_hostoffload_check_looks_for(tmp_path: Path) -> None:
    names = [
        HLO_DUMP_NAME,
        "jax_ir0003_jit_step_compile.mlir",
        "step.mlirbc",
        "module_0001.jit_step.sm_8.0_gpu_after_optimizations.txt",
    ]
    for name in names:
        (tmp_path / name).write_text("")
    found = {path.name for path in _forms.find_dump_files(tmp_path)}
    patterns = [re.compile(entry["files"]) for entry in manifest()]
    taken = {name for name in names if any(p.search(name) for p in patterns)}
    assert found <= taken
    assert taken == {HLO_DUMP_NAME, "jax_ir0003_jit_step_compile.mlir", "step.mlirbc"}


@pytest.mark.parametrize("hook_id", ["hostoffload-check", "hostoffload-check-hlo"])
def test_each_hook_s_command_checks_a_file_it_takes(hook_id: str, tmp_path: Path) -> None:
    entry = hook(hook_id)
    if hook_id == "hostoffload-check":
        module = EXAMPLE
    else:
        module = tmp_path / HLO_DUMP_NAME
        shutil.copy(HLO_DUMP, module)
    assert re.search(entry["files"], str(module))
    # As pre-commit runs it: the entry's words, the hook's args, then the files, with the
    # environment's scripts first on the PATH.
    command = [*shlex.split(entry["entry"]), *entry.get("args", []), str(module)]
    path = f"{sysconfig.get_path('scripts')}{os.pathsep}{os.environ['PATH']}"
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env={**os.environ, "PATH": path},
    )
    assert result.returncode == 1, result.stderr
    assert ": error: E1200: " in result.stdout


def test_the_configurations_of_docs_ci_name_these_hooks() -> None:
    doc = (REPO_ROOT / "docs" / "ci.md").read_text()
    section = doc[doc.index("### pre-commit") : doc.index("### A test suite")]
    ids = {entry["id"]: entry for entry in manifest()}
    assert set(re.findall(r"- id: (\S+)", section)) == set(ids)
    # The local hook for an installed hostoffload takes the files the first hook takes.
    (local_files,) = re.findall(r"files: (\\\S+)", section)
    assert local_files == ids["hostoffload-check"]["files"]
