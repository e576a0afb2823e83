//===- Utf8Test.cpp - messages made valid UTF-8 --------------------------===//
//
// toValidUTF8 (HostOffloadAnalysis.h).
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include <string>

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

void testValidUTF8() {
  Group group("valid UTF-8");
  const std::string replacement = "\xEF\xBF\xBD";
  for (size_t length : {0, 5, 8, 13, 16, 31, 32, 33, 64, 75}) {
    std::string ascii(length, 'a');
    check(toValidUTF8(ascii) == ascii,
          "ASCII of length " + std::to_string(length) + " is kept");
  }
  // The non-ASCII byte in each word of the first and second 32 bytes, in the
  // words after them and in the tail.
  for (size_t at : {2, 9, 17, 27, 30, 33, 45, 52, 62, 66, 72}) {
    std::string text(75, 'a');
    std::string valid = text;
    valid.replace(at, 2, "\xC3\xA9");
    check(toValidUTF8(valid) == valid,
          "valid UTF-8 at byte " + std::to_string(at) + " is kept");
    std::string invalid = text;
    invalid[at] = '\xFF';
    std::string fixed = text;
    fixed.replace(at, 1, replacement);
    check(toValidUTF8(invalid) == fixed,
          "an invalid byte at " + std::to_string(at) + " becomes U+FFFD");
  }
}

} // namespace hostoffload::unittest
