// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=host 2>&1 | FileCheck %s %}
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=device 2>&1 | FileCheck %s %}

// Calls to a missing function, to a symbol that is no function, with the
// wrong operands, or naming the callee with a string: the func dialect's
// verifier rejects them while parsing, with a located error, before any pass
// runs.

// CHECK: calls-invalid.mlir:[[@LINE+3]]:8: error: 'func.call' op 'missing' does not reference a valid function
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op 'missing' does not reference a valid function}}
  %0 = call @missing(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: calls-invalid.mlir:[[@LINE+3]]:8: error: 'func.call' op 'not_a_function' does not reference a valid function
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op 'not_a_function' does not reference a valid function}}
  %0 = "func.call"(%arg0) <{callee = @not_a_function}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"stablehlo.symbol"() <{sym_name = "not_a_function"}> : () -> ()

// -----

// CHECK: calls-invalid.mlir:[[@LINE+3]]:8: error: 'func.call' op incorrect number of operands for callee
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op incorrect number of operands for callee}}
  %0 = "func.call"(%arg0, %arg0) <{callee = @f}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

// CHECK: calls-invalid.mlir:[[@LINE+4]]:8: error: invalid properties {callee = "f"} for op func.call
// CHECK-NOT: Stack dump
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{invalid properties {callee = "f"} for op func.call: Invalid attribute `callee` in property conversion: "f"}}
  %0 = "func.call"(%arg0) <{callee = "f"}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A callee defined twice: the error is at the second definition, with a note
// at the first.

// CHECK: calls-invalid.mlir:[[@LINE+11]]:1: error: redefinition of symbol named 'f'
// CHECK: calls-invalid.mlir:[[@LINE+6]]:1: note: see existing symbol definition here
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-note @below {{see existing symbol definition here}}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
// expected-error @below {{redefinition of symbol named 'f'}}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}
