//===- XlaReleases.h - the XLA releases the check models --------*- C++ -*-===//
//
// Where XLA's host offloading changed between releases, the check models one
// release, the newest by default; XlaReleases.def lists them and the libtpu
// releases that carry each.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_XLARELEASES_H
#define HOSTOFFLOAD_XLARELEASES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hostoffload {

/// An XLA whose host offloading differs from the one before, oldest first:
/// one per HOSTOFFLOAD_XLA_RELEASE row of XlaReleases.def.
enum class XlaRelease : uint8_t {
#define HOSTOFFLOAD_XLA_RELEASE(Enumerator, Name, Sources) Enumerator,
#include "hostoffload/XlaReleases.def"
};

/// One HOSTOFFLOAD_XLA_RELEASE row.
struct XlaReleaseInfo {
  XlaRelease release;
  /// The name `xla-release=` takes, e.g. "2026-07".
  llvm::StringLiteral name;
  /// Which of XLA's sources it is.
  llvm::StringLiteral sources;
};

/// One HOSTOFFLOAD_LIBTPU_RELEASE row.
struct LibtpuRelease {
  /// The package's version, e.g. "0.0.42.1".
  llvm::StringLiteral version;
  /// The end of its `platform_version`, e.g. "Built on ... cl/933746096".
  llvm::StringLiteral buildLine;
  XlaRelease xla;
};

/// Every XLA release, oldest first.
llvm::ArrayRef<XlaReleaseInfo> getXlaReleases();

/// Every libtpu release of XlaReleases.def, in the order of their numbers.
llvm::ArrayRef<LibtpuRelease> getLibtpuReleases();

/// The release the check models unless told otherwise.
XlaRelease getNewestXlaRelease();

const XlaReleaseInfo &getXlaReleaseInfo(XlaRelease release);

/// The release `text` names: its name ("2026-07"), or the version of a
/// libtpu release that carries it ("0.0.45"); the newest for "". None for
/// anything else.
std::optional<XlaRelease> parseXlaRelease(llvm::StringRef text);

/// The libtpu releases that carry `release`, for messages: "libtpu 0.0.45 to
/// 0.0.48.1", or "libtpu 0.0.52" for one.
std::string describeLibtpuReleases(XlaRelease release);

/// What `xla-release=` accepts, for the error on anything else.
std::string describeXlaReleaseNames();

/// Emits the error of pass `pass` given `xla-release=<text>` that names no
/// release, at `loc`.
void emitUnknownXlaRelease(mlir::Location loc, llvm::StringRef pass,
                           llvm::StringRef text);

/// The compiler whose host offloading the check models, by the platform the
/// program is compiled for: XLA:TPU, or XLA:GPU (docs/semantics.md says
/// where they differ).
enum class Platform : uint8_t { Tpu, Gpu };

/// The platform `name` names as JAX does ("tpu", "cuda"); TPU for "". None
/// for anything else.
std::optional<Platform> parsePlatform(llvm::StringRef name);

/// The compiler modelled for `platform`, for messages: "XLA:TPU", "XLA:GPU".
llvm::StringRef getCompilerName(Platform platform);

/// Emits the error of pass `pass` given `platform=<text>` that names no
/// platform, at `loc`.
void emitUnknownPlatform(mlir::Location loc, llvm::StringRef pass,
                         llvm::StringRef text);

} // namespace hostoffload

#endif // HOSTOFFLOAD_XLARELEASES_H
