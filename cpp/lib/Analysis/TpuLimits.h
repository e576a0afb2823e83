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
//  - A stablehlo.sort computing on host memory aborts libtpu in XLA releases
//    2026-06 and 2026-07 (`Check failed: !tmp_shape_index.empty()` in
//    host_offload_utils.cc): HOE110.
//  - An output declared pinned_host that is the result of a loop whose
//    carry starts in device memory and becomes host memory in the loop (host
//    compute on host memory) aborts libtpu in its host compute alias assigner
//    (`Expect host execute operand subshape to be the same as the output
//    subshape`); with the initial value in host memory it compiles: HOE109.
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H
#define HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H

#include "MemoryKinds.h"
#include "Walk.h"
#include "Warnings.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "hostoffload/HostOffloadAnalysis.h"
#include "hostoffload/XlaReleases.h"

#include <vector>

namespace hostoffload {

/// Adds HOE105, HOE106, HOE107, HOE109 and HOE110 to `findings` and HOW109
/// to `warnings` for what the walk found, as XLA release `xlaRelease` does:
/// the gathers and sorts, then the slices, as the walk reached them, then the
/// outputs of `entry` (declared `resultKinds`).
void reportTpuLimits(const Walk &walk, mlir::func::FuncOp entry,
                     const std::vector<DeclaredMemoryKind> &resultKinds,
                     XlaRelease xlaRelease, std::vector<Finding> &findings,
                     WarningList &warnings);

/// The initial value of the loop carry that `output`, host memory, is the
/// result of, where that carry starts in device memory; null otherwise.
mlir::OpOperand *findLoopInitInDeviceMemory(const Walk &walk,
                                            mlir::Value output);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_TPULIMITS_H
