//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/ModuleVerifier.h"
#include "hostoffload/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace hostoffload {

#define GEN_PASS_DEF_HOSTOFFLOADCHECKPASS
#include "hostoffload/Passes.h.inc"

namespace {

struct HostOffloadCheckPass
    : impl::HostOffloadCheckPassBase<HostOffloadCheckPass> {
  using HostOffloadCheckPassBase::HostOffloadCheckPassBase;

  void runOnOperation() override {
    std::optional<XlaRelease> release = parseXlaRelease(xlaRelease);
    if (!release) {
      emitUnknownXlaRelease(getOperation().getLoc(), "host-offload-check",
                            xlaRelease);
      signalPassFailure();
      return;
    }
    // The pass only reads the IR, so every analysis stays valid; this also
    // spares the pass manager a re-verification of the whole module.
    markAllAnalysesPreserved();
    // The verifier pass that ran before this one found the ops the analysis
    // looks up on its way through the module, which is as it was then.
    const ModuleOps *collected = nullptr;
    if (auto verified = getCachedAnalysis<VerifiedModule>())
      collected = verified->get().getOps();
    // Each E1200 is emitted as soon as it is made, and the next is made in
    // its memory: a model has thousands.
    FindingEmitter emitter;
    HostOffloadOptions options{entry, strict, allowH2hCopy, *release};
    mlir::FailureOr<HostOffloadReport> report = analyzeHostOffload(
        getOperation(), options,
        [&](const Finding &mismatch) { emitter.emit(mismatch); }, collected);
    if (mlir::succeeded(report))
      for (const Finding &finding : report->findings)
        emitter.emit(finding);
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
