// -verify-diagnostics goes to MlirOptMain, also without --split-input-file.

// RUN: offload-opt %s --host-offload-check -verify-diagnostics
// RUN: not offload-opt %s --host-offload-check=strict=true -verify-diagnostics 2>&1 | FileCheck %s

// Under strict, host compute is an error (HOE101) that no comment expects.
// CHECK: error: unexpected error: HOE101
// CHECK: error: expected warning "HOW101" was not produced

func.func @main(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) {
  // expected-warning @+1 {{HOW101}}
  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
