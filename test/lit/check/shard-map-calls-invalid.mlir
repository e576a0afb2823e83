// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-check 2>&1 | FileCheck %s %}

// Our verifier resolves a call inside a Shardy region in the module, so a
// callee that is not there, or does not match the call, is still MLIR's
// located error at the call, and no pass runs.

// CHECK: shard-map-calls-invalid.mlir:[[@LINE+9]]:12: error: 'func.call' op 'missing' does not reference a valid function
// CHECK-NOT: E1200
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      // expected-error @below {{'func.call' op 'missing' does not reference a valid function}}
      %1 = "func.call"(%arg1) <{callee = @missing}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// CHECK: shard-map-calls-invalid.mlir:[[@LINE+9]]:12: error: 'func.call' op operand type mismatch: expected operand type 'tensor<4xf32>', but provided 'tensor<8x128xf32>' for operand number 0
// CHECK-NOT: E1200
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      // expected-error @below {{'func.call' op operand type mismatch: expected operand type 'tensor<4xf32>', but provided 'tensor<8x128xf32>' for operand number 0}}
      %1 = "func.call"(%arg1) <{callee = @small}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%0) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "small", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Of two calls that fail, the error is the one MLIR's verifier reports first:
// it checks the ops of a region before those of the regions nested in them,
// so the call after the Shardy region, not the one inside it.

// CHECK: shard-map-calls-invalid.mlir:[[@LINE+13]]:10: error: 'func.call' op 'missing_after' does not reference a valid function
// CHECK-NOT: missing_inside
// CHECK-NOT: E1200
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<16x128xf32>) -> tensor<16x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<16x128xf32>):
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%arg1: tensor<8x128xf32>):
      %1 = "func.call"(%arg1) <{callee = @missing_inside}> : (tensor<8x128xf32>) -> tensor<8x128xf32>
      "sdy.return"(%1) : (tensor<8x128xf32>) -> ()
    }) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    // expected-error @below {{'func.call' op 'missing_after' does not reference a valid function}}
    %2 = "func.call"(%0) <{callee = @missing_after}> : (tensor<16x128xf32>) -> tensor<16x128xf32>
    "func.return"(%2) : (tensor<16x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()
