//===- Trace.h - where every start's host memory goes -----------*- C++ -*-===//
//
// The trace of a walk that has run: for each start of the report, its tensor,
// the ops its host memory passes through, and its ends (HostOffloadReport's
// `trace`).
//
//===----------------------------------------------------------------------===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_TRACE_H
#define HOSTOFFLOAD_LIB_ANALYSIS_TRACE_H

#include "MemoryKinds.h"
#include "OpRules.h"
#include "Walk.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace hostoffload {

/// Fills `report.trace` from `walk`, once the findings of the outputs are in
/// `report`; `resultKinds` are the memory kinds the entry's results declare.
void traceStarts(mlir::func::FuncOp entry, HostOffloadReport &report,
                 const Walk &walk, const OpRules &rules,
                 const std::vector<DeclaredMemoryKind> &resultKinds);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_TRACE_H
