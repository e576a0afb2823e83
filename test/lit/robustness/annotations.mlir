// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s

// An annotation with zero or two operands, or zero or two results, gets HOW105
// (XLA fails on it with an internal error) and is not traced; neither fix
// changes anything.

// CHECK-LABEL: func.func @main
// CHECK-NOT: api_version
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @below {{HOW105: 'annotate_device_placement' takes exactly one operand and one result, this one has 0 and 1; XLA fails on it with an internal error, and it is not traced}}
  %0 = "stablehlo.custom_call"() <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NOT: api_version
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @below {{HOW105: 'annotate_device_placement' takes exactly one operand and one result, this one has 2 and 1; XLA fails on it with an internal error, and it is not traced}}
  %0 = "stablehlo.custom_call"(%arg0, %arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NOT: api_version
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @below {{HOW105: 'annotate_device_placement' takes exactly one operand and one result, this one has 1 and 0; XLA fails on it with an internal error, and it is not traced}}
  "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> ()
  return %arg0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NOT: api_version
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @below {{HOW105: 'annotate_device_placement' takes exactly one operand and one result, this one has 1 and 2; XLA fails on it with an internal error, and it is not traced}}
  %0:2 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The same for MoveToHost and MoveToDevice, as in modules converted from HLO.
// CHECK-LABEL: func.func @main
// CHECK-NOT: api_version
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @below {{HOW105: 'MoveToHost' takes exactly one operand and one result, this one has 0 and 1; XLA fails on it with an internal error, and it is not traced}}
  %0 = "stablehlo.custom_call"() <{call_target_name = "MoveToHost"}> : () -> tensor<4xf32>
  // A malformed move to device does not end the trace either: nothing flows
  // through it.
  // expected-warning @below {{HOW105: 'MoveToDevice' takes exactly one operand and one result, this one has 2 and 1; XLA fails on it with an internal error, and it is not traced}}
  %1 = "stablehlo.custom_call"(%arg0, %arg0) <{call_target_name = "MoveToDevice"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
