//===- main.cpp - runs every unit test ------------------------------------===//

#include "UnitTest.h"

using namespace hostoffload::unittest;

int main() {
  mlir::MLIRContext context;
  context.allowUnregisteredDialects();
  testFactLattice();
  testFactCaps();
  testFactInterning();
  testNodeTable(context);
  testPathTable(context);
  testValidUTF8();
  testPreorderOps(context);
  testDialects();
  testModuleOpsCollect();
  testCallsInAFunction();
  testWalkVisitsStartUsers();
  testWalkLeavesUnusedRegionArguments();
  testParserWraps();
  if (failures != 0) {
    llvm::outs() << failures << " of " << checks << " checks failed\n";
    return 1;
  }
  llvm::outs() << "all " << checks << " checks passed\n";
  return 0;
}
