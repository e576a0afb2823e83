//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Passes.h"

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
    mlir::FailureOr<HostOffloadReport> report = analyzeHostOffload(
        getOperation(), HostOffloadOptions{entry, strict, allowH2hCopy});
    if (mlir::failed(report)) {
      signalPassFailure();
      return;
    }
    emitFindings(*report);
    if (!report->hasErrors())
      return;
    recordProgramError();
    signalPassFailure();
  }
};

} // namespace
} // namespace hostoffload
