//===- Parse.h - the library's parse of a module's text ---------*- C++ -*-===//
//
// MLIR's parse of a module's text, with the fast paths that make it wait less
// (hostoffload/FastPaths.h): a long function parsed in two parts on two
// threads (ParallelParse.h), and a text whose ops carry their own locations
// parsed without the lexer's positions (LexerPositions.h). Results and
// diagnostics are MLIR's. `hostoffload.check` parses with parseModule.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_PARSE_H
#define HOSTOFFLOAD_PARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace hostoffload {

/// The smallest function body, in bytes of text, parsed on two threads by
/// default: the parse of a shorter one is too short for the second thread to
/// make up for cutting the text and joining the parts.
constexpr size_t kDefaultParallelBodyBytes = size_t(1) << 20;

/// How a text may be parsed.
struct ParseOptions {
  /// The smallest function body parsed in two parts.
  size_t minParallelBodyBytes = kDefaultParallelBodyBytes;
  /// Whether the lexer's positions may be left out of a text whose ops carry
  /// their own locations; false parses as MLIR's parser does (what the tests
  /// compare with).
  bool withoutLexerPositions = true;
};

/// Parses `text` (named `bufferName`) into a builtin.module as
/// `mlir::parseSourceString<ModuleOp>` does (without verifying it), in two
/// parts or without the lexer's positions where the text allows, with the
/// same result; the whole text is parsed as MLIR does where neither is taken
/// or either fails, so that every diagnostic is MLIR's. `parsedInParts`, if
/// given, is set to whether the result was parsed in two parts.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::StringRef text,
                                              llvm::StringRef bufferName,
                                              mlir::MLIRContext *context,
                                              const ParseOptions &options = {},
                                              bool *parsedInParts = nullptr);

} // namespace hostoffload

#endif // HOSTOFFLOAD_PARSE_H
