// RUN: offload-opt %s --host-offload-check -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=HOW101
// RUN: not offload-opt %s --host-offload-check=strict=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --implicit-check-not=HOE101

// Device ops at one location computing on the host memory of several starts
// (a layer unrolled, an update mapped over a tree of parameters) are one
// HOW101 with the other starts counted in a note; another location keeps its
// own. So does the error HOE101 under strict.
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>), res_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>):
  %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("model.py":3:5)
  %1 = "stablehlo.multiply"(%arg1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("model.py":3:5)
  %2 = "stablehlo.add"(%arg2, %arg2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("model.py":4:5)
  "func.return"(%0, %1, %2) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()
}) : () -> ()

// CHECK: model.py:3:5: warning: HOW101: 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from argument #0); XLA runs it as host compute and keeps its results in host memory
// CHECK-NEXT: model.py:3:5: note: ops here compute on 2 tensors in host memory in all; also moved to host starting from argument #1
// CHECK-NEXT: model.py:4:5: warning: HOW101: 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #2)
// CHECK-NOT: note:

// STRICT: model.py:3:5: error: HOE101: Automatic host compute offloading is disabled; 'stablehlo.multiply' computes on a tensor in host memory (moved to host starting from argument #0)
// STRICT-NEXT: model.py:3:5: note: ops here compute on 2 tensors in host memory in all; also moved to host starting from argument #1
// STRICT-NEXT: model.py:4:5: error: HOE101: Automatic host compute offloading is disabled; 'stablehlo.add' computes on a tensor in host memory (moved to host starting from argument #2)
// STRICT-NOT: note:
