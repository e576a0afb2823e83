//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Passes.h"

#include "Analysis/LargeArrayAllocator.h"

namespace hostoffload {

#define GEN_PASS_DEF_HOSTOFFLOADCHECKPASS
#include "hostoffload/Passes.h.inc"

namespace {

struct HostOffloadCheckPass
    : impl::HostOffloadCheckPassBase<HostOffloadCheckPass> {
  using HostOffloadCheckPassBase::HostOffloadCheckPassBase;

  void runOnOperation() override {
    // The pass only reads the IR, so every analysis stays valid; this also
    // spares the pass manager a re-verification of the whole module.
    markAllAnalysesPreserved();
    mlir::FailureOr<HostOffloadReport> report = mlir::failure();
    // Diagnostics included: the first allocations after the parser's would
    // otherwise pay for sorting what it freed (runWithOwnHeap).
    runWithOwnHeap([&] {
      report = analyzeHostOffload(
          getOperation(), HostOffloadOptions{entry, strict, allowH2hCopy});
      if (mlir::succeeded(report))
        emitFindings(*report);
    });
    if (mlir::failed(report)) {
      signalPassFailure();
      return;
    }
    if (!report->hasErrors())
      return;
    recordProgramError();
    signalPassFailure();
  }
};

} // namespace
} // namespace hostoffload
