//===- CallCycles.h - recursive call graphs ---------------------*- C++ -*-===//

#ifndef HOSTOFFLOAD_LIB_ANALYSIS_CALLCYCLES_H
#define HOSTOFFLOAD_LIB_ANALYSIS_CALLCYCLES_H

#include "ModuleOps.h"

#include "hostoffload/HostOffloadAnalysis.h"

#include <vector>

namespace hostoffload {

/// Appends an HOE103 error to `findings` for every call that closes a cycle
/// of calls reachable from `entry`: a call, made on the way down from
/// `entry`, to a function that is still being called on that way. The error
/// is at that call and names the cycle (`@f -> @g -> @f`). XLA cannot compile
/// such a program; a cycle the entry never reaches is no error (XLA compiles
/// only what the entry calls). A caller that calls one function at several
/// sites closes the cycle at the first. Linear in the size of the module;
/// recurses on no depth of the call graph. Reads only `ops` (the module's
/// calls and symbols).
void reportCallCycles(mlir::func::FuncOp entry, const ModuleOps &ops,
                      std::vector<Finding> &findings);

} // namespace hostoffload

#endif // HOSTOFFLOAD_LIB_ANALYSIS_CALLCYCLES_H
