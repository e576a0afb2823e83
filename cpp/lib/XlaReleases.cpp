//===- XlaReleases.cpp - the XLA releases the check models ----------------===//

#include "hostoffload/XlaReleases.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <iterator>

namespace hostoffload {

namespace {

constexpr XlaReleaseInfo kXlaReleases[] = {
#define HOSTOFFLOAD_XLA_RELEASE(Enumerator, Name, Sources)                     \
  {XlaRelease::Enumerator, Name, Sources},
#include "hostoffload/XlaReleases.def"
};

constexpr LibtpuRelease kLibtpuReleases[] = {
#define HOSTOFFLOAD_LIBTPU_RELEASE(Version, BuildLine, Enumerator)             \
  {Version, BuildLine, XlaRelease::Enumerator},
#include "hostoffload/XlaReleases.def"
};

} // namespace

llvm::ArrayRef<XlaReleaseInfo> getXlaReleases() { return kXlaReleases; }

llvm::ArrayRef<LibtpuRelease> getLibtpuReleases() { return kLibtpuReleases; }

XlaRelease getNewestXlaRelease() { return std::end(kXlaReleases)[-1].release; }

const XlaReleaseInfo &getXlaReleaseInfo(XlaRelease release) {
  for (const XlaReleaseInfo &info : kXlaReleases)
    if (info.release == release)
      return info;
  llvm_unreachable("an XLA release without a row in XlaReleases.def");
}

std::optional<XlaRelease> parseXlaRelease(llvm::StringRef text) {
  if (text.empty())
    return getNewestXlaRelease();
  for (const XlaReleaseInfo &info : kXlaReleases)
    if (text == info.name)
      return info.release;
  for (const LibtpuRelease &libtpu : kLibtpuReleases)
    if (text == libtpu.version)
      return libtpu.xla;
  return std::nullopt;
}

std::string describeLibtpuReleases(XlaRelease release) {
  auto carrying = llvm::make_filter_range(
      kLibtpuReleases,
      [&](const LibtpuRelease &libtpu) { return libtpu.xla == release; });
  // Every XLA release has a libtpu release: the table is made so.
  llvm::StringRef first = carrying.begin()->version;
  llvm::StringRef last = first;
  for (const LibtpuRelease &libtpu : carrying)
    last = libtpu.version;
  if (first == last)
    return ("libtpu " + first).str();
  return ("libtpu " + first + " to " + last).str();
}

std::string describeXlaReleaseNames() {
  std::string names = llvm::join(
      llvm::map_range(kXlaReleases,
                      [](const XlaReleaseInfo &info) -> llvm::StringRef {
                        return info.name;
                      }),
      ", ");
  std::string versions = llvm::join(
      llvm::map_range(kLibtpuReleases,
                      [](const LibtpuRelease &libtpu) -> llvm::StringRef {
                        return libtpu.version;
                      }),
      ", ");
  return "an XLA release (" + names + ") or a libtpu release (" + versions +
         ")";
}

void emitUnknownXlaRelease(mlir::Location loc, llvm::StringRef pass,
                           llvm::StringRef text) {
  // At the module's location, not on it: the module is not printed.
  mlir::emitError(loc) << pass << ": unknown xla-release '" << toValidUTF8(text)
                       << "'; use " << describeXlaReleaseNames();
}

std::optional<Platform> parsePlatform(llvm::StringRef name) {
  if (name.empty() || name == "tpu")
    return Platform::Tpu;
  if (name == "cuda")
    return Platform::Gpu;
  return std::nullopt;
}

llvm::StringRef getCompilerName(Platform platform) {
  return platform == Platform::Gpu ? "XLA:GPU" : "XLA:TPU";
}

void emitUnknownPlatform(mlir::Location loc, llvm::StringRef pass,
                         llvm::StringRef text) {
  mlir::emitError(loc) << pass << ": unknown platform '" << toValidUTF8(text)
                       << "'; use tpu (XLA:TPU) or cuda (XLA:GPU)";
}

} // namespace hostoffload
