//===- GpuBranches.h - XLA:GPU's check of branches in host memory -*- C++ -*-//
//
// XLA:GPU checks the module against its shapes, memory spaces included, after
// HostOffloader. A conditional whose result is host memory in one branch and
// device memory in another then fails: HostOffloader puts the branch's root in
// host memory and leaves the conditional's shape apart from it (measured:
// switch_host and both its fixes; XLA:TPU compiles them).
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_GPUBRANCHES_H
#define HOSTOFFLOAD_LIB_ANALYSIS_GPUBRANCHES_H

#include "OpRules.h"
#include "Walk.h"

#include "hostoffload/HostOffloadAnalysis.h"

namespace hostoffload {

/// Adds to `report` an HOE112 error for every stablehlo.if or stablehlo.case
/// result that some branch yields in host memory and another in device
/// memory, once per op, when `options` model XLA:GPU.
void reportGpuMixedBranches(const HostOffloadOptions &options, const Walk &walk,
                            const OpRules &rules, HostOffloadReport &report);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_GPUBRANCHES_H
