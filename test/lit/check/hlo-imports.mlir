// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// The ops XLA's HLO-to-StableHLO importer leaves in the MHLO dialect, each as
// XLA treats the HLO instruction it came from (docs/semantics.md, section 8),
// and the XLA instruction names an E1200 of HLO input gives.

// A host call (async-start on execution_thread "host", around a HostExecute
// custom call) takes an S(5) argument: the host computation consumes it and
// XLA keeps the call's result in device memory (IsHostAsyncStart). No E1200,
// no host compute.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "wrapped", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "HostExecute", called_computations = [@host_fn]}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) {execution_thread = "host"} : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "host_fn", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.sine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) {execution_thread = "host"} : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "mhlo.async_start"(%arg0) <{called_computation = @wrapped, execution_thread = "host"}> : (tensor<8xf32>) -> !mhlo.async_bundle<tuple<tensor<8xf32>>, tensor<8xf32>, tensor<ui32>>
    %1 = "mhlo.async_done"(%0) {called_computation = @wrapped, execution_thread = "host"} : (!mhlo.async_bundle<tuple<tensor<8xf32>>, tensor<8xf32>, tensor<ui32>>) -> tensor<8xf32>
    "func.return"(%1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()

// -----

// An async call on another thread is device compute on host memory.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "wrapped", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.sine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared memory space 5}}
  ^bb0(%arg0: tensor<8xf32>):
    // expected-warning @below {{HOW101: 'mhlo.async_start' computes on a tensor in host memory}}
    %0 = "mhlo.async_start"(%arg0) <{called_computation = @wrapped, execution_thread = "main"}> : (tensor<8xf32>) -> !mhlo.async_bundle<tuple<tensor<8xf32>>, tensor<8xf32>, tensor<ui32>>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned}}
    // expected-note @below {{path: argument #0 -> mhlo.async_start -> mhlo.async_done -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %1 = "mhlo.async_done"(%0) {called_computation = @wrapped, execution_thread = "main"} : (!mhlo.async_bundle<tuple<tensor<8xf32>>, tensor<8xf32>, tensor<ui32>>) -> tensor<8xf32>
    "func.return"(%1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()

// -----

// mhlo.bitcast moves no data: the S(5) argument reaches the output, and no op
// computes on it.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<1024xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start}}
  ^bb0(%arg0: tensor<8x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned}}
    // expected-note @below {{path: argument #0 -> mhlo.bitcast -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "mhlo.bitcast"(%arg0) : (tensor<8x128xf32>) -> tensor<1024xf32>
    "func.return"(%0) : (tensor<1024xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()

// -----

// mhlo.copy of a whole host tensor is host compute (XLA converts a copy that
// keeps its shape to host compute)...
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start}}
  ^bb0(%arg0: tensor<8xf32>):
    // expected-warning @below {{HOW101: 'mhlo.copy' computes on a tensor in host memory}}
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned}}
    // expected-note @below {{path: argument #0 -> mhlo.copy -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "mhlo.copy"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()

// -----

// ... and data movement on a slice, which XLA then reads into device memory.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    %1 = "mhlo.copy"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "0"}} : () -> ()
