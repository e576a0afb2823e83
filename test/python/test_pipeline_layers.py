"""The input pipeline of ``check`` and ``fix`` goes one way: each module imports (at its top or
inside a function) only modules below it, and only ``_generic`` and what it uses make the
generic text of a source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "python" / "hostoffload"

# Top to bottom: the report, the parse, the generic text of any source, the conversion
# through jaxlib and its helpers, and the errors every layer raises.
PIPELINE = (
    "api",
    "_source",
    "_generic",
    "_convert",
    "_print",
    "_hlo",
    "_async_calls",
    "_forms",
    "_errors",
    "diagnostic",
)
# The one module above the readers, recognisers, converters and printers of sources.
GENERIC_TEXT = PIPELINE.index("_generic")
# Where the modules that every layer may use start.
SHARED = PIPELINE.index("_errors")


def imported_modules(path: Path) -> set[str]:
    """The modules of the package that the module at ``path`` imports, by their names in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.update(name.split(".")[1] for name in names if name.startswith("hostoffload."))
    return found


@pytest.mark.parametrize("module", PIPELINE)
def test_module_imports_only_modules_below_it(module: str) -> None:
    position = PIPELINE.index(module)
    imported = imported_modules(PACKAGE / f"{module}.py") & set(PIPELINE)
    above = sorted(name for name in imported if PIPELINE.index(name) <= position)
    assert not above, f"{module} imports {above}, at or above it in {PIPELINE}"
    if position < GENERIC_TEXT:
        skipped = sorted(name for name in imported if GENERIC_TEXT < PIPELINE.index(name) < SHARED)
        assert not skipped, f"{module} makes generic text with {skipped}, not through _generic"
