//===- DialectNamespace.cpp - the parser's dialect namespace test ---------===//
//
// MLIR 22's `Dialect::isValidNamespace` compiles a regular expression at every
// call, and `OpaqueAttr::verify` and `OpaqueType::verify` call it for every
// attribute and type of a dialect that is not registered: every
// `#sdy.sharding<...>` and `#stablehlo.dot<...>` of a JAX module: its parse
// compiles the same expression again and again.
//
// The links of `offload-opt` and of the Python extensions redirect those calls
// here (`--wrap`, see CMakeLists.txt beside this file), to a test of the same
// pattern, `^[a-zA-Z_][a-zA-Z_0-9$]*$`, without the regular expression.
//
//===----------------------------------------------------------------------===//

#include "hostoffload/FastPaths.h"
#include "hostoffload/ParserWraps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace {

bool isNamespaceStart(char c) { return llvm::isAlpha(c) || c == '_'; }

bool isNamespaceChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$';
}

} // namespace

/// MLIR's `mlir::Dialect::isValidNamespace`, which the plain path calls.
extern "C" bool __real__ZN4mlir7Dialect16isValidNamespaceEN4llvm9StringRefE(
    llvm::StringRef);

/// What the link calls instead of `mlir::Dialect::isValidNamespace`.
extern "C" bool __wrap__ZN4mlir7Dialect16isValidNamespaceEN4llvm9StringRefE(
    llvm::StringRef str) {
  hostoffload::noteParserWrapCalled(hostoffload::ParserWrap::ValidNamespace);
  if (!hostoffload::fastPathEnabled(hostoffload::FastPath::DialectNamespace))
    return __real__ZN4mlir7Dialect16isValidNamespaceEN4llvm9StringRefE(str);
  return !str.empty() && isNamespaceStart(str.front()) &&
         llvm::all_of(str.drop_front(), isNamespaceChar);
}
