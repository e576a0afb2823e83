// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --check-prefix=DEVICE

// Recursive call graphs (HOE103: XLA cannot compile them, but they parse) end:
// every (value, tuple index) is visited once. Calls that do not reference a function
// are rejected by the func dialect's verifier (calls-invalid.mlir).

// The entry function calls itself.
// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main
// DEVICE: _xla_buffer_placement = "device"
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{HOE103: recursive call: @main -> @main}}
  %0 = call @main(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0)}}
  // expected-error @below {{output 0 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.add -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.add"(%0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A cycle of three functions, entered twice.
// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32>)
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{output 0 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> call @a -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = call @a(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @b(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @a(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{in the cycle: @a calls @b}}
  %0 = call @b(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %arg0 : tensor<4xf32>
}
func.func private @b(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{in the cycle: @b calls @c}}
  %0 = call @c(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @c(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{HOE103: recursive call: @a -> @b -> @c -> @a}}
  %0 = call @a(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A call to a declaration: there is no body to follow, and XLA cannot compile
// it either; its result is not traced.
// HOST-LABEL: func.func @main
// HOST-SAME: -> tensor<4xf32> {
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  %0 = call @external(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// -----

// An ill-typed tuple op (its result is no tuple) inside recursion: every round
// would nest the host element one tuple deeper. Tuple index paths are clamped
// to the type of the value they are on (here: the whole tensor), so a value
// has at most as many paths as its type has tuple elements and the walk ends.
// (Found by tools/fuzz: it used to run for ever.)
// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main
// DEVICE: _xla_buffer_placement = "device"
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  // expected-error @below {{output 0 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> call @ping -> call @pong -> stablehlo.tuple -> return from @pong -> return from @ping -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = call @ping(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @ping(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{in the cycle: @ping calls @pong}}
  %0 = call @pong(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @pong(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{HOE103: recursive call: @ping -> @pong -> @ping}}
  %0 = call @ping(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{HOE103: recursive call: @pong -> @pong}}
  %1 = call @pong(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.tuple"(%arg0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
