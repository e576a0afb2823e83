//===- ParserWrapsTest.cpp - the wraps of MLIR's parser still apply -------===//
//
// The link of this program wraps MLIR's parser functions as those of
// offload-opt and of the Python extensions do (hostoffload/ParserWraps.h). A
// wrap that no longer applies changes no result, only the time: these checks
// fail then.
//
//===----------------------------------------------------------------------===//

#include "UnitTest.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParserWraps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace hostoffload;

namespace hostoffload::unittest {

void testParserWraps() {
  Group group("parser wraps");
  MLIRContext context;
  context.allowUnregisteredDialects();
  LocationAttr placeholder = makePositionPlaceholder(&context);
  OwningOpRef<ModuleOp> module;
  {
    LexerPositionsReplaced replaced(placeholder);
    module = parseSourceString<ModuleOp>(
        R"mlir("builtin.module"() ({
  "test.op"() {a = #test.opaque<"x">} : () -> ()
}) : () -> ())mlir",
        ParserConfig(&context, /*verifyAfterParse=*/false), "wraps.mlir");
  }
  check(static_cast<bool>(module), "the test module parses");
  if (!module)
    return;
  // A build without the fast paths links no wrap. With them, a wrap turned
  // off by HOSTOFFLOAD_PLAIN still applies: it calls MLIR's function.
  check(wasParserWrapCalled(ParserWrap::EncodedSourceLocation) ==
            kFastPathsCompiled,
        "mlir::Lexer::getEncodedSourceLocation is wrapped");
  check((module->getLoc() == placeholder) == kFastPathsCompiled,
        "the lexer gives the placeholder while positions are replaced");
  check(wasParserWrapCalled(ParserWrap::ValidNamespace) == kFastPathsCompiled,
        "mlir::Dialect::isValidNamespace is wrapped");
}

} // namespace hostoffload::unittest
