// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: offload-opt %s --split-input-file --host-offload-fix=strategy=host --mlir-print-op-generic | FileCheck %s

// A func.call inside sdy.manual_computation (a nested jit or compute_on in a
// shard_map body): the callee is the module's function, although MLIR's
// verifier would look for it in the unregistered Shardy op and fail. Host
// memory enters the callee through the body's argument and comes back out of
// it to the shard_map's result (docs/semantics.md, "Calls inside Shardy
// regions").

// The host fix declares the output pinned_host; the call stays as it was.
// CHECK-LABEL: res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"
// CHECK: "sdy.manual_computation"
// CHECK: "func.call"(%{{.*}}) <{callee = @body_jit}>
// CHECK: "sdy.return"
// CHECK-LABEL: sym_name = "body_jit"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
  // expected-note @below {{in host memory from the start: argument #0 is declared mhlo.memory_kind = "pinned_host"}}
  ^bb0(%arg0: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from argument #0) is returned from the entry computation but the layout for this output is not set to host memory; output 0 is declared mhlo.memory_kind = "device"}}
    // expected-note @below {{path: argument #0 -> sdy.manual_computation -> call @body_jit -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "func.call"(%arg1) <{callee = @body_jit}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, sym_name = "body_jit", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x128xf32>):
    "func.return"(%arg0) : (tensor<8x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// The callee moves its argument back to device memory: clean, and the fix
// changes nothing.

// CHECK-LABEL: function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"
// CHECK: "func.call"(%{{.*}}) <{callee = @to_device}>
// CHECK-LABEL: sym_name = "to_device"
// CHECK: _xla_buffer_placement = "device"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "func.call"(%arg1) <{callee = @to_device}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, sym_name = "to_device", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x128xf32>):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "func.return"(%0) : (tensor<8x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A move to host inside the callee, under a while inside the shard_map body:
// the callee is found from two unregistered ops deep.

// CHECK-LABEL: res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"
// CHECK: "stablehlo.while"
// CHECK: "func.call"(%{{.*}}) <{callee = @offload}>
// CHECK-LABEL: sym_name = "offload"
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    // expected-error @below {{E1200: Tensor which is moved to host (starting from 'annotate_device_placement' to pinned_host) is returned from the entry computation but the layout for this output is not set to host memory; output 0 has no mhlo.memory_kind, so it is in device memory}}
    // expected-note @below {{path: 'annotate_device_placement' to pinned_host -> return from @offload -> stablehlo.while -> sdy.manual_computation -> output 0}}
    // expected-note @below {{fix (keep it in host memory)}}
    // expected-note @below {{fix (bring it back to device memory)}}
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "stablehlo.while"(%arg1) ({
      ^bb0(%arg2: tensor<8x128xf32>):
        %2 = "stablehlo.constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
        "stablehlo.return"(%2) : (tensor<i1>) -> ()
      }, {
      ^bb0(%arg2: tensor<8x128xf32>):
        %2 = "func.call"(%arg2) <{callee = @offload}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
        "stablehlo.return"(%2) : (tensor<8x128xf32>) -> ()
      }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, sym_name = "offload", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8x128xf32>):
    // expected-note @below {{moved to host here}}
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "annotate_device_placement", has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "func.return"(%0) : (tensor<8x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()
