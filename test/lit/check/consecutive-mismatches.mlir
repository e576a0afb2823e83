// RUN: offload-opt %s --host-offload-check -verify-diagnostics

// offload-opt builds each E1200 in the memory of the one before it. Outputs
// whose findings differ in every part, each after one with more: two starts
// and an "unpinned_host" note, then a tuple with one fix, then neither a
// result info, a tuple index nor a declared kind. -verify-diagnostics fails
// on any note left over from the finding before, and each message is matched
// up to its end.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>, tensor<4xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "unpinned_host"}, {jax.result_info = "result[1]"}, {}], sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #1 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #2 is declared mhlo.memory_kind = "pinned_host"}}
// expected-note @below {{in host memory from the start: argument #3 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4xf32>):
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 ("result[0]") is declared mhlo.memory_kind = "unpinned_host"}}
  // expected-note @below {{path: argument #0 -> stablehlo.add -> output 0}}
  // expected-note @below {{XLA puts "unpinned_host" outputs in memory space 6, not in host memory space 5, so they do not count as host memory}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for "result[0]"}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 0 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[0]" before returning it}}
  // expected-warning @below {{HOW101: 'stablehlo.add' computes on a tensor in host memory}}
  %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #2) is returned from the entry computation but the layout for this output is not set to host memory; output 1 at tuple index {1} ("result[1]") has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #2 -> stablehlo.tuple -> output 1 at tuple index {1}}}
  // expected-note @below {{output 1 is a tuple, and XLA does not implement a memory kind on a tuple-typed output: it cannot be kept in host memory}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 1 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on "result[1]" before returning it}}
  %1 = "stablehlo.tuple"(%arg4, %arg2) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #3) is returned from the entry computation but the layout for this output is not set to host memory; output 2 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #3 -> stablehlo.negate -> output 2}}
  // expected-note @below {{fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 2 of @main; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 2}}
  // expected-note @below {{fix (bring it back to device memory): move it back with 'annotate_device_placement' (_xla_buffer_placement = "device") on operand 2 of func.return; in JAX: jax.device_put(x, jax.memory.Space.Device) on output 2 before returning it}}
  // expected-warning @below {{HOW101: 'stablehlo.negate' computes on a tensor in host memory}}
  %2 = "stablehlo.negate"(%arg3) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0, %1, %2) : (tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xf32>>, tensor<4xf32>) -> ()
}) : () -> ()
