// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host | FileCheck %s --check-prefix=HOST
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=device | FileCheck %s --check-prefix=DEVICE

// A while loop with missing, empty or malformed regions: what is there is
// traced (operand i to result i, into the block arguments that exist, body
// yields to results that exist), what is missing is skipped.

// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main
// DEVICE-COUNT-3: _xla_buffer_placement = "device"
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // No regions.
  // expected-error @below {{output 0 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.while -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = "stablehlo.while"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // Regions without blocks.
  // expected-error @below {{output 1 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.while -> output 1}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.while"(%arg0) ({}, {}) : (tensor<4xf32>) -> tensor<4xf32>
  // One region, with a block that has no arguments.
  // expected-error @below {{output 2 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.while -> output 2}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %2 = "stablehlo.while"(%arg0) ({
    "stablehlo.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A body that yields more values than the loop has results, a loop without
// results, a third region and a body of several blocks.
// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32>, tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main
// DEVICE-COUNT-1: _xla_buffer_placement = "device"
// DEVICE-NOT: _xla_buffer_placement = "device"
// DEVICE: {{^}}module {
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "stablehlo.while"(%arg1) ({
  ^bb0(%a: tensor<4xf32>):
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "stablehlo.return"(%a, %arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.while"(%arg0) ({
  ^bb0(%a: tensor<4xf32>):
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> ()
  // expected-error @below {{output 1 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.add -> stablehlo.while -> output 1}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.while"(%arg1) ({
  ^bb0(%a: tensor<4xf32>):
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "cf.br"()[^bb1] : () -> ()
  ^bb1:
    // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0)}}
    %s = "stablehlo.add"(%arg0, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }, {
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A stablehlo.return that ends a function body is not a function return: the
// value goes nowhere (and no function computes on it).
// HOST-LABEL: func.func @main
// HOST-SAME: -> tensor<4xf32> {
// DEVICE-LABEL: func.func @main
// DEVICE-NOT: _xla_buffer_placement = "device"
// DEVICE: {{^}}module {
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  "stablehlo.return"(%arg0) : (tensor<4xf32>) -> ()
}

// -----

// A function nested in a region of the entry function is not the entry.
// HOST-LABEL: func.func @main
// HOST-SAME: -> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"})
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
func.func @main(%arg0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) -> tensor<4xf32> {
  "stablehlo.region"() ({
    func.func @inner(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
    "stablehlo.return"() : () -> ()
  }) : () -> ()
  // expected-error @below {{output 0 has no mhlo.memory_kind}}
  // expected-note @below {{path: argument #0 -> stablehlo.optimization_barrier -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %0 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A write into a buffer that comes out of a loop without its body region,
// out of a loop whose body block is empty and out of a named computation
// without a region: the trace up from the write stops there, and an output
// declared in host memory is no finding.
// HOST-LABEL: func.func @main(%arg0: tensor<8x4xf32>
// HOST-SAME: -> (tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main(%arg0: tensor<8x4xf32>
// DEVICE-NOT: _xla_buffer_placement = "device"
func.func @main(%buffer: tensor<8x4xf32>, %row: tensor<1x4xf32>) -> (tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}) {
  %moved = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0 = "stablehlo.while"(%buffer) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = "stablehlo.while"(%buffer) ({
  ^bb0(%b: tensor<8x4xf32>):
    "stablehlo.return"(%b) : (tensor<8x4xf32>) -> ()
  }, {
  ^bb0(%b: tensor<8x4xf32>):
  }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = "sdy.named_computation"(%buffer) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %w0 = "stablehlo.dynamic_update_slice"(%0, %moved, %zero, %zero) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  %w1 = "stablehlo.dynamic_update_slice"(%1, %moved, %zero, %zero) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  %w2 = "stablehlo.dynamic_update_slice"(%2, %moved, %zero, %zero) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %w0, %w1, %w2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A write whose buffer is its own result, in a loop body (MLIR checks no
// dominance in an unregistered op's region), and a tuple read of its own
// result, which would make the path longer at every turn: each is traced up
// once, and the trace stops where the path leaves the tuple's type.
// HOST-LABEL: func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<1x4xf32>, %arg2: tuple<tensor<8x4xf32>>)
// HOST-SAME: -> (tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"})
// DEVICE-LABEL: func.func @main(%arg0: tensor<8x4xf32>, %arg1: tensor<1x4xf32>, %arg2: tuple<tensor<8x4xf32>>)
// DEVICE-NOT: _xla_buffer_placement = "device"
func.func @main(%buffer: tensor<8x4xf32>, %row: tensor<1x4xf32>, %pair: tuple<tensor<8x4xf32>>) -> (tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}, tensor<8x4xf32> {mhlo.memory_kind = "pinned_host"}) {
  %moved = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0 = "stablehlo.while"(%buffer) ({
  ^bb0(%b: tensor<8x4xf32>):
    %go = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%go) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<8x4xf32>):
    %w = "stablehlo.dynamic_update_slice"(%w, %moved, %zero, %zero) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
    "stablehlo.return"(%w) : (tensor<8x4xf32>) -> ()
  }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = "stablehlo.while"(%pair) ({
  ^bb0(%p: tuple<tensor<8x4xf32>>):
    %go = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%go) : (tensor<i1>) -> ()
  }, {
  ^bb0(%p: tuple<tensor<8x4xf32>>):
    %t = "stablehlo.get_tuple_element"(%t) <{index = 0 : i32}> : (tuple<tensor<8x4xf32>>) -> tuple<tensor<8x4xf32>>
    "stablehlo.return"(%t) : (tuple<tensor<8x4xf32>>) -> ()
  }) : (tuple<tensor<8x4xf32>>) -> tuple<tensor<8x4xf32>>
  %2 = "stablehlo.dynamic_update_slice"(%1, %moved, %zero, %zero) : (tuple<tensor<8x4xf32>>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %0, %2 : tensor<8x4xf32>, tensor<8x4xf32>
}
