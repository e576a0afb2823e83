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
// A text whose ops carry their own `loc(...)` is parsed in parts without the
// lexer's positions (hostoffload/LexerPositions.h). A fast path
// (hostoffload/FastPaths.h), taken through hostoffload/Parse.h.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_PARALLELPARSE_H
#define HOSTOFFLOAD_PARALLELPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

namespace hostoffload {

/// The module of `text` (named `bufferName` in the locations the parser
/// makes) parsed in two parts on two threads, as `mlir::parseSourceString`
/// would parse it whole, without verifying it. Null, with `tried` false, where
/// the machine does not run two threads at once, the context does not allow
/// unregistered dialects or keeps threading off, or the text has no function
/// body of at least `minBodyBytes` in the layout above; null with `tried` true
/// where the parts were parsed but failed (an error, an op without its own
/// location while `withoutLexerPositions`, or the worker busy with another
/// caller's): the caller then parses the whole text. The context's
/// multithreading is enabled while the parts are parsed and restored after.
mlir::OwningOpRef<mlir::ModuleOp>
parseInParts(llvm::StringRef text, llvm::StringRef bufferName,
             mlir::MLIRContext *context, size_t minBodyBytes,
             bool withoutLexerPositions, bool &tried);

} // namespace hostoffload

#endif // HOSTOFFLOAD_PARALLELPARSE_H
