// RUN: offload-opt %s --host-offload-check --mlir-print-op-generic | FileCheck %s
// RUN: cat %s | offload-opt - -o %t && FileCheck %s --check-prefix=PRETTY < %t
// RUN: offload-opt %s --pass-pipeline='builtin.module(host-offload-check{entry=main})' --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING

// StableHLO ops parse without the dialect being registered, and the check
// pass leaves them as they were.

// CHECK: "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}>
// CHECK: "stablehlo.tanh"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// PRETTY-LABEL: func.func @main
// PRETTY: "stablehlo.tanh"
// TIMING: HostOffloadCheckPass
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "stablehlo.tanh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()
