//===- FastPaths.cpp - the one switch for every fast path -----------------===//

#include "hostoffload/FastPaths.h"

#include <cstdlib>
#include <cstring>

#if HOSTOFFLOAD_FAST_PATHS
bool hostoffload::fastPathsEnabled() {
  // Read once: a path chosen for an allocation must be the one that frees it.
  static const bool enabled = [] {
    const char *plain = std::getenv(kPlainEnvironmentVariable);
    return !plain || !*plain || std::strcmp(plain, "0") == 0;
  }();
  return enabled;
}
#endif

const char *hostoffload::describeFastPaths() {
  if (!kFastPathsCompiled)
    return "off (built without)";
  return fastPathsEnabled() ? "on" : "off (HOSTOFFLOAD_PLAIN)";
}
