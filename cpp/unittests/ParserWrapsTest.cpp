//===- ParserWrapsTest.cpp - the wraps of MLIR's parser still apply -------===//
//
// The link of this program wraps an MLIR function as those of the Python
// extensions do (hostoffload/ParserWraps.h). A wrap that no longer applies
// changes no result, only the time: these checks fail then.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParserWraps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

void testParserWraps() {
  Group group("parser wraps");
  MLIRContext context;
  context.allowUnregisteredDialects();
  LocationAttr placeholder = makePositionPlaceholder(&context);
  OwningOpRef<ModuleOp> module = parseText(
      R"mlir("builtin.module"() ({
  "test.op"() : () -> () loc("wraps.mlir":2:3)
  "test.op"() : () -> ()
}) : () -> ())mlir",
      "wraps.mlir", &context, placeholder);
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  Operation &spelled = module->getBody()->front();
  Operation &positioned = module->getBody()->back();
  // A build without the fast paths links no wrap. With them, a wrap turned
  // off by HOSTOFFLOAD_PLAIN still applies: it calls MLIR's function.
  check(wasParserWrapCalled(ParserWrap::FileLineColLoc) == kFastPathsCompiled,
        "mlir::FileLineColLoc::get is wrapped");
  check((positioned.getLoc() == placeholder) == kFastPathsCompiled,
        "the lexer gives the placeholder while positions are replaced");
  check(spelled.getLoc() == FileLineColLoc::get(&context, "wraps.mlir", 2, 3),
        "a location the text spells, of the same file, is kept");
}

} // namespace hostoffload::unittest
