// RUN: offload-opt %s --host-offload-fix=strategy=host --mlir-print-op-generic | FileCheck %s
// RUN: offload-opt %s --host-offload-fix=strategy=host | offload-opt --host-offload-check -o /dev/null
// RUN: not offload-opt %s --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-NOTE
// RUN: sed 's/"device"}], sym_name/"pinned_host"}], sym_name/' %s | not offload-opt --host-offload-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECLARED

// A scan over rows in host memory whose carry starts in device memory (%arg1)
// and becomes host memory through the add in the loop (host compute). Declared
// pinned_host at the output alone, libtpu aborts (HOE109); the host fix moves
// the carry's initial value to host memory before the loop too, which
// compiles (docs/semantics.md §17).

// CHECK-NOTE: error: E1200
// CHECK-NOTE: note: fix (keep it in host memory): set mhlo.memory_kind = "pinned_host" on result 0 of @main, and move operand 1 of the stablehlo.while it comes out of to host memory ('annotate_device_placement' with _xla_buffer_placement = "pinned_host"), since libtpu aborts on a loop carry declared in host memory that starts in device memory; in JAX: out_shardings=...with_memory_kind("pinned_host") for output 0, and jax.device_put(init, jax.memory.Space.Host) on the initial value of the loop carry it comes out of

// DECLARED: error: HOE109: output 0 is declared "pinned_host" and is carry 1 of this loop, which starts in device memory and becomes host memory in the loop: libtpu aborts compiling it
// DECLARED-NOT: E1200

// CHECK: res_attrs = [{mhlo.memory_kind = "pinned_host"}]
// CHECK: %[[INIT:.*]] = "stablehlo.custom_call"(%arg1) <{{.*}}call_target_name = "annotate_device_placement"{{.*}}_xla_buffer_placement = "pinned_host"
// CHECK-NEXT: "stablehlo.while"(%{{.*}}, %[[INIT]])
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "device"}], function_type = (tensor<3x8xf32>, tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({
^bb0(%xs: tensor<3x8xf32>, %c0: tensor<8xf32>):
  %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %loop:2 = "stablehlo.while"(%zero, %c0) ({
  ^bb0(%i: tensor<i32>, %c: tensor<8xf32>):
    %three = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %go = "stablehlo.compare"(%i, %three) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%go) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %c: tensor<8xf32>):
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %row = "stablehlo.dynamic_slice"(%xs, %i, %z) <{slice_sizes = array<i64: 1, 8>}> : (tensor<3x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
    %x = "stablehlo.reshape"(%row) : (tensor<1x8xf32>) -> tensor<8xf32>
    %sum = "stablehlo.add"(%c, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%next, %sum) : (tensor<i32>, tensor<8xf32>) -> ()
  }) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
  "func.return"(%loop#1) : (tensor<8xf32>) -> ()
}) : () -> ()
