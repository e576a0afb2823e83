// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics

// shard_map: host memory entering operand i of sdy.manual_computation is the
// body's argument i; what sdy.return returns at j is result j (XLA inlines
// the body, docs/semantics.md section 4).

// A pinned_host argument computed on in the body: host compute, returned.
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation}}
    // expected-note @below {{path: argument #0 -> sdy.manual_computation -> stablehlo.multiply -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      // expected-warning @below {{HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from argument #0)}}
      %1 = "stablehlo.multiply"(%arg1, %arg1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A move to host in the body, returned to an output declared device.
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "stablehlo.sine"(%arg1) : (tensor<8x128xf32>) -> tensor<8x128xf32>
      // expected-note @below {{moved to host here}}
      %2 = "stablehlo.custom_call"(%1) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%2) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// The same move to host, returned to an output declared pinned_host: clean.
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "stablehlo.sine"(%arg1) : (tensor<8x128xf32>) -> tensor<8x128xf32>
      %2 = "stablehlo.custom_call"(%1) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%2) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A pinned_host argument moved back to device in the body: clean.
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "stablehlo.custom_call"(%arg1) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
      %2 = "stablehlo.multiply"(%1, %1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%2) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Positions: host operand 1 is body argument 1, returned at position 0. Only
// output 0 is host memory.
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>, tensor<16x128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>), sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #1 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<16x128xf32>, %arg1: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #1) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind}}
    // expected-note @below {{path: argument #1 -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0:2 = "sdy.manual_computation"(%arg0, %arg1) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg2: tensor<8x128xf32>, %arg3: tensor<8x128xf32>):
      "sdy.return"(%arg3, %arg2) : (tensor<8x128xf32>, tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>, tensor<16x128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>)
    "func.return"(%0#0, %0#1) : (tensor<16x128xf32>, tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// sdy.named_computation: the same flow through its body.
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation}}
    // expected-note @below {{path: argument #0 -> sdy.named_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.named_computation"(%arg0) <{name = "body"}> ({
    ^bb0(%arg1: tensor<8xf32>):
      "sdy.return"(%arg1) : (tensor<8xf32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
