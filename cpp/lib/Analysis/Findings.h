//===- Findings.h - what the walk means for XLA -----------------*- C++ -*-===//
//
// Turns what the walk found into findings with their messages, notes and
// fixes: E1200 for each entry output in host memory that is not declared so
// (HOW102 where XLA's root special case accepts it), and HOW101 (HOE101 under
// `strict`) for device ops computing on host memory.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_FINDINGS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_FINDINGS_H

#include "MemoryKinds.h"
#include "OpRules.h"
#include "Paths.h"
#include "Walk.h"
#include "Warnings.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace hostoffload {

class NoteWriter;

class FindingBuilder {
public:
  FindingBuilder(mlir::func::FuncOp entry, const HostOffloadOptions &options,
                 HostOffloadReport &report, const Walk &walk,
                 const OpRules &rules,
                 const std::vector<DeclaredMemoryKind> &resultKinds,
                 WarningList &warnings,
                 llvm::function_ref<void(const Finding &)> takeMismatch)
      : entry(entry), strict(options.strict),
        allowH2hCopy(options.allowH2hCopy), xlaRelease(options.xlaRelease),
        platform(options.platform), report(report), walk(walk), rules(rules),
        resultKinds(resultKinds), warnings(warnings),
        takeMismatch(takeMismatch), paths(walk, report.starts) {}

  /// Adds an E1200 error to the report (or gives it to `takeMismatch`) for
  /// each output in host memory that is not declared so, in output order, or
  /// a HOW102 warning where XLA lets it pass, or, where that output is
  /// declared unpinned_host, what XLA:TPU does then (HOE104, HOW108).
  void reportOutputs();

  /// Adds one HOW101 warning (HOE101 error under `strict`) per location where
  /// device ops first compute on the host memory of a start: a host tensor
  /// feeding a thousand device ops is one problem to fix, and so is a line
  /// computing on a thousand host tensors; a thousand diagnostics would bury
  /// it. Each lists the other ops of its first start and the other starts.
  void reportHostCompute();

private:
  /// The `jax.result_info` of `output` (JAX's name of it), or "".
  llvm::StringRef getResultInfo(unsigned output);
  bool isRootSpecialCase(mlir::Operation *terminator, unsigned operand);
  /// Reports HOW102 on output 0, which XLA's root special case copies to
  /// host memory and back, with what keeps it in host memory.
  void reportRootMovedToHost(mlir::Location loc,
                             const DeclaredMemoryKind &declared,
                             llvm::StringRef functionName);
  /// Reports the lone output declared unpinned_host that XLA's root special
  /// case copies to host memory: XLA:TPU cannot make that copy.
  void reportRootCopyToUnpinnedHost(mlir::Location loc,
                                    const DeclaredMemoryKind &declared,
                                    llvm::StringRef functionName);
  void explainComputedSlice(const Node &node, NoteWriter &notes) const;
  /// Makes `finding` the E1200 of `output`, whose value is node `id`,
  /// writing over what `finding` held.
  void buildMismatch(Finding &finding, const Node &node, unsigned id,
                     unsigned output, const DeclaredMemoryKind &declared,
                     mlir::Location loc, llvm::StringRef functionName);
  /// The note of a HOW101 at a location where the first op computing on each
  /// of `startIndices` is: how many, and the names of the others.
  std::string describeOtherStarts(llvm::ArrayRef<unsigned> startIndices) const;
  void addFixes(Finding &finding, NoteWriter &notes,
                const DeclaredMemoryKind &declared, mlir::Location loc,
                llvm::StringRef functionName);

  mlir::func::FuncOp entry;
  bool strict;
  bool allowH2hCopy;
  XlaRelease xlaRelease;
  Platform platform;
  HostOffloadReport &report;
  const Walk &walk;
  const OpRules &rules;
  const std::vector<DeclaredMemoryKind> &resultKinds;
  WarningList &warnings;
  llvm::function_ref<void(const Finding &)> takeMismatch;
  PathBuilder paths;
  /// How the E1200 being built names its output, e.g. "output 3".
  std::string outputName;
};

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_FINDINGS_H
