//===- FastPaths.cpp - the one switch for every fast path -----------------===//

#include "hostoffload/FastPaths.h"
#include "hostoffload/ParserWraps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <bitset>
#include <cstdlib>

using namespace hostoffload;

static constexpr llvm::StringLiteral kFastPathNames[] = {
#define HOSTOFFLOAD_FAST_PATH(Enumerator, Name) Name,
#include "hostoffload/FastPaths.def"
};

static constexpr size_t kNumFastPaths = std::size(kFastPathNames);

llvm::ArrayRef<llvm::StringLiteral> hostoffload::getFastPathNames() {
  return kFastPathNames;
}

std::optional<FastPath> hostoffload::parseFastPathName(llvm::StringRef name) {
  const llvm::StringLiteral *found = llvm::find(kFastPathNames, name);
  if (found == std::end(kFastPathNames))
    return std::nullopt;
  return static_cast<FastPath>(found - std::begin(kFastPathNames));
}

namespace {

/// What HOSTOFFLOAD_PLAIN asked for.
struct PlainRequest {
  /// The fast paths turned off.
  std::bitset<kNumFastPaths> off;
  /// A name in the list that is no fast path's, which turned them all off.
  std::string unknown;
};

} // namespace

/// Reads the environment once: a path chosen for an allocation must be the
/// one that frees it.
static const PlainRequest &getPlainRequest() {
  static const PlainRequest request = [] {
    PlainRequest read;
    const char *value =
        kFastPathsCompiled ? std::getenv(kPlainEnvironmentVariable) : nullptr;
    llvm::StringRef plain = value ? llvm::StringRef(value).trim() : "";
    if (plain.empty() || plain == "0")
      return read;
    if (plain == "1") {
      read.off.set();
      return read;
    }
    llvm::SmallVector<llvm::StringRef> names;
    plain.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (llvm::StringRef name : names) {
      std::optional<FastPath> path = parseFastPathName(name.trim());
      if (!path) {
        read.off.set();
        read.unknown = name.trim().str();
        return read;
      }
      read.off.set(static_cast<unsigned>(*path));
    }
    return read;
  }();
  return request;
}

#if HOSTOFFLOAD_FAST_PATHS
bool hostoffload::fastPathEnabled(FastPath path) {
  return !getPlainRequest().off.test(static_cast<unsigned>(path));
}
#endif

std::string hostoffload::describeFastPaths() {
  if (!kFastPathsCompiled)
    return "off (built without)";
  const PlainRequest &request = getPlainRequest();
  if (!request.unknown.empty())
    return "off (HOSTOFFLOAD_PLAIN names no fast path '" + request.unknown +
           "')";
  if (request.off.none())
    return "on";
  if (request.off.all())
    return "off (HOSTOFFLOAD_PLAIN)";
  std::string off;
  for (size_t i = 0; i < kNumFastPaths; ++i)
    if (request.off.test(i))
      off += (off.empty() ? "" : ",") + kFastPathNames[i].str();
  return "on but " + off + " (HOSTOFFLOAD_PLAIN)";
}

static constexpr llvm::StringLiteral kParserWrapNames[] = {
    "mlir::FileLineColLoc::get",
};

/// Whether each wrap was called. Written once each: a call that finds its
/// flag set only reads it.
static std::atomic<bool> parserWrapsCalled[std::size(kParserWrapNames)];

llvm::ArrayRef<llvm::StringLiteral> hostoffload::getParserWrapNames() {
  return kParserWrapNames;
}

void hostoffload::noteParserWrapCalled(ParserWrap wrap) {
  std::atomic<bool> &called = parserWrapsCalled[static_cast<unsigned>(wrap)];
  if (!called.load(std::memory_order_relaxed))
    called.store(true, std::memory_order_relaxed);
}

bool hostoffload::wasParserWrapCalled(ParserWrap wrap) {
  return parserWrapsCalled[static_cast<unsigned>(wrap)].load(
      std::memory_order_relaxed);
}
