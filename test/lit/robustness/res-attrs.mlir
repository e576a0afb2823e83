// RUN: offload-opt %s --split-input-file --host-offload-check -verify-diagnostics
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=host 2>&1 | FileCheck %s %}
// RUN: %if split-lines-in-file %{ not offload-opt %s --split-input-file --host-offload-fix=strategy=device 2>&1 | FileCheck %s %}

// Argument and result attribute arrays of the wrong length, or holding what
// is not a dictionary: the func dialect's verifier rejects them while parsing,
// with a located error, before any pass runs.

// CHECK: res-attrs.mlir:[[@LINE+2]]:1: error: 'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 2
// expected-error @below {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 2}}
"func.func"() <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// -----

// CHECK: res-attrs.mlir:[[@LINE+2]]:1: error: 'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 3, but expected 1
// expected-error @below {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 3, but expected 1}}
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{}, {mhlo.memory_kind = "pinned_host"}, {}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// CHECK: res-attrs.mlir:[[@LINE+2]]:1: error: 'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 0, but expected 1
// expected-error @below {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 0, but expected 1}}
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// CHECK: res-attrs.mlir:[[@LINE+2]]:1: error: 'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 1, but expected 2
// expected-error @below {{'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 1, but expected 2}}
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// CHECK: res-attrs.mlir:[[@LINE+2]]:1: error: 'func.func' op attribute 'res_attrs' failed to satisfy constraint: Array of dictionary attributes
// expected-error @below {{'func.func' op attribute 'res_attrs' failed to satisfy constraint: Array of dictionary attributes}}
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = ["pinned_host"], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// A return whose operands do not match the results.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  // CHECK: res-attrs.mlir:[[@LINE+2]]:3: error: 'func.return' op has 1 operands, but enclosing function (@main) returns 2
  // expected-error @below {{'func.return' op has 1 operands, but enclosing function (@main) returns 2}}
  "func.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()
// CHECK-NOT: Stack dump
