"""The differential harness writes each module into the folder of its kind
(``tools/differential/layout.py``), and a partial run leaves the folders as a full run would."""

import json
from pathlib import Path
from typing import Any

import pytest

from tools.differential import layout

pytest.importorskip("jax")  # run.py edits modules with jaxlib's MLIR


def entry(kind: str, program: str, devices: int = 1) -> dict[str, Any]:
    """A verdicts entry of ``kind``, made from ``program``, that XLA and our checker accept."""
    recorded: dict[str, Any] = {
        "kind": kind,
        "program": program,
        "checker": {"e1200_outputs": [], "exit_code": 0, "crashed": False, "loaded": True},
        "agrees": True,
        "xla": {"status": "ok", "e1200_outputs": []},
    }
    if devices > 1:
        recorded["devices"] = devices
    return recorded


def on_disk(suite: Path) -> set[str]:
    return {str(path.relative_to(suite)) for path in suite.rglob("*.mlir")}


def test_a_partial_run_writes_each_module_into_the_folder_of_its_kind(tmp_path: Path) -> None:
    from tools.differential import run

    kept = {"other": entry("program", "other"), "m2_other": entry("program", "m2_other", 2)}
    regenerated_before = {
        "p": entry("program", "p"),
        "p__out0_device": entry("attr_mutant", "p"),
        "p__out0_device__fix_host": entry("fix_host", "p"),
    }
    recorded = {**kept, **regenerated_before}
    (tmp_path / "verdicts.json").write_text(json.dumps({"modules": recorded}))
    for name, recorded_entry in recorded.items():
        path = layout.module_path(tmp_path, name, recorded_entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
    (tmp_path / "sibling").mkdir()
    (tmp_path / "sibling" / "s_own_suite.mlir").write_text("sibling")
    # The regenerated program now has a JAX mutant and a fix of it, and no module-level mutant.
    regenerated = {
        "p": entry("program", "p"),
        "p__jax_out0_device": entry("jax_mutant", "p"),
        "p__jax_out0_device__fix_device": entry("fix_device", "p"),
    }
    result = {
        "versions": {},
        "checker": "test",
        "xla_release": "test",
        "fix": "run",
        "lowering_errors": {},
        "modules": regenerated,
        "texts": {name: f"{name} regenerated" for name in regenerated},
    }
    document = run.write(tmp_path, result, "^p$", "verdicts.json", "test")

    assert set(document["modules"]) == set(kept) | set(regenerated)
    assert on_disk(tmp_path) == {
        "programs/other.mlir",
        "mesh/programs/m2_other.mlir",
        "programs/p.mlir",
        "mutants/p__jax_out0_device.mlir",
        "fixes/p__jax_out0_device__fix_device.mlir",
        "sibling/s_own_suite.mlir",
    }
    assert (tmp_path / "programs" / "p.mlir").read_text() == "p regenerated"
    assert (tmp_path / "programs" / "other.mlir").read_text() == "other"
    recorded_now = json.loads((tmp_path / "verdicts.json").read_text())["modules"]
    for name, recorded_entry in recorded_now.items():
        assert layout.module_path(tmp_path, name, recorded_entry).is_file(), name


def test_the_folders_read_are_those_the_modules_are_written_to() -> None:
    """recorded_modules finds a module of every kind, for one device and for a mesh."""
    written = {
        layout.module_folder({"kind": kind, "devices": devices})
        for kind in layout.KIND_FOLDERS
        for devices in (1, 2)
    }
    assert written == set(layout.MODULE_FOLDERS)
