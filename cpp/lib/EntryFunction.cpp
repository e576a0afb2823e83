//===- EntryFunction.cpp - locate the entry computation -------------------===//

#include "hostoffload/EntryFunction.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace hostoffload {

static FailureOr<func::FuncOp> requireBody(func::FuncOp function) {
  if (!function.isExternal())
    return function;
  function.emitError() << "entry function '@" << function.getSymName()
                       << "' is a declaration without a body; there is no "
                          "program to check";
  return failure();
}

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module,
                                          llvm::StringRef entryName) {
  if (!entryName.empty()) {
    auto named = module.lookupSymbol<func::FuncOp>(entryName);
    if (!named) {
      module.emitError() << "entry function '@" << entryName
                         << "' (from option entry=" << entryName
                         << ") is not a func.func in this module";
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
    module.emitError()
        << "no entry function: the module has no 'func.func @main' and no "
           "public func.func; name the entry computation with entry=<name>";
    return failure();
  }

  InFlightDiagnostic diag = module.emitError()
                            << "ambiguous entry function: the module has no "
                               "'func.func @main' and "
                            << publicFunctions.size()
                            << " public functions; choose one with "
                               "entry=<name>";
  for (auto function : publicFunctions)
    diag.attachNote(function.getLoc())
        << "candidate '@" << function.getSymName() << "'";
  return failure();
}

} // namespace hostoffload
