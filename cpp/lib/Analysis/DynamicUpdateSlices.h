//===- DynamicUpdateSlices.h - XLA's rules for writes into buffers -*- C++ -*-//
//
// What XLA's HostOffloader does with each dynamic_update_slice once host
// memory has spread through the module (HandleDynamicUpdateSlices in
// host_offloader.cc), and the two compile errors it can raise there:
//
//  - HOE102: a write of a tensor moved to host makes XLA keep the written
//    buffer in host memory back to where the buffer is made
//    (CreateAllocateBufferForDynamicUpdateSlice); if that is an entry
//    argument in device memory, XLA stops with `Entry computation parameter
//    "<name>" (shape index {...}) is not in host memory space.`
//  - under `strict` (XLA's xla_disable_automatic_host_compute_offload): a
//    write whose update is in host memory is host compute, which XLA refuses
//    with `Automatic host compute offloading is disabled.` (HOE101).
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_DYNAMICUPDATESLICES_H
#define HOSTOFFLOAD_LIB_ANALYSIS_DYNAMICUPDATESLICES_H

#include "OpRules.h"
#include "Walk.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace hostoffload {

/// Adds to `report` an HOE102 error for every entry argument in device memory
/// that XLA's offloader traces a write of host memory back to, and, under
/// `options.strict`, an HOE101 error for every dynamic_update_slice XLA would
/// run as host compute. Errors go before the warnings (the caller moves the
/// warnings after them).
void reportDynamicUpdateSlices(mlir::ModuleOp module, mlir::func::FuncOp entry,
                               const HostOffloadOptions &options,
                               const Walk &walk, const OpRules &rules,
                               HostOffloadReport &report);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_DYNAMICUPDATESLICES_H
