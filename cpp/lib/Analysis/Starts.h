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
#include "OpRules.h"
#include "Walk.h"
#include "Warnings.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hostoffload {

/// Where a note about an entry argument points, found from its users in
/// program order: at the argument's own location if it is in the Python
/// source, else at the argument's first use there (JAX gives arguments no
/// file), else at the argument's own line of the file given (HLO input),
/// else at its first use anywhere, else at the function. Of users at one
/// position, the last is taken.
class ArgumentLocSearch {
public:
  explicit ArgumentLocSearch(mlir::BlockArgument argument);

  /// Whether the users can change the location: not where the argument's
  /// own is a Python frame.
  bool needsUsers() const { return !ownIsPythonFrame; }
  /// Takes the next user in program order. The users taken again in the
  /// same order (a walk that starts over) leave the location as it was.
  void visitUser(mlir::Operation *user);
  /// The location found from the users visited, in `entry`.
  mlir::Location getLoc(mlir::func::FuncOp entry) const;

private:
  mlir::Location own;
  bool ownHasPosition = false, ownIsPythonFrame = false;
  std::optional<mlir::Location> firstUse, firstPythonUse, lastLoc;
  std::pair<unsigned, unsigned> firstPosition, firstPythonPosition;
};

/// Adds the starts of a module to the report and to the walk.
class StartCollector {
public:
  StartCollector(mlir::ModuleOp module, mlir::func::FuncOp entry,
                 HostOffloadReport &report, Walk &walk, const OpRules &rules,
                 WarningList &warnings)
      : module(module), entry(entry), report(report), walk(walk), rules(rules),
        warnings(warnings) {}

  /// The entry arguments declared pinned_host, and the warnings about the
  /// memory kinds declared on the entry's arguments and results.
  void collectEntrySignature();

  /// A custom call that moves its operand to host; the warnings about
  /// annotations XLA cannot process.
  void collectCustomCall(mlir::Operation *op);

  /// Takes a user of a start as the walk passes it (Walk::run's visitor),
  /// for the location of an entry argument's start.
  void visitStartUser(mlir::Value start, mlir::Operation *user);

  /// Sets the location of each entry argument's start, from the users the
  /// walk passed.
  void setArgumentLocs();

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
  /// Reports HOE108 where argument `index`, declared pinned_host, is donated
  /// to an output in device memory.
  void checkDonation(unsigned index);

  mlir::ModuleOp module;
  mlir::func::FuncOp entry;
  HostOffloadReport &report;
  Walk &walk;
  const OpRules &rules;
  WarningList &warnings;
  std::vector<DeclaredMemoryKind> resultKinds;
  /// By entry argument, for one that is a start: the start's index and the
  /// search for its location.
  std::vector<std::optional<std::pair<unsigned, ArgumentLocSearch>>>
      argumentLocSearches;
  /// The start visitStartUser took last, and its search (null if none).
  mlir::Value lastVisitedStart;
  ArgumentLocSearch *lastVisitedSearch = nullptr;
  /// The module's names of XLA's entry instructions, when it was converted
  /// from HLO.
  mlir::DictionaryAttr hloEntry =
      module->getAttrOfType<mlir::DictionaryAttr>(names::kHloEntryAttr);
  /// How many values xlaAnnotationName looks at before it gives up.
  static constexpr unsigned kMaxValuesForXlaName = 64;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_STARTS_H
