//===- Passes.h - host-offload passes ---------------------------*- C++ -*-===//

#ifndef HOSTOFFLOAD_PASSES_H
#define HOSTOFFLOAD_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace hostoffload {

#define GEN_PASS_DECL
#include "hostoffload/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hostoffload/Passes.h.inc"

/// Records that a host-offload pass failed because of what the program does:
/// an E1200 (or HOE101 under `strict`), or an E1200 the fix pass cannot fix.
/// Failures that are not recorded are about the input or the invocation: text
/// that does not parse or verify, no entry function, an unknown option.
void recordProgramError();

/// Whether a host-offload pass in this process has recorded a program error.
/// offload-opt exits 1 then and 2 on any other failure, so that input it
/// cannot read is never taken for a verdict.
bool hasRecordedProgramError();

} // namespace hostoffload

#endif // HOSTOFFLOAD_PASSES_H
