//===- ModuleVerifier.h - MLIR's verifier, symbols resolved -----*- C++ -*-===//
//
// MLIR's verifier resolves the callee of a `func.call` in the nearest symbol
// table around the call, and gives up at an op it does not know that has one
// region: such an op might be a symbol table. JAX puts calls inside exactly
// such ops (a nested jit or compute_on in a shard_map body is a func.call in
// `sdy.manual_computation`, whose dialect is not registered here), so MLIR's
// verifier rejects them: "'<lambda>' does not reference a valid function".
// This verifier checks what MLIR's does, but resolves every symbol use in the
// nearest symbol table of a *registered* op (the module), as XLA does when it
// imports the module.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_MODULEVERIFIER_H
#define HOSTOFFLOAD_MODULEVERIFIER_H

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <optional>

namespace hostoffload {

class ModuleOps;

/// Verifies `op` as `mlir::verify` does, emitting the same located errors,
/// except that a builtin.module's symbol uses (a `func.call`'s callee) are
/// resolved in the module's own symbol table even from inside ops of
/// unregistered dialects. A module nested in `op` and any op that is not a
/// builtin.module are verified by `mlir::verify` itself. Linear in the size of
/// `op`; recurses on no depth of the program. With `collected`, a
/// builtin.module that the fast path `one-walk-verifier` (FastPaths.def) finds
/// valid leaves in it the ops the analysis looks up, found on the way
/// (analyzeHostOffload's `collected`); otherwise it is empty.
mlir::LogicalResult verifyModule(mlir::Operation *op,
                                 std::optional<ModuleOps> *collected = nullptr);

/// The analysis the verifier pass leaves on an op it verified. The pass
/// manager drops it with the others after any pass that may have changed the
/// IR, and keeps it after a pass that preserved every analysis, so while it
/// is there the IR is as verified.
class VerifiedModule {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifiedModule)
  explicit VerifiedModule(mlir::Operation *);
  ~VerifiedModule();

  /// The ops of the module the analysis looks up, as the verifier's walk
  /// found them; null for an op that is no builtin.module.
  const ModuleOps *getOps() const { return ops.get(); }
  void setOps(std::optional<ModuleOps> collected);

private:
  std::unique_ptr<ModuleOps> ops;
};

/// A pass that runs `verifyModule` on its op, for pipelines that run with
/// MLIR's verifier off. It verifies again only when the IR may have changed
/// since it last did: MLIR's verifier skips a pass that preserved every
/// analysis, and so does this one.
std::unique_ptr<mlir::Pass> createModuleVerifierPass();

} // namespace hostoffload

#endif // HOSTOFFLOAD_MODULEVERIFIER_H
