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

} // namespace hostoffload

#endif // HOSTOFFLOAD_PASSES_H
