//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/ModuleVerifier.h"
#include "hostoffload/Passes.h"

#include "mlir/IR/Diagnostics.h"

#include "Analysis/LargeArrayAllocator.h"

#include <atomic>

namespace hostoffload {

#define GEN_PASS_DEF_HOSTOFFLOADCHECKPASS
#include "hostoffload/Passes.h.inc"

static std::atomic<bool> diagnosticsFromAnalysisThread{false};

void allowDiagnosticsFromAnalysisThread() {
  diagnosticsFromAnalysisThread = true;
}

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
    mlir::FailureOr<HostOffloadReport> report = mlir::failure();
    // The analysis runs on a heap of its own (runWithOwnHeap). Unless every
    // handler may be called from that thread, what it reports goes to the
    // context's handlers from this one: a handler may be Python's, which
    // must not be called from a thread Python does not know.
    bool emitOnAnalysisThread = diagnosticsFromAnalysisThread;
    // The verifier pass that ran before this one found the ops the analysis
    // looks up on its way through the module, which is as it was then.
    const ModuleOps *collected = nullptr;
    if (auto verified = getCachedAnalysis<VerifiedModule>())
      collected = verified->get().getOps();
    llvm::SmallVector<mlir::Diagnostic> raised;
    runWithOwnHeap([&] {
      HostOffloadOptions options{entry, strict, allowH2hCopy, *release};
      if (!emitOnAnalysisThread) {
        mlir::ScopedDiagnosticHandler keep(
            &getContext(), [&](mlir::Diagnostic &diagnostic) {
              raised.push_back(std::move(diagnostic));
              return mlir::success();
            });
        report = analyzeHostOffload(getOperation(), options, {}, collected);
        return;
      }
      // Emitted from the analysis's thread, each E1200 is emitted as soon as
      // it is made, and the next is made in its memory: a model has
      // thousands, and memory used again costs neither the allocator's work
      // nor a fresh page.
      FindingEmitter emitter;
      report = analyzeHostOffload(
          getOperation(), options,
          [&](const Finding &mismatch) { emitter.emit(mismatch); }, collected);
      if (mlir::succeeded(report))
        for (const Finding &finding : report->findings)
          emitter.emit(finding);
    });
    for (mlir::Diagnostic &diagnostic : raised)
      getContext().getDiagEngine().emit(std::move(diagnostic));
    if (!emitOnAnalysisThread && mlir::succeeded(report))
      emitFindings(*report);
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
