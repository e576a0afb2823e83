//===- Starts.h - where tensors enter host memory ---------------*- C++ -*-===//
//
// The starts of the walk: entry arguments declared in pinned host memory, and
// the annotations that move a tensor to host. Reading them also checks the
// declarations and annotations XLA would misread, and warns about them.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_STARTS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_STARTS_H

#include "MemoryKinds.h"
#include "Walk.h"
#include "Warnings.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace hostoffload {

/// Adds the starts of a module to the report and to the walk.
class StartCollector {
public:
  StartCollector(mlir::ModuleOp module, mlir::func::FuncOp entry,
                 HostOffloadReport &report, Walk &walk, WarningList &warnings)
      : module(module), entry(entry), report(report), walk(walk),
        warnings(warnings) {}

  /// The entry arguments declared pinned_host, and the warnings about the
  /// memory kinds declared on the entry's arguments and results.
  void collectEntrySignature();

  /// A custom call that moves its operand to host; the warnings about
  /// annotations XLA cannot process.
  void collectCustomCall(mlir::Operation *op);

  /// The memory kinds declared on the entry's results, once
  /// collectEntrySignature has run.
  const std::vector<DeclaredMemoryKind> &getResultKinds() const {
    return resultKinds;
  }

private:
  std::string xlaAnnotationName(mlir::Operation *annotation);
  std::string xlaUserName(mlir::OpOperand &use);
  void addInlinedValues(mlir::OpOperand &use,
                        llvm::SmallVectorImpl<mlir::Value> &pending);
  mlir::Location argumentLoc(unsigned index);
  std::string describeSignatureValue(llvm::StringRef valueKind, unsigned index);
  void checkDeclaredKind(const DeclaredMemoryKind &declared,
                         llvm::StringRef valueKind, unsigned index,
                         llvm::function_ref<mlir::Location()> getLoc);
  void checkResultLayout(unsigned index);

  mlir::ModuleOp module;
  mlir::func::FuncOp entry;
  HostOffloadReport &report;
  Walk &walk;
  WarningList &warnings;
  std::vector<DeclaredMemoryKind> resultKinds;
  /// The module's names of XLA's entry instructions, when it was converted
  /// from HLO.
  mlir::DictionaryAttr hloEntry =
      module->getAttrOfType<mlir::DictionaryAttr>(names::kHloEntryAttr);
  /// How many values xlaAnnotationName looks at before it gives up.
  static constexpr unsigned kMaxValuesForXlaName = 64;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_STARTS_H
