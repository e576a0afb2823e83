//===- ParserWraps.h - MLIR functions the links replace ---------*- C++ -*-===//
//
// The links of the Python extensions and of the unit tests send MLIR's calls
// of a function of its public API to a faster equivalent of the library's
// (`--wrap`, cpp/lib/ParserWraps/). A wrap applies only to the calls the
// linker resolves: where MLIR's callers stop calling a function through the
// linker (inlined into them in another MLIR, or renamed), MLIR's own function
// runs and the wrap is silently left out. Each wrap notes its first call, so
// that the tests can tell that every wrap still applies.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_PARSERWRAPS_H
#define HOSTOFFLOAD_PARSERWRAPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace hostoffload {

/// The MLIR functions the links wrap.
enum class ParserWrap : unsigned {
  /// `mlir::FileLineColLoc::get` of a context and a file name
  /// (SourceLocations.cpp).
  FileLineColLoc,
};

/// The name of each wrapped function, by ParserWrap.
llvm::ArrayRef<llvm::StringLiteral> getParserWrapNames();

/// Notes that a call of `wrap` reached the library's function.
void noteParserWrapCalled(ParserWrap wrap);

/// Whether a call of `wrap` has reached the library's function in this
/// process: never in a build without the fast paths, which links no wrap.
bool wasParserWrapCalled(ParserWrap wrap);

} // namespace hostoffload

#endif // HOSTOFFLOAD_PARSERWRAPS_H
