//===- HostOffloadCheck.cpp - the host-offload-check pass -----------------===//

#include "hostoffload/EntryFunction.h"
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
    if (mlir::failed(findEntryFunction(getOperation(), entry)))
      signalPassFailure();
  }
};

} // namespace
} // namespace hostoffload
