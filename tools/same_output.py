"""Whether two builds of hostoffload give the same bytes: diagnostics, fixes and analysis JSON.

Each build is named by a Python that has it installed. For every module given (by default the
differential suite and the examples; ``--models SIZES`` adds the JAX training steps of
``bench/models.py`` at those sizes, lowered once here), it compares between the builds, byte
for byte:

- ``offload-opt FILE --host-offload-check -o /dev/null``: its messages and exit status;
- ``offload-opt FILE --host-offload-fix=strategy=host`` and ``=device``: the module printed,
  the messages and the exit status;
- ``hostoffload check --json --json-locations table FILE``: the report (one line per module).

It prints what differs and exits 1 if anything does. Run from the repository root::

    python -m tools.same_output --old ../old-venv/bin/python
    python -m tools.same_output --old ../old-venv/bin/python --models 10000,100000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
OFFLOAD_OPT_RUNS = {
    "check": ["--host-offload-check", "-o", "/dev/null"],
    "fix-host": ["--host-offload-fix=strategy=host"],
    "fix-device": ["--host-offload-fix=strategy=device"],
}
# Modules per `hostoffload check` process: one JSON report per line for each.
BATCH = 200


def default_modules() -> list[Path]:
    suite = sorted((REPO_ROOT / "test" / "differential").rglob("*.mlir"))
    return suite + sorted((REPO_ROOT / "examples").glob("*.mlir"))


def driver_of(python: str) -> str:
    """The native offload-opt of the hostoffload that ``python`` imports."""
    return subprocess.run(
        [python, "-c", "from hostoffload._driver import DRIVER; print(DRIVER)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def offload_opt_outputs(driver: str, module: Path) -> Iterator[tuple[str, bytes]]:
    for name, arguments in OFFLOAD_OPT_RUNS.items():
        run = subprocess.run([driver, str(module), *arguments], capture_output=True)
        yield name, b"%d\n%s\n%s" % (run.returncode, run.stdout, run.stderr)


def reports(python: str, modules: list[Path]) -> list[bytes]:
    """The JSON report of each module, in order."""
    lines: list[bytes] = []
    for start in range(0, len(modules), BATCH):
        batch = [str(module) for module in modules[start : start + BATCH]]
        run = subprocess.run(
            [python, "-m", "hostoffload", "check", "--json", "--json-locations", "table", *batch],
            capture_output=True,
            cwd=REPO_ROOT,
        )
        made = run.stdout.splitlines()
        if len(made) != len(batch):
            sys.exit(f"{python}: {len(made)} reports for {len(batch)} modules:\n{run.stderr!r}")
        lines += made
    return lines


def lowered_models(sizes: list[int], directory: Path) -> list[Path]:
    """Every model and variant of bench/models.py at each size, as generic text."""
    from bench.models import MODELS, VARIANTS
    from hostoffload import _convert

    made = []
    for name, model in MODELS.items():
        for size in sizes:
            for variant in VARIANTS:
                lowered = model.lower(variant, model.units_for(size))
                path = directory / f"{name}-{variant}-{size}.mlir"
                path.write_bytes(_convert.lowered_to_generic(lowered))
                made.append(path)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="a Python with the old build installed")
    parser.add_argument("--new", default=sys.executable, help="one with the new (default: this)")
    parser.add_argument("--models", help="also the JAX models at these sizes (comma-separated)")
    parser.add_argument("modules", nargs="*", type=Path, help="default: the suite and examples")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hostoffload-same-") as scratch:
        modules = args.modules or default_modules()
        if args.models:
            modules += lowered_models([int(size) for size in args.models.split(",")], Path(scratch))
        drivers = driver_of(args.old), driver_of(args.new)
        differ = []
        for module in modules:
            old, new = (dict(offload_opt_outputs(driver, module)) for driver in drivers)
            differ += [f"{module}: offload-opt {name}" for name in old if old[name] != new[name]]
        for module, old_report, new_report in zip(
            modules, reports(args.old, modules), reports(args.new, modules), strict=True
        ):
            if old_report != new_report:
                differ.append(f"{module}: hostoffload check --json")
    compared = len(modules) * (len(OFFLOAD_OPT_RUNS) + 1)
    for line in differ:
        print(line)
    print(f"{compared - len(differ)} of {compared} outputs of {len(modules)} modules the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
