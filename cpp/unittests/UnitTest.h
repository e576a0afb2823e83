//===- UnitTest.h - the checks of the unit tests ----------------*- C++ -*-===//
//
// Each test file checks one of the analysis's data structures on values made
// for the test; main.cpp runs them all. A check that fails prints one line,
// each group a summary; the program exits 1 if any check failed.
// test/lit/unit runs it.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_UNITTESTS_UNITTEST_H
#define HOSTOFFLOAD_UNITTESTS_UNITTEST_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace hostoffload::unittest {

inline unsigned failures = 0;
inline unsigned checks = 0;

inline void check(bool condition, const std::string &what) {
  ++checks;
  if (condition)
    return;
  ++failures;
  llvm::outs() << "FAILED: " << what << "\n";
}

/// Reports a group of checks, e.g. "fact table: 12 checks".
class Group {
public:
  explicit Group(llvm::StringRef name)
      : name(name), firstCheck(checks), firstFailure(failures) {}
  ~Group() {
    llvm::outs() << name << ": " << (checks - firstCheck) << " checks, "
                 << (failures - firstFailure) << " failed\n";
  }

private:
  llvm::StringRef name;
  unsigned firstCheck, firstFailure;
};

// The groups, in the order main.cpp runs them.
void testFactLattice();
void testFactCaps();
void testFactInterning();
void testNodeTable(mlir::MLIRContext &context);
void testPathTable(mlir::MLIRContext &context);
void testValidUTF8();
void testPreorderOps(mlir::MLIRContext &context);
void testDialects();
void testModuleOpsCollect();
void testCallsInAFunction();
void testWalkVisitsStartUsers();
void testWalkLeavesUnusedRegionArguments();
void testParserWraps();

} // namespace hostoffload::unittest

#endif // HOSTOFFLOAD_UNITTESTS_UNITTEST_H
