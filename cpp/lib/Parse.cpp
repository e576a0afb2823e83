//===- Parse.cpp - the library's parse of a module's text -----------------===//

#include "hostoffload/Parse.h"

#include "hostoffload/FastPaths.h"
#include "hostoffload/LexerPositions.h"
#include "hostoffload/ParallelParse.h"

#include "mlir/Parser/Parser.h"

using namespace mlir;

OwningOpRef<Operation *> hostoffload::parseWithFastPaths(
    llvm::StringRef text, llvm::StringRef bufferName, MLIRContext *context,
    llvm::function_ref<OwningOpRef<Operation *>()> parse,
    const ParseOptions &options, bool *parsedInParts) {
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
      return OwningOpRef<Operation *>(module.release());
    }
    // The parts failed: the whole text, with the lexer's positions.
    if (tried)
      return parse();
  }
  if (withoutLexerPositions)
    if (OwningOpRef<Operation *> parsed =
            parseWithoutLexerPositions(text, context, parse))
      return parsed;
#endif
  return parse();
}

OwningOpRef<ModuleOp> hostoffload::parseModule(llvm::StringRef text,
                                               llvm::StringRef bufferName,
                                               MLIRContext *context,
                                               const ParseOptions &options,
                                               bool *parsedInParts) {
  OwningOpRef<Operation *> parsed = parseWithFastPaths(
      text, bufferName, context,
      [&] {
        ParserConfig config(context, /*verifyAfterParse=*/false);
        return OwningOpRef<Operation *>(
            parseSourceString<ModuleOp>(text, config, bufferName).release());
      },
      options, parsedInParts);
  return OwningOpRef<ModuleOp>(llvm::cast_or_null<ModuleOp>(parsed.release()));
}
