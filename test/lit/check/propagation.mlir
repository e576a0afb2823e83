// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// Tuple index precision: only the host element of a tuple is traced.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "device"}], sym_name = "main", sym_visibility = "public"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %1 = "stablehlo.get_tuple_element"(%0) <{index = 1 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 ("result[1]") is declared mhlo.memory_kind = "device"}}
  // expected-note @below {{path: argument #0 -> stablehlo.tuple -> stablehlo.get_tuple_element -> output 1}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 1 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[1]"}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[1]" before returning it}}
  %2 = "stablehlo.get_tuple_element"(%0) <{index = 0 : i32}> : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  "func.return"(%1, %2) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A tuple-typed output names the tuple index that carries host memory.
"func.func"() <{arg_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #1 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #1) is returned from the entry computation but the layout for this output is not set to host memory; output 0 at tuple index {1} has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #1 -> stablehlo.tuple -> output 0 at tuple index {1}}}
  // expected-note @below {{output 0 is a tuple, and XLA does not implement a memory kind on a tuple-typed output: it cannot be kept in host memory}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 at tuple index {1} before returning it}}
  %0 = "stablehlo.tuple"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  "func.return"(%0) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> ()
}) : () -> ()

// -----

// optimization_barrier: operand i flows to result i only.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{}, {}], sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.optimization_barrier -> output 1}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 1 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 1}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 1 before returning it}}
  %0:2 = "stablehlo.optimization_barrier"(%arg1, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  "func.return"(%0#0, %0#1) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A callee shared by two call sites returns host memory only where host
// memory goes in: XLA flattens the call graph before it traces.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{}, {}], sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
    %0 = "func.call"(%arg1) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: argument #0 -> call @scale -> stablehlo.add -> return from @scale -> output 1}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %1 = "func.call"(%arg0) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "scale", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A call site whose operand is walked before the callee's return carries host
// memory, and one walked after, both get it back; the device call sites in
// between never do.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{}, {}, {}], sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
    %0 = "func.call"(%arg0) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "func.call"(%arg1) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: argument #0 -> call @scale -> stablehlo.add -> return from @scale -> output 1}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %2 = "func.call"(%0) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "func.call"(%1) <{callee = @scale}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%1, %2, %3) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "scale", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A move to host inside a callee makes its result host at every call site.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> return from @offload -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "func.call"(%arg0) <{callee = @offload}> : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{output 1 has no mhlo.memory_kind}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> return from @offload -> output 1}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %1 = "func.call"(%arg0) <{callee = @offload}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "offload", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // Both errors point here; -verify-diagnostics matches both with one line.
    // expected-note @below {{moved to host here: custom call 'annotate_device_placement' with _xla_buffer_placement = "pinned_host" moves the tensor to host}}
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A value's uses are followed in program order, whether it has two uses or
// more: the first op computing on host memory is the one a reader meets
// first, where the warning is, and the notes follow in program order.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "stablehlo.reshape"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW101: 'stablehlo.sine' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %1 = "stablehlo.sine"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.cosine' computes on host memory from the same start}}
  %2 = "stablehlo.cosine"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%1, %2, %1, %2, %2) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "stablehlo.reshape"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW101: 'stablehlo.exponential' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %1 = "stablehlo.exponential"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.sine' computes on host memory from the same start}}
  %2 = "stablehlo.sine"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-note @below {{'stablehlo.cosine' computes on host memory from the same start}}
  %3 = "stablehlo.cosine"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%1, %2, %3) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()
