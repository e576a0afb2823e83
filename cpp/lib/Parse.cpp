//===- Parse.cpp - the library's parse of a module's text -----------------===//

#include "hostoffload/Parse.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParallelParse.h"

using namespace mlir;

OwningOpRef<ModuleOp> hostoffload::parseModule(llvm::StringRef text,
                                               llvm::StringRef bufferName,
                                               MLIRContext *context,
                                               const ParseOptions &options,
                                               bool *parsedInParts) {
  if (parsedInParts)
    *parsedInParts = false;
#if HOSTOFFLOAD_FAST_PATHS
  bool withoutLexerPositions = options.withoutLexerPositions &&
                               fastPathEnabled(FastPath::LexerPositions);
  if (fastPathEnabled(FastPath::ParseInParts)) {
    bool tried = false;
    if (OwningOpRef<ModuleOp> module = parseInParts(
            text, bufferName, context, options.minParallelBodyBytes,
            withoutLexerPositions, tried)) {
      if (parsedInParts)
        *parsedInParts = true;
      return module;
    }
    // The parts failed: the whole text, with the lexer's positions.
    if (tried)
      return parseText(text, bufferName, context, {});
  }
  if (withoutLexerPositions)
    if (OwningOpRef<ModuleOp> parsed =
            parseWithoutLexerPositions(text, bufferName, context))
      return parsed;
#endif
  return parseText(text, bufferName, context, {});
}
