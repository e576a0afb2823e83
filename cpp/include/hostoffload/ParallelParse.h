//===- ParallelParse.h - A function parsed on two threads -------*- C++ -*-===//
//
// MLIR's parser reads a module on one thread, and the text JAX prints of an
// unrolled training step is one function of up to a million ops: the parse is
// most of what a check of such a program waits for. Where the text has the
// layout MLIR's printer gives the generic form (the module's ops indented by
// two blanks, a function's ops by four, each op starting a line), the longest
// function's body is cut between two of its ops, and the second part is parsed
// on a thread of the library's own while the rest of the text is parsed on the
// caller's.
//
// The second part is parsed inside an op of its own, after the location
// aliases of the whole text and after one placeholder op per value that it
// uses from the first part (a value's types are read from the text of its
// definition). Once both are parsed, every use of a placeholder is moved to
// the value it stands for, in the order that keeps each value's use list as a
// parse of the whole text leaves it, and the second part's ops are moved to
// the end of the function's body. Both parts keep every line and column of
// the text, padded with empty lines where the other part's lines were, so the
// locations the parser makes are those of a parse of the whole text.
//
// Anything unexpected in the layout leaves the text to MLIR's parse of the
// whole; so does any error of either part's parse, after which the whole text
// is parsed again for MLIR's own diagnostics.
//
// A text whose ops carry their own `loc(...)` (JAX prints one on every op and
// block argument) is parsed, whole or in parts, without the file, line and
// column the lexer gives each op and block argument only for the `loc(...)`
// after it to replace: see `lexerPositionPlaceholder`.
//
// Both are fast paths (hostoffload/FastPaths.h): on the plain path,
// `parseModule` is MLIR's parse of the whole text and
// `parseWithoutLexerPositions` parses nothing.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_PARALLELPARSE_H
#define HOSTOFFLOAD_PARALLELPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace hostoffload {

/// The smallest function body, in bytes of text, that `parseModule` parses on
/// two threads by default: about 10,000 ops of JAX's text, whose parse takes
/// tens of milliseconds.
constexpr size_t kDefaultParallelBodyBytes = size_t(1) << 20;

/// How `parseModule` may parse.
struct ParseOptions {
  /// The smallest function body parsed in two parts.
  size_t minParallelBodyBytes = kDefaultParallelBodyBytes;
  /// Whether the lexer's positions may be left out of a text whose ops carry
  /// their own locations (see `lexerPositionPlaceholder`); false parses as
  /// MLIR's parser does (what the tests compare with).
  bool withoutLexerPositions = true;
};

/// Parses `text` into a builtin.module as `mlir::parseSourceString<ModuleOp>`
/// does (without verifying it), with the same result and diagnostics, naming
/// the text `bufferName` in the locations the parser makes. A function body of
/// at least `options.minParallelBodyBytes` is parsed in two parts on two
/// threads (see the file comment) when the machine runs two threads at once
/// and the context allows unregistered dialects; the context's multithreading
/// is enabled for that while and restored after. `parsedInParts`, if given,
/// is set to whether the module returned was parsed in two parts.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::StringRef text,
                                              llvm::StringRef bufferName,
                                              mlir::MLIRContext *context,
                                              const ParseOptions &options = {},
                                              bool *parsedInParts = nullptr);

/// Calls `parse`, a parse of `text` in `context`, with the lexer's positions
/// left out (see `lexerPositionPlaceholder`) where the text closes its module
/// with a location, as a text printed with debug information does (every op
/// and block argument then has one). Returns what it parsed, or null where
/// that was not tried or must be done again as usual: the parse failed or
/// diagnosed anything (whose location may be the placeholder; diagnostics of
/// the call do not reach the context's handlers), or an op or block argument
/// kept the placeholder.
mlir::OwningOpRef<mlir::Operation *> parseWithoutLexerPositions(
    llvm::StringRef text, mlir::MLIRContext *context,
    llvm::function_ref<mlir::OwningOpRef<mlir::Operation *>()> parse);

/// The location MLIR's lexers on this thread give every position of their
/// text instead of its file, line and column; null but while a text (or a
/// part of one) is parsed on this thread that way. Those locations, a new
/// attribute for every op and block argument (and for every op's type, kept
/// for errors), cost a quarter to a third of the parse, made under the
/// context's lock in two parts, and the `loc(...)` after each replaces them:
/// a parse that leaves this location on any op or block argument is thrown
/// away, and the text parsed as usual. Read by the wrap of the lexer
/// (cpp/lib/ParserWraps/SourceLocations.cpp); without it, nothing changes.
mlir::LocationAttr &lexerPositionPlaceholder();

} // namespace hostoffload

#endif // HOSTOFFLOAD_PARALLELPARSE_H
