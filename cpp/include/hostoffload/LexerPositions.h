//===- LexerPositions.h - parsed without the lexer's positions --*- C++ -*-===//
//
// MLIR's lexer gives every op and block argument it parses the file, line and
// column of its text, which the `loc(...)` after it then replaces: JAX prints
// one on every op and block argument. Those locations, a new attribute for
// every op and block argument (and for every op's type, kept for errors), are
// made under the context's lock only to be replaced. While parseText parses a
// text with a placeholder, the locations MLIR's lexer asks for at positions of
// that text (`FileLineColLoc::get` of the text's own buffer name; its wrap,
// cpp/lib/ParserWraps/SourceLocations.cpp, reads getPositionPlaceholder) are
// the placeholder instead; a parse that leaves the placeholder on any op or
// block argument is thrown away, and the text parsed as usual. A fast path
// (hostoffload/FastPaths.h), which hostoffload/Parse.h decides to take.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LEXERPOSITIONS_H
#define HOSTOFFLOAD_LEXERPOSITIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace hostoffload {

/// Parses `text` (named `bufferName`) into a builtin.module as
/// `mlir::parseSourceString<ModuleOp>` does, without verifying it; with a
/// `placeholder`, every position of the text the lexer gives an op, a block
/// argument or a type is `placeholder`.
mlir::OwningOpRef<mlir::ModuleOp> parseText(llvm::StringRef text,
                                            llvm::StringRef bufferName,
                                            mlir::MLIRContext *context,
                                            mlir::LocationAttr placeholder);

/// The placeholder of the parse by parseText on this thread, if `fileName`
/// is the name of its text as the parser holds it (the same characters at
/// the same address, which no `loc(...)` of the text has); null otherwise.
mlir::LocationAttr getPositionPlaceholder(llvm::StringRef fileName);

/// A location no text can spell, for parseText.
mlir::LocationAttr makePositionPlaceholder(mlir::MLIRContext *context);

/// Whether `root`, or an op or block argument in it, kept `placeholder`: it
/// had no `loc(...)` of its own.
bool keepsPlaceholder(mlir::Operation *root, mlir::LocationAttr placeholder);

/// Whether the line of `text` at `start` ends with a location, as every op's
/// line of a text printed with debug information does.
bool endsWithLocation(llvm::StringRef text, size_t start);

/// The module of `text` parsed by parseText with the lexer's positions left
/// out, where the text closes its module with a location, as a text printed
/// with debug information does. Null where that was not tried or must be done
/// again as usual: the parse failed or diagnosed anything (whose location may
/// be the placeholder; its diagnostics do not reach the context's handlers),
/// or an op or block argument kept the placeholder.
mlir::OwningOpRef<mlir::ModuleOp>
parseWithoutLexerPositions(llvm::StringRef text, llvm::StringRef bufferName,
                           mlir::MLIRContext *context);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LEXERPOSITIONS_H
