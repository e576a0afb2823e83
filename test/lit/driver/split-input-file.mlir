// --split-input-file goes to MlirOptMain: each chunk is processed on its own
// and the outputs are joined by the split marker; -verify-diagnostics checks
// every chunk's diagnostics (here only the expected ones, not the notes).

// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s
// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics=only-expected

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"})
// CHECK: // {{-----}}
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"})
// CHECK-NOT: // {{-----}}

func.func @main(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "device"}) {
  // expected-error @+2 {{E1200}}
  // expected-warning @+1 {{HOW101}}
  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @main(%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<8xf32> {mhlo.memory_kind = "pinned_host"}) {
  return %arg0 : tensor<8xf32>
}
