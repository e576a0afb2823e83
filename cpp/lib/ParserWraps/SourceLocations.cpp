//===- SourceLocations.cpp - the parser's locations of its own text -------===//
//
// MLIR's lexer gives every operation it parses the file, line and column of
// its text (`Lexer::getEncodedSourceLocation`), which the operation keeps
// unless a trailing `loc(...)` replaces it. While a text whose ops carry their
// own locations is parsed without the lexer's (hostoffload/LexerPositions.h),
// the lexers of its thread give every position the placeholder
// `lexerPositionPlaceholder` names instead. The links of `offload-opt` and of
// the Python extensions redirect the lexer's requests here (`--wrap`, see
// CMakeLists.txt beside this file).
//
//===----------------------------------------------------------------------===//

#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParserWraps.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/SMLoc.h"

/// MLIR's `Lexer::getEncodedSourceLocation(llvm::SMLoc)`.
extern "C" mlir::Location
__real__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(void *self,
                                                              llvm::SMLoc loc);

/// What the link calls instead of `mlir::Lexer::getEncodedSourceLocation`.
extern "C" mlir::Location
__wrap__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(void *self,
                                                              llvm::SMLoc loc) {
  hostoffload::noteParserWrapCalled(
      hostoffload::ParserWrap::EncodedSourceLocation);
  if (mlir::LocationAttr placeholder = hostoffload::lexerPositionPlaceholder())
    return placeholder;
  return __real__ZN4mlir5Lexer24getEncodedSourceLocationEN4llvm5SMLocE(self,
                                                                       loc);
}
