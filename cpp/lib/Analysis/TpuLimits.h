//===- TpuLimits.h - what XLA:TPU cannot do with host memory ----*- C++ -*-===//
//
// Programs XLA's HostOffloader accepts, but that XLA:TPU fails on later: in
// another pass of its compiler, or on the chip when the program runs. Each
// rule is what was measured on a TPU v5e and with compile-only libtpu
// (test/differential/chip.json; docs/semantics.md, "XLA:TPU's limits"):
//
//  - A stablehlo.gather computing on host memory is host compute that
//    XLA:TPU's host emitter cannot compile (`RET_CHECK ... Fusion must have
//    backend config`): HOE107.
//  - A slice of host memory that nothing computes on is read into device
//    memory by an asynchronous slice (`dynamic-slice-start`), a copy from host
//    memory. One that slices more than one dimension does not compile
//    (`Async slice only supports slicing in 1 dimension`): HOE106. One that
//    slices the lane (minor) dimension must start on a chunk of 512 bytes
//    (128 elements of 32 bits, 256 of 16 bits, 512 of 8 bits), and, in a
//    rank-1 tensor of elements narrower than 32 bits, be a whole number of
//    chunks long; otherwise the TPU core halts when the program runs
//    (`Async slices in the lane dimension must start on chunk boundaries`,
//    `The DMA stride is invalid`): HOE105. A dynamic_slice's start is known
//    only when the program runs: HOW109 says which starts run.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H

#include "Walk.h"
#include "Warnings.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include <vector>

namespace hostoffload {

/// Adds HOE105, HOE106 and HOE107 to `findings` and HOW109 to `warnings` for
/// what the walk found: the gathers, then the slices, as the walk reached
/// them.
void reportTpuLimits(const Walk &walk, std::vector<Finding> &findings,
                     WarningList &warnings);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H
