// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// A slice of host memory returned as it is is read into device memory (XLA
// turns it into a DMA); a slice whose result is computed on stays in host
// memory, also where it is returned, as XLA:TPU shows (docs/differential.md).
// More cases in slices.mlir.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  %c = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  // expected-warning @below {{HOW109: XLA:TPU reads this dynamic slice of host memory into device memory with an asynchronous slice in the lane dimension (dimension 0 of tensor<8xf32>), whose start is known only when the program runs; the TPU core halts then unless its start is 0, the only multiple of 128 elements (512 bytes) it can take}}
  // expected-note @below {{fix: move the tensor to device memory before slicing it}}
  %0 = "stablehlo.dynamic_slice"(%arg0, %c) <{slice_sizes = array<i64: 2>}> : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> output 1}}
  // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.multiply', so XLA runs the slice as host compute instead of reading it into device memory}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 1}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1}}
  %1 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 2 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.multiply -> output 2}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  // expected-warning @below {{HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from argument #0)}}
  %2 = "stablehlo.multiply"(%1, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0, %1, %2) : (tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Sharding wrappers are gone by the time XLA traces; they are transparent.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  %0 = "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{}]>}> : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "stablehlo.custom_call"(%0) <{call_target_name = "Sharding"}> {mhlo.sharding = "{replicated}"} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "stablehlo.custom_call"(%1) <{call_target_name = "SPMDFullToShardShape"}> : (tensor<8xf32>) -> tensor<8xf32>
  %3 = "stablehlo.custom_call"(%2) <{call_target_name = "SPMDShardToFullShape"}> : (tensor<8xf32>) -> tensor<8xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> sdy.sharding_constraint -> stablehlo.custom_call @Sharding -> stablehlo.custom_call @SPMDFullToShardShape -> stablehlo.custom_call @SPMDShardToFullShape -> stablehlo.custom_call @xla.sdy.FuncResultSharding -> output 0}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
  %4 = "stablehlo.custom_call"(%3) <{call_target_name = "xla.sdy.FuncResultSharding"}> : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%4) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// A custom call that aliases an operand to its result passes host memory
// through; an annotation that neither moves to nor from host does too.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "my_in_place_kernel", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]}> : (tensor<8xf32>) -> tensor<8xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.custom_call @my_in_place_kernel -> stablehlo.custom_call @annotate_device_placement -> output 0}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
  %1 = "stablehlo.custom_call"(%0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "vmem"}} : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%1) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// An op with a reduction body computes on host data: its results are host.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<f32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  %init = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.reduce -> output 0}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
  // expected-warning @below {{HOW101: 'stablehlo.reduce' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %0 = "stablehlo.reduce"(%arg0, %init) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()

// -----

// Host compute (compute_on("device_host")) consumes host memory; its result
// is not traced. Device ops in a chain warn once, where host memory enters.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
    %0 = "func.call"(%arg0) <{callee = @on_host}> {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<8xf32>) -> tensor<8xf32>
    // expected-warning @below {{HOW101: 'stablehlo.negate' computes on a tensor in host memory (moved to host starting from argument #1); XLA runs it as host compute and keeps its results in host memory}}
    %1 = "stablehlo.negate"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %2 = "stablehlo.exponential"(%1) : (tensor<8xf32>) -> tensor<8xf32>
    %3 = "stablehlo.abs"(%2) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0, %3) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "on_host", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.sine"(%arg0) {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Five starts reach one output: four are named, the rest summarized. A long
// path is shortened in the middle.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #2 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #3 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #4 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%a0: tensor<8xf32>, %a1: tensor<8xf32>, %a2: tensor<8xf32>, %a3: tensor<8xf32>, %a4: tensor<8xf32>):
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %0 = "stablehlo.add"(%a0, %a1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #2); XLA runs it as host compute and keeps its results in host memory}}
  %1 = "stablehlo.add"(%0, %a2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #3); XLA runs it as host compute and keeps its results in host memory}}
  %2 = "stablehlo.add"(%1, %a3) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #4); XLA runs it as host compute and keeps its results in host memory}}
  %3 = "stablehlo.add"(%2, %a4) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = "stablehlo.negate"(%3) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = "stablehlo.negate"(%4) : (tensor<8xf32>) -> tensor<8xf32>
  %6 = "stablehlo.negate"(%5) : (tensor<8xf32>) -> tensor<8xf32>
  %7 = "stablehlo.negate"(%6) : (tensor<8xf32>) -> tensor<8xf32>
  %8 = "stablehlo.negate"(%7) : (tensor<8xf32>) -> tensor<8xf32>
  %9 = "stablehlo.negate"(%8) : (tensor<8xf32>) -> tensor<8xf32>
  %10 = "stablehlo.negate"(%9) : (tensor<8xf32>) -> tensor<8xf32>
  %11 = "stablehlo.negate"(%10) : (tensor<8xf32>) -> tensor<8xf32>
  %12 = "stablehlo.negate"(%11) : (tensor<8xf32>) -> tensor<8xf32>
  %13 = "stablehlo.negate"(%12) : (tensor<8xf32>) -> tensor<8xf32>
  %14 = "stablehlo.negate"(%13) : (tensor<8xf32>) -> tensor<8xf32>
  %15 = "stablehlo.negate"(%14) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #4) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{more tensors moved to host than shown reach this output}}
  // expected-note @below {{path: argument #4 -> stablehlo.add -> stablehlo.negate -> stablehlo.negate -> stablehlo.negate -> stablehlo.negate -> (3 more steps) -> stablehlo.negate -> stablehlo.negate -> stablehlo.negate -> stablehlo.negate -> stablehlo.negate -> stablehlo.tanh -> output 0}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 0 before returning it}}
  %16 = "stablehlo.tanh"(%15) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%16) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// Device ops on host memory from one start are one warning: the first op,
// four more as notes, and a count of the rest.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW101: 'stablehlo.sine' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  // expected-note @below {{and 2 more ops compute on host memory from argument #0}}
  %0 = "stablehlo.sine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.cosine' computes on host memory from the same start}}
  %1 = "stablehlo.cosine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.tan' computes on host memory from the same start}}
  %2 = "stablehlo.tan"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.negate' computes on host memory from the same start}}
  %3 = "stablehlo.negate"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.abs' computes on host memory from the same start}}
  %4 = "stablehlo.abs"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = "stablehlo.exponential"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %6 = "stablehlo.log"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%arg0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// An op counts once however many times host memory reaches it, also where
// nothing uses its result: through two operands (the add and the multiply,
// from the argument and from its reshape a step later)...
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-warning @below {{HOW101: 'stablehlo.sine' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  // expected-note @below {{and 3 more ops compute on host memory from argument #0}}
  %0 = "stablehlo.sine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.cosine' computes on host memory from the same start}}
  %1 = "stablehlo.cosine"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.tan' computes on host memory from the same start}}
  %2 = "stablehlo.tan"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.negate' computes on host memory from the same start}}
  %3 = "stablehlo.negate"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  // expected-note @below {{'stablehlo.abs' computes on host memory from the same start}}
  %4 = "stablehlo.abs"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %r = "stablehlo.reshape"(%arg0) : (tensor<8xf32>) -> tensor<2x4xf32>
  %s = "stablehlo.reshape"(%r) : (tensor<2x4xf32>) -> tensor<8xf32>
  %5 = "stablehlo.add"(%arg0, %s) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = "stablehlo.multiply"(%s, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %7 = "stablehlo.exponential"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%arg0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// ... and from a value walked again as more starts reach it (the loop's
// first carried value, which the body swaps with the second).
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
  %w:2 = "stablehlo.while"(%arg0, %arg1) ({
  ^bb0(%c0: tensor<8xf32>, %c1: tensor<8xf32>):
    %p = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b0: tensor<8xf32>, %b1: tensor<8xf32>):
    // expected-warning @below {{HOW101: 'stablehlo.sine' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
    // expected-note @below {{and 2 more ops compute on host memory from argument #0}}
    %d0 = "stablehlo.sine"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    // expected-note @below {{'stablehlo.cosine' computes on host memory from the same start}}
    %d1 = "stablehlo.cosine"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    // expected-note @below {{'stablehlo.tan' computes on host memory from the same start}}
    %d2 = "stablehlo.tan"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    // expected-note @below {{'stablehlo.abs' computes on host memory from the same start}}
    %d3 = "stablehlo.abs"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    // expected-note @below {{'stablehlo.exponential' computes on host memory from the same start}}
    %d4 = "stablehlo.exponential"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    %d5 = "stablehlo.log"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    %d6 = "stablehlo.negate"(%b0) : (tensor<8xf32>) -> tensor<8xf32>
    "stablehlo.return"(%b1, %b0) : (tensor<8xf32>, tensor<8xf32>) -> ()
  }) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  "func.return"(%arg0) : (tensor<8xf32>) -> ()
}) : () -> ()

// -----

// Host memory returned by a function of a nested module ends there: no call
// site of the module's own @f of the same name takes it.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "func.call"(%arg0) <{callee = @f}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "f", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<8xf32>):
    "func.return"(%x) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "builtin.module"() <{sym_name = "inner"}> ({
    "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "f"}> ({
    ^bb0(%y: tensor<8xf32>):
      %1 = "stablehlo.custom_call"(%y) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8xf32>) -> tensor<8xf32>
      "func.return"(%1) : (tensor<8xf32>) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
