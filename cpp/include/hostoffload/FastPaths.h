//===- FastPaths.h - the one switch for every fast path ---------*- C++ -*-===//
//
// Some code exists only to make a check wait less: it leans on things MLIR,
// glibc and the kernel may change (the parser's symbols, the printer's
// layout, glibc's heaps). Every such piece asks fastPathsEnabled() before it
// acts, and does what plain MLIR and the C library would do where it is false,
// so that its results can be compared with the plain path's and its worth
// measured (docs/performance.md, "The fast paths").
//
// The CMake option HOSTOFFLOAD_FAST_PATHS (ON by default) compiles the fast
// paths in; OFF, none of their code is built, --wrap included, and
// fastPathsEnabled() is a constant false. In a build with them, the
// environment variable HOSTOFFLOAD_PLAIN=1 turns them off for one process.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_FASTPATHS_H
#define HOSTOFFLOAD_FASTPATHS_H

#ifndef HOSTOFFLOAD_FAST_PATHS
#error "CMake defines HOSTOFFLOAD_FAST_PATHS (its option of that name)"
#endif

namespace hostoffload {

/// The environment variable that turns the fast paths off: any value but
/// empty and "0".
inline constexpr const char kPlainEnvironmentVariable[] = "HOSTOFFLOAD_PLAIN";

/// Whether the fast paths were compiled in.
inline constexpr bool kFastPathsCompiled = HOSTOFFLOAD_FAST_PATHS;

#if HOSTOFFLOAD_FAST_PATHS
/// Whether this process takes the fast paths: `kPlainEnvironmentVariable` is
/// read once, on the first call, and the answer never changes after it, so
/// that memory one path allocates is freed by the same path.
bool fastPathsEnabled();
#else
constexpr bool fastPathsEnabled() { return false; }
#endif

/// How `fastPathsEnabled()` came to its answer, for --version and tests:
/// "on", "off (HOSTOFFLOAD_PLAIN)" or "off (built without)".
const char *describeFastPaths();

} // namespace hostoffload

#endif // HOSTOFFLOAD_FASTPATHS_H
