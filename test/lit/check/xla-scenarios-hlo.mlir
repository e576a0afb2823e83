// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// Scenarios of section 9 of docs/semantics.md in modules converted
// from HLO (section 2): the moves are custom calls @MoveToHost / @MoveToDevice
// and the memory kinds are given only as memory-space codes in the module's
// mhlo.frontend_attributes (5 = pinned_host, 6 = unpinned_host, 0 = device).

// XLA: OutputStreaming: OK
// Output 0 is a move to host and its memory space is 5.
"builtin.module"() <{sym_name = "ParameterStreaming"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.multiply"(%2, %arg0) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %7 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "0;0", out_memory_spaces = "5;0"}} : () -> ()

// -----

// XLA: InvalidOutputStreaming: E1200
// The same program with output 0 in memory space 0.
"builtin.module"() <{sym_name = "ParameterStreaming"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.multiply"(%2, %arg0) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.broadcast_in_dim"(%4) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %6 = "stablehlo.multiply"(%3, %5) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'MoveToHost') is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared memory space 0 ("device") in out_memory_spaces of the module}}
    // expected-note @below {{moved to host here: custom call 'MoveToHost' moves the tensor to host}}
    // expected-note @below {{path: 'MoveToHost' -> output 0}}
    // expected-note @below {{fix (keep it in host memory): set memory space 5 for output 0 in out_memory_spaces of the module; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
    // expected-note @below {{fix (bring it back to device memory): move it back with custom call 'MoveToDevice' on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
    %7 = "stablehlo.custom_call"(%6) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "0;0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// XLA: host argument returned to a device output: E1200
// Argument 0 is in memory space 5 and is returned to output 0 in space 0.
"builtin.module"() <{sym_name = "OutputStreaming"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>) -> tensor<2x1xi32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param")):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument 'param') is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared memory space 0 ("device") in out_memory_spaces of the module}}
    // expected-note @below {{in host memory from the start: argument 'param' is declared memory space 5 ("pinned_host") in arg_memory_spaces of the module}}
    // expected-note @below {{path: argument 'param' -> output 0}}
    // expected-note @below {{fix (keep it in host memory): set memory space 5 for output 0 in out_memory_spaces of the module; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
    // expected-note @below {{fix (bring it back to device memory): move it back with custom call 'MoveToDevice' on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
    "func.return"(%arg0) : (tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()

// -----

// XLA: ParameterAndOutputStreamingPassThrough: OK
// Argument 0 in memory space 5 returned to output 0 in memory space 5.
"builtin.module"() <{sym_name = "OutputStreaming"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>) -> tensor<2x1xi32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param")):
    "func.return"(%arg0) : (tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}} : () -> ()

// -----

// XLA: ParameterStreaming: OK
// Argument 0 in memory space 5 is moved to device before it is computed on.
"builtin.module"() <{sym_name = "ParameterStreaming"}> ({
  "func.func"() <{function_type = (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x1xi32>, tensor<2x1xi32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x1xi32> loc("param_0"), %arg1: tensor<2x1xi32> loc("param_1")):
    %0 = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %2 = "stablehlo.multiply"(%arg1, %1) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %3 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToDevice"}> : (tensor<2x1xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.multiply"(%2, %3) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    %5 = "stablehlo.constant"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
    %6 = "stablehlo.broadcast_in_dim"(%5) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<2x1xi32>
    %7 = "stablehlo.multiply"(%4, %6) : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi32>
    "func.return"(%7, %4) : (tensor<2x1xi32>, tensor<2x1xi32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5;0", out_memory_spaces = "0;0"}} : () -> ()

// -----

// XLA: BasicNoCopy: OK
// MoveToHost then MoveToDevice.
"builtin.module"() <{sym_name = "my_module"}> ({
  "func.func"() <{function_type = (tensor<2048xf32>) -> tensor<2048xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2048xf32> loc("data_param")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<2048xf32>) -> tensor<2048xf32>
    %1 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToDevice"}> : (tensor<2048xf32>) -> tensor<2048xf32>
    "func.return"(%1) : (tensor<2048xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "0"}} : () -> ()

// -----

// XLA: output declared unpinned_host: E1200
// Output 0 is a move to host but its memory space is 6 (unpinned_host), which
// XLA does not count as host memory. There are two outputs, so XLA's root
// special case does not apply.
"builtin.module"() <{sym_name = "jit_double_output"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'MoveToHost') is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared memory space 6 ("unpinned_host") in out_memory_spaces of the module}}
    // expected-note @below {{moved to host here: custom call 'MoveToHost' moves the tensor to host}}
    // expected-note @below {{path: 'MoveToHost' -> output 0}}
    // expected-note @below {{XLA puts "unpinned_host" outputs in memory space 6, not in host memory space 5, so they do not count as host memory}}
    // expected-note @below {{fix (keep it in host memory): set memory space 5 for output 0 in out_memory_spaces of the module; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
    // expected-note @below {{fix (bring it back to device memory): move it back with custom call 'MoveToDevice' on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
    %3 = "stablehlo.custom_call"(%2) <{api_version = 1 : i32, backend_config = "", call_target_name = "MoveToHost"}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%3, %2) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "0", out_memory_spaces = "6;0"}} : () -> ()
