//===- EntryFunction.cpp - locate the entry computation -------------------===//

#include "hostoffload/EntryFunction.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace hostoffload {

// The errors are emitted at the op's location rather than on the op: MLIR
// would attach the op printed whole (with --mlir-print-op-on-diagnostic, the
// default of mlir-opt and of Python contexts), the entire module here.

static FailureOr<func::FuncOp> requireBody(func::FuncOp function) {
  if (!function.isExternal())
    return function;
  emitError(function.getLoc())
      << "entry function '@" << toValidUTF8(function.getSymName())
      << "' is a declaration without a body; there is no "
         "program to check";
  return failure();
}

/// How many functions a wrong entry name is told it could have named.
static constexpr unsigned kCandidatesShown = 20;

/// Appends the names of the module's functions to `diag`, the first
/// kCandidatesShown of them.
static void describeFunctions(ModuleOp module, InFlightDiagnostic &diag) {
  unsigned count = 0;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (count < kCandidatesShown)
      diag << (count == 0 ? "its functions are '" : ", '")
           << toValidUTF8(function.getSymName()) << "'";
    ++count;
  }
  if (count == 0)
    diag << "it has no func.func at all";
  else if (count > kCandidatesShown)
    diag << " and " << count - kCandidatesShown << " more";
}

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module,
                                          llvm::StringRef entryName) {
  if (!entryName.empty()) {
    auto named = module.lookupSymbol<func::FuncOp>(entryName);
    if (!named) {
      InFlightDiagnostic diag =
          emitError(module.getLoc())
          << "entry function '@" << toValidUTF8(entryName)
          << "' (from option entry=" << toValidUTF8(entryName)
          << ") is not a func.func in this module: ";
      describeFunctions(module, diag);
      return failure();
    }
    return requireBody(named);
  }

  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return requireBody(main);

  llvm::SmallVector<func::FuncOp> publicFunctions;
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isPublic())
      publicFunctions.push_back(function);

  if (publicFunctions.size() == 1)
    return requireBody(publicFunctions.front());

  if (publicFunctions.empty()) {
    emitError(module.getLoc())
        << "no entry function: the module has no 'func.func @main' and no "
           "public func.func; name the entry computation with entry=<name>";
    return failure();
  }

  InFlightDiagnostic diag = emitError(module.getLoc())
                            << "ambiguous entry function: the module has no "
                               "'func.func @main' and "
                            << publicFunctions.size()
                            << " public functions; choose one with "
                               "entry=<name>";
  for (auto function : publicFunctions)
    diag.attachNote(function.getLoc())
        << "candidate '@" << toValidUTF8(function.getSymName()) << "'";
  return failure();
}

} // namespace hostoffload
