// RUN: not offload-opt %s --split-input-file --host-offload-check -o /dev/null 2>&1 | FileCheck %s
// RUN: not offload-opt %s --split-input-file --host-offload-check=strict=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT

// HOE102 (docs/semantics.md, section 11): a write of a tensor moved to host
// makes XLA keep the written buffer in host memory back to where it is made;
// an entry argument in device memory there is XLA's `Entry computation
// parameter "<name>" (shape index {...}) is not in host memory space.`

// Both operands moved to host, as JAX writes it (device_put to Space.Host).
// CHECK-LABEL: error: HOE102: Entry computation parameter "buf_straight" (shape index {}) is not in host memory space; argument 'buf_straight' has no mhlo.memory_kind, so it is in device memory, and 'stablehlo.dynamic_update_slice' writes a tensor moved to host into it
// CHECK: note: moved to host here: the buffer (operand 0)
// CHECK: note: moved to host here: the update (operand 1)
// CHECK: note: path: argument 'buf_straight' -> stablehlo.custom_call @annotate_device_placement -> stablehlo.dynamic_update_slice
// CHECK: note: fix (declare the buffer in host memory): set mhlo.memory_kind = "pinned_host" on argument 0 of @straight; in JAX: in_shardings=...with_memory_kind("pinned_host") for 'buf_straight', or jax.device_put it to pinned_host before the call
// CHECK: note: fix (or write into a buffer made in the program)
// STRICT-LABEL: error: HOE102: Entry computation parameter "buf_straight"
"func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "straight"}> ({
^bb0(%buf: tensor<8x4xf32> loc("buf_straight"), %row: tensor<1x4xf32> loc("row")):
  %0 = "stablehlo.custom_call"(%buf) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = "stablehlo.custom_call"(%row) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %2 = "stablehlo.dynamic_update_slice"(%0, %1, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  "func.return"(%2) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// -----

// Through a while loop: the loop carries the argument itself, and the body
// writes a row moved to host into it (HLO's MoveToHost).
// CHECK-LABEL: error: HOE102: Entry computation parameter "buf_loop" (shape index {}) is not in host memory space
// CHECK: note: moved to host here: the update (operand 1)
// CHECK: note: path: argument 'buf_loop' -> stablehlo.while -> stablehlo.dynamic_update_slice
"func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "loop"}> ({
^bb0(%buf: tensor<8x4xf32> loc("buf_loop"), %row: tensor<1x4xf32> loc("row")):
  %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w:2 = "stablehlo.while"(%c0, %buf) ({
  ^bb0(%i: tensor<i32>, %carried: tensor<8x4xf32>):
    %n = "stablehlo.constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
    %lt = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %carried: tensor<8x4xf32>):
    %moved = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %written = "stablehlo.dynamic_update_slice"(%carried, %moved, %i, %z) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%next, %written) : (tensor<i32>, tensor<8x4xf32>) -> ()
  }) : (tensor<i32>, tensor<8x4xf32>) -> (tensor<i32>, tensor<8x4xf32>)
  "func.return"(%w#1) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// -----

// Through a tuple made in the program and taken apart again.
// CHECK-LABEL: error: HOE102: Entry computation parameter "buf_tuple" (shape index {}) is not in host memory space
// CHECK: note: path: argument 'buf_tuple' -> stablehlo.tuple -> stablehlo.get_tuple_element -> stablehlo.dynamic_update_slice
"func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "through_tuple"}> ({
^bb0(%buf: tensor<8x4xf32> loc("buf_tuple"), %row: tensor<1x4xf32> loc("row")):
  %t = "stablehlo.tuple"(%buf, %row) : (tensor<8x4xf32>, tensor<1x4xf32>) -> tuple<tensor<8x4xf32>, tensor<1x4xf32>>
  %b = "stablehlo.get_tuple_element"(%t) <{index = 0 : i32}> : (tuple<tensor<8x4xf32>, tensor<1x4xf32>>) -> tensor<8x4xf32>
  %moved = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w = "stablehlo.dynamic_update_slice"(%b, %moved, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  "func.return"(%w) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// -----

// An element of a tuple-typed argument: XLA names its shape index.
// CHECK-LABEL: error: HOE102: Entry computation parameter "pair" (shape index {1}) is not in host memory space
"func.func"() <{function_type = (tuple<tensor<1x4xf32>, tensor<8x4xf32>>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "tuple_argument"}> ({
^bb0(%pair: tuple<tensor<1x4xf32>, tensor<8x4xf32>> loc("pair")):
  %row = "stablehlo.get_tuple_element"(%pair) <{index = 0 : i32}> : (tuple<tensor<1x4xf32>, tensor<8x4xf32>>) -> tensor<1x4xf32>
  %b = "stablehlo.get_tuple_element"(%pair) <{index = 1 : i32}> : (tuple<tensor<1x4xf32>, tensor<8x4xf32>>) -> tensor<8x4xf32>
  %moved = "stablehlo.custom_call"(%row) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w = "stablehlo.dynamic_update_slice"(%b, %moved, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  "func.return"(%w) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// -----

// The write in a callee, the buffer an argument of the caller; two writes
// into the same buffer are one error.
// CHECK-LABEL: error: HOE102: Entry computation parameter "buf_call" (shape index {}) is not in host memory space
// CHECK: note: path: argument 'buf_call' -> call @write -> stablehlo.dynamic_update_slice
// CHECK: note: 'stablehlo.dynamic_update_slice' writes host memory into the same buffer
// CHECK-NOT: error: HOE102: Entry computation parameter "buf_call"
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
  ^bb0(%buf: tensor<8x4xf32> loc("buf_call"), %row: tensor<1x4xf32> loc("row")):
    %0 = "func.call"(%buf, %row) <{callee = @write}> : (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>
    "func.return"(%0) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, sym_name = "write", sym_visibility = "private"}> ({
  ^bb0(%b: tensor<8x4xf32>, %r: tensor<1x4xf32>):
    %moved = "stablehlo.custom_call"(%r) <{call_target_name = "MoveToHost"}> : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %w = "stablehlo.dynamic_update_slice"(%b, %moved, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
    %again = "stablehlo.dynamic_update_slice"(%w, %moved, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
    "func.return"(%again) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A pinned_host row written into a device buffer is host compute: silent for
// XLA, an error under strict (XLA's `Automatic host compute offloading is
// disabled.`).
// CHECK-NOT: write_host_row
// STRICT-LABEL: error: HOE101: Automatic host compute offloading is disabled; 'stablehlo.dynamic_update_slice' writes a tensor in host memory (its update), which XLA can only run as host compute
"func.func"() <{arg_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8x4xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "write_host_row"}> ({
^bb0(%buf: tensor<8x4xf32> loc("buf_host_row"), %row: tensor<1x4xf32> loc("row")):
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w = "stablehlo.dynamic_update_slice"(%buf, %row, %c, %c) : (tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  "func.return"(%w) : (tensor<8x4xf32>) -> ()
}) : () -> ()
