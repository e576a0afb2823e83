//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace hostoffload {

#define GEN_PASS_DEF_HOSTOFFLOADCHECKPASS
#include "hostoffload/Passes.h.inc"

namespace {

std::string describeTensor(const TensorInfo &tensor) {
  std::string text = tensor.type;
  if (tensor.bytes)
    text += " (" + std::to_string(*tensor.bytes) + " bytes)";
  return text;
}

std::string describeFate(const TraceFate &fate) {
  std::string text;
  switch (fate.kind) {
  case TraceFate::Kind::Device:
    text = "moved back to device by " + fate.at.what;
    break;
  case TraceFate::Kind::HostCompute:
    text = "computed on the host by " + fate.at.what;
    break;
  case TraceFate::Kind::Output:
    text = "returned in host memory as output " +
           std::to_string(*fate.outputIndex);
    break;
  case TraceFate::Kind::Mismatch:
    text = "returned as output " + std::to_string(*fate.outputIndex) +
           ", which is not in host memory: E1200";
    break;
  case TraceFate::Kind::HostCall:
    text = "consumed by " + fate.at.what + " on the host";
    break;
  }
  if (fate.tensor && fate.kind != TraceFate::Kind::HostCompute)
    text += ": " + describeTensor(*fate.tensor);
  if (fate.fromStart)
    text += " (joining start #" + std::to_string(*fate.fromStart) + ")";
  return text;
}

/// Remarks where the host memory of every start of `report` goes, then the
/// totals per step.
void emitTrace(HostOffloadReport &report) {
  uint64_t toHost = 0, toDevice = 0;
  size_t hostCompute = 0, unused = 0;
  for (auto [index, trace] : llvm::enumerate(report.trace)) {
    const TraceStart &start = report.starts[index];
    if (!trace.alreadyInHost)
      toHost += trace.tensor.bytes.value_or(0);
    hostCompute += trace.firstHostComputeOps;
    unused += trace.fates.empty();
    mlir::InFlightDiagnostic remark =
        mlir::emitRemark(withEditorColumns(start.loc))
        << "start #" << index << ", " << start.name << ": "
        << describeTensor(trace.tensor) << " in host memory"
        << (trace.fates.empty() ? ", unused" : "");
    size_t shownHostCompute = 0;
    for (const TraceFate &fate : trace.fates) {
      remark.attachNote(withEditorColumns(fate.at.loc)) << describeFate(fate);
      shownHostCompute += fate.kind == TraceFate::Kind::HostCompute;
      if (fate.kind == TraceFate::Kind::Device && !fate.fromStart &&
          fate.tensor)
        toDevice += fate.tensor->bytes.value_or(0);
    }
    if (trace.hostComputeOps > shownHostCompute)
      remark.attachNote() << "and " << trace.hostComputeOps - shownHostCompute
                          << " more ops computed on the host";
  }
  mlir::emitRemark(report.entry.getLoc())
      << "@" << report.entry.getSymName() << ": " << report.starts.size()
      << " starts per step: " << toHost << " bytes to host, " << toDevice
      << " bytes back to device, " << hostCompute
      << " ops computed on the host, " << report.mismatchedOutputs.size()
      << " outputs with E1200, " << unused << " unused starts";
}

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
    std::optional<Platform> compiledFor = parsePlatform(platform);
    if (!compiledFor) {
      emitUnknownPlatform(getOperation().getLoc(), "host-offload-check",
                          platform);
      signalPassFailure();
      return;
    }
    // The pass only reads the IR, so every analysis stays valid; this also
    // spares the pass manager a re-verification of the whole module.
    markAllAnalysesPreserved();
    // Each E1200 is emitted as soon as it is made, and the next is made in
    // its memory: a model has thousands.
    FindingEmitter emitter;
    HostOffloadOptions options{entry,    strict, allowH2hCopy,
                               *release, trace,  *compiledFor};
    mlir::FailureOr<HostOffloadReport> report = analyzeHostOffload(
        getOperation(), options,
        [&](const Finding &mismatch) { emitter.emit(mismatch); });
    if (mlir::succeeded(report))
      for (const Finding &finding : report->findings)
        emitter.emit(finding);
    if (mlir::failed(report)) {
      signalPassFailure();
      return;
    }
    if (trace)
      emitTrace(*report);
    if (!report->hasErrors())
      return;
    recordProgramError();
    signalPassFailure();
  }
};

} // namespace
} // namespace hostoffload
