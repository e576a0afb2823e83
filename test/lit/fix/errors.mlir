// RUN: not offload-opt %s --host-offload-fix=strategy=hots 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not offload-opt %s --host-offload-fix 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not offload-opt %s --pass-pipeline='builtin.module(host-offload-fix{strategy=Host})' 2>&1 | FileCheck %s --check-prefix=CASE

// The strategy is checked before anything else; the error points at the
// module and the module is not printed.

// UNKNOWN: errors.mlir:[[@LINE+4]]:1: error: host-offload-fix: unknown strategy 'hots'; use strategy=host (declare each output that fails with E1200 in host memory) or strategy=device (move it back to device memory before the return)
// UNKNOWN-NOT: func.func
// MISSING: errors.mlir:[[@LINE+2]]:1: error: host-offload-fix needs a strategy: strategy=host (declare each output that fails with E1200 in host memory) or strategy=device (move it back to device memory before the return)
// CASE: errors.mlir:[[@LINE+1]]:1: error: host-offload-fix: unknown strategy 'Host'
module {
  func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
