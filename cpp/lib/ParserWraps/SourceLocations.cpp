//===- SourceLocations.cpp - the parser's locations of its own text -------===//
//
// MLIR's lexer gives every operation it parses the file, line and column of
// its text (`FileLineColLoc::get` of the text's buffer name), which the
// operation keeps unless a trailing `loc(...)` replaces it. While a text whose
// ops carry their own locations is parsed without the lexer's positions
// (hostoffload/LexerPositions.h), such a request gets the placeholder instead.
// The links of the Python extensions and of the unit tests redirect MLIR's
// calls of `FileLineColLoc::get(MLIRContext *, StringRef, unsigned, unsigned)`
// (public API) here (`--wrap`, see CMakeLists.txt beside this file).
//
//===----------------------------------------------------------------------===//

#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParserWraps.h"

#include "mlir/IR/Location.h"

// A FileLineColLoc is returned as the pointer it holds.
extern "C" const void *
__real__ZN4mlir14FileLineColLoc3getEPNS_11MLIRContextEN4llvm9StringRefEjj(
    mlir::MLIRContext *context, llvm::StringRef fileName, unsigned line,
    unsigned column);

/// What the link calls instead of `mlir::FileLineColLoc::get`.
extern "C" const void *
__wrap__ZN4mlir14FileLineColLoc3getEPNS_11MLIRContextEN4llvm9StringRefEjj(
    mlir::MLIRContext *context, llvm::StringRef fileName, unsigned line,
    unsigned column) {
  hostoffload::noteParserWrapCalled(hostoffload::ParserWrap::FileLineColLoc);
  if (mlir::LocationAttr placeholder =
          hostoffload::getPositionPlaceholder(fileName))
    return placeholder.getAsOpaquePointer();
  return __real__ZN4mlir14FileLineColLoc3getEPNS_11MLIRContextEN4llvm9StringRefEjj(
      context, fileName, line, column);
}
