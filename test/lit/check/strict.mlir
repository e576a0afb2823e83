// RUN: offload-opt %s --host-offload-check=strict=true -verify-diagnostics
// RUN: not offload-opt %s --host-offload-check=strict=true -o /dev/null 2>&1 | FileCheck %s
// RUN: offload-opt %s --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=LENIENT

// Under `strict`, device computation on host memory is an error, as in XLA
// with xla_disable_automatic_host_compute_offload.
// CHECK: error: HOE101: Automatic host compute offloading is disabled; 'stablehlo.tanh' computes on a tensor in host memory
// LENIENT: warning: HOW101: 'stablehlo.tanh' computes on a tensor in host memory
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<8xf32>):
  // expected-error @below {{HOE101: Automatic host compute offloading is disabled; 'stablehlo.tanh' computes on a tensor in host memory (moved to host starting from argument #0), which XLA would run as host compute}}
  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()
