#!/usr/bin/env bash
# Builds offload-opt, hostoffload-unittests and hostoffload-capi-threads (tools/sanitize/: the
# C library's threads driven through its C API, as hostoffload.check drives them) with a
# sanitizer and runs them: the unit tests, capi_threads.c, offload-opt on a long function,
# and the whole lit suite with the sanitized driver in place of the installed one.
#
#   tools/sanitize.sh address    # AddressSanitizer + UndefinedBehaviorSanitizer, and leaks
#   tools/sanitize.sh thread     # ThreadSanitizer
#
# Run it in a venv where hostoffload is installed with its test extra and the build
# requirements of pyproject.toml [build-system] are installed too (README "Building"), with
# cmake, ninja and a C++ compiler with the sanitizer runtimes on PATH. The build goes to
# build-sanitize-KIND/ of this checkout (kept: a second run rebuilds what changed);
# SANITIZE_JOBS sets the build's and lit's jobs (default: every core). Exits 1 if a run fails
# or a sanitizer reports, 2 on bad usage or a missing tool.
#
# What is checked. MLIR and LLVM come from the xtc-* wheels as uninstrumented static
# libraries: only our code (and the MLIR, LLVM and libstdc++ header code it instantiates) is
# instrumented.
# - address: every load and store of our code is checked, whatever allocated the memory
#   (malloc is intercepted process-wide), so our overflows and uses after free of MLIR's
#   objects are found; MLIR's own accesses are not checked. LLVM's allocators poison and
#   unpoison their slabs by hand in header code, which is instrumented where our code
#   instantiates it and not in MLIR's, so one side would trip on poison the other never
#   lifted: allow_user_poisoning=0 ignores that poisoning. (ASan's container-overflow checks
#   cannot misfire across the boundary: libstdc++ annotates its containers only under
#   _GLIBCXX_SANITIZE_VECTOR, which nothing here is built with.) UBSan checks our code's
#   arithmetic, shifts, conversions, alignment, null pointers and bounds. Leaks are checked at
#   the exit of every sanitized process, every fast path on.
# - thread: TSan sees our code's accesses and every pthread mutex, condition variable, thread
#   start and join (intercepted, MLIR's too), but not the atomics inside MLIR's or
#   libstdc++.so's own code: it checks that our threads synchronize what our code shares, and
#   cannot find a race inside MLIR's code (e.g. in the uniquers the two parse threads share);
#   tsan.supp holds the reports it makes up where MLIR or libstdc++ order the accesses with
#   such atomics. Covered, with every fast path on: the two-part parse of a long function
#   (cpp/lib/ParallelParse.cpp), which only the C library runs, through capi_threads.c, one
#   caller and two at once. Not covered: the Python extension's
#   own code (its glue, and the interpreter around it, are not built here) and the fork
#   handlers (nothing here forks).
set -uo pipefail

usage() {
  echo "usage: tools/sanitize.sh address|thread" >&2
  exit 2
}
[[ $# -eq 1 ]] || usage
kind=$1
case "$kind" in
  # vptr checks need the RTTI that LLVM and MLIR are built without (as LLVM's own UBSan build).
  address)
    sanitize="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined"
    ;;
  thread) sanitize="-fsanitize=thread" ;;
  *) usage ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build-sanitize-$kind"
jobs=${SANITIZE_JOBS:-$(nproc)}
for tool in python cmake ninja lit; do
  if ! command -v "$tool" > /dev/null; then
    echo "sanitize.sh: error: $tool is not on PATH; activate the venv of hostoffload's tests" >&2
    exit 2
  fi
done
python=$(command -v python)
package=$(python -c '
import importlib.util
spec = importlib.util.find_spec("hostoffload")
print(spec.submodule_search_locations[0] if spec else "")')
if [[ -z "$package" || ! -f "$package/_driver.py" ]]; then
  echo "sanitize.sh: error: hostoffload is not installed in this venv: pip install '.[test]'" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -O1 as ASan and TSan advise, line tables for the reports; otherwise the Release build that
# pip makes (LLVM's assertions stay on, as in the wheel).
start=$(date +%s)
if ! cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS="$sanitize -fno-omit-frame-pointer" \
  -DCMAKE_CXX_FLAGS="$sanitize -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
  -DPython_EXECUTABLE="$python" \
  -DCMAKE_PROJECT_hostoffload_INCLUDE="$repo/tools/sanitize/capi-threads.cmake" \
  > "$work/configure.log" 2>&1; then
  cat "$work/configure.log" >&2
  exit 1
fi
ninja -C "$build" -j "$jobs" offload-opt hostoffload-unittests hostoffload-capi-threads ||
  exit 1
echo "sanitize.sh: $kind build took $(($(date +%s) - start)) s"

reports="$work/reports"
mkdir "$reports"
export ASAN_OPTIONS="abort_on_error=1:halt_on_error=1:detect_leaks=1:allow_user_poisoning=0"
ASAN_OPTIONS+=":check_initialization_order=1:log_path=$reports/asan"
export UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:log_path=$reports/tsan"
TSAN_OPTIONS+=":suppressions=$repo/tools/sanitize/tsan.supp"
# Every fast path on.
unset HOSTOFFLOAD_PLAIN

status=0
# Runs a step; fails it if it failed or left sanitizer reports, and prints them.
step() {
  local name=$1
  shift
  echo "== sanitize.sh $kind: $name"
  local started
  started=$(date +%s)
  "$@"
  local result=$?
  if compgen -G "$reports/*" > /dev/null; then
    echo "sanitize.sh: $kind: $name: sanitizer reports:" >&2
    cat "$reports"/* >&2
    rm -f "$reports"/*
    result=1
  fi
  local verdict=passed
  ((result == 0)) || verdict=FAILED status=1
  echo "== sanitize.sh $kind: $name: $verdict ($(($(date +%s) - started)) s)"
}

# A checked program whose verdict (0 clean, 1 E1200) does not matter here, only that it ran;
# its diagnostics are shown if it did not.
ran() {
  "$@" 2> "$work/ran.err"
  local result=$?
  if ((result > 1)); then
    cat "$work/ran.err" >&2
    echo "sanitize.sh: exit $result: $*" >&2
  fi
  ((result <= 1))
}

step "unit tests" "$build/bin/hostoffload-unittests"

# The threads the C library starts, on a module of many functions and a long function body.
python "$repo/tools/generate.py" callgraph 110000 "$work/callgraph.mlir" > /dev/null &&
  python "$repo/tools/generate.py" chain 20000 "$work/chain.mlir" > /dev/null || exit 1
step "C API threads" "$build/bin/hostoffload-capi-threads" "$work/callgraph.mlir" "$work/chain.mlir"
# offload-opt on a function body of over 1 MiB: the chain as offload-opt prints it, then
# checked.
long_function() {
  "$build/bin/offload-opt" "$work/chain.mlir" --mlir-print-op-generic --mlir-print-debuginfo \
    -o "$work/printed.mlir" &&
    ran "$build/bin/offload-opt" "$work/printed.mlir" --host-offload-check -o /dev/null
}
step "offload-opt, a long function" long_function

# The installed package with the sanitized binaries in its bin/, behind an offload-opt first on
# PATH that runs the package's own shim (which converts inputs other than the generic form
# with jaxlib, then executes bin/offload-opt): every lit test runs as against an install.
overlay="$work/overlay"
mkdir -p "$overlay/hostoffload/bin" "$work/bin"
for entry in "$package"/*; do
  case "$(basename "$entry")" in
    bin | __pycache__) ;;
    *) ln -s "$entry" "$overlay/hostoffload/" ;;
  esac
done
for binary in offload-opt hostoffload-unittests; do
  ln -s "$build/bin/$binary" "$overlay/hostoffload/bin/$binary"
done
# test/lit/unit finds the unit tests on PATH first.
ln -s "$build/bin/hostoffload-unittests" "$work/bin/hostoffload-unittests"
cat > "$work/bin/offload-opt" <<EOF
#!$python
import sys
sys.path.insert(0, "$overlay")
from hostoffload._driver import main
main()
EOF
chmod +x "$work/bin/offload-opt"
driver=$(python -c "import sys
sys.path.insert(0, '$overlay')
from hostoffload._driver import DRIVER
print(DRIVER)")
if [[ "$driver" != "$overlay/hostoffload/bin/offload-opt" ]]; then
  echo "sanitize.sh: error: the shim would run $driver, not the sanitized driver" >&2
  exit 1
fi
step "lit" env PATH="$work/bin:$PATH" lit -sv -j "$jobs" --timeout 300 "$repo/test/lit"

echo "sanitize.sh: $kind took $(($(date +%s) - start)) s in all"
exit $status
