//===- FastPaths.h - the one switch for every fast path ---------*- C++ -*-===//
//
// Some code exists only to make a check wait less: it leans on things MLIR,
// glibc and the kernel may change (the parser's symbols, the printer's
// layout, glibc's heaps). Every such piece asks fastPathEnabled() before it
// acts, and does what plain MLIR and the C library would do where it is
// false, so that its results can be compared with the plain path's and its
// worth measured (docs/performance.md, "The fast paths").
//
// The CMake option HOSTOFFLOAD_FAST_PATHS (ON by default) compiles the fast
// paths in; OFF, none of their code is built, --wrap included, and
// fastPathEnabled() is a constant false. In a build with them, the
// environment variable HOSTOFFLOAD_PLAIN turns them off for one process:
// "1" every one, or a comma-separated list of the names in FastPaths.def
// those named only. Empty or "0" leaves them on.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_FASTPATHS_H
#define HOSTOFFLOAD_FASTPATHS_H

#ifndef HOSTOFFLOAD_FAST_PATHS
#error "CMake defines HOSTOFFLOAD_FAST_PATHS (its option of that name)"
#endif

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace hostoffload {

/// The environment variable that turns the fast paths off.
inline constexpr const char kPlainEnvironmentVariable[] = "HOSTOFFLOAD_PLAIN";

/// Whether the fast paths were compiled in.
inline constexpr bool kFastPathsCompiled = HOSTOFFLOAD_FAST_PATHS;

/// A fast path that can be turned off at run time.
enum class FastPath : unsigned {
#define HOSTOFFLOAD_FAST_PATH(Enumerator, Name) Enumerator,
#include "hostoffload/FastPaths.def"
};

/// The name of every fast path, in the order of FastPaths.def.
llvm::ArrayRef<llvm::StringLiteral> getFastPathNames();

/// The fast path named `name`, if any.
std::optional<FastPath> parseFastPathName(llvm::StringRef name);

#if HOSTOFFLOAD_FAST_PATHS
/// Whether this process takes the fast path `path`. `kPlainEnvironmentVariable`
/// is read once, on the first call, and the answers never change after it, so
/// that memory one path allocates is freed by the same path. A value that
/// names no fast path turns them all off.
bool fastPathEnabled(FastPath path);
#else
constexpr bool fastPathEnabled(FastPath) { return false; }
#endif

/// How the fast paths were decided, for --version and the tests: "on",
/// "off (HOSTOFFLOAD_PLAIN)", "off (built without)", or "on but <names>
/// (HOSTOFFLOAD_PLAIN)" where only some are off.
std::string describeFastPaths();

} // namespace hostoffload

#endif // HOSTOFFLOAD_FASTPATHS_H
