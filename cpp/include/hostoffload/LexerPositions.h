//===- LexerPositions.h - parsed without the lexer's positions --*- C++ -*-===//
//
// MLIR's lexer gives every op and block argument it parses the file, line and
// column of its text, which the `loc(...)` after it then replaces: JAX prints
// one on every op and block argument. Those locations, a new attribute for
// every op and block argument (and for every op's type, kept for errors), are
// made under the context's lock only to be replaced. While a text is parsed
// with a `LexerPositionsReplaced` alive, the lexers of its thread give every
// position one placeholder location instead (the wrap of the lexer,
// cpp/lib/ParserWraps/SourceLocations.cpp, reads it); a parse that leaves the
// placeholder on any op or block argument is thrown away, and the text parsed
// as usual. A fast path (hostoffload/FastPaths.h), which hostoffload/Parse.h
// decides to take.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LEXERPOSITIONS_H
#define HOSTOFFLOAD_LEXERPOSITIONS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace hostoffload {

/// The location MLIR's lexers on this thread give every position of their
/// text instead of its file, line and column; null but while a
/// `LexerPositionsReplaced` lives on this thread.
mlir::LocationAttr &lexerPositionPlaceholder();

/// Sets this thread's `lexerPositionPlaceholder` while it lives.
class LexerPositionsReplaced {
public:
  explicit LexerPositionsReplaced(mlir::LocationAttr placeholder) {
    lexerPositionPlaceholder() = placeholder;
  }
  LexerPositionsReplaced(const LexerPositionsReplaced &) = delete;
  LexerPositionsReplaced &operator=(const LexerPositionsReplaced &) = delete;
  ~LexerPositionsReplaced() { lexerPositionPlaceholder() = {}; }
};

/// A location no text can spell, for `lexerPositionPlaceholder`.
mlir::LocationAttr makePositionPlaceholder(mlir::MLIRContext *context);

/// Whether `root`, or an op or block argument in it, kept `placeholder`: it
/// had no `loc(...)` of its own.
bool keepsPlaceholder(mlir::Operation *root, mlir::LocationAttr placeholder);

/// Whether the line of `text` at `start` ends with a location, as every op's
/// line of a text printed with debug information does.
bool endsWithLocation(llvm::StringRef text, size_t start);

/// Calls `parse`, a parse of `text` in `context`, with the lexer's positions
/// left out where the text closes its module with a location, as a text
/// printed with debug information does. Returns what it parsed, or null where
/// that was not tried or must be done again as usual: the parse failed or
/// diagnosed anything (whose location may be the placeholder; diagnostics of
/// the call do not reach the context's handlers), or an op or block argument
/// kept the placeholder.
mlir::OwningOpRef<mlir::Operation *> parseWithoutLexerPositions(
    llvm::StringRef text, mlir::MLIRContext *context,
    llvm::function_ref<mlir::OwningOpRef<mlir::Operation *>()> parse);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LEXERPOSITIONS_H
