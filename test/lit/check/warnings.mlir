// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// XLA's root special case: a lone output that is directly a move to host of a
// device tensor becomes a copy to host memory and back, without an error.
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW102: output 0 is directly a move to host of a device tensor, and is declared "device"; XLA compiles this without an error by copying the tensor to host memory and straight back, so the output is in device memory and the move to host only adds two copies}}
  // expected-note @below {{to keep it in host memory, declare it there: set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result"; to keep it on device, drop the move to host}}
  %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// The same without a declared memory kind, which is device memory.
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW102: output 0 is directly a move to host of a device tensor, and has no memory kind; XLA compiles this}}
  // expected-note @below {{to keep it in host memory, declare it there: set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host"); to keep it on device, drop the move to host}}
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// The same in a module converted from HLO, which declares memory spaces: the
// note speaks of them.
module attributes {mhlo.frontend_attributes = {out_memory_spaces = "0"}} {
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-warning @below {{HOW102: output 0 is directly a move to host of a device tensor, and is declared "device"; XLA compiles this}}
    // expected-note @below {{to keep it in host memory, declare it there: set memory space 5 for output 0 in out_memory_spaces of the module; in JAX: out_shardings=...with_memory_kind("pinned_host"); to keep it on device, drop the move to host}}
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "MoveToHost", has_side_effect = true}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}

// -----

// A move to host whose result is never used does nothing.
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW103: the result of this move to host is never used, so the offload does nothing}}
  %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%arg0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// Memory kinds and placements XLA does not know.
// expected-warning @below {{HOW104: unknown memory kind "host" on result 0 of @main (from mhlo.memory_kind); XLA knows "device", "pinned_host" and "unpinned_host"}}
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_hots"}, {mhlo.memory_kind = 5 : i32}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{mhlo.memory_kind = "host"}, {}], sym_name = "main"}> ({
// expected-warning @below {{HOW104: unknown memory kind "pinned_hots" on argument 0 of @main (from mhlo.memory_kind); XLA knows "device", "pinned_host" and "unpinned_host"}}
// expected-warning @below {{HOW104: mhlo.memory_kind on argument 1 of @main is not a string; XLA knows "device", "pinned_host" and "unpinned_host"}}
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
  // expected-warning @below {{HOW104: unknown _xla_buffer_placement "host"; XLA knows "pinned_host", "unpinned_host", "device", "vmem" and "pinned_device"}}
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "host"}} : (tensor<8xf32>) -> tensor<8xf32>
  // expected-warning @below {{HOW104: 'annotate_device_placement' has no string _xla_buffer_placement in mhlo.frontend_attributes; XLA knows "pinned_host", "unpinned_host", "device", "vmem" and "pinned_device"}}
  %1 = "stablehlo.custom_call"(%arg1) <{call_target_name = "annotate_device_placement", has_side_effect = true}> : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0, %1) : (tensor<8xf32>, tensor<8xf32>) -> ()
}) : () -> ()

// -----

// An annotation with two operands is not traced; XLA fails on it.
"func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW105: 'annotate_device_placement' takes exactly one operand and one result, this one has 2 and 1; XLA fails on it with an internal error, and it is not traced}}
  %0 = "stablehlo.custom_call"(%arg0, %arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// An unpinned_host argument is not a start in XLA; an automatic layout on a
// pinned_host output loses its host memory space in older XLA releases.
// expected-warning @below {{HOW107: result 0 of @main is declared "pinned_host" with mhlo.layout_mode = "auto"; older XLA releases drop the host memory space of automatic layouts and fail with E1200}}
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "unpinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.layout_mode = "auto", mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%x: tensor<8xf32> loc("x")):
  // The argument has no file location: the warning points at its first use.
  // expected-warning @below {{HOW106: argument 'x' is declared "unpinned_host"; XLA does not trace it as host memory, and XLA:TPU fails later with an internal shape mismatch}}
  "func.return"(%x) : (tensor<8xf32>) -> ()
}) : () -> ()
