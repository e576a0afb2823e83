"""Where the differential suite keeps its modules: a folder for each kind of module.

``test/differential`` holds the records (``verdicts*.json``, ``chip.json``), named by module,
and the modules in folders by kind: ``programs/`` (the catalogue's JAX programs as JAX lowers
them, the ``*_jax_fixed`` variants among them), ``mutants/`` (JAX-level and module-level
mutants), ``fixes/`` (``host-offload-fix`` output, both strategies), and ``mesh/programs``,
``mesh/mutants``, ``mesh/fixes`` for the modules compiled for a mesh of devices
(``catalogue_mesh.py``). ``sibling/`` and ``hlo/`` are suites of their own, each with its
verdicts files. A module's name is unique across the folders, so the records name it alone.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITE = REPO_ROOT / "test" / "differential"
SIBLING_SUITE = SUITE / "sibling"
HLO_SUITE = SUITE / "hlo"
# The folder of each kind a verdicts file records for a module.
KIND_FOLDERS = {
    "program": "programs",
    "jax_mutant": "mutants",
    "attr_mutant": "mutants",
    "fix_host": "fixes",
    "fix_device": "fixes",
}
# Modules compiled for more than one device, in the kind folders under it.
MESH_FOLDER = "mesh"
MODULE_FOLDERS = tuple(
    prefix + folder
    for prefix in ("", MESH_FOLDER + "/")
    for folder in dict.fromkeys(KIND_FOLDERS.values())
)


def module_folder(entry: Mapping[str, Any]) -> str:
    """The folder, relative to the suite, of the module that verdicts entry ``entry`` records
    (its ``kind``, and ``devices`` for a mesh)."""
    folder = KIND_FOLDERS[entry["kind"]]
    return f"{MESH_FOLDER}/{folder}" if entry.get("devices", 1) > 1 else folder


def module_path(suite: Path, name: str, entry: Mapping[str, Any]) -> Path:
    """The file of module ``name`` of ``suite``, recorded as ``entry``."""
    return suite / module_folder(entry) / f"{name}.mlir"


def recorded_modules(suite: Path) -> list[Path]:
    """The module files in ``suite``'s kind folders (not ``sibling/``), by module name."""
    paths = (path for folder in MODULE_FOLDERS for path in (suite / folder).glob("*.mlir"))
    return sorted(paths, key=lambda path: path.name)


@functools.cache
def recorded_entries(suite: Path) -> dict[str, dict[str, Any]]:
    """The modules ``suite``'s ``verdicts.json`` records, by name."""
    modules: dict[str, dict[str, Any]] = json.loads((suite / "verdicts.json").read_text())[
        "modules"
    ]
    return modules


def recorded_module(suite: Path, name: str) -> Path:
    """The file of module ``name``, which ``suite``'s ``verdicts.json`` records."""
    return module_path(suite, name, recorded_entries(suite)[name])
