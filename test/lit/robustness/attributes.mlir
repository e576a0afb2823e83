// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --check-prefix=DEVICE

// Attributes of the wrong type never stop the check: a memory kind or
// placement that is not a string gets HOW104 and counts as no declaration (an
// output without one is in device memory), a frontend-attribute dictionary
// that is not one is as if absent, a call target that is not a string makes
// the custom call an ordinary op.

// mhlo.memory_kind as an integer and as an array on arguments.
// expected-warning @below {{HOW104: mhlo.memory_kind on argument 0 of @main is not a string; XLA knows "device", "pinned_host" and "unpinned_host"}}
// expected-warning @below {{HOW104: mhlo.memory_kind on argument 1 of @main is not a string; XLA knows "device", "pinned_host" and "unpinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = 5 : i32}, %arg1: tensor<4xf32> {mhlo.memory_kind = ["pinned_host"]}) -> (tensor<4xf32>, tensor<4xf32>) {
  return %arg0, %arg1 : tensor<4xf32>, tensor<4xf32>
}
// HOST-LABEL: func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = 5 : i32}, %arg1: tensor<4xf32> {mhlo.memory_kind = ["pinned_host"]}) -> (tensor<4xf32>, tensor<4xf32>)
// DEVICE-LABEL: func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = 5 : i32}, %arg1: tensor<4xf32> {mhlo.memory_kind = ["pinned_host"]}) -> (tensor<4xf32>, tensor<4xf32>)
// DEVICE-NEXT: return %arg0, %arg1

// -----

// mhlo.memory_kind as an integer and as an array on results: the outputs are
// in device memory, so the host argument reaching them is E1200, and the fix
// replaces the malformed declarations. An argument returned as is is reported
// where it is declared.
// expected-warning @below {{HOW104: mhlo.memory_kind on result 0 of @main is not a string; XLA knows "device", "pinned_host" and "unpinned_host"}}
// expected-warning @below {{HOW104: mhlo.memory_kind on result 1 of @main is not a string; XLA knows "device", "pinned_host" and "unpinned_host"}}
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
// expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
// expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
// expected-note @below {{path: argument #0 -> output 0}}
// expected-note @below {{path: argument #0 -> output 1}}
// expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main}}
// expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 1 of @main}}
// expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return}}
// expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1 of func.return}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = 5 : i32}, tensor<4xf32> {mhlo.memory_kind = ["pinned_host"]}) {
  return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>
}
// HOST-LABEL: func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main(
// DEVICE-COUNT-2: _xla_buffer_placement = "device"
// DEVICE: return

// -----

// _xla_buffer_placement as an integer and as an array: not a move.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @below {{HOW104: 'annotate_device_placement' has no string _xla_buffer_placement in mhlo.frontend_attributes; XLA knows "pinned_host", "unpinned_host", "device", "vmem" and "pinned_device"}}
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = 5 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW104: 'annotate_device_placement' has no string _xla_buffer_placement in mhlo.frontend_attributes; XLA knows "pinned_host", "unpinned_host", "device", "vmem" and "pinned_device"}}
  %1 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = ["pinned_host"]}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// HOST-LABEL: func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// DEVICE-LABEL: func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// DEVICE-NOT: _xla_buffer_placement = "device"
// DEVICE: {{^}}module {

// -----

// mhlo.frontend_attributes that is not a dictionary.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @below {{HOW104: 'annotate_device_placement' has no string _xla_buffer_placement in mhlo.frontend_attributes}}
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = "pinned_host"} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW104: 'annotate_device_placement' has no string _xla_buffer_placement in mhlo.frontend_attributes}}
  %1 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = [{_xla_buffer_placement = "pinned_host"}]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A module whose mhlo.frontend_attributes is not a dictionary, or whose
// memory spaces are not strings, declares no memory spaces.
module attributes {mhlo.frontend_attributes = 5 : i32} {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

module attributes {mhlo.frontend_attributes = {arg_memory_spaces = 5 : i32, out_memory_spaces = [0]}} {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}

// -----

// A host compute call whose _xla_compute_type is not a string, or whose
// frontend attributes are not a dictionary, is an ordinary call.
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) {
  %0 = call @f(%arg0) {mhlo.frontend_attributes = {_xla_compute_type = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @f(%arg0) {mhlo.frontend_attributes = "host"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

// call_target_name as an integer, an array, a symbol, or missing: an ordinary
// custom call, through which host memory flows as host compute.
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) {
  // expected-warning @below {{HOW101: 'stablehlo.custom_call' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = 5 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.custom_call' computes on host memory from the same start}}
  %1 = "stablehlo.custom_call"(%arg0) <{call_target_name = ["MoveToDevice"]}> : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.custom_call' computes on host memory from the same start}}
  %2 = "stablehlo.custom_call"(%arg0) <{call_target_name = @MoveToDevice}> : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.custom_call' computes on host memory from the same start}}
  %3 = "stablehlo.custom_call"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// mhlo.layout_mode and jax.result_info that are not strings are ignored.
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
// expected-error @below {{output 1 has no mhlo.memory_kind, so it is in device memory}}
// expected-note @below {{path: argument #0 -> output 1}}
// expected-note @below {{in JAX: out_shardings=...with_memory_kind("pinned_host") for output 1}}
// expected-note @below {{in JAX: jax.device_put(x, jax.memory.Space.Device) on output 1 before returning it}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host", mhlo.layout_mode = 1 : i32}, tensor<4xf32> {jax.result_info = 3 : i32}) {
  return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>
}
