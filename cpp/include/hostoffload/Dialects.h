//===- Dialects.h - the context set-up for JAX's modules --------*- C++ -*-===//
//
// The analysis reads ops by name, on modules whose StableHLO, CHLO, MHLO and
// Shardy ops are not registered. MLIR's verifier resolves the callee of a
// `func.call` in the nearest symbol table around the call, and stops at an op
// of no loaded dialect that has one region, as it might be a symbol table: a
// nested jit or compute_on in a shard_map body is a func.call inside
// `sdy.manual_computation`, which it would then reject ("does not reference a
// valid function"). So the namespaces of those dialects are loaded as dialects
// that know no op, attribute or type: their ops stay unregistered and their
// attributes and types opaque, as without them, but MLIR's verifier knows that
// none of their ops is a symbol table, and resolves such calls in the module,
// as XLA does when it imports it.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_DIALECTS_H
#define HOSTOFFLOAD_DIALECTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hostoffload {

/// The namespaces registered as dialects of unknown ops.
llvm::ArrayRef<llvm::StringLiteral> getOpaqueDialectNamespaces();

/// Registers the func dialect and the namespaces of
/// getOpaqueDialectNamespaces() in `registry`. A context made from it must
/// also allow unregistered dialects, for every other namespace.
void registerDialects(mlir::DialectRegistry &registry);

} // namespace hostoffload

#endif // HOSTOFFLOAD_DIALECTS_H
