//===- EntryFunction.h - locate the entry computation -----------*- C++ -*-===//

#ifndef HOSTOFFLOAD_ENTRYFUNCTION_H
#define HOSTOFFLOAD_ENTRYFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

namespace hostoffload {

/// Returns the function XLA would compile as the entry computation of
/// `module`: the function named `entryName` when it is not empty, else
/// `@main`, else the only public function. Emits a located error on `module`
/// and fails when there is no such function, when the choice is ambiguous, or
/// when the chosen function has no body.
mlir::FailureOr<mlir::func::FuncOp>
findEntryFunction(mlir::ModuleOp module, llvm::StringRef entryName);

} // namespace hostoffload

#endif // HOSTOFFLOAD_ENTRYFUNCTION_H
