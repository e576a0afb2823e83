// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// XLA reads a slice of host memory into device memory when every way from
// the slice's result through data movement ends at an output or a move to
// device; reshape, transpose, optimization_barrier, calls and loop carries
// move data. Each of these compiles on XLA:TPU (docs/differential.md).
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<8xf32>, tensor<4x2xf32>, tensor<2x4xf32>, tensor<2x4xf32>), sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8x4xf32>):
    %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 2, 4>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<8x4xf32>) -> tensor<2x4xf32>
    %1 = "stablehlo.optimization_barrier"(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %2 = "stablehlo.reshape"(%0) : (tensor<2x4xf32>) -> tensor<8xf32>
    %3 = "stablehlo.transpose"(%0) <{permutation = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %4 = "func.call"(%0) <{callee = @identity}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %5 = "sdy.sharding_constraint"(%0) <{sharding = #sdy.sharding<@mesh, [{}, {}]>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    "func.return"(%1, %2, %3, %4, %5) : (tensor<2x4xf32>, tensor<8xf32>, tensor<4x2xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x4xf32>) -> tensor<2x4xf32>, sym_name = "identity", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x4xf32>):
    "func.return"(%arg0) : (tensor<2x4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A dynamic_slice in a loop body, carried out of the loop.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %c = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %init = "stablehlo.constant"() <{value = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0:2 = "stablehlo.while"(%c, %init) ({
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %p = "stablehlo.compare"(%i, %i) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    // expected-warning @below {{HOW109: XLA:TPU reads this dynamic slice of host memory into device memory}}
    // expected-note @below {{fix: move the tensor to device memory before slicing it}}
    %s = "stablehlo.dynamic_slice"(%arg0, %i) <{slice_sizes = array<i64: 2>}> : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
    "stablehlo.return"(%i, %s) : (tensor<i32>, tensor<2xf32>) -> ()
  }) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  "func.return"(%0#1) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// A narrowing convert is hoisted above the slice by XLA's ConvertMover: the
// convert computes on host memory, and the slice is then read into device.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<4xbf16>, sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW101: 'stablehlo.convert' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory}}
  %1 = "stablehlo.convert"(%0) : (tensor<4xf32>) -> tensor<4xbf16>
  "func.return"(%1) : (tensor<4xbf16>) -> ()
}) : () -> ()

// -----

// A widening convert stays below the slice and computes on its result: the
// slice becomes host compute and its result stays in host memory.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xbf16>) -> tensor<4xf32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xbf16>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xbf16>) -> tensor<4xbf16>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.convert -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  // expected-warning @below {{HOW101: 'stablehlo.convert' computes on a tensor in host memory}}
  %1 = "stablehlo.convert"(%0) : (tensor<4xbf16>) -> tensor<4xf32>
  "func.return"(%1) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// One compute use anywhere keeps the slice in host memory on every way out,
// including the way through data movement only.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<4xf32>, tensor<2x2xf32>), res_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.negate', so XLA runs the slice as host compute instead of reading it into device memory}}
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.optimization_barrier -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.optimization_barrier"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @below {{HOW101: 'stablehlo.negate' computes on a tensor in host memory}}
  %2 = "stablehlo.negate"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "stablehlo.reshape"(%2) : (tensor<4xf32>) -> tensor<2x2xf32>
  "func.return"(%1, %3) : (tensor<4xf32>, tensor<2x2xf32>) -> ()
}) : () -> ()

// -----

// XLA folds a slice of a slice into one slice of the host tensor: the outer
// slice stays a read into device memory, and computing on the inner one keeps
// only the inner one in host memory.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>), sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.slice -> output 1}}
  // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.negate', so XLA runs the slice as host compute instead of reading it into device memory}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %1 = "stablehlo.slice"(%0) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 2 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.slice -> stablehlo.negate -> output 2}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  // expected-warning @below {{HOW101: 'stablehlo.negate' computes on a tensor in host memory}}
  %2 = "stablehlo.negate"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%0, %1, %2) : (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
}) : () -> ()

// -----

// A callee that computes on its argument makes the slice passed in at any
// call site host compute; a callee that only passes it on does not.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: argument #0 -> stablehlo.slice -> output 0}}
    // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.exponential', so XLA runs the slice as host compute instead of reading it into device memory}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    // expected-error @below {{HOE105: XLA:TPU reads this slice of host memory into device memory with an asynchronous slice starting at element 4 of the lane dimension}}
    // expected-note @below {{fix: move the tensor to device memory before slicing it}}
    %1 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 8>, start_indices = array<i64: 4>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    %2 = "func.call"(%0) <{callee = @exp}> : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "func.call"(%1) <{callee = @pass}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0, %1, %3) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "exp", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    // expected-warning @below {{HOW101: 'stablehlo.exponential' computes on a tensor in host memory}}
    %0 = "stablehlo.exponential"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "pass", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A slice inside a callee, computed on by the caller after the return.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @below {{output 0 has no mhlo.memory_kind}}
    // expected-note @below {{path: argument #0 -> call @head -> stablehlo.slice -> return from @head -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "func.call"(%arg0) <{callee = @head}> : (tensor<8xf32>) -> tensor<4xf32>
    // expected-error @below {{output 1 has no mhlo.memory_kind}}
    // expected-note @below {{path: argument #0 -> call @head -> stablehlo.slice -> return from @head -> stablehlo.abs -> output 1}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    // expected-warning @below {{HOW101: 'stablehlo.abs' computes on a tensor in host memory}}
    %1 = "stablehlo.abs"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<4xf32>, sym_name = "head", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.abs'}}
    %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Only operand 0 of a dynamic_slice is sliced; a host start index is
// computed on.
"func.func"() <{arg_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>, sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #1 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<i32>):
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #1) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #1 -> stablehlo.dynamic_slice -> output 0}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  // expected-warning @below {{HOW101: 'stablehlo.dynamic_slice' computes on a tensor in host memory}}
  %0 = "stablehlo.dynamic_slice"(%arg0, %arg1) <{slice_sizes = array<i64: 2>}> : (tensor<8xf32>, tensor<i32>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()

// -----

// XLA rewrites a scatter of a slice into a constant at constant indices into
// a select on the sliced tensor: the select computes on host memory, the
// slice itself is still read into device memory. Into anything else the
// scatter computes on the slice.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>), sym_name = "main"}> ({
// expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
^bb0(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>):
  %0 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<2xf32>
  %1 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<8xf32>
  %3 = "stablehlo.constant"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 1 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.scatter -> output 1}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  // expected-warning @below {{HOW101: 'stablehlo.scatter' computes on a tensor in host memory}}
  %4 = "stablehlo.scatter"(%2, %3, %0) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "stablehlo.return"(%b) : (tensor<f32>) -> ()
  }) : (tensor<8xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<8xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 2 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> output 2}}
  // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.scatter', so XLA runs the slice as host compute instead of reading it into device memory}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %5 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<2xf32>
  // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 3 has no mhlo.memory_kind, so it is in device memory}}
  // expected-note @below {{path: argument #0 -> stablehlo.slice -> stablehlo.scatter -> output 3}}
  // expected-note @below {{'stablehlo.scatter' computes on host memory from the same start}}
  // expected-note @below {{fix (keep it in host memory)}}
  // expected-note @below {{fix (bring it back to device memory)}}
  %6 = "stablehlo.scatter"(%arg1, %3, %5) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "stablehlo.return"(%b) : (tensor<f32>) -> ()
  }) : (tensor<8xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<8xf32>
  "func.return"(%0, %4, %5, %6) : (tensor<2xf32>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32>) -> ()
}) : () -> ()

// -----

// @g returns to every call site host memory it made (a start inside it),
// merged with its argument: at @f's call site that argument is @f's %y, not
// @f's argument 0. Computing on the result in @f therefore computes on @f's
// %y, and the slice passed as @f's unused %x is read into device memory.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<8xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<4xf32>, %k: tensor<i32>):
    %s = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    %r = "func.call"(%s, %arg1, %k) <{callee = @f}> : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    "func.return"(%s, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>, sym_name = "f", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %kf: tensor<i32>):
    %g = "func.call"(%y, %kf) <{callee = @g}> : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    // expected-warning @below {{HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from 'annotate_device_placement' to pinned_host)}}
    %m = "stablehlo.multiply"(%g, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%m) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>, sym_name = "g", sym_visibility = "private"}> ({
  ^bb0(%a: tensor<4xf32>, %kg: tensor<i32>):
    %d = "stablehlo.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %h = "stablehlo.custom_call"(%d) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %c = "stablehlo.case"(%kg) ({
      "stablehlo.return"(%h) : (tensor<4xf32>) -> ()
    }, {
      "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4xf32>
    "func.return"(%c) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// The same @g at @f's call site with the slice passed as @f's %y, which
// enters @g: the result @f computes on came through %y, so the slice is
// computed on and stays in host memory, as XLA:TPU raises E1200 for it.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {}], function_type = (tensor<8xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "device"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<8xf32>, %arg1: tensor<4xf32>, %k: tensor<i32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{path: argument #0 -> stablehlo.slice -> output 0}}
    // expected-note @below {{'stablehlo.slice' of host memory stays in host memory: its result is also used by 'stablehlo.multiply', so XLA runs the slice as host compute instead of reading it into device memory}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %s = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 4>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4xf32>
    %r = "func.call"(%arg1, %s, %k) <{callee = @f}> : (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    "func.return"(%s, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<4xf32>, sym_name = "f", sym_visibility = "private"}> ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %kf: tensor<i32>):
    %g = "func.call"(%y, %kf) <{callee = @g}> : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    // expected-warning @below {{HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from 'annotate_device_placement' to pinned_host)}}
    %m = "stablehlo.multiply"(%g, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%m) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>, sym_name = "g", sym_visibility = "private"}> ({
  ^bb0(%a: tensor<4xf32>, %kg: tensor<i32>):
    %d = "stablehlo.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
    %h = "stablehlo.custom_call"(%d) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4xf32>) -> tensor<4xf32>
    %c = "stablehlo.case"(%kg) ({
      "stablehlo.return"(%h) : (tensor<4xf32>) -> ()
    }, {
      "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4xf32>
    "func.return"(%c) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
